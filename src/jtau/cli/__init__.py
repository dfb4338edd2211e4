"""The `jtau` command line (docs/DESIGN.md section 5), one module per command group.

Exit codes: 0 ok, 1 validation or check failure, 2 usage or input error, 130 interrupted.
"""

import os
import sys

from jtau.cli import banking, experiment, localize, maps, retention, runtime, tm  # noqa: F401  (they register the commands)
from jtau.cli.common import app

__all__ = ["app", "main"]


def main() -> None:
    """The console script: `jtau ... | head` ends quietly when the reader stops reading."""
    try:
        app()
    except BrokenPipeError:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())  # no second error when Python flushes stdout at exit
        sys.exit(0)
