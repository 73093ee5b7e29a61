"""SDK hook callbacks for the hook events, driven from the Claude Agent SDK for Python against the
scripted fake API (fake_api.py): each callback registered in `hooks=` fires once where its event
happens, with the documented input, and `include_hook_events=True` brings the
`system/hook_started` and `system/hook_response` lines.

    python test_sdk_hooks.py /path/to/agent-tools

Prints one line per check and `N passed, N failed`; the exit status is 1 when a check failed.
"""

from __future__ import annotations

import json
import sys
import tempfile
from pathlib import Path
from typing import Any

from claude_agent_sdk import (
    ClaudeAgentOptions,
    ClaudeSDKClient,
    HookMatcher,
    ResultMessage,
    SystemMessage,
    ToolResultBlock,
    UserMessage,
    query,
)

from fake_api import FakeApi
from test_sdk import environment, run_checks

PROGRAM = sys.argv[1] if len(sys.argv) > 1 else "agent-tools"

BASE = ("session_id", "transcript_path", "cwd", "hook_event_name")


class Recorder:
    """Keeps each callback's inputs, by event, and answers what it is told to."""

    def __init__(self) -> None:
        self.inputs: dict[str, list[dict[str, Any]]] = {}

    def callback(self, event: str, answer: Any = None) -> Any:
        async def hook(hook_input: dict[str, Any], tool_use_id: str | None, context: Any) -> dict[str, Any]:
            self.inputs.setdefault(event, []).append(dict(hook_input, seen_tool_use_id=tool_use_id))
            reply = answer(hook_input) if callable(answer) else answer
            return reply or {}
        return hook

    def matcher(self, event: str, matcher: str | None = None, answer: Any = None) -> HookMatcher:
        return HookMatcher(matcher=matcher, hooks=[self.callback(event, answer)])

    def once(self, event: str, session_id: str, **where: Any) -> dict[str, Any]:
        """The single input of `event` (among those whose fields equal `where`), its common fields
        checked."""
        found = [i for i in self.inputs.get(event, []) if all(i.get(k) == v for k, v in where.items())]
        assert len(found) == 1, (event, where, self.inputs.get(event))
        hook_input = found[0]
        for field in BASE:
            assert field in hook_input, (field, hook_input)
        assert hook_input["hook_event_name"] == event, hook_input
        assert hook_input["session_id"] == session_id, hook_input
        assert hook_input.get("permission_mode") == "default", hook_input
        return hook_input


def tool_results(messages: list[Any]) -> dict[str, ToolResultBlock]:
    return {block.tool_use_id: block for m in messages if isinstance(m, UserMessage)
            if isinstance(m.content, list) for block in m.content if isinstance(block, ToolResultBlock)}


