"""The J-tau domains jtau can run in tau2, each beside its tau2 original: the names tau2's
registry knows them by, how to build the J-tau domain, and tau2's own environment and db
model for the source side of `jtau verify`, all from the domain's spec (jtau.domains)."""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from pathlib import Path

from jtau import domains
from jtau.domains import DomainSpec
from jtau.maps import EntityMaps
from jtau.rules import DomainRules
from jtau.runtime.compat import source_environment
from jtau.runtime.shared_db import Databases, Shared, Validated


@dataclass(frozen=True)
class RuntimeDomain:
    """A domain as tau2 runs it: its spec's names, models and entry points."""
    spec: DomainSpec

    @property
    def source(self) -> str:
        """tau2's domain name (airline)."""
        return self.spec.name

    @property
    def name(self) -> str:
        """The J-tau domain's name in tau2's registry (airline_ja)."""
        return self.spec.registry_name

    @property
    def retrieval(self) -> bool:
        """Its environments take tau2's --retrieval-config (banking_knowledge)."""
        return self.spec.retrieval

    def ja(self, folder: Path, maps: EntityMaps, rules: DomainRules):
        return domains.resolve(self.spec.entry.ja)(folder, maps, rules)

    def arm(self, folder: Path, maps: EntityMaps, rules: DomainRules, arm):
        """An arm's domain object (jtau.arms) over its folder, for tau2's registry."""
        return domains.resolve(self.spec.entry.arm)(folder, maps, rules, arm)

    def arm_environment(self, arm, folder: Path, maps: EntityMaps, rules: DomainRules):
        """The environment constructor of an arm (jtau.arms) over its folder: tau2's own for `en`."""
        if not (arm.japanese_text or arm.localizes_entities):
            return self.source_environment()
        return self.arm(folder, maps, rules, arm).get_environment

    def runs_here(self) -> bool:
        """Whether the installed tau2 has this domain (banking_knowledge: tau2-bench 1.0.1 only)."""
        import importlib.util

        try:
            return importlib.util.find_spec(f"tau2.domains.{self.source}") is not None
        except ImportError:
            return False

    def env_options(self, task) -> dict:
        """What both sides' environments take for `task` in `jtau verify` (`verify_options`)."""
        target = self.spec.entry.verify_options
        return domains.resolve(target)(task) if target else {}

    def source_environment(self):
        return source_environment(self.source)

    def models(self) -> dict[str, type]:
        out = {}
        for part, path in self.spec.db_models.items():
            out[part] = domains.resolve(path)
        return out

    def databases(self, db) -> Databases:
        """This (localized or source) db as its environments take it, a fresh copy for each:
        part "db" (FlightDB ...) or, for telecom, "db" and "user_db"; shared records where the
        domain's tools allow (`shares_records`)."""
        kind = Shared if self.spec.shares_records else Validated
        models = self.models()
        parts = {"db": kind(models[""], db)} if "" in models else \
            {part: kind(model, db[part]) for part, model in models.items()}
        return Databases(parts)

    def dump(self, env, databases: Databases | None = None, start: dict | None = None) -> dict:
        """The final state of an environment as the rules see the db (telecom: the agent's and
        the phone's; banking_knowledge's user tools share the agent's).  Where the environment's
        db is one of `databases`' shared ones, written from `start` (a fresh environment's dump)
        and the records the environment changed: a 7 MB airline db is not dumped whole a task."""
        if "user_db" in self.spec.db_models:
            return {"db": env.tools.db.model_dump(), "user_db": env.user_tools.db.model_dump()}
        shared = databases.parts.get("db") if databases else None
        if isinstance(shared, Shared) and start is not None:
            return shared.dump(env.tools.db, start)
        return env.tools.db.model_dump()



@cache
def runtime_domain(name: str) -> RuntimeDomain:
    """The runtime of domain `name` (its spec; an unknown name: InputError)."""
    return RuntimeDomain(domains.spec(name))


def runtime_domains() -> list[RuntimeDomain]:
    """Every listed domain's runtime, in the domains' order."""
    return [runtime_domain(name) for name in domains.listed()]
