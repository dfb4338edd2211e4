"""`--check`: what would be written compared with what is on disk."""

from __future__ import annotations

from pathlib import Path

from jtau import dataset_files


def check_files(folder: Path, files: dict[str, bytes]) -> list[str]:
    """Names of files whose content on disk differs from `files` (or that are missing); a file
    stored once is read through the folder's manifest (jtau.dataset_files)."""
    stale = []
    for name, data in files.items():
        path = folder / name
        found = dataset_files.locate(folder, name)
        if found is None:
            stale.append(f"{path}: missing")
        elif found.read_bytes() != data:
            stale.append(f"{path}: differs from what jtau generates now")
    return stale
