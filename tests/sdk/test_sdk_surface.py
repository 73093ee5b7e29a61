"""What SDK programs extend the agent with, driven from the Claude Agent SDK for Python against the
scripted fake API (fake_api.py): an in-process SDK MCP tool (`create_sdk_mcp_server` + `@tool`)
called by the model, and programmatic sub-agents (`agents=`).

    python test_sdk_surface.py /path/to/agent-tools

Prints one line per check and `N passed, N failed`; the exit status is 1 when a check failed.
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path
from typing import Any

from claude_agent_sdk import (
    AgentDefinition,
    AssistantMessage,
    ClaudeAgentOptions,
    ResultMessage,
    SystemMessage,
    ToolResultBlock,
    ToolUseBlock,
    UserMessage,
    create_sdk_mcp_server,
    query,
    tool,
)

from fake_api import FakeApi
from test_sdk import environment, run_checks

PROGRAM = sys.argv[1] if len(sys.argv) > 1 else "agent-tools"


def tool_results(messages: list[Any]) -> dict[str, ToolResultBlock]:
    return {block.tool_use_id: block for m in messages if isinstance(m, UserMessage)
            if isinstance(m.content, list) for block in m.content if isinstance(block, ToolResultBlock)}


def text_of(block: ToolResultBlock) -> str:
    if isinstance(block.content, str):
        return block.content
    return "".join(part.get("text", "") for part in block.content or [] if isinstance(part, dict))


async def an_sdk_mcp_tool_is_called_by_the_model() -> None:
    """The SDK's in-process server is reached through `mcp_message`: its tool is in the pool as
    mcp__calc__add, runs in this Python process, and its answer reaches the model."""
    calls: list[dict[str, Any]] = []

    @tool("add", "Adds two numbers.", {"a": float, "b": float})
    async def add(args: dict[str, Any]) -> dict[str, Any]:
        calls.append(args)
        return {"content": [{"type": "text", "text": f"sum={args['a'] + args['b']:g}"}]}

    calculator = create_sdk_mcp_server("calc", tools=[add])
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp).resolve()
        project = root / "project"
        project.mkdir()
        api = FakeApi(turns=[[{"type": "tool_use", "id": "toolu_1", "name": "mcp__calc__add",
                               "input": {"a": 2, "b": 40}}]], final="It is 42.")
        options = ClaudeAgentOptions(cli_path=PROGRAM, cwd=str(project), env=environment(root, api),
                                     mcp_servers={"calc": calculator}, allowed_tools=["mcp__calc__add"])
        messages: list[Any] = []
        try:
            async for message in query(prompt="add 2 and 40", options=options):
                messages.append(message)
        finally:
            api.close()
        init = next(m for m in messages if isinstance(m, SystemMessage) and m.subtype == "init")
        assert "mcp__calc__add" in init.data["tools"], init.data["tools"]
        assert {"name": "calc", "status": "connected"} in init.data["mcp_servers"], init.data["mcp_servers"]
        assert calls == [{"a": 2, "b": 40}], calls
        result = tool_results(messages)["toolu_1"]
        assert not result.is_error and text_of(result) == "sum=42", result
        # The model was offered the tool with the server's schema, and got the answer.
        offered = {t["name"]: t for t in api.requests[0]["tools"]}
        assert offered["mcp__calc__add"]["input_schema"]["properties"]["a"] == {"type": "number"}, offered
        assert "sum=42" in str(api.requests[-1]["messages"][-1]), api.requests[-1]["messages"][-1]
        final = messages[-1]
        assert isinstance(final, ResultMessage) and final.result == "It is 42." and not final.is_error, final


async def programmatic_agents_run_as_sub_agents() -> None:
    """`agents=` defines a sub-agent type the Agent tool runs: with its prompt as the system
    prompt and only its tools."""
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp).resolve()
        project = root / "project"
        project.mkdir()
        marker = "You are the REVIEWER-7 agent."
        api = FakeApi(
            turns=[[{"type": "tool_use", "id": "toolu_1", "name": "Agent",
                     "input": {"subagent_type": "reviewer", "description": "review the notes",
                               "prompt": "Review the notes, please.", "run_in_background": False}}]],
            final="The reviewer is done.",
            scripts={marker: ([], "Reviewed: all fine.")},
        )
        agents = {"reviewer": AgentDefinition(description="Reviews text for mistakes.",
                                              prompt=f"{marker} Review what you are given.", tools=["Read", "Grep"])}
        options = ClaudeAgentOptions(cli_path=PROGRAM, cwd=str(project), env=environment(root, api),
                                     agents=agents, permission_mode="bypassPermissions")
        messages: list[Any] = []
        try:
            async for message in query(prompt="get the notes reviewed", options=options):
                messages.append(message)
        finally:
            api.close()
        uses = [b for m in messages if isinstance(m, AssistantMessage) for b in m.content if isinstance(b, ToolUseBlock)]
        assert [use.name for use in uses][:1] == ["Agent"], uses
        result = tool_results(messages)["toolu_1"]
        assert not result.is_error and "Reviewed: all fine." in text_of(result), result
        # The main agent's Agent tool lists the type; the sub-agent ran with its prompt and tools.
        agent_tool = next(t for t in api.requests[0]["tools"] if t["name"] == "Agent")
        assert "reviewer: Reviews text for mistakes." in agent_tool["description"], agent_tool["description"]
        sub = [r for r in api.requests if marker in str(r.get("system"))]
        assert len(sub) == 1, [str(r.get("system"))[:80] for r in api.requests]
        assert sorted(t["name"] for t in sub[0]["tools"]) == ["Grep", "Read"], [t["name"] for t in sub[0]["tools"]]
        final = messages[-1]
        assert isinstance(final, ResultMessage) and final.result == "The reviewer is done.", final


if __name__ == "__main__":
    sys.exit(run_checks([an_sdk_mcp_tool_is_called_by_the_model, programmatic_agents_run_as_sub_agents]))
