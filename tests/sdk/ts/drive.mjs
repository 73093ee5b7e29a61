// Runs one query() of the Claude Agent SDK for TypeScript against agent-tools and prints every
// message the SDK yields as a JSON line; test_sdk_ts.py (beside ../) starts the fake API, runs
// this and checks what it printed.
//
//   node drive.mjs '{"program": ".../agent-tools", "cwd": "...", "env": {...}, "prompt": "...",
//                    "options": {...}, "calculator": true}'
//
// `options` are passed to query() as they are (systemPrompt, agents, allowedTools …); with
// `calculator` an in-process SDK MCP server "calc" with an `add` tool is added, and each call
// it gets is printed as {"type": "calculator_call", "args": …}.
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

try {
  for await (const message of query({ prompt: spec.prompt, options })) {
    print(message);
  }
} catch (error) {
  print({ type: "driver_error", message: String(error?.stack ?? error) });
  process.exitCode = 1;
}
