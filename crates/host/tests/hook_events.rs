//! The hook events the executor and the tools fire, each run by a real command hook (a small
//! `sh` script appending its stdin to a log) or a real HTTP hook (a server on 127.0.0.1 started
//! here): each fires once, with its documented input fields.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use std::path::Path;
use std::sync::{Arc, Mutex};

use agent_tools_core::{PermissionMode, Tool, ToolPermissionContext, ToolUseBlock, ToolUseContext};
use agent_tools_host::hooks::{CommandHook, HookNotice, HttpPolicy};
use agent_tools_host::{Executor, Hooks};
use serde_json::{Value, json};

/// A hook appending its input, one JSON line, to `log`.
fn recorder(log: &Path) -> CommandHook {
    CommandHook::new_command(format!("input=$(cat); printf '%s\\n' \"$input\" >> '{0}'", log.display()))
}

/// A hook appending its input to `log`, then printing `output`.
fn answering(log: &Path, output: &Value) -> CommandHook {
    let output = output.to_string().replace('\'', r"'\''");
    CommandHook::new_command(format!(
        "input=$(cat); printf '%s\\n' \"$input\" >> '{0}'; printf '%s' '{output}'",
        log.display()
    ))
}

/// The inputs a recorder logged, in order.
fn logged(log: &Path) -> Vec<Value> {
    std::fs::read_to_string(log)
        .unwrap_or_default()
        .lines()
        .filter(|line| !line.trim().is_empty())
        .map(|line| serde_json::from_str(line).unwrap())
        .collect()
}

/// The inputs of `event` a recorder logged.
fn fired(log: &Path, event: &str) -> Vec<Value> {
    logged(log).into_iter().filter(|input| input["hook_event_name"] == event).collect()
}

/// The common fields every input carries.
fn assert_base(input: &Value, event: &str, ctx: &ToolUseContext) {
    assert_eq!(input["hook_event_name"], event, "{input}");
    assert_eq!(input["session_id"], ctx.options.session_id.as_str(), "{input}");
    assert_eq!(input["cwd"], ctx.cwd.display().to_string(), "{input}");
    assert_eq!(input["permission_mode"], ctx.permission_context.mode.as_str(), "{input}");
    assert!(input["transcript_path"].is_string(), "{input}");
    match &ctx.agent_id {
        Some(id) => {
            assert_eq!(input["agent_id"], id.as_str(), "{input}");
            assert_eq!(input["agent_type"], ctx.agent_type.clone().unwrap_or_default().as_str(), "{input}");
        }
        None => assert!(input.get("agent_id").is_none() && input.get("agent_type").is_none(), "{input}"),
    }
}

fn context(dir: &Path, mode: PermissionMode) -> ToolUseContext {
    let mut ctx = ToolUseContext::new(dir);
    ctx.options.session_id = "session-hooks".into();
    ctx.permission_context = Arc::new(ToolPermissionContext { mode, ..Default::default() });
    ctx
}

fn call(id: &str, name: &str, input: Value) -> ToolUseBlock {
    ToolUseBlock { id: id.into(), name: name.into(), input }
}

fn executor(tools: Vec<Arc<dyn Tool>>, hooks: Hooks) -> Executor {
    Executor::new(tools).with_hooks(hooks)
}

