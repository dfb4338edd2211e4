"""The J-tau domains jtau can run in tau2, each beside its tau2 original: the names tau2's
registry knows them by, how to build the J-tau domain, and tau2's own environment and db
model for the source side of `jtau verify`."""

from __future__ import annotations

import importlib
from dataclasses import dataclass
from pathlib import Path

from jtau.maps import EntityMaps
from jtau.rules import DomainRules
from jtau.runtime.overlay import JaDomain


@dataclass(frozen=True)
class RuntimeDomain:
    source: str          # tau2's domain name (airline)
    name: str            # the J-tau domain's name in tau2's registry (airline_ja)
    db_model: str        # tau2's db model, "module:Class"

    def ja(self, folder: Path, maps: EntityMaps, rules: DomainRules) -> JaDomain:
        module = importlib.import_module(f"jtau.runtime.{self.source}")
        return getattr(module, self.name)(folder, maps, rules)

    def source_environment(self):
        return importlib.import_module(f"tau2.domains.{self.source}.environment").get_environment

    def model(self) -> type:
        module, cls = self.db_model.split(":")
        return getattr(importlib.import_module(module), cls)


RUNTIME = {
    "airline": RuntimeDomain("airline", "airline_ja", "tau2.domains.airline.data_model:FlightDB"),
    "retail": RuntimeDomain("retail", "retail_ja", "tau2.domains.retail.data_model:RetailDB"),
}
