"""The translation memory: one JSON Lines file per domain, committed, reviewed in diffs.

    data/tm/<domain>.jsonl          one entry per template, sorted by (kind, source)
    data/tm/<domain>.journal.jsonl  entries of a run in progress, appended and fsynced per
                                    batch; merged into the file when the run finishes or
                                    when the next run starts (a killed run loses nothing)

An entry is keyed by a hash of (locale, segment kind, source template).  Status:
`machine` (from an engine), `draft` (written by the team), `reviewed` (checked by a person:
never overwritten), `stale` (its source no longer occurs; kept, with the status it had in
`stale_from`, and revived if the source comes back).  Entries of other domains' files are
reused for identical templates and copied into this domain's file.
"""

from __future__ import annotations

import json
import os
from dataclasses import asdict, dataclass, field
from pathlib import Path

from jtau.errors import InputError
from jtau.util.limits import MAX_SEGMENT_CHARS, not_text, read_input
from jtau.util.listing import clip

STATUSES = ("machine", "draft", "reviewed", "stale")
FIELDS = ("key", "kind", "status", "source", "target", "engine", "model", "prompt", "hints", "stale_from")


@dataclass
class Entry:
    key: str
    kind: str
    source: str
    target: str
    status: str = "machine"
    engine: str = "openai"
    model: str | None = None
    prompt: str | None = None
    hints: dict[str, str] = field(default_factory=dict)
    stale_from: str | None = None
    where: str = field(default="", compare=False, repr=False)  # file:line it was read from


    def to_json(self) -> str:
        ordered = {name: getattr(self, name) for name in FIELDS if getattr(self, name) not in (None, {})}
        return json.dumps(ordered, ensure_ascii=False)

    @classmethod
    def from_json(cls, line: bytes | str, where: str) -> "Entry":
        """The entry of one memory line, checked as it enters: UTF-8 JSON of the fields' types,
        text that is text, segments within MAX_SEGMENT_CHARS; else one line naming `where`."""
        try:
            data = json.loads(line.decode("utf-8") if isinstance(line, bytes) else line)
        except UnicodeDecodeError as exc:
            raise InputError(f"{where}: not UTF-8 ({exc.reason} at byte {exc.start} of the line)") from None
        except json.JSONDecodeError as exc:
            raise InputError(f"{where}: not a translation-memory entry: {exc}") from None
        except (RecursionError, ValueError):  # nesting, a 5,000-digit number
            raise InputError(f"{where}: not a translation-memory entry: nested too deeply, or a number of "
                             "too many digits") from None
        if not isinstance(data, dict):
            raise InputError(f"{where}: not a translation-memory entry: a JSON {type(data).__name__}, "
                             "not an object with key, source and target")
        unknown = sorted(set(data) - set(FIELDS))
        if unknown:
            raise InputError(f"{where}: not a translation-memory entry: unknown field {clip(unknown[0], 60)!r}")
        missing = [name for name in ("key", "kind", "source", "target") if name not in data]
        if missing:
            raise InputError(f"{where}: not a translation-memory entry: no {missing[0]}")
        for name, value in data.items():
            if not _typed(name, value):
                raise InputError(f"{where}: not a translation-memory entry: {name}: {TYPES[name]}, not {_shown(value)}")
            texts = [value] if isinstance(value, str) else [*value, *value.values()] if isinstance(value, dict) else []
            for text in texts:
                if why := not_text(text):
                    raise InputError(f"{where}: {name}: {why}: not text")
        for name in ("source", "target"):
            if len(data[name]) > MAX_SEGMENT_CHARS:
                raise InputError(f"{where}: {name}: {len(data[name]):,} characters; a segment has at most "
                                 f"{MAX_SEGMENT_CHARS:,}")
        entry = cls(**data, where=where)
        if entry.status not in STATUSES:
            raise InputError(f"{where}: status {clip(entry.status, 60)!r} is not one of {', '.join(STATUSES)}")
        return entry


# what each field of an entry holds: a text, but for these
TYPES = {name: "a text" for name in FIELDS} | {
    "model": "a text or null", "prompt": "a text or null", "stale_from": "a text or null",
    "hints": "an object of texts (term: rendering)"}