#[tokio::test]
async fn tool_events_fire_once_with_their_fields_in_the_main_conversation_and_in_sub_agents() {
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("hooks.log");
    let hooks = Hooks::default()
        .with_hook("PreToolUse", "Echo", recorder(&log))
        .with_hook("PostToolUse", "Echo", recorder(&log))
        .with_hook("PostToolUseFailure", "Echo", recorder(&log));
    let run = executor(vec![common::tool("Echo")], hooks);
    let ctx = context(dir.path(), PermissionMode::Default);
    let done = run.run_tool_use(&call("toolu_ok", "Echo", json!({"text": "hi"})), &ctx).await;
    assert!(!done.block.is_error);
    let done = run.run_tool_use(&call("toolu_bad", "Echo", json!({"text": "fail"})), &ctx).await;
    assert!(done.block.is_error);

    let pre = fired(&log, "PreToolUse");
    assert_eq!(pre.len(), 2, "one PreToolUse per call");
    assert_base(&pre[0], "PreToolUse", &ctx);
    assert_eq!(
        (&pre[0]["tool_name"], &pre[0]["tool_input"], &pre[0]["tool_use_id"]),
        (&json!("Echo"), &json!({"text": "hi"}), &json!("toolu_ok"))
    );
    let post = fired(&log, "PostToolUse");
    assert_eq!(post.len(), 1, "PostToolUse only for the call that succeeded");
    assert_base(&post[0], "PostToolUse", &ctx);
    assert_eq!(post[0]["tool_use_id"], "toolu_ok");
    assert!(post[0]["tool_response"].as_str().unwrap().starts_with("Echo: hi"), "{}", post[0]);
    assert!(post[0]["duration_ms"].is_u64());
    let failed = fired(&log, "PostToolUseFailure");
    assert_eq!(failed.len(), 1, "PostToolUseFailure only for the call that failed");
    assert_base(&failed[0], "PostToolUseFailure", &ctx);
    assert_eq!(failed[0]["tool_name"], "Echo");
    assert_eq!(failed[0]["tool_input"], json!({"text": "fail"}));
    assert_eq!(failed[0]["tool_use_id"], "toolu_bad");
    assert_eq!(failed[0]["error"], "the call failed");
    assert_eq!(failed[0]["is_interrupt"], false);
    assert!(failed[0]["duration_ms"].is_u64());

    // Inside a sub-agent the same hooks see its id and type.
    std::fs::remove_file(&log).unwrap();
    let mut inner = ctx.clone();
    inner.agent_id = Some("agent-7".into());
    inner.agent_type = Some("Explore".into());
    run.run_tool_use(&call("toolu_sub", "Echo", json!({"text": "fail"})), &inner).await;
    let pre = fired(&log, "PreToolUse");
    assert_eq!(pre.len(), 1);
    assert_base(&pre[0], "PreToolUse", &inner);
    let failed = fired(&log, "PostToolUseFailure");
    assert_eq!(failed.len(), 1);
    assert_base(&failed[0], "PostToolUseFailure", &inner);
}

#[tokio::test]
async fn a_failure_hooks_context_reaches_the_model() {
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("hooks.log");
    let answer = json!({"hookSpecificOutput": {"hookEventName": "PostToolUseFailure", "additionalContext": "retry with text ok"}});
    let hooks = Hooks::default().with_hook("PostToolUseFailure", "", answering(&log, &answer));
    let ctx = context(dir.path(), PermissionMode::Default);
    let done = executor(vec![common::tool("Echo")], hooks)
        .run_tool_use(&call("toolu_1", "Echo", json!({"text": "fail"})), &ctx)
        .await;
    let texts: Vec<String> =
        done.new_messages.iter().map(|message| serde_json::to_value(message).unwrap()["content"].to_string()).collect();
    assert!(
        texts.iter().any(|text| text.contains("PostToolUseFailure:Echo hook additional context: retry with text ok")),
        "{texts:?}"
    );
}

fn asking(name: &str) -> Arc<dyn Tool> {
    agent_tools_core::build_tool(common::TestTool { asks: true, ..common::TestTool::named(name) })
}

