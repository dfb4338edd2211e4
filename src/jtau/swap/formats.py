"""Values that are short formatted texts with entities inside, such as telecom's bill line
items ("Basic Plan - Line 555-123-2001", "Data refueling: 2.0 GB at $2.0/GB").  The domain
rules list each format's English and Japanese form; `{name:kind}` fields are converted
with that kind, `{name}` fields are kept.  The runtime overlay writes the same Japanese
forms, so text a tool generates is the localization of what tau2's tool writes."""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cached_property

FIELD = re.compile(r"\{(\w+)(?::(\w+))?\}")


@dataclass(frozen=True)
class Format:
    en: str
    ja: str

    @cached_property
    def regex(self) -> re.Pattern:
        parts, last = [], 0
        for match in FIELD.finditer(self.en):
            parts.append(re.escape(self.en[last:match.start()]))
            parts.append(f"(?P<{match[1]}>.+?)")
            last = match.end()
        parts.append(re.escape(self.en[last:]))
        return re.compile("".join(parts))

    @cached_property
    def kinds(self) -> dict[str, str | None]:
        return {m[1]: m[2] for m in FIELD.finditer(self.en)}

    def render(self, **values) -> str:
        return self.ja.format(**values)


def convert(formats: list[Format], value: str, convert_field) -> str | None:
    """The Japanese form of `value` by the first format it matches, or None."""
    for fmt in formats:
        match = fmt.regex.fullmatch(value)
        if match:
            return fmt.render(**{name: convert_field(kind, match[name]) if kind else match[name]
                                 for name, kind in fmt.kinds.items()})
    return None
