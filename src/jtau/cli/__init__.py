"""The `jtau` command line (DESIGN.md section 5), one module per command group.

Exit codes: 0 ok, 1 validation or check failure, 2 usage or input error.
"""

from jtau.cli import localize, maps, retention, runtime, tm  # noqa: F401  (they register the commands)
from jtau.cli.common import app

__all__ = ["app"]
