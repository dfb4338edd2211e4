"""A real HTTP server on 127.0.0.1 that speaks the OpenAI embeddings protocol
(`POST /v1/embeddings`), with scripted faults.  Used by the embeddings and dense retrieval tests.

Each request pops the next action from `script` (default "ok"):
    ok          every input's vector (`vector(text)`, deterministic), in reverse order with indices
    429         HTTP 429 with Retry-After (`retry_after` seconds)
    500         HTTP 500
    401         HTTP 401 whose message quotes the bearer token back (a key must never be printed)
    malformed   HTTP 200, a body that is not JSON
    short       HTTP 200, one embedding fewer than inputs
    baddim      HTTP 200, the first vector one number short
    strings     HTTP 200, numbers sent as strings
    slow        answer after `slow_seconds`
Every request's body is recorded in `requests`, its headers in `headers`.
"""

from __future__ import annotations

import hashlib
import json
import threading
import time
from http.server import BaseHTTPRequestHandler

from fake_openai import LocalServer, send_json

DIMENSION = 8


def vector(text: str, dimension: int = DIMENSION) -> list[float]:
    """A deterministic unit-free vector of `text`: bytes of its sha256, scaled to [-1, 1]."""
    digest = hashlib.sha256(text.encode("utf-8")).digest()
    return [round(b / 127.5 - 1, 6) for b in digest[:dimension]]


class FakeEmbeddings(LocalServer):
    def __init__(self, dimension: int = DIMENSION, vector_of=None):
        self.script: list[str] = []
        self.retry_after = "0"
        self.slow_seconds = 2.0
        self.requests: list[dict] = []
        self.headers: list[dict] = []
        self.lock = threading.Lock()
        self.dimension = dimension
        self.vector_of = vector_of or (lambda text: vector(text, dimension))
        fake = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args):
                pass

            def do_POST(self):
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                with fake.lock:
                    action = fake.script.pop(0) if fake.script else "ok"
                    fake.requests.append(body)
                    fake.headers.append({k.lower(): v for k, v in self.headers.items()})
                if self.path != "/v1/embeddings":
                    return send_json(self, 404, {"error": {"message": f"no route {self.path}"}})
                if action == "slow":
                    time.sleep(fake.slow_seconds)
                if action == "429":
                    return send_json(self, 429, {"error": {"message": "rate limited"}},
                                     {"Retry-After": fake.retry_after})
                if action == "500":
                    return send_json(self, 500, {"error": {"message": "server error"}})
                if action == "401":
                    token = self.headers.get("Authorization", "")
                    return send_json(self, 401, {"error": {"message": f"Incorrect API key provided: {token}"}})
                if action == "malformed":
                    return send_json(self, 200, b"<html>bad gateway</html>")
                inputs = body["input"] if isinstance(body["input"], list) else [body["input"]]
                data = [{"object": "embedding", "index": i, "embedding": fake.vector_of(text)}
                        for i, text in enumerate(inputs)]
                if action == "short":
                    data = data[:-1]
                elif action == "baddim":
                    data[0]["embedding"] = data[0]["embedding"][:-1]
                elif action == "strings":
                    data[0]["embedding"] = [str(x) for x in data[0]["embedding"]]
                send_json(self, 200, {"object": "list", "data": list(reversed(data)), "model": body["model"],
                                      "usage": {"prompt_tokens": 1, "total_tokens": 1}})

        self.start(Handler)
