//! Monitor on real processes: the call's exact result, events in order, the end of the watch
//! (by itself, at the timeout, stopped), batching and capping of a burst, validation, the
//! schema, and the Bash permission check. Every wait is a poll with a deadline.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use agent_tools_background::{TaskRegistry, TaskStatus};
use agent_tools_core::call_tool;
use agent_tools_core::{
    NotificationQueue, PendingNotification, PermissionResult, ToolPermissionContext, ToolUseContext,
};
use agent_tools_core::{PermissionBehavior, PermissionRuleSource, PermissionUpdate};
use agent_tools_testkit::procs::{Reaper, unique_token};
use agent_tools_testkit::{carrying, eventually};
use serde_json::{Value, json};

fn workdir() -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let path = std::fs::canonicalize(dir.path()).unwrap();
    (dir, path)
}

/// A session context with its own folder (where task output files go).
fn session(cwd: &Path, state: &Path) -> ToolUseContext {
    let mut ctx = ToolUseContext::new(cwd);
    ctx.options.session_dir = Some(state.to_path_buf());
    ctx
}

/// Starts a monitor; returns the result text and the task's id.
async fn start(ctx: &ToolUseContext, input: Value) -> (String, String) {
    let done = call_tool(agent_tool_monitor::tool().as_ref(), "toolu_mon", input, ctx).await;
    assert!(!done.block.is_error, "{}", done.block.content.text());
    let data = done.data.unwrap().to_json();
    (done.block.content.text(), data["taskId"].as_str().unwrap().to_owned())
}

/// Drains `queue` into `seen` until `done(seen)` holds (or 30 seconds pass).
async fn collect(
    queue: &NotificationQueue,
    seen: &mut Vec<PendingNotification>,
    done: impl Fn(&[PendingNotification]) -> bool,
) {
    let reached = eventually(Duration::from_secs(30), || {
        seen.extend(queue.drain());
        done(seen)
    })
    .await;
    assert!(reached, "{seen:#?}");
}

/// The lines of an event notification's `<event>` block.
fn event_lines(text: &str) -> Vec<&str> {
    let body = text.split_once("<event>\n").unwrap().1.split_once("</event>").unwrap().0;
    body.lines().collect()
}

