"""The `regime` command line: core.py (typer-free: case references, shared options, exit codes,
errors, the JSON envelope), entry.py (the entry point and diagnose's fast path), app.py (the
typer app) and one module per command. Nothing is imported here, so the fast path stays fast."""
