"""Runs the Claude Agent SDK for Python's own examples (its repository's examples/*.py), unchanged,
against agent-tools in place of Claude Code, with the scripted fake API (fake_api.py) as the model.
A hand-run tool, not part of CI:

    python run_examples.py /path/to/agent-tools /path/to/claude-agent-sdk-python [names...]

Run it with the Python of tests/sdk/.venv (the SDK the tests pin); the examples run with that
Python too (--python to change). The SDK prefers the Claude Code bundled in its package
(`_bundled/claude`) over everything else, so the examples, which do not pass `cli_path`, reach
agent-tools through a shadow copy of the package, in --site (default /tmp/exsite), with
`_bundled/claude` a symlink to agent-tools; the examples run with PYTHONPATH=<site>. The venv is
never changed. streaming_mode_trio.py needs trio, which the SDK does not install:
`.venv/bin/pip install --target <site> --no-deps trio outcome sortedcontainers` once (the runner
rebuilds only <site>/claude_agent_sdk and <site>/sitecustomize.py, so it stays).
streaming_mode_ipython.py (top-level `await`s, for IPython) runs unchanged, compiled as IPython
and the asyncio REPL do.

Each example (or each named sub-example, as `hooks.py PreToolUse`) runs once, in a fresh HOME,
XDG_STATE_HOME and working directory, with its own FakeApi, whose script makes the example's
interesting path run (the model calls mcp__calc__add, the hooks' Bash and Write calls, ...), and a
timeout (--timeout, 60 s). A `sitecustomize` in <site> sends the example's own Python stderr to a
file of its own, so what stays on file descriptor 2 is the CLI's stderr, and logs each CLI
command line. Per example: the exit status, the CLI's stderr lines, and a verdict; the checks
behind it are what the example's own output claims (its printed `✓`/`SUCCESS` lines) and what the
fake API saw. The cases that run in the checkout read its .claude/ (agents, commands), which
agent-tools applies only in a trusted folder: --trust runs `agent-tools trust` first (in the
case's HOME). `names` picks cases: `hooks.py`, `hooks`, or `hooks.py:PreToolUse`. -v prints each
case's stdout, stderr and command lines.

To compare with Claude Code itself, pass it as the program (the venv's
`site-packages/claude_agent_sdk/_bundled/claude`) with another --site and
`--env CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1`: it runs against the same fake API.

The exit status is 1 when a case failed.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import textwrap
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from fake_api import FakeApi

HERE = Path(__file__).resolve().parent

# Sent to the example's Python only (it removes the variables before anything runs): the file for
# its own stderr, and the file to log CLI command lines to.
SITECUSTOMIZE = '''\
"""Written by tests/sdk/run_examples.py: the example's Python stderr to its own file (the CLI
it starts keeps file descriptor 2), and each Claude Code command line logged."""
import os as _os
import sys as _sys

_stderr = _os.environ.pop("RUN_EXAMPLES_PY_STDERR", None)
_argv_log = _os.environ.pop("RUN_EXAMPLES_ARGV_LOG", None)
if _stderr:
    _sys.stderr = open(_stderr, "a", buffering=1, encoding="utf-8", errors="backslashreplace")
if _argv_log:
    import json as _json
    import subprocess as _subprocess

    _popen_init = _subprocess.Popen.__init__

    def _logging_init(self, args, *rest, **kwargs):
        argv = [str(arg) for arg in args] if isinstance(args, (list, tuple)) else [str(args)]
        if argv and _os.path.basename(argv[0]) == "claude":
            with open(_argv_log, "a", encoding="utf-8") as log:
                log.write(_json.dumps(argv) + "\\n")
        _popen_init(self, args, *rest, **kwargs)

    _subprocess.Popen.__init__ = _logging_init
'''

# Runs a file of top-level `await`s (streaming_mode_ipython.py, written for IPython), unchanged:
# compiled as the asyncio REPL and IPython do.
TOP_LEVEL_AWAIT = textwrap.dedent('''\
    import ast, asyncio, sys, types
    path = sys.argv[1]
    sys.argv = sys.argv[1:]
    code = compile(open(path, encoding="utf-8").read(), path, "exec", flags=ast.PyCF_ALLOW_TOP_LEVEL_AWAIT)
    scope = {"__name__": "__main__", "__file__": path}
    async def main():
        result = eval(code, scope)
        if isinstance(result, types.CoroutineType):
            await result
    asyncio.run(main())
''')


def text(value: str) -> dict[str, Any]:
    return {"type": "text", "text": value}


def use(tool_id: str, name: str, **tool_input: Any) -> list[dict[str, Any]]:
    """One assistant turn: a single tool call."""
    return [{"type": "tool_use", "id": tool_id, "name": name, "input": tool_input}]


class ExampleApi(FakeApi):
    """FakeApi, plus `slow`: a request whose last user block (the newest prompt) holds one of its
    keys is answered after that many seconds (the model is "still thinking" when the example interrupts). A reply the
    CLI no longer waits for is dropped quietly."""

    def __init__(self, turns: list[list[dict[str, Any]]], final: str,
                 scripts: dict[str, tuple[list[list[dict[str, Any]]], str]] | None = None,
                 slow: dict[str, float] | None = None) -> None:
        super().__init__(turns, final, scripts)
        self.slow = slow or {}
        self._server.handle_error = lambda *_args: None  # type: ignore[method-assign]

    def reply(self, body: dict[str, Any]) -> list[dict[str, Any]]:
        users = [m for m in body.get("messages") or [] if m.get("role") == "user"] or [{}]
        content = users[-1].get("content")  # its last block: a prompt sent after an interrupt joins the one before
        last = json.dumps(content[-1] if isinstance(content, list) and content else content, ensure_ascii=False)
        for key, seconds in self.slow.items():
            if key in last:
                time.sleep(seconds)
        return super().reply(body)


@dataclasses.dataclass
class Run:
    """What a case's checks see."""

    work: Path  # the working directory the example ran in (the checkout for repo cases)
    stdout: str
    py_stderr: str
    cli_stderr: str
    api: ExampleApi
    returncode: int | None  # None: timed out

    def requests_text(self) -> str:
        return json.dumps(self.api.requests, ensure_ascii=False)

    def tool_result(self, tool_use_id: str) -> tuple[str, bool] | None:
        """The text and is_error of the result of that tool call, as the model got it."""
        for request in reversed(self.api.requests):
            for message in request.get("messages") or []:
                content = message.get("content")
                for block in content if isinstance(content, list) else []:
                    if block.get("type") == "tool_result" and block.get("tool_use_id") == tool_use_id:
                        inner = block.get("content")
                        if isinstance(inner, list):
                            inner = "".join(part.get("text", "") for part in inner if isinstance(part, dict))
                        return str(inner or ""), bool(block.get("is_error"))
        return None

    def systems(self) -> list[str]:
        out = []
        for request in self.api.requests:
            system = request.get("system") or ""
            out.append(system if isinstance(system, str) else " ".join(
                block.get("text", "") for block in system if isinstance(block, dict)))
        return out


