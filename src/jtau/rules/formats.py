"""Values that are short formatted texts with entities inside, such as telecom's bill line
items ("Basic Plan - Line 555-123-2001", "Data refueling: 2.0 GB at $2.0/GB").  The domain
rules list each format's English and Japanese form; `{name:kind}` fields are converted
with that kind, `{name}` fields are kept.  The runtime overlay writes the same Japanese
forms, so text a tool generates is the localization of what tau2's tool writes.

An arm with English text (jtau.arms) writes a format's English frame around J-tau's values:
`frame("en")` drops the kinds, and the `$` before an amount, which the amount's own notation
then carries (`$2.0` in the source's locale, `¥200` in J-tau's)."""

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

    def frame(self, language: str = "ja") -> str:
        """The text around the fields in `language`, as str.format takes it."""
        if language == "ja":
            return self.ja
        return FIELD.sub(lambda m: "{" + m[1] + "}", self.en.replace("${", "{"))

    def render(self, language: str = "ja", **values) -> str:
        return self.frame(language).format(**values)


def convert(formats: list[Format], value: str, convert_field, language: str = "ja") -> str | None:
    """The form of `value` in `language` (Japanese: J-tau's) by the first format it matches, or None."""
    for fmt in formats:
        match = fmt.regex.fullmatch(value)
        if match:
            return fmt.render(language, **{name: convert_field(kind, match[name]) if kind else match[name]
                                           for name, kind in fmt.kinds.items()})
    return None
