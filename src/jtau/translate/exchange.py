"""Translation outside the tool: export segments for translators and reviewers, import their
translations.

Export writes, for the segments the memory lacks (default) or the entries of one status
(`--status draft`), what a translator needs: the template, its register, the glossary hints
it must follow, what each placeholder stands for (source text and Japanese rendering) and
where the segment occurs; as JSON Lines or, for CAT tools, PO, XLIFF or TMX (catfiles.py).
Import reads the same formats and finds each unit's segment by its key or, when a tool lost
the key (xliff2po, po2xliff), by its exact English source (the register and placeholder
legend of its note decide between segments that share one).  It checks every target exactly
as a machine answer is checked and records what changed: a new or different Japanese with the
given engine and status, a status alone (provenance kept), nothing for a unit as it is in the
memory; overwriting a reviewed entry with another text needs `force`.
"""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import asdict, dataclass, field
from pathlib import Path

from jtau.errors import InputError
from jtau.text.fields import TextFields
from jtau.text.template import Template
from jtau.translate import check
from jtau.translate.catfiles import Unit, dump_units, format_of, read_units
from jtau.translate.client import Job
from jtau.translate.engine import needs_translation
from jtau.translate.tm import Entry, TranslationMemory
from jtau.util.files import atomic_write
from jtau.util.limits import read_input
from jtau.util.listing import clip

MISSING = "missing"
WHERE_SHOWN = 5  # locations listed per segment; the rest are counted


def contexts(text: TextFields, locale: str) -> dict[str, dict]:
    """key -> {"where": [...], "refs": [...], "placeholders": {...}, "order": n} for every
    template of the domain: where it occurs (`refs`: those with a line), and each placeholder's
    (source text, Japanese rendering) at its first occurrence."""
    out: dict[str, dict] = {}
    for text_field in text.fields:
        for index, piece in enumerate(text_field.pieces):
            if not isinstance(piece, Template):
                continue
            info = out.setdefault(piece.key(locale, text_field.kind),
                                  {"where": [], "refs": [], "placeholders": {}, "order": len(out)})
            info["where"].append(text_field.location(index))
            if text_field.line:
                info["refs"].append(info["where"][-1])
            for name, entity in piece.entities:
                if name not in info["placeholders"]:
                    try:
                        rendering = text.renderer.entity(entity)
                    except Exception:  # an unmapped entity is reported by the pipeline itself
                        rendering = "?"
                    info["placeholders"][name] = (entity.surface, rendering)
    return out


def all_jobs(text: TextFields, glossary, locale: str, kept: frozenset[str] = frozenset()) -> dict[str, Job]:
    """Every template of the domain as a job (with the hints that apply now), by key; the kinds
    the rules keep in the source language (`kept`) are nobody's job."""
    jobs = {}
    for template, kind in text.segments():
        key = template.key(locale, kind)
        if key not in jobs and kind not in kept and needs_translation(template):
            jobs[key] = Job(key, kind, template.text, glossary.hints_in(template.text))
    return jobs


def legend(info: dict) -> list[str]:
    return [f"placeholder {name}: {surface} -> {rendering}"
            for name, (surface, rendering) in info["placeholders"].items()]


def note(job: Job, info: dict, status: str, previous: Entry | None = None) -> str:
    lines = [f"status: {status}", f"register: {job.kind}"]
    if previous is not None:
        old = ", ".join(f"{term} -> {ja}" for term, ja in previous.hints.items()) or "none"
        lines.append(f"previous translation filled in, made with other glossary hints ({old}): "
                     "keep it if it names the terms below")
    lines += legend(info)
    lines += [f"glossary: {term} -> {ja}" for term, ja in job.hints.items()]
    lines += [f"where: {where}" for where in info["where"][:WHERE_SHOWN]]
    if len(info["where"]) > WHERE_SHOWN:
        lines.append(f"where: ... and {len(info['where']) - WHERE_SHOWN:,} more")
    return "\n".join(lines)


@dataclass
class Exported:
    written: int  # units in the file (0: nothing was written)
    left_out: int  # selected segments without a translation, which TMX cannot hold
    statuses: Counter  # every segment of the domain by status (missing for the memory's gaps)


