"""docs/design-yaml.md is generated from the pydantic models and must be current."""

from __future__ import annotations

import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO / "tools"))

import gen_config_docs  # noqa: E402

from hyperheurist import config  # noqa: E402


def test_design_yaml_reference_is_current() -> None:
    page = (REPO / "docs" / "design-yaml.md").read_text(encoding="utf-8")
    assert page == gen_config_docs.render(), "docs/design-yaml.md is out of date: run python tools/gen_config_docs.py"


def test_every_key_is_on_the_page_and_the_readme_links_it() -> None:
    page = gen_config_docs.render()
    for model in (config.DesignConfig, config.Interface, config.Verification, config.PPA, config.Generation,
                  config.Anneal, config.Limits, config.Port, config.Reset):
        for name in model.model_fields:
            if (model.__name__, name) not in gen_config_docs.INTERNAL:
                assert f"| `{name}` |" in page, f"{model.__name__}.{name}"
    assert "docs/design-yaml.md" in (REPO / "README.md").read_text(encoding="utf-8")
