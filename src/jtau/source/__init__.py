"""Stage 1: find the tau2 source data of a domain and load it."""

from jtau.source.discover import find_domain_dir
from jtau.source.load import SourceDomain, check_sources, has_source, load_domain

__all__ = ["check_sources", "find_domain_dir", "has_source", "SourceDomain", "load_domain"]
