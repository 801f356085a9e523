"""Group-based anonymization of relational tables (k-anonymity, ℓ-diversity, Anatomy).

Modules:

- :mod:`.params`, :mod:`.algorithm`, :mod:`.result`, :mod:`.spec`: the family's shape
  (:class:`~.params.GroupAnonymizeParams`, :func:`~.algorithm.run_group_anonymize`,
  :class:`~.result.GroupAnonymizeResult`, ``SPEC``);
- :mod:`.release`: :class:`~.release.GroupRelease`, the typed anonymized table every
  other part produces or consumes;
- :mod:`.mondrian`, :mod:`.global_recoding` (with :mod:`.levels`), :mod:`.anatomy`: the schemes;
- :mod:`.published_csv` (with :mod:`.cells`): the CSV form, export and import;
- :mod:`.compare`: original and published rows side by side;
- :mod:`.domains`: column domains and value codes.

The independent verifier lives in :mod:`anonstudio.verifiers.group_anonymize`.
"""
