"""Write a domain's files so that a reviewer can diff them and a crash leaves no half file."""

from __future__ import annotations

import json
import os
import re
import shutil
import sys
import tempfile
from pathlib import Path

import orjson

from jtau.errors import InputError

_UMASK = os.umask(0o022)
os.umask(_UMASK)


INDENT = re.compile(rb"(?m)^ +")


def dump_json(data) -> bytes:
    """The output convention: UTF-8, 4-space indent, source key order, LF, final newline
    (byte for byte what `json.dumps(data, ensure_ascii=False, indent=4)` writes, made by orjson
    with 2-space indents doubled: JSON strings hold no raw newline, so a line's leading spaces
    are all indentation)."""
    try:
        dumped = orjson.dumps(data, option=orjson.OPT_INDENT_2)
    except TypeError:  # what orjson does not take (non-string keys, huge integers)
        return (json.dumps(data, ensure_ascii=False, indent=4) + "\n").encode("utf-8")
    return _double_indents(dumped) + b"\n"


def _double_indents(dumped: bytes) -> bytes:
    """Each line's leading spaces doubled.  Deepest level first, each level's indent becomes
    tabs (orjson writes none: strings escape them), then tabs become four spaces: a few
    passes of bytes.replace, twice as fast as a regex calling back for each of 400,000 lines."""
    if b"\t" in dumped:
        return INDENT.sub(lambda m: m[0] * 2, dumped)
    depth = 0
    while b"\n" + b"  " * (depth + 1) in dumped:
        depth += 1
    for level in range(depth, 0, -1):
        dumped = dumped.replace(b"\n" + b"  " * level, b"\n" + b"\t" * level)
    return dumped.replace(b"\t", b"    ")


def _written_beside(path: Path, data: bytes) -> str:
    """`data` in a temporary file beside `path`, flushed to disk, with the usual mode (mkstemp
    makes 0600): its name; nothing is left behind when writing fails."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        os.chmod(tmp, 0o666 & ~_UMASK)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return tmp


def atomic_write(path: Path, data: bytes) -> None:
    """Write to a temporary file beside `path`, flush it to disk, then rename over `path`."""
    tmp = _written_beside(path, data)
    try:
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def create_once(path: Path, data: bytes) -> bool:
    """Write `path` whole unless it exists, atomically also against another process doing the same
    (a hard link fails where the name is taken, on a shared file system too): True if this call
    created it."""
    tmp = _written_beside(path, data)
    try:
        os.link(tmp, path)
    except FileExistsError:
        return False
    finally:
        Path(tmp).unlink(missing_ok=True)
    return True


def ensure_writable(path: Path, folder: bool = True) -> None:
    """Fail before long work, not after it: `path` (a folder, or a file's folder) can be
    created and written.  Creates nothing: the probe file goes into the nearest folder that
    exists.  Raises InputError naming the path and the reason."""
    target = path if folder else path.parent
    existing = target
    while not existing.exists() and existing != existing.parent:
        existing = existing.parent
    if not existing.is_dir():
        raise InputError(f"{existing}: is a file, not a folder (needed for {path})")
    if not folder and path.is_dir():
        raise InputError(f"{path}: is a folder, not a file")
    try:
        fd, probe = tempfile.mkstemp(prefix=".jtau-probe-", dir=existing)
        os.close(fd)
        os.unlink(probe)
    except OSError as exc:
        where = "" if existing == target else f" (in {existing}, the nearest folder that exists)"
        raise InputError(f"{path}: cannot write{where}: {exc.strerror or exc}") from None


def replace_folder(folder: Path, files: dict[str, bytes], with_it=None, undo=None, warn=None) -> list[str]:
    """Write `files` as the whole content of `folder`, all or nothing: into a staging folder
    beside it, then swap the folders.  A reader sees the old files or the new ones, never a
    mix; a failure leaves the old folder as it was.  `with_it()` runs once the staging folder is
    complete, before the swap (a file that must change together with the folder: the memory);
    `undo()` runs if the swap then fails.  The old folder is renamed to a name of this run's
    (`.airline.old-XXXX`), so one an earlier run could not remove is in nobody's way; it is
    removed after the swap, earlier runs' with it, and `warn(message)` names one that stays.
    Returns the names that changed."""
    changed = [name for name, data in files.items()
               if not (folder / name).is_file() or (folder / name).read_bytes() != data]
    if not changed and not (set(_files_in(folder)) - set(files)):
        if with_it:
            with_it()
        _tidy(folder, [], warn)
        return []
    ensure_writable(folder.parent)
    ancestor = folder.parent  # the first missing ancestor: removed again if nothing is written
    while not ancestor.parent.exists():
        ancestor = ancestor.parent
    created = None if ancestor.exists() else ancestor
    staging = None

    def clean() -> None:
        if staging:
            shutil.rmtree(staging, ignore_errors=True)
        if created:
            shutil.rmtree(created, ignore_errors=True)

    try:
        folder.parent.mkdir(parents=True, exist_ok=True)
        staging = Path(tempfile.mkdtemp(prefix=f".{folder.name}.new-", dir=folder.parent))
        backup = staging.with_name(staging.name.replace(".new-", ".old-", 1))
        for name, data in files.items():
            atomic_write(staging / name, data)
        os.chmod(staging, 0o777 & ~_UMASK)
    except OSError as exc:
        clean()
        raise InputError(f"{folder}: cannot write the localized domain: {exc.strerror or exc}; "
                         "nothing was changed") from None
    try:
        if with_it:
            with_it()
    except BaseException:
        clean()
        raise
    try:
        if folder.exists():
            os.rename(folder, backup)
        try:
            os.rename(staging, folder)
        except OSError:
            if backup.exists():
                os.rename(backup, folder)
            raise
    except OSError as exc:
        clean()
        if undo:
            undo()
        raise InputError(f"{folder}: cannot write the localized domain: {exc.strerror or exc}; "
                         "nothing was changed") from None
    _tidy(folder, [backup], warn)
    return changed


def _tidy(folder: Path, ours: list[Path], warn) -> None:
    """Remove this run's old folder and those earlier runs left; `warn` names one that stays."""
    for old in dict.fromkeys([*ours, *old_folders(folder)]):
        reason = remove_folder(old) if old.exists() else None
        if reason and warn:
            warn(f"{folder}: the old folder {old} could not be removed ({reason}); remove it when you can, "
                 "jtau does not need it")


def old_folders(folder: Path) -> list[Path]:
    """Old versions of `folder` that earlier runs could not remove (`.airline.old`, `.airline.old-XXXX`)."""
    parent = folder.parent
    return sorted(p for p in parent.glob(f".{folder.name}.old*")
                  if p.is_dir() and (p.name == f".{folder.name}.old" or p.name.startswith(f".{folder.name}.old-")))


def remove_folder(folder: Path) -> str | None:
    """Remove a folder as far as possible; the first thing that could not be removed and why."""
    failed: list[str] = []

    def note(_function, path, error) -> None:
        error = error[1] if isinstance(error, tuple) else error  # onerror gives exc_info, onexc the exception
        failed.append(f"{path}: {getattr(error, 'strerror', None) or error}")

    if sys.version_info >= (3, 12):
        shutil.rmtree(folder, onexc=note)
    else:
        shutil.rmtree(folder, onerror=note)
    return failed[0] if failed else None


def _files_in(folder: Path) -> list[str]:
    if not folder.is_dir():
        return []
    return [str(p.relative_to(folder)) for p in folder.rglob("*") if p.is_file()]