#[tokio::test]
async fn permission_request_hooks_answer_before_anyone_is_asked() {
    let dir = tempfile::tempdir().unwrap();
    let ctx = context(dir.path(), PermissionMode::Default);
    let allow = json!({"hookSpecificOutput": {"hookEventName": "PermissionRequest",
        "decision": {"behavior": "allow", "updatedInput": {"text": "rewritten"}}}});
    let deny = json!({"hookSpecificOutput": {"hookEventName": "PermissionRequest",
        "decision": {"behavior": "deny", "message": "not on a Friday"}}});

    // Allowed by the hook, with its input: nobody was there to ask.
    let log = dir.path().join("allow.log");
    let hooks = Hooks::default().with_hook("PermissionRequest", "Gate", answering(&log, &allow)).with_hook(
        "PermissionDenied",
        "",
        recorder(&log),
    );
    let done =
        executor(vec![asking("Gate")], hooks).run_tool_use(&call("toolu_a", "Gate", json!({"text": "x"})), &ctx).await;
    assert!(!done.block.is_error, "{}", done.block.content.text());
    assert!(done.block.content.text().starts_with("Gate: rewritten"), "{}", done.block.content.text());
    let asked = fired(&log, "PermissionRequest");
    assert_eq!(asked.len(), 1);
    assert_base(&asked[0], "PermissionRequest", &ctx);
    assert_eq!(asked[0]["tool_name"], "Gate");
    assert_eq!(asked[0]["tool_input"], json!({"text": "x"}));
    assert!(asked[0]["permission_suggestions"].is_array(), "{}", asked[0]);
    assert!(fired(&log, "PermissionDenied").is_empty());

    // Refused by the hook: the model reads its message, and PermissionDenied fires once.
    let log = dir.path().join("deny.log");
    let hooks = Hooks::default().with_hook("PermissionRequest", "", answering(&log, &deny)).with_hook(
        "PermissionDenied",
        "Gate",
        recorder(&log),
    );
    let done =
        executor(vec![asking("Gate")], hooks).run_tool_use(&call("toolu_d", "Gate", json!({"text": "x"})), &ctx).await;
    assert!(done.block.is_error && done.permission_denied);
    assert_eq!(done.block.content.text(), "not on a Friday");
    let denied = fired(&log, "PermissionDenied");
    assert_eq!(denied.len(), 1);
    assert_base(&denied[0], "PermissionDenied", &ctx);
    assert_eq!(denied[0]["tool_name"], "Gate");
    assert_eq!(denied[0]["tool_input"], json!({"text": "x"}));
    assert_eq!(denied[0]["tool_use_id"], "toolu_d");
    assert_eq!(denied[0]["reason"], "not on a Friday");

    // A deny holds whatever a later hook says.
    let log = dir.path().join("both.log");
    let hooks = Hooks::default().with_hook("PermissionRequest", "", answering(&log, &deny)).with_hook(
        "PermissionRequest",
        "",
        answering(&log, &allow),
    );
    let done =
        executor(vec![asking("Gate")], hooks).run_tool_use(&call("toolu_b", "Gate", json!({"text": "x"})), &ctx).await;
    assert!(done.block.is_error);
    assert_eq!(fired(&log, "PermissionRequest").len(), 1, "the run ends at the deny");

    // A hook that fails says nothing: the call is refused as before (no one to ask).
    let log = dir.path().join("fail.log");
    let hooks = Hooks::default().with_hook("PermissionRequest", "", CommandHook::new_command("exit 1")).with_hook(
        "PermissionDenied",
        "",
        answering(&log, &json!({"hookSpecificOutput": {"hookEventName": "PermissionDenied", "retry": true}})),
    );
    let done =
        executor(vec![asking("Gate")], hooks).run_tool_use(&call("toolu_f", "Gate", json!({"text": "x"})), &ctx).await;
    assert!(done.block.is_error && done.permission_denied);
    assert!(done.block.content.text().contains("no one is available"), "{}", done.block.content.text());
    assert_eq!(fired(&log, "PermissionDenied").len(), 1);
    let texts: Vec<String> =
        done.new_messages.iter().map(|message| serde_json::to_value(message).unwrap()["content"].to_string()).collect();
    assert!(texts.iter().any(|text| text.contains("this call may be retried")), "{texts:?}");
}

