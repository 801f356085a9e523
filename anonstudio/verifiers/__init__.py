"""Independent verifiers: re-check a release's privacy promise without sharing code with its method.

One module per family. A verifier keeps its own counting, sampling and
enumeration (and its own numba kernels, ``anonstudio.kernels.<verifier>``), so a
bug in a method cannot hide itself; where a loop has the same shape as the
method's, a comment says the repetition is deliberate.
"""
