"""The `retail_ja` environment: tau2's retail tools with their locale facts localized.

tau2's retail tools hold less locale than airline's: `calculate` rounds to cents (J-tau:
whole yen), `list_all_product_types` escapes the (Japanese) names, and the descriptions are
English (J-tau: `domains/retail/tools.ja.yaml`); on 26.3 it gains 1.0.1's `get_item_details`
(runtime/compat.py).  Every other
behaviour, including the refund and gift-card arithmetic, is tau2's own and is exact on
whole-yen amounts.  `jtau verify retail` proves it: the same golden actions succeed and fail
on both sides and give the localized final database.  Another arm (jtau.arms): whole-yen
`calculate` where the entities are J-tau's, the Japanese descriptions where the text is.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from tau2.domains.retail.data_model import RetailDB
from tau2.domains.retail.tools import RetailTools

from jtau.arms import ARMS, JTAU_ARM, Arm
from jtau.maps import EntityMaps
from jtau.rules import DomainRules
from jtau.runtime.compat import retail_tools
from jtau.runtime.overlay import (
    JaDomain,
    JaEnvironment,
    arm_descriptions,
    environment_class,
    overlay_class,
    whole_yen_calculate,
)

DOMAIN = "retail_ja"


def list_all_product_types(self) -> str:
    """tau2 dumps the name -> id table itself, escaping every Japanese character."""
    return json.dumps({p.name: p.product_id for p in self.db.products.values()}, sort_keys=True, ensure_ascii=False)


def tools_class(maps: EntityMaps, rules: DomainRules, arm: Arm | None = None) -> type[RetailTools]:
    """tau2's RetailTools with the overlay, for an arm (default `ja`)."""
    arm = arm or ARMS[JTAU_ARM]
    overrides: dict[str, Callable[..., Any]] = {"calculate": whole_yen_calculate} if arm.localizes_entities else {}
    if arm.japanese_text:  # the catalog's names are Japanese: listed as characters, not escapes
        overrides["list_all_product_types"] = list_all_product_types
    texts, document = arm_descriptions("retail", arm, maps)
    return overlay_class(retail_tools(RetailTools), "JTauRetailTools", overrides, texts, document=document)


def retail_arm(folder: Path, maps: EntityMaps, rules: DomainRules, arm: Arm) -> JaDomain:
    """An arm of J-tau retail for tau2's registry (`retail_<arm>`; `en` is runtime/registration.py's)."""
    return JaDomain(f"retail_{arm.name}", folder, tools_class(maps, rules, arm), RetailDB,
                    environment_class(JaEnvironment, arm, maps))


def retail_ja(folder: Path, maps: EntityMaps, rules: DomainRules) -> JaDomain:
    """The J-tau retail domain for tau2's registry."""
    return retail_arm(folder, maps, rules, ARMS[JTAU_ARM])