#[tokio::test]
async fn permission_denied_fires_for_a_refusal_by_the_tool_and_by_a_hook() {
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("hooks.log");
    let ctx = context(dir.path(), PermissionMode::Default);
    let refusing = agent_tools_core::build_tool(common::TestTool { deny: true, ..common::TestTool::named("No") });
    let hooks = Hooks::default()
        .with_hook("PreToolUse", "Echo", CommandHook::new_command("echo 'not this one' >&2; exit 2"))
        .with_hook("PermissionDenied", "", recorder(&log));
    let run = executor(vec![refusing, common::tool("Echo")], hooks);
    run.run_tool_use(&call("toolu_no", "No", json!({"text": "x"})), &ctx).await;
    run.run_tool_use(&call("toolu_echo", "Echo", json!({"text": "x"})), &ctx).await;
    let denied = fired(&log, "PermissionDenied");
    assert_eq!(denied.len(), 2);
    assert_eq!(
        (denied[0]["tool_name"].as_str(), denied[0]["reason"].as_str()),
        (Some("No"), Some("the test tool refuses"))
    );
    assert_eq!(denied[1]["tool_name"], "Echo");
    assert!(denied[1]["reason"].as_str().unwrap().contains("not this one"), "{}", denied[1]);
}

#[cfg(feature = "file-write")]
#[tokio::test]
async fn file_changed_fires_after_a_write_with_add_then_change() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().canonicalize().unwrap();
    let log = root.join("hooks.log");
    let hooks = Hooks::default().with_hook("FileChanged", "notes.txt", recorder(&log)).with_hook(
        "FileChanged",
        "other.txt",
        CommandHook::new_command("echo never >> never.log"),
    );
    let run = executor(vec![agent_tool_file_write::tool()], hooks);
    let ctx = context(&root, PermissionMode::BypassPermissions);
    let file = root.join("notes.txt");
    let write = |id: &str, text: &str| call(id, "Write", json!({"file_path": file, "content": text}));
    let done = run.run_tool_use(&write("toolu_1", "one\n"), &ctx).await;
    assert!(!done.block.is_error, "{}", done.block.content.text());
    let done = run.run_tool_use(&write("toolu_2", "two\n"), &ctx).await;
    assert!(!done.block.is_error, "{}", done.block.content.text());
    let changed = fired(&log, "FileChanged");
    assert_eq!(changed.len(), 2);
    assert_base(&changed[0], "FileChanged", &ctx);
    assert_eq!(changed[0]["file_path"], file.display().to_string());
    assert_eq!((changed[0]["event"].as_str(), changed[1]["event"].as_str()), (Some("add"), Some("change")));
    assert!(!root.join("never.log").exists(), "the matcher selects on the file's name");
}

