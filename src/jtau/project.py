"""Where a jtau checkout keeps its inputs and outputs.

The project root is `JTAU_ROOT` if set, else the nearest folder at or above the current
directory that has `entity_maps/`, else the checkout this package was installed from
(an editable install).  Maps, glossaries and patches are read from it; output goes to
`<root>/data/domains/<domain>` unless `--out` says otherwise, and the translation memory
lives in `<root>/data/tm/` unless `--tm` says otherwise.
"""

from __future__ import annotations

import os
from pathlib import Path

from jtau.errors import InputError

MAPS_DIR = "entity_maps"


def project_root() -> Path:
    if os.environ.get("JTAU_ROOT"):
        return Path(os.environ["JTAU_ROOT"])
    here = Path.cwd().resolve()
    for folder in (here, *here.parents):
        if (folder / MAPS_DIR).is_dir():
            return folder
    checkout = Path(__file__).resolve().parents[2]
    if (checkout / MAPS_DIR).is_dir():
        return checkout
    raise InputError(
        "no jtau project found: run jtau inside a jtau checkout (a folder with entity_maps/) "
        "or set JTAU_ROOT"
    )


def maps_dir(root: Path) -> Path:
    return root / MAPS_DIR


def default_out(root: Path, domain: str) -> Path:
    return root / "data" / "domains" / domain


def tm_dir(root: Path) -> Path:
    return root / "data" / "tm"


def glossary_path(root: Path, locale: str, domain: str | None = None) -> Path:
    """`glossaries/ja.yaml` for locale ja-JP; a domain's own terms: `glossaries/ja.<domain>.yaml`."""
    language = locale.split("-")[0]
    return root / "glossaries" / (f"{language}.{domain}.yaml" if domain else f"{language}.yaml")


def patches_dir(root: Path, domain: str) -> Path:
    return root / "task_patches" / domain
