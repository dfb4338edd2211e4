"""A scripted chat-completions server on 127.0.0.1 that plays both sides of a tau2 run:
as the agent (requests with tools) it looks the user up, then answers in Japanese; as the
simulated user it asks once, then ends with ###STOP###.  For the end-to-end test of
`jtau tau2 run`; no model is involved."""

from __future__ import annotations

import json
from http.server import BaseHTTPRequestHandler

from fake_openai import LocalServer, send_json


class FakeChat(LocalServer):
    def __init__(self, user_id: str):
        self.requests: list[dict] = []
        fake = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args):
                pass

            def do_POST(self):
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                fake.requests.append(body)
                messages = body["messages"]
                if body.get("tools"):  # the agent
                    if messages[-1]["role"] == "tool":
                        message = {"role": "assistant", "content": "ご登録情報を確認しました。"}
                    else:
                        message = {"role": "assistant", "content": None, "tool_calls": [{
                            "id": "call_1", "type": "function", "function": {
                                "name": "get_user_details", "arguments": json.dumps({"user_id": user_id})}}]}
                else:  # the simulated user: the agent's turns are its "user" messages
                    turns = sum(m["role"] == "user" for m in messages)
                    message = {"role": "assistant", "content": "###STOP###" if turns >= 2 else "予約の件で相談です。"}
                send_json(self, 200, {"id": "x", "object": "chat.completion", "created": 0, "model": body["model"],
                                      "choices": [{"index": 0, "finish_reason": "stop", "message": message}],
                                      "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2}})

        self.start(Handler)