#[cfg(all(feature = "task-create", feature = "task-update"))]
#[tokio::test]
async fn task_hooks_fire_and_a_block_undoes_or_refuses() {
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("hooks.log");
    let mut ctx = context(dir.path(), PermissionMode::Default);
    ctx.options.tasks_dir = Some(dir.path().join("tasks"));
    ctx.options.task_list_id = Some("list".into());
    let tools = vec![agent_tool_task_create::tool(), agent_tool_task_update::tool()];
    let hooks =
        Hooks::default().with_hook("TaskCreated", "", recorder(&log)).with_hook("TaskCompleted", "", recorder(&log));
    let run = executor(tools.clone(), hooks);
    let create = call("toolu_c", "TaskCreate", json!({"subject": "Ship it", "description": "all of it"}));
    let done = run.run_tool_use(&create, &ctx).await;
    assert_eq!(done.block.content.text(), "Task #1 created successfully: Ship it");
    let complete = call("toolu_u", "TaskUpdate", json!({"taskId": "1", "status": "completed"}));
    let done = run.run_tool_use(&complete, &ctx).await;
    assert!(done.block.content.text().starts_with("Updated task #1"), "{}", done.block.content.text());
    // Completing it again is no change: no second TaskCompleted.
    run.run_tool_use(&complete, &ctx).await;
    let created = fired(&log, "TaskCreated");
    assert_eq!(created.len(), 1);
    assert_base(&created[0], "TaskCreated", &ctx);
    assert_eq!((created[0]["task_id"].as_str(), created[0]["task_subject"].as_str()), (Some("1"), Some("Ship it")));
    assert_eq!(created[0]["task_description"], "all of it");
    let completed = fired(&log, "TaskCompleted");
    assert_eq!(completed.len(), 1);
    assert_eq!((completed[0]["task_id"].as_str(), completed[0]["task_subject"].as_str()), (Some("1"), Some("Ship it")));

    // Blocking hooks: the new task is deleted again; the completion is refused.
    let blocking = CommandHook::new_command("echo 'write the tests first' >&2; exit 2");
    let hooks =
        Hooks::default().with_hook("TaskCreated", "", blocking.clone()).with_hook("TaskCompleted", "", blocking);
    let run = executor(tools, hooks);
    let done = run
        .run_tool_use(&call("toolu_c2", "TaskCreate", json!({"subject": "Skip tests", "description": "-"})), &ctx)
        .await;
    assert!(done.block.is_error);
    assert_eq!(done.block.content.text(), "TaskCreated hook blocked the task: write the tests first");
    assert!(!dir.path().join("tasks/list/2.json").exists(), "the blocked task is deleted");
    let reopen = call("toolu_r", "TaskUpdate", json!({"taskId": "1", "status": "pending"}));
    run.run_tool_use(&reopen, &ctx).await;
    let done =
        run.run_tool_use(&call("toolu_u2", "TaskUpdate", json!({"taskId": "1", "status": "completed"})), &ctx).await;
    assert_eq!(done.block.content.text(), "TaskCompleted hook blocked the completion: write the tests first");
    let task: Value =
        serde_json::from_str(&std::fs::read_to_string(dir.path().join("tasks/list/1.json")).unwrap()).unwrap();
    assert_eq!(task["status"], "pending");
}

#[cfg(all(feature = "enter-worktree", feature = "exit-worktree"))]
#[tokio::test]
async fn a_worktree_create_hook_makes_the_worktree_and_remove_hooks_clean_it() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().canonicalize().unwrap();
    let log = root.join("hooks.log");
    // Not a git repository: only the hook can make a worktree here.
    let make = format!(
        "input=$(cat); printf '%s\\n' \"$input\" >> '{log}'; mkdir -p '{root}/trees/fix'; echo '{root}/trees/fix'",
        log = log.display(),
        root = root.display()
    );
    let hooks = Hooks::default().with_hook("WorktreeCreate", "", CommandHook::new_command(make)).with_hook(
        "WorktreeRemove",
        "",
        recorder(&log),
    );
    let run = executor(vec![agent_tool_enter_worktree::tool(), agent_tool_exit_worktree::tool()], hooks);
    let mut ctx = context(&root, PermissionMode::BypassPermissions);
    let mut done = run.run_tool_use(&call("toolu_in", "EnterWorktree", json!({"name": "fix"})), &ctx).await;
    assert!(!done.block.is_error, "{}", done.block.content.text());
    let created = fired(&log, "WorktreeCreate");
    assert_eq!(created.len(), 1);
    assert_base(&created[0], "WorktreeCreate", &ctx);
    assert_eq!(created[0]["name"], "fix");
    let tree = root.join("trees/fix");
    ctx = (done.context_modifier.take().unwrap())(ctx);
    assert_eq!(ctx.cwd, tree, "the session works in the folder the hook named");
    let done = run
        .run_tool_use(&call("toolu_out", "ExitWorktree", json!({"action": "remove", "discard_changes": true})), &ctx)
        .await;
    assert!(!done.block.is_error, "{}", done.block.content.text());
    let removed = fired(&log, "WorktreeRemove");
    assert_eq!(removed.len(), 1);
    assert_eq!(removed[0]["worktree_path"], tree.display().to_string());
    assert!(tree.is_dir(), "removing a hook's worktree is the hooks' business");

    // A hook that names nothing fails the call; nothing is entered.
    let hooks = Hooks::default().with_hook("WorktreeCreate", "", CommandHook::new_command("exit 0"));
    let ctx = context(&root, PermissionMode::BypassPermissions);
    let done = executor(vec![agent_tool_enter_worktree::tool()], hooks)
        .run_tool_use(&call("toolu_none", "EnterWorktree", json!({"name": "nothing"})), &ctx)
        .await;
    assert!(done.block.is_error && done.context_modifier.is_none(), "{}", done.block.content.text());
}

