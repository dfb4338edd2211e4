"""One validated database shared by many environments (`jtau verify`, and every simulation of a
process: runtime/registration.py).

`jtau verify` builds six environments a task (a replay and tau2's gold and predicted
environments, on each side) and hashes four whole databases; for the 7 MB airline db that
was 0.19 s of validation an environment and 0.11 s a hash, nearly all of a task.

Airline and retail tools reach a record they change only by its key (`db.reservations[rid]`)
and only read when they iterate (`db.flights.values()`).  So a fresh db shares the validated
records: its collections are `CopyOnLookup` dicts that hold the shared records until a key
lookup hands one out, and from then on hold (and hand out) their own deep copy.  tau2's db
hash, sha256 of `json.dumps(db.model_dump(), sort_keys=True, default=str)`, is then written
from each shared record's JSON (made once) and each own record's JSON: the same hex digest
in a fraction of the time.  `Shared.changed()` proves afterwards that no tool changed a
shared record in place; `jtau verify` checks it after every batch of tasks.

Telecom's tools change records they find by iterating lists, so its dbs are `Validated`
anew for each environment (the db is small).

What holds for the golden actions holds for any agent's: the contract is one of tau2's tool
code, not of the calls.  A run still checks it (`changed()`) after each simulation.
"""

from __future__ import annotations

import copy
import hashlib
import json
from dataclasses import dataclass
from enum import Enum

from pydantic import BaseModel

_ATOMS = (str, int, float, bool, type(None))


def _json(value) -> str:
    return json.dumps(value, sort_keys=True, default=str)  # as tau2's get_dict_hash writes it


class CopyOnLookup(dict):
    """A db collection (id -> record) over shared records: a record looked up by key, set or
    popped is this dict's own deep copy; iteration reads the shared records."""

    __slots__ = ("own",)

    def __init__(self, shared: dict):
        super().__init__(shared)
        self.own: set = set()

    def __getitem__(self, key):
        value = dict.__getitem__(self, key)
        if key not in self.own:
            value = deep_copy(value)
            dict.__setitem__(self, key, value)
            self.own.add(key)
        return value

    def get(self, key, default=None):
        return self[key] if key in self else default

    def __setitem__(self, key, value):
        dict.__setitem__(self, key, value)
        self.own.add(key)

    def pop(self, key, *default):
        if key in self:
            value = self[key]
            dict.__delitem__(self, key)
            return value
        return dict.pop(self, key, *default)

    def setdefault(self, key, default=None):
        if key not in self:
            self[key] = default
        return self[key]


def deep_copy(value):
    """What `copy.deepcopy` (and pydantic's `model_copy(deep=True)`) makes of a db record, without
    its memo of shared references (a record parsed from JSON has none): up to 4x faster."""
    kind = type(value)
    if kind in _ATOMS:
        return value
    if kind is dict:
        return {key: item if type(item) in _ATOMS else deep_copy(item) for key, item in value.items()}
    if kind is list:
        return [item if type(item) in _ATOMS else deep_copy(item) for item in value]
    if isinstance(value, BaseModel):
        new = kind.__new__(kind)
        extra, private = value.__pydantic_extra__, getattr(value, "__pydantic_private__", None)
        object.__setattr__(new, "__dict__", {key: item if type(item) in _ATOMS else deep_copy(item)
                                             for key, item in value.__dict__.items()})
        object.__setattr__(new, "__pydantic_extra__", None if extra is None else deep_copy(extra))
        object.__setattr__(new, "__pydantic_fields_set__", set(value.__pydantic_fields_set__))
        object.__setattr__(new, "__pydantic_private__", None if private is None else copy.deepcopy(private))
        return new
    return value if isinstance(value, Enum) else copy.deepcopy(value)


