"""A small scripted stand-in for the Anthropic Messages API, for the SDK test (standard library only).

It listens on 127.0.0.1 (a free port) and answers ``POST /v1/messages``: the reply is chosen by
the number of assistant messages already in the request (so a retried request gets the same
reply): ``turns[n]`` (a list of content blocks) while there is one, then ``final`` as one text
block. With ``"stream": true`` the reply is sent as server-sent events (message_start, each
block's start, deltas and stop, message_delta with the stop reason, message_stop), else as one
JSON message. Every request body is kept in ``requests``. A request whose system prompt holds a
key of ``scripts`` (a sub-agent's, say), or whose first message does, is answered from that script,
``(turns, final)``, instead, after ``delays[key]`` seconds when given. The first ``overloaded`` requests
are answered 529 (with ``retry-after-ms: 20``). With ``summary`` set, a compaction's summary request
(its last message asks for the summary) is answered with that text. Every answer reports
``input_tokens`` input tokens (100 unless given).
"""

from __future__ import annotations

import json
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


class FakeApi:
    """The server: ``FakeApi(turns, final)``, then ``base_url``, ``requests`` and ``close()``."""

    def __init__(self, turns: list[list[dict[str, Any]]], final: str,
                 scripts: dict[str, tuple[list[list[dict[str, Any]]], str]] | None = None,
                 delays: dict[str, float] | None = None, overloaded: int = 0, summary: str | None = None,
                 input_tokens: int = 100) -> None:
        self.turns = turns
        self.summary = summary
        self.input_tokens = input_tokens
        self.final = final
        self.scripts = scripts or {}
        self.delays = delays or {}
        self.overloaded = overloaded
        self.requests: list[dict[str, Any]] = []
        self._lock = threading.Lock()
        fake = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *_args: Any) -> None:  # quiet
                pass

            def do_POST(self) -> None:  # noqa: N802 (the http.server name)
                length = int(self.headers.get("content-length") or 0)
                body = json.loads(self.rfile.read(length) or b"null")
                if not self.path.split("?")[0].endswith("/v1/messages"):
                    self._json(404, {"type": "error", "error": {"type": "not_found_error", "message": self.path}})
                    return
                with fake._lock:
                    fake.requests.append(body)
                    overloaded = fake.overloaded > 0
                    fake.overloaded -= 1 if overloaded else 0
                if overloaded:
                    self._json(529, {"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}},
                               {"retry-after-ms": "20"})
                    return
                content = fake.reply(body)
                stop = "tool_use" if any(block.get("type") == "tool_use" for block in content) else "end_turn"
                message = {
                    "id": f"msg_{len(fake.requests)}", "type": "message", "role": "assistant",
                    "model": body.get("model") or "claude-sonnet-4-5", "content": content,
                    "stop_reason": stop, "stop_sequence": None,
                    "usage": {"input_tokens": fake.input_tokens, "output_tokens": 20,
                              "cache_creation_input_tokens": 0, "cache_read_input_tokens": 0},
                }
                if body.get("stream"):
                    self._stream(message)
                else:
                    self._json(200, message)

            def _json(self, status: int, value: Any, headers: dict[str, str] | None = None) -> None:
                data = json.dumps(value).encode()
                self.send_response(status)
                for name, header in (headers or {}).items():
                    self.send_header(name, header)
                self.send_header("content-type", "application/json")
                self.send_header("content-length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def _stream(self, message: dict[str, Any]) -> None:
                self.send_response(200)
                self.send_header("content-type", "text/event-stream")
                self.send_header("connection", "close")
                self.end_headers()
                self.close_connection = True

                def event(name: str, data: dict[str, Any]) -> None:
                    self.wfile.write(f"event: {name}\ndata: {json.dumps(data)}\n\n".encode())

                start = dict(message, content=[], stop_reason=None)
                event("message_start", {"type": "message_start", "message": start})
                for index, block in enumerate(message["content"]):
                    if block["type"] == "text":
                        event("content_block_start", {"type": "content_block_start", "index": index,
                                                      "content_block": {"type": "text", "text": ""}})
                        event("content_block_delta", {"type": "content_block_delta", "index": index,
                                                      "delta": {"type": "text_delta", "text": block["text"]}})
                    else:  # tool_use
                        event("content_block_start", {"type": "content_block_start", "index": index,
                                                      "content_block": dict(block, input={})})
                        event("content_block_delta", {"type": "content_block_delta", "index": index,
                                                      "delta": {"type": "input_json_delta",
                                                                "partial_json": json.dumps(block["input"])}})
                    event("content_block_stop", {"type": "content_block_stop", "index": index})
                event("message_delta", {"type": "message_delta",
                                        "delta": {"stop_reason": message["stop_reason"], "stop_sequence": None},
                                        "usage": {"output_tokens": 20}})
                event("message_stop", {"type": "message_stop"})
                self.wfile.flush()

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)
        self._thread.start()

    @property
    def base_url(self) -> str:
        host, port = self._server.server_address[:2]
        return f"http://{host}:{port}"

    def reply(self, body: dict[str, Any]) -> list[dict[str, Any]]:
        """The content blocks for this request: the scripted turn, else the final text."""
        done = sum(1 for message in body.get("messages") or [] if message.get("role") == "assistant")
        system = body.get("system") or ""
        system = system if isinstance(system, str) else " ".join(
            block.get("text", "") for block in system if isinstance(block, dict))
        first = json.dumps((body.get("messages") or [{}])[0].get("content"))
        last = json.dumps((body.get("messages") or [{}])[-1].get("content"))
        if self.summary is not None and "about to be replaced by a summary" in last:
            return [{"type": "text", "text": self.summary}]
        key = next((key for key in self.scripts if key in system or key in first), None)
        turns, final = self.scripts[key] if key is not None else (self.turns, self.final)
        if key in self.delays:
            time.sleep(self.delays[key])
        if done < len(turns):
            return turns[done]
        return [{"type": "text", "text": final}]

    def close(self) -> None:
        self._server.shutdown()
        self._server.server_close()
