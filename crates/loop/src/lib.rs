//! # agent-tools-loop: the agent loop
//!
//! An [`Agent`] holds a conversation with a model (the Anthropic Messages API, or an
//! OpenAI-compatible server, through [`agent_tools_api::Backend`]) and runs the model's tool
//! calls on a host [`Session`](agent_tools_host::Session), as Claude Code's query loop does:
//!
//! - **Turns**: send the conversation, stream the answer, run its `tool_use` blocks, send the
//!   `tool_result`s, until the model ends its turn (or `max_turns`, `max_budget_usd`, an
//!   interrupt). An answer cut off at `max_tokens` is continued (up to
//!   [`MAX_TOKENS_CONTINUATIONS`] times).
//! - **Streaming tool execution** (Claude Code's StreamingToolExecutor): a `tool_use` block of
//!   the answer's leading run of concurrency-safe calls starts as soon as the block is complete,
//!   while the rest of the answer still streams. The remaining calls run after the answer:
//!   consecutive concurrency-safe calls together, any other call alone. Results go back in block
//!   order, in one user message.
//! - **Context**: the system prompt (our own words), the environment (working directory, git,
//!   platform, date, model) and a git snapshot in a system message, `CLAUDE.md` memory files
//!   ([`memory`]) in a `<system-reminder>` of the first prompt. Prompt-cache breakpoints on the
//!   system prompt, after the built-in tools and on the last block of the last message.
//! - **Conversation messages** Claude Code adds: `# Environment update` after a `cd`, PostToolUse
//!   hook output, background-task notifications, `Tool loaded.` after a ToolSearch that loaded
//!   tools.
//! - **Hooks** of the loop (settings' `hooks`, Claude Code's format): `Setup` and
//!   `SessionStart` (startup, resume, compact), `UserPromptSubmit` (its block refuses the prompt,
//!   its output is context), `Stop` / `SubagentStop` (a block makes the model go on),
//!   `SubagentStart`, `StopFailure`, `Interrupt`, `PreCompact` / `PostCompact`,
//!   `InstructionsLoaded`, `PostToolBatch`, `CwdChanged`, and for the front ends `SessionEnd`
//!   ([`Agent::end`]), `Notification` ([`Agent::notify`]), `PreModelSwitch` / `PostModelSwitch`
//!   ([`Agent::switch_model`]), `UserPromptExpansion` ([`Agent::expand_prompt`], for a slash
//!   command a front end expands), `DirectoryAdded` ([`Agent::directories_added`]) and
//!   `TeammateIdle` ([`Agent::teammate_idle`]). Inside a sub-agent every hook's input carries its
//!   `agent_id` and `agent_type`.
//! - **Compaction** ([`compact`]): near the context window the model summarises the
//!   conversation and the summary replaces it; tools ToolSearch loaded stay loaded.
//! - **Auto mode** ([`classifier`]): with `--permission-mode auto`, a small model judges the
//!   calls that would ask, from the user's requests and each tool's `to_auto_classifier_input`;
//!   it fails closed.
//! - **The conversation** ([`conversation`]): typed messages over verbatim blocks.
//! - **Transcripts** ([`transcript`]): the conversation is saved as it grows, in Claude Code's
//!   layout and line format (`~/.claude/projects/<slug>/<session id>.jsonl`), for `--continue` /
//!   `--resume` and what reads Claude Code's sessions (the Agent SDKs' session functions).
//! - **The SDK protocol** ([`protocol`]): the stream-json lines and control requests the Claude
//!   Agent SDKs exchange with `claude -p`, as serde types, and the `result` line
//!   ([`ResultLine`]).
//!
//! ```
//! # #[tokio::main(flavor = "current_thread")] async fn main() -> Result<(), Box<dyn std::error::Error>> {
//! use std::sync::Arc;
//! use agent_tools_api::{ApiConfig, Backend, Client, ClientOptions};
//! use agent_tools_host::{Environment, Session};
//! use agent_tools_loop::{Agent, AgentOptions};
//! use agent_tools_testkit::fake_api::FakeApi;
//! use serde_json::json;
//! // A scripted model: it asks for one Grep, then says "Found it."
//! let grep = json!({"type": "tool_use", "id": "toolu_1", "name": "Grep", "input": {"pattern": "beta"}});
//! let api = FakeApi::scripted(vec![vec![grep]], "Found it.");
//! let project = tempfile::tempdir()?;
//! std::fs::write(project.path().join("notes.txt"), "alpha\nbeta\n")?;
//! let session = Session::builder(project.path()).environment(Environment::empty()).build().await?;
//! # if session.find_tool("Grep").is_none() { return Ok(()); } // a build without the `grep` feature
//! let config = ApiConfig { base_url: api.base_url(), ..ApiConfig::new("sk-test") };
//! let client = Client::new(config, &ClientOptions::new("example", std::time::Duration::from_secs(30)))?;
//! let agent = Agent::new(Arc::new(session), Backend::Anthropic(client), AgentOptions::new("claude-sonnet-4-5"))?;
//! let result = agent.query("Where is beta?", &mut |_event| {}).await;
//! assert_eq!(result.result, "Found it.");
//! assert_eq!(result.num_turns, 2);
//! // The second request carried Grep's result.
//! let second = &api.requests()[1].body;
//! let results = &second["messages"][3]["content"][0];
//! assert_eq!(results["type"], "tool_result");
//! assert_eq!(results["content"], "Found 1 file\nnotes.txt");
//! # Ok(()) }
//! ```

pub mod agent;
pub mod classifier;
pub mod commands;
pub mod compact;
pub mod context_usage;
pub mod conversation;
pub mod events;
pub mod memory;
pub mod options;
pub mod prompt;
pub mod protocol;
pub mod results;
pub mod sampler;
pub mod spend;
pub mod subagents;
pub mod transcript;

pub use agent::{Agent, AgentError, Sink};
pub use classifier::ModelClassifier;
pub use events::{AgentEvent, ModelUsage, QueryResult, ResultLine, ResultSubtype};
pub use options::{
    AgentOptions, DEFAULT_MODEL, DEFAULT_STOP_HOOK_BLOCK_CAP, MAX_STRUCTURED_OUTPUT_RETRIES, MAX_TOKENS_CONTINUATIONS,
    resolve_model,
};
pub use sampler::ModelSampler;
pub use subagents::LoopRunner;