async def sdk_callbacks_fire_once_each_with_their_input() -> None:
    """A session of five rounds — a Read, a Read of a missing file, a Write a PermissionRequest
    callback refuses, a Bash nobody can approve, a foreground sub-agent that reads — with a
    callback on each event; then set_model through Pre/PostModelSwitch callbacks."""
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp).resolve()
        project = root / "project"
        project.mkdir()
        (project / "a.txt").write_text("alpha\n")
        ended = root / "session-end.json"
        sub_marker = "SUB-HOOKS: read a.txt"
        api = FakeApi(
            turns=[
                [{"type": "tool_use", "id": "toolu_read", "name": "Read", "input": {"file_path": str(project / "a.txt")}}],
                [{"type": "tool_use", "id": "toolu_missing", "name": "Read",
                  "input": {"file_path": str(project / "missing.txt")}}],
                [{"type": "tool_use", "id": "toolu_write", "name": "Write",
                  "input": {"file_path": str(project / "new.txt"), "content": "x\n"}}],
                [{"type": "tool_use", "id": "toolu_bash", "name": "Bash",
                  "input": {"command": "touch bashed.txt", "description": "make a file"}}],
                [{"type": "tool_use", "id": "toolu_agent", "name": "Agent",
                  "input": {"subagent_type": "general-purpose", "description": "read a.txt",
                            "prompt": sub_marker, "run_in_background": False}}],
            ],
            final="All done.",
            scripts={sub_marker: ([[{"type": "tool_use", "id": "toolu_sub", "name": "Read",
                                     "input": {"file_path": str(project / "a.txt")}}]], "It says alpha.")},
        )
        hooks = Recorder()
        deny_write = {"hookSpecificOutput": {"hookEventName": "PermissionRequest",
                                             "decision": {"behavior": "deny", "message": "no writes here"}}}
        no_opus = lambda i: ({"hookSpecificOutput": {"hookEventName": "PreModelSwitch", "permissionDecision": "deny",  # noqa: E731
                                                     "permissionDecisionReason": "opus is for weekends"}}
                             if "opus" in i["to_model"] else {})
        registered = {
            "Setup": [hooks.matcher("Setup")],
            "SessionStart": [hooks.matcher("SessionStart", "startup")],
            "UserPromptSubmit": [hooks.matcher("UserPromptSubmit")],
            "PreToolUse": [hooks.matcher("PreToolUse", "Read")],
            "PostToolUse": [hooks.matcher("PostToolUse", "Read")],
            "PostToolUseFailure": [hooks.matcher("PostToolUseFailure")],
            "PostToolBatch": [hooks.matcher("PostToolBatch")],
            "PermissionRequest": [hooks.matcher("PermissionRequest", "Write", deny_write),
                                  hooks.matcher("PermissionRequest", "Bash")],
            "PermissionDenied": [hooks.matcher("PermissionDenied")],
            "Notification": [hooks.matcher("Notification", "permission_prompt")],
            "SubagentStart": [hooks.matcher("SubagentStart")],
            "SubagentStop": [hooks.matcher("SubagentStop")],
            "Stop": [hooks.matcher("Stop")],
            "PreModelSwitch": [hooks.matcher("PreModelSwitch", None, no_opus)],
            "PostModelSwitch": [hooks.matcher("PostModelSwitch")],
        }
        # SessionEnd fires once the SDK closed its input, when no callback can be answered any
        # more: a settings command hook records it.
        settings = {"hooks": {"SessionEnd": [{"hooks": [{"type": "command", "command": f"cat > '{ended}'"}]}]}}
        options = ClaudeAgentOptions(cli_path=PROGRAM, cwd=str(project), env=environment(root, api),
                                     hooks=registered, include_hook_events=True, settings=json.dumps(settings))
        messages: list[Any] = []
        try:
            async with ClaudeSDKClient(options=options) as client:
                await client.query("go")
                async for message in client.receive_response():
                    messages.append(message)
                await client.set_model("haiku")
                try:
                    await client.set_model("opus")
                except Exception as refused:  # noqa: BLE001 - the SDK raises a plain Exception
                    assert "opus is for weekends" in str(refused), refused
                else:
                    raise AssertionError("the PreModelSwitch callback's deny did not refuse set_model")
        finally:
            api.close()

        result = next(m for m in messages if isinstance(m, ResultMessage))
        assert result.result == "All done." and not result.is_error, result
        init = next(m for m in messages if isinstance(m, SystemMessage) and m.subtype == "init")
        session = init.data["session_id"]

        setup = hooks.once("Setup", session)
        assert setup["trigger"] == "init", setup
        start = hooks.once("SessionStart", session)
        assert start["source"] == "startup" and start["cwd"] == str(project), start
        assert "agent_id" not in start, start
        assert hooks.once("UserPromptSubmit", session)["prompt"] == "go"

        pre = hooks.once("PreToolUse", session, tool_use_id="toolu_read")
        assert pre["tool_name"] == "Read" and pre["tool_input"] == {"file_path": str(project / "a.txt")}, pre
        assert pre["seen_tool_use_id"] == "toolu_read", pre
        post = hooks.once("PostToolUse", session, tool_use_id="toolu_read")
        assert "alpha" in json.dumps(post["tool_response"]), post
        assert not [i for i in hooks.inputs["PostToolUse"] if i["tool_use_id"] == "toolu_missing"], "no PostToolUse on a failure"
        failure = hooks.once("PostToolUseFailure", session)
        assert failure["tool_use_id"] == "toolu_missing" and failure["tool_name"] == "Read", failure
        assert "missing.txt" in failure["error"] or "not exist" in failure["error"], failure
        assert failure["is_interrupt"] is False, failure

        write = hooks.once("PermissionRequest", session, tool_name="Write")
        assert write["tool_input"]["file_path"] == str(project / "new.txt"), write
        assert isinstance(write["permission_suggestions"], list), write
        assert not (project / "new.txt").exists(), "the callback's deny held"
        assert "no writes here" in str(tool_results(messages)["toolu_write"].content)
        hooks.once("PermissionRequest", session, tool_name="Bash")
        note = hooks.once("Notification", session)
        assert note["notification_type"] == "permission_prompt" and "Bash" in note["message"], note
        assert not (project / "bashed.txt").exists()
        denied_write = hooks.once("PermissionDenied", session, tool_name="Write")
        assert denied_write["reason"] == "no writes here" and denied_write["tool_use_id"] == "toolu_write", denied_write
        denied_bash = hooks.once("PermissionDenied", session, tool_name="Bash")
        assert denied_bash["tool_input"]["command"] == "touch bashed.txt", denied_bash

        started = hooks.once("SubagentStart", session)
        agent_id = started["agent_id"]
        assert started["agent_type"] == "general-purpose", started
        stopped = hooks.once("SubagentStop", session)
        assert (stopped["agent_id"], stopped["agent_type"]) == (agent_id, "general-purpose"), stopped
        assert stopped["stop_hook_active"] is False and "agent_transcript_path" in stopped, stopped
        inner = hooks.once("PreToolUse", session, tool_use_id="toolu_sub")
        assert (inner["agent_id"], inner["agent_type"]) == (agent_id, "general-purpose"), inner
        assert inner["transcript_path"] == pre["transcript_path"], "the main conversation's transcript"
        hooks.once("PostToolUse", session, tool_use_id="toolu_sub")

        stop = hooks.once("Stop", session)
        assert stop["stop_hook_active"] is False, stop
        # One batch per round: the main conversation's five, and the sub-agent's own.
        batches = [i for i in hooks.inputs["PostToolBatch"] if "agent_id" not in i]
        assert len(batches) == 5, batches
        assert [call["tool_use_id"] for call in batches[0]["tool_calls"]] == ["toolu_read"], batches[0]
        inner_batch = hooks.once("PostToolBatch", session, agent_id=agent_id)
        assert [call["tool_use_id"] for call in inner_batch["tool_calls"]] == ["toolu_sub"], inner_batch

        switches = hooks.inputs["PreModelSwitch"]
        assert [(i["to_model"], i["source"]) for i in switches] == [("claude-haiku-4-5", "sdk"), ("claude-opus-4-5", "sdk")], switches
        assert switches[0]["requested_model"] == "haiku", switches
        after = hooks.once("PostModelSwitch", session)
        assert after["to_model"] == "claude-haiku-4-5", after

        end = json.loads(ended.read_text())
        assert end["hook_event_name"] == "SessionEnd" and end["reason"] == "other", end
        assert end["session_id"] == session, end

        # --include-hook-events: a started and a response line for each hook run, paired by id.
        lines = [m.data for m in messages if getattr(m, "subtype", None) in ("hook_started", "hook_response")]
        started_lines = {line["hook_id"]: line for line in lines if line["subtype"] == "hook_started"}
        responses = [line for line in lines if line["subtype"] == "hook_response"]
        assert responses and len(responses) == len(started_lines), lines
        for line in responses:
            assert line["hook_id"] in started_lines, line
            assert line["hook_event"] == started_lines[line["hook_id"]]["hook_event"], line
            assert line["session_id"] == session and line["outcome"] in ("success", "error", "cancelled"), line
            assert {"hook_name", "output", "stdout", "stderr", "uuid"} <= line.keys(), line
        events = {line["hook_event"] for line in responses}
        assert {"SessionStart", "Setup", "UserPromptSubmit", "PreToolUse", "PermissionRequest", "Stop"} <= events, events
        read = next(line for line in lines if line["subtype"] == "hook_started" and line["hook_event"] == "PreToolUse")
        assert read["hook_name"] == "PreToolUse:Read", read