fn ended(seen: &[PendingNotification], id: &str) -> bool {
    seen.iter().any(|pending| pending.key == id)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn slow_lines_are_events_in_order_then_the_watch_ends() {
    let (_dir, w) = workdir();
    let (_state, state) = workdir();
    let ctx = session(&w, &state);
    let queue = ctx.notifications();
    let input = json!({
        "description": "Count to three",
        "timeout_ms": 60000,
        "command": "for i in 1 2 3; do echo line$i; sleep 0.3; done",
    });
    let (text, id) = start(&ctx, input).await;
    assert!(id.starts_with('b') && id.len() == 9, "{id}");
    assert_eq!(
        text,
        format!(
            "Monitor started (task {id}, timeout 60000ms). You will be notified on each event. Keep working — do not poll or sleep. Events may arrive while you are waiting for the user — an event is not their reply."
        )
    );
    let mut seen = Vec::new();
    collect(&queue, &mut seen, |seen| ended(seen, &id)).await;

    let (last, events) = seen.split_last().unwrap();
    assert!(!events.is_empty());
    let key = format!("monitor:{id}");
    assert!(events.iter().all(|event| event.key == key), "{events:#?}");
    let lines: Vec<&str> = events.iter().flat_map(|event| event_lines(&event.text)).collect();
    assert_eq!(lines, ["line1", "line2", "line3"]);
    assert!(events[0].text.starts_with(&format!(
        "<task-notification>\n<task-id>{id}</task-id>\n<kind>monitor</kind>\n<description>Count to three</description>\n<event>\nline1\n"
    )));
    let output = state.join("tasks").join(format!("{id}.output"));
    assert_eq!(
        last.text,
        format!(
            "<task-notification>\n<task-id>{id}</task-id>\n<tool-use-id>toolu_mon</tool-use-id>\n<kind>monitor</kind>\n<description>Count to three</description>\n<output-file>{}</output-file>\n<status>completed</status>\n<summary>Monitor ended: its command exited with code 0. No more events will come.</summary>\n</task-notification>",
            output.display()
        )
    );
    // A normal background task: its output file has every line, and the registry knows it.
    assert_eq!(std::fs::read_to_string(&output).unwrap(), "line1\nline2\nline3\n");
    let task = TaskRegistry::existing(&ctx).unwrap().get(&id).unwrap();
    assert_eq!(
        (task.status, task.exit_code, task.description.as_str()),
        (TaskStatus::Completed, Some(0), "Count to three")
    );
    assert_eq!(task.command, "for i in 1 2 3; do echo line$i; sleep 0.3; done");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_failing_command_ends_the_watch_with_its_exit_code() {
    let (_dir, w) = workdir();
    let ctx = ToolUseContext::new(&w);
    let queue = ctx.notifications();
    let (_, id) =
        start(&ctx, json!({"description": "Fails", "timeout_ms": 60000, "command": "echo 'a <b> & c' >&2; exit 7"}))
            .await;
    let mut seen = Vec::new();
    collect(&queue, &mut seen, |seen| ended(seen, &id)).await;
    assert_eq!(seen.len(), 2, "{seen:#?}");
    assert_eq!(event_lines(&seen[0].text), ["a &lt;b&gt; &amp; c"], "stderr is an event too, escaped");
    assert!(seen[1].text.contains("<status>failed</status>\n<summary>Monitor ended: its command exited with code 7."));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_command_past_its_timeout_is_stopped_and_one_notice_says_so() {
    let (_dir, w) = workdir();
    let (_state, state) = workdir();
    let ctx = session(&w, &state);
    let queue = ctx.notifications();
    let token = unique_token();
    let _reaper = Reaper(token.clone());
    let input =
        json!({"description": "Sleeper", "timeout_ms": 1000, "command": format!("echo armed; sleep 3001.{token}")});
    let (text, id) = start(&ctx, input).await;
    assert!(text.contains(", timeout 1000ms). "), "{text}");
    let key = format!("monitor:{id}");
    let mut seen = Vec::new();
    collect(&queue, &mut seen, |seen| seen.iter().any(|pending| pending.text.contains("timed out"))).await;
    assert_eq!(seen.len(), 2, "{seen:#?}");
    assert_eq!(event_lines(&seen[0].text), ["armed"]);
    assert_eq!(seen[1].key, key);
    assert_eq!(
        seen[1].text,
        format!(
            "<task-notification>\n<task-id>{id}</task-id>\n<tool-use-id>toolu_mon</tool-use-id>\n<kind>monitor</kind>\n<description>Sleeper</description>\n<output-file>{}</output-file>\n<status>killed</status>\n<summary>Monitor timed out after 1000ms and was stopped — start it again if you still need it.</summary>\n</task-notification>",
            state.join("tasks").join(format!("{id}.output")).display()
        )
    );
    assert_eq!(TaskRegistry::existing(&ctx).unwrap().get(&id).unwrap().status, TaskStatus::Killed);
    assert_eq!(carrying(&token), Vec::<i32>::new(), "the whole tree was stopped");
    assert!(queue.is_empty(), "a stopped task sends no completion notification");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_stopped_watch_sends_no_timed_out_notice() {
    let (_dir, w) = workdir();
    let ctx = ToolUseContext::new(&w);
    let queue = ctx.notifications();
    let token = unique_token();
    let _reaper = Reaper(token.clone());
    let input =
        json!({"description": "Stopped", "timeout_ms": 2000, "command": format!("echo up; sleep 3001.{token}")});
    let (_, id) = start(&ctx, input).await;
    let mut seen = Vec::new();
    collect(&queue, &mut seen, |seen| !seen.is_empty()).await;
    // What TaskStop does.
    let stopped = TaskRegistry::existing(&ctx).unwrap().stop(&id).await.unwrap();
    assert_eq!(stopped.status, TaskStatus::Killed);
    assert_eq!(carrying(&token), Vec::<i32>::new());
    // Until past the deadline (2 s after the start), nothing more arrives.
    let more = eventually(Duration::from_secs(3), || {
        seen.extend(queue.drain());
        seen.len() > 1
    })
    .await;
    assert!(!more, "{seen:#?}");
    assert_eq!(event_lines(&seen[0].text), ["up"]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_burst_of_lines_is_one_capped_event_that_counts_what_it_left_out() {
    let (_dir, w) = workdir();
    let (_state, state) = workdir();
    let ctx = session(&w, &state);
    let queue = ctx.notifications();
    let (_, id) = start(&ctx, json!({"description": "Burst", "timeout_ms": 60000, "command": "seq 1 10000"})).await;
    // Nothing drains the queue until the watch has ended: waiting events take in the later ones.
    assert!(eventually(Duration::from_secs(30), || queue.keys().contains(&id)).await);
    let seen = queue.drain();
    assert_eq!(seen.len(), 2, "one event, then the end: {seen:#?}");
    let event = &seen[0].text;
    let lines = event_lines(event);
    let (marker, shown) = lines.split_last().unwrap();
    let expected: Vec<String> = (1..=shown.len()).map(|n| n.to_string()).collect();
    assert_eq!(shown, expected, "the first lines, in order");
    let shown_chars: usize = shown.iter().map(|line| line.chars().count() + 1).sum();
    assert!(shown_chars <= 4000 && shown_chars > 3900, "{shown_chars}");
    let output = state.join("tasks").join(format!("{id}.output"));
    assert_eq!(
        *marker,
        format!("[{} more lines not shown; the whole output is in {}]", 10_000 - shown.len(), output.display())
    );
    assert_eq!(std::fs::read_to_string(&output).unwrap().lines().count(), 10_000, "the file has them all");

    // Drained between batches, each batch is its own event.
    let (_, id) = start(&ctx, json!({"description": "Ticks", "timeout_ms": 60000, "command": "for i in 1 2 3; do echo tick$i; sleep 0.5; done"})).await;
    let mut seen = Vec::new();
    collect(&queue, &mut seen, |seen| ended(seen, &id)).await;
    let events: Vec<Vec<&str>> =
        seen.iter().filter(|pending| pending.key != id).map(|pending| event_lines(&pending.text)).collect();
    assert_eq!(events.concat(), ["tick1", "tick2", "tick3"]);
    assert!(events.len() >= 2, "{events:?}");
}

#[tokio::test]
async fn inputs_are_checked_before_anything_runs() {
    let (_dir, w) = workdir();
    let ctx = ToolUseContext::new(&w);
    let monitor = agent_tool_monitor::tool();
    let call = |input: Value| {
        let (monitor, ctx) = (Arc::clone(&monitor), ctx.clone());
        async move {
            let done = call_tool(monitor.as_ref(), "toolu_v", input, &ctx).await;
            assert!(done.block.is_error);
            done.block.content.text()
        }
    };
    assert_eq!(
        call(json!({"description": "d", "timeout_ms": 5000})).await,
        "<tool_use_error>InputValidationError: Monitor failed due to the following issue:\nThe required parameter `command` is missing</tool_use_error>"
    );
    assert_eq!(
        call(json!({"description": "d", "timeout_ms": 5000, "command": "  "})).await,
        "<tool_use_error>The command is empty: pass the shell command to watch as `command`.</tool_use_error>"
    );
    for (given, shown) in [(json!(500), "500"), (json!(3_600_001), "3600001"), (json!("999.5"), "999.5")] {
        assert_eq!(
            call(json!({"description": "d", "timeout_ms": given, "command": "true"})).await,
            format!(
                "<tool_use_error>InputValidationError: Monitor failed due to the following issue:\nThe parameter `timeout_ms` must be between 1000 and 3600000 (milliseconds), but it is {shown}</tool_use_error>"
            )
        );
    }
    assert_eq!(
        call(json!({"timeout_ms": 0, "command": "true", "ws": "wss://x"})).await,
        "<tool_use_error>InputValidationError: Monitor failed due to the following issues:\nThe parameter `timeout_ms` must be between 1000 and 3600000 (milliseconds), but it is 0\nThe required parameter `description` is missing\nAn unexpected parameter `ws` was provided</tool_use_error>"
    );
    assert!(TaskRegistry::existing(&ctx).is_none_or(|tasks| tasks.list().is_empty()), "nothing was started");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn timeouts_default_to_five_minutes_and_are_capped_at_thirty() {
    let (_dir, w) = workdir();
    let ctx = ToolUseContext::new(&w);
    let (text, first) = start(&ctx, json!({"description": "d", "command": "true"})).await;
    assert!(text.contains(", timeout 300000ms). "), "{text}");
    let done = call_tool(
        agent_tool_monitor::tool().as_ref(),
        "toolu_cap",
        json!({"description": "d", "timeout_ms": "3600000", "command": "true"}),
        &ctx,
    )
    .await;
    assert!(done.block.content.text().contains(", timeout 1800000ms). "));
    let data = done.data.unwrap().to_json();
    assert_eq!(data["timeoutMs"], 1_800_000);
    let tasks = TaskRegistry::existing(&ctx).unwrap();
    assert!(eventually(Duration::from_secs(30), || tasks.list().iter().all(|task| task.status.is_finished())).await);
    assert_eq!(tasks.list().len(), 2);
    assert_eq!(tasks.list()[0].id, first);
}

#[test]
fn the_tool_is_claude_codes_monitor() {
    let monitor = agent_tool_monitor::tool();
    assert_eq!(monitor.name(), "Monitor");
    assert!(monitor.should_defer());
    assert_eq!(monitor.max_result_size_chars(), agent_tools_core::MaxResultSize::Chars(10_000));
    let parsed = monitor.parse(json!({"description": "d", "timeout_ms": 1000, "command": "rm -rf build"})).unwrap();
    assert!(monitor.is_concurrency_safe(&parsed) && !monitor.is_read_only(&parsed) && monitor.is_destructive(&parsed));
    let tail = monitor.parse(json!({"description": "d", "timeout_ms": 1000, "command": "tail -f log"})).unwrap();
    assert!(!monitor.is_destructive(&tail));
    let matcher = monitor.prepare_permission_matcher(&tail).unwrap();
    assert!(matcher("tail:*") && !matcher("rm:*"));
    assert_eq!(
        *monitor.input_schema(),
        json!({
            "$schema": "https://json-schema.org/draft/2020-12/schema",
            "type": "object",
            "properties": {
                "description": {
                    "description": "A short description of what is being watched, e.g. \"Errors in the dev server log\". It\nnames the watch in every notification.",
                    "type": "string"
                },
                "timeout_ms": {
                    "description": "How long the watch may run, in milliseconds, before its command is stopped: from 1000 to\n3600000, and values above 1800000 (30 minutes) count as 1800000. Use 300000 (5 minutes)\nwhen unsure.",
                    "type": "number",
                    "minimum": 1000,
                    "maximum": 3600000,
                    "default": 300000
                },
                "command": {
                    "description": "The shell command to watch, run with bash in the working directory. Each line it prints\nis an event you are notified of; the watch ends when the command exits.",
                    "type": "string"
                }
            },
            // `command` is required here: Claude Code's schema leaves it optional only for its
            // WebSocket form, which this tool does not have.
            "required": ["description", "timeout_ms", "command"],
            "additionalProperties": false
        })
    );
}

/// A context with these rules (session rules).
fn with_rules(cwd: &Path, rules: &[(PermissionBehavior, &str)]) -> ToolUseContext {
    let mut permissions = ToolPermissionContext::default();
    for (behavior, rule) in rules {
        permissions = permissions.with_rule(*behavior, PermissionRuleSource::Session, *rule);
    }
    let mut ctx = ToolUseContext::new(cwd);
    ctx.permission_context = Arc::new(permissions);
    ctx
}

async fn decide(ctx: &ToolUseContext, command: &str) -> PermissionResult {
    let monitor = agent_tool_monitor::tool();
    let parsed = monitor.parse(json!({"description": "d", "timeout_ms": 1000, "command": command})).unwrap();
    monitor.check_permissions(&parsed, ctx).await
}

#[tokio::test]
async fn commands_pass_the_bash_permission_check() {
    let (_dir, w) = workdir();
    let none = ToolUseContext::new(&w);
    // Read-only inside the working directory: allowed, as for Bash; following a file is not
    // on Bash's read-only list, so it needs approval as it would there.
    assert_eq!(decide(&none, "tail -n 20 server.log").await.behavior(), "allow");
    assert_eq!(decide(&none, "tail -f server.log").await.behavior(), "passthrough");
    // Anything else needs approval, with Bash's suggested rule.
    let asked = decide(&none, "npm run dev").await;
    assert_eq!(asked.behavior(), "passthrough");
    let PermissionResult::Passthrough { suggestions, .. } = &asked else { unreachable!() };
    let PermissionUpdate::AddRules { rules, .. } = &suggestions[0] else { panic!("{suggestions:?}") };
    assert_eq!((rules[0].tool_name.as_str(), rules[0].rule_content.as_deref()), ("Bash", Some("npm run:*")));
    // Bash's rules decide: allow, deny (seen through `sudo`), ask.
    let rules = with_rules(
        &w,
        &[
            (PermissionBehavior::Allow, "Bash(npm run dev:*)"),
            (PermissionBehavior::Deny, "Bash(rm:*)"),
            (PermissionBehavior::Ask, "Bash(git push:*)"),
        ],
    );
    assert_eq!(decide(&rules, "npm run dev -- --port 3000").await.behavior(), "allow");
    assert_eq!(decide(&rules, "tail -f log; sudo rm -rf build").await.behavior(), "deny");
    assert_eq!(decide(&rules, "git push origin main").await.behavior(), "ask");
    // Paths outside the working directories need approval.
    assert_eq!(decide(&none, "tail -n 20 /etc/hosts").await.behavior(), "passthrough");
    // Whole-tool Bash rules count too.
    let denied = decide(&with_rules(&w, &[(PermissionBehavior::Deny, "Bash")]), "tail -f log").await;
    assert_eq!(denied.message(), Some("Permission to use Bash has been denied, and Monitor runs Bash commands."));
    let asked = decide(&with_rules(&w, &[(PermissionBehavior::Ask, "Bash")]), "tail -f log").await;
    assert_eq!((asked.behavior(), asked.message()), ("ask", Some("Monitor will run: tail -f log")));
    assert_eq!(
        decide(&with_rules(&w, &[(PermissionBehavior::Allow, "Bash")]), "npm run dev").await.behavior(),
        "allow"
    );
    // Monitor's own rules, in Bash's syntax ("allow always" saves `Monitor(command)`).
    let own = with_rules(
        &w,
        &[(PermissionBehavior::Allow, "Monitor(npm run dev)"), (PermissionBehavior::Deny, "Monitor(make:*)")],
    );
    assert_eq!(decide(&own, "npm run dev").await.behavior(), "allow");
    assert_eq!(decide(&own, "npm run build").await.behavior(), "passthrough");
    assert_eq!(decide(&own, "make watch").await.behavior(), "deny");
    // A Bash deny wins over a Monitor allow.
    let both =
        with_rules(&w, &[(PermissionBehavior::Allow, "Monitor(rm -rf x)"), (PermissionBehavior::Deny, "Bash(rm:*)")]);
    assert_eq!(decide(&both, "rm -rf x").await.behavior(), "deny");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_sub_agents_watch_notifies_the_sub_agent_and_stops_with_it() {
    let (_dir, w) = workdir();
    let parent = ToolUseContext::new(&w);
    // What a sub-agent's context looks like: its own app state, the session's root state.
    let mut child = parent.clone();
    child.app_state = agent_tools_core::AppStateHandle::default();
    child.agent_id = Some("a1".into());
    let token = unique_token();
    let _reaper = Reaper(token.clone());
    let input = json!({"description": "Child watch", "timeout_ms": 60000, "command": format!("echo hello; sleep 3001.{token}")});
    let (_, id) = start(&child, input).await;
    let mut seen = Vec::new();
    collect(&child.notifications(), &mut seen, |seen| !seen.is_empty()).await;
    assert_eq!(event_lines(&seen[0].text), ["hello"]);
    assert!(parent.notifications().is_empty(), "the main conversation hears nothing");
    // The session's registry holds it, owned by the sub-agent: stopped with it.
    let tasks = TaskRegistry::existing(&parent).unwrap();
    assert_eq!(tasks.get(&id).unwrap().owner.as_deref(), Some("a1"));
    let stopped = tasks.stop_owned_by_async("a1").await;
    assert_eq!(stopped.iter().map(|task| task.id.as_str()).collect::<Vec<_>>(), [id.as_str()]);
    assert_eq!(carrying(&token), Vec::<i32>::new());
}
