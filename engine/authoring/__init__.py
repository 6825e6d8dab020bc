"""Tools for pack authors: lint, pack tests, JSON schemas."""
