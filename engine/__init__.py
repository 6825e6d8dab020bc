"""Regime engine: loads YAML knowledge, validates facts, runs durable-rules sessions."""
