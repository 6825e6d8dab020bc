"""Names shared by the fact vocabulary, catalogues, cases and the expression language."""


def member_id(name: str) -> str:
    """Group member names as written ('add/mul/silu') become field-safe ids ('add_mul_silu')."""
    out = "".join(ch if ch.isalnum() else "_" for ch in name.strip().lower()).strip("_")
    while "__" in out:
        out = out.replace("__", "_")
    if not out:
        raise ValueError(f"member name '{name}' has no letters or digits")
    return out
