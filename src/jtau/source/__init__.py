"""Stage 1: find the tau2 source data of a domain and load it.

- discover.py: where the source data is (`--source`, `JTAU_SOURCE`, `TAU2_DATA_DIR`, the installed tau2)
- load.py: one domain's source files: parsed data, raw bytes and their digests; both task formats
- formats.py: tau2's data formats by file suffix (JSON, TOML), errors naming the file and line or JSON path
- schema.py: JSON Schemas of tau2's data model, shipped in jtau/domains/, so validation needs no tau2
"""

from jtau.source.discover import find_domain_dir
from jtau.source.load import SourceDomain, check_sources, has_source, load_domain

__all__ = ["check_sources", "find_domain_dir", "has_source", "SourceDomain", "load_domain"]