class Shared:
    """A db model validated once; `fresh()` is a new db over its records."""

    def __init__(self, model: type[BaseModel], data: dict):
        self._adopt(model.model_validate(data))

    @classmethod
    def adopt(cls, db: BaseModel) -> "Shared":
        """Shared over `db`, a db just loaded and handed to nothing else (it is never changed)."""
        shared = cls.__new__(cls)
        shared._adopt(db)
        return shared

    def _adopt(self, db: BaseModel) -> None:
        self.db = db
        self.collections = {name for name, value in self.db.__dict__.items()
                            if isinstance(value, dict) and all(isinstance(v, BaseModel) for v in value.values())}
        self._dump = self.db.model_dump()
        self._item_json: dict[tuple[str, str], str] = {}

    def fresh(self) -> BaseModel:
        db = self.db.model_copy()
        for name, value in db.__dict__.items():
            db.__dict__[name] = CopyOnLookup(value) if name in self.collections else copy.deepcopy(value)
        return db

    def changed(self) -> bool:
        """Whether a shared record was changed in place (a tool broke the lookup contract)."""
        return self.db.model_dump() != self._dump

    def hash(self, db: BaseModel) -> str:
        """tau2's `get_db_hash` of `db`, the same hex digest, from cached record JSON."""
        fields = db.__dict__
        if not all(isinstance(fields[name], CopyOnLookup) for name in self.collections):
            return hashlib.sha256(_json(db.model_dump()).encode()).hexdigest()  # replaced by tau2's update_db
        parts = []
        for name in sorted(type(db).model_fields):
            if name in self.collections:
                parts.append(f"{_json(name)}: {{{', '.join(self._items(name, fields[name]))}}}")
            else:
                parts.append(f"{_json(name)}: {_json(db.model_dump(include={name})[name])}")
        return hashlib.sha256(f"{{{', '.join(parts)}}}".encode()).hexdigest()

    def dump(self, db: BaseModel, start: dict) -> dict:
        """`db.model_dump()` of a db `fresh()` made, from `start` (a fresh db's dump, which holds
        every shared record's) and the records `db` holds of its own, in the same order."""
        fields = db.__dict__
        if list(fields) != list(type(db).model_fields) or not all(
                isinstance(fields[name], CopyOnLookup) for name in self.collections):
            return db.model_dump()  # replaced by tau2's update_db
        out = {}
        for name, value in fields.items():
            if name not in self.collections:
                out[name] = db.model_dump(include={name})[name]
                continue
            own = value.own
            out[name] = {key: dict.__getitem__(value, key).model_dump() if key in own else start[name][key]
                         for key in value}
        return out

    def _items(self, name: str, collection: CopyOnLookup):
        """`"key": {record JSON}` of each record in key order; a shared record's made once
        (a record is shared when it is the very object the validated db holds)."""
        cache, shared = self._item_json, self.db.__dict__[name]
        for key in sorted(collection):
            record = dict.__getitem__(collection, key)
            if record is not shared.get(key):
                yield f"{_json(key)}: {_json(record.model_dump())}"
                continue
            item = cache.get((name, key))
            if item is None:
                item = cache[name, key] = f"{_json(key)}: {_json(record.model_dump())}"
            yield item


class Validated:
    """A db model validated anew for each `fresh()` (tools that change what they iterate)."""

    def __init__(self, model: type[BaseModel], data: dict):
        self.model, self.data = model, data

    def fresh(self) -> BaseModel:
        return self.model.model_validate(self.data)

    def changed(self) -> bool:
        return False


@dataclass(frozen=True)
class Databases:
    """The dbs of one side of `jtau verify` (part -> Shared or Validated; part "db" is the
    agent's, telecom's "user_db" the phone's) and environments over fresh copies of them."""

    parts: dict

    def environment(self, constructor, **options):
        env = constructor(**{part: db.fresh() for part, db in self.parts.items()}, **options)
        agent = self.parts.get("db")
        if isinstance(agent, Shared):
            tools = env.tools
            tools.get_db_hash = lambda: agent.hash(tools.db)
        return env

    def changed(self) -> list[str]:
        """The parts whose shared records a tool changed in place."""
        return [part for part, db in self.parts.items() if db.changed()]
