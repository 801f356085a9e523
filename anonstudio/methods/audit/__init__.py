"""Audit a release: the independent evaluator (:mod:`anonstudio.evaluate`) as a family of the studio.

A release made anywhere (a file, or a finished run of another tab) is measured
against the open original on the evaluator's one scale of risk and utility,
and a claim such as k = 5, m = 2 is checked with a counterexample when false.
The family adds no measure of its own: it is the evaluator's parameters, run
and outputs in the shape every tab, project file and report already speaks.
"""
