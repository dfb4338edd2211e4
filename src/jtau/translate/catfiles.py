"""Translation-memory exchange in the formats CAT tools speak (OmegaT, Poedit, Weblate,
Crowdin): PO, XLIFF 1.2 and TMX 1.4, read and written with translate-toolkit.

Each unit is one template: the English source, the Japanese target (empty when missing), a
stable id (the memory key: PO msgctxt, XLIFF trans-unit id, TMX x-context), and a note with
what a reviewer needs (status, register, placeholders with their renderings, glossary hints,
where the segment occurs).  Reviewed units are marked approved (XLIFF) so tools show them as
final.  Files carry no timestamps: the same memory exports to the same bytes.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from jtau.errors import InputError
from jtau.listing import clip

SUFFIXES = {".po": "po", ".xlf": "xliff", ".xliff": "xliff", ".tmx": "tmx", ".jsonl": "jsonl"}


@dataclass(frozen=True)
class Unit:
    key: str
    source: str
    target: str
    note: str = ""
    status: str = ""
    fuzzy: bool = False  # a previous translation to check (PO: the fuzzy flag)


def format_of(path: Path, explicit: str | None = None) -> str:
    if explicit:
        if explicit not in set(SUFFIXES.values()):
            raise InputError(f"--format {explicit!r}: use po, xliff, tmx or jsonl")
        return explicit
    try:
        return SUFFIXES[path.suffix.lower()]
    except KeyError:
        raise InputError(f"{path}: unknown format {path.suffix!r}; use .po, .xlf, .xliff, .tmx or .jsonl") from None


def _stores():
    try:
        from translate.storage import po, tmx, xliff
    except ImportError:
        raise InputError("PO, XLIFF and TMX need translate-toolkit: pip install translate-toolkit") from None
    return po, xliff, tmx


def dump_units(units: list[Unit], fmt: str, domain: str) -> bytes:
    po, xliff, tmx = _stores()
    if fmt == "po":
        store = po.pofile()
        store.updateheader(add=True, Project_Id_Version=f"J-tau {domain}", POT_Creation_Date="",
                           Language="ja", X_Generator="jtau")
        for item in units:
            unit = store.UnitClass(item.source)
            unit.target = item.target
            unit.setcontext(item.key)
            unit.addnote(item.note, origin="developer")
            unit.markfuzzy(item.fuzzy)
            store.addunit(unit)
    else:
        store = (xliff.xlifffile if fmt == "xliff" else tmx.tmxfile)(sourcelanguage="en", targetlanguage="ja")
        for item in units:
            unit = store.addsourceunit(item.source)
            unit.target = item.target
            if fmt == "xliff":
                unit.setid(item.key)
                unit.markapproved(item.status == "reviewed")
            else:
                unit.setcontext(item.key)
            unit.addnote(item.note, origin="developer")
    return bytes(store)


def read_units(path: Path, fmt: str) -> list[Unit]:
    po, xliff, tmx = _stores()
    store_class = {"po": po.pofile, "xliff": xliff.xlifffile, "tmx": tmx.tmxfile}[fmt]
    try:
        store = store_class.parsestring(path.read_bytes())
    except Exception as exc:  # translate-toolkit raises parser-specific errors
        raise InputError(f"{path}: not a readable {fmt.upper()} file: {exc}") from None
    units = []
    for unit in store.units:
        if unit.isheader():
            continue
        key = unit.getid().rsplit("\x04", 1)[-1] if fmt == "xliff" else unit.getcontext()
        if not key:
            raise InputError(f"{path}: a unit without the memory key ({clip(unit.source, 60)!r}); export it from jtau")
        units.append(Unit(key=key, source=str(unit.source), target=str(unit.target or "")))
    return units
