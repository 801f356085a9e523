"""The uniqueness family's declaration: light to import, its choices the sampler's, its run one pipeline call."""
from __future__ import annotations

import subprocess
import sys

from anonstudio.methods.uniqueness.params import PROPOSALS
from anonstudio.samplers.mcmc_sampler import PROPOSALS as SAMPLER_PROPOSALS


def test_the_proposal_choices_are_the_samplers():
    assert PROPOSALS == SAMPLER_PROPOSALS


def test_reading_the_spec_imports_no_algorithm_sampler_or_kernel():
    code = ("import sys; import anonstudio.methods.uniqueness.spec as s; s.SPEC.params(); "
            "print(sorted(m for m in sys.modules if m.startswith(('anonstudio.methods.uniqueness.', "
            "'anonstudio.samplers', 'anonstudio.kernels.enumerate', 'anonstudio.kernels.mcmc'))))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert eval(out) == ["anonstudio.methods.uniqueness.params", "anonstudio.methods.uniqueness.spec",
                         "anonstudio.methods.uniqueness.terms"]
