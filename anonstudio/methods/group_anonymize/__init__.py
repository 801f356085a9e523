"""Group-based anonymization of relational tables (k-anonymity, l-diversity, Anatomy).

Modules:

- :mod:`.release`: :class:`~.release.GroupRelease`, the typed anonymized table every
  other part produces or consumes;
- :mod:`.api`: :class:`~.api.GroupAnonParams` and :func:`~.api.anonymize`, the one entry point;
- :mod:`.mondrian`, :mod:`.global_recoding` (with :mod:`.levels`), :mod:`.anatomy`: the schemes;
- :mod:`.published_csv` (with :mod:`.cells`): the CSV form, export and import;
- :mod:`.domains`: column domains and value codes.

The independent verifier lives in :mod:`anonstudio.verifiers.group_anonymize`.
"""
