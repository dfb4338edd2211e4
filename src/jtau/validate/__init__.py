"""Stage 5: validation.  Every check compares the localized domain with its source through
the rules and maps, and returns findings that name the check, the file and JSON path;
`validate_domain` runs them all and also returns the numbers it measured (for the run summary).

- finding.py: `Finding`: one problem (check, severity, file, JSON path or line, message), printed as one line
- all_checks.py: `validate_domain`: every check that applies to the arm, errors and numbers collected
- money.py: each amount exactly rate x its source amount, the source's arithmetic identities kept
- integrity.py: referential integrity and one-to-one-ness: what the tools compare still matches
- leaks.py: no source name, US place, street, airport code or dollar amount left
- language.py: language QA of the free text: Japanese, no placeholder left, Latin letters only where allowed
- locale.py: one locale per arm: no currency, date format, zone, place or merchant of the other locale
- hometowns.py: where a task's text says its customer lives is where the db says, in every arm
- text_money.py: the amounts of a task's text are the source's, in the arm's money
- tool_output.py: a tool's answer states the source's facts in the arm's notation and language (`jtau verify`)
"""

from jtau.validate.all_checks import Report, validate_domain
from jtau.validate.finding import Finding

__all__ = ["Finding", "Report", "validate_domain"]
