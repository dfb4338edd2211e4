"""Per-domain rules: which JSON paths of a domain hold which kind of value.

Each domain's folder has one `rules.yaml` (jtau/domains/<domain>/).  Everything the pipeline
knows about a domain's data is there, so adding a domain is mostly adding rules and maps, not
code.  What is a formula rather than a path (the db's arithmetic identities) is the module its
spec names (`entry.identities`).

- formats.py: short formatted texts with entities inside (telecom's bill line items), in English and Japanese
"""

from __future__ import annotations

import hashlib
import re
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

from jtau import domains
from jtau.errors import InputError
from jtau.rules.formats import Format
from jtau.util import jsonpath
from jtau.util.limits import check_path, printable
from jtau.util.yamlfile import load_yaml

RULES = "rules.yaml"  # a domain folder's rules

# the kinds that hold an amount: numbers, and banking_knowledge's "$1,014.80" / "15000.00" strings
MONEY_KINDS = frozenset({"money", "money_dollars", "money_decimal"})


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
    # one task a file (tau2 1.0.1's banking_knowledge: a glob, read in name order); J-tau writes
    # them as the one list `tasks`
    task_files: str | None = None
    # a knowledge base, one JSON document a file (a glob): its text fields are the rules'
    # `documents`; written under the same names
    documents: str | None = None

    @field_validator("db", "tasks", "policy", "copy_", "task_subsets", "graphs", "task_files", "documents")
    @classmethod
    def _relative_names(cls, value):
        """A file name or glob inside the domain's folder that this system can open."""
        for name in [value] if isinstance(value, str) else value or []:
            why = check_path(name) or ("it must name a file inside the domain's folder"
                                       if not name or name.startswith("/") or ".." in name.split("/") else "")
            if why:
                raise ValueError(f"{printable(repr(name), 80)}: {why}")
        return value

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

    @property
    def globs(self) -> list[str]:
        """The patterns that name many files (digested as one in the manifest)."""
        return [g for g in (self.task_files, self.documents) if g]

    def db_part(self, name: str) -> str:
        """The key of one db file in a multi-file db (its stem)."""
        return name.rsplit(".", 1)[0]


def _regex(value: str) -> str:
    """A regular expression of the rules: it compiles, and has no named group (the recognizer
    names its own groups after the kinds)."""
    try:
        compiled = re.compile(value)
    except (re.error, RecursionError, OverflowError) as exc:
        raise ValueError(f"not a regular expression: {exc}") from None
    if compiled.groupindex:
        raise ValueError("a named group (?P<...>) in a pattern: use (?:...)")
    return value


class FrozenToken(BaseModel):
    model_config = ConfigDict(extra="forbid")
    pattern: str
    known: str | None = None

    @field_validator("pattern")
    @classmethod
    def _compiles(cls, value: str) -> str:
        return _regex(value)


class NotMoney(BaseModel):
    model_config = ConfigDict(extra="forbid")
    before: str = r"(?!)"  # searched in the text before "$N" (anchor it with $)
    after: str = r"(?!)"   # matched at the start of the text after it
    # file (glob, as the domain folder names it) -> the "$N" that are no money anywhere in it
    figures: dict[str, list[str]] = Field(default_factory=dict)

    @field_validator("before", "after")
    @classmethod
    def _compiles(cls, value: str) -> str:
        try:
            re.compile(value)
        except re.error as exc:
            raise ValueError(f"not a regular expression: {exc}") from None
        return value


class ReadTool(BaseModel):
    """A read tool `jtau verify` calls over every record of the initial db, on the source and on
    the arm, to compare what it answers (runtime/readings.py)."""
    model_config = ConfigDict(extra="forbid")
    arguments: dict[str, str]                 # argument -> db path of its values (`users.*`: the keys)
    fixed: dict[str, object] = Field(default_factory=dict)  # arguments given as they are (months: 12)
    via: str | None = None     # the tool that runs it (banking's call_discoverable_agent_tool)
    unlock: str | None = None  # the tool that makes it callable first (unlock_discoverable_agent_tool)


