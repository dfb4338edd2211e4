"""A localized domain in memory: what the pipeline produces and `jtau validate` reads back."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from jtau import dataset_files
from jtau.errors import InputError
from jtau.rules import DomainRules
from jtau.source.load import glob_names, read_db, read_documents, read_tasks, read_text


@dataclass
class LocalizedDomain:
    name: str
    db: Any
    tasks: list[dict]
    policies: dict[str, str]          # policy file -> text
    copies: dict[str, bytes] = field(default_factory=dict)
    documents: dict[str, dict] = field(default_factory=dict)  # knowledge-base file -> document

    @classmethod
    def read(cls, folder: Path, rules: DomainRules) -> "LocalizedDomain":
        """Load a written domain (for `jtau validate`, `jtau verify`); a file stored once is read
        through the manifest (jtau.dataset_files)."""
        files = rules.files
        names = [*files.db_files, files.tasks, *files.policy_files]
        missing = [str(folder / n) for n in names if not dataset_files.exists(folder, n)]
        if missing:
            raise InputError(f"{folder}: no localized {rules.name} domain here (missing {', '.join(missing)})",
                             run=("localize", rules.name))
        raw = {n: dataset_files.read_bytes(folder, n) for n in names}
        copies = {n: dataset_files.read_bytes(folder, n) for n in [*files.copy_, *files.task_subsets]
                  if dataset_files.exists(folder, n)}
        documents = {}
        if files.documents:
            names = glob_names(folder, files.documents)
            documents = read_documents(folder, names, {n: (folder / n).read_bytes() for n in names})
        return cls(rules.name, read_db(folder, files, raw), read_tasks(folder / files.tasks, raw[files.tasks]),
                   {n: read_text(folder / n, raw[n]) for n in files.policy_files}, copies, documents)
