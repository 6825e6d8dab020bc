"""One command line: every command that reads cases takes the same references and the same
shared options, declared once (engine/cli/core.py), and diagnose's fast parser agrees with the
typer app that prints its help."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
import typer
from conftest import run_cli
from typer.testing import CliRunner

from regime.engine.cli import core
from regime.engine.cli.app import app

pytestmark = pytest.mark.e2e  # these start the CLI in a fresh interpreter

COMMANDS = typer.main.get_command(app).commands  # type: ignore[attr-defined]
# command -> the arguments that follow the case reference
CASE_COMMANDS = {"diagnose": [], "why": ["regime"], "report": ["-o", "{tmp}/out"],
                 "sweep": ["--vary", "batch=1..4"]}
SHARED = (core.RULES, core.ENGINE, core.TRACE, core.SET)  # --set: every command that diagnoses a case


def _params(command: str) -> dict[str, object]:
    return {p.opts[0] if p.param_type_name == "option" else p.name: p for p in COMMANDS[command].params}


def _option(command: str, opt: core.Opt):
    found = [p for p in COMMANDS[command].params if set(p.opts) == set(opt.flags)]
    assert found, f"regime {command} has no {opt.flags[0]}"
    return found[0]


@pytest.mark.parametrize("command", sorted(CASE_COMMANDS))
def test_every_case_command_declares_the_shared_options_once(command):
    for opt in SHARED:
        assert _option(command, opt).help == opt.help
    [case] = [p for p in COMMANDS[command].params if p.param_type_name == "argument" and p.name
              in ("case", "cases")]
    assert case.help in (core.CASE_HELP, core.CASES_HELP)


@pytest.mark.parametrize("command", sorted(c for c in COMMANDS if c != "exercise"))
def test_rules_and_jobs_mean_the_same_everywhere(command):
    for p in COMMANDS[command].params:
        if "--rules" in p.opts:
            assert p.help == core.RULES.help
        if "--jobs" in p.opts:
            assert p.help == core.JOBS.help and p.min == 0  # 0: one worker per CPU


def test_diagnose_fast_parser_and_typer_read_the_same_options():
    for opt in core.DIAGNOSE:
        p = _option("diagnose", opt)
        assert p.help == opt.help and p.metavar == opt.metavar
        default = p.default.value if hasattr(p.default, "value") else p.default
        assert default == (None if opt.repeat else opt.default) or (opt.repeat and default is None)
    assert {f for p in COMMANDS["diagnose"].params if p.param_type_name == "option" for f in p.opts} \
        == {f for o in core.DIAGNOSE for f in o.flags}


def test_the_fast_parser_hands_what_it_does_not_take_to_typer():
    args = ["a_chatbot", "-f", "json", "--rules", "x", "--rules", "y", "-j", "0"]
    assert core.parse(args, core.DIAGNOSE) == {
        "refs": ["a_chatbot"], "format": "json", "rules": [Path("x"), Path("y")], "engine": "durable",
        "trace": None, "set": [], "quiet": False, "full": False, "jobs": 0, "scheduler": None}
    assert core.parse(["--scheduler", "tcp://h:8786"], core.DIAGNOSE)["scheduler"] == "tcp://h:8786"
    for args in (["--help"], ["-h"], ["--format", "yaml"], ["--jobs", "-1"], ["--nope"], ["--quiet=1"]):
        assert core.parse(args, core.DIAGNOSE) is None, args


@pytest.mark.parametrize("command", sorted(CASE_COMMANDS))
def test_every_case_command_takes_a_built_in_name_and_hints_at_it(command, tmp_path):
    rest = [a.format(tmp=tmp_path) for a in CASE_COMMANDS[command]]
    done = run_cli(command, "a_chatbot", *rest, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    done = run_cli(command, "cases/a_chatbot.yaml", *rest, cwd=tmp_path)
    assert done.returncode == 2
    assert ("error: cases/a_chatbot.yaml: no such file (a built-in case is named without a path: "
            "'a_chatbot' works from anywhere)") in done.stderr


@pytest.mark.parametrize("command", [*sorted(c for c in COMMANDS if c != "exercise"), "exercise make"])
def test_help_has_one_style_examples_and_no_type_on_flags(command):
    done = CliRunner().invoke(app, [*command.split(), "--help"], prog_name="regime")
    assert done.exit_code == 0
    assert "Examples:" in done.output and "<bool>" not in done.output and "╭" not in done.output
    assert not re.search(r"<(list\[|path|str|int|float)", done.output)  # metavars in words


def test_shell_completion_covers_diagnose():
    assert "--install-completion" in CliRunner().invoke(app, ["--help"]).output
    done = run_cli("diagnose", "--eng", env={"_REGIME_COMPLETE": "complete_bash", "COMP_WORDS":
                                             "regime diagnose --eng", "COMP_CWORD": "2"})
    assert "--engine" in done.stdout, done.stdout + done.stderr


def test_diagnose_reads_the_same_whichever_parser_takes_it():
    fast = run_cli("diagnose", "a_chatbot", "--jobs", "0", "--format", "json")
    typed = run_cli("diagnose", "a_chatbot", "-j0", "-fjson")  # bundled short options: typer's
    assert core.parse(["a_chatbot", "-j0", "-fjson"], core.DIAGNOSE) is None
    assert fast.returncode == typed.returncode == 0 and fast.stdout == typed.stdout


def test_schema_help_names_every_schema():
    from regime.engine.authoring import schema as schemas
    text = CliRunner().invoke(app, ["schema", "--help"]).output
    assert all(name in text for name in schemas.MODELS)
