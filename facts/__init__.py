"""Fact vocabulary, case schema and catalogues (data in YAML beside this file)."""

if __name__ != "regime.facts":  # the folder seen from the checkout's root: one name per module
    raise ImportError(f"import regime.facts, not {__name__} (regime/facts links this folder)")
