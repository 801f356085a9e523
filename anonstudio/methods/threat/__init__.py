"""Relative privacy threat analysis of group-anonymized tables (Boreale, Corradi, Viscardi 2020).

The family's shape: :class:`~.params.ThreatParams`, :func:`~.algorithm.run_threat`,
:class:`~.result.ThreatResult` and ``spec.SPEC``; :func:`~.analysis.analyze_threat`
runs the analysis on a release you already have. Nothing is imported here, so that
reading the spec (the command line's help) loads no sampler.
"""