Check = Callable[[Run], "str | None"]  # None when fine, else what is wrong


def in_stdout(pattern: str) -> Check:
    return lambda run: None if re.search(pattern, run.stdout) else f"stdout lacks /{pattern}/"


def not_in_stdout(pattern: str) -> Check:
    return lambda run: f"stdout has /{pattern}/" if re.search(pattern, run.stdout) else None


def in_requests(pattern: str) -> Check:
    return lambda run: None if re.search(pattern, run.requests_text()) else f"no API request has /{pattern}/"


def in_system(fragment: str) -> Check:
    return lambda run: None if any(fragment in s for s in run.systems()) else f"no system prompt has {fragment!r}"


def result_of(tool_use_id: str, pattern: str, is_error: bool | None = None) -> Check:
    def check(run: Run) -> str | None:
        found = run.tool_result(tool_use_id)
        if found is None:
            return f"the model never got a result for {tool_use_id}"
        body, error = found
        if not re.search(pattern, body):
            return f"the result of {tool_use_id} lacks /{pattern}/: {body[:200]!r}"
        if is_error is not None and error != is_error:
            return f"the result of {tool_use_id} has is_error={error}: {body[:200]!r}"
        return None
    return check


def file_has(name: str, content: str | None = None) -> Check:
    def check(run: Run) -> str | None:
        path = run.work / name
        if not path.is_file():
            return f"{name} was not written"
        if content is not None and content not in path.read_text():
            return f"{name} holds {path.read_text()[:100]!r}"
        return None
    return check


