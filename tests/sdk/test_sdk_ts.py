"""Drives `agent-tools agent` from the Claude Agent SDK for TypeScript (pinned in ts/package.json,
run by ts/drive.mjs on Node) against the scripted fake API: an in-process SDK MCP tool
(`createSdkMcpServer` + `tool()`, announced in initialize's `sdkMcpServers`), the system prompt
the TypeScript SDK sends only in `initialize`, and programmatic agents.

    python test_sdk_ts.py /path/to/agent-tools /path/to/node

Prints one line per check and `N passed, N failed`; the exit status is 1 when a check failed.
"""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

import anyio

from fake_api import FakeApi
from test_sdk import environment, run_checks

PROGRAM = sys.argv[1] if len(sys.argv) > 1 else "agent-tools"
NODE = sys.argv[2] if len(sys.argv) > 2 else "node"
DRIVER = Path(__file__).resolve().parent / "ts" / "drive.mjs"


async def drive(api: FakeApi, root: Path, prompt: str, options: dict[str, Any], calculator: bool = False,
                controls: list[list[Any]] | None = None) -> list[dict]:
    """Runs drive.mjs in a thread (the fake API answers meanwhile) and returns the printed messages."""
    project = root / "project"
    project.mkdir(exist_ok=True)
    spec = {"program": PROGRAM, "cwd": str(project), "env": environment(root, api), "prompt": prompt,
            "options": options, "calculator": calculator, "controls": controls or []}

    def run() -> subprocess.CompletedProcess[str]:
        return subprocess.run([NODE, str(DRIVER), json.dumps(spec)], capture_output=True, text=True, timeout=100)

    done = await anyio.to_thread.run_sync(run)
    messages = [json.loads(line) for line in done.stdout.splitlines() if line.startswith("{")]
    errors = [m for m in messages if m.get("type") == "driver_error"]
    assert done.returncode == 0 and not errors, (done.returncode, errors, done.stderr[-3000:])
    return messages


def results_by_id(messages: list[dict]) -> dict[str, dict]:
    return {block["tool_use_id"]: block for m in messages if m.get("type") == "user"
            for block in (m["message"]["content"] if isinstance(m["message"]["content"], list) else [])
            if block.get("type") == "tool_result"}


def text_of(block: dict) -> str:
    content = block.get("content")
    if isinstance(content, str):
        return content
    return "".join(part.get("text", "") for part in content or [])


async def an_sdk_mcp_tool_from_typescript() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp).resolve()
        api = FakeApi(turns=[[{"type": "tool_use", "id": "toolu_1", "name": "mcp__calc__add",
                               "input": {"a": 5, "b": 37}}]], final="42 it is.")
        try:
            messages = await drive(api, root, "add 5 and 37", {"allowedTools": ["mcp__calc__add"]}, calculator=True)
        finally:
            api.close()
        init = next(m for m in messages if m["type"] == "system" and m["subtype"] == "init")
        assert "mcp__calc__add" in init["tools"], init["tools"]
        assert [m["args"] for m in messages if m["type"] == "calculator_call"] == [{"a": 5, "b": 37}], messages
        result = results_by_id(messages)["toolu_1"]
        assert not result.get("is_error") and text_of(result) == "sum=42", result
        final = messages[-1]
        assert final["type"] == "result" and final["result"] == "42 it is." and not final["is_error"], final


async def the_system_prompt_and_agents_from_typescript() -> None:
    """The TypeScript SDK sends `systemPrompt` (and appendSystemPrompt, agents) only in initialize."""
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp).resolve()
        marker = "You are the TS-CHECKER agent."
        api = FakeApi(
            turns=[[{"type": "tool_use", "id": "toolu_1", "name": "Agent",
                     "input": {"subagent_type": "checker", "description": "check", "prompt": "Check it.",
                               "run_in_background": False}}]],
            final="Checked.",
            scripts={marker: ([], "All correct.")},
        )
        options = {
            "systemPrompt": "You are a terse assistant named Quill.",
            "agents": {"checker": {"description": "Checks answers.", "prompt": marker, "tools": ["Read"]}},
            "permissionMode": "bypassPermissions",
            "allowDangerouslySkipPermissions": True,
        }
        try:
            messages = await drive(api, root, "check something", options)
        finally:
            api.close()
        system = json.dumps(api.requests[0]["system"])
        assert "You are a terse assistant named Quill." in system, system[:500]
        result = results_by_id(messages)["toolu_1"]
        assert "All correct." in text_of(result), result
        sub = [r for r in api.requests if marker in json.dumps(r.get("system"))]
        assert len(sub) == 1 and [t["name"] for t in sub[0]["tools"]] == ["Read"], sub
        assert messages[-1]["type"] == "result" and messages[-1]["result"] == "Checked.", messages[-1]


