"""The `retail_ja` environment: tau2's retail tools with their locale facts localized.

tau2's retail tools hold less locale than airline's: `calculate` rounds to cents (J-tau:
whole yen), `list_all_product_types` escapes the (Japanese) names, and the descriptions are
English (J-tau: `retail_tools.ja.yaml`); on 26.3 it gains 1.0.1's `get_item_details`
(runtime/compat.py).  Every other
behaviour, including the refund and gift-card arithmetic, is tau2's own and is exact on
whole-yen amounts.  `jtau verify retail` proves it: the same golden actions succeed and fail
on both sides and give the localized final database.
"""

from __future__ import annotations

import json
from pathlib import Path

from tau2.domains.retail.data_model import RetailDB
from tau2.domains.retail.tools import RetailTools

from jtau.maps import EntityMaps
from jtau.rules import DomainRules
from jtau.runtime.compat import retail_tools
from jtau.runtime.overlay import JaDomain, descriptions, overlay_class, whole_yen_calculate

DOMAIN = "retail_ja"


def list_all_product_types(self) -> str:
    """tau2 dumps the name -> id table itself, escaping every Japanese character."""
    return json.dumps({p.name: p.product_id for p in self.db.products.values()}, sort_keys=True, ensure_ascii=False)


def tools_class(maps: EntityMaps, rules: DomainRules) -> type[RetailTools]:
    """tau2's RetailTools with the overlay."""
    overrides = {"calculate": whole_yen_calculate, "list_all_product_types": list_all_product_types}
    return overlay_class(retail_tools(RetailTools), "JTauRetailTools", overrides, descriptions("retail"))


def retail_ja(folder: Path, maps: EntityMaps, rules: DomainRules) -> JaDomain:
    """The J-tau retail domain for tau2's registry."""
    return JaDomain(DOMAIN, folder, tools_class(maps, rules), RetailDB)