def export(jobs: dict[str, Job], pending: set[str], tm: TranslationMemory, text: TextFields, locale: str,
           path: Path, status: str = MISSING, fmt: str | None = None, domain: str = "") -> Exported:
    """Write the segments of `status` (missing, draft, reviewed, machine, or all) to `path`;
    nothing when none is selected.

    A segment missing only because its glossary hints changed (a term added or matched
    differently) carries its previous translation: JSONL `previous` {target, hints}, PO/XLIFF
    the target filled in (PO fuzzy, XLIFF needs-review-translation) and the old hints in the
    note.  Kept as it is, it imports when it names the terms the new hints ask for.  TMX holds
    translations only: missing segments are left out."""
    info = contexts(text, locale)
    fmt = format_of(path, fmt)
    selected: list[tuple] = []
    statuses: Counter[str] = Counter()
    left_out = 0
    for key in sorted(jobs, key=lambda k: info[k]["order"]):  # as they occur: neighbours give context
        known = tm.entries.get(key)
        entry, previous = (None, known) if key in pending else (known, None)
        state = entry.status if entry else MISSING
        statuses[state] += 1
        if status not in ("all", state):
            continue
        if fmt == "tmx" and entry is None:
            left_out += 1
            continue
        selected.append((jobs[key], entry, state, previous))
    if selected:
        _write(selected, info, path, fmt, domain)
    return Exported(len(selected), left_out, statuses)


def export_memory(tm: TranslationMemory, path: Path, status: str, fmt: str | None = None,
                  domain: str = "") -> Exported:
    """Without the source: write the memory's entries of `status` (draft, reviewed, machine, or
    all; stale entries are left out) as they are recorded, with the glossary hints they were
    made with.  Where a segment occurs, what its placeholders render and which segments the
    memory lacks are known only from the source: the units go without them."""
    fmt = format_of(path, fmt)
    statuses = Counter(entry.status for entry in tm.entries.values() if entry.status != "stale")
    selected = [(Job(entry.key, entry.kind, entry.source, entry.hints), entry, entry.status, None)
                for entry in tm.entries.values() if entry.status != "stale" and status in ("all", entry.status)]
    if selected:
        info: dict[str, dict] = {job.key: {"where": [], "refs": [], "placeholders": {}} for job, *_ in selected}
        _write(selected, info, path, fmt, domain)
    return Exported(len(selected), 0, statuses)


def _write(selected: list[tuple], info: dict[str, dict], path: Path, fmt: str, domain: str) -> None:
    """Write the selected (job, entry, state, previous) units in `fmt`."""
    if fmt == "jsonl":
        body = "".join(json.dumps({"key": job.key, "kind": job.kind, "source": job.source, "hints": job.hints,
                                   "placeholders": {name: f"{surface} -> {rendering}" for name, (surface, rendering)
                                                    in info[job.key]["placeholders"].items()},
                                   "where": info[job.key]["where"][:WHERE_SHOWN],
                                   **({"target": entry.target, "status": state} if entry else {}),
                                   **({"previous": {"target": previous.target, "hints": previous.hints}}
                                      if previous else {})},
                                  ensure_ascii=False) + "\n" for job, entry, state, previous in selected)
        data = body.encode("utf-8")
    else:
        data = dump_units([Unit(job.key, job.source, entry.target if entry else previous.target if previous else "",
                                note(job, info[job.key], state, previous), state, previous is not None,
                                tuple(info[job.key]["refs"][:WHERE_SHOWN]),
                                {name: rendering for name, (_, rendering) in info[job.key]["placeholders"].items()})
                           for job, entry, state, previous in selected], fmt, domain)

    atomic_write(path, data)


def read_translations(path: Path, fmt: str | None = None) -> list[Unit]:
    """Every unit of the file that has a target (or cannot be read), with its line."""
    fmt = format_of(path, fmt)
    data = read_input(path, what="translation file")
    if fmt != "jsonl":
        return [unit for unit in read_units(data, path, fmt) if unit.target.strip() or unit.problem]
    out = []
    for number, line in enumerate(data.split(b"\n"), 1):  # JSON Lines: only \n ends a line (not U+2028)
        if not line.strip():
            continue
        where = f"{path}:{number}"
        try:
            item = json.loads(line.decode("utf-8"))
        except UnicodeDecodeError as exc:
            raise InputError(f"{where}: not UTF-8 ({exc.reason} at byte {exc.start} of the line)") from None
        except (ValueError, RecursionError):  # not JSON, a 5,000-digit number, 1,000 levels
            item = None
        if not isinstance(item, dict) or "target" not in item or not (item.get("key") or item.get("source")):
            raise InputError(f"{where}: expected a JSON object with key (or source) and target")
        fields = {name: item.get(name, "") for name in ("key", "source", "target")}
        wrong = [name for name, value in fields.items() if not isinstance(value, str)]
        if wrong:
            raise InputError(f"{where}: {wrong[0]}: a text, not {type(fields[wrong[0]]).__name__}")
        out.append(Unit(**fields, line=number))
    return out


def _note_lines(note: str, prefix: str) -> list[str]:
    return [line for line in note.splitlines() if line.startswith(prefix)]