class TaskRules(BaseModel):
    model_config = ConfigDict(extra="forbid")
    text: dict[str, str]
    tool_text_kind: str = "assertion"
    actions: list[str]
    communicate_info: str | None = None
    communicate_info_kinds: dict[str, str] = Field(default_factory=dict)  # value -> kind
    frozen_tokens: dict[str, FrozenToken] = Field(default_factory=dict)
    @field_validator("frozen_tokens")
    @classmethod
    def _kind_names(cls, tokens: dict[str, FrozenToken]) -> dict[str, FrozenToken]:
        for kind in tokens:
            if not kind.isidentifier():
                raise ValueError(f"{kind!r}: a token kind is a name (letters, digits, _)")
        return tokens

    # paths of a task holding db rows ({table: {key: record}}: banking_knowledge's
    # initial_state agent_data): localized by the db rules, read without their `.data.` level
    db_rows: list[str] = Field(default_factory=list)
    # tools whose arguments carry another tool's call: tool -> {name: the field naming the inner
    # tool, arguments: the field holding its arguments, a JSON string}; the inner call's
    # arguments are localized by the inner tool's rules and written back as JSON
    nested_calls: dict[str, dict[str, str]] = Field(default_factory=dict)


class Customers(BaseModel):
    """Where the db keeps its customers (validate/hometowns.py): the dotted path of the records
    (by id), and each record's id, name and address fields."""
    model_config = ConfigDict(extra="forbid")
    records: str
    id: str = "user_id"
    name: str = "name"
    address: str = "address"


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
    # db part or "tasks" -> a JSON Schema file: beside the rules, or shared in jtau/domains/ (schema_path)
    schemas: dict[str, str] = Field(default_factory=dict)
    catalog_hints: bool = False       # task text names catalog words the catalog's way
    city_as_address: bool = False     # a city in text is written as the db's address city (大阪市北区)
    formats: dict[str, list[Format]] = Field(default_factory=dict)  # formatted-text kinds
    documents: dict[str, str] = Field(default_factory=dict)  # document field -> text kind (files.documents)
    db_text: dict[str, str] = Field(default_factory=dict)    # db path -> text kind (texts the agent reads in the db)
    # which entities free text names: the shared maps (people, places, addresses), or
    # banking_knowledge's whole values (entity_maps/banking.yaml) with the places
    text_lexicon: Literal["shared", "banking"] = "shared"
    sentinels: list[str] = Field(default_factory=list)  # values kept as they are whatever their path's kind
    toolkit: list[str] = Field(default_factory=list)       # tool names the documents may cite
    cited_tool: str | None = None                          # how a document cites a tool (a regex)
    # the memory does not cover the domain's text yet (translation in progress): --offline keeps
    # the missing segments English, and localize's summary counts them
    memory_partial: bool = False
    # "$N" the source writes where N is no money (a credit score "$700", a count "$2,500 vendors"):
    # a regex of the text just before it, one of the text just after it; such N stays a number
    not_money: NotMoney | None = None
    # amounts the text says with no currency word ("three to four thousand in this travel account,
    # five at most"): a regex of the words that are the amount -> the amount in dollars ("3000-4000")
    money_in_words: dict[str, str] = Field(default_factory=dict)
    # amounts the text writes as a tool takes them ("annual_income=55000"): regexes of the figure;
    # written bare in every arm, x rate where the entities are J-tau's
    bare_amounts: list[str] = Field(default_factory=list)
    customers: Customers | None = None  # where the db keeps its customers (their hometowns are checked)
    # text kinds kept in the source language, entities localized (kind -> why): not translated,
    # not in the memory, not counted missing, not checked for English left
    source_language: dict[str, str] = Field(default_factory=dict)
    # the db collections that tell the domain's data from another's (default: every collection
    # the db rules name; banking's tools create tables its db.json lacks)
    recognized_by: list[str] = Field(default_factory=list)
    absent_tools: list[str] = Field(default_factory=list)  # cited by the source, not in the toolkit
    # retention: a tool whose argument names the step it takes (banking's unlock of a
    # discoverable tool): tool -> that argument; the pair is one step at the route level
    route_arguments: dict[str, str] = Field(default_factory=dict)
    # fields of a tool's answer that the db rules do not name, by kind (telecom's refuel_data
    # answers `charge`, an amount): what `jtau verify` reads amounts by (runtime/readings.py)
    answers: dict[str, dict[str, str]] = Field(default_factory=dict)
    # read tools `jtau verify` calls over every record of the initial db (runtime/readings.py)
    reads: dict[str, ReadTool] = Field(default_factory=dict)
    digest: str = ""

    @property
    def whole_entities(self) -> bool:
        """Free text names its entities whole, from the lexicon of `text_lexicon` (banking:
        entity_maps/banking.yaml's people, addresses, merchants, products), not piece by piece."""
        return self.text_lexicon != "shared"

    def schema_path(self, part: str) -> Path:
        """The JSON Schema file of a db part or "tasks": the domain folder's, else the shared one."""
        own = domains.spec(self.name).path(self.schemas[part])
        return own if own.is_file() else own.parent.parent / self.schemas[part]

    @field_validator("cited_tool")
    @classmethod
    def _cited_compiles(cls, value: str | None) -> str | None:
        return value if value is None else _regex(value)

    @field_validator("formats")
    @classmethod
    def _formats_work(cls, formats: dict[str, list[Format]]) -> dict[str, list[Format]]:
        for kind, forms in formats.items():
            for form in forms:
                try:
                    _ = form.regex  # compiles the pattern
                    form.render(**{name: "x" for name in form.kinds})
                except (re.error, KeyError, IndexError, ValueError) as exc:
                    raise ValueError(f"{kind}: {form.en!r} -> {form.ja!r}: not a format: {exc!r}") from None
        return formats

    @field_validator("bare_amounts")
    @classmethod
    def _bare_amounts_compile(cls, value: list[str]) -> list[str]:
        return [_regex(pattern) for pattern in value]

    @field_validator("money_in_words")
    @classmethod
    def _amounts_in_words(cls, value: dict[str, str]) -> dict[str, str]:
        for words, figure in value.items():
            _regex(words)
            if not re.fullmatch(r"\d+(?:-\d+)?", figure):
                raise ValueError(f"{words!r}: {figure!r} is not an amount in dollars (N or N-M)")
        return value


