"""Per-domain rules: which JSON paths of a domain hold which kind of value.

Each domain has one YAML file beside this module (`airline.yaml`, ...).  Everything the
pipeline knows about a domain's data is there, so adding a domain is mostly adding rules and
maps, not code.  What is a formula rather than a path (the db's arithmetic identities) is in
a module of the same name (`airline.py`).
"""

from __future__ import annotations

import hashlib
from importlib import resources
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field

from jtau.errors import InputError
from jtau.swap.formats import Format
from jtau.yamlfile import load_yaml


class DomainFiles(BaseModel):
    """The files of a domain.  A domain with several db files (telecom: db.toml and
    user_db.toml) is localized as one object keyed by file stem (`db`, `user_db`), so its
    rules' paths start with the stem; several policy files are translated each on its own."""
    model_config = ConfigDict(extra="forbid")
    db: str | list[str]
    tasks: str
    policy: str | list[str]
    copy_: list[str] = Field(default_factory=list, alias="copy")
    # other task files whose tasks are tasks of `tasks` (by id): written from the localized tasks
    task_subsets: list[str] = Field(default_factory=list)
    # Graphviz diagrams whose labels are translated like the policy (text/graph.py)
    graphs: list[str] = Field(default_factory=list)

    @property
    def db_files(self) -> list[str]:
        return [self.db] if isinstance(self.db, str) else list(self.db)

    @property
    def policy_files(self) -> list[str]:
        return [self.policy] if isinstance(self.policy, str) else list(self.policy)

    @property
    def db_label(self) -> str:
        """How messages name the db: its file, or its files."""
        return "+".join(self.db_files)

    def db_part(self, name: str) -> str:
        """The key of one db file in a multi-file db (its stem)."""
        return name.rsplit(".", 1)[0]


class FrozenToken(BaseModel):
    model_config = ConfigDict(extra="forbid")
    pattern: str
    known: str | None = None


class TaskRules(BaseModel):
    model_config = ConfigDict(extra="forbid")
    text: dict[str, str]
    tool_text_kind: str = "assertion"
    actions: list[str]
    communicate_info: str | None = None
    communicate_info_kinds: dict[str, str] = Field(default_factory=dict)  # value -> kind
    frozen_tokens: dict[str, FrozenToken] = Field(default_factory=dict)


class DomainRules(BaseModel):
    model_config = ConfigDict(extra="forbid")
    name: str = ""
    files: DomainFiles
    db: dict[str, str]
    tasks: TaskRules
    tools: dict[str, dict[str, str]]
    tool_constants: dict[str, int] = Field(default_factory=dict)
    references: dict[str, str] = Field(default_factory=dict)
    enum_literals: list[str] = Field(default_factory=list)
    schemas: dict[str, str] = Field(default_factory=dict)
    catalog_hints: bool = False       # task text names catalog words the catalog's way
    city_as_address: bool = False     # a city in text is written as the db's address city (大阪市北区)
    formats: dict[str, list[Format]] = Field(default_factory=dict)  # formatted-text kinds
    digest: str = ""


def available() -> list[str]:
    return sorted(p.name[:-5] for p in resources.files(__package__).iterdir() if p.name.endswith(".yaml"))


def load_rules(domain: str) -> DomainRules:
    if domain not in available():
        raise InputError(f"unknown domain {domain!r}; known: {', '.join(available())}")
    path = Path(str(resources.files(__package__) / f"{domain}.yaml"))
    doc = load_yaml(path)
    rules = doc.parse(DomainRules)
    rules.name = domain
    rules.digest = hashlib.sha256(path.read_bytes()).hexdigest()
    return rules


def known_tokens(rules: DomainRules, db) -> dict[str, set[str]]:
    """Frozen-token kind -> the db keys a token of that kind is (see FrozenToken.known)."""
    from jtau import jsonpath

    return {kind: {key for _, _, key in jsonpath.find(db, token.known)}
            for kind, token in rules.tasks.frozen_tokens.items() if token.known}


def identities(rules: DomainRules) -> dict:
    """The domain's arithmetic identities (`rules/<domain>.py`, IDENTITIES), if it has any."""
    import importlib

    try:
        module = importlib.import_module(f"{__package__}.{rules.name}")
    except ModuleNotFoundError:
        return {}
    return getattr(module, "IDENTITIES", {})
