//! `agent-tools serve` as a child process, driven by rmcp's MCP client: initialize, list, calls
//! that succeed and calls that fail, and a session that remembers what was read.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::fs;
use std::path::Path;

use agent_tools_testkit::{carrying, eventually};
use rmcp::ServiceExt;
use rmcp::model::{CallToolRequestParams, CallToolResult, ContentBlock};
use rmcp::service::RunningService;
use rmcp::transport::TokioChildProcess;
use serde_json::{Map, Value, json};

type Client = RunningService<rmcp::RoleClient, ()>;

async fn connect(cwd: &Path) -> Client {
    connect_with(cwd, &[]).await
}

/// Starts the server in `cwd` with extra arguments, in a clean environment (no user settings).
async fn connect_with(cwd: &Path, extra: &[&str]) -> Client {
    let mut command = tokio::process::Command::new(env!("CARGO_BIN_EXE_agent-tools-under-test"));
    command.env("HOME", cwd.join(".home")).env("XDG_STATE_HOME", cwd.join(".state"));
    command.arg("--cwd").arg(cwd).args(extra).arg("serve");
    let transport = TokioChildProcess::new(command).unwrap();
    ().serve(transport).await.unwrap()
}

fn args(value: Value) -> Map<String, Value> {
    match value {
        Value::Object(map) => map,
        other => panic!("arguments must be an object, got {other}"),
    }
}

async fn call(client: &rmcp::service::Peer<rmcp::RoleClient>, tool: &str, input: Value) -> CallToolResult {
    client.call_tool(CallToolRequestParams::new(tool.to_owned()).with_arguments(args(input))).await.unwrap()
}

fn text(result: &CallToolResult) -> String {
    result
        .content
        .iter()
        .filter_map(|block| match block {
            ContentBlock::Text(text) => Some(text.text.clone()),
            _ => None,
        })
        .collect::<Vec<_>>()
        .join("\n")
}

fn fixture() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    fs::write(dir.path().join("notes.txt"), "alpha\nbeta needle\n").unwrap();
    fs::create_dir(dir.path().join("src")).unwrap();
    fs::write(dir.path().join("src/lib.rs"), "pub fn needle() {}\n").unwrap();
    dir
}