def no_file(name: str) -> Check:
    return lambda run: f"{name} was written" if (run.work / name).exists() else None


def requests_count(low: int, high: int | None = None) -> Check:
    def check(run: Run) -> str | None:
        n = len(run.api.requests)
        ok = n >= low and (high is None or n <= high)
        return None if ok else f"{n} API requests (expected {low}..{'' if high is None else high})"
    return check


@dataclasses.dataclass
class Case:
    file: str  # under examples/
    args: list[str] = dataclasses.field(default_factory=list)
    # (work dir) -> FakeApi keyword arguments: turns, final, scripts, slow
    script: Callable[[Path], dict[str, Any]] = lambda _work: {}
    checks: list[Check] = dataclasses.field(default_factory=list)
    in_repo: bool = False  # run with the checkout as the working directory
    stdin: bytes | None = None
    top_level_await: bool = False
    needs: str | None = None  # a module the example imports that the SDK does not install
    timeout: float | None = None  # when the example itself needs longer than --timeout

    @property
    def name(self) -> str:
        return ":".join([self.file, *self.args])


FINAL = "This is the fake model's answer."


def cases(repo: Path) -> list[Case]:
    src = repo / "src" / "claude_agent_sdk" / "types.py"
    return [
        Case("quick_start.py", script=lambda w: {
            "scripts": {"Create a file called hello.txt": (
                [use("toolu_1", "Write", file_path=str(w / "hello.txt"), content="Hello, World!")],
                "Created hello.txt.")}},
            checks=[file_has("hello.txt", "Hello, World!"), in_stdout(r"(?s)Claude: .*Claude: .*Created hello.txt")]),
        Case("mcp_calculator.py", script=lambda w: {"scripts": {
            "Calculate 15 + 27": ([use("toolu_1", "mcp__calc__add", a=15, b=27)], "42"),
            "100 divided by 7": ([use("toolu_1", "mcp__calc__divide", a=100, b=7)], "About 14.29"),
            "square root of 144": ([use("toolu_1", "mcp__calc__sqrt", n=144)], "12"),
            "2 raised to the power of 8": ([use("toolu_1", "mcp__calc__power", base=2, exponent=8)], "256"),
            "(12 + 8) * 3 - 10": ([use("toolu_1", "mcp__calc__add", a=12, b=8),
                                    use("toolu_2", "mcp__calc__multiply", a=20, b=3),
                                    use("toolu_3", "mcp__calc__subtract", a=60, b=10)], "50"),
            "List your tools": ([], "add, subtract, multiply, divide, sqrt, power")}},
            checks=[in_stdout("Using tool: mcp__calc__add"), in_requests(r"15(\.0)? \+ 27(\.0)? = 42"),
                    in_requests(r"100(\.0)? ÷ 7(\.0)? = 14\.28"), in_requests(r"√144(\.0)? = 12\.0"),
                    in_requests(r"2(\.0)?\^8(\.0)? = 256"), in_requests(r"60(\.0)? - 10(\.0)? = 50"),
                    in_stdout("Tool Result: ")]),
        # hooks.py: one client per sub-example, two queries in PreToolUse and DecisionFields.
        Case("hooks.py", ["PreToolUse"], script=lambda w: {
            "turns": [use("toolu_1", "Bash", command="./foo.sh --help", description="Show foo's help"),
                      [text("The hook blocked that command.")],
                      use("toolu_3", "Bash", command="echo 'Hello from hooks example!'", description="Say hello")],
            "final": "It printed: Hello from hooks example!"},
            checks=[result_of("toolu_1", "invalid pattern: foo.sh"),
                    result_of("toolu_3", "Hello from hooks example!", is_error=False)]),
        # The example's UserPromptSubmit hook answers with hookEventName "SessionStart", which
        # Claude Code drops: the context need not reach the model.
        Case("hooks.py", ["UserPromptSubmit"], script=lambda w: {"final": "Your favorite color is hot pink."},
             checks=[in_stdout("Claude: Your favorite color is hot pink."), in_stdout("Result ended")]),
        Case("hooks.py", ["PostToolUse"], script=lambda w: {
            "turns": [use("toolu_1", "Bash", command="ls /nonexistent_directory", description="List it")],
            "final": "That directory does not exist."},
            checks=[result_of("toolu_1", "No such file or directory")]),
        Case("hooks.py", ["DecisionFields"], script=lambda w: {
            "turns": [use("toolu_1", "Write", file_path=str(w / "important_config.txt"), content="test data"),
                      [text("That write was blocked.")],
                      use("toolu_3", "Write", file_path=str(w / "regular_file.txt"), content="test data")],
            "final": "Wrote regular_file.txt."},
            checks=[result_of("toolu_1", "Security policy blocks writes to important files", is_error=True),
                    no_file("important_config.txt"), file_has("regular_file.txt", "test data"),
                    in_requests('"model": "claude-sonnet-4-5-20250929"')]),
        Case("hooks.py", ["ContinueControl"], script=lambda w: {
            "turns": [use("toolu_1", "Bash", command="echo 'CRITICAL ERROR: system failure'", description="Echo")],
            "final": "This answer should not be asked for."},
            checks=[requests_count(1, 1), in_stdout("Result ended")]),
        Case("agents.py", in_repo=True, script=lambda w: {"scripts": {
            # the sub-agents (their prompts are their system prompts) before the main conversations
            "You are a code reviewer": ([use("toolu_s1", "Read", file_path=str(src))], "REVIEW: types.py looks fine."),
            "You are a technical documentation expert": ([], "DOC: AgentDefinition defines a sub-agent."),
            "You are a code analyzer": ([use("toolu_s1", "Glob", pattern="examples/*.py")],
                                        "ANALYSIS: found the example files."),
            "Use the code-reviewer agent": ([use("toolu_1", "Agent", subagent_type="code-reviewer",
                                                 description="Review types.py",
                                                 prompt="Review src/claude_agent_sdk/types.py.")],
                                            "The reviewer found nothing."),
            "Use the doc-writer agent": ([use("toolu_1", "Agent", subagent_type="doc-writer",
                                              description="Explain AgentDefinition",
                                              prompt="Explain what AgentDefinition is for.")],
                                         "The doc writer explained it."),
            "Use the analyzer agent": ([use("toolu_1", "Agent", subagent_type="analyzer",
                                            description="Find Python files",
                                            prompt="Find all Python files in examples/.")],
                                       "The analyzer listed them."),
            }},
            checks=[in_system("You are a code reviewer"), in_system("You are a technical documentation expert"),
                    in_system("You are a code analyzer"), in_requests("REVIEW: types.py looks fine"),
                    in_requests("DOC: AgentDefinition"), in_requests("ANALYSIS: found"),
                    in_requests("streaming_mode_trio.py"), in_stdout("Claude: The analyzer listed them.")]),
        # These read the checkout's .claude/ (agents, commands), which agent-tools applies only in a
        # trusted folder (--trust), Claude Code in -p / SDK mode always.
        Case("filesystem_agents.py", in_repo=True, script=lambda w: {"final": "Hello there, friend."},
             checks=[in_stdout("SUCCESS: Received full response"), in_stdout("SUCCESS: test-agent was loaded")]),
        *[Case("setting_sources.py", [name], in_repo=True, checks=[in_stdout("✓"), not_in_stdout("❌")])
          for name in ("default", "disable_all", "user_only", "project_and_user")],
        Case("plugin_example.py", in_repo=True,
             checks=[in_stdout("Plugins loaded:"), in_stdout(r"- demo-plugin"), in_stdout("successfully configured")]),
        Case("include_partial_messages.py", script=lambda w: {"final": "Why did the chicken cross the road?"},
             checks=[in_stdout("StreamEvent\\("), in_stdout("content_block_delta"), in_stdout("ResultMessage\\(")]),
        # Claude Code (2.1.332) fails this one too: after the error_max_budget_usd result (is_error)
        # the CLI exits 1 and the SDK raises ResultError out of the example's loop.
        Case("max_budget_usd.py", in_repo=True, script=lambda w: {"scripts": {
            "Read the README.md": ([use("toolu_1", "Read", file_path=str(w / "README.md"))], "A summary.")}},
            checks=[in_stdout(r"(?s)Status: success.*Status: success.*Status: error_max_budget_usd"),
                    in_stdout("Budget limit exceeded")]),
        Case("stderr_callback_example.py", checks=[in_stdout("Captured \\d+ stderr lines")]),
        Case("system_prompt.py", checks=[
            in_system("You are a pirate assistant. Respond in pirate speak."),
            in_system("Always end your response with a fun fact."), requests_count(4, 4),
            in_stdout(f"(?s)(Claude: {FINAL}.*){{4}}")]),
        Case("tools_option.py", checks=[
            in_stdout(r"Tools from system message: \['(Read|Glob|Grep)', '(Read|Glob|Grep)', '(Read|Glob|Grep)'\]"),
            in_stdout(r"Tools from system message: \[\]"),
            in_stdout(r"Tools from system message \(\d+ tools\)")]),
        Case("tool_permission_callback.py", stdin=b"y\n", script=lambda w: {
            "turns": [use("toolu_1", "Bash", command="ls -la", description="List the files"),
                      use("toolu_2", "Write", file_path=str(w / "hello.py"), content="print('Hello, World!')\n"),
                      use("toolu_3", "Bash", command="python3 hello.py", description="Run it")],
            "final": "Created and ran hello.py."},
            checks=[in_stdout("Tool Permission Request: Write"), file_has("hello.py", "Hello, World!"),
                    result_of("toolu_3", "Hello, World!", is_error=False), in_stdout("Task completed!")]),
        Case("streaming_mode.py", ["basic_streaming"], checks=[in_stdout(f"Claude: {FINAL}"), in_stdout("Result ended")]),
        Case("streaming_mode.py", ["multi_turn_conversation"], script=lambda w: {
            "turns": [[text("Paris.")]], "final": "About two million."},
            checks=[in_stdout("Claude: Paris."), in_stdout("Claude: About two million."),
                    in_requests("(?s)capital of France.*Paris.*population of that city")]),
        Case("streaming_mode.py", ["concurrent_responses"], script=lambda w: {
            "turns": [[text("4")], [text("12")]], "final": "8"},
            checks=[in_stdout("(?s)Claude: 4.*Claude: 12.*Claude: 8")]),
        Case("streaming_mode.py", ["with_interrupt"], script=lambda w: {
            "final": "Why do programmers prefer dark mode? Because light attracts bugs.",
            "slow": {"Count from 1 to 100 slowly": 8}},
            checks=[in_stdout("sending interrupt"), in_stdout("Claude: Why do programmers")]),
        Case("streaming_mode.py", ["manual_message_handling"], script=lambda w: {
            "final": "Python: data; JavaScript: web; Java: enterprise; Go: servers; Rust: systems."},
            checks=[in_stdout("Total languages mentioned: 5")]),
        Case("streaming_mode.py", ["with_options"], script=lambda w: {
            "turns": [use("toolu_1", "Write", file_path=str(w / "hello.txt"), content="Hello there!\n")],
            "final": "Created hello.txt."},
            checks=[file_has("hello.txt", "Hello there!"), in_stdout("Tools used: Write"),
                    in_requests('"model": "claude-sonnet-4-5"'),
                    in_system("You are a helpful coding assistant.")]),
        Case("streaming_mode.py", ["async_iterable_prompt"], checks=[
            in_stdout("Result ended"), in_requests("capital of Japan"), in_requests("15% of 200")]),
        Case("streaming_mode.py", ["bash_command"], script=lambda w: {
            "turns": [use("toolu_1", "Bash", command="echo 'Hello from bash!'", description="Say hello")],
            "final": "It said: Hello from bash!"},
            checks=[in_stdout("Tool Use: Bash"), in_stdout(r"Tool Result \(id: toolu_1\)"),
                    in_stdout("Message types received: ")]),
        Case("streaming_mode.py", ["control_protocol"], script=lambda w: {
            "final": "Hello!", "slow": {"Count from 1 to 20 slowly": 8}},
            checks=[in_stdout("Server info retrieved successfully"), in_stdout("Interrupt sent successfully"),
                    in_stdout("Claude: Hello!")]),
        Case("streaming_mode.py", ["error_handling"], script=lambda w: {
            "turns": [use("toolu_1", "Bash", command="sleep 5", description="Sleep five seconds")],
            "final": "Slept.", "slow": {"sleep command for 5 seconds": 5}},
            checks=[in_stdout("Response timeout after 3 seconds"), not_in_stdout("Unexpected error"),
                    not_in_stdout("Connection error")]),
        Case("streaming_mode_trio.py", needs="trio", script=lambda w: {
            "turns": [[text("42")], [text("84")]], "final": "12.00"},
            checks=[in_stdout("(?s)Claude: 42.*Claude: 84.*Claude: 12.00"), in_stdout("Conversation complete!")]),
        # Waits 10 s before its interrupt and 20 s on a `sleep 60`, then 5 s for the CLI to
        # exit (the SDK's grace period, with the command still running): 90 s.
        Case("streaming_mode_ipython.py", top_level_await=True, timeout=90, script=lambda w: {
            "scripts": {"Count from 1 to 100, run bash sleep": ([], "Hello! I was interrupted."),
                        "Run a bash sleep command for 60 seconds": (
                            [use("toolu_1", "Bash", command="sleep 60", description="Sleep a minute")], "Slept.")},
            "slow": {"Count from 1 to 100, run bash sleep": 15}},
            checks=[in_stdout("Sending interrupt"), in_stdout("Claude: Hello! I was interrupted."),
                    in_stdout("Total messages: "), in_requests("What is 100 / 5")]),
    ]


