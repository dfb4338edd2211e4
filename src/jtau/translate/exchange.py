"""Translation outside the tool: export the segments the memory lacks, import translations.

Export writes JSON Lines, one segment a line, with what a translator needs: the template,
its register, the glossary hints it must follow, what each placeholder stands for (source
text and Japanese rendering) and where the segment occurs.  Import reads JSON Lines of
`{"key", "target"}` (more fields are ignored), checks every target exactly as a machine
answer is checked, and records the valid ones with the given engine and status.
"""

from __future__ import annotations

import json
from pathlib import Path

from jtau.errors import InputError
from jtau.jsonpath import format_path
from jtau.text.fields import TextFields
from jtau.text.template import Template
from jtau.translate import check
from jtau.translate.client import Job
from jtau.translate.tm import Entry, TranslationMemory


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


def export(jobs: list[Job], text: TextFields, locale: str, path: Path) -> int:
    info = contexts(text, locale)
    lines = []
    for job in sorted(jobs, key=lambda j: info[j.key]["order"]):  # as they occur: neighbours give context
        lines.append(json.dumps({"key": job.key, "kind": job.kind, "source": job.source, "hints": job.hints,
                                 "placeholders": info[job.key]["placeholders"],
                                 "where": info[job.key]["where"][:5]}, ensure_ascii=False))
    from jtau.write import atomic_write

    atomic_write(path, "".join(line + "\n" for line in lines).encode("utf-8"))
    return len(lines)


def import_file(path: Path, jobs: dict[str, Job], tm: TranslationMemory, allow: frozenset[str],
                literals: frozenset[str], engine: str, status: str, dry_run: bool = False) -> tuple[int, list[str]]:
    """Record the valid translations of `path` (with dry_run only check them); returns how
    many are valid, and the problems."""
    recorded, problems = [], []
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip():
            continue
        try:
            item = json.loads(line)
            key, target = item["key"], item["target"]
        except (json.JSONDecodeError, KeyError, TypeError):
            raise InputError(f"{path}:{number}: expected a JSON object with key and target") from None
        job = jobs.get(key)
        if job is None:
            problems.append(f"{path}:{number}: {key}: no such segment needs a translation")
            continue
        found = check.problems(job.source, target, job.hints, allow, literals)
        if found:
            problems.append(f"{path}:{number}: {key} {job.source[:60]!r}: {'; '.join(found)}")
            continue
        recorded.append(Entry(key=key, kind=job.kind, source=job.source, target=target.strip(), status=status,
                              engine=engine, model=None, prompt=None, hints=job.hints))
    if not dry_run:
        tm.record(recorded)
    return len(recorded), problems
