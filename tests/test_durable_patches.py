"""Regime's changes to durable's C engine (vendor/durable/PATCHES.md) keep what fires: tested
here where Regime's own packs never go (a node with more children than a short hashset holds,
rulesets rebuilt one after another, many sessions on one ruleset)."""

from __future__ import annotations

import json

import pytest

from regime.engine.run.durable_bridge import Ruleset


def _rules(n: int, prefix: str = "p") -> dict:
    """Rule r<i> fires on an event whose property <prefix><i> is at least 0: every rule hangs off
    the same alpha node (`_t == wm`), so that node has n children in its hashset."""
    return {f"r{i}": {"all": [{"m": {"$and": [{"_t": "wm"}, {"$gte": {f"{prefix}{i}": 0}}]}}]}
            for i in range(n)}


def _fired(rs: Ruleset, sid: str, event: dict) -> list[str]:
    fired: list[str] = []
    rs.run(sid, json.dumps({"sid": sid, "_t": "wm", **event}), lambda rule: fired.append(rule))
    return fired


@pytest.mark.parametrize("n", [10, 63, 64, 65, 130, 400])
def test_a_node_with_many_children_finds_each_of_them(n):
    """PATCHES.md 8: a child hashset starts short and grows when a probe runs off its end; every
    child must still be found, on both sides of the growth."""
    rs = Ruleset(_rules(n))
    for i in {0, 1, n // 2, n - 2, n - 1}:
        assert _fired(rs, f"s{i}", {f"p{i}": 1}) == [f"r{i}"], i
    # durable consumes the event that started an action: one of the two fires, in its order
    assert _fired(rs, "pair", {"p0": 1, f"p{n - 1}": 1}) in (["r0"], [f"r{n - 1}"])
    assert _fired(rs, "near", {f"p{n}": 1, "q0": 1, f"p{n - 2}": -1, f"p{n // 2}": 0}) == [f"r{n // 2}"]


def test_rulesets_built_one_after_another_read_their_own_json():
    """PATCHES.md 9: the ends of a ruleset's objects are remembered while it is built, and
    forgotten after: the next ruleset (same length of text, other structure) reads its own."""
    for round_ in range(5):
        prefix = "ab"[round_ % 2]
        rs = Ruleset(_rules(20, prefix))
        assert _fired(rs, f"x{round_}", {f"{prefix}3": 1, "q3": 1}) == ["r3"]
        del rs


def test_many_sessions_on_one_ruleset_each_start_clean():
    """PATCHES.md 7: a state's frame pools are allocated on first use and its indexes start zeroed;
    a session deleted and another begun sees nothing of the one before."""
    rs = Ruleset(_rules(50))
    for k in range(300):
        i = (k * 7) % 50
        assert _fired(rs, f"s{k}", {f"p{i}": k}) == [f"r{i}"]
