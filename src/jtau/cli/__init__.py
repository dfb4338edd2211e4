"""The `jtau` command line (docs/DESIGN.md section 5), one module per command group.

Exit codes: 0 ok, 1 validation or check failure, 2 usage or input error, 130 interrupted,
141 the reader of the output stopped reading (`jtau ... | head`).
"""

from jtau.cli import banking, experiment, localize, maps, release, retention, runtime, tm  # noqa: F401  (they register the commands)
from jtau.cli.common import app, quiet_exit_on_closed_pipe

__all__ = ["app", "main"]


def main() -> None:
    """The console script: `jtau ... | head` ends quietly when the reader stops reading."""
    try:
        app()
    except BrokenPipeError:  # written outside rich (help, click's messages)
        quiet_exit_on_closed_pipe()
