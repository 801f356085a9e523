"""The σ-k^m family's declaration: light to import, validation once, the verdict's figures say what was checked."""
from __future__ import annotations

import subprocess
import sys


def test_reading_the_spec_imports_no_algorithm_verifier_or_kernel():
    code = ("import sys; import anonstudio.methods.kmanon.spec as s; s.SPEC.params(); "
            "print(sorted(m for m in sys.modules if m.startswith(('anonstudio.methods.kmanon.', "
            "'anonstudio.verifiers', 'anonstudio.samplers', 'anonstudio.kernels.generalized', "
            "'anonstudio.kernels.kmanon'))))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert eval(out) == ["anonstudio.methods.kmanon.gamma", "anonstudio.methods.kmanon.params",
                         "anonstudio.methods.kmanon.spec", "anonstudio.methods.kmanon.terms"]
