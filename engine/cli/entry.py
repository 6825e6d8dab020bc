"""The `regime` command. `regime diagnose`, the command people run in loops, starts without typer.

Its arguments are parsed by cli/core.py from the same option specs the typer app declares;
anything that parser does not take (help, a usage error, shell completion) goes to the typer
app in cli/app.py, which prints it in the one style every command shares.
"""

from __future__ import annotations

import gc
import os
import sys
from typing import NoReturn

COMPLETION = "_REGIME_COMPLETE"  # set by the shell while it asks typer for completions


def main(argv: list[str] | None = None) -> None:
    args = sys.argv[1:] if argv is None else list(argv)
    if args[:1] == ["diagnose"] and COMPLETION not in os.environ:
        # Start-up makes objects and frees none (imports, the cached knowledge): no collection
        # can find garbage, so none runs until the knowledge is loaded (diagnose.main).
        gc.disable()
        from regime.engine.cli import core
        opts = core.parse(args[1:], core.DIAGNOSE)
        if opts is not None:
            from regime.engine.cli.diagnose import run_diagnose
            code = run_diagnose(opts)
            if argv is None:  # this process is the command: nothing after it needs the interpreter
                _leave(code)
            raise SystemExit(code)
        gc.enable()
    from regime.engine.cli.app import app
    app(args=args, prog_name="regime")


def _leave(code: int) -> NoReturn:
    """End the process as exit would, less tearing the interpreter down (its modules and a last
    collection: ~5% of a cached one-case `regime diagnose`): what atexit holds runs (the
    knowledge cache's additions, finalizers such as a durable ruleset's), the streams are
    flushed (a failure exits 120, as Python's own exit does), then os._exit."""
    import atexit
    atexit._run_exitfuncs()
    try:
        sys.stdout.flush()
        sys.stderr.flush()
    except (OSError, ValueError):
        code = code or 120
    os._exit(code)


if __name__ == "__main__":
    main()
