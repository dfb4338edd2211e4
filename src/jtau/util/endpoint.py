"""An OpenAI-compatible HTTP endpoint as the translation client and the embeddings client reach it:
where it is, how long to wait and how often to try, which failures are worth another attempt, and
how its URL and key may be shown (the key never is).

A failure worth another attempt (`Transient`: 408, 409, 429, 5xx, a timeout, a dropped connection,
a malformed body) waits the server's Retry-After (seconds, an HTTP date, or retry-after-ms), else
`backoff` x 2^attempt, at most `max_wait` (`Settings.wait`).
"""

from __future__ import annotations

import email.utils
import time
from dataclasses import dataclass, field
from urllib.parse import urlsplit, urlunsplit


@dataclass(frozen=True)
class Endpoint:
    model: str
    base_url: str | None = None  # None: the OpenAI API
    api_key: str = field(default="", repr=False)


@dataclass(frozen=True)
class Settings:
    timeout: float = 60.0   # seconds a request may take
    attempts: int = 4       # tries of a request
    backoff: float = 0.5    # seconds before the second try, doubled before each next
    max_wait: float = 30.0  # the longest wait between tries, whatever the server asks

    def wait(self, attempt: int, failure: Transient) -> float:
        """Seconds to wait after failed try number `attempt` (from 0)."""
        wait = failure.retry_after if failure.retry_after is not None else self.backoff * 2 ** attempt
        return min(wait, self.max_wait)


class Transient(Exception):
    """A failure worth another attempt; `unreachable`: no connection at all."""

    def __init__(self, reason: str, retry_after: float | None = None, unreachable: bool = False):
        super().__init__(reason)
        self.retry_after, self.unreachable = retry_after, unreachable


def transient_status(status: int) -> bool:
    """An HTTP status worth another attempt (timeout, conflict, rate limit, server error)."""
    return status in (408, 409, 429) or status >= 500


def retry_after(headers) -> float | None:
    """Seconds from Retry-After (seconds or an HTTP date) or retry-after-ms; None without one."""
    if headers is None:
        return None
    if headers.get("retry-after-ms"):
        try:
            return float(headers["retry-after-ms"]) / 1000
        except ValueError:
            pass
    value = headers.get("retry-after")
    if not value:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        try:
            return max(0.0, email.utils.parsedate_to_datetime(value).timestamp() - time.time())
        except (TypeError, ValueError):
            return None


def public_url(url: str | None) -> str:
    """`url` without user, password, query or fragment: what may be printed and stored."""
    try:
        parts = urlsplit(url or "")
    except ValueError:
        return "<unparsable URL>"
    host = parts.hostname or ""
    if parts.port:
        host = f"{host}:{parts.port}"
    return urlunsplit((parts.scheme, host, parts.path, "", ""))


def masked(text: str, key: str) -> str:
    """`text` (a server's error message, which may quote the request) with the key as ***."""
    return text.replace(key, "***") if key else text