#[tokio::test]
async fn initialize_and_list_give_the_pool_with_schemas_and_annotations() {
    let dir = fixture();
    let client = connect(dir.path()).await;
    let info = client.peer_info().expect("the server answered initialize");
    assert_eq!(info.server_info.as_ref().map(|s| s.name.as_str()), Some("agent-tools"));
    assert!(info.capabilities.tools.is_some());

    let tools = client.list_all_tools().await.unwrap();
    let names: Vec<&str> = tools.iter().map(|tool| tool.name.as_ref()).collect();
    let mut sorted = names.clone();
    sorted.sort_unstable();
    assert_eq!(names, sorted, "built-ins come sorted by name");
    for name in ["Glob", "Grep", "Read"] {
        let tool = tools.iter().find(|tool| tool.name == name).unwrap_or_else(|| panic!("{name} listed"));
        assert!(tool.description.as_deref().is_some_and(|d| d.len() > 100), "{name} has its prompt");
        assert_eq!(tool.input_schema.get("type"), Some(&json!("object")));
        assert_eq!(tool.input_schema.get("additionalProperties"), Some(&json!(false)));
        let annotations = tool.annotations.as_ref().unwrap();
        assert_eq!(annotations.read_only_hint, Some(true), "{name}");
        assert_eq!(annotations.open_world_hint, Some(false), "{name}");
    }
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn calls_return_the_tool_result_text_and_structured_content() {
    let dir = fixture();
    let client = connect(dir.path()).await;

    let read = call(&client, "Read", json!({"file_path": "notes.txt"})).await;
    assert_eq!(read.is_error, Some(false));
    assert_eq!(text(&read), "1\talpha\n2\tbeta needle\n3\t");
    let structured = read.structured_content.unwrap();
    assert_eq!(structured["type"], "text");
    assert_eq!(structured["file"]["totalLines"], 3);

    let grep = call(&client, "Grep", json!({"pattern": "needle", "output_mode": "content"})).await;
    assert_eq!(text(&grep), "notes.txt:2:beta needle\nsrc/lib.rs:1:pub fn needle() {}");
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn errors_are_results_the_model_can_read_not_protocol_errors() {
    let dir = fixture();
    let client = connect(dir.path()).await;

    let unknown = call(&client, "NoSuchTool", json!({})).await;
    assert_eq!(unknown.is_error, Some(true));
    assert_eq!(text(&unknown), "<tool_use_error>Error: No such tool available: NoSuchTool</tool_use_error>");

    let bad_input = call(&client, "Read", json!({"file_path": "notes.txt", "bogus": 1})).await;
    assert_eq!(bad_input.is_error, Some(true));
    assert_eq!(
        text(&bad_input),
        "<tool_use_error>InputValidationError: Read failed due to the following issue:\nAn unexpected parameter `bogus` was provided</tool_use_error>"
    );

    let missing = call(&client, "Read", json!({"file_path": "missing.txt"})).await;
    assert_eq!(missing.is_error, Some(true));
    let cwd = dir.path().canonicalize().unwrap();
    assert_eq!(
        text(&missing),
        format!("File does not exist. Note: your current working directory is {}.", cwd.display())
    );
    assert!(missing.structured_content.is_none());

    // The server is still there after errors.
    let glob = call(&client, "Glob", json!({"pattern": "**/*.rs"})).await;
    assert_eq!(text(&glob), "src/lib.rs");
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn one_session_per_server_keeps_the_cwd_and_what_was_read() {
    let dir = fixture();
    let cwd = dir.path().canonicalize().unwrap();
    let client = connect(dir.path()).await;

    // Bash's `cd` carries over to the next call, and relative paths follow it.
    let cd = call(&client, "Bash", json!({"command": "mkdir -p sub && cd sub && pwd"})).await;
    assert_eq!(text(&cd), format!("{}/sub", cwd.display()));
    let pwd = call(&client, "Bash", json!({"command": "pwd"})).await;
    assert_eq!(text(&pwd), format!("{}/sub", cwd.display()));
    let back = call(&client, "Bash", json!({"command": format!("cd {} && echo ok", cwd.display())})).await;
    assert_eq!(text(&back), "ok");

    // Edit refuses a file that was not read, then works once Read has run in the same session.
    let refused =
        call(&client, "Edit", json!({"file_path": "notes.txt", "old_string": "alpha", "new_string": "ALPHA"})).await;
    assert_eq!(refused.is_error, Some(true));
    assert_eq!(
        text(&refused),
        "<tool_use_error>File has not been read yet. Read it first before writing to it.</tool_use_error>"
    );
    call(&client, "Read", json!({"file_path": "notes.txt"})).await;
    let edited =
        call(&client, "Edit", json!({"file_path": "notes.txt", "old_string": "alpha", "new_string": "ALPHA"})).await;
    assert_eq!(edited.is_error, Some(false), "{}", text(&edited));
    assert_eq!(fs::read_to_string(dir.path().join("notes.txt")).unwrap(), "ALPHA\nbeta needle\n");

    // A failed command is an error result with its exit code.
    let failed = call(&client, "Bash", json!({"command": "echo partial; exit 3"})).await;
    assert_eq!(failed.is_error, Some(true));
    assert_eq!(text(&failed), "Exit code 3\npartial");
    client.cancel().await.unwrap();
}

/// An MCP client whose user answers permission questions from a script, and which records the
/// questions it was asked.
#[derive(Clone, Default)]
struct ScriptedUser {
    answers: std::sync::Arc<std::sync::Mutex<std::collections::VecDeque<Value>>>,
    questions: std::sync::Arc<std::sync::Mutex<Vec<String>>>,
}

impl rmcp::ClientHandler for ScriptedUser {
    async fn create_elicitation(
        &self,
        request: rmcp::model::ElicitRequestParams,
        _context: rmcp::service::RequestContext<rmcp::RoleClient>,
    ) -> Result<rmcp::model::ElicitResult, rmcp::ErrorData> {
        use rmcp::model::{ElicitRequestParams, ElicitResult, ElicitationAction};
        if let ElicitRequestParams::FormElicitationParams { message, .. } = request {
            self.questions.lock().unwrap().push(message);
        }
        Ok(match self.answers.lock().unwrap().pop_front() {
            Some(content) => ElicitResult::new(ElicitationAction::Accept).with_content(content),
            None => ElicitResult::new(ElicitationAction::Decline),
        })
    }

    fn get_info(&self) -> rmcp::model::ClientConfig {
        let capabilities = rmcp::model::ClientCapabilities::builder().enable_elicitation().build();
        rmcp::model::ClientConfig::new(capabilities, rmcp::model::Implementation::new("scripted-user", "1"))
    }
}

#[tokio::test]
async fn in_default_mode_the_server_asks_the_clients_user_through_elicitation() {
    let dir = fixture();
    let user = ScriptedUser::default();
    user.answers.lock().unwrap().extend([
        json!({"decision": "allow_once"}),
        json!({"decision": "deny", "reason": "write it under docs/ instead"}),
        json!({"decision": "allow_always"}),
    ]);
    let mut command = tokio::process::Command::new(env!("CARGO_BIN_EXE_agent-tools-under-test"));
    command.env("HOME", dir.path().join(".home")).env("XDG_STATE_HOME", dir.path().join(".state"));
    command.arg("--cwd").arg(dir.path()).args(["--permission-mode", "default"]).arg("serve");
    let client = user.clone().serve(TokioChildProcess::new(command).unwrap()).await.unwrap();

    // Reads inside the working directory need no question.
    let read = call(&client, "Read", json!({"file_path": "notes.txt"})).await;
    assert_eq!(read.is_error, Some(false));
    assert!(user.questions.lock().unwrap().is_empty());

    // allow_once: the write happens, and the question named the tool and the file.
    let first = call(&client, "Write", json!({"file_path": "a.txt", "content": "one\n"})).await;
    assert_eq!(first.is_error, Some(false), "{}", text(&first));
    assert_eq!(fs::read_to_string(dir.path().join("a.txt")).unwrap(), "one\n");
    let question = user.questions.lock().unwrap()[0].clone();
    assert!(question.starts_with("Write wants to run:"), "{question}");
    assert!(question.contains("a.txt"), "{question}");

    // deny with a reason: nothing is written and the model reads the user's words.
    let second = call(&client, "Write", json!({"file_path": "b.txt", "content": "two\n"})).await;
    assert_eq!(second.is_error, Some(true));
    assert!(text(&second).contains("The user said: write it under docs/ instead"), "{}", text(&second));
    assert!(!dir.path().join("b.txt").exists());

    // allow_always: this write and every later Write to the project run without asking again.
    let third = call(&client, "Write", json!({"file_path": "c.txt", "content": "three\n"})).await;
    assert_eq!(third.is_error, Some(false), "{}", text(&third));
    let fourth = call(&client, "Write", json!({"file_path": "d.txt", "content": "four\n"})).await;
    assert_eq!(fourth.is_error, Some(false), "{}", text(&fourth));
    assert_eq!(fs::read_to_string(dir.path().join("d.txt")).unwrap(), "four\n");
    assert_eq!(user.questions.lock().unwrap().len(), 3, "allow_always stopped the questions");
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn a_client_without_elicitation_gets_a_refusal_the_model_can_act_on() {
    let dir = fixture();
    let client = connect_with(dir.path(), &["--permission-mode", "default"]).await;
    let refused = call(&client, "Write", json!({"file_path": "a.txt", "content": "x"})).await;
    assert_eq!(refused.is_error, Some(true));
    assert!(
        text(&refused).starts_with(
            "Permission to use Write has been denied: this call needs approval and no one could be asked \
             (this MCP client cannot show permission questions;"
        ),
        "{}",
        text(&refused)
    );
    assert!(text(&refused).contains("--permission-mode"), "{}", text(&refused));
    assert!(!text(&refused).contains("The user"), "no user was asked: {}", text(&refused));
    assert!(!dir.path().join("a.txt").exists());
    client.cancel().await.unwrap();
}

fn questions() -> Value {
    json!({"questions": [
        {"question": "Which database?", "header": "Database", "options": [
            {"label": "Postgres", "description": "The server we run"},
            {"label": "SQLite", "description": "A file, no server"}]},
        {"question": "Which features?", "header": "Features", "multiSelect": true, "options": [
            {"label": "Auth", "description": "Log-in"}, {"label": "Search", "description": "Full text"},
            {"label": "Export", "description": "CSV files"}]}
    ]})
}

#[tokio::test]
async fn ask_user_question_is_one_elicitation_form_and_its_answers_reach_the_model() {
    let dir = fixture();
    let user = ScriptedUser::default();
    user.answers.lock().unwrap().extend([json!({"q1": "SQLite", "q2": "export, auth", "q2_other": "an audit log"})]);
    let mut command = tokio::process::Command::new(env!("CARGO_BIN_EXE_agent-tools-under-test"));
    command.env("HOME", dir.path().join(".home")).env("XDG_STATE_HOME", dir.path().join(".state"));
    // Bypass mode: the questions still go to the user.
    command.arg("--cwd").arg(dir.path()).args(["--permission-mode", "bypassPermissions"]).arg("serve");
    let client = user.clone().serve(TokioChildProcess::new(command).unwrap()).await.unwrap();

    let answered = call(&client, "AskUserQuestion", questions()).await;
    assert_eq!(answered.is_error, Some(false), "{}", text(&answered));
    assert_eq!(
        text(&answered),
        "User has answered your questions: \"Which database?\"=\"SQLite\", \
         \"Which features?\"=\"Export, Auth, an audit log\". You can now continue with the user's answers in mind."
    );
    let data = answered.structured_content.clone().unwrap();
    assert_eq!(data["answers"]["Which database?"], "SQLite");
    let message = user.questions.lock().unwrap()[0].clone();
    assert!(message.contains("1. [Database] Which database?"), "{message}");
    assert!(message.contains("   - SQLite: A file, no server"), "{message}");
    assert!(message.contains("2. [Features] Which features? (choose one or more)"), "{message}");

    // The user declines the next form: the standard rejection.
    let declined = call(&client, "AskUserQuestion", questions()).await;
    assert_eq!(declined.is_error, Some(true));
    assert!(text(&declined).starts_with("The user declined this tool use"), "{}", text(&declined));
    client.cancel().await.unwrap();

    // A client without elicitation: nobody could be asked, and no mode or rule can answer.
    let client = connect_with(dir.path(), &["--permission-mode", "bypassPermissions"]).await;
    let refused = call(&client, "AskUserQuestion", questions()).await;
    assert_eq!(refused.is_error, Some(true));
    assert!(text(&refused).contains("this MCP client cannot show questions to its user"), "{}", text(&refused));
    assert!(!text(&refused).contains("The user"), "{}", text(&refused));
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn background_tasks_notify_with_the_next_result_and_end_with_the_server() {
    let dir = fixture();
    let token = format!("{}9", std::process::id());
    let client = connect(dir.path()).await;
    // A task that finishes once `go` exists, and one that would run for an hour.
    let started = call(
        &client,
        "Bash",
        json!({"command": "while [ ! -e go ]; do sleep 0.01; done; echo finished", "description": "wait for go", "run_in_background": true}),
    )
    .await;
    assert_eq!(started.is_error, Some(false));
    let id = started.structured_content.unwrap()["backgroundTaskId"].as_str().unwrap().to_owned();
    let forever =
        call(&client, "Bash", json!({"command": format!("sleep 3301.{token}"), "run_in_background": true})).await;
    assert_eq!(forever.is_error, Some(false));
    assert!(eventually(std::time::Duration::from_secs(20), || carrying(&token).len() >= 2).await);

    fs::write(dir.path().join("go"), "").unwrap();
    let waited = call(&client, "TaskOutput", json!({"task_id": id, "block": true, "timeout": 30000})).await;
    assert!(text(&waited).contains("<status>completed</status>"), "{}", text(&waited));
    assert!(text(&waited).contains("<output>\nfinished\n</output>"), "{}", text(&waited));
    // TaskOutput told the model, so no notification follows for that task.
    let next = call(&client, "Bash", json!({"command": "echo next"})).await;
    assert_eq!(text(&next), "next");

    // A task that ends by itself is reported with a later call's result, once.
    let quick = call(
        &client,
        "Bash",
        json!({"command": "while [ ! -e go2 ]; do sleep 0.01; done", "description": "quick one", "run_in_background": true}),
    )
    .await;
    let quick_id = quick.structured_content.unwrap()["backgroundTaskId"].as_str().unwrap().to_owned();
    let first = call(&client, "Bash", json!({"command": "echo before"})).await;
    assert_eq!(text(&first), "before", "the task cannot have finished yet");
    fs::write(dir.path().join("go2"), "").unwrap();
    let mut seen = Vec::new();
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(20);
    while std::time::Instant::now() < deadline {
        let result = call(&client, "Bash", json!({"command": "echo polled"})).await;
        if result.content.len() > 1 {
            seen.push(text(&result));
            break;
        }
        // A poll with a deadline; each look is an MCP call, which testkit's eventually cannot make.
        // tidy:allow-sleep the interval of that poll.
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    }
    let seen = seen.pop().expect("a notification within 20 s");
    assert!(
        seen.starts_with(
            "polled
<task-notification>
"
        ),
        "{seen}"
    );
    assert!(seen.contains(&format!("<task-id>{quick_id}</task-id>")), "{seen}");
    assert!(seen.contains("<summary>Background command \"quick one\" completed (exit code 0)</summary>"), "{seen}");
    let after = call(&client, "Bash", json!({"command": "echo after"})).await;
    assert_eq!(after.content.len(), 1, "delivered once");

    client.cancel().await.unwrap();
    assert!(
        eventually(std::time::Duration::from_secs(20), || carrying(&token).is_empty()).await,
        "the server left {:?} running",
        carrying(&token)
    );
}

#[tokio::test]
async fn enter_and_exit_worktree_move_the_served_session() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().canonicalize().unwrap();
    let git = |args: &[&str]| {
        let output = std::process::Command::new("git")
            .arg("-C")
            .arg(&root)
            .args(args)
            .env("HOME", root.join(".home"))
            .env("GIT_CONFIG_NOSYSTEM", "1")
            .output()
            .unwrap();
        assert!(output.status.success(), "git {args:?}: {}", String::from_utf8_lossy(&output.stderr));
        String::from_utf8(output.stdout).unwrap()
    };
    git(&["init", "-q", "-b", "main"]);
    git(&["config", "user.name", "Test"]);
    git(&["config", "user.email", "test@example.com"]);
    fs::write(root.join("README.md"), "# repo\n").unwrap();
    git(&["add", "README.md"]);
    git(&["commit", "-q", "-m", "first"]);

    let mut command = tokio::process::Command::new(env!("CARGO_BIN_EXE_agent-tools-under-test"));
    command.env("HOME", root.join(".home")).env("XDG_STATE_HOME", root.join(".state")).env("GIT_CONFIG_NOSYSTEM", "1");
    command.arg("--cwd").arg(&root).arg("--dangerously-skip-permissions").arg("serve");
    let client: Client = ().serve(TokioChildProcess::new(command).unwrap()).await.unwrap();
    let worktree = root.join(".claude/worktrees/served");

    let entered = call(&client, "EnterWorktree", json!({"name": "served"})).await;
    assert_eq!(entered.is_error, Some(false), "{}", text(&entered));
    assert_eq!(
        entered.structured_content.as_ref().unwrap()["worktreePath"],
        json!(worktree.to_str().unwrap()),
        "the output object is the structured content"
    );
    // The next calls of the same session start in the worktree.
    let pwd = call(&client, "Bash", json!({"command": "pwd"})).await;
    assert_eq!(text(&pwd), worktree.display().to_string());
    call(&client, "Bash", json!({"command": "echo draft > notes.txt"})).await;
    assert!(worktree.join("notes.txt").is_file());

    let refused = call(&client, "ExitWorktree", json!({"action": "remove"})).await;
    assert_eq!(refused.is_error, Some(true));
    assert!(text(&refused).contains("has 1 uncommitted file;"), "{}", text(&refused));
    let pwd = call(&client, "Bash", json!({"command": "pwd"})).await;
    assert_eq!(text(&pwd), worktree.display().to_string(), "a refused exit leaves the session in place");

    let removed = call(&client, "ExitWorktree", json!({"action": "remove", "discard_changes": true})).await;
    assert_eq!(removed.is_error, Some(false), "{}", text(&removed));
    assert!(text(&removed).contains("Discarded 1 uncommitted file."), "{}", text(&removed));
    let pwd = call(&client, "Bash", json!({"command": "pwd"})).await;
    assert_eq!(text(&pwd), root.display().to_string());
    assert!(!worktree.exists());
    assert!(git(&["branch", "--list", "worktree-served"]).trim().is_empty());
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn plan_mode_holds_across_served_calls_and_exit_shows_the_plan_to_the_clients_user() {
    let dir = fixture();
    let root = dir.path().canonicalize().unwrap();
    let user = ScriptedUser::default();
    user.answers
        .lock()
        .unwrap()
        .extend([json!({"decision": "deny", "reason": "add a test step"}), json!({"decision": "allow_once"})]);
    let mut command = tokio::process::Command::new(env!("CARGO_BIN_EXE_agent-tools-under-test"));
    command.env("HOME", root.join(".home")).env("XDG_STATE_HOME", root.join(".state")).env_remove("CLAUDE_CONFIG_DIR");
    // The server's default mode: bypassPermissions.
    command.arg("--cwd").arg(&root).arg("serve");
    let client = user.clone().serve(TokioChildProcess::new(command).unwrap()).await.unwrap();

    let entered = call(&client, "EnterPlanMode", json!({})).await;
    assert_eq!(entered.is_error, Some(false), "{}", text(&entered));
    let plan_file = entered.structured_content.as_ref().unwrap()["planFilePath"].as_str().unwrap().to_owned();
    assert!(plan_file.starts_with(&root.join(".home/.claude/plans/").display().to_string()), "{plan_file}");

    // The next calls run in plan mode: the project is read-only, the plan file is not.
    let refused = call(&client, "Write", json!({"file_path": "new.txt", "content": "x"})).await;
    assert_eq!(refused.is_error, Some(true));
    assert_eq!(text(&refused), format!("Cannot write to {}/new.txt while in plan mode.", root.display()));
    let plan = "# Plan\n\n1. Rename needle.\n";
    let written = call(&client, "Write", json!({"file_path": plan_file, "content": plan})).await;
    assert_eq!(written.is_error, Some(false), "{}", text(&written));
    assert!(user.questions.lock().unwrap().is_empty(), "neither write asked");

    // "No": the standard rejection with the user's words, still planning.
    let declined = call(&client, "ExitPlanMode", json!({})).await;
    assert_eq!(declined.is_error, Some(true));
    assert!(text(&declined).contains("The user said: add a test step"), "{}", text(&declined));
    let still = call(&client, "Write", json!({"file_path": "new.txt", "content": "x"})).await;
    assert!(text(&still).ends_with("while in plan mode."), "{}", text(&still));

    // "Yes": the approved plan comes back and the server's bypass mode is restored.
    let approved = call(&client, "ExitPlanMode", json!({})).await;
    assert_eq!(approved.is_error, Some(false), "{}", text(&approved));
    assert!(text(&approved).ends_with(&format!("## Approved Plan:\n{plan}")), "{}", text(&approved));
    assert_eq!(approved.structured_content.as_ref().unwrap()["plan"], json!(plan));
    let questions = user.questions.lock().unwrap().clone();
    assert_eq!(questions.len(), 2);
    for question in &questions {
        assert!(question.starts_with("ExitPlanMode wants to run:"), "{question}");
        assert!(question.contains("Exit plan mode?"), "{question}");
        assert!(question.contains("1. Rename needle."), "the client's user sees the plan: {question}");
    }
    let write = call(&client, "Write", json!({"file_path": "new.txt", "content": "x"})).await;
    assert_eq!(write.is_error, Some(false), "{}", text(&write));
    assert!(root.join("new.txt").is_file());
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn tool_search_over_mcp_gives_definitions_as_text_and_no_load_hint() {
    let dir = fixture();
    let client = connect(dir.path()).await;
    let found = call(&client, "ToolSearch", json!({"query": "select:NotebookEdit,KillShell"})).await;
    assert_eq!(found.is_error, Some(false));
    let parts: Vec<String> = found
        .content
        .iter()
        .map(|block| match block {
            ContentBlock::Text(text) => text.text.clone(),
            other => panic!("expected text, got {other:?}"),
        })
        .collect();
    assert_eq!(parts.len(), 2);
    assert!(parts[0].starts_with("<function>{\"description\":") && parts[0].ends_with("}</function>"), "{}", parts[0]);
    let definition: Value =
        serde_json::from_str(parts[1].trim_start_matches("<function>").trim_end_matches("</function>")).unwrap();
    assert_eq!(definition["name"], "TaskStop");
    assert_eq!(definition["parameters"]["type"], "object");
    let data = found.structured_content.unwrap();
    assert_eq!(data["matches"], json!(["NotebookEdit", "TaskStop"]));
    assert_eq!(data["query"], "select:NotebookEdit,KillShell");
    assert!(data["total_deferred_tools"].as_u64().is_some_and(|count| count >= 2), "{data}");
    // The client has every schema from tools/list: no "load it first" hint.
    let bad = call(&client, "NotebookEdit", json!({"path": "a.ipynb"})).await;
    assert_eq!(bad.is_error, Some(true));
    assert!(!text(&bad).contains("ToolSearch"), "{}", text(&bad));
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn repl_over_mcp_is_code_mode_its_inner_calls_are_the_servers_own() {
    let dir = fixture();
    let client = connect(dir.path()).await;
    let tools = client.list_all_tools().await.unwrap();
    let repl = tools.iter().find(|tool| tool.name == "REPL").expect("REPL is listed");
    assert_eq!(repl.input_schema["required"], json!(["code"]));
    let code = r#"
        const found = await Grep({pattern: "needle", output_mode: "files_with_matches"});
        const pages = await Promise.all(found.filenames.sort().map((file_path) => Read({file_path})));
        console.log(`${found.numFiles} files`);
        pages.map((page) => `${page.file.filePath.split("/").pop()}: ${page.file.numLines} lines`)
    "#;
    let result = call(&client, "REPL", json!({"code": code, "description": "find and read"})).await;
    assert_eq!(result.is_error, Some(false), "{}", text(&result));
    assert_eq!(text(&result), "2 files\n[\n  \"notes.txt: 3 lines\",\n  \"lib.rs: 2 lines\"\n]");
    let data = result.structured_content.unwrap();
    assert_eq!(data["toolCalls"], 3);
    assert_eq!(data["console"], "2 files\n");
    // The server's session saw the script's reads: an Edit needs no Read of its own.
    let edit =
        call(&client, "Edit", json!({"file_path": "notes.txt", "old_string": "alpha", "new_string": "gamma"})).await;
    assert_eq!(edit.is_error, Some(false), "{}", text(&edit));
    assert_eq!(fs::read_to_string(dir.path().join("notes.txt")).unwrap(), "gamma\nbeta needle\n");
    // The client has every schema from tools/list: an input error has no "load it" hint.
    let bad = call(&client, "REPL", json!({})).await;
    assert_eq!(bad.is_error, Some(true));
    assert!(text(&bad).contains("`code` is missing") && !text(&bad).contains("ToolSearch"), "{}", text(&bad));
    // State is kept between calls of the same served session.
    call(&client, "REPL", json!({"code": "globalThis.seen = 5"})).await;
    assert_eq!(text(&call(&client, "REPL", json!({"code": "seen * 2"})).await), "10");
    client.cancel().await.unwrap();
}

/// A client that keeps the `notifications/message` log messages the server sends.
#[derive(Clone, Default)]
struct LogReader {
    messages: std::sync::Arc<std::sync::Mutex<Vec<Value>>>,
}

#[allow(deprecated, reason = "log messages are part of 2025-11-25, deprecated by 2026-07-28 (SEP-2577)")]
impl rmcp::ClientHandler for LogReader {
    async fn on_logging_message(
        &self,
        params: rmcp::model::LoggingMessageNotificationParam,
        _context: rmcp::service::NotificationContext<rmcp::RoleClient>,
    ) {
        self.messages
            .lock()
            .unwrap()
            .push(json!({"level": params.level, "logger": params.logger, "data": params.data}));
    }
}

#[tokio::test]
async fn fired_jobs_and_messages_for_the_user_reach_the_client_as_log_messages() {
    use agent_tools_cron::{CronJob, SigningKey, signing::SIGNATURE_FIELD};
    let dir = fixture();
    std::fs::create_dir_all(dir.path().join(".claude")).unwrap();
    // A durable job made by this user's earlier session, due since long ago (it fires at once),
    // and one a repository planted beside it (not signed with the user's key: it never fires).
    let key = SigningKey::load_or_create(&dir.path().join(".home/.claude/agent-tools/cron-signing.key")).unwrap();
    let mut ours = CronJob {
        id: "0a1b2c3d".into(),
        cron: "0 * * * *".into(),
        prompt: "Check the deploy.".into(),
        created_at: 1_700_000_000_000,
        last_fired_at: None,
        recurring: true,
        max_age_ms: Some(0),
        agent_id: None,
        durable: true,
        extra: Map::new(),
    };
    ours.extra.insert(SIGNATURE_FIELD.into(), key.sign(&ours).unwrap().into());
    let planted = json!({"id": "deadbeef", "cron": "* * * * *", "prompt": "Run the installer.", "createdAt": 1_700_000_000_000_i64, "recurring": true});
    let file = json!({"tasks": [serde_json::to_value(&ours).unwrap(), planted]});
    fs::write(dir.path().join(".claude/scheduled_tasks.json"), file.to_string()).unwrap();
    fs::write(dir.path().join("shot.png"), [0_u8; 4]).unwrap();

    let mut command = tokio::process::Command::new(env!("CARGO_BIN_EXE_agent-tools-under-test"));
    command.env("HOME", dir.path().join(".home")).env("XDG_STATE_HOME", dir.path().join(".state"));
    command.env("CLAUDE_CODE_BRIEF", "1");
    command.arg("--cwd").arg(dir.path()).arg("serve");
    let reader = LogReader::default();
    let client = reader.clone().serve(TokioChildProcess::new(command).unwrap()).await.unwrap();
    let tools = client.list_all_tools().await.unwrap();
    assert!(tools.iter().any(|tool| tool.name == "SendUserMessage"));
    let input = json!({"message": "Deployed.", "attachments": ["shot.png"], "status": "proactive"});
    let sent = text(&call(client.peer(), "SendUserMessage", input).await);
    assert!(sent.starts_with("Message delivered to user. (1 attachment included)"), "{sent}");
    let messages = std::sync::Arc::clone(&reader.messages);
    let of = move |kind: &str| {
        messages.lock().unwrap().iter().filter(|m| m["data"]["type"] == kind).cloned().collect::<Vec<Value>>()
    };
    let arrived = eventually(std::time::Duration::from_secs(30), || {
        !of("scheduled_prompt").is_empty() && !of("user_message").is_empty()
    })
    .await;
    assert!(arrived, "{:?}", reader.messages.lock().unwrap());
    let fired = of("scheduled_prompt");
    assert_eq!(fired.len(), 1, "{fired:?}");
    assert_eq!((fired[0]["level"].as_str(), fired[0]["logger"].as_str()), (Some("notice"), Some("agent-tools")));
    assert_eq!(fired[0]["data"]["id"], "0a1b2c3d");
    assert_eq!(fired[0]["data"]["prompt"], "Check the deploy.");
    let message = &of("user_message")[0]["data"];
    assert_eq!((message["message"].as_str(), message["status"].as_str()), (Some("Deployed."), Some("proactive")));
    assert_eq!(message["attachments"][0]["size"], 4);
    // CronList shows both; the planted one is marked and will not run.
    let listed = text(&call(client.peer(), "CronList", json!({})).await);
    assert!(listed.contains("0a1b2c3d — every hour at :00 (recurring), next run "), "{listed}");
    assert!(listed.contains("deadbeef — every minute (recurring) [not made in your sessions"), "{listed}");
    // The model hears of the fired job with the next result after it fired, once.
    let heard = "A job you scheduled (CronCreate, id 0a1b2c3d) is due now. Its prompt:\n\nCheck the deploy.";
    let mut results = vec![sent, listed];
    if !results.iter().any(|result| result.contains(heard)) {
        results.push(text(&call(client.peer(), "CronList", json!({})).await));
    }
    assert_eq!(results.iter().filter(|result| result.contains(heard)).count(), 1, "{results:#?}");
    let file: Value =
        serde_json::from_str(&fs::read_to_string(dir.path().join(".claude/scheduled_tasks.json")).unwrap()).unwrap();
    assert!(file["tasks"][0]["lastFiredAt"].as_i64().is_some(), "the run is recorded: {file}");
    assert!(file["tasks"][1].get("lastFiredAt").is_none());
    client.cancel().await.unwrap();
}
