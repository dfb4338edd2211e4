"""Where jtau keeps its inputs and outputs: a checkout, or the J-tau installed with the package.

The project root is, in order:

1. `$JTAU_ROOT`;
2. the nearest folder at or above the current directory that has `entity_maps/` (a checkout);
3. the checkout this package was installed from (an editable install);
4. the J-tau installed inside the package (`jtau/_dataset/`, laid out like a checkout:
   `entity_maps/`, `glossaries/`, `task_patches/`, `data/domains/`, `data/tm/`), read-only.

Maps, glossaries and patches are read from it; output goes to `<root>/data/domains/<domain>`
unless `--out` says otherwise, and the translation memory lives in `<root>/data/tm/` unless
`--tm` says otherwise.  The installed J-tau runs and verifies (`jtau tau2`, `jtau experiment`,
`jtau verify`, the arms, built into the user's cache); a command that would write into it
refuses (`refuse_installed`): the pipeline needs a checkout.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from jtau.errors import InputError

MAPS_DIR = "entity_maps"
DATASET_DIR = "_dataset"  # the installed J-tau, inside the package (written by `jtau release`)


def project_root() -> Path:
    if os.environ.get("JTAU_ROOT"):
        return Path(os.environ["JTAU_ROOT"])
    here = Path.cwd().resolve()
    for folder in (here, *here.parents):
        if (folder / MAPS_DIR).is_dir():
            return folder
    checkout = editable_checkout()
    if (checkout / MAPS_DIR).is_dir():
        return checkout
    installed = installed_root()
    if (installed / MAPS_DIR).is_dir():
        return installed
    raise InputError(
        "no jtau project found: run jtau inside a jtau checkout (a folder with entity_maps/), set JTAU_ROOT, "
        "or install the jtau wheel of a release (it holds J-tau)"
    )


def editable_checkout() -> Path:
    """The checkout an editable install runs from (src/jtau/ is two levels below it)."""
    return Path(__file__).resolve().parents[2]


def installed_root() -> Path:
    """Where the wheel puts the J-tau it holds (it may be absent: a checkout's package has none)."""
    return Path(__file__).resolve().parent / DATASET_DIR


def refuse_installed(path: Path, what: str, instead: str = "") -> None:
    """One line, exit 2, when `path` (what a command would write) lies inside the installed,
    read-only J-tau: `what` needs a checkout (or the option `instead` that names another place)."""
    if _inside(path, installed_root()):
        raise InputError(f"{what} writes into a jtau checkout, and this jtau runs on the J-tau installed with "
                         f"the package (read-only): run it in a checkout{f' (or give {instead})' if instead else ''}")


def _inside(path: Path, folder: Path) -> bool:
    try:
        Path(os.path.abspath(path)).resolve().relative_to(folder)
    except ValueError:
        return False
    return True


@dataclass(frozen=True)
class Project:
    """A jtau project: its root and where each input and output lives under it.  The library's
    loaders take one (`Project.find()` for the one jtau runs on)."""

    root: Path

    @classmethod
    def find(cls) -> Project:
        return cls(project_root())

    @property
    def maps(self) -> Path:
        """The entity maps' folder."""
        return self.root / MAPS_DIR

    @property
    def tm(self) -> Path:
        """The translation memory's folder (one `<domain>.jsonl` a domain)."""
        return self.root / "data" / "tm"

    @property
    def installed(self) -> bool:
        """Whether this is the read-only J-tau installed with the package."""
        return _inside(self.root, installed_root())

    def out(self, domain: str) -> Path:
        """A domain's J-tau folder."""
        return self.root / "data" / "domains" / domain

    def glossary(self, locale: str, domain: str | None = None) -> Path:
        """`glossaries/ja.yaml` for locale ja-JP; a domain's own terms: `glossaries/ja.<domain>.yaml`."""
        language = locale.split("-")[0]
        return self.root / "glossaries" / (f"{language}.{domain}.yaml" if domain else f"{language}.yaml")

    def patches(self, domain: str) -> Path:
        """A domain's task repairs (`task_patches/<domain>/*.yaml`)."""
        return self.root / "task_patches" / domain