def build_site(program: Path, site: Path, package: Path) -> None:
    """<site>/claude_agent_sdk: the installed package but for `_bundled/claude`, which is a
    symlink to the program; and <site>/sitecustomize.py."""
    site.mkdir(parents=True, exist_ok=True)
    target = site / "claude_agent_sdk"
    if target.is_symlink() or target.is_file():
        target.unlink()
    elif target.exists():
        shutil.rmtree(target)
    bundled = package / "_bundled"
    shutil.copytree(package, target, ignore=lambda directory, names: [
        n for n in names if n == "__pycache__" or (Path(directory) == bundled and n in ("claude", "claude.exe"))])
    (target / "_bundled").mkdir(exist_ok=True)
    (target / "_bundled" / "claude").symlink_to(program)
    (site / "sitecustomize.py").write_text(SITECUSTOMIZE)


def environment(base: dict[str, str], api: FakeApi, home: Path, site: Path) -> dict[str, str]:
    env = {k: v for k, v in base.items()
           if not k.startswith(("ANTHROPIC_", "CLAUDE", "AGENT_TOOLS_", "XDG_", "PYTHON"))}
    env.update({
        "ANTHROPIC_BASE_URL": api.base_url,
        "ANTHROPIC_API_KEY": "dummy",
        "ANTHROPIC_AUTH_TOKEN": "",
        "HOME": str(home / "home"),
        "XDG_STATE_HOME": str(home / "state"),
        "XDG_CONFIG_HOME": str(home / "home" / ".config"),
        "PYTHONPATH": str(site),
        "PYTHONUNBUFFERED": "1",
    })
    return env


