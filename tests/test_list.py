"""`regime list`: what exists, with unit, range, meaning, source and where it is declared."""

from __future__ import annotations

import json

import pytest
from conftest import TESTS, run_cli

from regime.engine.cli import listing

SITE_KV = TESTS / "layers" / "site_kv"


@pytest.mark.parametrize("what", list(listing.What))
def test_every_listing_has_names_and_locations(what, knowledge):
    items = listing.ITEMS[what](knowledge)
    assert items and all(i["name"] and ":" in i["where"] for i in items)
    assert all(not i["where"].endswith(":0") for i in items if what is not listing.What.cases)


def test_facts_show_unit_range_meaning_and_origin(knowledge):
    facts = {f["name"]: f for f in listing.facts(knowledge)}
    assert facts["bw_util"]["unit"] == "%" and facts["bw_util"]["range"] == "[0, 1]"
    assert facts["bw_util"]["where"].split("/")[-1].startswith("vocabulary.yaml:")
    assert facts["ridge_batch"]["where"].split("/")[-1].startswith("derive_roofline.yaml:")


@pytest.mark.e2e
def test_json_listing_includes_a_layer(tmp_path):
    done = run_cli("list", "parameters", "--format", "json", "--rules", str(SITE_KV))
    params = {p["name"]: p for p in json.loads(done.stdout)["results"]}
    assert params["near_ceiling"]["value"] == "60%" and params["near_ceiling"]["layer"] == str(SITE_KV)
    listed = run_cli("list", "levers", "--format", "json", "--rules", str(SITE_KV))
    levers = json.loads(listed.stdout)["results"]
    assert "site_shard_weights" in {lv["name"] for lv in levers}


@pytest.mark.e2e
def test_cases_are_listed_by_id():
    out = run_cli("list", "cases").stdout
    assert out.startswith("a_chatbot  title: The chatbot")
