"""Anonymization and attack methods, one module (or package) per family. Qt-free."""
