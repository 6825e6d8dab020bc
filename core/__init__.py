"""The layer beneath facts and engine: errors, units, YAML loading with lines, names."""

if __name__ != "regime.core":  # the folder seen from the checkout's root: one name per module
    raise ImportError(f"import regime.core, not {__name__} (regime/core links this folder)")
