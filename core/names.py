"""Names shared by the fact vocabulary, catalogues, cases and the expression language."""


def member_id(name: str) -> str:
    """Group member names as written ('add/mul/silu') become field-safe ids ('add_mul_silu')."""
    out = "".join(ch if ch.isalnum() else "_" for ch in name.strip().lower()).strip("_")
    while "__" in out:
        out = out.replace("__", "_")
    if not out:
        raise ValueError(f"member name '{name}' has no letters or digits")
    return out


def file_id(stem: str) -> str:
    """The id a file name gives what it holds (a case, an answer) when the file writes none.

    The rule: lower case, and every run of characters other than letters, digits, `_` and `-`
    becomes one `_`, with none left at either end: `My-Case.yaml` is `my-case`, `my case.yaml`
    is `my_case`, `Run 3 (H100).yaml` is `run_3_h100`. Every command uses this one rule.
    """
    out: list[str] = []
    gap = False
    for ch in stem.strip().lower():
        if ch.isascii() and (ch.isalnum() or ch in "_-"):
            out.append("_" if gap and out else "")
            out.append(ch)
            gap = False
        else:
            gap = True
    return "".join(out).strip("_-")
