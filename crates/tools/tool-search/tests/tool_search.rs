//! ToolSearch on a pool of small fake tools: select, keyword scoring and ordering, required
//! terms, the `mcp__` prefix, `max_results`, and the result blocks.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::sync::Arc;

use agent_tools_core::call_tool;
use agent_tools_core::{
    MaxResultSize, PromptOptions, Tool, ToolDef, ToolError, ToolResult, ToolResultBlock, ToolUseContext, build_tool,
    is_deferred,
};
use serde_json::{Value, json};

#[derive(serde::Deserialize, schemars::JsonSchema)]
struct Empty {}

#[derive(Clone, Copy, Default)]
struct Fake {
    name: &'static str,
    prompt: &'static str,
    hint: Option<&'static str>,
    mcp: bool,
    defer: bool,
    always: bool,
    aliases: &'static [&'static str],
}

impl ToolDef for Fake {
    type Input = Empty;
    type Output = ();
    const NAME: &'static str = "Fake";

    fn name(&self) -> &str {
        self.name
    }
    fn aliases(&self) -> &[&str] {
        self.aliases
    }
    fn search_hint(&self) -> Option<&str> {
        self.hint
    }
    fn summary(&self, _: &Empty) -> String {
        self.name.to_owned()
    }
    fn description(&self, _: &PromptOptions<'_>) -> String {
        self.prompt.to_owned()
    }
    fn max_result_size_chars(&self) -> MaxResultSize {
        MaxResultSize::Chars(1000)
    }
    fn should_defer(&self) -> bool {
        self.defer
    }
    fn always_load(&self) -> bool {
        self.always
    }
    fn mcp_info(&self) -> Option<agent_tools_core::McpInfo> {
        self.mcp.then(|| agent_tools_core::McpInfo { server_name: "fake".into(), tool_name: self.name.into() })
    }
    async fn call(&self, _: Empty, _: &ToolUseContext) -> Result<ToolResult<()>, ToolError> {
        Ok(ToolResult::new(()))
    }
    fn map_tool_result(&self, _: &(), id: &str) -> ToolResultBlock {
        ToolResultBlock::text(id, "ok")
    }
}

fn mcp(name: &'static str, prompt: &'static str) -> Arc<dyn Tool> {
    build_tool(Fake { name, prompt, mcp: true, ..Fake::default() })
}

fn pool() -> Vec<Arc<dyn Tool>> {
    vec![
        build_tool(Fake {
            name: "NotebookEdit",
            prompt: "Edits cells of a Jupyter notebook.",
            hint: Some("edit jupyter notebook cells"),
            defer: true,
            ..Fake::default()
        }),
        build_tool(Fake { name: "Read", prompt: "Reads a file.", ..Fake::default() }),
        build_tool(Fake {
            name: "TaskStop",
            prompt: "Stops a background task.",
            defer: true,
            aliases: &["KillShell"],
            ..Fake::default()
        }),
        agent_tool_tool_search::tool(),
        build_tool(Fake {
            name: "WebFetch",
            prompt: "Fetches a URL and reads the page.",
            hint: Some("fetch and read a web page"),
            defer: true,
            ..Fake::default()
        }),
        mcp("mcp__slack__send_message", "Send a message to a Slack channel."),
        mcp("mcp__slack__read_channel", "Read the messages of a channel."),
        mcp("mcp__github__create_issue", "Open an issue in a repository."),
    ]
}

async fn search_in(tools: Vec<Arc<dyn Tool>>, input: Value) -> (ToolResultBlock, Value) {
    let mut ctx = ToolUseContext::new(std::env::temp_dir());
    ctx.options.tools = tools.into();
    let done = call_tool(agent_tool_tool_search::tool().as_ref(), "toolu_1", input, &ctx).await;
    let data = done.data.map_or(Value::Null, |data| data.to_json());
    (done.block, data)
}

async fn matches(query: &str) -> Vec<String> {
    matches_with(pool(), json!({"query": query})).await
}

async fn matches_with(tools: Vec<Arc<dyn Tool>>, input: Value) -> Vec<String> {
    let (block, data) = search_in(tools, input).await;
    assert!(!block.is_error, "{block:?}");
    serde_json::from_value(data["matches"].clone()).unwrap()
}

#[tokio::test]
async fn keywords_are_scored_and_sorted_best_first() {
    // read_channel: "channel" is a name part of an MCP tool (12) and a description word (2);
    // WebFetch: "page" is a hint word (4) and a description word (2); send_message: "channel"
    // only in its description (2).
    assert_eq!(matches("page channel").await, ["mcp__slack__read_channel", "WebFetch", "mcp__slack__send_message"]);
    // "message" is a name part of send_message only ("messages" is not the word "message").
    assert_eq!(matches("slack message").await, ["mcp__slack__send_message", "mcp__slack__read_channel"]);
    assert_eq!(matches("notebook").await, ["NotebookEdit"]);
    // A name-part substring scores too.
    assert_eq!(matches("fetc").await, ["WebFetch"]);
    assert_eq!(matches("zebra quokka").await, Vec::<String>::new());
}

#[tokio::test]
async fn equal_scores_keep_pool_order() {
    let tools = vec![mcp("mcp__b__ping", "Ping."), mcp("mcp__a__ping", "Ping.")];
    assert_eq!(matches_with(tools, json!({"query": "ping"})).await, ["mcp__b__ping", "mcp__a__ping"]);
}