#[cfg(feature = "config")]
#[tokio::test]
async fn config_change_fires_after_the_config_tool_writes() {
    let home = tempfile::tempdir().unwrap();
    let project = tempfile::tempdir().unwrap();
    let log = project.path().join("hooks.log");
    let config = agent_tool_config::tool_with(agent_tool_config::ConfigToolConfig::for_dirs(
        Some(home.path()),
        Some(project.path()),
    ));
    let allow =
        json!({"hookSpecificOutput": {"hookEventName": "PermissionRequest", "decision": {"behavior": "allow"}}});
    let hooks = Hooks::default()
        .with_hook("PermissionRequest", "Config", CommandHook::new_command(format!("printf '%s' '{allow}'")))
        .with_hook("ConfigChange", "user_settings", recorder(&log));
    let ctx = context(project.path(), PermissionMode::Default);
    let run = executor(vec![config], hooks);
    let set = call("toolu_set", "Config", json!({"setting": "model", "value": "opus"}));
    let done = run.run_tool_use(&set, &ctx).await;
    assert!(!done.block.is_error, "{}", done.block.content.text());
    run.run_tool_use(&call("toolu_get", "Config", json!({"setting": "model"})), &ctx).await;
    let changed = fired(&log, "ConfigChange");
    assert_eq!(changed.len(), 1, "a write fires it, a read does not");
    assert_base(&changed[0], "ConfigChange", &ctx);
    assert_eq!(changed[0]["source"], "user_settings");
    assert_eq!(changed[0]["file_path"], home.path().join(".claude/settings.json").display().to_string());
}

#[tokio::test]
async fn every_hook_run_is_reported_to_the_listener() {
    let dir = tempfile::tempdir().unwrap();
    let hooks = Hooks::default().with_hook("PreToolUse", "Echo", CommandHook::new_command("echo checked")).with_hook(
        "PostToolUse",
        "Echo",
        CommandHook::new_command("echo oops >&2; exit 1"),
    );
    let notices: Arc<Mutex<Vec<HookNotice>>> = Arc::default();
    let seen = Arc::clone(&notices);
    hooks.set_listener(Some(Arc::new(move |notice: &HookNotice| seen.lock().unwrap().push(notice.clone()))));
    let ctx = context(dir.path(), PermissionMode::Default);
    executor(vec![common::tool("Echo")], hooks)
        .run_tool_use(&call("toolu_1", "Echo", json!({"text": "x"})), &ctx)
        .await;
    let notices = notices.lock().unwrap().clone();
    assert_eq!(notices.len(), 4, "{notices:?}");
    let lines: Vec<Value> = notices.iter().map(|notice| notice.to_json("session-hooks")).collect();
    assert_eq!(lines[0]["subtype"], "hook_started");
    assert_eq!(lines[0]["hook_name"], "PreToolUse:Echo");
    assert_eq!(lines[0]["hook_event"], "PreToolUse");
    assert_eq!(lines[0]["session_id"], "session-hooks");
    assert!(lines[0]["uuid"].is_string());
    assert_eq!(lines[1]["subtype"], "hook_response");
    assert_eq!(lines[1]["hook_id"], lines[0]["hook_id"]);
    assert_eq!((lines[1]["stdout"].as_str(), lines[1]["exit_code"].as_i64()), (Some("checked\n"), Some(0)));
    assert_eq!(lines[1]["outcome"], "success");
    assert_eq!(lines[3]["hook_event"], "PostToolUse");
    assert_eq!((lines[3]["stderr"].as_str(), lines[3]["outcome"].as_str()), (Some("oops\n"), Some("error")));
    assert_eq!(lines[3]["output"], "oops\n");
}

