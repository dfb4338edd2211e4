"""Stage 5: validation.  Every check compares the localized domain with its source through
the rules and maps, and returns errors that name the file and JSON path; `validate_domain`
runs them all and also returns the numbers it measured (for the run summary)."""

from jtau.validate.report import Report, validate_domain

__all__ = ["Report", "validate_domain"]
