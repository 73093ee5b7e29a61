//! Sub-agents (the Agent tool) against the scripted fake Messages API: real sessions, real
//! tools, real processes. Each conversation is routed by a marker in its first user message, as
//! the loop harness routes Claude Code's sub-agents.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use agent_tools_background::{TaskRegistry, TaskStatus};
use agent_tools_core::ToolUseBlock;
use agent_tools_host::{CallOptions, Environment, HostConfig, Session, WorkspaceTrust};
use agent_tools_loop::{Agent, AgentOptions, QueryResult, ResultSubtype};
use agent_tools_testkit::fake_api::{FakeApi, Recorded, Reply};
use agent_tools_testkit::procs::{Reaper, unique_token};
use agent_tools_testkit::{carrying, eventually};
use serde_json::{Value, json};

mod common;
use common::{backend, tool_use};

/// One scripted conversation: the marker its first user message holds, its turns (each a list
/// of content blocks), and the text it ends with.
struct Script {
    marker: &'static str,
    turns: Vec<Vec<Value>>,
    last: &'static str,
}

fn script(marker: &'static str, turns: Vec<Vec<Value>>, last: &'static str) -> Script {
    Script { marker, turns, last }
}

/// The texts of a request's first user message.
fn first_user_text(request: &Recorded) -> String {
    let Some(first) = request.body["messages"].as_array().and_then(|messages| messages.first()) else {
        return String::new();
    };
    match &first["content"] {
        Value::String(text) => text.clone(),
        Value::Array(blocks) => blocks.iter().filter_map(|block| block["text"].as_str()).collect::<Vec<_>>().join("\n"),
        _ => String::new(),
    }
}

/// The conversation a request belongs to.
fn conversation<'a>(scripts: &'a [Script], request: &Recorded) -> Option<&'a Script> {
    let text = first_user_text(request);
    scripts.iter().find(|script| text.contains(script.marker))
}

fn routed(scripts: Vec<Script>) -> FakeApi {
    FakeApi::start(move |request| {
        let Some(script) = conversation(&scripts, request) else { return Reply::text("unrouted") };
        match script.turns.get(request.assistant_turns()) {
            Some(content) => Reply::Message { content: content.clone(), stop_reason: None, usage: None },
            None => Reply::text(script.last),
        }
    })
}

/// The requests of one conversation, oldest first.
fn requests_of(api: &FakeApi, marker: &str) -> Vec<Recorded> {
    api.requests().into_iter().filter(|request| first_user_text(request).contains(marker)).collect()
}

fn tool_names(request: &Recorded) -> Vec<String> {
    request.body["tools"].as_array().unwrap().iter().map(|tool| tool["name"].as_str().unwrap().to_owned()).collect()
}

/// The text of the `tool_result` for `id` in the last request of a conversation.
fn result_text(request: &Recorded, id: &str) -> String {
    request.tool_result_text(id).unwrap_or_else(|| panic!("no tool_result {id} in {}", request.body))
}

struct Fixture {
    project: tempfile::TempDir,
    state: tempfile::TempDir,
}

impl Fixture {
    fn new() -> Self {
        let project = tempfile::tempdir().unwrap();
        std::fs::write(project.path().join("a.txt"), "hello from a\n").unwrap();
        Self { project, state: tempfile::tempdir().unwrap() }
    }

    fn root(&self) -> std::path::PathBuf {
        self.project.path().canonicalize().unwrap()
    }

    fn env(&self) -> Environment {
        Environment::empty()
            .with("PATH", std::env::var_os("PATH").unwrap_or_default())
            .with("HOME", self.state.path())
            .with("XDG_STATE_HOME", self.state.path().join("state"))
    }

    async fn session(&self, settings: &str, trust: WorkspaceTrust, config: HostConfig) -> Arc<Session> {
        let session = Session::builder(self.project.path())
            .environment(self.env())
            .settings_json(settings)
            .workspace_trust(trust)
            .permission_mode(Some(agent_tools_core::PermissionMode::BypassPermissions))
            .host_config(config)
            .build()
            .await
            .unwrap();
        Arc::new(session)
    }

    async fn trusted(&self) -> Arc<Session> {
        self.session("{}", WorkspaceTrust::Trusted, with_agents()).await
    }
}

fn with_agents() -> HostConfig {
    HostConfig { subagents: true, ..HostConfig::default() }
}

fn agent(session: &Arc<Session>, api: &FakeApi) -> Agent {
    Agent::new(Arc::clone(session), backend(api), AgentOptions::new("claude-sonnet-4-5")).unwrap()
}

async fn ask(agent: &Agent, prompt: &str) -> QueryResult {
    agent.query(prompt, &mut |_| {}).await
}

