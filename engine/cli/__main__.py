"""`python -m regime.engine.cli ...` is `regime ...`."""

from regime.engine.cli.entry import main

main()
