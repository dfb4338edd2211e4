"""Where an arm's files are (jtau.arms): J-tau's in the repository, the other arms in a cache,
built by the pipeline the first time they are asked for.

Only `ja` is committed (`data/domains/<domain>/`).  `en`, `ja-entities` and `ja-text` are pure
functions of what the repository already holds (source, maps, rules, glossary, memory, repairs,
jtau's code), so committing them would triple the data (50 MB, 37 MB of it telecom) and every
map or memory change would rewrite four copies.  Instead `arm_folder(domain, arm)` returns

    $JTAU_CACHE/arms/<domain>/<arm>-<key>/      (default ~/.cache/jtau; JTAU_CACHE=off: a
                                                 temporary folder removed when the process ends)

where `key` digests every input: the source files' bytes, the entity maps, the domain's rules,
the glossaries, the task repairs, the translation memory, jtau's version and its code, the arm.
A folder with that key is the arm for those inputs, byte for byte (the pipeline is
deterministic); a changed input is a new key, built once.  The arm's folders of other keys are
removed when a new one is built, once nobody has used them for a week (each use marks its folder's
lock file): two checkouts of different code share the cache without removing each other's.
Building costs what localizing the domain costs (`scripts/benchmarks/bench_localize.py`); arms
nobody asks for cost nothing.  The build is offline (an arm never needs new translation),
validated, and written whole or not at all (write.replace_folder); concurrent builders (threads
of a tau2 run, processes) build it once.  `validate_arm` checks an arm's folder against its source
(`jtau validate`).
"""

from __future__ import annotations

import atexit
import fcntl
import hashlib
import os
import shutil
import tempfile
import threading
from pathlib import Path
from typing import TYPE_CHECKING

from jtau import __version__
from jtau.arms import JTAU_ARM
from jtau.arms import arm as arm_named
from jtau.errors import InputError, ValidationFailed
from jtau.project import DATASET_DIR, Project
from jtau.util.files import replace_folder
from jtau.util.listing import first

if TYPE_CHECKING:
    from jtau.validate import Report

CACHE_VERSION = "jtau-arms-1"
_LOCKS: dict[str, threading.Lock] = {}
_LOCKS_GUARD = threading.Lock()
_TEMPORARY: list[Path] = []


def cache_dir() -> Path:
    """The arms' cache: $JTAU_CACHE/arms, else ~/.cache/jtau/arms (as the YAML cache); with
    JTAU_CACHE=off a temporary folder of this process."""
    setting = os.environ.get("JTAU_CACHE")
    if setting == "off":
        if not _TEMPORARY:
            _TEMPORARY.append(Path(tempfile.mkdtemp(prefix="jtau-arms-")))
            atexit.register(shutil.rmtree, _TEMPORARY[0], True)
        return _TEMPORARY[0]
    base = Path(setting) if setting else Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "jtau"
    return base / "arms"


def arm_folder(domain: str, arm: str, project: Project | None = None, source: Path | None = None,
               out: Path | None = None) -> Path:
    """The folder of `arm` of `domain`: J-tau's committed folder (or `out`/<domain>) for `ja`;
    for another arm its cache folder, built now if it is not there yet."""
    arm_named(arm)  # a ValueError naming the arms
    project = project or Project.find()
    if arm == JTAU_ARM:
        return (out / domain) if out else project.out(domain)
    folder = cache_dir() / domain / f"{arm}-{input_key(domain, arm, project, source)[:16]}"
    if (folder / "manifest.json").is_file():
        _used(folder)
        return folder
    with _lock(str(folder)):
        if not (folder / "manifest.json").is_file():
            build(domain, arm, project, source, folder)
            _remove_unused(folder)
    return folder


def build(domain: str, arm: str, project: Project, source: Path | None, folder: Path):
    """Build `arm` of `domain` with the pipeline (offline) and write it whole into `folder`;
    raise on a validation error (nothing written).  Returns the pipeline's Localization."""
    from jtau.pipeline import Options, localize

    result = localize(domain, project, source, options=Options(offline=True, arm=arm))
    if result.report.errors:
        raise ValidationFailed(f"{domain} arm {arm}: {len(result.report.errors)} validation errors; nothing written",
                          first(result.report.errors))
    replace_folder(folder, result.outputs, warn=result.notes.append)
    return result