async def mcp_servers_sent_in_initialize() -> None:
    """The TypeScript SDK sends a program's stdio MCP servers in initialize (with
    --await-initialize) and ends the session unless `mcp_servers_applied` comes back; the
    server's tool is then in the pool like any other."""
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp).resolve()
        api = FakeApi(turns=[[{"type": "tool_use", "id": "toolu_1", "name": "mcp__echo__shout",
                               "input": {"text": "quiet"}}]], final="Shouted.")
        server = Path(__file__).resolve().parent / "mcp_echo_server.py"
        options = {
            "mcpServers": {"echo": {"type": "stdio", "command": sys.executable, "args": [str(server)]}},
            "allowedTools": ["mcp__echo__shout"],
        }
        try:
            messages = await drive(api, root, "shout quiet", options)
        finally:
            api.close()
        init = next(m for m in messages if m["type"] == "system" and m["subtype"] == "init")
        assert {"name": "echo", "status": "connected"} in init["mcp_servers"], init["mcp_servers"]
        result = results_by_id(messages)["toolu_1"]
        assert not result.get("is_error") and "QUIET" in text_of(result), result
        assert messages[-1]["type"] == "result" and messages[-1]["result"] == "Shouted.", messages[-1]


async def the_query_objects_control_methods() -> None:
    """The TypeScript Query object's methods, each a control request: commands, models, agents,
    MCP status, a server switched off and on, the model and thinking budget changed, an MCP
    resource, servers set at run time, initialize sent again; unsupported ones say so."""
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp).resolve()
        api = FakeApi(turns=[], final="Ready.")
        server = Path(__file__).resolve().parent / "mcp_echo_server.py"
        echo = {"type": "stdio", "command": sys.executable, "args": [str(server)]}
        controls = [
            ["supportedCommands"], ["supportedModels"], ["supportedAgents"], ["mcpServerStatus"],
            ["toggleMcpServer", "calc", False], ["mcpServerStatus"], ["toggleMcpServer", "calc", True],
            ["setModel", "opus"], ["setMaxThinkingTokens", 1024],
            ["setMcpServers", {"echo2": echo}], ["mcpServerStatus"],
            ["reinitialize"], ["updateSettings", "localSettings", {"permissions": {"deny": ["WebSearch"]}}],
            ["applyFlagSettings", {"theme": "dark"}],
        ]
        local = root / "project" / ".claude" / "settings.local.json"
        local.parent.mkdir(parents=True)
        local.write_text('{"permissions": {"deny": ["Bash(rm:*)"]}, "env": {"A": "1"}}')
        try:
            messages = await drive(api, root, "hello", {}, calculator=True, controls=controls)
        finally:
            api.close()
        answers = [(m["method"], m.get("value", m.get("error"))) for m in messages
                   if m["type"] in ("control_result", "control_error")]
        values = dict(answers[:4])
        assert {"compact", "cost"} <= {c["name"] for c in values["supportedCommands"]}, values["supportedCommands"]
        assert any(m["value"] == "opus" for m in values["supportedModels"]), values["supportedModels"]
        assert "general-purpose" in [a["name"] for a in values["supportedAgents"]], values["supportedAgents"]
        calc = next(s for s in values["mcpServerStatus"] if s["name"] == "calc")
        assert calc["status"] == "connected", values["mcpServerStatus"]
        assert {"name": "calc", "status": "disabled"} in answers[5][1], answers[5]
        assert answers[9][0] == "setMcpServers" and answers[9][1]["added"] == ["echo2"], answers[9]
        assert any(s["name"] == "echo2" and s["status"] == "connected" for s in answers[10][1]), answers[10]
        assert answers[11][0] == "reinitialize" and answers[11][1]["claude_code_version"] == "2.1.332", answers[11]
        errors = [m for m in messages if m["type"] == "control_error"]
        assert [e["method"] for e in errors] == ["applyFlagSettings"], errors
        assert "theme" in errors[0]["error"], errors[0]
        # The project's local settings got the rule beside what they held.
        assert json.loads(local.read_text()) == {"permissions": {"deny": ["Bash(rm:*)", "WebSearch"]}, "env": {"A": "1"}}
        assert [m["result"] for m in messages if m["type"] == "result"] == ["Ready."], messages


if __name__ == "__main__":
    sys.exit(run_checks([an_sdk_mcp_tool_from_typescript, the_system_prompt_and_agents_from_typescript,
                         mcp_servers_sent_in_initialize, the_query_objects_control_methods]))
