"""Drives `agent-tools agent` from the Claude Agent SDK for Python (its `query()`), against the
scripted fake API in fake_api.py: a Read, a Write the SDK's `can_use_tool` callback allows, a Bash
call an SDK PreToolUse hook denies, the result message, and ClaudeSDKClient.interrupt() during a Bash call.

    python test_sdk.py /path/to/agent-tools

Prints one line per check and `N passed, N failed` at the end; the exit status is 1 when a check
failed.
"""

from __future__ import annotations

import os
import sys
import tempfile
import traceback
from pathlib import Path
from typing import Any

import anyio
from claude_agent_sdk import (
    AssistantMessage,
    ClaudeAgentOptions,
    ClaudeSDKClient,
    HookMatcher,
    PermissionResultAllow,
    PermissionResultDeny,
    ResultMessage,
    SystemMessage,
    ToolResultBlock,
    ToolUseBlock,
    UserMessage,
    query,
)

from fake_api import FakeApi

PROGRAM = sys.argv[1] if len(sys.argv) > 1 else "agent-tools"


def environment(home: Path, api: FakeApi) -> dict[str, str]:
    return {
        "ANTHROPIC_BASE_URL": api.base_url,
        "ANTHROPIC_API_KEY": "dummy",
        "ANTHROPIC_AUTH_TOKEN": "",
        "ANTHROPIC_MODEL": "",
        "AGENT_TOOLS_OPENAI_BASE_URL": "",
        "HOME": str(home / "home"),
        "XDG_STATE_HOME": str(home / "state"),
        "XDG_CONFIG_HOME": str(home / "home" / ".config"),
        "CLAUDE_CONFIG_DIR": "",
    }


async def tool_calls_permissions_and_hooks() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp).resolve()
        project = root / "project"
        project.mkdir()
        (project / "notes.txt").write_text("alpha\nbeta\n")
        api = FakeApi(
            turns=[
                [{"type": "tool_use", "id": "toolu_1", "name": "Read",
                  "input": {"file_path": str(project / "notes.txt")}}],
                [{"type": "tool_use", "id": "toolu_2", "name": "Write",
                  "input": {"file_path": str(project / "new.txt"), "content": "written\n"}}],
                [{"type": "tool_use", "id": "toolu_3", "name": "Bash",
                  "input": {"command": "touch bashed.txt", "description": "make a file"}}],
            ],
            final="All done.",
        )
        asked: list[tuple[str, dict[str, Any]]] = []
        hooked: list[dict[str, Any]] = []

        async def can_use_tool(name: str, tool_input: dict[str, Any], context: Any) -> Any:
            asked.append((name, tool_input))
            if name == "Write":
                return PermissionResultAllow(updated_input=tool_input)
            return PermissionResultDeny(message=f"{name} is not allowed here")

        async def no_bash(hook_input: dict[str, Any], tool_use_id: str | None, context: Any) -> dict[str, Any]:
            hooked.append(dict(hook_input, seen_tool_use_id=tool_use_id))
            return {"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "deny",
                                           "permissionDecisionReason": "Bash is frozen by the SDK hook"}}

        options = ClaudeAgentOptions(
            cli_path=PROGRAM,
            cwd=str(project),
            env=environment(root, api),
            can_use_tool=can_use_tool,
            hooks={"PreToolUse": [HookMatcher(matcher="Bash", hooks=[no_bash])]},
        )
        messages: list[Any] = []
        try:
            async for message in query(prompt="Look at notes.txt, then write new.txt and run a command", options=options):
                messages.append(message)
        finally:
            api.close()

        init = [m for m in messages if isinstance(m, SystemMessage) and m.subtype == "init"]
        assert len(init) == 1, messages
        assert "Read" in init[0].data["tools"], init[0].data
        uses = [block for m in messages if isinstance(m, AssistantMessage) for block in m.content
                if isinstance(block, ToolUseBlock)]
        assert [use.name for use in uses] == ["Read", "Write", "Bash"], uses
        results = {block.tool_use_id: block for m in messages if isinstance(m, UserMessage)
                   if isinstance(m.content, list) for block in m.content if isinstance(block, ToolResultBlock)}
        read = results["toolu_1"]
        read_text = read.content if isinstance(read.content, str) else str(read.content)
        assert "alpha" in read_text and "beta" in read_text, read
        assert not read.is_error, read
        # The permission callback was asked about the Write (only), and the file was written.
        assert [name for name, _ in asked] == ["Write"], asked
        assert asked[0][1]["file_path"] == str(project / "new.txt"), asked
        assert (project / "new.txt").read_text() == "written\n"
        assert not results["toolu_2"].is_error, results["toolu_2"]
        # The SDK hook saw the Bash call and refused it: the command never ran.
        assert len(hooked) == 1, hooked
        assert hooked[0]["hook_event_name"] == "PreToolUse", hooked
        assert hooked[0]["tool_name"] == "Bash", hooked
        assert hooked[0]["tool_input"]["command"] == "touch bashed.txt", hooked
        assert hooked[0]["seen_tool_use_id"] == "toolu_3", hooked
        bash = results["toolu_3"]
        assert bash.is_error, bash
        assert "Bash is frozen by the SDK hook" in str(bash.content), bash
        assert not (project / "bashed.txt").exists()
        # The result message ends the run.
        result = messages[-1]
        assert isinstance(result, ResultMessage), result
        assert result.subtype == "success" and not result.is_error, result
        assert result.result == "All done.", result
        assert result.num_turns == 4, result
        assert result.session_id == init[0].data["session_id"], result
        denied = [denial["tool_name"] for denial in result.permission_denials or []]
        assert denied == ["Bash"], result.permission_denials
        # The model got the hook's reason in the last request.
        assert len(api.requests) == 4, len(api.requests)
        last = api.requests[-1]["messages"]
        assert "Bash is frozen by the SDK hook" in str(last), last


