"""Drives `agent-tools serve --http` from the MCP Python SDK (`mcp` 2.x, installed with the
Claude Agent SDK), in both of the SDK's connection modes:

- `legacy`: `initialize` (protocol 2025-11-25); questions come as `elicitation/create` requests;
- `auto`: the SDK probes `server/discover` first (protocol 2026-07-28 where the server offers it,
  else it falls back); questions come as multi round-trip results.

In each: the bearer token in the client's headers, tools/list, a Read, Bash's progress as
`notifications/progress`, a Write whose permission question the client's user answers through
elicitation, a call cancelled by the client (and the session still usable after it), log messages
after `logging/setLevel` (legacy only: 2026-07-28 deprecates logging), and the session's DELETE
when the client closes (which the SDK checks for 200 or 204). Then a request without the token
gets 401, and a server with `--root` works where its clients' MCP roots say, inside the root only.

    python test_http.py /path/to/agent-tools

Prints one line per check and `N passed, N failed`; the exit status is 1 when a check failed.
"""

from __future__ import annotations

import logging
import os
import re
import subprocess
import sys
import tempfile
import time
import traceback

import anyio
import httpx2
import mcp.types as t
from mcp import Client
from mcp.client.streamable_http import streamable_http_client


class Warnings(logging.Handler):
    """Collects the SDK's warnings (a failed session termination is one)."""

    def __init__(self) -> None:
        super().__init__(logging.WARNING)
        self.seen: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.seen.append(record.getMessage())


def start(program: str, project: str, *extra: str) -> tuple[subprocess.Popen, str, str]:
    env = {**os.environ, "HOME": os.path.join(project, ".home"), "XDG_STATE_HOME": os.path.join(project, ".state")}
    args = [program, "--permission-mode", "default", "serve", "--http", "0", *extra]
    server = subprocess.Popen(args, cwd=project, env=env, stderr=subprocess.PIPE, text=True)
    url = re.search(r"http://\S+/mcp", server.stderr.readline()).group(0)
    token = server.stderr.readline().strip().rsplit(" ", 1)[1]
    return server, url, token


def text(result: t.CallToolResult) -> str:
    return "".join(block.text for block in result.content if block.type == "text")


async def session_checks(url: str, token: str, project: str, mode: str) -> None:
    questions: list[str] = []
    logs: list[t.LoggingMessageNotificationParams] = []

    async def on_elicit(_ctx, params):  # the client's user: allows the write once
        questions.append(params.message)
        return t.ElicitResult(action="accept", content={"decision": "allow_once"})

    async def on_log(params):
        logs.append(params)

    warnings = Warnings()
    logging.getLogger("mcp").addHandler(warnings)
    async with httpx2.AsyncClient(headers={"Authorization": f"Bearer {token}"}, timeout=30) as http:
        client = Client(
            streamable_http_client(url, http_client=http),
            mode=mode,
            elicitation_callback=on_elicit,
            logging_callback=on_log,
        )
        async with client:
            names = [tool.name for tool in (await client.list_tools()).tools]
            assert "Read" in names and "Bash" in names, names

            read = await client.call_tool("Read", {"file_path": os.path.join(project, "a.txt")})
            assert not read.is_error, read
            assert text(read) == "1\thello over http\n2\t", read.content

            if mode == "legacy":
                await client.set_logging_level("debug")

            steps: list[tuple[float, str | None]] = []

            async def on_progress(progress, _total, message):
                steps.append((progress, message))

            slow = await client.call_tool(
                "Bash", {"command": "echo first; sleep 3.5; echo second"}, progress_callback=on_progress
            )
            assert not slow.is_error, slow
            assert "second" in text(slow), text(slow)
            assert steps, "Bash's progress reached the client"
            assert [p for p, _ in steps] == sorted({p for p, _ in steps}), steps
            assert any(message and "first" in message for _, message in steps), steps

            target = f"written-{mode}.txt"
            write = await client.call_tool("Write", {"file_path": target, "content": f"{mode}\n"})
            assert not write.is_error, text(write)
            assert questions and target in questions[0], questions
            with open(os.path.join(project, target)) as file:
                assert file.read() == f"{mode}\n"

            started = time.monotonic()
            with anyio.move_on_after(0.7):
                await client.call_tool("Bash", {"command": "sleep 30"})
                raise AssertionError("the cancelled call returned")
            again = await client.call_tool("Bash", {"command": "echo still here"})
            assert "still here" in text(again), text(again)
            assert time.monotonic() - started < 10, "the cancelled call stopped the session"

            if mode == "legacy":
                await anyio.sleep(0.2)
                tools = [entry.data.get("tool") for entry in logs if isinstance(entry.data, dict)]
                assert "Bash" in tools and "Write" in tools, logs
    assert not [w for w in warnings.seen if "termination" in w], warnings.seen
    logging.getLogger("mcp").removeHandler(warnings)


