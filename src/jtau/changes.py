"""What a change did: the text fields whose Japanese differs between two localizations (the
files on disk, or a git revision, against this run), and the Markdown report of a run.

Used by `jtau localize --report FILE` (CI writes it into the job summary) and by
`jtau review DOMAIN --changed-since REV` (English / old Japanese / new Japanese).
"""

from __future__ import annotations

import json
import subprocess
from dataclasses import dataclass
from pathlib import Path

from jtau import dataset_files
from jtau.errors import InputError
from jtau.source.formats import parse
from jtau.util.jsonpath import format_path
from jtau.util.limits import printable
from jtau.util.listing import clip, first


@dataclass(frozen=True)
class Change:
    where: str
    english: str
    old: str | None
    new: str


def _get(data, path):
    for key in path:
        try:
            data = data[key]
        except (KeyError, IndexError, TypeError):
            return None
    return data


def text_changes(result, old_files: dict[str, bytes]) -> list[Change]:
    """Fields (task text, db notes) and lines (policies, documents) whose Japanese differs from
    `old_files`."""
    files = result.rules.files
    changes: list[Change] = []
    old_tasks = json.loads(old_files[files.tasks]) if files.tasks in old_files else []
    for field in result.text.fields:
        if field.file != files.tasks:
            continue
        new = field.container[field.key]
        old = _get(old_tasks, field.path)
        if old != new:
            changes.append(Change(f"{files.tasks} {format_path(field.path)}", _get(result.source.tasks, field.path),
                                  old, new))
    changes += _db_changes(result, old_files)
    for name, text in result.domain.policies.items():
        old = old_files[name].decode("utf-8") if name in old_files else None
        changes += _line_changes(name, result.source.policies[name], old, text)
    for name, document in result.domain.documents.items():  # the knowledge base: title, content
        old = json.loads(old_files[name]) if name in old_files else {}
        for key in result.rules.documents:
            changes += _line_changes(f"{name}: {key}", result.source.documents[name].get(key) or "",
                                     old.get(key) if old else None, document.get(key) or "")
    return changes


def _line_changes(where: str, english: str, old: str | None, new: str) -> list[Change]:
    """The lines of a text (`where:N`) whose Japanese differs from the old text's line N."""
    english_lines = english.split("\n")
    old_lines = old.split("\n") if old is not None else []
    return [Change(f"{where}:{number}", english_lines[number - 1], old_lines[number - 1] if number <= len(old_lines)
                   else None, line)
            for number, line in enumerate(new.split("\n"), 1)
            if (number > len(old_lines) or line != old_lines[number - 1])
            and number <= len(english_lines) and english_lines[number - 1].strip()]


def _db_changes(result, old_files: dict[str, bytes]) -> list[Change]:
    """The db's free-text fields (banking's table notes) whose Japanese differs."""
    db_files = result.rules.files.db_files
    fields = [field for field in result.text.fields if field.file in db_files]
    if not fields or not all(name in old_files for name in db_files):
        return [Change(f"{f.file} {format_path(f.path)}", _get(result.source.db, f.path), None,
                       f.container[f.key]) for f in fields]
    parsed = {name: parse(Path(name), old_files[name]) for name in db_files}
    old_db = parsed[db_files[0]] if len(db_files) == 1 else {Path(name).stem: data for name, data in parsed.items()}
    return [Change(f"{f.file} {format_path(f.path)}", _get(result.source.db, f.path), _get(old_db, f.path),
                   f.container[f.key]) for f in fields if _get(old_db, f.path) != f.container[f.key]]


def files_on_disk(folder: Path, names) -> dict[str, bytes]:
    return {name: dataset_files.read_bytes(folder, name) for name in names if dataset_files.exists(folder, name)}


def files_at_revision(root: Path, folder: Path, names, revision: str) -> dict[str, bytes]:
    """The files of a localized domain as committed at `revision` (git); an input error if
    `root` is no git checkout or `revision` no commit of it (never "everything changed")."""
    try:
        base = folder.resolve().relative_to(root.resolve())
    except ValueError:
        raise InputError(f"--changed-since {printable(repr(revision), 80)}: {folder} is not inside {root}, "
                         "whose git history it would read") from None
    commit = commit_of(root, revision)
    out = {}
    for name in names:
        relative = base / name
        shown = subprocess.run(["git", "-C", str(root), "cat-file", "blob", f"{commit}:{relative.as_posix()}"],
                               capture_output=True)
        if shown.returncode == 0:
            out[name] = shown.stdout
    return out


def commit_of(root: Path, revision: str) -> str:
    """The commit `revision` names in the git checkout `root` (the revision goes to git after
    --end-of-options: `-x` is a revision, never an option)."""
    shown = printable(repr(revision), 80)
    if not revision.strip():
        raise InputError("--changed-since: give a git revision (a commit, a branch, a tag)")
    try:
        found = subprocess.run(["git", "-C", str(root), "rev-parse", "--verify", "--quiet", "--end-of-options",
                                f"{revision}^{{commit}}"], capture_output=True, text=True)
    except OSError as exc:
        raise InputError(f"--changed-since {shown}: git cannot run: {exc.strerror or exc}") from None
    if found.returncode != 0:
        inside = subprocess.run(["git", "-C", str(root), "rev-parse", "--git-dir"], capture_output=True)
        if inside.returncode != 0:
            raise InputError(f"--changed-since {shown}: {root} is not in a git checkout")
        raise InputError(f"--changed-since {shown}: not a commit of the git checkout {root}")
    return found.stdout.strip()


def report_markdown(result, changes: list[Change], changed_files: list[str]) -> str:
    """A short report of one domain's run, for people and for CI job summaries."""
    t = result.translation
    newly, stale = len(result.tm.newly_stale()), len(result.tm.unused())
    lines = [f"### {result.rules.name}",
             f"- segments translated by the endpoint: {t.sent} ({t.requests} requests); from the memory: {t.hits}",
             f"- segments left untranslated: {t.untranslated}",
             f"- memory entries gone stale in this run (their source no longer occurs): {newly}; "
             f"stale entries kept: {stale}",
             f"- text fields whose Japanese changed: {len(changes)}",
             f"- files changed: {', '.join(changed_files) if changed_files else 'none'}",
             f"- validation errors: {len(result.report.errors)}, QA warnings: {len(result.report.warnings)}"]
    shown = [f"`{change.where}`: {clip(change.new, 120)}" for change in changes]
    lines += [f"  - {line}" for line in first(shown, 20, f"`jtau review {result.rules.name} --changed-since REV`")]
    if result.report.warnings:  # all of them: the file is where localize says they are listed
        lines += ["", f"<details><summary>QA warnings of {result.rules.name} ({len(result.report.warnings)})</summary>",
                  "", *(f"- {warning}" for warning in result.report.warnings), "", "</details>"]
    return "\n".join(lines) + "\n"
