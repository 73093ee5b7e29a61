"""Drives `agent-tools serve --http` from the MCP Python SDK (`mcp`, installed with the Claude
Agent SDK): the bearer token in the client's headers, initialize, tools/list, a Read, and the
session's DELETE when the client closes (which the SDK checks for 200 or 204).

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
import traceback

import anyio
import httpx2
from mcp import ClientSession
from mcp.client.streamable_http import streamable_http_client


class Warnings(logging.Handler):
    """Collects the SDK's warnings (a failed session termination is one)."""

    def __init__(self) -> None:
        super().__init__(logging.WARNING)
        self.seen: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.seen.append(record.getMessage())


async def check(program: str, project: str) -> None:
    env = {**os.environ, "HOME": os.path.join(project, ".home"), "XDG_STATE_HOME": os.path.join(project, ".state")}
    server = subprocess.Popen([program, "serve", "--http", "0"], cwd=project, env=env, stderr=subprocess.PIPE, text=True)
    try:
        url = re.search(r"http://\S+/mcp", server.stderr.readline()).group(0)
        token = server.stderr.readline().strip().rsplit(" ", 1)[1]
        warnings = Warnings()
        logging.getLogger("mcp").addHandler(warnings)
        async with httpx2.AsyncClient(headers={"Authorization": f"Bearer {token}"}) as http:
            async with streamable_http_client(url, http_client=http) as (read, write, *_):
                async with ClientSession(read, write) as session:
                    init = await session.initialize()
                    assert init.server_info.name == "agent-tools", init
                    names = [tool.name for tool in (await session.list_tools()).tools]
                    assert "Read" in names and "Bash" in names, names
                    result = await session.call_tool("Read", {"file_path": os.path.join(project, "a.txt")})
                    assert not result.is_error, result
                    assert result.content[0].text == "1\thello over http\n2\t", result.content
        assert not [w for w in warnings.seen if "termination" in w], warnings.seen
        async with httpx2.AsyncClient() as http:
            refused = await http.post(url, json={})
            assert refused.status_code == 401, refused.status_code
    finally:
        server.terminate()
        server.wait(timeout=10)


def main() -> int:
    program = sys.argv[1]
    with tempfile.TemporaryDirectory() as project:
        project = os.path.realpath(project)
        with open(os.path.join(project, "a.txt"), "w") as file:
            file.write("hello over http\n")
        try:
            anyio.run(check, program, project)
        except Exception:  # noqa: BLE001 — any failure is the check's
            traceback.print_exc()
            print("FAIL serve_http_from_the_python_sdk")
            print("0 passed, 1 failed")
            return 1
    print("ok   serve_http_from_the_python_sdk")
    print("1 passed, 0 failed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
