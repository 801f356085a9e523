"""(k, k^m)-anonymity of RT-data under a loss bound (Poulis et al., ECML/PKDD 2013).

People with demographics *and* a set of items (patients' diagnoses,
customers' baskets) are clustered on their demographics, clusters are
merged while one side's loss stays within δ, and each cluster's items are
generalized so that anyone who knows a person's demographics and up to m of
their items matches at least k people.

Modules:

- :mod:`.params` (:class:`~.params.RTParams`, the stages of a run), :mod:`.algorithm`
  (:func:`~.algorithm.run_rt`, the one entry point), :mod:`.result` (:class:`~.result.RTResult`),
  :mod:`.spec` (the family's declaration) and :mod:`.terms` (its glossary entries);
- the steps: :mod:`.inputs` (the RT-data of a run), :mod:`.prepare` (encoding), :mod:`.cluster`,
  :mod:`.transaction` (T), :mod:`.btd`, :mod:`.merge`, :mod:`.are` (query accuracy);
- :mod:`.export` (ANON.csv, the item hierarchy), :mod:`.verify` (the independent check of a result),
  :mod:`.compare` (the release beside the original, for the studio), :mod:`.sweeps` (the heuristics' sweep).

The independent verifier lives in :mod:`anonstudio.verifiers.rt`.
"""
