"""A scripted model on loopback that speaks the Anthropic and OpenAI wire formats.

The official SDKs talk to it over real HTTP, so the benchmark (without an
API key) and the tests exercise request building, response parsing and error
mapping for real; only the decisions are scripted. Token counts in its
replies are estimates (about four characters a token), not what a real model
would report, and the benchmark says so. Usage is reported the way each
provider reports it, prompt caching included (prompt_cache.py): Anthropic's
``cache_read_input_tokens`` and ``cache_creation_input_tokens`` beside the
uncached ``input_tokens``, OpenAI's ``prompt_tokens_details.cached_tokens``
inside ``prompt_tokens``.
"""

from __future__ import annotations

import itertools
import json
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Literal

from subterminator_bench.prompt_cache import CacheUse, PromptCache

Api = Literal["anthropic", "openai"]

_ANTHROPIC_ERROR_TYPES = {
    400: "invalid_request_error",
    401: "authentication_error",
    403: "permission_error",
    404: "not_found_error",
    408: "timeout_error",
    413: "request_too_large",
    429: "rate_limit_error",
    529: "overloaded_error",
}
_OPENAI_ERROR_TYPES = {
    400: ("invalid_request_error", None),
    401: ("invalid_request_error", "invalid_api_key"),
    403: ("invalid_request_error", "unsupported_country_region_territory"),
    404: ("invalid_request_error", "model_not_found"),
    429: ("requests", "rate_limit_exceeded"),
}


@dataclass(frozen=True)
class ScriptedTurn:
    """What the scripted model answers to one request.

    ``status`` other than 200 answers with an error in the provider's own
    JSON shape (``error_body``, when given, is sent verbatim instead).
    ``delay`` holds the answer back that many seconds, to provoke timeouts.
    """

    text: str = ""
    tool_calls: list[tuple[str, dict[str, Any]]] = field(default_factory=list)
    status: int = 200
    error_body: dict[str, Any] | None = None
    delay: float = 0.0


@dataclass(frozen=True)
class ModelRequest:
    """One request as the brain sees it."""

    api: Api
    body: dict[str, Any]
    headers: dict[str, str]

    @property
    def model(self) -> str:
        """The model the request named."""
        return str(self.body.get("model", ""))

    @property
    def tools(self) -> dict[str, dict[str, Any]]:
        """The offered tools' input schemas by name, in order, whichever the wire format."""
        offered: dict[str, dict[str, Any]] = {}
        for tool in self.body.get("tools") or []:
            if self.api == "anthropic":
                offered[str(tool["name"])] = tool.get("input_schema") or {}
            else:
                function = tool["function"]
                offered[str(function["name"])] = function.get("parameters") or {}
        return offered

    @property
    def tool_names(self) -> list[str]:
        """Names of the tools offered, in order."""
        return list(self.tools)

    def tool_arguments(self, name: str) -> set[str]:
        """The argument names the offered tool ``name`` declares (empty when not offered)."""
        return set(self.tools.get(name, {}).get("properties") or {})

    @property
    def latest_text(self) -> str:
        """Everything sent since the model's last reply: tool results and user texts, joined.

        In Anthropic's format that is the last user turn (tool results first);
        in OpenAI's, the trailing tool and user messages. "" when there is none.
        """
        trailing: list[str] = []
        for message in reversed(self.body.get("messages") or []):
            if message.get("role") not in ("user", "tool"):
                break
            trailing.append(_text_of(message.get("content")))
        return "\n".join(text for text in reversed(trailing) if text)


def _text_of(content: Any) -> str:
    """The text in a message's or tool result's content (a string or a list of blocks)."""
    if isinstance(content, str):
        return content
    if not isinstance(content, list):
        return ""
    texts: list[str] = []
    for block in content:
        if not isinstance(block, dict):
            continue
        if block.get("type") == "tool_result":
            texts.append(_text_of(block.get("content")))
        elif isinstance(block.get("text"), str):
            texts.append(block["text"])
    return "\n".join(text for text in texts if text)


