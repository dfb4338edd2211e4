"""Write a domain's files so that a reviewer can diff them and a crash leaves no half file."""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path


_UMASK = os.umask(0o022)
os.umask(_UMASK)


def dump_json(data) -> bytes:
    """The output convention: UTF-8, 4-space indent, source key order, LF, final newline."""
    return (json.dumps(data, ensure_ascii=False, indent=4) + "\n").encode("utf-8")


def atomic_write(path: Path, data: bytes) -> None:
    """Write to a temporary file beside `path`, flush it to disk, then rename over `path`."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        os.chmod(tmp, 0o666 & ~_UMASK)  # mkstemp makes 0600; a written file gets the usual mode
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def write_files(folder: Path, files: dict[str, bytes]) -> list[str]:
    """Write every file atomically; returns the names that changed.  The caller puts the
    manifest last in `files`, so a manifest on disk always describes complete files."""
    changed = []
    for name, data in files.items():
        path = folder / name
        if path.is_file() and path.read_bytes() == data:
            continue
        atomic_write(path, data)
        changed.append(name)
    return changed


def check_files(folder: Path, files: dict[str, bytes]) -> list[str]:
    """Names of files whose content on disk differs from `files` (or that are missing)."""
    stale = []
    for name, data in files.items():
        path = folder / name
        if not path.is_file():
            stale.append(f"{path}: missing")
        elif path.read_bytes() != data:
            stale.append(f"{path}: differs from what jtau generates now")
    return stale