def _shown(value) -> str:
    if isinstance(value, (dict, list)):
        return "a JSON object" if isinstance(value, dict) else "a JSON list"
    return clip(json.dumps(value), 60)


def _typed(name: str, value) -> bool:
    if name in ("model", "prompt", "stale_from"):
        return value is None or isinstance(value, str)
    if name == "hints":
        return isinstance(value, dict) and all(isinstance(v, str) for v in value.values())
    return isinstance(value, str)


def _read(path: Path, tolerate_torn_tail: bool = False) -> list[Entry]:
    if not path.exists():
        return []
    lines = read_input(path, what="translation memory").split(b"\n")
    entries = []
    for number, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            entries.append(Entry.from_json(line, f"{path}:{number}"))
        except InputError:
            # a run killed while appending leaves at most one torn last line in the journal
            if tolerate_torn_tail and number >= len(lines) - 1:
                break
            raise
    return entries


class TranslationMemory:
    def __init__(self, folder: Path, domain: str):
        self.folder, self.domain = folder, domain
        self.path = folder / f"{domain}.jsonl"
        self.journal_path = folder / f"{domain}.journal.jsonl"
        if folder.exists() and not folder.is_dir():
            raise InputError(f"{folder}: --tm must be a folder")
        self.entries: dict[str, Entry] = {e.key: e for e in _read(self.path)}
        for entry in _read(self.journal_path, tolerate_torn_tail=True):
            self._put(entry)
        self._others: dict[str, Entry] | None = None
        self.used: set[str] = set()

    @property
    def others(self) -> dict[str, Entry]:
        """The other domains' usable entries, read the first time this domain's file lacks a key
        (a complete memory never reads them: banking_knowledge's alone is 12,700 entries)."""
        if self._others is None:
            self._others = {}
            if self.folder.is_dir():
                for other in sorted(self.folder.glob("*.jsonl")):
                    if other.name.endswith(".journal.jsonl") or other == self.path:
                        continue
                    for entry in _read(other):
                        if entry.status != "stale":
                            self._others.setdefault(entry.key, entry)
        return self._others

    def _put(self, entry: Entry) -> None:
        old = self.entries.get(entry.key)
        if old is not None and old.status == "reviewed" and entry.status != "reviewed":
            return  # a reviewed entry is never overwritten
        self.entries[entry.key] = entry

    def get(self, key: str) -> Entry | None:
        """The usable entry for `key` (this domain's file first, then other domains')."""
        entry = self.entries.get(key)
        if entry is None and key in self.others:
            entry = Entry(**asdict(self.others[key]))
            self.entries[key] = entry
        if entry is not None:
            self.used.add(key)
            if entry.status == "stale":
                entry.status, entry.stale_from = entry.stale_from or "machine", None
        return entry

    def record(self, entries: list[Entry]) -> None:
        """Add entries and make them durable now (append to the journal, fsync)."""
        if not entries:
            return
        self.folder.mkdir(parents=True, exist_ok=True)
        with self.journal_path.open("a", encoding="utf-8") as journal:
            journal.write("".join(entry.to_json() + "\n" for entry in entries))
            journal.flush()
            os.fsync(journal.fileno())
        for entry in entries:
            self._put(entry)
            self.used.add(entry.key)

    def unused(self) -> list[Entry]:
        """Entries this run did not use: all of them are stale after it."""
        return [e for k, e in self.entries.items() if k not in self.used]

    def newly_stale(self) -> list[Entry]:
        """Entries this run marks stale (the others of `unused` were stale before it)."""
        return [e for e in self.unused() if e.status != "stale"]

    def render(self, mark_stale: bool = True) -> bytes:
        """The memory file as it should be after this run: sorted, unused entries stale."""
        lines = []
        for entry in sorted(self.entries.values(), key=lambda e: (e.kind, e.source, e.key)):
            if mark_stale and entry.key not in self.used and entry.status != "stale":
                entry = Entry(**{**asdict(entry), "status": "stale", "stale_from": entry.status})
            lines.append(entry.to_json())
        return ("\n".join(lines) + "\n").encode("utf-8") if lines else b""

    def discard_journal(self) -> None:
        self.journal_path.unlink(missing_ok=True)