async def stateless_checks(url: str, token: str, project: str) -> None:
    """2026-07-28 requests have no session: they share one session of the server, so each call
    runs isolated — another client's Read does not count, and no "allow for the rest of this
    session" is offered (it would reach every other client)."""
    choices: list[list[str]] = []

    async def allow(_ctx, params):
        decision = params.requested_schema["properties"]["decision"]
        choices.append([choice["const"] for choice in decision.get("oneOf", [])] or decision.get("enum", []))
        return t.ElicitResult(action="accept", content={"decision": "allow_once"})

    async with httpx2.AsyncClient(headers={"Authorization": f"Bearer {token}"}, timeout=30) as http:
        async with Client(streamable_http_client(url, http_client=http), mode="auto", elicitation_callback=allow) as a:
            async with Client(streamable_http_client(url, http_client=http), mode="auto") as b:
                first = await a.call_tool("Read", {"file_path": os.path.join(project, "a.txt")})
                second = await b.call_tool("Read", {"file_path": os.path.join(project, "a.txt")})
                assert text(first) == text(second) == "1\thello over http\n2\t", (text(first), text(second))
                wrote = await a.call_tool("Write", {"file_path": "stateless-a.txt", "content": "a\n"})
                assert not wrote.is_error, text(wrote)
                assert choices == [["allow_once", "deny"]], choices
                refused = await b.call_tool("Write", {"file_path": "stateless-b.txt", "content": "b\n"})
                assert refused.is_error, text(refused)
                assert not os.path.exists(os.path.join(project, "stateless-b.txt"))


async def root_checks(url: str, token: str, allowed: str) -> None:
    """With `--root ALLOWED`, a session works in the first root its client offers inside ALLOWED;
    a root outside is ignored (the session works in ALLOWED), and a `cd` out of it does not stay."""
    inside = os.path.join(allowed, "sub")

    async def pwd(offered: list[str]) -> tuple[str, str]:
        async def roots(_ctx):
            return t.ListRootsResult(roots=[t.Root(uri=uri) for uri in offered])

        async with httpx2.AsyncClient(headers={"Authorization": f"Bearer {token}"}, timeout=30) as http:
            async with Client(streamable_http_client(url, http_client=http), mode="legacy", list_roots_callback=roots) as client:
                first = text(await client.call_tool("Bash", {"command": "pwd"})).strip()
                await client.call_tool("Bash", {"command": "cd / && pwd"})
                after = text(await client.call_tool("Bash", {"command": "pwd"})).strip()
                return first, after

    assert await pwd([f"file://{inside}"]) == (inside, inside)
    assert await pwd(["file:///", f"file://{inside}"]) == (inside, inside), "the first root inside is taken"
    assert await pwd(["file:///etc"]) == (allowed, allowed)


def main() -> int:
    program = sys.argv[1]
    passed = failed = 0
    with tempfile.TemporaryDirectory() as project:
        project = os.path.realpath(project)
        with open(os.path.join(project, "a.txt"), "w") as file:
            file.write("hello over http\n")
        server, url, token = start(program, project)
        try:
            checks = [(f"serve_http_python_sdk_{mode}", lambda mode=mode: session_checks(url, token, project, mode))
                      for mode in ("legacy", "auto")]

            async def refused() -> None:
                async with httpx2.AsyncClient() as http:
                    answer = await http.post(url, json={})
                    assert answer.status_code == 401, answer.status_code

            checks.append(("serve_http_refuses_a_request_without_the_token", refused))
            checks.append(("serve_http_stateless_requests_are_isolated", lambda: stateless_checks(url, token, project)))
            allowed = os.path.join(project, "allowed")
            os.makedirs(os.path.join(allowed, "sub"))
            rooted, rooted_url, rooted_token = start(program, project, "--root", allowed)
            checks.append(("serve_http_root_confines_the_working_directory",
                           lambda: root_checks(rooted_url, rooted_token, allowed)))
            for name, run in checks:
                try:
                    anyio.run(run)
                except Exception:  # noqa: BLE001 — any failure is the check's
                    traceback.print_exc()
                    print(f"FAIL {name}")
                    failed += 1
                else:
                    print(f"ok   {name}")
                    passed += 1
        finally:
            for running in (server, locals().get("rooted")):
                if running is not None:
                    running.terminate()
                    running.wait(timeout=10)
    print(f"{passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