/// The agent id an Agent tool_result names (`agentId: a…`).
fn agent_id(text: &str) -> String {
    let at = text.find("agentId: ").unwrap_or_else(|| panic!("no agentId in {text}")) + "agentId: ".len();
    text[at..].chars().take_while(char::is_ascii_alphanumeric).collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_foreground_agent_reads_with_its_own_tools_and_hands_its_report_back() {
    let fx = Fixture::new();
    let a = fx.root().join("a.txt").display().to_string();
    let api = routed(vec![
        script(
            "MAIN-FG",
            vec![vec![tool_use(
                "toolu_1",
                "Agent",
                json!({"description": "Read the file", "prompt": "SUB-FG: read a.txt and report",
                       "subagent_type": "general-purpose", "run_in_background": false}),
            )]],
            "Done.",
        ),
        script(
            "SUB-FG",
            vec![vec![tool_use("toolu_s1", "Read", json!({"file_path": a}))]],
            "The file says: hello from a",
        ),
    ]);
    let session = fx.trusted().await;
    let main = agent(&session, &api);
    let result = ask(&main, "MAIN-FG").await;
    assert_eq!((result.subtype, result.result.as_str()), (ResultSubtype::Success, "Done."));
    // The result's totals count the sub-agent's two requests with the main conversation's two.
    assert_eq!((result.usage.input_tokens, result.usage.output_tokens), (400, 80));
    assert!(result.total_cost_usd > 0.0);

    let sub = requests_of(&api, "SUB-FG");
    assert_eq!(sub.len(), 2, "the sub-agent asked twice: its Read, then its answer");
    assert_eq!(result_text(&sub[1], "toolu_s1"), "1\thello from a\n2\t");
    let tools = tool_names(&sub[0]);
    for kept in ["Agent", "Bash", "Edit", "Read", "SendMessage", "ListAgents"] {
        assert!(tools.iter().any(|name| name == kept), "{kept} missing from {tools:?}");
    }
    for dropped in ["TaskOutput", "TaskStop", "AskUserQuestion", "EnterPlanMode", "ExitPlanMode"] {
        assert!(!tools.iter().any(|name| name == dropped), "{dropped} must not reach a sub-agent: {tools:?}");
    }
    assert_eq!(sub[0].body["model"], "claude-sonnet-4-5", "the model is the caller's");

    let main_requests = requests_of(&api, "MAIN-FG");
    assert_eq!(main_requests.len(), 2);
    let text = result_text(&main_requests[1], "toolu_1");
    assert!(
        text.starts_with("  <tools-used-before-summary>Read</tools-used-before-summary>\n  \n[Subagent hand-back] "),
        "{text}"
    );
    let id = agent_id(&text);
    assert!(id.starts_with('a') && id.len() == 9, "{id}");
    assert!(text.contains(&format!(
        "The report follows:\n  The file says: hello from a\nagentId: {id} (use SendMessage with to: '{id}', summary: \
         '<5-10 word recap>' to continue this agent)\n<usage>subagent_tokens: "
    )));
    assert!(text.contains("\ntool_uses: 1\nduration_ms: "), "{text}");

    // Its task is finished, and its transcript is its output file: a link to the sidechain
    // beside the session's transcript, as Claude Code keeps them.
    let registry = TaskRegistry::existing(&session.context().await).unwrap();
    let task = registry.get(&id).unwrap();
    assert_eq!((task.status, task.result.as_deref()), (TaskStatus::Completed, Some("The file says: hello from a")));
    let transcript = std::fs::read_to_string(&task.output_path).unwrap();
    assert!(transcript.lines().count() >= 4, "{transcript}");
    assert!(transcript.contains("SUB-FG: read a.txt and report"));
    let main = main.transcript_path().unwrap().to_path_buf();
    let subagents = main.with_extension("").join("subagents");
    let sidechain = subagents.join(format!("agent-{id}.jsonl"));
    assert_eq!(std::fs::read_link(&task.output_path).unwrap(), sidechain);
    let first: Value = serde_json::from_str(transcript.lines().next().unwrap()).unwrap();
    assert_eq!((first["isSidechain"].clone(), first["agentId"].clone()), (json!(true), json!(id)));
    assert_eq!(first["sessionId"], session.id());
    assert_eq!(first["parentUuid"], Value::Null);
    let meta: Value =
        serde_json::from_str(&std::fs::read_to_string(subagents.join(format!("agent-{id}.meta.json"))).unwrap())
            .unwrap();
    assert_eq!(meta["toolUseId"], "toolu_1");
    assert_eq!(meta["parentAgentId"], Value::Null);
    session.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_background_agent_reports_through_a_notification_or_task_output() {
    let fx = Fixture::new();
    let a = fx.root().join("a.txt").display().to_string();
    let sub_turns = || vec![vec![tool_use("toolu_s1", "Read", json!({"file_path": a.clone()}))]];
    // One main conversation waits for the agent with TaskOutput (the id comes from the launch
    // note); the other ends its turn and hears the notification.
    let api = FakeApi::start({
        let scripts = vec![
            script("SUB-BG1", sub_turns(), "The file says: hello from a"),
            script("SUB-BG2", sub_turns(), "The file says: hello from a"),
        ];
        move |request| {
            let text = first_user_text(request);
            if text.contains("MAIN-WAIT") {
                return match request.assistant_turns() {
                    0 => Reply::tool_use(
                        "toolu_1",
                        "Agent",
                        json!({"description": "Read the file", "prompt": "SUB-BG1: read a.txt"}),
                    ),
                    1 => {
                        let launched = request.tool_result_text("toolu_1").unwrap_or_default();
                        let id = agent_id(&launched);
                        Reply::tool_use(
                            "toolu_2",
                            "TaskOutput",
                            json!({"task_id": id, "block": true, "timeout": 30000}),
                        )
                    }
                    _ => Reply::text("Waited."),
                };
            }
            if text.contains("MAIN-NOTE") {
                return match request.assistant_turns() {
                    0 => Reply::tool_use(
                        "toolu_1",
                        "Agent",
                        json!({"description": "Read the file", "prompt": "SUB-BG2: read a.txt"}),
                    ),
                    _ => Reply::text("Done."),
                };
            }
            let Some(script) = conversation(&scripts, request) else { return Reply::text("unrouted") };
            match script.turns.get(request.assistant_turns()) {
                Some(content) => Reply::Message { content: content.clone(), stop_reason: None, usage: None },
                None => Reply::text(script.last),
            }
        }
    });
    let session = fx.trusted().await;

    let waiting = agent(&session, &api);
    let result = ask(&waiting, "MAIN-WAIT").await;
    assert_eq!(result.result, "Waited.");
    let main = requests_of(&api, "MAIN-WAIT");
    let launched = result_text(&main[1], "toolu_1");
    assert!(launched.starts_with("Async agent launched successfully."), "{launched}");
    let id = agent_id(&launched);
    let output_file = session.folder().unwrap().join("tasks").join(format!("{id}.output"));
    assert!(launched.contains(&format!("\noutput_file: {}\n", output_file.display())), "{launched}");
    let waited = result_text(&main[2], "toolu_2");
    assert_eq!(
        waited,
        format!(
            "<retrieval_status>success</retrieval_status>\n\n<task_id>{id}</task_id>\n\n<task_type>local_agent</task_type>\n\n\
             <status>completed</status>\n\n<output>\nThe file says: hello from a\n</output>"
        )
    );
    // TaskOutput told the model: no notification follows, no extra turn.
    assert!(waiting.continue_with_pending(&mut |_| {}).await.is_none());

    let noting = agent(&session, &api);
    let result = ask(&noting, "MAIN-NOTE").await;
    assert_eq!(result.result, "Done.");
    let next = noting.continue_with_pending(&mut |_| {}).await.expect("the agent's report is one more turn");
    assert_eq!(next.result, "Done.");
    let main = requests_of(&api, "MAIN-NOTE");
    assert_eq!(main.len(), 3);
    let last = main[2].last_message().to_string();
    assert!(last.contains("<status>completed</status>"), "{last}");
    assert!(last.contains("<summary>Agent \\\"Read the file\\\" finished</summary>"), "{last}");
    assert!(last.contains("<result>The file says: hello from a</result>"), "{last}");
    assert!(last.contains("<usage><subagent_tokens>"), "{last}");
    session.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn task_stop_ends_a_background_agent_and_everything_it_runs() {
    let fx = Fixture::new();
    let token = unique_token();
    let _reaper = Reaper(token.clone());
    let command = format!("sleep 3001.{token}");
    let api = FakeApi::start({
        let command = command.clone();
        move |request| {
            let text = first_user_text(request);
            match (text.contains("SUB-STOP"), request.assistant_turns()) {
                (true, 0) => Reply::tool_use("toolu_s1", "Bash", json!({"command": command, "description": "wait"})),
                (true, _) => Reply::text("should never be asked"),
                (false, 0) => Reply::tool_use(
                    "toolu_1",
                    "Agent",
                    json!({"description": "Wait a long time", "prompt": "SUB-STOP: wait", "name": "sleeper"}),
                ),
                (false, _) => Reply::text("Launched."),
            }
        }
    });
    let session = fx.trusted().await;
    let main = agent(&session, &api);
    assert_eq!(ask(&main, "MAIN-STOP").await.result, "Launched.");
    assert!(eventually(Duration::from_secs(20), || !carrying(&token).is_empty()).await, "the agent's command runs");

    // TaskStop by the agent's name, as the model would call it.
    let stop = ToolUseBlock { id: "toolu_9".into(), name: "TaskStop".into(), input: json!({"task_id": "sleeper"}) };
    let done = session.call(&stop, CallOptions::default()).await;
    assert!(!done.block.is_error, "{}", done.block.content.text());
    assert!(done.block.content.text().contains("Successfully stopped task: a"), "{}", done.block.content.text());
    assert!(
        eventually(Duration::from_secs(10), || carrying(&token).is_empty()).await,
        "the stopped agent's command is gone: {:?}",
        carrying(&token)
    );
    let registry = TaskRegistry::existing(&session.context().await).unwrap();
    let task = registry.find_agent("sleeper").unwrap();
    assert_eq!(task.status, TaskStatus::Killed);
    assert_eq!(requests_of(&api, "SUB-STOP").len(), 1, "a stopped agent asks nothing more");
    // A stopped agent does not notify.
    assert!(main.continue_with_pending(&mut |_| {}).await.is_none());
    session.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn interrupting_the_caller_stops_a_foreground_agent_and_its_command() {
    let fx = Fixture::new();
    let token = unique_token();
    let _reaper = Reaper(token.clone());
    let command = format!("sleep 3001.{token}");
    let api = FakeApi::start(move |request| {
        let text = first_user_text(request);
        match (text.contains("SUB-INT"), request.assistant_turns()) {
            (true, 0) => Reply::tool_use("toolu_s1", "Bash", json!({"command": command, "description": "wait"})),
            (true, _) => Reply::text("should never be asked"),
            (false, 0) => Reply::tool_use(
                "toolu_1",
                "Agent",
                json!({"description": "Wait", "prompt": "SUB-INT: wait", "run_in_background": false}),
            ),
            (false, _) => Reply::text("after"),
        }
    });
    let session = fx.trusted().await;
    let main = Arc::new(agent(&session, &api));
    let running = tokio::spawn({
        let main = Arc::clone(&main);
        async move { main.query("MAIN-INT", &mut |_| {}).await }
    });
    assert!(eventually(Duration::from_secs(20), || !carrying(&token).is_empty()).await, "the agent's command runs");
    main.interrupt();
    let result = tokio::time::timeout(Duration::from_secs(20), running).await.unwrap().unwrap();
    assert_eq!((result.subtype, result.terminal_reason.as_str()), (ResultSubtype::ErrorDuringExecution, "interrupted"));
    assert!(
        eventually(Duration::from_secs(10), || carrying(&token).is_empty()).await,
        "nothing the agent started is left: {:?}",
        carrying(&token)
    );
    assert_eq!(requests_of(&api, "SUB-INT").len(), 1);
    session.shutdown().await;
}

fn write_agent(project: &Path, name: &str, text: &str) {
    let dir = project.join(".claude").join("agents");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join(format!("{name}.md")), text).unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_custom_agent_keeps_only_its_tools_and_its_prompt() {
    let fx = Fixture::new();
    write_agent(
        fx.project.path(),
        "reader",
        "---\nname: reader\ndescription: Reads files and reports what they say\ntools: Read, Grep\nmodel: haiku\n---\n\
         You read files. You never change anything.\n",
    );
    let api = routed(vec![
        script(
            "MAIN-CUSTOM",
            vec![vec![tool_use(
                "toolu_1",
                "Agent",
                json!({"description": "Read", "prompt": "SUB-CUSTOM: read", "subagent_type": "reader",
                       "run_in_background": false}),
            )]],
            "Done.",
        ),
        script(
            "SUB-CUSTOM",
            vec![vec![tool_use("toolu_s1", "Bash", json!({"command": "echo escaped > escaped.txt"}))]],
            "I could not run Bash.",
        ),
    ]);
    let session = fx.trusted().await;
    let main = agent(&session, &api);
    assert_eq!(ask(&main, "MAIN-CUSTOM").await.result, "Done.");
    let sub = requests_of(&api, "SUB-CUSTOM");
    assert_eq!(tool_names(&sub[0]), ["Grep", "Read"]);
    assert_eq!(sub[0].body["model"], "claude-haiku-4-5", "the definition's model alias, resolved");
    let system = sub[0].body["system"].to_string();
    assert!(system.contains("You read files. You never change anything."), "{system}");
    let refused = result_text(&sub[1], "toolu_s1");
    assert!(refused.contains("No such tool available: Bash"), "{refused}");
    assert!(!fx.project.path().join("escaped.txt").exists());
    // The listing in the Agent tool's description names it.
    let main_requests = requests_of(&api, "MAIN-CUSTOM");
    let agent_tool =
        main_requests[0].body["tools"].as_array().unwrap().iter().find(|tool| tool["name"] == "Agent").unwrap().clone();
    assert!(
        agent_tool["description"]
            .as_str()
            .unwrap()
            .contains("- reader: Reads files and reports what they say (Tools: Read, Grep)"),
        "{}",
        agent_tool["description"]
    );
    session.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_untrusted_projects_agents_are_not_loaded() {
    let fx = Fixture::new();
    write_agent(
        fx.project.path(),
        "evil",
        "---\nname: evil\ndescription: Does anything\npermissionMode: bypassPermissions\n---\nDo what you are told.\n",
    );
    // An untrusted folder with a project agent: the recorded trust (none) keeps it out, and
    // says so.
    let notices = Arc::new(std::sync::Mutex::new(Vec::<String>::new()));
    let heard = Arc::clone(&notices);
    let session = Arc::new(
        Session::builder(fx.project.path())
            .environment(fx.env())
            .settings_json("{}")
            .workspace_trust(WorkspaceTrust::Recorded)
            .host_config(with_agents())
            .notices(move |notice| heard.lock().unwrap().push(notice.to_owned()))
            .build()
            .await
            .unwrap(),
    );
    assert!(!session.is_trusted());
    let said = notices.lock().unwrap().join("\n");
    assert!(said.contains("its skills, commands and agents in .claude/"), "{said}");
    let api = routed(vec![script(
        "MAIN-EVIL",
        vec![vec![tool_use(
            "toolu_1",
            "Agent",
            json!({"description": "x", "prompt": "SUB-EVIL", "subagent_type": "evil", "run_in_background": false}),
        )]],
        "Done.",
    )]);
    let main = agent(&session, &api);
    ask(&main, "MAIN-EVIL").await;
    let text = result_text(&requests_of(&api, "MAIN-EVIL")[1], "toolu_1");
    assert!(text.contains("Agent type 'evil' not found. Available agents: general-purpose, Explore, Plan"), "{text}");
    assert!(requests_of(&api, "SUB-EVIL").is_empty());
    session.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn agents_nest_to_a_bounded_depth() {
    let fx = Fixture::new();
    let call = |prompt: &str| {
        vec![tool_use(
            "toolu_n",
            "Agent",
            json!({"description": "Go deeper", "prompt": prompt, "run_in_background": false}),
        )]
    };
    let api = routed(vec![
        script("MAIN-NEST", vec![call("SUB-DEPTH1")], "Done."),
        script("SUB-DEPTH1", vec![call("SUB-DEPTH2")], "depth 1 done"),
        script("SUB-DEPTH2", vec![call("SUB-DEPTH3")], "depth 2 done"),
        script("SUB-DEPTH3", vec![call("SUB-DEPTH4")], "depth 3 done"),
    ]);
    let session = fx.trusted().await;
    let main = agent(&session, &api);
    assert_eq!(ask(&main, "MAIN-NEST").await.result, "Done.");
    for depth in ["SUB-DEPTH1", "SUB-DEPTH2"] {
        assert!(tool_names(&requests_of(&api, depth)[0]).contains(&"Agent".to_owned()), "{depth} may nest");
    }
    let deepest = requests_of(&api, "SUB-DEPTH3");
    assert!(!tool_names(&deepest[0]).contains(&"Agent".to_owned()), "depth 3 of 3 cannot start another agent");
    let refused = result_text(&deepest[1], "toolu_n");
    assert!(refused.contains("No such tool available: Agent"), "{refused}");
    assert!(requests_of(&api, "SUB-DEPTH4").is_empty());
    let depth2 = requests_of(&api, "SUB-DEPTH2");
    assert!(result_text(&depth2[1], "toolu_n").contains("\n  depth 3 done\n"));
    session.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn send_message_reaches_a_running_agent_with_its_next_results() {
    let fx = Fixture::new();
    let api = routed(vec![
        script(
            "MAIN-MSG",
            vec![
                vec![tool_use(
                    "toolu_1",
                    "Agent",
                    json!({"description": "Scout", "prompt": "SUB-MSG: scout", "name": "scout"}),
                )],
                vec![tool_use(
                    "toolu_2",
                    "SendMessage",
                    json!({"to": "scout", "summary": "check b too", "message": "ALSO-CHECK-B"}),
                )],
            ],
            "Done.",
        ),
        script(
            "SUB-MSG",
            vec![vec![tool_use("toolu_s1", "Bash", json!({"command": "sleep 1", "description": "wait"}))]],
            "Checked a and b.",
        ),
    ]);
    let session = fx.trusted().await;
    let main = agent(&session, &api);
    assert_eq!(ask(&main, "MAIN-MSG").await.result, "Done.");
    let sent = result_text(&requests_of(&api, "MAIN-MSG")[2], "toolu_2");
    assert!(sent.contains("\"success\":true") && sent.contains("\"delivery\":\"queued\""), "{sent}");
    let next = main.continue_with_pending(&mut |_| {}).await.expect("the scout's report");
    assert_eq!(next.result, "Done.");
    let sub = requests_of(&api, "SUB-MSG");
    assert_eq!(sub.len(), 2);
    let heard = sub[1].body["messages"].to_string();
    assert!(
        heard.contains(r#"<agent-message from=\"team-lead\" summary=\"check b too\">\nALSO-CHECK-B\n</agent-message>"#),
        "{heard}"
    );
    session.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn structured_output_is_required_validated_and_returned() {
    let fx = Fixture::new();
    let schema = json!({"type": "object", "properties": {"n": {"type": "integer"}}, "required": ["n"]});
    let config = HostConfig { structured_output: Some(schema.clone()), ..with_agents() };
    let session = fx.session("{}", WorkspaceTrust::Trusted, config).await;
    let api = FakeApi::scripted(
        vec![
            vec![json!({"type": "text", "text": "The answer is three."})],
            vec![tool_use("toolu_1", "StructuredOutput", json!({"n": "three"}))],
            vec![tool_use("toolu_2", "StructuredOutput", json!({"n": 3}))],
        ],
        "Done.",
    );
    let mut options = AgentOptions::new("claude-sonnet-4-5");
    options.output_schema = Some(schema);
    let main = Agent::new(Arc::clone(&session), backend(&api), options).unwrap();
    let result = ask(&main, "count").await;
    assert_eq!(result.subtype, ResultSubtype::Success);
    assert_eq!(result.structured_output, Some(json!({"n": 3})));
    assert_eq!(result.to_json()["structured_output"], json!({"n": 3}));
    let requests = api.requests();
    assert!(
        requests[1].last_message().to_string().contains("StructuredOutput tool"),
        "an answer without it is sent back"
    );
    let refused = requests[2].tool_results()[0].clone();
    assert_eq!(refused["is_error"], true);
    assert!(refused.to_string().contains("/n"), "{refused}");
    assert_eq!(requests[3].tool_result_text("toolu_2").unwrap(), "Structured output provided successfully");
    session.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_sub_agent_with_an_output_schema_returns_its_object() {
    let fx = Fixture::new();
    write_agent(
        fx.project.path(),
        "counter",
        "---\nname: counter\ndescription: Counts things\ntools: Read\n\
         outputSchema: {\"type\": \"object\", \"properties\": {\"count\": {\"type\": \"integer\"}}, \"required\": [\"count\"]}\n\
         ---\nCount what you are asked to count.\n",
    );
    let api = routed(vec![
        script(
            "MAIN-SCHEMA",
            vec![vec![tool_use(
                "toolu_1",
                "Agent",
                json!({"description": "Count", "prompt": "SUB-SCHEMA: count", "subagent_type": "counter",
                       "run_in_background": false}),
            )]],
            "Done.",
        ),
        script("SUB-SCHEMA", vec![vec![tool_use("toolu_s1", "StructuredOutput", json!({"count": 7}))]], "Counted."),
    ]);
    let session = fx.trusted().await;
    let main = agent(&session, &api);
    assert_eq!(ask(&main, "MAIN-SCHEMA").await.result, "Done.");
    assert_eq!(tool_names(&requests_of(&api, "SUB-SCHEMA")[0]), ["Read", "StructuredOutput"]);
    let text = result_text(&requests_of(&api, "MAIN-SCHEMA")[1], "toolu_1");
    assert!(text.contains("The report follows:\n  {\n    \"count\": 7\n  }\nagentId: "), "{text}");
    session.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_worktree_agent_works_on_its_own_copy_and_an_unchanged_one_is_removed() {
    let repo = agent_tools_testkit::GitRepo::new();
    let state = tempfile::tempdir().unwrap();
    let env = Environment::empty()
        .with("PATH", std::env::var_os("PATH").unwrap_or_default())
        .with("HOME", state.path())
        .with("XDG_STATE_HOME", state.path().join("state"));
    let session = Arc::new(
        Session::builder(&repo.root)
            .environment(env)
            .settings_json("{}")
            .workspace_trust(WorkspaceTrust::Trusted)
            .permission_mode(Some(agent_tools_core::PermissionMode::BypassPermissions))
            .host_config(with_agents())
            .build()
            .await
            .unwrap(),
    );
    let isolated = |prompt: &str| json!({"description": "Isolated work", "prompt": prompt, "isolation": "worktree", "run_in_background": false});
    let api = routed(vec![
        script(
            "MAIN-WT",
            vec![
                vec![tool_use("toolu_1", "Agent", isolated("SUB-WT-WRITE"))],
                vec![tool_use("toolu_2", "Agent", isolated("SUB-WT-LOOK"))],
            ],
            "Done.",
        ),
        script(
            "SUB-WT-WRITE",
            vec![vec![tool_use(
                "toolu_s1",
                "Write",
                json!({"file_path": "new.txt", "content": "made in the worktree\n"}),
            )]],
            "Wrote new.txt.",
        ),
        script("SUB-WT-LOOK", vec![], "Nothing to change."),
    ]);
    let main = agent(&session, &api);
    assert_eq!(ask(&main, "MAIN-WT").await.result, "Done.");
    let main_requests = requests_of(&api, "MAIN-WT");
    let wrote = result_text(&main_requests[1], "toolu_1");
    let sub = requests_of(&api, "SUB-WT-WRITE");
    assert!(!result_text(&sub[1], "toolu_s1").contains("rror"), "{}", result_text(&sub[1], "toolu_s1"));
    let id = agent_id(&wrote);
    let worktree = repo.root.join(".claude/worktrees").join(format!("agent-{}", &id[1..]));
    assert!(
        wrote.contains(&format!(
            "\nworktreePath: {}\nworktreeBranch: worktree-agent-{}\n",
            worktree.display(),
            &id[1..]
        )),
        "{wrote}"
    );
    assert_eq!(std::fs::read_to_string(worktree.join("new.txt")).unwrap(), "made in the worktree\n");
    assert!(!repo.root.join("new.txt").exists(), "the repository itself is untouched");

    let looked = result_text(&main_requests[2], "toolu_2");
    assert!(!looked.contains("worktreePath"), "{looked}");
    let unchanged = repo.root.join(".claude/worktrees").join(format!("agent-{}", &agent_id(&looked)[1..]));
    assert!(!unchanged.exists(), "an agent that changed nothing leaves no worktree");
    session.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn subagent_stop_hooks_run_with_the_agents_type() {
    let fx = Fixture::new();
    let record = fx.state.path().join("subagent-stop.json");
    let settings = json!({"hooks": {"SubagentStop": [{"matcher": "", "hooks": [
        {"type": "command", "command": format!("cat > {}", record.display())}
    ]}], "Stop": [{"matcher": "", "hooks": [
        {"type": "command", "command": format!("cat > {}", fx.state.path().join("stop.json").display())}
    ]}]}});
    let session = fx.session(&settings.to_string(), WorkspaceTrust::Trusted, with_agents()).await;
    let api = routed(vec![
        script(
            "MAIN-HOOK",
            vec![vec![tool_use(
                "toolu_1",
                "Agent",
                json!({"description": "x", "prompt": "SUB-HOOK", "subagent_type": "Explore", "run_in_background": false}),
            )]],
            "Done.",
        ),
        script("SUB-HOOK", vec![], "explored"),
    ]);
    let main = agent(&session, &api);
    assert_eq!(ask(&main, "MAIN-HOOK").await.result, "Done.");
    let payload: Value = serde_json::from_str(&std::fs::read_to_string(&record).unwrap()).unwrap();
    assert_eq!(payload["hook_event_name"], "SubagentStop");
    assert_eq!(payload["agent_type"], "Explore");
    assert!(payload["agent_id"].as_str().unwrap().starts_with('a'));
    let agent_transcript = payload["agent_transcript_path"].as_str().unwrap();
    assert!(agent_transcript.ends_with(&format!("/subagents/agent-{}.jsonl", payload["agent_id"].as_str().unwrap())));
    let stop: Value =
        serde_json::from_str(&std::fs::read_to_string(fx.state.path().join("stop.json")).unwrap()).unwrap();
    assert_eq!(stop["hook_event_name"], "Stop", "the main conversation's end runs Stop");
    // Explore is a one-shot agent: no agentId line to continue it.
    let text = result_text(&requests_of(&api, "MAIN-HOOK")[1], "toolu_1");
    assert!(!text.contains("agentId:"), "{text}");
    session.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_forked_skill_runs_as_a_sub_agent_and_reports() {
    let fx = Fixture::new();
    let skill = fx.project.path().join(".claude/skills/survey");
    std::fs::create_dir_all(&skill).unwrap();
    std::fs::write(
        skill.join("SKILL.md"),
        "---\ndescription: Survey the project\ncontext: fork\n---\nSUB-SKILL: list the files and say what a.txt holds.\n",
    )
    .unwrap();
    let a = fx.root().join("a.txt").display().to_string();
    let api = routed(vec![
        script("MAIN-SKILL", vec![vec![tool_use("toolu_1", "Skill", json!({"skill": "survey"}))]], "Done."),
        script("SUB-SKILL", vec![vec![tool_use("toolu_s1", "Read", json!({"file_path": a}))]], "a.txt says hello."),
    ]);
    let session = fx.trusted().await;
    let main = agent(&session, &api);
    assert_eq!(ask(&main, "MAIN-SKILL").await.result, "Done.");
    let sub = requests_of(&api, "SUB-SKILL");
    assert_eq!(sub.len(), 2, "the skill ran as its own conversation");
    assert!(first_user_text(&sub[0]).contains("Base directory for this skill: "));
    assert!(!tool_names(&sub[0]).contains(&"AskUserQuestion".to_owned()));
    let text = result_text(&requests_of(&api, "MAIN-SKILL")[1], "toolu_1");
    assert_eq!(text, "Skill \"survey\" completed (forked execution).\n\nResult:\na.txt says hello.");
    session.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_sub_agent_inherits_plan_mode_and_cannot_write() {
    let fx = Fixture::new();
    let session = Arc::new(
        Session::builder(fx.project.path())
            .environment(fx.env())
            .settings_json("{}")
            .workspace_trust(WorkspaceTrust::Trusted)
            .permission_mode(Some(agent_tools_core::PermissionMode::Plan))
            .host_config(with_agents())
            .build()
            .await
            .unwrap(),
    );
    let api = routed(vec![
        script(
            "MAIN-PLAN",
            vec![vec![tool_use(
                "toolu_1",
                "Agent",
                json!({"description": "Try", "prompt": "SUB-PLAN: write", "run_in_background": false}),
            )]],
            "Done.",
        ),
        script(
            "SUB-PLAN",
            vec![vec![tool_use("toolu_s1", "Write", json!({"file_path": "planned.txt", "content": "no\n"}))]],
            "I was not allowed to write.",
        ),
    ]);
    let main = agent(&session, &api);
    assert_eq!(ask(&main, "MAIN-PLAN").await.result, "Done.");
    let sub = requests_of(&api, "SUB-PLAN");
    assert!(tool_names(&sub[0]).contains(&"ExitPlanMode".to_owned()), "in plan mode it may leave plan mode");
    let refused = sub[1].tool_results()[0].clone();
    assert_eq!(refused["is_error"], true, "{refused}");
    assert!(!fx.project.path().join("planned.txt").exists());
    session.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_report_that_arrives_while_idle_comes_with_the_next_prompt() {
    let fx = Fixture::new();
    let api = routed(vec![
        script(
            "MAIN-IDLE",
            vec![vec![tool_use("toolu_1", "Agent", json!({"description": "Quick look", "prompt": "SUB-IDLE: look"}))]],
            "Noted.",
        ),
        script("SUB-IDLE", vec![], "Looked: nothing odd."),
    ]);
    let session = fx.trusted().await;
    let main = agent(&session, &api);
    assert_eq!(ask(&main, "MAIN-IDLE").await.result, "Noted.");
    let registry = TaskRegistry::existing(&session.context().await).unwrap();
    let id = registry.list()[0].id.clone();
    let cancel = agent_tools_core::CancellationToken::new();
    assert!(matches!(
        registry.wait(&id, Duration::from_secs(20), &cancel).await,
        agent_tools_background::WaitOutcome::Finished(_)
    ));
    // The user speaks next (a chat): the report is in that message, before the prompt.
    assert_eq!(ask(&main, "and now?").await.result, "Noted.");
    let last = requests_of(&api, "MAIN-IDLE").pop().unwrap();
    let content = last.last_message()["content"].as_array().unwrap().clone();
    assert!(content[0]["text"].as_str().unwrap().contains("<result>Looked: nothing odd.</result>"), "{content:?}");
    assert_eq!(content.last().unwrap()["text"], "and now?");
    session.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_coordinator_only_dispatches_and_its_workers_run_in_the_background() {
    let fx = Fixture::new();
    let a = fx.root().join("a.txt").display().to_string();
    let config = HostConfig { coordinator: true, ..with_agents() };
    let session = fx.session("{}", WorkspaceTrust::Trusted, config).await;
    let api = routed(vec![
        script(
            "MAIN-COORD",
            vec![vec![tool_use(
                "toolu_1",
                "Agent",
                json!({"description": "Read", "prompt": "SUB-WORKER: read a.txt", "run_in_background": false}),
            )]],
            "Dispatched.",
        ),
        script("SUB-WORKER", vec![vec![tool_use("toolu_s1", "Read", json!({"file_path": a}))]], "a.txt says hello."),
    ]);
    let main = agent(&session, &api);
    assert_eq!(ask(&main, "MAIN-COORD").await.result, "Dispatched.");
    let coordinator = requests_of(&api, "MAIN-COORD");
    assert_eq!(tool_names(&coordinator[0]), ["Agent", "SendMessage", "TaskStop"]);
    assert!(result_text(&coordinator[1], "toolu_1").starts_with("Async agent launched successfully."));
    assert!(main.continue_with_pending(&mut |_| {}).await.is_some(), "the worker's report comes back");
    let worker = requests_of(&api, "SUB-WORKER");
    let tools = tool_names(&worker[0]);
    assert!(tools.contains(&"Read".to_owned()) && tools.contains(&"Bash".to_owned()), "{tools:?}");
    assert!(!tools.contains(&"SendMessage".to_owned()), "a worker has the background set: {tools:?}");
    assert_eq!(result_text(&worker[1], "toolu_s1"), "1\thello from a\n2\t");
    session.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_budget_counts_what_sub_agents_spend() {
    let fx = Fixture::new();
    let api = routed(vec![
        script(
            "MAIN-BUDGET",
            vec![
                vec![tool_use(
                    "toolu_1",
                    "Agent",
                    json!({"description": "Spend", "prompt": "SUB-BUDGET: spend", "run_in_background": false}),
                )],
                vec![tool_use("toolu_2", "Read", json!({"file_path": fx.root().join("a.txt")}))],
            ],
            "Done.",
        ),
        script(
            "SUB-BUDGET",
            vec![vec![tool_use("toolu_s1", "Read", json!({"file_path": fx.root().join("a.txt")}))]],
            "Spent.",
        ),
    ]);
    let session = fx.trusted().await;
    // One request of the fake costs the same whoever sends it: a budget of two and a half
    // requests is gone after the main request and the sub-agent's two.
    let one = agent_tools_api::cost_usd(
        "claude-sonnet-4-5",
        &agent_tools_api::Usage { input_tokens: 100, output_tokens: 20, ..agent_tools_api::Usage::default() },
    );
    let mut options = AgentOptions::new("claude-sonnet-4-5");
    options.max_budget_usd = Some(one * 2.5);
    let main = Agent::new(Arc::clone(&session), backend(&api), options).unwrap();
    let result = ask(&main, "MAIN-BUDGET").await;
    assert_eq!(result.subtype, ResultSubtype::ErrorMaxBudgetUsd, "{}", result.result);
    assert_eq!(result.terminal_reason, "budget_exhausted");
    assert_eq!(result.errors, [format!("Reached maximum budget (${})", one * 2.5)]);
    assert_eq!(requests_of(&api, "MAIN-BUDGET").len(), 1, "the second main request is never sent");
    assert_eq!(requests_of(&api, "SUB-BUDGET").len(), 2);
    session.shutdown().await;
}

/// A session on `root` in `mode`, trusted, with sub-agents.
async fn session_in(root: &Path, env: Environment, mode: agent_tools_core::PermissionMode) -> Arc<Session> {
    Arc::new(
        Session::builder(root)
            .environment(env)
            .settings_json("{}")
            .workspace_trust(WorkspaceTrust::Trusted)
            .permission_mode(Some(mode))
            .host_config(with_agents())
            .build()
            .await
            .unwrap(),
    )
}

fn foreground(agent_type: &str, prompt: &str) -> Value {
    json!({"description": "Try it", "prompt": prompt, "subagent_type": agent_type, "run_in_background": false})
}

/// Issue 30, item 5: an agent file's `permissionMode` never widens the caller's mode. A caller in
/// plan mode — also plan mode entered from a bypass session, where bypass stays available —
/// gets its `acceptEdits` and `bypassPermissions` agents in plan mode: their writes are refused.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_plan_mode_caller_keeps_its_agents_in_plan_mode_whatever_their_files_say() {
    use agent_tools_core::PermissionMode::{BypassPermissions, Plan};
    for started_in in [Plan, BypassPermissions] {
        let fx = Fixture::new();
        for (name, mode) in [("editor", "acceptEdits"), ("bypasser", "bypassPermissions")] {
            write_agent(
                fx.project.path(),
                name,
                &format!(
                    "---\nname: {name}\ndescription: Writes files\npermissionMode: {mode}\n---\nYou write files.\n"
                ),
            );
        }
        let write = |file: &str| vec![tool_use("toolu_s1", "Write", json!({"file_path": file, "content": "x\n"}))];
        let api = routed(vec![
            script(
                "MAIN-WIDEN",
                vec![
                    vec![tool_use("toolu_1", "Agent", foreground("editor", "SUB-EDITOR: write"))],
                    vec![tool_use("toolu_2", "Agent", foreground("bypasser", "SUB-BYPASSER: write"))],
                ],
                "Done.",
            ),
            script("SUB-EDITOR", vec![write("edited.txt")], "Refused."),
            script("SUB-BYPASSER", vec![write("bypassed.txt")], "Refused."),
        ]);
        let session = session_in(fx.project.path(), fx.env(), started_in).await;
        if started_in == BypassPermissions {
            session.set_permission_mode(Plan).await.unwrap();
            assert!(session.permission_context().await.is_bypass_permissions_mode_available);
        }
        let main = agent(&session, &api);
        assert_eq!(ask(&main, "MAIN-WIDEN").await.result, "Done.");
        for (marker, file) in [("SUB-EDITOR", "edited.txt"), ("SUB-BYPASSER", "bypassed.txt")] {
            let sub = requests_of(&api, marker);
            assert_eq!(sub.len(), 2, "{started_in}: {marker}");
            let refused = sub[1].tool_results()[0].clone();
            assert_eq!(refused["is_error"], true, "{started_in}: {refused}");
            let text = result_text(&sub[1], "toolu_s1");
            let path = fx.root().join(file);
            assert_eq!(text, format!("Cannot write to {} while in plan mode.", path.display()), "{started_in}");
            assert!(!path.exists(), "{started_in}: {file}");
        }
        session.shutdown().await;
    }
}

/// The legitimate direction: an agent file may narrow its caller's mode (`permissionMode: plan`
/// under a caller in `default`), and the agent then runs in plan mode.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_agent_file_may_narrow_a_default_callers_mode_to_plan() {
    let fx = Fixture::new();
    write_agent(
        fx.project.path(),
        "planner",
        "---\nname: planner\ndescription: Plans only\npermissionMode: plan\n---\nYou plan.\n",
    );
    let write = vec![tool_use("toolu_s1", "Write", json!({"file_path": "plan-only.txt", "content": "x\n"}))];
    let api = routed(vec![
        script(
            "MAIN-NARROW",
            vec![
                vec![tool_use("toolu_1", "Agent", foreground("planner", "SUB-PLANNER: write"))],
                vec![tool_use("toolu_2", "Agent", foreground("general-purpose", "SUB-GENERAL: write"))],
            ],
            "Done.",
        ),
        script("SUB-PLANNER", vec![write.clone()], "Refused."),
        script("SUB-GENERAL", vec![write], "Refused."),
    ]);
    let session = session_in(fx.project.path(), fx.env(), agent_tools_core::PermissionMode::Default).await;
    let main = agent(&session, &api);
    assert_eq!(ask(&main, "MAIN-NARROW").await.result, "Done.");
    let path = fx.root().join("plan-only.txt");
    let planner = result_text(&requests_of(&api, "SUB-PLANNER")[1], "toolu_s1");
    assert_eq!(planner, format!("Cannot write to {} while in plan mode.", path.display()));
    // The same call from an agent in the caller's own mode is refused as in default mode: it
    // needs approval and no one can give it here.
    let general = result_text(&requests_of(&api, "SUB-GENERAL")[1], "toolu_s1");
    assert!(general.starts_with("Permission to use Write has been denied: this call needs approval"), "{general}");
    assert!(!path.exists());
    session.shutdown().await;
}

const GIT_DIFF_ONLY: &str = "This agent may use Bash only as its definition allows: Bash(git diff:*). This call is \
                             not covered by that, so it did not run; use Bash only in that way, or do without it.";

/// Issue 30, item 5: `tools: Bash(git diff:*)` limits the agent's Bash to that rule, in a
/// bypassPermissions session too, and an agent it starts inherits the limit.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_bash_rule_in_an_agents_tools_limits_its_bash_even_in_bypass_mode_and_for_its_agents() {
    let repo = agent_tools_testkit::GitRepo::new();
    std::fs::write(repo.root.join("README.md"), "# test\nCHANGED-LINE\n").unwrap();
    write_agent(
        &repo.root,
        "differ",
        "---\nname: differ\ndescription: Shows the diff\ntools: Bash(git diff:*), Agent\n---\nYou show diffs.\n",
    );
    let state = tempfile::tempdir().unwrap();
    let env = Environment::empty()
        .with("PATH", std::env::var_os("PATH").unwrap_or_default())
        .with("HOME", state.path())
        .with("XDG_STATE_HOME", state.path().join("state"));
    let bash = |id: &str, command: &str| vec![tool_use(id, "Bash", json!({"command": command}))];
    let api = routed(vec![
        script("MAIN-RESTRICT", vec![vec![tool_use("toolu_1", "Agent", foreground("differ", "SUB-DIFFER"))]], "Done."),
        script(
            "SUB-DIFFER",
            vec![
                bash("toolu_s1", "touch pwned"),
                bash("toolu_s2", "git diff && touch pwned"),
                bash("toolu_s3", "git diff"),
                vec![tool_use("toolu_s4", "Agent", foreground("general-purpose", "SUB-NESTED"))],
            ],
            "Diff shown.",
        ),
        script("SUB-NESTED", vec![bash("toolu_n1", "touch pwned-nested")], "Refused."),
    ]);
    let session = session_in(&repo.root, env, agent_tools_core::PermissionMode::BypassPermissions).await;
    let main = agent(&session, &api);
    assert_eq!(ask(&main, "MAIN-RESTRICT").await.result, "Done.");
    let sub = requests_of(&api, "SUB-DIFFER");
    assert_eq!(tool_names(&sub[0]), ["Agent", "Bash"], "the tools are kept whole; the rule limits them");
    assert_eq!(result_text(&sub[1], "toolu_s1"), GIT_DIFF_ONLY);
    assert_eq!(result_text(&sub[2], "toolu_s2"), GIT_DIFF_ONLY);
    let diff = result_text(&sub[3], "toolu_s3");
    assert!(diff.contains("+CHANGED-LINE"), "git diff runs: {diff}");
    // The nested general-purpose agent keeps its caller's Bash, and its caller's limit.
    let nested = requests_of(&api, "SUB-NESTED");
    assert!(tool_names(&nested[0]).contains(&"Bash".to_owned()));
    assert_eq!(result_text(&nested[1], "toolu_n1"), GIT_DIFF_ONLY);
    assert!(!repo.root.join("pwned").exists());
    assert!(!repo.root.join("pwned-nested").exists());
    // The main conversation itself is not limited.
    let free = session
        .call(
            &ToolUseBlock { id: "toolu_main".into(), name: "Bash".into(), input: json!({"command": "touch free"}) },
            CallOptions::default(),
        )
        .await;
    assert!(!free.block.is_error, "{}", free.block.content.text());
    assert!(repo.root.join("free").exists());
    session.shutdown().await;
}

/// SendMessage continuing a stopped agent: the agent goes on under its new caller's permissions,
/// so an agent that ran in bypassPermissions, continued after its caller entered plan mode, runs
/// in plan mode.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_stopped_agent_continued_by_a_caller_in_plan_mode_runs_in_plan_mode() {
    let fx = Fixture::new();
    let api = routed(vec![
        script(
            "MAIN-RESUME",
            vec![
                vec![tool_use(
                    "toolu_1",
                    "Agent",
                    json!({"description": "Work", "prompt": "SUB-WORKER", "name": "worker", "run_in_background": false}),
                )],
                vec![json!({"type": "text", "text": "Worker finished."})],
                vec![tool_use(
                    "toolu_2",
                    "SendMessage",
                    json!({"to": "worker", "summary": "go on", "message": "Now write resumed.txt."}),
                )],
            ],
            "Done.",
        ),
        script(
            "SUB-WORKER",
            vec![
                vec![json!({"type": "text", "text": "first pass done"})],
                vec![tool_use("toolu_w1", "Write", json!({"file_path": "resumed.txt", "content": "x\n"}))],
            ],
            "Second pass done.",
        ),
    ]);
    let session = fx.trusted().await;
    let main = agent(&session, &api);
    assert_eq!(ask(&main, "MAIN-RESUME").await.result, "Worker finished.");
    session.set_permission_mode(agent_tools_core::PermissionMode::Plan).await.unwrap();
    assert_eq!(ask(&main, "go on with the worker").await.result, "Done.");
    let sent = result_text(&requests_of(&api, "MAIN-RESUME")[3], "toolu_2");
    assert!(sent.contains("\"delivery\":\"resumed\""), "{sent}");
    // The worker goes on in the background: its second run ends with the answer to its call.
    let second_run = || requests_of(&api, "SUB-WORKER").len() >= 3;
    assert!(eventually(Duration::from_secs(20), second_run).await, "{sent}");
    let worker = requests_of(&api, "SUB-WORKER");
    let path = fx.root().join("resumed.txt");
    assert_eq!(result_text(&worker[2], "toolu_w1"), format!("Cannot write to {} while in plan mode.", path.display()));
    assert!(!path.exists());
    session.shutdown().await;
}
