//! What the loop's integration tests share: a backend on the scripted fake Messages API, agent
//! options that retry fast, and a `tool_use` block.

#![allow(dead_code, clippy::unwrap_used)]

use std::time::Duration;

use agent_tools_api::{ApiConfig, Backend, Client, ClientOptions, RetryPolicy};
use agent_tools_loop::AgentOptions;
use agent_tools_testkit::fake_api::FakeApi;
use serde_json::{Value, json};

/// The Messages API backend of `api`.
pub fn backend(api: &FakeApi) -> Backend {
    let config = ApiConfig { base_url: api.base_url(), ..ApiConfig::new("sk-test") };
    Backend::Anthropic(Client::new(config, &ClientOptions::new("loop-test", Duration::from_secs(30))).unwrap())
}

/// Options on `claude-sonnet-4-5` whose retries wait 10 to 50 ms.
pub fn options() -> AgentOptions {
    let mut options = AgentOptions::new("claude-sonnet-4-5");
    options.retry = RetryPolicy {
        base_delay: Duration::from_millis(10),
        max_delay: Duration::from_millis(50),
        ..RetryPolicy::default()
    };
    options
}

/// A `tool_use` content block.
pub fn tool_use(id: &str, name: &str, input: Value) -> Value {
    json!({"type": "tool_use", "id": id, "name": name, "input": input})
}
