// Runs one query() of the Claude Agent SDK for TypeScript against agent-tools and prints every
// message the SDK yields as a JSON line; test_sdk_ts.py (beside ../) starts the fake API, runs
// this and checks what it printed.
//
//   node drive.mjs '{"program": ".../agent-tools", "cwd": "...", "env": {...}, "prompt": "...",
//                    "options": {...}, "calculator": true}'
//
// `options` are passed to query() as they are (systemPrompt, agents, allowedTools …); with
// `calculator` an in-process SDK MCP server "calc" with an `add` tool is added, and each call
// it gets is printed as {"type": "calculator_call", "args": …}. With `controls` (a list of
// [method, ...args] of the Query object) the prompt is streamed, and after the first result
// each method is called in turn and printed as {"type": "control_result", "method", "value"}
// or {"type": "control_error", "method", "error"}; then the input ends.
import { createSdkMcpServer, query, tool } from "@anthropic-ai/claude-agent-sdk";
import { z } from "zod";

const spec = JSON.parse(process.argv[2]);
const print = (value) => process.stdout.write(`${JSON.stringify(value)}\n`);

const options = {
  ...spec.options,
  pathToClaudeCodeExecutable: spec.program,
  cwd: spec.cwd,
  env: { ...process.env, ...spec.env },
  stderr: (text) => process.stderr.write(text),
};
if (spec.calculator) {
  const add = tool("add", "Adds two numbers.", { a: z.number(), b: z.number() }, async (args) => {
    print({ type: "calculator_call", args });
    return { content: [{ type: "text", text: `sum=${args.a + args.b}` }] };
  });
  options.mcpServers = { ...(options.mcpServers ?? {}), calc: createSdkMcpServer({ name: "calc", tools: [add] }) };
}

let endInput = () => {};
const inputEnded = new Promise((resolve) => {
  endInput = resolve;
});
async function* streamed() {
  yield { type: "user", message: { role: "user", content: spec.prompt }, parent_tool_use_id: null, session_id: "" };
  await inputEnded;
}

try {
  const controls = spec.controls ?? [];
  const q = query({ prompt: controls.length > 0 ? streamed() : spec.prompt, options });
  let controlled = false;
  for await (const message of q) {
    print(message);
    if (message.type === "result" && !controlled && controls.length > 0) {
      controlled = true;
      for (const [method, ...args] of controls) {
        try {
          print({ type: "control_result", method, value: (await q[method](...args)) ?? null });
        } catch (error) {
          print({ type: "control_error", method, error: String(error?.message ?? error) });
        }
      }
      endInput();
    }
  }
} catch (error) {
  print({ type: "driver_error", message: String(error?.stack ?? error) });
  process.exitCode = 1;
}