def validate_arm(domain: str, arm: str, project: Project, source: Path | None = None, out: Path | None = None
                 ) -> Report:
    """The validation Report (jtau.validate) of `arm` of `domain` against its source, as `jtau validate`
    prints it: the folder `out`/<domain>, else J-tau's committed one (`ja`) or the arm's cache folder,
    built first if needed."""
    from jtau.domain import LocalizedDomain
    from jtau.maps import project_maps
    from jtau.pipeline import domain_glossary, load_repaired
    from jtau.rules import load_rules
    from jtau.validate import validate_domain

    rules = load_rules(domain)
    source_domain, _ = load_repaired(rules, project, source)
    maps = project_maps(project)
    folder = (out / domain) if out else arm_folder(domain, arm, project, source)
    written = LocalizedDomain.read(folder, rules)
    return validate_domain(source_domain, written, maps, rules, domain_glossary(rules, maps, project), arm_named(arm))


def input_key(domain: str, arm: str, project: Project, source: Path | None = None) -> str:
    """The digest of everything an arm's folder is made from (see the module's docstring)."""
    from jtau.rules import load_rules
    from jtau.source.load import read_raw

    rules = load_rules(domain)
    digest = hashlib.sha256(f"{CACHE_VERSION}\0{__version__}\0{code_digest()}\0{domain}\0{arm}\0".encode())
    _, raw = read_raw(rules, source)
    files = {f"source/{name}": data for name, data in raw.items()}
    inputs = [*sorted(project.maps.glob("*.yaml")), project.glossary("ja"), project.glossary("ja", domain),
              *sorted(project.patches(domain).glob("*.yaml")), project.tm / f"{domain}.jsonl"]
    files.update({str(path.relative_to(project.root)): path.read_bytes() for path in inputs if path.is_file()})
    for name in sorted(files):
        digest.update(f"{name}\0{hashlib.sha256(files[name]).hexdigest()}\n".encode())
    return digest.hexdigest()


_CODE: list[str] = []


def code_digest() -> str:
    """A digest of jtau's own files (its code, rules, schemas, runtime texts): a changed jtau
    builds its arms again even under the same version number.  The J-tau an installed wheel
    holds (`_dataset/`) is data, digested with the inputs (`input_key`)."""
    if not _CODE:
        package = Path(__file__).parent
        digest = hashlib.sha256()
        for path in sorted(package.rglob("*")):
            if path.is_file() and path.suffix in {".py", ".yaml", ".json", ".md"} \
                    and path.relative_to(package).parts[0] != DATASET_DIR:
                digest.update(f"{path.relative_to(package)}\0".encode() + hashlib.sha256(path.read_bytes()).digest())
        _CODE.append(digest.hexdigest())
    return _CODE[0]


class _lock:
    """One builder of a folder at a time: a thread lock, and a file lock for other processes."""

    def __init__(self, key: str):
        with _LOCKS_GUARD:
            self.thread_lock = _LOCKS.setdefault(key, threading.Lock())
        self.path = Path(key + ".lock")

    def __enter__(self):
        self.thread_lock.acquire()
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self.file = open(self.path, "w")
            fcntl.flock(self.file, fcntl.LOCK_EX)
        except OSError as exc:
            self.thread_lock.release()
            raise InputError(f"{self.path.parent}: cannot build an arm here: {exc.strerror or exc} "
                             "(set JTAU_CACHE to a writable folder)") from None
        return self

    def __exit__(self, *exc):
        fcntl.flock(self.file, fcntl.LOCK_UN)
        self.file.close()
        self.thread_lock.release()


UNUSED = 7 * 24 * 3600  # seconds after which a folder of other inputs nobody used is removed


def _used(folder: Path) -> None:
    """Mark the folder used now (its lock file's time)."""
    try:
        Path(f"{folder}.lock").touch()
    except OSError:
        pass


def _remove_unused(folder: Path) -> None:
    """The arm's folders built from other inputs (and their lock files) that nobody has used for
    UNUSED seconds; one in use by another checkout or process stays."""
    import time

    prefix = folder.name.rsplit("-", 1)[0] + "-"
    now = time.time()
    for lock in folder.parent.glob(prefix + "*.lock"):
        stem = lock.name.removesuffix(".lock")
        key = stem[len(prefix):]
        if stem == folder.name or len(key) != 16 or not key.isalnum():
            continue
        try:
            if now - lock.stat().st_mtime < UNUSED:
                continue
        except OSError:
            continue
        shutil.rmtree(folder.parent / stem, ignore_errors=True)
        lock.unlink(missing_ok=True)
