"""The `regime` command. Commands people run in loops start without typer (and click).

`diagnose` is parsed by its own module with argparse; every other command, and `--help`, goes
through the typer app in regime.engine.cli, where `diagnose` is listed and forwarded here.
"""

from __future__ import annotations

import importlib
import os
import sys

FAST = {"diagnose": "regime.engine.diagnose_cli"}


def main(argv: list[str] | None = None) -> None:
    args = sys.argv[1:] if argv is None else list(argv)
    if args and args[0] in FAST:
        raise SystemExit(_run(FAST[args[0]], args[1:]))
    from regime.engine.cli import app
    app()


def _run(module: str, args: list[str]) -> int:
    try:
        return importlib.import_module(module).main(args)
    except BrokenPipeError:  # `regime diagnose ... | head`: the reader has what it wanted
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 1
    except KeyboardInterrupt:
        return 130


if __name__ == "__main__":
    main()
