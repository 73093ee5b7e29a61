"""What SDK programs extend the agent with, driven from the Claude Agent SDK for Python against the
scripted fake API (fake_api.py): an in-process SDK MCP tool (`create_sdk_mcp_server` + `@tool`)
called by the model, and programmatic sub-agents (`agents=`).

    python test_sdk_surface.py /path/to/agent-tools

Prints one line per check and `N passed, N failed`; the exit status is 1 when a check failed.
"""

from __future__ import annotations

import json
import sys
import tempfile
from pathlib import Path
from typing import Any

import anyio
from claude_agent_sdk import (
    AgentDefinition,
    AssistantMessage,
    ClaudeAgentOptions,
    ClaudeSDKClient,
    HookMatcher,
    TaskNotificationMessage,
    TaskProgressMessage,
    TaskStartedMessage,
    TaskUpdatedMessage,
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


def calculator_server() -> Any:
    @tool("add", "Adds two numbers.", {"a": float, "b": float})
    async def add(args: dict[str, Any]) -> dict[str, Any]:
        return {"content": [{"type": "text", "text": f"sum={args['a'] + args['b']:g}"}]}

    return create_sdk_mcp_server("calc", tools=[add])


async def until_result(client: ClaudeSDKClient, into: list[Any]) -> ResultMessage:
    async for message in client.receive_messages():
        into.append(message)
        if isinstance(message, ResultMessage):
            return message
    raise AssertionError("no result")


async def control_requests_are_answered() -> None:
    """Each control request an SDK sends a running session: model, thinking, context usage, a
    background task stopped, MCP servers switched off and on, settings and rules, usage, and
    errors that name what is not done."""
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp).resolve()
        project = root / "project"
        project.mkdir()
        api = FakeApi(turns=[[{"type": "tool_use", "id": "toolu_1", "name": "Bash",
                               "input": {"command": "sleep 3000", "description": "wait long",
                                         "run_in_background": True}}]], final="fine")
        options = ClaudeAgentOptions(cli_path=PROGRAM, cwd=str(project), env=environment(root, api),
                                     mcp_servers={"calc": calculator_server()}, permission_mode="bypassPermissions")
        messages: list[Any] = []
        try:
            async with ClaudeSDKClient(options=options) as client:
                info = await client.get_server_info()
                assert info["claude_code_version"] == "2.1.332" and info["agent_tools_version"], info
                assert any(model["value"] == "sonnet" for model in info["models"]), info["models"]
                await client.query("start something slow")
                await until_result(client, messages)
                started = [m for m in messages if isinstance(m, TaskStartedMessage)]
                assert len(started) == 1 and started[0].task_type == "local_bash", started
                assert started[0].tool_use_id == "toolu_1" and started[0].description == "wait long", started

                status = await client.get_mcp_status()
                calc = next(s for s in status["mcpServers"] if s["name"] == "calc")
                assert calc["status"] == "connected" and calc["tools"] == [{"name": "mcp__calc__add"}], status

                usage = await client.get_context_usage()
                names = [c["name"] for c in usage["categories"]]
                assert "System prompt" in names and "Messages" in names and "Free space" in names, names
                assert 0 < usage["totalTokens"] < usage["maxTokens"] and usage["model"], usage
                assert any(t["name"] == "mcp__calc__add" for t in usage["mcpTools"]), usage["mcpTools"]

                # The stopped task's end comes as task_updated (killed) and task_notification (stopped).
                await client.stop_task(started[0].task_id)
                ended: list[Any] = []
                with anyio.fail_after(30):
                    async for message in client.receive_messages():
                        ended.append(message)
                        if isinstance(message, TaskNotificationMessage):
                            break
                updated = [m for m in ended if isinstance(m, TaskUpdatedMessage)]
                assert updated and updated[0].data["patch"]["status"] == "killed", ended
                assert ended[-1].status == "stopped" and ended[-1].task_id == started[0].task_id, ended[-1]
                try:
                    await client.stop_task(started[0].task_id)
                    raise AssertionError("a stopped task stopped twice")
                except Exception as error:  # noqa: BLE001 - the SDK raises a plain Exception
                    assert "not running" in str(error), error

                # Switched off, the server's tool leaves the next request; on again, it is back.
                await client.toggle_mcp_server("calc", False)
                status = await client.get_mcp_status()
                assert {"name": "calc", "status": "disabled"} in status["mcpServers"], status
                await client.set_model("opus")
                query = client._query  # the SDK's own control channel, for the TypeScript-only subtypes
                await query._send_control_request({"subtype": "set_max_thinking_tokens", "max_thinking_tokens": 2048})
                await client.query("again")
                await until_result(client, messages)
                second = api.requests[-1]
                assert "mcp__calc__add" not in [t["name"] for t in second["tools"]], second["tools"]
                assert second["model"].startswith("claude-opus"), second["model"]
                assert second["thinking"] == {"type": "enabled", "budget_tokens": 2048}, second.get("thinking")
                await client.toggle_mcp_server("calc", True)
                await client.reconnect_mcp_server("calc")
                await client.set_model(None)
                await query._send_control_request({"subtype": "set_max_thinking_tokens", "max_thinking_tokens": None})
                await client.query("once more")
                await until_result(client, messages)
                third = api.requests[-1]
                assert "mcp__calc__add" in [t["name"] for t in third["tools"]], third["tools"]
                assert not third["model"].startswith("claude-opus") and "thinking" not in third, third["model"]
                try:
                    await client.reconnect_mcp_server("nope")
                    raise AssertionError("an unknown server reconnected")
                except Exception as error:  # noqa: BLE001
                    assert "nope" in str(error), error

                await query._send_control_request(
                    {"subtype": "apply_flag_settings", "settings": {"permissions": {"deny": ["WebFetch"]}}})
                settings = await query._send_control_request({"subtype": "get_settings"})
                assert "WebFetch" in settings["effective"]["permissions"]["deny"], settings
                rules = await query._send_control_request({"subtype": "list_permission_rules"})
                assert {"behavior": "deny", "source": "session", "rule": "WebFetch", "editability": "session"} \
                    in rules["state"]["rules"], rules
                spent = await query._send_control_request({"subtype": "get_usage"})
                assert spent["session"]["model_usage"], spent
                for request, expected in [
                    ({"subtype": "rewind_files", "user_message_id": "u1"}, "checkpoints"),
                    ({"subtype": "frobnicate"}, "Unsupported control request subtype: frobnicate"),
                    ({"subtype": "apply_flag_settings", "settings": {"theme": "dark"}}, "theme"),
                ]:
                    try:
                        await query._send_control_request(request)
                        raise AssertionError(f"{request} was not refused")
                    except Exception as error:  # noqa: BLE001
                        assert expected in str(error), (request, error)
        finally:
            api.close()


