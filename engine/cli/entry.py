"""The `regime` command. `regime diagnose`, the command people run in loops, starts without typer.

Its arguments are parsed by cli/core.py from the same option specs the typer app declares;
anything that parser does not take (help, a usage error, shell completion) goes to the typer
app in cli/app.py, which prints it in the one style every command shares.
"""

from __future__ import annotations

import gc
import os
import sys

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
            raise SystemExit(run_diagnose(opts))
        gc.enable()
    from regime.engine.cli.app import app
    app(args=args, prog_name="regime")


if __name__ == "__main__":
    main()
