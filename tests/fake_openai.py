"""A tiny OpenAI-compatible server for tests (/v1/embeddings and /v1/chat/completions): real
HTTP on 127.0.0.1."""

from __future__ import annotations

import contextlib
import json
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import numpy as np


class FakeOpenAI:
    """A tiny OpenAI-compatible /v1/embeddings server on 127.0.0.1, in a thread."""

    DIM = 8

    def __init__(self) -> None:
        self.requests: list[dict] = []
        self.script: list[tuple[int, object]] = []  # (status, body) answered first, in order
        self.delay = 0.0
        self.down = False  # answer every request 503 Service Unavailable
        self.max_batch: int | None = None  # more texts in one request: 400, as TEI answers
        self.max_chars: int | None = None  # a longer text: 400, as OpenAI's context limit
        self.reply = '{"items": []}'  # what /chat/completions answers, as the message content
        fake = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args):  # keep pytest output clean
                pass

            def do_POST(self):
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                fake.requests.append(
                    {"path": self.path, "auth": self.headers.get("Authorization"), "body": body}
                )
                if fake.delay:
                    time.sleep(fake.delay)
                if fake.down:
                    status, payload = 503, {"error": {"message": "overloaded"}}
                elif fake.script:
                    status, payload = fake.script.pop(0)
                elif (refused := fake.refusal(body)) is not None:
                    status, payload = 400, {"error": {"message": refused}}
                elif self.path.endswith("/chat/completions"):
                    status, payload = 200, fake.chat_answer(body)
                else:
                    status, payload = 200, fake.answer(body)
                raw = payload if isinstance(payload, bytes) else json.dumps(payload).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(raw)))
                if status in (429, 503):
                    self.send_header("Retry-After", "0")
                self.end_headers()
                # The client may have given up already (the timeout test).
                with contextlib.suppress(BrokenPipeError, ConnectionResetError):
                    self.wfile.write(raw)

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/v1"
        self.thread = threading.Thread(
            target=self.server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
        )
        self.thread.start()

    @classmethod
    def vector(cls, text: str) -> list[float]:
        rng = np.random.default_rng(sum(map(ord, text)) + len(text))
        return (rng.normal(size=cls.DIM) * 3.0).tolist()  # deliberately not unit length

    def refusal(self, body: dict) -> str | None:
        texts = body.get("input", [])
        if self.max_batch is not None and len(texts) > self.max_batch:
            return f"batch size {len(texts)} > maximum allowed batch size {self.max_batch}"
        if self.max_chars is not None and any(len(t) > self.max_chars for t in texts):
            return "This model's maximum context length is 8192 tokens"
        return None

    def answer(self, body: dict) -> dict:
        items = [
            {"object": "embedding", "index": i, "embedding": self.vector(t)}
            for i, t in enumerate(body["input"])
        ]
        items.reverse()  # indexes, not order, say which text is which
        return {"object": "list", "data": items, "model": body["model"]}

    def chat_answer(self, body: dict) -> dict:
        message = {"role": "assistant", "content": self.reply}
        return {"object": "chat.completion", "model": body["model"],
                "choices": [{"index": 0, "message": message, "finish_reason": "stop"}]}  # fmt: skip

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()
