"""`jtau release`: a versioned J-tau release built from a checkout, byte-deterministic for a
given commit, uploaded nowhere.

    DIR/jtau-<version>-py3-none-any.whl   jtau and the J-tau it made (jtau/_dataset/, laid out like
                                          a checkout: entity_maps/, glossaries/, task_patches/,
                                          data/domains/, data/tm/): what the installed mode runs,
                                          verifies and builds the arms from (jtau.project)
    DIR/README.md                         the dataset card (YAML metadata, one configuration a domain)
    DIR/data/<domain>/                    each domain's files, the same bytes as in the wheel
    DIR/release.json                      name, version, commit, the wheel's digest, the dataset digests
    DIR/LICENSE, DIR/LICENSE-tau2-bench   jtau's licence, and tau2-bench's (J-tau is derived from its data)
    DIR/requirements/                     how tau2 is installed beside it
    DIR/SHA256SUMS                        every other file (`sha256sum -c SHA256SUMS`)

Files with the same bytes in a domain folder are stored once (jtau.dataset_files).  Nothing in
it depends on when or where it is built: no timestamps, files in name order; the commit is
recorded (with `-modified` when the files released differ from it).
"""

from __future__ import annotations

import hashlib
import json
import subprocess
import tomllib
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

from jtau import __version__, dataset_files
from jtau.domains import listed as listed_domains
from jtau.errors import InputError, OutOfDate
from jtau.project import DATASET_DIR, Project, refuse_installed
from jtau.release.card import DomainFacts, dataset_card
from jtau.release.wheel import build_wheel
from jtau.runtime.domains import runtime_domain
from jtau.util.files import replace_folder
from jtau.util.listing import first

PACKAGE = "jtau"
# what the installed mode reads besides the domains, relative to the project root
INPUT_FOLDERS = ("entity_maps", "glossaries", "task_patches")
REQUIREMENTS = ("tau2.txt", "tau2-run.txt", "tau2-bench-1.0.1.txt")
RELEASED = ("src", *INPUT_FOLDERS, "data/domains", "data/tm", "pyproject.toml", "README.md", "LICENSE",
            "LICENSE-tau2-bench", "requirements")


@dataclass
class Domain:
    """One J-tau domain as released: its files (stored once) and manifest."""
    name: str
    files: dict[str, bytes]      # name in its folder -> bytes (manifest.json included)
    stored_once: dict[str, str]  # a name left out -> the name that holds its bytes

    @property
    def digest(self) -> str:
        return hashlib.sha256(self.files[dataset_files.MANIFEST]).hexdigest()

    @property
    def manifest(self) -> dict:
        return json.loads(self.files[dataset_files.MANIFEST])


def release_files(project: Project) -> dict[str, bytes]:
    """Every file of the release of the checkout `project` (path in DIR -> bytes)."""
    root = project.root
    config = pyproject(root)
    domains = [domain_files(project, name, config["version"]) for name in listed_domains()]
    dataset = dataset_of(project, domains)
    package = package_files(root)
    readme = _read(root / config.get("readme", "README.md")).decode("utf-8")
    licenses = {Path(name).name: _read(root / name) for name in config.get("license-files") or []}
    wheel_file, wheel = build_wheel(config, {**package, **{f"{PACKAGE}/{DATASET_DIR}/{path}": data
                                                              for path, data in dataset.items()}},
                                    readme, licenses)
    commit = git_commit(root)
    files: dict[str, bytes] = {wheel_file: wheel, **licenses}
    for domain in domains:
        files.update({f"data/{domain.name}/{name}": data for name, data in domain.files.items()})
    for name in REQUIREMENTS:
        files[f"requirements/{name}"] = _read(root / "requirements" / name)
    facts = [facts_of(project, domain) for domain in domains]
    files["README.md"] = dataset_card(config["version"], commit, wheel_file, facts).encode("utf-8")
    files["release.json"] = (json.dumps({
        "name": "J-tau", "version": config["version"], "commit": commit,
        "wheel": {"file": wheel_file, "sha256": hashlib.sha256(wheel).hexdigest(), "bytes": len(wheel)},
        "datasets": {fact.tau2_name: fact.digest for fact in facts},
        "domains": {d.name: {"folder": f"data/{d.name}", "manifest_sha256": d.digest, "stored_once": d.stored_once}
                    for d in domains},
    }, ensure_ascii=False, indent=2) + "\n").encode("utf-8")
    files = dict(sorted(files.items()))
    files["SHA256SUMS"] = "".join(f"{hashlib.sha256(data).hexdigest()}  {path}\n"
                                  for path, data in files.items()).encode()
    return files


def pyproject(root: Path) -> dict:
    """[project] of the checkout's pyproject.toml; its version must be this jtau's."""
    path = root / "pyproject.toml"
    if not path.is_file() or not (root / "src" / PACKAGE).is_dir():
        raise InputError(f"{root}: jtau release builds from a jtau checkout (pyproject.toml and src/jtau/), "
                         "not from an installed jtau")
    project = tomllib.loads(path.read_text(encoding="utf-8"))["project"]
    if project["version"] != __version__:
        raise InputError(f"{path}: version {project['version']}, but this jtau is {__version__}: run the "
                         "checkout's own jtau (pip install -e .)")
    return project


