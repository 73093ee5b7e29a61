//! TeamCreate on real folders, with a runner that stands in for the agent loop (it answers each
//! teammate with a report naming its task), a pool of named tools, and the real task registry.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::sync::{Arc, Mutex};
use std::time::Duration;

use agent_tool_team_create::{TeamConfig, TeammateMode, TmuxConfig, tool_with};
use agent_tools_background::{TaskRegistry, TaskStatus};
use agent_tools_core::BoxFuture;
use agent_tools_core::{
    AgentScope, Capabilities, MaxResultSize, PromptOptions, Tool, ToolDef, ToolError, ToolKind, ToolResult,
    ToolResultBlock, ToolUseContext, build_tool, call_tool,
};
use agent_tools_core::{PermissionBehavior, PermissionRuleSource, ToolPermissionContext};
use agent_tools_core::{SubagentError, SubagentOutcome, SubagentRequest, SubagentRunner};
use agent_tools_team::{Message, Team, state};
use agent_tools_testkit::procs::eventually_blocking as wait_until;
use serde_json::{Value, json};

/// Tools that are only a name and the capabilities of the real tool of that name (one type per
/// scope: capabilities belong to a tool's type), for the caller's pool.
macro_rules! named_tool {
    ($ty:ident, $capabilities:expr) => {
        struct $ty(&'static str);

        impl ToolDef for $ty {
            type Input = Value;
            type Output = String;
            const NAME: &'static str = "Named";
            const CAPABILITIES: Capabilities = $capabilities;
            fn name(&self) -> &str {
                self.0
            }
            fn description(&self, _options: &PromptOptions<'_>) -> String {
                String::new()
            }
            fn summary(&self, _input: &Value) -> String {
                String::new()
            }
            fn max_result_size_chars(&self) -> MaxResultSize {
                MaxResultSize::Chars(1000)
            }
            async fn call(&self, _input: Value, _ctx: &ToolUseContext) -> Result<ToolResult<String>, ToolError> {
                Ok(ToolResult::new(String::new()))
            }
            fn map_tool_result(&self, output: &String, tool_use_id: &str) -> ToolResultBlock {
                ToolResultBlock::text(tool_use_id, output.clone())
            }
        }
    };
}

named_tool!(Worker, Capabilities::new(ToolKind::Other).scope(AgentScope::Everywhere));
named_tool!(Shared, Capabilities::new(ToolKind::Think).scope(AgentScope::Team));
named_tool!(MainOnly, Capabilities::new(ToolKind::Think).scope(AgentScope::MainConversation));
named_tool!(Mcp, Capabilities::DEFAULT);

/// The tool of `name` as the real pool has it (its scope).
fn named(name: &'static str) -> Arc<dyn Tool> {
    match name {
        "AskUserQuestion" | "TaskStop" | "TeamCreate" | "TeamDelete" => build_tool(MainOnly(name)),
        "SendMessage" | "TaskCreate" => build_tool(Shared(name)),
        _ if name.starts_with("mcp__") => build_tool(Mcp(name)),
        _ => build_tool(Worker(name)),
    }
}

const POOL: &[&str] = &[
    "Agent",
    "AskUserQuestion",
    "Bash",
    "Read",
    "SendMessage",
    "StructuredOutput",
    "TaskCreate",
    "TaskStop",
    "TeamCreate",
    "TeamDelete",
    "mcp__srv__echo",
];

/// Answers every teammate at once with `report: <its prompt>`, and remembers the requests.
#[derive(Default)]
struct Answering {
    requests: Mutex<Vec<SubagentRequest>>,
}

impl SubagentRunner for Answering {
    fn run<'a>(
        &'a self,
        request: SubagentRequest,
        _parent: &'a ToolUseContext,
    ) -> BoxFuture<'a, Result<SubagentOutcome, SubagentError>> {
        let report = format!("report: {}", request.prompt);
        self.requests.lock().unwrap().push(request);
        Box::pin(async move { Ok(SubagentOutcome { content: vec![report], ..SubagentOutcome::default() }) })
    }
    fn resume<'a>(
        &'a self,
        agent_id: &'a str,
        _message: String,
        _parent: &'a ToolUseContext,
    ) -> BoxFuture<'a, Result<SubagentOutcome, SubagentError>> {
        Box::pin(async move { Err(SubagentError::Unknown(agent_id.to_owned())) })
    }
    fn resolve_model(&self, alias: &str, _parent_model: &str) -> String {
        alias.to_owned()
    }
}

struct Fixture {
    dir: tempfile::TempDir,
    runner: Arc<Answering>,
}

impl Fixture {
    fn new() -> Self {
        Self { dir: tempfile::tempdir().unwrap(), runner: Arc::new(Answering::default()) }
    }

    fn teams(&self) -> std::path::PathBuf {
        self.dir.path().join("teams")
    }

