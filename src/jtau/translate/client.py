"""Machine translation through any OpenAI-compatible chat-completions endpoint.

Several segments go in one request and come back as one JSON object; requests run on a
bounded thread pool; transient failures (429, 5xx, timeouts, connection errors, malformed
bodies) are retried with exponential backoff that honours Retry-After (util/endpoint.py); every answer is
checked (`check.problems`) and a segment whose answer fails is asked again, then reported.
Settings are deterministic (temperature 0, fixed seed).  The API key is held only by the
openai client: it is never printed, logged or stored.
"""

from __future__ import annotations

import json
import os
import re
import threading
import time
from collections.abc import Callable
from concurrent.futures import FIRST_COMPLETED, ThreadPoolExecutor, wait
from dataclasses import dataclass

from jtau.errors import EndpointError
from jtau.translate import check
from jtau.translate.prompt import PROMPT_VERSION, system_prompt, user_message
from jtau.translate.tm import Entry
from jtau.util.endpoint import Endpoint, Transient, retry_after, transient_status
from jtau.util.endpoint import Settings as EndpointSettings
from jtau.util.listing import clip, counted

__all__ = ["Endpoint", "Settings", "Job", "Failure", "MTClient", "endpoint_from_env", "batches"]

FENCE = re.compile(r"^```(?:json)?\s*|\s*```$")


def endpoint_from_env(model: str | None = None, base_url: str | None = None) -> Endpoint | None:
    """`--model`/`--base-url` or JTAU_MODEL/OPENAI_BASE_URL; None when no model is set."""
    model = model or os.environ.get("JTAU_MODEL")
    base_url = base_url or os.environ.get("OPENAI_BASE_URL")
    if not model:
        return None
    # local servers (vLLM, Ollama, LM Studio) accept any key; the client needs one
    return Endpoint(model=model, base_url=base_url, api_key=os.environ.get("OPENAI_API_KEY") or "not-needed")


@dataclass(frozen=True)
class Settings(EndpointSettings):
    """The endpoint's settings (util/endpoint.py) and how the segments are sent."""
    concurrency: int = 4
    batch_size: int = 8
    breaker: int = 5  # consecutive failed requests, across batches, that stop the whole run


@dataclass(frozen=True)
class Job:
    key: str
    kind: str
    source: str
    hints: dict[str, str]


@dataclass
class Failure:
    job: Job
    reasons: list[str]

    def __str__(self) -> str:
        return f"segment {self.job.key} ({self.job.kind}) {clip(self.job.source, 90)!r}: {'; '.join(self.reasons[-2:])}"


def batches(jobs: list[Job], size: int) -> list[list[Job]]:
    """Same-kind batches in a stable order (one register per request)."""
    out = []
    for kind in sorted({job.kind for job in jobs}):
        same = sorted((j for j in jobs if j.kind == kind), key=lambda j: j.key)
        out += [same[i:i + size] for i in range(0, len(same), size)]
    return out


