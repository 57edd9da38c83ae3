"""An in-process fake of vLLM's OpenAI-compatible server for fast client and rollout tests.

`http.server` on 127.0.0.1 (random free port). Tokenisation is byte-level: token id = byte + 16,
ids 0..15 are special (EOS = 2); the "chat template" is `<|role|>content\\n` per message plus
`<|assistant|>`. A test scripts the replies with a `responder(body, n) -> str | Fault` where `n`
counts chat requests from 0; a `Fault` makes the server misbehave (HTTP 500, garbage JSON, a reply
too slow for the client's timeout, a dropped connection). Every request body is kept in
`server.requests` (path, body) for assertions.
"""

from __future__ import annotations

import dataclasses
import http.server
import json
import threading
import time
from typing import Callable

EOS = 2
OFFSET = 16


def encode(text: str) -> list[int]:
    return [b + OFFSET for b in text.encode("utf-8")]


def decode(ids: list[int]) -> str:
    return bytes(i - OFFSET for i in ids if i >= OFFSET).decode("utf-8", "replace")


def _text(content) -> str:
    """A message's content as template text: a string, or OpenAI content parts (text parts as
    they are, an image part as `<|image|>`)."""
    if isinstance(content, str):
        return content
    return "".join(p["text"] if p.get("type") == "text" else "<|image|>" for p in content)


def template(messages: list[dict]) -> str:
    return "".join(f"<|{m['role']}|>{_text(m['content'])}\n" for m in messages) + "<|assistant|>"


def fake_logprob(position: int, token: int) -> float:
    """A deterministic, checkable log-prob for the token at a completion position."""
    return -((position * 7 + token) % 13) / 8.0


@dataclasses.dataclass(frozen=True)
class Fault:
    kind: str  # "http500" | "garbage" | "slow" | "drop" | "truncated_json" | "http400"
    seconds: float = 0.0  # for "slow"


Responder = Callable[[dict, int], "str | Fault"]


class FakeOpenAIServer:
    """Use as a context manager; `url` is the base URL (no /v1)."""

    def __init__(self, responder: Responder, model: str = "fake-model", max_model_len: int = 4096):
        self.responder = responder
        self.model = model
        self.max_model_len = max_model_len
        self.requests: list[tuple[str, dict | None]] = []
        self.chat_count = 0
        self._lock = threading.Lock()
        handler = _make_handler(self)
        self._httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
        self._httpd.daemon_threads = True
        self.port = self._httpd.server_address[1]
        self.url = f"http://127.0.0.1:{self.port}"
        self._thread = threading.Thread(target=self._httpd.serve_forever, daemon=True)

    def __enter__(self) -> "FakeOpenAIServer":
        self._thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self._httpd.shutdown()
        self._httpd.server_close()

    def chat_reply(self, body: dict) -> "tuple[int, bytes] | Fault":
        with self._lock:
            n = self.chat_count
            self.chat_count += 1
        out = self.responder(body, n)
        if isinstance(out, Fault):
            return out
        prompt_ids = encode(template(body["messages"]))
        limit = int(body.get("max_tokens") or 16)
        if len(prompt_ids) + limit > self.max_model_len:
            return 400, json.dumps({"error": {"message": (
                f"This model's maximum context length is {self.max_model_len} tokens; the request "
                f"has {len(prompt_ids)} prompt tokens and max_tokens={limit}")}}).encode()
        ids = encode(out)
        if len(ids) >= limit:
            ids, finish = ids[:limit], "length"
        else:
            ids, finish = ids + [EOS], "stop"
        text = decode(ids)
        entries = [{"token": f"token_id:{t}", "logprob": fake_logprob(i, t), "bytes": None,
                    "top_logprobs": []} for i, t in enumerate(ids)]
        reply = {
            "id": f"chatcmpl-{n}", "object": "chat.completion", "created": 0, "model": self.model,
            "prompt_token_ids": prompt_ids,
            "choices": [{"index": 0, "message": {"role": "assistant", "content": text},
                         "logprobs": {"content": entries}, "finish_reason": finish,
                         "token_ids": ids}],
            "usage": {"prompt_tokens": len(prompt_ids), "completion_tokens": len(ids)},
        }
        return 200, json.dumps(reply).encode()


def _make_handler(server: FakeOpenAIServer):
    class Handler(http.server.BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, *args):  # keep test output quiet
            pass

        def _send(self, code: int, payload: bytes) -> None:
            self.send_response(code)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(payload)))
            self.end_headers()
            self.wfile.write(payload)

        def do_GET(self):
            server.requests.append((self.path, None))
            if self.path == "/v1/models":
                self._send(200, json.dumps({"object": "list", "data": [
                    {"id": server.model, "object": "model", "max_model_len": server.max_model_len}]}).encode())
            elif self.path == "/health":
                self._send(200, b"")
            else:
                self._send(404, b'{"error": {"message": "not found"}}')

        def do_POST(self):
            length = int(self.headers.get("Content-Length") or 0)
            body = json.loads(self.rfile.read(length) or b"{}")
            server.requests.append((self.path, body))
            if self.path == "/v1/chat/completions":
                out = server.chat_reply(body)
                if isinstance(out, Fault):
                    self._fault(out)
                else:
                    self._send(*out)
            elif self.path == "/tokenize":
                ids = encode(template(body["messages"]))
                self._send(200, json.dumps({"count": len(ids), "max_model_len": server.max_model_len,
                                            "tokens": ids}).encode())
            elif self.path in ("/pause", "/resume", "/collective_rpc"):
                self._send(200, b'{"results": [null]}' if self.path == "/collective_rpc" else b"{}")
            else:
                self._send(404, b'{"error": {"message": "not found"}}')

        def _fault(self, fault: Fault) -> None:
            if fault.kind == "http500":
                self._send(500, b'{"error": {"message": "engine died"}}')
            elif fault.kind == "http400":
                self._send(400, b'{"error": {"message": "bad request from the test"}}')
            elif fault.kind == "garbage":
                self._send(200, b"<html>502 proxy says hi</html>")
            elif fault.kind == "truncated_json":
                self._send(200, b'{"choices": [{"message": {"content": "x"')
            elif fault.kind == "slow":
                time.sleep(fault.seconds)
                try:
                    self._send(500, b'{"error": {"message": "too late"}}')
                except OSError:
                    pass
            elif fault.kind == "drop":
                self.close_connection = True
                try:
                    self.connection.shutdown(2)
                except OSError:
                    pass
            else:
                raise ValueError(f"unknown fault {fault.kind!r}")

    return Handler


def free_port() -> int:
    """A port with nothing listening (for refused-connection tests)."""
    import socket
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]
