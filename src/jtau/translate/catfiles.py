"""Translation-memory exchange in the formats CAT tools speak (OmegaT, Poedit, Weblate, memoQ,
Trados, Crowdin): PO (through translate-toolkit), XLIFF 1.2 and TMX 1.4 (xmlcat.py).

Each unit is one template: the English source, the Japanese target (empty when missing), the
memory key (PO msgctxt, XLIFF trans-unit id, TMX tuid), the status, and a note with what a
reviewer needs (status, register, placeholders with their renderings, glossary hints, where
the segment occurs).  Placeholders are protected the way each format can: inline codes in
XLIFF and TMX; in PO the `python-brace-format` flag (gettext, Poedit, Weblate and pofilter
check `{ORDER_ID_1}` as a named argument), with literal braces doubled as that format wants
(`{{'color': 'blue'}}`), and the legend in the extracted comment.  A previous translation to
check is PO fuzzy, XLIFF needs-review-translation, and not in TMX.  Locations with a line
(`policy.md:42`) are PO references and XLIFF location contexts.  Files carry no timestamps:
the same memory exports to the same bytes.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

from jtau.errors import InputError
from jtau.text.template import PLACEHOLDER
from jtau.translate import xmlcat

SUFFIXES = {".po": "po", ".xlf": "xliff", ".xliff": "xliff", ".tmx": "tmx", ".jsonl": "jsonl"}
BRACE_FORMAT = "python-brace-format"
_ESCAPED = re.compile(r"\{\{|\}\}|" + PLACEHOLDER.pattern)


@dataclass(frozen=True)
class Unit:
    key: str  # the memory key; empty when a tool dropped it
    source: str
    target: str
    note: str = ""
    status: str = ""  # export: missing, machine, draft or reviewed
    previous: bool = False  # export: the target is a previous translation to check
    locations: tuple[str, ...] = ()  # export: `file:line` references
    renderings: dict[str, str] = field(default_factory=dict)  # export: placeholder -> what it renders
    line: int = 0  # import: the unit's line in its file
    problem: str = ""  # import: why the unit cannot be read


def format_of(path: Path, explicit: str | None = None) -> str:
    if explicit:
        if explicit not in set(SUFFIXES.values()):
            raise InputError(f"--format {explicit!r}: use po, xliff, tmx or jsonl")
        return explicit
    try:
        return SUFFIXES[path.suffix.lower()]
    except KeyError:
        raise InputError(f"{path}: unknown format {path.suffix!r}; use .po, .xlf, .xliff, .tmx or .jsonl") from None


def brace_format(source: str) -> bool:
    """Whether a PO unit is `python-brace-format`: its source has a placeholder or a brace."""
    return "{" in source or "}" in source


def escape_braces(text: str) -> str:
    """Literal braces doubled, placeholders kept: `{{'color': 'blue'}} {ORDER_ID_1}`."""
    out, position = [], 0
    for match in [*PLACEHOLDER.finditer(text), None]:
        out.append(text[position:match.start() if match else len(text)].replace("{", "{{").replace("}", "}}"))
        if match:
            out.append(match[0])
            position = match.end()
    return "".join(out)


def unescape_braces(text: str) -> str:
    return _ESCAPED.sub(lambda m: m[0][0] if m[0] in ("{{", "}}") else m[0], text)


def _po():
    try:
        from translate.storage import po
    except ImportError:
        raise InputError("PO files need translate-toolkit: pip install translate-toolkit") from None
    return po


def dump_units(units: list[Unit], fmt: str, domain: str) -> bytes:
    if fmt == "xliff":
        return xmlcat.dump_xliff(units, domain)
    if fmt == "tmx":
        return xmlcat.dump_tmx(units)
    store = _po().pofile()
    store.updateheader(add=True, Project_Id_Version=f"J-tau {domain}", POT_Creation_Date="",
                       Language="ja", X_Generator="jtau")
    for item in units:
        flagged = brace_format(item.source)
        text = escape_braces if flagged else str
        unit = store.UnitClass(text(item.source))
        unit.target = text(item.target)
        unit.setcontext(item.key)
        unit.addnote(item.note, origin="developer")
        for location in item.locations:
            unit.addlocation(location)
        unit.markfuzzy(item.previous)
        if flagged:
            unit.settypecomment(BRACE_FORMAT)
        store.addunit(unit)
    return bytes(store)


def _po_units(data: bytes, path: Path) -> list[Unit]:
    try:
        store = _po().pofile.parsestring(data)
    except Exception as exc:  # translate-toolkit raises parser-specific errors
        raise InputError(f"{path}: not a readable PO file: {exc}") from None
    # translate-toolkit keeps no line numbers: the k-th msgid line is the k-th live unit's
    lines = [n for n, line in enumerate(data.decode("utf-8", "replace").splitlines(), 1) if line.startswith("msgid ")]
    live = [unit for unit in store.units if not unit.isobsolete()]
    units = []
    for number, unit in enumerate(live):
        if unit.isheader():
            continue
        source, target = str(unit.source), str(unit.target or "")
        if unit.hastypecomment(BRACE_FORMAT) or "{{" in source or "}}" in source:
            source, target = unescape_braces(source), unescape_braces(target)
        units.append(Unit(key=unit.getcontext() or "", source=source, target=target,
                          note=unit.getnotes("developer"), line=lines[number] if len(lines) == len(live) else 0))
    return units


def read_units(data: bytes, path: Path, fmt: str) -> list[Unit]:
    """The units of a PO, XLIFF or TMX file (its bytes), placeholders as `{NAME}` (codes mapped
    back, PO braces undoubled), each with its line in the file."""
    if fmt == "po":
        return _po_units(data, path)
    reader = xmlcat.read_xliff if fmt == "xliff" else xmlcat.read_tmx
    return [Unit(**item) for item in reader(data, path)]