@dataclasses.dataclass
class Outcome:
    case: Case
    ok: bool
    returncode: int | None
    cli_errors: list[str]
    verdict: str
    seconds: float
    run: Run | None = None
    argv: list[list[str]] = dataclasses.field(default_factory=list)


@dataclasses.dataclass
class Settings:
    program: Path
    python: str
    repo: Path
    site: Path
    timeout: float
    trust: bool  # `agent-tools trust` the checkout (in the case's HOME) before a repo case
    extra_env: dict[str, str]
    dump: Path | None  # where to write each case's API requests


def run_case(case: Case, settings: Settings) -> Outcome:
    python, repo, site = settings.python, settings.repo, settings.site
    timeout = max(settings.timeout, case.timeout or 0)
    started = time.monotonic()
    if case.needs:
        probe = subprocess.run([python, "-c", f"import {case.needs}"], env={**os.environ, "PYTHONPATH": str(site)},
                               capture_output=True)
        if probe.returncode != 0:
            return Outcome(case, False, None, [], f"not run: needs `{case.needs}` (see the top of this file)", 0.0)
    with tempfile.TemporaryDirectory(prefix="sdk-example-") as tmp:
        root = Path(tmp).resolve()
        for sub in ("home", "state", "home/.config", "work"):
            (root / sub).mkdir(parents=True, exist_ok=True)
        work = repo if case.in_repo else root / "work"
        spec = {"turns": [], "final": FINAL, **case.script(work)}
        api = ExampleApi(**spec)
        py_stderr, argv_log = root / "python-stderr.txt", root / "argv.jsonl"
        env = environment(dict(os.environ), api, root, site)
        env.update(settings.extra_env)
        if case.in_repo and settings.trust:
            subprocess.run([str(settings.program), "trust", str(repo)], env=env, cwd=repo,
                           stdin=subprocess.DEVNULL, capture_output=True, check=True)
        env["RUN_EXAMPLES_PY_STDERR"] = str(py_stderr)
        env["RUN_EXAMPLES_ARGV_LOG"] = str(argv_log)
        example = repo / "examples" / case.file
        command = ([python, "-c", TOP_LEVEL_AWAIT, str(example)] if case.top_level_await
                   else [python, str(example)]) + case.args
        process = subprocess.Popen(command, cwd=work, env=env, start_new_session=True,
                                   stdin=subprocess.PIPE if case.stdin is not None else subprocess.DEVNULL,
                                   stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        try:
            out, err = process.communicate(case.stdin, timeout=timeout)
            returncode: int | None = process.returncode
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)  # the example and the CLI it started
            out, err = process.communicate()
            returncode = None
        finally:
            api.close()
        run = Run(work, out.decode(errors="replace"),
                  py_stderr.read_text(errors="replace") if py_stderr.exists() else "",
                  err.decode(errors="replace"), api, returncode)
        if settings.dump:
            try:
                settings.dump.mkdir(parents=True, exist_ok=True)
                (settings.dump / f"{case.name.replace(':', '-')}.json").write_text(
                    json.dumps(api.requests, indent=1, ensure_ascii=False))
            except OSError as error:
                print(f"note: cannot write the requests of {case.name}: {error}", file=sys.stderr)
        argv = [json.loads(line) for line in argv_log.read_text().splitlines()] if argv_log.exists() else []
        cli_errors = [line for line in run.cli_stderr.splitlines() if line.strip()]
        problems = []
        if returncode is None:
            problems.append(f"timed out after {timeout:.0f} s")
        elif returncode != 0:
            problems.append(f"exit status {returncode}")
        tb = traceback_tail(run.py_stderr)
        if tb:
            problems.append(f"Python: {tb}")
        if returncode is not None:  # a timed-out run's checks say nothing new
            problems += [p for p in (check(run) for check in case.checks) if p]
        verdict = "runs" if not problems else "; ".join(problems)
        if cli_errors:  # reported, but not a failure by itself
            verdict += f" [CLI stderr: {cli_errors[0][:160]}]"
        outcome = Outcome(case, not problems, returncode, cli_errors, verdict, time.monotonic() - started, run, argv)
        return outcome


