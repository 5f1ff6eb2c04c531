"""Recipes and flow presets: typed, unknown keys refused in one line, and digests that never move.

A recipe's digest names PPA folders, cache entries and journal records of earlier runs: the golden
values below were computed before recipes became pydantic models and must never change.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from pydantic import ValidationError

from hyperheurist.errors import ConfigError
from hyperheurist.recipe import ABC_SCRIPTS, FSM_ENCODINGS, Recipe, load_flow

JOURNALED = Path(__file__).parent / "data" / "config" / "recipe_digests.json"
GOLDEN = {  # preset -> (digest of its recipe, its abc_script, its abc_delay_target_ps)
    "default": ("e7953ef14dca", "default", None),
    "area": ("e211387293ce", "area", None),
    "timing": ("fbf6e9a63830", "delay", 1000),
}


@pytest.mark.parametrize("name", sorted(GOLDEN))
def test_preset_recipes_keep_their_digests_and_dicts(name: str) -> None:
    digest, script, target = GOLDEN[name]
    recipe = load_flow(name).recipe
    assert recipe.digest == digest
    assert list(recipe.to_dict().items()) == [  # order matters too: recipe.yaml is written from it
        ("flatten", True), ("fsm", True), ("fsm_encoding", "auto"), ("share", True), ("opt_full", False),
        ("abc_script", script), ("abc_delay_target_ps", target)]


def test_journaled_recipes_keep_their_digests() -> None:
    """Every recipe a sweep journaled before the pydantic models (223 of them) still hashes to its key."""
    golden = json.loads(JOURNALED.read_text())
    assert len(golden["digests"]) > 200
    for digest, values in golden["digests"].items():
        recipe = Recipe.from_dict(dict(zip(golden["fields"], values, strict=True)))
        assert recipe.digest == digest, values
        assert list(recipe.to_dict().values()) == values


def test_changed_recipe_keeps_its_digest() -> None:
    r = Recipe().with_(abc_script="delay", abc_delay_target_ps=500, fsm_encoding="one-hot", share=False)
    assert r.digest == "fc37cb3da083"
    assert Recipe.from_dict(r.to_dict()) == r and hash(Recipe.from_dict(r.to_dict())) == hash(r)


def test_presets_space_holds_valid_knob_values() -> None:
    for name in GOLDEN:
        flow = load_flow(name)
        assert flow.space
        for knob, values in flow.space.items():
            for v in values:
                assert getattr(flow.recipe.with_(**{knob: v}), knob) == v
    assert load_flow("area").weights == {"area": 2.0, "delay": 0.5, "power": 1.0}
    assert set(load_flow("default").space["abc_script"]) == set(ABC_SCRIPTS)
    assert set(load_flow("default").space["fsm_encoding"]) == set(FSM_ENCODINGS)


def test_bad_recipe_data_is_one_config_error_line() -> None:
    with pytest.raises(ConfigError, match=r"^--recipe: abc_script: Input should be 'default'"):
        Recipe.from_dict({"abc_script": "magic"}, where="--recipe")
    with pytest.raises(ConfigError, match=r"^recipe: colour: unknown key$"):
        Recipe.from_dict({"colour": "red"})
    with pytest.raises(ConfigError, match=r"share: Input should be a valid boolean"):
        Recipe.from_dict({"share": 1})  # strict: a 1 would change the digest of what is True
    with pytest.raises(ConfigError, match="abc_delay_target_ps"):
        Recipe().with_(abc_delay_target_ps=0)
    with pytest.raises(ValidationError):
        Recipe(abc_script="magic")  # type: ignore[arg-type]  # the point: a value outside the Literal


@pytest.mark.parametrize(("text", "expected"), [
    ("name: x\ncolour: red\n", "colour: unknown key"),
    ("recipe: {abc_script: magic}\n", "recipe.abc_script: Input should be"),
    ("recipe: {speed: 1}\n", "recipe.speed: unknown key"),
    ("space: {foo: [1]}\n", "space: foo: not a recipe knob"),
    ("space: {share: [1]}\n", "space: share: 1: Input should be a valid boolean"),
    ("space: {share: []}\n", "space.share: List should have at least 1 item"),
    ("space: {share: true}\n", "space.share: Input should be a valid list"),
    ("weights: {speed: 1}\n", "weights: speed: unknown key"),
    ("weights: {area: -1}\n", "weights: area: Input should be greater than or equal to 0"),
    ("recipe: [1, 2]\n", "recipe: Input should be a valid dictionary"),
    ("- 1\n", "top level must be a mapping"),
])
def test_bad_flow_preset_is_one_line_naming_file_and_key(tmp_path: Path, text: str, expected: str) -> None:
    p = tmp_path / "mine.yaml"
    p.write_text(text)
    with pytest.raises(ConfigError) as exc:
        load_flow(str(p))
    msg = str(exc.value)
    assert msg.startswith(f"{p}: ") and expected in msg and "\n" not in msg, msg


def test_preset_file_takes_its_name_from_the_file(tmp_path: Path) -> None:
    p = tmp_path / "mine.yaml"
    p.write_text("recipe: {abc_script: area}\nspace: {share: [true, false]}\n")
    flow = load_flow(str(p))
    assert flow.name == "mine" and flow.recipe.abc_script == "area" and flow.space == {"share": [True, False]}
    assert flow.description == "" and flow.weights is None