async def a_denied_write_and_an_interrupt_free_second_prompt() -> None:
    """The callback's denial reaches the model; a streamed second prompt continues the session."""
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp).resolve()
        project = root / "project"
        project.mkdir()
        api = FakeApi(
            turns=[[{"type": "tool_use", "id": "toolu_1", "name": "Write",
                     "input": {"file_path": str(project / "no.txt"), "content": "x"}}]],
            final="Understood.",
        )

        async def deny_all(name: str, tool_input: dict[str, Any], context: Any) -> Any:
            return PermissionResultDeny(message="writes are off today")

        async def prompts():
            yield {"type": "user", "message": {"role": "user", "content": "write no.txt"},
                   "parent_tool_use_id": None, "session_id": ""}

        options = ClaudeAgentOptions(cli_path=PROGRAM, cwd=str(project), env=environment(root, api),
                                     can_use_tool=deny_all)
        messages: list[Any] = []
        try:
            async for message in query(prompt=prompts(), options=options):
                messages.append(message)
        finally:
            api.close()
        assert not (project / "no.txt").exists()
        results = [block for m in messages if isinstance(m, UserMessage) if isinstance(m.content, list)
                   for block in m.content if isinstance(block, ToolResultBlock)]
        assert len(results) == 1 and results[0].is_error, results
        assert "writes are off today" in str(results[0].content), results
        result = messages[-1]
        assert isinstance(result, ResultMessage) and result.result == "Understood.", result
        assert [d["tool_name"] for d in result.permission_denials or []] == ["Write"], result


def processes_carrying(token: str) -> list[int]:
    """Live processes with an argument containing ``.<token>``."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            args = (entry / "cmdline").read_bytes().split(b"\0")
            state = (entry / "stat").read_text().rsplit(") ", 1)[1][:1]
        except (OSError, IndexError):
            continue
        if state not in "ZX" and any(f".{token}".encode() in arg for arg in args):
            found.append(int(entry.name))
    return found


async def the_sdk_interrupt_kills_a_running_command() -> None:
    """ClaudeSDKClient.interrupt() during a Bash call: the command's tree is killed at once, so
    what it would still do (touch late.txt) never happens, and the run ends as interrupted."""
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp).resolve()
        project = root / "project"
        project.mkdir()
        token = f"{os.getpid()}77"
        started, late = project / "started", project / "late.txt"
        command = f"touch {started}; sleep 3001.{token}; touch {late}"
        api = FakeApi(turns=[[{"type": "tool_use", "id": "toolu_1", "name": "Bash",
                                "input": {"command": command, "description": "wait"}}]],
                      final="Stopped.")
        options = ClaudeAgentOptions(cli_path=PROGRAM, cwd=str(project), env=environment(root, api),
                                     permission_mode="bypassPermissions")
        messages: list[Any] = []
        try:
            async with ClaudeSDKClient(options=options) as client:
                await client.query("wait a while")
                interrupted = False
                async for message in client.receive_messages():
                    messages.append(message)
                    if not interrupted and isinstance(message, AssistantMessage) and any(
                            isinstance(block, ToolUseBlock) for block in message.content):
                        with anyio.fail_after(30):
                            while not (started.exists() and processes_carrying(token)):
                                await anyio.sleep(0.02)
                        await client.interrupt()
                        interrupted = True
                    if isinstance(message, ResultMessage):
                        break
        finally:
            api.close()
        result = messages[-1]
        assert isinstance(result, ResultMessage) and result.subtype == "error_during_execution", result
        assert processes_carrying(token) == [], processes_carrying(token)
        assert not late.exists()
        assert len(api.requests) == 1, len(api.requests)


def run_checks(checks: list[Any]) -> int:
    """Runs each check (within 120 s), prints `ok`/`FAIL` per check and a count; 1 if any failed."""
    passed = failed = 0
    for check in checks:
        async def bounded(check: Any = check) -> None:
            with anyio.fail_after(120):
                await check()

        try:
            anyio.run(bounded)
        except BaseException:  # noqa: BLE001 - report every failure and go on
            failed += 1
            print(f"FAIL {check.__name__}")
            traceback.print_exc()
        else:
            passed += 1
            print(f"ok   {check.__name__}")
    print(f"{passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(run_checks([tool_calls_permissions_and_hooks, a_denied_write_and_an_interrupt_free_second_prompt,
                         the_sdk_interrupt_kills_a_running_command]))
