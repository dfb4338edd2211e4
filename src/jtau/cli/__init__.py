"""The `jtau` command line (docs/DESIGN.md section 5), one module per command group.

Exit codes: 0 ok, 1 validation or check failure, 2 usage or input error, 130 interrupted,
141 the reader of the output stopped reading (`jtau ... | head`).

- common.py: what every command shares: the app, the consoles, common options, error exits
- localize.py: `jtau localize`, `jtau validate`, `jtau review`: make, check and show a J-tau domain
- maps.py: `jtau maps check | propose`: check the entity maps, propose entries for unmapped entities
- tm.py: `jtau tm export | import | carry`: segments to and from translators; entries carried to new templates
- runtime.py: `jtau verify` and `jtau tau2`: J-tau inside tau2 (needs the tau2 package)
- experiment.py: `jtau experiment run | report | calibrate`: English and J-tau through tau2, side by side
- retention.py: `jtau retention import | analyze`: rollouts into traces, and their retention analysis
- study_output.py: a retention study shown and written (`retention analyze`, `experiment report`)
- banking.py: `jtau banking embed`: the dense retrieval's embeddings of banking_knowledge's documents
- release.py: `jtau release`: the wheel and the dataset of a J-tau release, built from the checkout
"""

from jtau.cli import banking, experiment, localize, maps, release, retention, runtime, tm  # noqa: F401  (they register the commands)
from jtau.cli.common import app, quiet_exit_on_closed_pipe

__all__ = ["app", "main"]


# options that take several values after one flag, as `tau2 run` takes them (`--task-ids 0 1 2`)
LIST_OPTIONS = frozenset({"--task-ids"})


def tau2_lists(args: list[str]) -> list[str]:
    """`jtau experiment ... --task-ids 0 1 2` as typer reads it (`--task-ids 0 --task-ids 1 ...`):
    the values after the flag up to the next option (`jtau tau2` passes its arguments to tau2 as
    they are)."""
    if not args or args[0] != "experiment":
        return args
    out, flag = [], None
    for arg in args:
        if arg in LIST_OPTIONS:
            flag = arg
            continue
        if flag and not arg.startswith("-"):
            out += [flag, arg]
            continue
        if flag and out[-2:-1] != [flag]:  # the flag with no value: typer says so
            out.append(flag)
        flag = None
        out.append(arg)
    if flag and out[-2:-1] != [flag]:
        out.append(flag)
    return out


def main() -> None:
    """The console script: `jtau ... | head` ends quietly when the reader stops reading."""
    import sys

    try:
        app(args=tau2_lists(sys.argv[1:]))
    except BrokenPipeError:  # written outside rich (help, click's messages)
        quiet_exit_on_closed_pipe()