async def a_background_agent_keeps_the_python_sdk_listening() -> None:
    """With a hook registered, query() keeps its input open until the session is idle: after the
    first result a background agent still works, its start and end come as task lines, and its
    report is a turn of its own whose result the SDK still yields."""
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp).resolve()
        project = root / "project"
        project.mkdir()
        marker = "BG-AGENT-JOB-9"
        api = FakeApi(
            turns=[[{"type": "tool_use", "id": "toolu_1", "name": "Agent",
                     "input": {"subagent_type": "general-purpose", "description": "slow job",
                               "prompt": f"{marker}: look around."}}],
                   [{"type": "text", "text": "Started the agent."}]],
            final="Report received.",
            scripts={marker: ([[{"type": "tool_use", "id": "toolu_s1", "name": "Glob", "input": {"pattern": "*"}}]],
                              "AGENT-REPORT-42")},
            delays={marker: 0.7},
        )
        hooked: list[str] = []

        async def note(hook_input: dict[str, Any], tool_use_id: str | None, context: Any) -> dict[str, Any]:
            hooked.append(hook_input["hook_event_name"])
            return {}

        options = ClaudeAgentOptions(cli_path=PROGRAM, cwd=str(project), env=environment(root, api),
                                     permission_mode="bypassPermissions",
                                     hooks={"PostToolUse": [HookMatcher(matcher="Agent", hooks=[note])]})
        messages: list[Any] = []
        try:
            async for message in query(prompt="start a background job", options=options):
                messages.append(message)
        finally:
            api.close()
        results = [m.result for m in messages if isinstance(m, ResultMessage)]
        assert results == ["Started the agent.", "Report received."], results
        started = [m for m in messages if isinstance(m, TaskStartedMessage)]
        assert len(started) == 1 and started[0].task_type == "local_agent", started
        done = [m for m in messages if isinstance(m, TaskNotificationMessage)]
        assert len(done) == 1 and done[0].status == "completed" and done[0].task_id == started[0].task_id, done
        assert "AGENT-REPORT-42" in done[0].summary, done[0]
        progress = [m for m in messages if isinstance(m, TaskProgressMessage)]
        assert len(progress) == 1 and progress[0].task_id == started[0].task_id, progress
        assert progress[0].last_tool_name == "Glob" and progress[0].usage["tool_uses"] == 1, progress[0]
        assert progress[0].usage["total_tokens"] == 120, progress[0].usage
        # The report came after the first result: the SDK was still listening.
        first_result = next(i for i, m in enumerate(messages) if isinstance(m, ResultMessage))
        assert messages.index(done[0]) > first_result, [type(m).__name__ for m in messages]
        assert "AGENT-REPORT-42" in json.dumps(api.requests[-1]["messages"]), api.requests[-1]["messages"][-1]
        assert hooked == ["PostToolUse"], hooked