class MTClient:
    def __init__(self, endpoint: Endpoint, settings: Settings = Settings(),
                 allow_latin: frozenset[str] = frozenset(), literals: frozenset[str] = frozenset(),
                 sleep: Callable[[float], None] = time.sleep, avoid: tuple[tuple[str, str], ...] = ()):
        self.endpoint, self.settings, self.allow, self.sleep = endpoint, settings, allow_latin, sleep
        self.literals, self.avoid = literals, avoid
        import openai  # here, not at the top: it takes 0.7 s to import and offline runs never need it

        self.client = openai.OpenAI(base_url=endpoint.base_url, api_key=endpoint.api_key,
                                    max_retries=0, timeout=settings.timeout)
        self.requests = 0
        self._lock = threading.Lock()
        self._failed_in_a_row = 0
        self._stopped = False

    def translate(self, jobs: list[Job], on_done: Callable[[list[Entry]], None],
                  on_progress: Callable[[int], None] = lambda n: None) -> list[Failure]:
        """Translate all jobs; `on_done` receives each batch's valid entries as it
        completes (in this thread, so it may write the journal).  Returns the failures."""
        failures: list[Failure] = []
        pool = ThreadPoolExecutor(self.settings.concurrency, thread_name_prefix="jtau-mt")
        try:
            pending = {pool.submit(self._batch, batch): batch for batch in batches(jobs, self.settings.batch_size)}
            while pending:
                done, _ = wait(pending, return_when=FIRST_COMPLETED)
                for future in done:
                    batch = pending.pop(future)
                    entries, failed = future.result()  # an InputError (refused key, no server) stops all
                    on_done(entries)
                    failures += failed
                    on_progress(len(batch))
        except BaseException:
            # Ctrl-C or a fatal error: drop queued batches, do not wait for requests in flight;
            # what is journaled so far stays (a rerun resumes from it)
            pool.shutdown(wait=False, cancel_futures=True)
            self.client.close()  # ends the requests in flight, so their threads can finish
            raise
        pool.shutdown(wait=True)
        return failures

    # --- one batch -------------------------------------------------------------------------

    def _batch(self, jobs: list[Job]) -> tuple[list[Entry], list[Failure]]:
        pending = {job.key: job for job in jobs}
        reasons: dict[str, list[str]] = {job.key: [] for job in jobs}
        entries: list[Entry] = []
        for attempt in range(self.settings.attempts):
            if not pending or self._stopped:
                break
            try:
                answers = self._request(list(pending.values()))
                with self._lock:
                    self._failed_in_a_row = 0
            except Transient as exc:
                self._count_failure(exc)
                if exc.unreachable and attempt + 1 == self.settings.attempts:
                    tried = counted(attempt + 1, "attempt")
                    raise EndpointError(f"{exc}: is the endpoint running? (after {tried})") from None
                for key in pending:
                    reasons[key].append(str(exc))
                if attempt + 1 < self.settings.attempts:
                    self.sleep(self.settings.wait(attempt, exc))
                continue
            for key, job in list(pending.items()):
                found = check.problems(job.source, answers.get(key), job.hints, self.allow, self.literals, self.avoid)
                if found:
                    reasons[key].append("; ".join(found))
                    continue
                entries.append(Entry(key=key, kind=job.kind, source=job.source, target=answers[key].strip(),
                                     status="machine", engine="openai", model=self.endpoint.model,
                                     prompt=PROMPT_VERSION, hints=job.hints))
                del pending[key]
        return entries, [Failure(job, reasons[key]) for key, job in pending.items()]

    def _count_failure(self, exc: Transient) -> None:
        """The circuit breaker: a dead endpoint (every request fails, whatever the segment) stops
        the run after a few requests instead of retrying every batch."""
        with self._lock:
            self._failed_in_a_row += 1
            dead = self._failed_in_a_row >= self.settings.breaker
            if dead:
                self._stopped = True
        if dead:
            hint = ": is the endpoint running?" if exc.unreachable else ""
            raise EndpointError(f"the endpoint failed {counted(self.settings.breaker, 'request')} in a row "
                             f"(last: {exc}{hint}); stopped after {counted(self.requests, 'request')}. "
                             "Translations received so far are kept in the journal; run again when the endpoint works"
                             ) from None

    def _request(self, jobs: list[Job]) -> dict[str, str]:
        import openai

        with self._lock:
            self.requests += 1
        segments = [{"id": j.key, "text": j.source, **({"terms": j.hints} if j.hints else {})} for j in jobs]
        try:
            response = self.client.chat.completions.create(
                model=self.endpoint.model,
                messages=[{"role": "system", "content": system_prompt(jobs[0].kind)},
                          {"role": "user", "content": user_message(segments)}],
                temperature=0, top_p=1, seed=0, response_format={"type": "json_object"},
            )
        except openai.APITimeoutError:
            raise Transient(f"timeout after {self.settings.timeout:g} s") from None
        except openai.APIConnectionError:
            raise Transient(f"cannot connect to {self.endpoint.base_url or 'the OpenAI API'}",
                            unreachable=True) from None
        except openai.APIStatusError as exc:
            status = exc.status_code
            if transient_status(status):
                raise Transient(f"HTTP {status}", retry_after(exc.response.headers)) from None
            raise EndpointError(f"the endpoint refused the request: HTTP {status} (model {self.endpoint.model!r}, "
                             f"base URL {self.endpoint.base_url or 'default'})") from None
        except (openai.APIResponseValidationError, json.JSONDecodeError, ValueError):
            raise Transient("malformed response body") from None
        choices = getattr(response, "choices", None)
        if not choices:
            raise Transient("response without choices")
        content = getattr(getattr(choices[0], "message", None), "content", None)
        try:
            data = json.loads(FENCE.sub("", (content or "").strip()))
            items = data["translations"]
            return {str(item["id"]): item["text"] for item in items if isinstance(item, dict)}
        except (json.JSONDecodeError, KeyError, TypeError):
            raise Transient("answer is not the JSON object asked for") from None
