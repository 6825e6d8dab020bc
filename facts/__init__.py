"""Fact vocabulary, case schema and catalogues (data in YAML beside this file)."""