#[tokio::test]
async fn an_exact_name_gives_that_tool_even_when_loaded() {
    assert_eq!(matches("webfetch").await, ["WebFetch"]);
    assert_eq!(matches("  READ ").await, ["Read"]);
}

#[tokio::test]
async fn required_terms_filter_before_scoring() {
    assert_eq!(matches("+slack read").await, ["mcp__slack__read_channel", "mcp__slack__send_message"]);
    assert_eq!(matches("+github message").await, ["mcp__github__create_issue"]);
    assert_eq!(matches("+nothing slack").await, Vec::<String>::new());
    // A required term can be met by the search hint alone.
    assert_eq!(matches("+jupyter edit").await, ["NotebookEdit"]);
}

#[tokio::test]
async fn an_mcp_prefix_lists_that_servers_tools_in_pool_order() {
    assert_eq!(matches("mcp__slack").await, ["mcp__slack__send_message", "mcp__slack__read_channel"]);
    assert_eq!(
        matches_with(pool(), json!({"query": "mcp__slack", "max_results": 1})).await,
        ["mcp__slack__send_message"]
    );
    assert_eq!(matches("mcp__nobody").await, Vec::<String>::new());
}

#[tokio::test]
async fn select_finds_names_and_aliases_once_skipping_unknown_ones() {
    assert_eq!(
        matches("select:KillShell, NotebookEdit,Nope,TaskStop,Read").await,
        ["TaskStop", "NotebookEdit", "Read"]
    );
    assert_eq!(matches("SELECT:WebFetch").await, ["WebFetch"]);
    // max_results limits keyword searches only.
    assert_eq!(
        matches_with(pool(), json!({"query": "select:WebFetch,NotebookEdit", "max_results": 1})).await,
        ["WebFetch", "NotebookEdit"]
    );
    assert_eq!(matches("select:Nope").await, Vec::<String>::new());
}

#[tokio::test]
async fn max_results_caps_keyword_results_and_odd_values_do_not_panic() {
    assert_eq!(matches_with(pool(), json!({"query": "page channel", "max_results": 2})).await.len(), 2);
    assert_eq!(matches_with(pool(), json!({"query": "page channel", "max_results": 2.9})).await.len(), 2);
    assert_eq!(matches_with(pool(), json!({"query": "page channel", "max_results": 1e300})).await.len(), 3);
    assert_eq!(matches_with(pool(), json!({"query": "page channel", "max_results": "1"})).await.len(), 1);
    for bad in [json!(-1), json!(0), json!(0.5)] {
        let (block, _) = search_in(pool(), json!({"query": "page", "max_results": bad})).await;
        assert!(block.is_error);
        assert!(block.content.text().starts_with("<tool_use_error>max_results must be a number of at least 1"));
    }
    let (block, _) = search_in(pool(), json!({"query": "page", "max_results": "lots"})).await;
    assert!(block.is_error);
    assert!(block.content.text().starts_with("<tool_use_error>InputValidationError: "));
}

#[tokio::test]
async fn results_are_tool_reference_blocks_or_the_no_match_text() {
    let (block, data) = search_in(pool(), json!({"query": "select:NotebookEdit,WebFetch"})).await;
    assert_eq!(
        serde_json::to_value(&block).unwrap(),
        json!({"tool_use_id": "toolu_1", "content": [
            {"type": "tool_reference", "tool_name": "NotebookEdit"},
            {"type": "tool_reference", "tool_name": "WebFetch"}
        ]})
    );
    // NotebookEdit, TaskStop, WebFetch and the three MCP tools; not Read nor ToolSearch.
    assert_eq!(
        data,
        json!({"matches": ["NotebookEdit", "WebFetch"], "query": "select:NotebookEdit,WebFetch", "total_deferred_tools": 6})
    );
    let (block, data) = search_in(pool(), json!({"query": "zebra"})).await;
    assert_eq!(
        serde_json::to_value(&block).unwrap(),
        json!({"tool_use_id": "toolu_1", "content": "No matching deferred tools found"})
    );
    assert_eq!(data["matches"], json!([]));
}

#[tokio::test]
async fn always_loaded_mcp_tools_are_not_searched() {
    let tools = vec![
        build_tool(Fake { name: "mcp__x__ping", prompt: "Ping.", mcp: true, always: true, ..Fake::default() }),
        mcp("mcp__y__ping", "Ping."),
    ];
    assert!(!is_deferred(tools[0].as_ref()));
    assert!(is_deferred(tools[1].as_ref()));
    assert_eq!(matches_with(tools, json!({"query": "ping"})).await, ["mcp__y__ping"]);
}

#[test]
fn the_tool_is_never_deferred_read_only_and_has_claude_codes_schema() {
    let tool = agent_tool_tool_search::tool();
    assert!(!is_deferred(tool.as_ref()));
    assert!(tool.always_load());
    let parsed = tool.parse(json!({"query": "x"})).unwrap();
    assert!(tool.is_read_only(&parsed) && tool.is_concurrency_safe(&parsed));
    assert_eq!(
        tool.input_schema()["properties"],
        json!({
            "query": {"type": "string", "description": tool.input_schema()["properties"]["query"]["description"]},
            "max_results": {"type": "number", "default": 5, "description": tool.input_schema()["properties"]["max_results"]["description"]}
        })
    );
    assert_eq!(tool.input_schema()["required"], json!(["query"]));
}