async def slash_commands_run_in_the_session() -> None:
    """A prompt starting with / is a command: /cost and /context answer without the model,
    /compact FOCUS summarises with the focus, a user's custom command expands into the prompt,
    /clear starts afresh; init lists them all."""
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp).resolve()
        project = root / "project"
        project.mkdir()
        commands = root / "home" / ".claude" / "commands"
        commands.mkdir(parents=True)
        (commands / "greet.md").write_text("---\ndescription: Greets someone\n---\nSay hello to $ARGUMENTS, warmly.\n")
        api = FakeApi(turns=[], final="Done.")
        options = ClaudeAgentOptions(cli_path=PROGRAM, cwd=str(project), env=environment(root, api))
        messages: list[Any] = []
        try:
            async with ClaudeSDKClient(options=options) as client:
                info = await client.get_server_info()
                assert {"compact", "clear", "context", "cost", "greet"} <= {c["name"] for c in info["commands"]}, info
                await client.query("/cost")
                cost = await until_result(client, messages)
                init = next(m for m in messages if isinstance(m, SystemMessage) and m.subtype == "init")
                assert {"compact", "cost", "greet"} <= set(init.data["slash_commands"]), init.data["slash_commands"]
                output = [m for m in messages if isinstance(m, SystemMessage) and m.subtype == "local_command_output"]
                assert len(output) == 1 and output[0].data["content"].startswith("Total cost: $"), output
                assert cost.num_turns == 0 and cost.result == output[0].data["content"] and not api.requests, cost

                await client.query("/greet Ada")
                await until_result(client, messages)
                sent = json.dumps(api.requests[-1]["messages"])
                assert "Say hello to Ada, warmly." in sent and "<command-name>/greet</command-name>" in sent, sent

                await client.query("/context")
                await until_result(client, messages)
                context = [m for m in messages if isinstance(m, SystemMessage) and m.subtype == "local_command_output"]
                assert context[-1].data["content"].startswith("Context: "), context[-1].data
                assert "Messages: " in context[-1].data["content"], context[-1].data

                asked = len(api.requests)
                await client.query("/compact keep the greeting")
                compacted = await until_result(client, messages)
                boundary = [m for m in messages if isinstance(m, SystemMessage) and m.subtype == "compact_boundary"]
                assert boundary and boundary[-1].data["compact_metadata"]["trigger"] == "manual", boundary
                assert len(api.requests) == asked + 1 and not compacted.is_error, compacted
                summary_request = json.dumps(api.requests[-1]["messages"][-1])
                assert "focus on: keep the greeting" in summary_request, summary_request

                await client.query("/clear")
                await until_result(client, messages)
                await client.query("fresh start")
                await until_result(client, messages)
                after = api.requests[-1]["messages"]
                assert "Say hello to Ada" not in json.dumps(after) and "fresh start" in json.dumps(after), after
            # The setting sources decide whose commands there are: the project's only, not the user's.
            only_project = ClaudeAgentOptions(cli_path=PROGRAM, cwd=str(project), env=environment(root, api),
                                              setting_sources=["project"])
            async for message in query(prompt="/cost", options=only_project):
                if isinstance(message, SystemMessage) and message.subtype == "init":
                    assert "greet" not in message.data["slash_commands"], message.data["slash_commands"]
                    assert "cost" in message.data["slash_commands"], message.data["slash_commands"]
        finally:
            api.close()


