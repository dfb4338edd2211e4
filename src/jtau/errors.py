"""The two kinds of failure the command line reports, with their exit codes.

`InputError` (exit 2): bad input or usage -- a malformed map, a missing source, an entity
no map covers.  `CheckFailed` (exit 1): the data was read but does not pass validation or
differs from the committed output.  Both carry a message that names the file, the line or
the JSON path at fault.
"""


class JtauError(Exception):
    exit_code = 2

    def __init__(self, message: str, details: list[str] | None = None):
        super().__init__(message)
        self.message = message
        self.details = details or []

    def __reduce__(self):  # details survive a worker process (localize all --jobs)
        return self.__class__, (self.message, self.details)


class InputError(JtauError):
    exit_code = 2


class CheckFailed(JtauError):
    exit_code = 1
