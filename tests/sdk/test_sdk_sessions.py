"""Sessions the Claude Agent SDK for Python reads: agent-tools writes its transcripts in Claude
Code's layout and line format (`$CLAUDE_CONFIG_DIR/projects/<slug>/<session id>.jsonl`), so the
SDK's own session functions work on them, driven against the scripted fake API (fake_api.py):

- `list_sessions` finds a session with its first prompt as summary, `get_session_messages` gives
  its user and assistant messages in order (a tool call and its result included), and a uuid the
  SDK saw streamed names a transcript entry (`resume_session_at`);
- `fork_session`'s copy resumes with `resume=`;
- a session Claude Code itself wrote (crates/loop/tests/fixtures/claude-code-session.jsonl, our
  own text in Claude Code's exact format) resumes: the next request carries its history;
- `list_subagents` / `get_subagent_messages` read a sub-agent's sidechain and its sidecar;
- `--no-session-persistence` writes nothing.

    python test_sdk_sessions.py /path/to/agent-tools

Prints one line per check and `N passed, N failed`; the exit status is 1 when a check failed.
"""

from __future__ import annotations

import json
import os
import shutil
import sys
import tempfile
import time
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Iterator

from claude_agent_sdk import (
    AgentDefinition,
    AssistantMessage,
    ClaudeAgentOptions,
    ResultMessage,
    TextBlock,
    fork_session,
    get_session_messages,
    get_subagent_messages,
    list_sessions,
    list_subagents,
    query,
)
from claude_agent_sdk._internal.sessions import _sanitize_path

from fake_api import FakeApi
from test_sdk import environment, run_checks

PROGRAM = sys.argv[1] if len(sys.argv) > 1 else "agent-tools"
FIXTURE = Path(__file__).resolve().parents[2] / "crates/loop/tests/fixtures/claude-code-session.jsonl"
FIXTURE_ID = "5f3c2a9e-1b7d-4c8e-9a0f-2d6b8e4c1a37"


@contextmanager
def claude_home() -> Iterator[tuple[Path, Path, Path]]:
    """A temporary root with a project folder and a Claude config folder, the latter also set in
    this process's environment (the SDK's session functions read `CLAUDE_CONFIG_DIR` here, the
    program gets it through `env`): `(root, project, config)`."""
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp).resolve()
        project = root / "project"
        project.mkdir()
        config = root / "claude"
        before = os.environ.get("CLAUDE_CONFIG_DIR")
        os.environ["CLAUDE_CONFIG_DIR"] = str(config)
        try:
            yield root, project, config
        finally:
            if before is None:
                os.environ.pop("CLAUDE_CONFIG_DIR", None)
            else:
                os.environ["CLAUDE_CONFIG_DIR"] = before


def env_for(root: Path, config: Path, api: FakeApi) -> dict[str, str]:
    return {**environment(root, api), "CLAUDE_CONFIG_DIR": str(config)}


async def run(prompt: str, options: ClaudeAgentOptions) -> list[Any]:
    messages: list[Any] = []
    async for message in query(prompt=prompt, options=options):
        messages.append(message)
    return messages


def result_of(messages: list[Any]) -> ResultMessage:
    result = messages[-1]
    assert isinstance(result, ResultMessage) and not result.is_error, messages[-3:]
    return result


def summary(message: Any) -> tuple[str, Any]:
    """A session message as `(type, what it says)`: the text, `tool_use:<name>` or
    `tool_result:<id>` of each block."""
    content = message.message["content"]
    if isinstance(content, str):
        return message.type, content
    said = []
    for block in content:
        kind = block.get("type")
        if kind == "text":
            said.append(block["text"])
        elif kind == "tool_use":
            said.append(f"tool_use:{block['name']}")
        elif kind == "tool_result":
            said.append(f"tool_result:{block['tool_use_id']}")
    return message.type, said


def sent_texts(request: dict[str, Any]) -> str:
    return json.dumps(request["messages"])


