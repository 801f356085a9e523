"""Uniform itemset samplers over Omega^ell: Algorithm 1's MCMC chain and independent rejection draws.

The Risk family (uniqueness estimates) and σ-k^m anonymity (line 8 of
Algorithm 2) draw from them; the verifiers never do (they keep their own).
"""