Brain = Callable[[ModelRequest], ScriptedTurn]


class ScriptedModelServer:
    """A real HTTP server on 127.0.0.1 answering ``POST /v1/messages`` and ``/v1/chat/completions``.

    Use as a context manager. ``base_url`` is the Anthropic base URL;
    ``openai_base_url`` (``base_url + "/v1"``) the OpenAI one.
    """

    def __init__(self, brain: Brain, cache: PromptCache | None = None) -> None:
        self._brain = brain
        #: Shared between servers to play one API key's cache across runs (the bench).
        self.cache = cache if cache is not None else PromptCache()
        self._lock = threading.Lock()
        self._requests: list[RecordedRequest] = []
        self._ids = itertools.count(1)
        self._stopping = threading.Event()
        self._server: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None

    @classmethod
    def scripted(cls, turns: list[ScriptedTurn]) -> ScriptedModelServer:
        """A server answering with ``turns`` in order, then repeating the last one."""
        if not turns:
            raise ValueError("a scripted server needs at least one turn")
        lock = threading.Lock()
        position = itertools.count()

        def brain(_request: ModelRequest) -> ScriptedTurn:
            with lock:
                index = next(position)
            return turns[min(index, len(turns) - 1)]

        return cls(brain)

    @property
    def base_url(self) -> str:
        """``http://127.0.0.1:PORT``; the OpenAI SDK needs ``/v1`` appended."""
        if self._server is None:
            raise RuntimeError("ScriptedModelServer is not started")
        return f"http://127.0.0.1:{self._server.server_address[1]}"

    @property
    def openai_base_url(self) -> str:
        """The base URL for the OpenAI SDK."""
        return self.base_url + "/v1"

    @property
    def requests(self) -> list[RecordedRequest]:
        """Every request received so far, in arrival order."""
        with self._lock:
            return list(self._requests)

    def start(self) -> ScriptedModelServer:
        """Bind a free loopback port and serve in a daemon thread."""
        server = _Server(("127.0.0.1", 0), _Handler)
        server.owner = self
        self._server = server
        # A short poll interval: shutdown() waits for the serving loop's next poll.
        self._thread = threading.Thread(
            target=server.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True
        )
        self._thread.start()
        return self

    def stop(self) -> None:
        """Stop serving; held-back answers are released rather than awaited."""
        self._stopping.set()
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
        if self._thread is not None:
            self._thread.join(timeout=5)

    def __enter__(self) -> ScriptedModelServer:
        return self.start()

    def __exit__(self, *_exc: object) -> None:
        self.stop()

    def _answer(
        self, api: Api, body: dict[str, Any], headers: dict[str, str], raw: bytes
    ) -> tuple[int, dict[str, Any]]:
        with self._lock:
            self._requests.append(RecordedRequest(api=api, body=body, headers=headers))
        turn = self._brain(ModelRequest(api=api, body=body, headers=headers))
        if turn.delay:
            # An Event, not time.sleep, so stop() can cut the wait short.
            self._stopping.wait(turn.delay)
        if turn.status != 200:
            return turn.status, turn.error_body or _error_body(api, turn.status)
        input_tokens = len(raw) // 4
        output_tokens = len(json.dumps([turn.text, turn.tool_calls])) // 4
        if api == "anthropic":
            cached = self.cache.anthropic(body)
            return 200, self._anthropic_reply(body, turn, input_tokens, output_tokens, cached)
        cached = self.cache.openai(body)
        return 200, self._openai_reply(body, turn, input_tokens, output_tokens, cached)

    def _anthropic_reply(
        self,
        body: dict[str, Any],
        turn: ScriptedTurn,
        input_tokens: int,
        output_tokens: int,
        cached: CacheUse,
    ) -> dict[str, Any]:
        content: list[dict[str, Any]] = []
        if turn.text:
            content.append({"type": "text", "text": turn.text})
        for name, arguments in turn.tool_calls:
            content.append(
                {
                    "type": "tool_use",
                    "id": f"toolu_scripted_{next(self._ids)}",
                    "name": name,
                    "input": arguments,
                }
            )
        return {
            "id": f"msg_scripted_{next(self._ids)}",
            "type": "message",
            "role": "assistant",
            "model": body.get("model", ""),
            "content": content,
            "stop_reason": "tool_use" if turn.tool_calls else "end_turn",
            "stop_sequence": None,
            # Anthropic's input_tokens are only those after the last cache breakpoint.
            "usage": {
                "input_tokens": max(0, input_tokens - cached.read - cached.written),
                "cache_read_input_tokens": cached.read,
                "cache_creation_input_tokens": cached.written,
                "output_tokens": output_tokens,
            },
        }

    def _openai_reply(
        self,
        body: dict[str, Any],
        turn: ScriptedTurn,
        input_tokens: int,
        output_tokens: int,
        cached: CacheUse,
    ) -> dict[str, Any]:
        message: dict[str, Any] = {"role": "assistant", "content": turn.text or None}
        if turn.tool_calls:
            message["tool_calls"] = [
                {
                    "id": f"call_scripted_{next(self._ids)}",
                    "type": "function",
                    "function": {"name": name, "arguments": json.dumps(arguments)},
                }
                for name, arguments in turn.tool_calls
            ]
        return {
            "id": f"chatcmpl-scripted-{next(self._ids)}",
            "object": "chat.completion",
            "created": int(time.time()),
            "model": body.get("model", ""),
            "choices": [
                {
                    "index": 0,
                    "message": message,
                    "finish_reason": "tool_calls" if turn.tool_calls else "stop",
                }
            ],
            "usage": {
                "prompt_tokens": input_tokens,
                "completion_tokens": output_tokens,
                "total_tokens": input_tokens + output_tokens,
                "prompt_tokens_details": {"cached_tokens": min(cached.read, input_tokens)},
            },
        }


