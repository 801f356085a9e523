"""Personalized ρ-uncertainty by partial suppression (Nakagawa, Arai, Nakagawa 2018).

Each person names the items they want kept uncertain (the sensitive constraint
E); SUPPRESSOR removes single item occurrences until nobody who knows some of a
person's items can infer one of that person's sensitive items with confidence
above ρ. SAMPLESUPPRESSOR checks sampled attackers instead of all of them.

The modules: ``params`` (:class:`~.params.RhoParams`), ``algorithm``
(:func:`~.algorithm.run_rho`), ``result``, ``sensitive`` (E and its files),
``suppressor`` (the two algorithms), ``utility``, ``rules`` (the rule
browser), ``compare``, ``export`` and ``spec`` (the family's declaration).
"""
