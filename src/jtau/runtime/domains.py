"""The J-tau domains jtau can run in tau2, each beside its tau2 original: the names tau2's
registry knows them by, how to build the J-tau domain, and tau2's own environment and db
model for the source side of `jtau verify`."""

from __future__ import annotations

import importlib
from dataclasses import dataclass
from pathlib import Path

from jtau.maps import EntityMaps
from jtau.rules import DomainRules
from jtau.runtime.shared_db import Databases, Shared, Validated


@dataclass(frozen=True)
class RuntimeDomain:
    source: str                 # tau2's domain name (airline)
    name: str                   # the J-tau domain's name in tau2's registry (airline_ja)
    db_models: dict[str, str]   # db part ("" for a one-file db) -> tau2's model, "module:Class"
    shares_records: bool = False  # tools change records only after a key lookup (runtime/shared_db.py)
    # "module:function" giving both sides' environment options for a task in verify (banking's
    # golden read allowlist), or None
    verify_options: str | None = None
    retrieval: bool = False     # its environments take tau2's --retrieval-config (banking_knowledge)

    def ja(self, folder: Path, maps: EntityMaps, rules: DomainRules):
        module = importlib.import_module(f"jtau.runtime.{self.source}")
        return getattr(module, self.name.replace("-", "_"))(folder, maps, rules)

    def arm_environment(self, arm, folder: Path, maps: EntityMaps, rules: DomainRules):
        """The environment constructor of an arm (jtau.arms) over its folder: tau2's own for `en`."""
        if not (arm.japanese_text or arm.localizes_entities):
            return self.source_environment()
        module = importlib.import_module(f"jtau.runtime.{self.source}")
        return getattr(module, f"{self.source}_arm")(folder, maps, rules, arm).get_environment

    def runs_here(self) -> bool:
        """Whether the installed tau2 has this domain (banking_knowledge: tau2-bench 1.0.1 only)."""
        import importlib.util

        try:
            return importlib.util.find_spec(f"tau2.domains.{self.source}") is not None
        except ImportError:
            return False

    def env_options(self, task) -> dict:
        """What both sides' environments take for `task` in `jtau verify` (`verify_options`)."""
        if self.verify_options is None:
            return {}
        module, function = self.verify_options.split(":")
        return getattr(importlib.import_module(module), function)(task)

    def source_environment(self):
        from jtau.runtime.compat import source_environment

        return source_environment(self.source)

    def models(self) -> dict[str, type]:
        out = {}
        for part, path in self.db_models.items():
            module, cls = path.split(":")
            out[part] = getattr(importlib.import_module(module), cls)
        return out

    def databases(self, db) -> Databases:
        """This (localized or source) db as its environments take it, a fresh copy for each:
        part "db" (FlightDB ...) or, for telecom, "db" and "user_db"; shared records where the
        domain's tools allow (`shares_records`)."""
        kind = Shared if self.shares_records else Validated
        models = self.models()
        parts = {"db": kind(models[""], db)} if "" in models else \
            {part: kind(model, db[part]) for part, model in models.items()}
        return Databases(parts)

    def dump(self, env) -> dict:
        """The final state of an environment as the rules see the db (telecom: the agent's and
        the phone's; banking_knowledge's user tools share the agent's)."""
        if "user_db" in self.db_models:
            return {"db": env.tools.db.model_dump(), "user_db": env.user_tools.db.model_dump()}
        return env.tools.db.model_dump()


RUNTIME = {
    "airline": RuntimeDomain("airline", "airline_ja", {"": "tau2.domains.airline.data_model:FlightDB"}, True),
    "retail": RuntimeDomain("retail", "retail_ja", {"": "tau2.domains.retail.data_model:RetailDB"}, True),
    "telecom": RuntimeDomain("telecom", "telecom_ja", {
        "db": "tau2.domains.telecom.data_model:TelecomDB",
        "user_db": "tau2.domains.telecom.user_data_model:TelecomUserDB"}),
    # tau2-bench 1.0.1 only; its tools change records they find by iterating (no shared records)
    "banking_knowledge": RuntimeDomain("banking_knowledge", "banking_knowledge_ja", {
        "": "tau2.domains.banking_knowledge.data_model:TransactionalDB"},
        verify_options="jtau.runtime.banking_knowledge:source_options", retrieval=True),
}
