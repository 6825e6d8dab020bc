"""The layer beneath facts and engine: errors, units, YAML loading with lines, names."""