@dataclass(frozen=True)
class RecordedRequest:
    """A request the server received: which API, the JSON body, the headers (lower-case names)."""

    api: Api
    body: dict[str, Any]
    headers: dict[str, str]


def _error_body(api: Api, status: int) -> dict[str, Any]:
    message = f"Scripted error {status}"
    if api == "anthropic":
        kind = _ANTHROPIC_ERROR_TYPES.get(status, "api_error")
        return {"type": "error", "error": {"type": kind, "message": message}}
    kind, code = _OPENAI_ERROR_TYPES.get(status, ("server_error", None))
    return {"error": {"message": message, "type": kind, "param": None, "code": code}}


_ROUTES: dict[str, Api] = {"/v1/messages": "anthropic", "/v1/chat/completions": "openai"}


class _Server(ThreadingHTTPServer):
    # Handler threads must not keep the test process alive or block server_close.
    daemon_threads = True
    owner: ScriptedModelServer


class _Handler(BaseHTTPRequestHandler):
    server: _Server

    def do_POST(self) -> None:
        path = self.path.split("?", 1)[0]
        api = _ROUTES.get(path)
        raw = self.rfile.read(int(self.headers.get("Content-Length") or 0))
        if api is None:
            self._send(404, _error_body("openai" if "chat" in path else "anthropic", 404))
            return
        try:
            body = json.loads(raw or b"{}")
        except json.JSONDecodeError:
            self._send(400, _error_body(api, 400))
            return
        headers = {name.lower(): value for name, value in self.headers.items()}
        status, payload = self.server.owner._answer(api, body, headers, raw)
        self._send(status, payload)

    def _send(self, status: int, payload: dict[str, Any]) -> None:
        data = json.dumps(payload).encode()
        try:
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)
        except (BrokenPipeError, ConnectionResetError):
            # The client gave up (a timeout test); nobody is left to answer.
            pass

    def log_message(self, format: str, *args: Any) -> None:
        """Silence per-request logging; the tests inspect ``requests`` instead."""