async def a_session_is_listed_and_read_back_by_the_sdk() -> None:
    with claude_home() as (root, project, config):
        (project / "notes.txt").write_text("alpha\n")
        api = FakeApi(turns=[[{"type": "text", "text": "Reading."},
                              {"type": "tool_use", "id": "toolu_r1", "name": "Read",
                               "input": {"file_path": str(project / "notes.txt")}}]],
                      final="It says alpha.")
        options = ClaudeAgentOptions(cli_path=PROGRAM, cwd=str(project), env=env_for(root, config, api),
                                     allowed_tools=["Read"])
        started = int(time.time() * 1000)
        try:
            messages = await run("What is in notes.txt?", options)
        finally:
            api.close()
        session_id = result_of(messages).session_id
        folder = config / "projects" / _sanitize_path(str(project))
        assert (folder / f"{session_id}.jsonl").is_file(), list(folder.iterdir()) if folder.exists() else config

        sessions = list_sessions(directory=str(project))
        assert [s.session_id for s in sessions] == [session_id], sessions
        info = sessions[0]
        assert info.summary == "What is in notes.txt?", info
        assert info.first_prompt == "What is in notes.txt?", info
        assert info.cwd == str(project), info
        assert info.git_branch is None, info
        assert info.created_at is not None and started - 5000 <= info.created_at <= int(time.time() * 1000), info

        read = get_session_messages(session_id, directory=str(project))
        assert [summary(m) for m in read] == [
            ("user", ["What is in notes.txt?"]),
            ("assistant", ["Reading."]),
            ("assistant", ["tool_use:Read"]),
            ("user", ["tool_result:toolu_r1"]),
            ("assistant", ["It says alpha."]),
        ], [summary(m) for m in read]
        assert all(m.session_id == session_id for m in read), read
        result_block = read[3].message["content"][0]
        assert "alpha" in json.dumps(result_block["content"]), result_block
        # The uuids the SDK saw streamed are the transcript's.
        streamed = [m.uuid for m in messages if isinstance(m, AssistantMessage)]
        assert streamed == [read[1].uuid, read[2].uuid, read[4].uuid], (streamed, [m.uuid for m in read])
        # The raw lines: Claude Code's fields.
        lines = [json.loads(line) for line in (folder / f"{session_id}.jsonl").read_text().splitlines()]
        assert lines[0]["parentUuid"] is None and lines[0]["type"] == "user", lines[0]
        assert all(line["entrypoint"] == "sdk-py" and line["userType"] == "external" for line in lines), lines
        assert read[3].uuid in [line["uuid"] for line in lines if "toolUseResult" in line], lines


async def a_fork_and_a_cut_resume_with_their_history() -> None:
    with claude_home() as (root, project, config):
        api = FakeApi(turns=[], final="The word is KIWI.")
        options = ClaudeAgentOptions(cli_path=PROGRAM, cwd=str(project), env=env_for(root, config, api))
        try:
            first = await run("Remember the word KIWI.", options)
            session_id = result_of(first).session_id
            answer_uuid = next(m.uuid for m in first if isinstance(m, AssistantMessage))

            forked = fork_session(session_id, directory=str(project))
            assert forked.session_id != session_id
            options.resume = forked.session_id
            resumed = await run("Which word?", options)
            assert result_of(resumed).session_id == forked.session_id, resumed[-1]
            sent = sent_texts(api.requests[-1])
            assert "Remember the word KIWI." in sent and "The word is KIWI." in sent and "Which word?" in sent, sent
            read = get_session_messages(forked.session_id, directory=str(project))
            assert [summary(m) for m in read][-2:] == [("user", ["Which word?"]), ("assistant", ["The word is KIWI."])]

            # Cut after the first answer (a uuid seen streamed), in a fork of its own: the second
            # exchange of the original session is not sent.
            options.resume = session_id
            more = await run("Another word: LIME.", options)
            assert result_of(more).session_id == session_id
            options.resume_session_at = answer_uuid
            options.fork_session = True
            cut = await run("What came first?", options)
            cut_id = result_of(cut).session_id
            assert cut_id not in (session_id, forked.session_id), cut_id
            sent = sent_texts(api.requests[-1])
            assert "KIWI" in sent and "LIME" not in sent and "What came first?" in sent, sent
        finally:
            api.close()
        listed = {s.session_id for s in list_sessions(directory=str(project))}
        assert listed == {session_id, forked.session_id, cut_id}, listed