async def only_session_start_and_setup_lines_without_the_flag() -> None:
    """Without include_hook_events only the SessionStart and Setup hooks' lines are printed."""
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp).resolve()
        project = root / "project"
        project.mkdir()
        api = FakeApi(turns=[], final="Hi.")
        hooks = Recorder()
        registered = {"SessionStart": [hooks.matcher("SessionStart")], "Setup": [hooks.matcher("Setup")],
                      "UserPromptSubmit": [hooks.matcher("UserPromptSubmit")], "Stop": [hooks.matcher("Stop")]}
        options = ClaudeAgentOptions(cli_path=PROGRAM, cwd=str(project), env=environment(root, api), hooks=registered)
        messages: list[Any] = []
        try:
            async for message in query(prompt="hello", options=options):
                messages.append(message)
        finally:
            api.close()
        events = {m.data["hook_event"] for m in messages if getattr(m, "subtype", None) in ("hook_started", "hook_response")}
        assert events == {"SessionStart", "Setup"}, events
        assert len(hooks.inputs["Stop"]) == 1 and len(hooks.inputs["UserPromptSubmit"]) == 1, hooks.inputs


async def a_compaction_reaches_the_compact_callbacks() -> None:
    """With CLAUDE_AUTOCOMPACT_PCT_OVERRIDE the conversation is compacted after its first round:
    PreCompact, PostCompact (with the summary) and SessionStart (`compact`) callbacks fire once."""
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp).resolve()
        project = root / "project"
        project.mkdir()
        (project / "a.txt").write_text("alpha\n")
        summary = "SUMMARY-MARK: the user wants a.txt read"
        api = FakeApi(turns=[[{"type": "tool_use", "id": "toolu_1", "name": "Read",
                                "input": {"file_path": str(project / "a.txt")}}]],
                      final="unused", scripts={"SUMMARY-MARK": ([], "Done after compaction.")},
                      summary=summary, input_tokens=5000)
        hooks = Recorder()
        registered = {"PreCompact": [hooks.matcher("PreCompact", "auto")],
                      "PostCompact": [hooks.matcher("PostCompact")],
                      "SessionStart": [hooks.matcher("SessionStart", "compact")]}
        env = dict(environment(root, api), CLAUDE_AUTOCOMPACT_PCT_OVERRIDE="1")
        options = ClaudeAgentOptions(cli_path=PROGRAM, cwd=str(project), env=env, hooks=registered)
        messages: list[Any] = []
        try:
            async for message in query(prompt="read a.txt", options=options):
                messages.append(message)
        finally:
            api.close()
        result = next(m for m in messages if isinstance(m, ResultMessage))
        assert result.result == "Done after compaction.", result
        session = result.session_id
        assert hooks.once("PreCompact", session)["trigger"] == "auto"
        post = hooks.once("PostCompact", session)
        assert post["trigger"] == "auto" and post["compact_summary"] == summary, post
        assert hooks.once("SessionStart", session)["source"] == "compact"
        boundaries = [m for m in messages if isinstance(m, SystemMessage) and m.subtype == "compact_boundary"]
        assert len(boundaries) == 1, boundaries


if __name__ == "__main__":
    sys.exit(run_checks([sdk_callbacks_fire_once_each_with_their_input, only_session_start_and_setup_lines_without_the_flag,
                         a_compaction_reaches_the_compact_callbacks]))