def traceback_tail(stderr: str) -> str | None:
    """The last line of the last traceback in the example's own stderr (its exception)."""
    if "Traceback (most recent call last)" not in stderr:
        return None
    block = stderr[stderr.rindex("Traceback (most recent call last)"):]
    lines = [line for line in block.splitlines() if line.strip() and not line.startswith(" ")]
    return lines[-1][:300] if len(lines) > 1 else block[:300]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("program", type=Path, help="the agent-tools binary")
    parser.add_argument("repo", type=Path, help="a checkout of anthropics/claude-agent-sdk-python")
    parser.add_argument("names", nargs="*", help="cases to run: hooks.py, hooks or hooks.py:PreToolUse")
    parser.add_argument("--python", default=str(HERE / ".venv" / "bin" / "python"),
                        help="the Python with claude_agent_sdk installed (default: tests/sdk/.venv's)")
    parser.add_argument("--site", type=Path, default=Path("/tmp/exsite"), help="where the shadow package goes")
    parser.add_argument("--timeout", type=float, default=60.0)
    parser.add_argument("--trust", action="store_true",
                        help="run `agent-tools trust CHECKOUT` (in each case's fresh HOME) before the cases that run "
                             "in the checkout, whose .claude/ an untrusted folder does not apply")
    parser.add_argument("--env", action="append", default=[], metavar="NAME=VALUE",
                        help="an extra environment variable for the examples (repeatable)")
    parser.add_argument("--dump", type=Path, help="write each case's API requests to DIR/<case>.json")
    parser.add_argument("-v", "--verbose", action="store_true", help="print each case's output")
    args = parser.parse_intermixed_args()
    program, repo, site = args.program.resolve(), args.repo.resolve(), args.site.resolve()
    if not (program.is_file() and os.access(program, os.X_OK)):
        parser.error(f"{program} is not an executable")
    if not (repo / "examples").is_dir():
        parser.error(f"{repo} has no examples/")
    found = subprocess.run([args.python, "-c", "import claude_agent_sdk, sys; print(claude_agent_sdk.__file__)"],
                           capture_output=True, text=True, env={k: v for k, v in os.environ.items()
                                                                if k != "PYTHONPATH"})
    if found.returncode != 0:
        parser.error(f"{args.python} has no claude_agent_sdk: {found.stderr.strip()}")
    build_site(program, site, Path(found.stdout.strip()).parent)

    selected = [c for c in cases(repo) if not args.names or any(
        n in (c.name, c.file, c.file.removesuffix(".py"), ":".join([c.file.removesuffix(".py"), *c.args]))
        for n in args.names)]
    known = {c.file for c in cases(repo)}
    for path in sorted((repo / "examples").glob("*.py")):
        if path.name not in known:
            print(f"note: examples/{path.name} has no case here")
    settings = Settings(program, args.python, repo, site, args.timeout, args.trust,
                        dict(item.split("=", 1) for item in args.env), args.dump)
    outcomes = []
    for case in selected:
        outcome = run_case(case, settings)
        outcomes.append(outcome)
        status = ("not run" if outcome.run is None else "timeout") if outcome.returncode is None \
            else f"exit {outcome.returncode}"
        print(f"{'ok  ' if outcome.ok else 'FAIL'} {case.name:<42} {status:<8} "
              f"cli-stderr:{len(outcome.cli_errors):<3} {outcome.seconds:5.1f}s  {outcome.verdict}", flush=True)
        if args.verbose or not outcome.ok:
            show(outcome, args.verbose)
    failed = sum(not o.ok for o in outcomes)
    print(f"{len(outcomes) - failed} ran, {failed} failed")
    return 1 if failed else 0


def show(outcome: Outcome, everything: bool) -> None:
    run = outcome.run
    indent = "      | "
    for argv in outcome.argv:
        print(f"    CLI command: {json.dumps(argv)}")
    if run is None:
        return
    if run.cli_stderr.strip():
        print("    CLI stderr:")
        print(textwrap.indent(run.cli_stderr.rstrip()[-3000:], indent))
    if run.py_stderr.strip() and (everything or "Traceback" in run.py_stderr):
        print("    example stderr:")
        print(textwrap.indent(run.py_stderr.rstrip()[-3000:], indent))
    if everything or run.stdout.strip():
        print("    example stdout (tail):")
        print(textwrap.indent(run.stdout.rstrip()[-(6000 if everything else 1500):], indent))
    print(f"    API requests: {len(run.api.requests)}")


if __name__ == "__main__":
    sys.exit(main())