async def the_main_conversation_runs_as_an_agent() -> None:
    """`--agent NAME` (the SDKs' `agent` option, here through extra_args): the conversation has
    the agent's prompt and only its tools; a call outside them is refused and reported with a
    permission_denied line; init lists the agents."""
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp).resolve()
        project = root / "project"
        project.mkdir()
        marker = "You are the LOOKER-3 agent: only look."
        api = FakeApi(turns=[[{"type": "tool_use", "id": "toolu_1", "name": "Bash",
                               "input": {"command": "touch made.txt", "description": "make"}}]],
                      final="Could not.")
        agents = {"looker": AgentDefinition(description="Only looks.", prompt=marker, tools=["Read", "Glob"])}
        options = ClaudeAgentOptions(cli_path=PROGRAM, cwd=str(project), env=environment(root, api), agents=agents,
                                     permission_mode="bypassPermissions", extra_args={"agent": "looker"})
        messages: list[Any] = []
        try:
            async for message in query(prompt="make a file", options=options):
                messages.append(message)
        finally:
            api.close()
        init = next(m for m in messages if isinstance(m, SystemMessage) and m.subtype == "init")
        assert {"looker", "general-purpose", "Explore"} <= set(init.data["agents"]), init.data["agents"]
        assert marker in json.dumps(api.requests[0]["system"]), api.requests[0]["system"]
        assert not (project / "made.txt").exists()
        denied = [m for m in messages if isinstance(m, SystemMessage) and m.subtype == "permission_denied"]
        assert len(denied) == 1 and denied[0].data["tool_name"] == "Bash", denied
        assert denied[0].data["tool_use_id"] == "toolu_1", denied[0].data
        result = messages[-1]
        assert isinstance(result, ResultMessage) and [d["tool_name"] for d in result.permission_denials] == ["Bash"]


async def an_overloaded_api_is_retried_with_api_retry_lines() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp).resolve()
        project = root / "project"
        project.mkdir()
        api = FakeApi(turns=[], final="Made it.", overloaded=2)
        options = ClaudeAgentOptions(cli_path=PROGRAM, cwd=str(project), env=environment(root, api))
        messages: list[Any] = []
        try:
            async for message in query(prompt="hello", options=options):
                messages.append(message)
        finally:
            api.close()
        retries = [m.data for m in messages if isinstance(m, SystemMessage) and m.subtype == "api_retry"]
        assert [r["attempt"] for r in retries] == [1, 2], retries
        assert retries[0]["error_status"] == 529 and retries[0]["retry_delay_ms"] >= 0, retries[0]
        assert messages[-1].result == "Made it." and len(api.requests) == 3, messages[-1]


if __name__ == "__main__":
    sys.exit(run_checks([an_sdk_mcp_tool_is_called_by_the_model, programmatic_agents_run_as_sub_agents,
                         control_requests_are_answered, a_background_agent_keeps_the_python_sdk_listening,
                         slash_commands_run_in_the_session, the_main_conversation_runs_as_an_agent,
                         an_overloaded_api_is_retried_with_api_retry_lines]))
