"""The files of a J-tau domain folder, where identical files are stored once.

A domain folder's `manifest.json` records the digest of every file the pipeline wrote
(`outputs`).  Some outputs are the same bytes (telecom's `tasks_full.json` is its `tasks.json`,
as in tau2's source); the wheel and the release keep one copy (`stored_once`), and every reader
of a J-tau folder asks this module for a file: a file missing from the folder is the present
file the manifest gives the same digest.  A checkout's folders hold every file (the pipeline
writes them all), so there nothing is resolved.

`dataset_digest(folder)` is the digest that names a folder's data in results, experiments,
traces and releases: the sha256 of its manifest, which digests every file in it.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

MANIFEST = "manifest.json"


def outputs(folder: Path) -> dict[str, str]:
    """File name -> sha256 of every output the folder's manifest records ({} without one)."""
    path = folder / MANIFEST
    if not path.is_file():
        return {}
    return dict(json.loads(path.read_bytes()).get("outputs") or {})


def locate(folder: Path, name: str) -> Path | None:
    """The file that holds `name`'s bytes: `folder/name`, or the present file whose digest the
    manifest records as `name`'s; None when neither is there."""
    path = folder / name
    if path.is_file():
        return path
    recorded = outputs(folder)
    digest = recorded.get(name)
    if digest is None:
        return None
    for other in sorted(recorded):
        if other != name and recorded[other] == digest and (folder / other).is_file():
            return folder / other
    return None


def exists(folder: Path, name: str) -> bool:
    return locate(folder, name) is not None


def read_bytes(folder: Path, name: str) -> bytes:
    path = locate(folder, name)
    if path is None:
        raise FileNotFoundError(2, "No such file", str(folder / name))
    return path.read_bytes()


def read_text(folder: Path, name: str) -> str:
    return read_bytes(folder, name).decode("utf-8")


def stored_once(recorded: dict[str, str]) -> dict[str, str]:
    """Of the outputs (name -> digest), the ones kept: the first name in name order of each
    digest; the others are resolved through the manifest (`locate`)."""
    kept: dict[str, str] = {}
    seen: set[str] = set()
    for name in sorted(recorded):
        if recorded[name] not in seen:
            seen.add(recorded[name])
            kept[name] = recorded[name]
    return kept


def dataset_digest(folder: Path) -> str | None:
    """The digest of a J-tau domain folder: its manifest's (which digests every file in it)."""
    path = folder / MANIFEST
    return hashlib.sha256(path.read_bytes()).hexdigest() if path.is_file() else None
