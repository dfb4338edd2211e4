"""One problem validation found: which check found it, how bad it is, where, and what.

Printed (`str`) as the place and the message, `db.json: users.u1.name.first_name: source term 'John'
left`; a text's line follows its file or field (`policy.md:12: ...`, `doc.json: content:3: ...`).
"""

from __future__ import annotations

from dataclasses import dataclass

ERROR, WARNING = "error", "warning"  # an error fails validation; a warning is review material


@dataclass(frozen=True)
class Finding:
    check: str               # the check that found it: schema, money, identity, references, ... (all_checks.py)
    message: str             # what is wrong, as printed after the place
    file: str = ""           # the domain folder's file (db.json, tasks.json, policy.md, a document); "": the
                             # place is in the message (a check below validate wrote it there)
    path: str = ""           # where in the file: a JSON path (users.u1.name, [3].user_scenario), a document's
                             # field (content), a kind of value (zip: distinct values); "": the whole file
    line: int | None = None  # the line of a text (a policy's, a document field's)
    severity: str = ERROR    # ERROR or WARNING

    def __str__(self) -> str:
        place = self.file + (f": {self.path}" if self.path else "") + (f":{self.line}" if self.line is not None else "")
        return f"{place}: {self.message}" if place else self.message


def placed(check: str, texts: list[str], file: str) -> list[Finding]:
    """Findings of a check below validate that writes its findings as text (the schema check, the
    rules' identities): the text's leading `file: ` is the finding's file."""
    return [Finding(check, text[len(file) + 2:], file) if text.startswith(f"{file}: ") else Finding(check, text)
            for text in texts]
