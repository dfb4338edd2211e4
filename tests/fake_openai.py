"""A real HTTP server on 127.0.0.1 that speaks the OpenAI chat-completions protocol, with
scripted faults.  Used by the translation tests and by scripts/benchmarks/bench_translate.py.

Each request pops the next action from `script` (default "ok"):
    ok          a valid JSON answer: every segment "translated" into Japanese-looking text
                that keeps its placeholders, markup and glossary renderings
    429         HTTP 429 with Retry-After (seconds in `retry_after`)
    401         HTTP 401 (a refused key: not retried)
    500         HTTP 500
    slow        answer after `slow_seconds` (longer than the client's timeout)
    malformed   HTTP 200 with a body that is not JSON
    nochoices   HTTP 200, a completion object without `choices`
    drop        the first segment's answer loses a placeholder
    dup         the first segment's answer repeats a placeholder
    english     the first segment's answer is English
    block       hold the request until the server stops (for kill tests)
Every request's segments are recorded in `received` (lists of segment dicts) and the
answered ones in `answered`.
"""

from __future__ import annotations

import json
import re
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

PLACEHOLDER = re.compile(r"\{[A-Z]+(?:_[A-Z]+)*_\d+\}")


def send_json(handler: BaseHTTPRequestHandler, status: int, payload, headers: dict | None = None) -> None:
    """Write one JSON response (a client that hung up is no error)."""
    data = payload if isinstance(payload, bytes) else json.dumps(payload).encode()
    try:
        handler.send_response(status)
        handler.send_header("Content-Type", "application/json")
        handler.send_header("Content-Length", str(len(data)))
        for key, value in (headers or {}).items():
            handler.send_header(key, value)
        handler.end_headers()
        handler.wfile.write(data)
    except (BrokenPipeError, ConnectionResetError):
        pass


class LocalServer:
    """A threaded HTTP server on 127.0.0.1 (a free port), used as a context manager."""

    def start(self, handler: type[BaseHTTPRequestHandler]) -> None:
        self.stopping = threading.Event()
        self.server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
        self.server.daemon_threads = True
        self.thread = threading.Thread(target=self.server.serve_forever, kwargs={"poll_interval": 0.05},
                                       daemon=True)  # shutdown waits for a poll: 0.5 s by default

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}/v1"

    def __enter__(self):
        self.thread.start()
        return self

    def __exit__(self, *exc):
        self.stopping.set()
        self.server.shutdown()
        self.server.server_close()


def fake_translation(segment: dict) -> str:
    text = segment["text"]
    parts = ["訳文"] + PLACEHOLDER.findall(text)
    parts += ["**強調**"] * (text.count("**") // 2) + ["`記号`"] * (text.count("`") // 2)
    parts += list((segment.get("terms") or {}).values())
    return "、".join(parts) + "。"


class FakeOpenAI(LocalServer):
    def __init__(self, latency: float = 0.0):
        self.script: list[str] = []
        self.latency = latency
        self.retry_after = "0"
        self.slow_seconds = 3.0
        self.received: list[list[dict]] = []
        self.answered: list[list[dict]] = []
        self.headers: list[dict] = []
        self.lock = threading.Lock()
        fake = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args):
                pass

            def do_POST(self):
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                segments = json.loads(body["messages"][-1]["content"])["segments"]
                with fake.lock:
                    action = fake.script.pop(0) if fake.script else "ok"
                    fake.received.append(segments)
                    fake.headers.append({k.lower(): v for k, v in self.headers.items()})
                if fake.latency:
                    time.sleep(fake.latency)
                if action == "block":
                    fake.stopping.wait()
                    return
                if action == "slow":
                    time.sleep(fake.slow_seconds)
                if action == "429":
                    return self.reply(429, {"error": {"message": "rate limited"}}, {"Retry-After": fake.retry_after})
                if action == "401":
                    return self.reply(401, {"error": {"message": "invalid api key"}})
                if action == "500":
                    return self.reply(500, {"error": {"message": "server error"}})
                if action == "malformed":
                    return self.reply(200, b"{not json")
                if action == "nochoices":
                    return self.reply(200, {"id": "x", "object": "chat.completion", "created": 0, "model": "m"})
                answers = [{"id": s["id"], "text": fake_translation(s)} for s in segments]
                first = answers[0]
                if action == "drop":
                    first["text"] = PLACEHOLDER.sub("", first["text"], count=1) if PLACEHOLDER.search(first["text"]) \
                        else first["text"] + "{PERSON_9}"
                elif action == "dup":
                    found = PLACEHOLDER.search(first["text"])
                    first["text"] += found.group() if found else "{PERSON_9}"
                elif action == "english":
                    first["text"] = "Please translate this sentence."
                content = json.dumps({"translations": answers}, ensure_ascii=False)
                with fake.lock:
                    fake.answered.append(segments)
                self.reply(200, {
                    "id": "chatcmpl-1", "object": "chat.completion", "created": 0, "model": body["model"],
                    "choices": [{"index": 0, "finish_reason": "stop",
                                 "message": {"role": "assistant", "content": content}}],
                })

            def reply(self, status, payload, headers=None):
                send_json(self, status, payload, headers)

        self.start(Handler)

    def segment_ids(self, requests) -> list[str]:
        return [s["id"] for batch in requests for s in batch]
