"""engine/lang/template.py: `because` texts name facts and parameters, checked when packs load."""

from __future__ import annotations

import pytest
from langkit import VOCABULARY

from regime.core.errors import RegimeError
from regime.engine.lang.template import BARE, parse_template

SCALARS = {"util_high": "fraction"}


def test_fields_are_parsed_with_member_and_unit():
    t = parse_template("{bytes@GB} over {bw} at {kernel_share[GEMM]} (> {util_high}, {batch@-})",
                       VOCABULARY, SCALARS)
    got = [(f.name, f.member, f.unit) for f in t.fields()]
    assert got == [("bytes", None, "GB"), ("bw", None, None), ("kernel_share", "gemm", None),
                   ("util_high", None, None), ("batch", None, BARE)]
    assert t.fields()[2].key == "kernel_share__gemm"
    assert t.render(lambda f: f"<{f.key}>") == ("<bytes> over <bw> at <kernel_share__gemm> "
                                                "(> <util_high>, <batch>)")


def test_folded_yaml_whitespace_is_collapsed():
    assert parse_template("a\n  {batch}\n", VOCABULARY, {}).text == "a {batch}"


@pytest.mark.parametrize("text, words", [
    ("{bacth}", "unknown fact 'bacth' (did you mean 'batch'"),
    ("{bytes@s}", "does not fit"),
    ("{bytes@wibble}", "unknown unit"),
    ("{bytes:>10}", "a number format is not allowed"),
    ("{bytes:.1f}", "rounded by one rule"),   # one rounding rule for every figure on a page
    ("{kernel_share}", "is a group; name a member"),
    ("{batch[x]}", "batch has no members"),
    ("{phase@GB}", "phase is not a number"),
    ("{util_high[x]}", "parameter util_high has no members"),
    ("{batch!r}", "is not a fact, parameter or fact@unit"),
    ("{batch", "malformed template"),
    (42, "template must be text"),
])
def test_a_bad_field_is_refused_with_the_reason(text, words):
    with pytest.raises(RegimeError) as err:
        parse_template(text, VOCABULARY, SCALARS)
    assert words in err.value.message
