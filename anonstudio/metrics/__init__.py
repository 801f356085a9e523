"""Utility and risk metrics shared by the methods."""