def find_segment(unit: Unit, jobs: dict[str, Job], by_source: dict[str, list[Job]],
                 info: dict[str, dict]) -> tuple[Job | None, str]:
    """The segment a unit translates: by key, else by exact English source (the note's
    register and placeholder legend decide between segments that share it); or why none."""
    if unit.key in jobs:
        return jobs[unit.key], ""
    candidates = by_source.get(unit.source, [])
    if len(candidates) > 1:
        registers = {line.split(": ", 1)[-1] for line in _note_lines(unit.note, "register: ")}
        given = _note_lines(unit.note, "placeholder ")
        candidates = [job for job in candidates if (not registers or job.kind in registers)
                      and (not given or job.key not in info or given == legend(info[job.key]))] or candidates
    if len(candidates) == 1:
        return candidates[0], ""
    if candidates:
        kinds = ", ".join(sorted(job.kind for job in candidates))
        return None, (f"{unit.source[:60]!r} is the English of {len(candidates)} segments ({kinds}) and the unit "
                      "has no key that tells which: keep the key (PO msgctxt, XLIFF id, TMX tuid) to import it")
    key = clip(unit.key, 60)
    if not unit.source:
        return None, f"{key}: no segment of this domain has this key"
    if not unit.key:
        return None, (f"{unit.source[:60]!r}: no segment of this domain has this English source "
                      "(and the unit has no key)")
    return None, f"{key} {unit.source[:60]!r}: no segment of this domain has this key or this English source"


@dataclass
class Imported:
    changed: int = 0  # a new or different Japanese recorded (a missing segment filled)
    status_only: int = 0  # the same Japanese, now with the given status
    unchanged: int = 0  # the same Japanese and status as in the memory (a reviewed one stays reviewed)
    problems: list[str] = field(default_factory=list)  # one line per refused unit, with its reasons
    recorded: set[str] = field(default_factory=set)  # the keys whose Japanese was recorded

    @property
    def refused(self) -> int:
        return len(self.problems)


def import_file(path: Path, jobs: dict[str, Job], tm: TranslationMemory, allow: frozenset[str],
                literals: frozenset[str], engine: str, status: str, dry_run: bool = False,
                force: bool = False, fmt: str | None = None, pending: frozenset[str] = frozenset(),
                text: TextFields | None = None, locale: str = "",
                avoid: tuple[tuple[str, str], ...] = ()) -> Imported:
    """Record what the translations of `path` change (with dry_run only check and count them).
    `pending`: the keys the memory lacks (a previous translation kept as it is fills one);
    `text` and `locale` give the placeholder legends that match units without a key."""
    info = contexts(text, locale) if text is not None else {}
    by_source: dict[str, list[Job]] = {}
    for candidate in jobs.values():
        by_source.setdefault(candidate.source, []).append(candidate)
    report = Imported()
    recorded: list[Entry] = []
    seen: dict[str, str] = {}
    for unit in read_translations(path, fmt):
        where = f"{path}:{unit.line}" if unit.line else str(path)
        if unit.problem:
            report.problems.append(f"{where}: {clip(unit.key, 60) or repr(unit.source[:60])}: {unit.problem}")
            continue
        job, why = find_segment(unit, jobs, by_source, info)
        if job is None:
            report.problems.append(f"{where}: {why}")
            continue
        if job.key in seen:
            report.problems.append(f"{where}: {job.key}: the same segment as {seen[job.key]}, which is imported")
            continue
        seen[job.key] = where
        found = check.problems(job.source, unit.target, job.hints, allow, literals, avoid)
        if found:
            report.problems.append(f"{where}: {job.key} {job.source[:60]!r}: {'; '.join(found)}")
            continue
        target, old = unit.target.strip(), tm.entries.get(job.key)
        if old is not None and job.key not in pending and old.target == target:
            if old.status in (status, "reviewed"):
                report.unchanged += 1
            else:
                report.status_only += 1
                recorded.append(Entry(**{**asdict(old), "status": status}))
            continue
        if old is not None and old.status == "reviewed" and old.target != target and not force:
            report.problems.append(f"{where}: {job.key}: would overwrite a reviewed translation; "
                                   "use --force to replace it")
            continue
        report.changed += 1
        report.recorded.add(job.key)
        recorded.append(Entry(key=job.key, kind=job.kind, source=job.source, target=target, status=status,
                              engine=engine, model=None, prompt=None, hints=job.hints))
    if not dry_run:
        if force:
            for entry in recorded:  # a reviewed entry is otherwise never overwritten
                tm.entries.pop(entry.key, None)
        tm.record(recorded)
    return report