/// One HTTP exchange a test server saw: the request head and body.
#[derive(Debug, Clone, Default)]
struct Seen {
    head: String,
    body: String,
}

/// A server on 127.0.0.1 answering every request with `status` and `answer`, recording what it
/// was sent.
async fn server(status: u16, answer: Value) -> (String, Arc<Mutex<Vec<Seen>>>) {
    use tokio::io::{AsyncReadExt as _, AsyncWriteExt as _};
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}/hook", listener.local_addr().unwrap());
    let seen: Arc<Mutex<Vec<Seen>>> = Arc::default();
    let record = Arc::clone(&seen);
    tokio::spawn(async move {
        loop {
            let Ok((mut stream, _)) = listener.accept().await else { return };
            let mut data = Vec::new();
            let mut buffer = [0u8; 4096];
            // Read the head, then as many body bytes as Content-Length says.
            let (head, body) = loop {
                let Ok(read) = stream.read(&mut buffer).await else { return };
                if read == 0 {
                    return;
                }
                data.extend_from_slice(&buffer[..read]);
                let text = String::from_utf8_lossy(&data).into_owned();
                if let Some(end) = text.find("\r\n\r\n") {
                    let head = text[..end].to_owned();
                    let length = head
                        .lines()
                        .find_map(|line| {
                            line.to_ascii_lowercase().strip_prefix("content-length:").map(|n| n.trim().to_owned())
                        })
                        .and_then(|n| n.parse::<usize>().ok())
                        .unwrap_or(0);
                    if data.len() >= end + 4 + length {
                        break (head, String::from_utf8_lossy(&data[end + 4..end + 4 + length]).into_owned());
                    }
                }
            };
            record.lock().unwrap().push(Seen { head, body });
            let text = answer.to_string();
            let reply = format!(
                "HTTP/1.1 {status} X\r\ncontent-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{text}",
                text.len()
            );
            let _ = stream.write_all(reply.as_bytes()).await;
            let _ = stream.shutdown().await;
        }
    });
    (url, seen)
}

fn http_hook(url: &str) -> CommandHook {
    let mut hook = CommandHook::new_http(url);
    hook.headers.insert("X-Home".into(), "home=$HOME".into());
    hook.headers.insert("X-Path".into(), "path=${PATH}".into());
    hook.allowed_env_vars = vec!["HOME".into(), "PATH".into()];
    hook
}

#[tokio::test]
async fn an_http_hook_posts_the_input_and_its_answer_counts() {
    let dir = tempfile::tempdir().unwrap();
    let deny = json!({"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "deny",
        "permissionDecisionReason": "the policy server says no"}});
    let (url, seen) = server(200, deny).await;
    let mut hooks = Hooks::default().with_hook("PreToolUse", "Echo", http_hook(&url));
    // Headers may fill in HOME only: PATH is not in the settings' list.
    hooks.http = HttpPolicy {
        allowed_urls: Some(vec!["http://127.0.0.1:*".into()]),
        allowed_env_vars: Some(vec!["HOME".into()]),
    };
    let ctx = context(dir.path(), PermissionMode::Default);
    let done = executor(vec![common::tool("Echo")], hooks)
        .run_tool_use(&call("toolu_h", "Echo", json!({"text": "x"})), &ctx)
        .await;
    assert!(done.block.is_error);
    assert_eq!(done.block.content.text(), "PreToolUse:Echo hook error: the policy server says no");
    let seen = seen.lock().unwrap().clone();
    assert_eq!(seen.len(), 1, "one POST");
    assert!(seen[0].head.starts_with("POST /hook HTTP/1.1"), "{}", seen[0].head);
    let head = seen[0].head.to_ascii_lowercase();
    assert!(head.contains("content-type: application/json"), "{head}");
    let home = std::env::var("HOME").unwrap_or_default();
    assert!(head.contains(&format!("x-home: home={}", home.to_ascii_lowercase())), "{head}");
    assert!(head.contains("x-path: path=\r\n") || head.ends_with("x-path: path="), "PATH is not filled in: {head}");
    let input: Value = serde_json::from_str(&seen[0].body).unwrap();
    assert_base(&input, "PreToolUse", &ctx);
    assert_eq!((&input["tool_name"], &input["tool_input"]), (&json!("Echo"), &json!({"text": "x"})));
}

