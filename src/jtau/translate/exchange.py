"""Translation outside the tool: export segments for translators and reviewers, import their
translations.

Export writes, for the segments the memory lacks (default) or the entries of one status
(`--status draft`), what a translator needs: the template, its register, the glossary hints
it must follow, what each placeholder stands for (source text and Japanese rendering) and
where the segment occurs; as JSON Lines or, for CAT tools, PO, XLIFF or TMX (catfiles.py).
Import reads the same formats, checks every target exactly as a machine answer is checked,
and records the valid ones with the given engine and status; overwriting a reviewed entry
with another text needs `force`.
"""

from __future__ import annotations

import json
from pathlib import Path

from jtau.errors import InputError
from jtau.jsonpath import format_path
from jtau.listing import clip, first
from jtau.text.fields import TextFields
from jtau.text.template import Template
from jtau.translate import check
from jtau.translate.catfiles import Unit, dump_units, format_of, read_units
from jtau.translate.client import Job
from jtau.translate.engine import needs_translation
from jtau.translate.tm import Entry, TranslationMemory

MISSING = "missing"


def contexts(text: TextFields, locale: str) -> dict[str, dict]:
    """key -> {"where": [...], "placeholders": {...}} for every template of the domain."""
    out: dict[str, dict] = {}
    for field in text.fields:
        for piece in field.pieces:
            if not isinstance(piece, Template):
                continue
            info = out.setdefault(piece.key(locale, field.kind), {"where": [], "placeholders": {}, "order": len(out)})
            info["where"].append(f"{field.file} {format_path(field.path)}")
            for name, entity in piece.entities:
                try:
                    rendering = text.renderer.entity(entity)
                except Exception:  # an unmapped entity is reported by the pipeline itself
                    rendering = "?"
                info["placeholders"].setdefault(name, f"{entity.surface} -> {rendering}")
    return out


def all_jobs(text: TextFields, glossary, locale: str) -> dict[str, Job]:
    """Every template of the domain as a job (with the hints that apply now), by key."""
    jobs = {}
    for template, kind in text.segments():
        key = template.key(locale, kind)
        if key not in jobs and needs_translation(template):
            jobs[key] = Job(key, kind, template.text, glossary.hints_in(template.text))
    return jobs


def note(job: Job, info: dict, status: str, previous: Entry | None = None) -> str:
    lines = [f"status: {status}", f"register: {job.kind}"]
    if previous is not None:
        old = ", ".join(f"{term} -> {ja}" for term, ja in previous.hints.items()) or "none"
        lines.append(f"previous translation filled in, made with other glossary hints ({old}): "
                     "keep it if it names the terms below")
    lines += [f"placeholder {name}: {legend}" for name, legend in info["placeholders"].items()]
    lines += [f"glossary: {term} -> {ja}" for term, ja in job.hints.items()]
    lines += [f"where: {where}" for where in first(info["where"], 5)]
    return "\n".join(lines)


def export(jobs: dict[str, Job], pending: set[str], tm: TranslationMemory, text: TextFields, locale: str,
           path: Path, status: str = MISSING, fmt: str | None = None, domain: str = "") -> int:
    """Write the segments of `status` (missing, draft, reviewed, machine, or all) to `path`.

    A segment missing only because its glossary hints changed (a term added or matched
    differently) carries its previous translation: JSONL `previous` {target, hints}, PO/XLIFF/TMX
    the target filled in (PO: fuzzy) and the old hints in the note.  Kept as it is, it imports
    when it names the terms the new hints ask for."""
    info = contexts(text, locale)
    selected = []
    for key in sorted(jobs, key=lambda k: info[k]["order"]):  # as they occur: neighbours give context
        known = tm.entries.get(key)
        entry, previous = (None, known) if key in pending else (known, None)
        state = entry.status if entry else MISSING
        if status in ("all", state):
            selected.append((jobs[key], entry, state, previous))
    fmt = format_of(path, fmt)
    if fmt == "jsonl":
        data = "".join(json.dumps({"key": job.key, "kind": job.kind, "source": job.source, "hints": job.hints,
                                   "placeholders": info[job.key]["placeholders"], "where": first(info[job.key]["where"], 5),
                                   **({"target": entry.target, "status": state} if entry else {}),
                                   **({"previous": {"target": previous.target, "hints": previous.hints}}
                                      if previous else {})},
                                  ensure_ascii=False) + "\n" for job, entry, state, previous in selected).encode("utf-8")
    else:
        data = dump_units([Unit(job.key, job.source, entry.target if entry else previous.target if previous else "",
                                note(job, info[job.key], state, previous), state, fuzzy=previous is not None)
                           for job, entry, state, previous in selected], fmt, domain)
    from jtau.write import atomic_write

    atomic_write(path, data)
    return len(selected)


def read_translations(path: Path, fmt: str | None = None) -> list[tuple[str, str, str]]:
    """(where, key, target) of every translation in the file; empty targets are skipped."""
    fmt = format_of(path, fmt)
    if fmt != "jsonl":
        return [(f"{path} unit {unit.key}", unit.key, unit.target) for unit in read_units(path, fmt) if unit.target]
    out = []
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip():
            continue
        try:
            item = json.loads(line)
            key, target = item["key"], item["target"]
        except (json.JSONDecodeError, KeyError, TypeError):
            raise InputError(f"{path}:{number}: expected a JSON object with key and target") from None
        out.append((f"{path}:{number}", key, target))
    return out


def import_file(path: Path, jobs: dict[str, Job], tm: TranslationMemory, allow: frozenset[str],
                literals: frozenset[str], engine: str, status: str, dry_run: bool = False,
                force: bool = False, fmt: str | None = None) -> tuple[int, list[str]]:
    """Record the valid translations of `path` (with dry_run only check them); returns how
    many are valid, and the problems."""
    recorded, problems = [], []
    for where, key, target in read_translations(path, fmt):
        job = jobs.get(key)
        if job is None:
            problems.append(f"{where}: {key}: no such segment in this domain")
            continue
        found = check.problems(job.source, target, job.hints, allow, literals)
        if found:
            problems.append(f"{where}: {key} {clip(job.source, 60)!r}: {'; '.join(found)}")
            continue
        old = tm.entries.get(key)
        if old is not None and old.status == "reviewed" and old.target != target.strip() and not force:
            problems.append(f"{where}: {key}: would overwrite a reviewed translation; use --force to replace it")
            continue
        recorded.append(Entry(key=key, kind=job.kind, source=job.source, target=target.strip(), status=status,
                              engine=engine, model=None, prompt=None, hints=job.hints))
    if not dry_run:
        if force:
            for entry in recorded:  # a reviewed entry is otherwise never overwritten
                tm.entries.pop(entry.key, None)
        tm.record(recorded)
    return len(recorded), problems
