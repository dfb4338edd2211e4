"""A localized domain in memory: what the pipeline produces and `jtau validate` reads back."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from jtau.errors import InputError
from jtau.rules import DomainRules


@dataclass
class LocalizedDomain:
    name: str
    db: Any
    tasks: list[dict]
    policy: str
    copies: dict[str, bytes] = field(default_factory=dict)

    @classmethod
    def read(cls, folder: Path, rules: DomainRules) -> "LocalizedDomain":
        """Load a written domain (for `jtau validate`)."""
        files = rules.files
        paths = {name: folder / name for name in (files.db, files.tasks, files.policy)}
        missing = [str(p) for p in paths.values() if not p.is_file()]
        if missing:
            raise InputError(f"{folder}: no localized {rules.name} domain here (missing {', '.join(missing)}); "
                             f"run: jtau localize {rules.name}")
        loaded = {}
        for name in (files.db, files.tasks):
            try:
                loaded[name] = json.loads(paths[name].read_text(encoding="utf-8"))
            except json.JSONDecodeError as exc:
                raise InputError(f"{paths[name]}:{exc.lineno}:{exc.colno}: invalid JSON: {exc.msg}") from None
        copies = {n: (folder / n).read_bytes() for n in files.copy_ if (folder / n).is_file()}
        return cls(rules.name, loaded[files.db], loaded[files.tasks],
                   paths[files.policy].read_text(encoding="utf-8"), copies)
