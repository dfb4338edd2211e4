"""tau2's tool error messages in Japanese (`tool_errors.ja.yaml`).

tau2 answers a tool call that raised with the tool message "Error: <message>", in English
whatever the domain's language.  J-tau agents read "エラー：<the Japanese message>"; the
values tau2 wrote into the message (ids, dates, amounts) are kept.  A message the table does
not know stays as tau2 wrote it.  Only the text changes: the call is still an error, so
grading (which compares outcomes and databases) is the same.
"""

from __future__ import annotations

from jtau.runtime.messages import table

ENGLISH_PREFIX = "Error: "


def japanese_error(content: str) -> str:
    """'Error: User u_1 not found' -> 'エラー：ユーザーu_1が見つかりません'."""
    if not content.startswith(ENGLISH_PREFIX):
        return content
    errors = table("tool_errors")
    japanese = errors.translate(content[len(ENGLISH_PREFIX):])
    return content if japanese is None else errors.prefix + japanese
