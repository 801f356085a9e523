"""Group-based anonymization of relational tables (k-anonymity, l-diversity, Anatomy)."""
