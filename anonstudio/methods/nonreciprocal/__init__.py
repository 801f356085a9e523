"""Nonreciprocal recoding of set-valued data (Xue, Karras, Raïssi, Vaidya, Tan, KDD 2012)."""