    fn config(&self) -> TeamConfig {
        TeamConfig { teams_dir: Some(self.teams()), ..TeamConfig::default() }
    }

    fn ctx(&self) -> ToolUseContext {
        let mut ctx = ToolUseContext::new(self.dir.path());
        let pool: Vec<Arc<dyn Tool>> = POOL.iter().map(|name| named(name)).collect();
        ctx.options.tools = pool.into();
        ctx.subagents = Some(Arc::clone(&self.runner) as Arc<dyn SubagentRunner>);
        ctx
    }
}

async fn create(config: TeamConfig, input: Value, ctx: &ToolUseContext) -> (bool, String) {
    let done = call_tool(tool_with(config).as_ref(), "toolu_tc", input, ctx).await;
    (done.block.is_error, done.block.content.text())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_in_process_teammates_start_report_and_are_recorded() {
    let fx = Fixture::new();
    let ctx = fx.ctx();
    let input = json!({"team_name": "Alpha Squad", "description": "parser", "members": [
        {"name": "alice", "prompt": "survey the lexer"},
        {"name": "Bob", "prompt": "survey the parser", "agent_type": "Explore"}
    ]});
    let (is_error, text) = create(fx.config(), input, &ctx).await;
    assert!(!is_error, "{text}");
    let output: Value = serde_json::from_str(&text).unwrap();
    assert_eq!(output["team_name"], "alpha-squad");
    assert_eq!(output["lead_agent_id"], "team-lead@alpha-squad");
    assert_eq!(output["team_file_path"], fx.teams().join("alpha-squad/config.json").display().to_string());
    let members = output["members"].as_array().unwrap();
    assert_eq!(members.len(), 2);
    assert_eq!(
        (members[0]["name"].as_str(), members[0]["agent_id"].as_str()),
        (Some("alice"), Some("alice@alpha-squad"))
    );
    assert_eq!((members[1]["name"].as_str(), members[1]["backend"].as_str()), (Some("bob"), Some("in-process")));
    assert!(output.get("notes").is_none(), "{output}");

    // The config on disk names both, with their tasks.
    let team = Team::open(&fx.teams(), "alpha-squad").unwrap();
    let file = team.load().unwrap();
    assert_eq!(file.description.as_deref(), Some("parser"));
    let ids: Vec<String> = file.members.iter().map(|member| member.task_id.clone().unwrap()).collect();
    assert_eq!(ids[0], members[0]["task_id"].as_str().unwrap());
    assert_eq!(file.members[1].agent_type, "Explore");

    // Each ran as a background teammate with the teammate tool set and prompt.
    assert!(wait_until(Duration::from_secs(5), || fx.runner.requests.lock().unwrap().len() == 2));
    let requests = fx.runner.requests.lock().unwrap().clone();
    let alice = requests.iter().find(|request| request.prompt == "survey the lexer").unwrap();
    assert_eq!(alice.tools, ["Agent", "Bash", "Read", "SendMessage", "TaskCreate", "mcp__srv__echo"]);
    assert!(alice.background);
    assert_eq!(alice.agent_id, ids[0]);
    assert!(alice.system_prompt.contains("You are `alice`, a teammate in the agent team `alpha-squad`"));

    // Their reports reach the lead as task notifications; the registry knows them by name.
    let queue = ctx.notifications();
    assert!(wait_until(Duration::from_secs(5), || queue.len() == 2));
    let texts: Vec<String> = queue.drain().into_iter().map(|pending| pending.text).collect();
    assert!(texts.iter().any(|text| text.contains("<result>report: survey the lexer</result>")), "{texts:?}");
    assert!(texts.iter().any(|text| text.contains("<summary>Agent \"bob (team alpha-squad)\" finished</summary>")));
    let registry = TaskRegistry::existing(&ctx).unwrap();
    let bob = registry.find_agent("bob").unwrap();
    assert_eq!((bob.id.as_str(), bob.status), (ids[1].as_str(), TaskStatus::Completed));

    // The lead hears its mailbox.
    team.append_message("team-lead", Message::new("bob", "found a bug", Some("bug".into()))).unwrap();
    assert!(wait_until(Duration::from_secs(5), || !queue.is_empty()));
    let heard = queue.drain();
    assert_eq!(heard[0].key, "team:alpha-squad");
    assert_eq!(
        heard[0].text,
        "<teammate-message teammate_id=\"bob\" summary=\"bug\">\nfound a bug\n</teammate-message>"
    );
    state::end_team(&ctx);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn inputs_that_cannot_make_a_team_are_refused_with_code_nine() {
    let fx = Fixture::new();
    let ctx = fx.ctx();
    let member = |name: &str, prompt: &str| json!({"name": name, "prompt": prompt});
    let cases = [
        (json!({"team_name": "  "}), "team_name is required for TeamCreate"),
        (json!({"team_name": "../up"}), "team_name: invalid name \"../up\""),
        (json!({"team_name": "t", "members": [member("a/b", "x")]}), "Member name: invalid name \"a/b\""),
        (json!({"team_name": "t", "members": [member("team-lead", "x")]}), "'team-lead' is the lead's name"),
        (json!({"team_name": "t", "members": [member("Al", "x"), member("al", "y")]}), "Two members are named 'al'"),
        (json!({"team_name": "t", "members": [member("al", " ")]}), "Member 'al' needs a prompt"),
    ];
    for (input, expected) in cases {
        let (is_error, text) = create(fx.config(), input.clone(), &ctx).await;
        assert!(is_error && text.contains(expected), "{input}: {text}");
    }
    let many: Vec<Value> = (0..17).map(|n| member(&format!("m{n}"), "x")).collect();
    let (is_error, text) = create(fx.config(), json!({"team_name": "t", "members": many}), &ctx).await;
    assert!(is_error && text.contains("at most 16 teammates"), "{text}");
    assert!(!fx.teams().exists(), "nothing was written");

    let mut sub = fx.ctx();
    sub.agent_id = Some("a12345678".into());
    let (is_error, text) = create(fx.config(), json!({"team_name": "t"}), &sub).await;
    assert!(is_error && text.contains("Only the main conversation can create and lead a team"), "{text}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_taken_name_gets_a_slug_and_a_note() {
    let fx = Fixture::new();
    Team::create(&fx.teams(), "crew", None, None).unwrap();
    let ctx = fx.ctx();
    let (is_error, text) = create(fx.config(), json!({"team_name": "crew"}), &ctx).await;
    assert!(!is_error, "{text}");
    let output: Value = serde_json::from_str(&text).unwrap();
    let name = output["team_name"].as_str().unwrap();
    assert_ne!(name, "crew");
    assert_eq!(
        output["notes"][0].as_str().unwrap(),
        format!("A team named 'crew' already exists, so this one is called '{name}'.")
    );
    assert!(fx.teams().join(name).join("config.json").is_file());
    state::end_team(&ctx);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn teammates_are_refused_where_sub_agents_are() {
    let fx = Fixture::new();
    for rule in ["Agent", "Task", "Agent(Explore)"] {
        let mut ctx = fx.ctx();
        ctx.permission_context = Arc::new(ToolPermissionContext::default().with_rule(
            PermissionBehavior::Deny,
            PermissionRuleSource::UserSettings,
            rule,
        ));
        let input = json!({"team_name": "t", "members": [{"name": "x", "prompt": "p", "agent_type": "Explore"}]});
        let (is_error, text) = create(fx.config(), input, &ctx).await;
        assert!(is_error && text.contains("Teammate 'x' cannot start"), "{rule}: {text}");
    }
    assert!(!fx.teams().exists(), "no team was made");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn without_a_runner_or_tmux_teammates_cannot_start_but_an_empty_team_can() {
    let fx = Fixture::new();
    let mut ctx = fx.ctx();
    ctx.subagents = None;
    let input = json!({"team_name": "t", "members": [{"name": "x", "prompt": "p"}]});
    let (is_error, text) = create(fx.config(), input, &ctx).await;
    assert!(is_error && text.contains("in-process teammates need the agent loop"), "{text}");
    let (is_error, text) = create(fx.config(), json!({"team_name": "t"}), &ctx).await;
    assert!(!is_error, "{text}");
    // No teams folder: the tool is disabled.
    assert!(!agent_tool_team_create::tool().is_enabled());
    state::end_team(&ctx);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn tmux_mode_without_tmux_runs_teammates_in_process_and_says_so() {
    let fx = Fixture::new();
    let ctx = fx.ctx();
    let config = TeamConfig { teammate_mode: TeammateMode::Tmux, ..fx.config() };
    let input = json!({"team_name": "t", "members": [{"name": "x", "prompt": "p"}]});
    let (is_error, text) = create(config, input, &ctx).await;
    assert!(!is_error, "{text}");
    let output: Value = serde_json::from_str(&text).unwrap();
    assert_eq!(output["members"][0]["backend"], "in-process");
    assert_eq!(output["notes"][0], "teammate_mode is tmux, but tmux is not installed: teammates run in-process");
    state::end_team(&ctx);

    // tmux known but no program to run: the same.
    let config =
        TeamConfig { teammate_mode: TeammateMode::Tmux, tmux: Some(TmuxConfig::new("/usr/bin/tmux")), ..fx.config() };
    let (_, text) = create(config, json!({"team_name": "u", "members": [{"name": "x", "prompt": "p"}]}), &ctx).await;
    assert!(text.contains("this host cannot start agent-tools processes"), "{text}");
    state::end_team(&ctx);
}
