"""The failures the command line reports, by cause, with their exit codes.

    JtauError
    ├── InputError (exit 2): bad input or usage -- a malformed file, a missing folder, a bad option
    │   ├── SourceError: tau2's source data is not found, or is not the domain's (source/)
    │   ├── MapsError: the entity maps are missing or inconsistent (maps/)
    │   ├── EndpointError: an endpoint is misnamed, unreachable, failing or refusing (util/endpoint.py's users)
    │   └── UnknownName: no such domain or arm (the message names those there are)
    └── CheckFailed (exit 1): the data was read but does not pass
        ├── ValidationFailed: a localization breaks an invariant (validate/); nothing written
        └── OutOfDate: what is on disk is not what the inputs give now (--check, review, release)

Every error carries a message that names the file, the line or the JSON path at fault, and may
name the jtau command that mends it (`run`): the command line prints it with the user's folder
options (cli/common.py `Folders`), so it runs as printed.  A cause's class changes neither the
message nor the exit code; where a message names an error's class (tau2's failures, an
experiment's records) it names the base (`error_name`).
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


class SourceError(InputError):
    """tau2's source data is not found, or is not the domain's."""


class MapsError(InputError):
    """The entity maps are missing or inconsistent."""


class EndpointError(InputError):
    """An endpoint is misnamed, unreachable, failing or refusing."""


class UnknownName(InputError):
    """No such domain or arm."""


class CheckFailed(JtauError):
    exit_code = 1


class ValidationFailed(CheckFailed):
    """A localization breaks an invariant; nothing was written."""


class OutOfDate(CheckFailed):
    """What is on disk is not what the inputs give now."""


def error_name(exc: BaseException) -> str:
    """The class name a message gives `exc`: a jtau error's base (InputError, CheckFailed), whatever
    its cause; any other exception's own."""
    for base in (InputError, CheckFailed):
        if isinstance(exc, base):
            return base.__name__
    return type(exc).__name__
