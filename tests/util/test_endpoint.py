"""jtau.util.endpoint: the waits between tries, Retry-After, and what of an endpoint may be shown."""

from __future__ import annotations

from jtau.util.endpoint import Endpoint, Settings, Transient, masked, public_url, retry_after, transient_status


def test_a_wait_is_the_servers_retry_after_else_doubled_backoff_and_capped():
    settings = Settings(backoff=0.5, max_wait=3.0)
    assert [settings.wait(n, Transient("HTTP 500")) for n in range(4)] == [0.5, 1.0, 2.0, 3.0]
    assert settings.wait(0, Transient("HTTP 429", retry_after=2.5)) == 2.5
    assert settings.wait(0, Transient("HTTP 429", retry_after=60)) == 3.0


def test_retry_after_reads_seconds_milliseconds_and_nothing_else():
    assert retry_after({"retry-after": "1.5"}) == 1.5
    assert retry_after({"retry-after-ms": "250", "retry-after": "9"}) == 0.25
    assert retry_after({"retry-after": "soon"}) is None and retry_after(None) is None and retry_after({}) is None


def test_transient_statuses():
    assert [s for s in (400, 401, 404, 408, 409, 429, 500, 503) if transient_status(s)] == [408, 409, 429, 500, 503]


def test_the_key_is_never_shown():
    endpoint = Endpoint("m", "https://user:pw@example.test:8443/v1?key=abc", "sk-secret")
    assert "sk-secret" not in repr(endpoint)
    assert public_url(endpoint.base_url) == "https://example.test:8443/v1"
    assert masked("bad key sk-secret", endpoint.api_key) == "bad key ***" and masked("x", "") == "x"
