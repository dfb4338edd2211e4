"""tau2's tool error messages in Japanese (`tool_errors.ja.yaml`).

tau2 answers a tool call that raised with the tool message "Error: <message>", in English
whatever the domain's language.  J-tau agents read "エラー: <the Japanese message>"; the
values tau2 wrote into the message (ids, dates, amounts) are kept.  A message the table does
not know stays as tau2 wrote it.  Only the text changes: the call is still an error, so
grading (which compares outcomes and databases) is the same.
"""

from __future__ import annotations

import functools
import re
from importlib import resources

import yaml

ENGLISH_PREFIX = "Error: "
FIELD = re.compile(r"\{(\w+)\}")


@functools.cache
def _table() -> tuple[str, list[tuple[re.Pattern, str]]]:
    data = yaml.safe_load((resources.files(__package__) / "tool_errors.ja.yaml").read_text(encoding="utf-8"))
    rules = []  # most literal text first: "Customer with ID {id} not found" before "Customer {id} not found"
    for english, japanese in sorted(data["messages"].items(), key=lambda kv: -len(FIELD.sub("", kv[0]))):
        pattern = "".join(f"(?P<{part}>.+?)" if index % 2 else re.escape(part)
                          for index, part in enumerate(FIELD.split(english)))
        rules.append((re.compile(pattern, re.DOTALL), japanese))
    return data["prefix"], rules


def japanese_error(content: str) -> str:
    """'Error: User u_1 not found' -> 'エラー: ユーザー u_1 が見つかりません'."""
    if not content.startswith(ENGLISH_PREFIX):
        return content
    prefix, rules = _table()
    message = content[len(ENGLISH_PREFIX):]
    for pattern, japanese in rules:
        if match := pattern.fullmatch(message):
            return prefix + FIELD.sub(lambda m: match[m[1]], japanese)
    return content