#[tokio::test]
async fn an_http_hook_outside_the_allowed_urls_is_never_called() {
    let dir = tempfile::tempdir().unwrap();
    let deny = json!({"decision": "block", "reason": "must not be reached"});
    let (url, seen) = server(200, deny).await;
    let ctx = context(dir.path(), PermissionMode::Default);
    for allowed in [vec!["https://hooks.example.com/*".to_owned()], Vec::new()] {
        let mut hooks = Hooks::default().with_hook("PreToolUse", "", http_hook(&url));
        hooks.http.allowed_urls = Some(allowed);
        let notices: Arc<Mutex<Vec<HookNotice>>> = Arc::default();
        let record = Arc::clone(&notices);
        hooks.set_listener(Some(Arc::new(move |notice: &HookNotice| record.lock().unwrap().push(notice.clone()))));
        let done = executor(vec![common::tool("Echo")], hooks)
            .run_tool_use(&call("toolu_x", "Echo", json!({"text": "x"})), &ctx)
            .await;
        assert!(!done.block.is_error, "a refused hook is a non-blocking error: {}", done.block.content.text());
        let notices = notices.lock().unwrap().clone();
        let HookNotice::Response { outcome, stderr, .. } = &notices[1] else { panic!("{notices:?}") };
        assert_eq!(*outcome, "error");
        assert!(stderr.contains("allowedHttpHookUrls"), "{stderr}");
    }
    assert!(seen.lock().unwrap().is_empty(), "the server was never reached");
}

#[tokio::test]
async fn an_http_hook_that_answers_an_error_status_does_not_block() {
    let dir = tempfile::tempdir().unwrap();
    let (url, seen) = server(503, json!({"decision": "block", "reason": "ignored on a 503"})).await;
    // By name: the host is resolved through the address guard (loopback is allowed).
    let url = url.replace("127.0.0.1", "localhost");
    let log = dir.path().join("hooks.log");
    let hooks = Hooks::default().with_hook("PostToolUseFailure", "", http_hook(&url)).with_hook(
        "PostToolUseFailure",
        "",
        recorder(&log),
    );
    let ctx = context(dir.path(), PermissionMode::Default);
    executor(vec![common::tool("Echo")], hooks)
        .run_tool_use(&call("toolu_f", "Echo", json!({"text": "fail"})), &ctx)
        .await;
    assert_eq!(seen.lock().unwrap().len(), 1);
    assert_eq!(fired(&log, "PostToolUseFailure").len(), 1, "the next hook still ran: the 503 blocked nothing");
}

#[tokio::test]
async fn tools_fire_their_events_through_the_context() {
    // A tool's own events (TaskCreated …) go through the hooks of the executor that runs it.
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("hooks.log");
    let hooks = Hooks::default().with_hook("Setup", "init", recorder(&log));
    let ctx = context(dir.path(), PermissionMode::Default);
    assert!(!ctx.has_hooks("Setup"), "a bare context has none");
    let mut inner = ctx.clone();
    inner.hooks = Some(Arc::new(hooks));
    inner.agent_id = Some("a1".into());
    inner.agent_type = Some("general-purpose".into());
    let mut payload = serde_json::Map::new();
    payload.insert("trigger".into(), json!("init"));
    let outcome = inner.fire_hook("Setup", "init", payload.clone()).await;
    assert_eq!(outcome.ran, 1);
    assert_eq!(inner.fire_hook("Setup", "maintenance", payload).await.ran, 0, "the matcher selects on the trigger");
    let setup = fired(&log, "Setup");
    assert_eq!(setup.len(), 1);
    assert_base(&setup[0], "Setup", &inner);
    assert_eq!(setup[0]["trigger"], "init");
}
