"""engine/lang/template.py: `because` texts name facts and parameters, checked when packs load."""

from __future__ import annotations

import pytest
from langkit import VOCABULARY

from regime.core.errors import RegimeError
from regime.engine.lang.template import BARE, parse_template

SCALARS = {"util_high": "fraction"}


def test_fields_are_parsed_with_member_unit_and_format():
    t = parse_template("{bytes@GB:.1f} over {bw} at {kernel_share[GEMM]} (> {util_high}, {batch@-})",
                       VOCABULARY, SCALARS)
    got = [(f.name, f.member, f.unit, f.spec) for f in t.fields()]
    assert got == [("bytes", None, "GB", ".1f"), ("bw", None, None, None),
                   ("kernel_share", "gemm", None, None), ("util_high", None, None, None),
                   ("batch", None, BARE, None)]
    assert t.fields()[2].key == "kernel_share__gemm"
    assert t.render(lambda f: f"<{f.key}>") == ("<bytes> over <bw> at <kernel_share__gemm> "
                                                "(> <util_high>, <batch>)")


def test_folded_yaml_whitespace_is_collapsed():
    assert parse_template("a\n  {batch}\n", VOCABULARY, {}).text == "a {batch}"


@pytest.mark.parametrize("text, words", [
    ("{bacth}", "unknown fact 'bacth' (did you mean 'batch'"),
    ("{bytes@s}", "does not fit"),
    ("{bytes@wibble}", "unknown unit"),
    ("{bytes:>10}", "format '>10' is not allowed"),
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