def domain_files(project: Project, name: str, version: str) -> Domain:
    """A domain's committed folder, checked against its manifest (every output there, with the
    recorded digest, made by this version), with identical files stored once."""
    folder = project.out(name)
    recorded = dataset_files.outputs(folder)
    if not recorded:
        raise InputError(f"{folder}: no localized {name} domain here", run=("localize", name))
    made_by = json.loads((folder / dataset_files.MANIFEST).read_bytes()).get("jtau_version")
    if made_by != version:
        raise OutOfDate(f"{folder}: made by jtau {made_by}, not {version}", run=("localize", "all", "--offline"))
    kept = dataset_files.stored_once(recorded)
    files, problems = {}, []
    for file in kept:
        path = folder / file
        data = path.read_bytes() if path.is_file() else None
        if data is None or hashlib.sha256(data).hexdigest() != recorded[file]:
            problems.append(f"{path}: {'missing' if data is None else 'differs from its manifest'}")
        else:
            files[file] = data
    if problems:
        raise OutOfDate(f"{folder}: not what its manifest records ({len(problems)} files)", first(problems, 5),
                          run=("localize", name))
    files[dataset_files.MANIFEST] = (folder / dataset_files.MANIFEST).read_bytes()
    by_digest = {digest: file for file, digest in kept.items()}
    left_out = {file: by_digest[digest] for file, digest in recorded.items() if file not in kept}
    return Domain(name, dict(sorted(files.items())), left_out)


def dataset_of(project: Project, domains: list[Domain]) -> dict[str, bytes]:
    """What the wheel's `_dataset/` holds, laid out like a checkout: the inputs the installed mode
    reads (maps, glossaries, task repairs, each domain's memory) and the domains."""
    root, out = project.root, {}
    for folder in INPUT_FOLDERS:
        for path in sorted((root / folder).rglob("*")):
            if path.is_file() and not _hidden(path.relative_to(root)):
                out[path.relative_to(root).as_posix()] = path.read_bytes()
    for domain in domains:
        memory = project.tm / f"{domain.name}.jsonl"
        if memory.is_file():
            out[memory.relative_to(root).as_posix()] = memory.read_bytes()
        folder = project.out(domain.name).relative_to(root).as_posix()
        out.update({f"{folder}/{name}": data for name, data in domain.files.items()})
    return dict(sorted(out.items()))


def package_files(root: Path) -> dict[str, bytes]:
    """The package as setuptools would ship it: every module, and the package data
    pyproject.toml names ([tool.setuptools.package-data])."""
    base = root / "src" / PACKAGE
    config = tomllib.loads((root / "pyproject.toml").read_text(encoding="utf-8"))
    patterns = config.get("tool", {}).get("setuptools", {}).get("package-data", {}).get(PACKAGE, [])
    paths = {p for p in base.rglob("*.py") if "__pycache__" not in p.parts}
    for pattern in patterns:
        paths.update(base.glob(pattern))
    paths = {p for p in paths if p.is_file() and not _hidden(p.relative_to(base))
             and p.relative_to(base).parts[0] != DATASET_DIR}
    return {f"{PACKAGE}/{p.relative_to(base).as_posix()}": p.read_bytes() for p in sorted(paths)}


def facts_of(project: Project, domain: Domain) -> DomainFacts:
    """What the card says of a domain, counted from its files."""
    manifest = domain.manifest
    tasks = json.loads(domain.files["tasks.json"])
    memory: Counter = Counter()
    path = project.tm / f"{domain.name}.jsonl"
    if path.is_file():
        memory.update(json.loads(line)["status"] for line in path.read_text(encoding="utf-8").splitlines() if line)
    repairs = len(list(project.patches(domain.name).glob("*.yaml")))
    return DomainFacts(domain.name, runtime_domain(domain.name).name, f"data/{domain.name}", domain.digest, len(tasks),
                       len(domain.files), domain.stored_once, int(manifest["exchange_rate"]["rate"]), repairs,
                       dict(memory))


def git_commit(root: Path) -> str | None:
    """The checkout's commit (`-modified` when a released file differs from it), or None outside git."""
    try:
        head = subprocess.run(["git", "rev-parse", "HEAD"], cwd=root, capture_output=True, text=True, check=True)
        status = subprocess.run(["git", "status", "--porcelain", "--", *RELEASED], cwd=root, capture_output=True,
                                text=True, check=True)
    except (OSError, subprocess.CalledProcessError):
        return None
    return head.stdout.strip() + ("-modified" if status.stdout.strip() else "")


def write_release(out: Path, files: dict[str, bytes]) -> None:
    """Write the release as the whole content of `out` (all or nothing).  A folder that holds
    anything but an earlier release is refused: its files would be removed."""

    refuse_installed(out, "jtau release")
    if out.exists() and (not out.is_dir() or (any(out.iterdir()) and not (out / "release.json").is_file())):
        raise InputError(f"{out}: not empty and no jtau release: give a new folder (its files would be replaced)")
    replace_folder(out, files)


def _hidden(relative: Path) -> bool:
    return any(part.startswith(".") or part == "__pycache__" for part in relative.parts) or relative.suffix == ".pyc"


def _read(path: Path) -> bytes:
    try:
        return path.read_bytes()
    except OSError as exc:
        raise InputError(f"{path}: cannot read: {exc.strerror or exc}") from None
