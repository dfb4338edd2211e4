"""The two kinds of failure the command line reports, with their exit codes.

`InputError` (exit 2): bad input or usage -- a malformed map, a missing source, an entity
no map covers.  `CheckFailed` (exit 1): the data was read but does not pass validation or
differs from the committed output.  Both carry a message that names the file, the line or
the JSON path at fault, and may name the jtau command that mends it (`run`): the command line
prints it with the user's folder options (cli/common.py `Folders`), so it runs as printed.
"""


class JtauError(Exception):
    exit_code = 2

    def __init__(self, message: str, details: list[str] | None = None, run: tuple[str, ...] = (),
                 run_label: str = "run"):
        super().__init__(message)
        self.message = message
        self.details = details or []
        self.run = tuple(run)  # the jtau command's words ("localize", "airline"), without options
        self.run_label = run_label  # what the message says before it: "...; run: jtau localize airline"

    def __reduce__(self):  # details survive a worker process (localize all --jobs)
        return self.__class__, (self.message, self.details, self.run, self.run_label)


class InputError(JtauError):
    exit_code = 2


class CheckFailed(JtauError):
    exit_code = 1
