"""The pack lint: stable codes, one deliberately broken pack per code, the built-ins clean."""

from __future__ import annotations

import pytest
from conftest import TESTS, run_cli

from regime.core.errors import RegimeError
from regime.engine import api
from regime.engine.authoring import lint, packtest
from regime.engine.knowledge.paths import RULES_DIR, builtin_cases

# A code about pack tests keeps its pack in a folder of its own, with its tests beside it.
BROKEN = sorted(p for p in (TESTS / "lint_packs").glob("rg*.yaml")) + sorted(
    p for p in (TESTS / "lint_packs").glob("rg*/rg*.yaml") if not p.name.endswith(".test.yaml"))


def _findings(*layers) -> list[tuple[str, str, int | None]]:
    """(code, file, line) of every lint finding, or of the loader's refusal."""
    try:
        k = api.knowledge(list(layers))
    except RegimeError as err:
        return [(err.code or "load", err.file or "", err.line)]
    inputs = [*builtin_cases(), *packtest.test_files([RULES_DIR, *packtest.layers_for(list(layers))])]
    return [(f.code, f.file, f.line) for f in lint.lint(k, inputs)]


# Codes about built-in files a layer cannot change (kernel categories and the pack lists that
# classify them): tested on a copy of the file instead of a broken pack.
BUILTIN_ONLY = {"RG014"}


def test_one_broken_pack_per_code():
    assert [p.name[:5].upper() for p in BROKEN] == sorted(set(lint.CODES) - BUILTIN_ONLY)


@pytest.mark.parametrize(("edit", "line_of", "words"), [
    (("categories:\n", "categories:\n  sparse_gemm: 2:4 sparse GEMMs\n"), "  sparse_gemm:",
     "is in none of flop_kernels, memory_kernels"),
    (("unclassified:\n", "unclassified:\n  gemm: why not\n"), "  gemm: matrix",
     "declared unclassified but is in flop_kernels"),
    (("classified_by: [flop_kernels, memory_kernels]", "classified_by: [flop_kernels, memory_kernel]"),
     "classified_by:", "'memory_kernel', which is not a list parameter"),
])
def test_rg014_every_kernel_category_is_classified_or_declared_unclassified(tmp_path, knowledge, edit,
                                                                            line_of, words):
    from regime.facts.kernels import KERNELS_FILE

    text = KERNELS_FILE.read_text(encoding="utf-8")
    assert text.count(edit[0]) == 1
    path = tmp_path / "kernels.yaml"
    path.write_text(text.replace(edit[0], edit[1]), encoding="utf-8")
    found = list(lint._kernel_classes(knowledge, path))
    lines = path.read_text(encoding="utf-8").splitlines()
    line = next(i for i, t in enumerate(lines, 1) if t.startswith(line_of))
    assert [(f.code, f.file, f.line) for f in found][:1] == [("RG014", str(path), line)]
    assert words in found[0].message


@pytest.mark.parametrize("pack", BROKEN, ids=lambda p: p.stem)
def test_broken_pack_gives_exactly_its_code_at_the_marked_line(pack):
    code = pack.name[:5].upper()
    marked = [i for i, line in enumerate(pack.read_text().splitlines(), 1) if f"<- {code}" in line]
    assert len(marked) == 1
    assert _findings(pack) == [(code, str(pack), marked[0])]


def test_builtin_packs_lint_clean():
    assert _findings() == []


def test_site_layer_lints_clean_with_its_tests_giving_its_inputs():
    assert _findings(TESTS / "layers" / "site_kv") == []


@pytest.mark.e2e
def test_select_and_ignore_by_code_or_prefix():
    pack = str(TESTS / "lint_packs" / "rg010_conflict.yaml")
    done = run_cli("check", "--rules", pack)
    assert done.returncode == 1 and ": RG010 error [lint_bad]: sets lint_verdict" in done.stdout
    assert "1 error(s), 0 warning(s)" in done.stdout
    assert run_cli("check", "--rules", pack, "--ignore", "RG010").stdout.startswith("ok: ")
    assert run_cli("check", "--rules", pack, "--select", "RG00").returncode == 0
    bad = run_cli("check", "--select", "XX9")
    assert bad.returncode == 2 and "unknown lint code 'XX9'" in bad.stderr


@pytest.mark.e2e
def test_warnings_do_not_fail_and_follow_errors(tmp_path):
    pack = tmp_path / "two.yaml"
    pack.write_text((TESTS / "lint_packs" / "rg010_conflict.yaml").read_text()
                    + "parameters:\n  lint_spare: {value: 1, meaning: m, source: s}\n")
    out = run_cli("check", "--rules", str(pack)).stdout.splitlines()
    assert [line.split(": ")[1].split()[0] for line in out[:2]] == ["RG010", "RG009"]
    warn_only = run_cli("check", "--rules", str(TESTS / "lint_packs" / "rg009_unused_parameter.yaml"))
    assert warn_only.returncode == 0 and "0 error(s), 1 warning(s)" in warn_only.stdout


@pytest.mark.e2e
def test_codes_are_listed():
    out = run_cli("check", "--codes").stdout
    assert all(code in out for code in lint.CODES) and "RG006 error   template-unguaranteed" in out