async def a_session_claude_code_wrote_resumes() -> None:
    with claude_home() as (root, project, config):
        folder = config / "projects" / _sanitize_path(str(project))
        folder.mkdir(parents=True)
        shutil.copy(FIXTURE, folder / f"{FIXTURE_ID}.jsonl")
        api = FakeApi(turns=[], final="You mentioned PAPAYA.")
        options = ClaudeAgentOptions(cli_path=PROGRAM, cwd=str(project), env=env_for(root, config, api),
                                     resume=FIXTURE_ID)
        try:
            messages = await run("Which word did I ask you to keep?", options)
        finally:
            api.close()
        assert result_of(messages).session_id == FIXTURE_ID
        sent = api.requests[-1]["messages"]
        said = [(m["role"], json.dumps(m["content"])) for m in sent]
        order = ["Keep the word PAPAYA", "toolu_01FixtureRead00000001", "buy fruit", "Now list the markdown",
                 "toolu_01FixtureGlobMd000002", "There is README.md", "Which word did I ask you to keep?"]
        at = [next(i for i, (_, text) in enumerate(said) if needle in text) for needle in order]
        assert at == sorted(at), (at, said)
        # The parallel turn's two results go back together, after both calls.
        results = next(m for m in sent if m["role"] == "user" and "toolu_01FixtureGlobTxt00003" in json.dumps(m))
        ids = [b.get("tool_use_id") for b in results["content"] if isinstance(b, dict)]
        assert ids[:2] == ["toolu_01FixtureGlobMd000002", "toolu_01FixtureGlobTxt00003"], results
        read = get_session_messages(FIXTURE_ID, directory=str(project))
        assert [summary(m) for m in read][-2:] == [("user", ["Which word did I ask you to keep?"]),
                                                  ("assistant", ["You mentioned PAPAYA."])], read[-2:]
        assert len(read) == 13, [summary(m) for m in read]


async def a_sub_agents_transcript_is_read_by_the_sdk() -> None:
    with claude_home() as (root, project, config):
        marker = "You are the CHECKER-3 agent."
        api = FakeApi(
            turns=[[{"type": "tool_use", "id": "toolu_a1", "name": "Agent",
                     "input": {"subagent_type": "checker", "description": "check", "prompt": "Check the project.",
                               "run_in_background": False}}]],
            final="Checked.",
            scripts={marker: ([], "All is well.")},
        )
        agents = {"checker": AgentDefinition(description="Checks things.", prompt=marker, tools=["Read"])}
        options = ClaudeAgentOptions(cli_path=PROGRAM, cwd=str(project), env=env_for(root, config, api),
                                     agents=agents, permission_mode="bypassPermissions")
        try:
            messages = await run("Have it checked.", options)
        finally:
            api.close()
        session_id = result_of(messages).session_id
        agents_seen = list_subagents(session_id, directory=str(project))
        assert len(agents_seen) == 1, agents_seen
        read = get_subagent_messages(session_id, agents_seen[0], directory=str(project))
        assert [summary(m) for m in read] == [("user", ["Check the project."]), ("assistant", ["All is well."])], read
        assert all(m.parent_tool_use_id == "toolu_a1" for m in read), read
        main = get_session_messages(session_id, directory=str(project))
        assert [summary(m)[0] for m in main] == ["user", "assistant", "user", "assistant"], [summary(m) for m in main]


async def no_session_persistence_writes_nothing() -> None:
    with claude_home() as (root, project, config):
        api = FakeApi(turns=[], final="Not kept.")
        options = ClaudeAgentOptions(cli_path=PROGRAM, cwd=str(project), env=env_for(root, config, api),
                                     extra_args={"no-session-persistence": None})
        try:
            messages = await run("Forget this.", options)
        finally:
            api.close()
        assert isinstance(messages[-1], ResultMessage) and messages[-1].result == "Not kept."
        assert list_sessions(directory=str(project)) == []
        assert not (config / "projects").exists() or not any((config / "projects").rglob("*.jsonl"))
        texts = [b.text for m in messages if isinstance(m, AssistantMessage) for b in m.content if isinstance(b, TextBlock)]
        assert texts == ["Not kept."], texts


if __name__ == "__main__":
    sys.exit(run_checks([a_session_is_listed_and_read_back_by_the_sdk, a_fork_and_a_cut_resume_with_their_history,
                         a_session_claude_code_wrote_resumes, a_sub_agents_transcript_is_read_by_the_sdk,
                         no_session_persistence_writes_nothing]))