def available() -> list[str]:
    """The domains that have rules (jtau.domains: every domain folder)."""
    return domains.names()


def rules_path(domain: str) -> Path:
    """The rules file of `domain` (an unknown domain: InputError)."""
    return domains.spec(domain).path(RULES)


def load_rules(domain: str) -> DomainRules:
    """The rules of `domain` (its folder's rules.yaml); an unknown domain: InputError."""
    path = rules_path(domain)
    doc = load_yaml(path)
    rules = doc.parse(DomainRules)
    rules.name = domain
    rules.digest = hashlib.sha256(path.read_bytes()).hexdigest()
    for part in rules.schemas:
        if not rules.schema_path(part).is_file():
            raise InputError(f"{path}: schemas: {part}: {rules.schemas[part]!r} is in neither {path.parent} "
                             f"nor {path.parent.parent}")
    return rules


def known_tokens(rules: DomainRules, db) -> dict[str, set[str]]:
    """Frozen-token kind -> the db keys a token of that kind is (see FrozenToken.known)."""
    return {kind: {key for _, _, key in jsonpath.find(db, token.known)}
            for kind, token in rules.tasks.frozen_tokens.items() if token.known}


def identities(rules: DomainRules) -> dict:
    """The domain's arithmetic identities (its spec's `entry.identities`), if it has any."""
    target = domains.spec(rules.name).entry.identities
    return domains.resolve(target) if target else {}
