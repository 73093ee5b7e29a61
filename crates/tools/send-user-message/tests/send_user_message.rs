//! SendUserMessage through the contract: the message reaches the installed channel with its
//! attachments checked and sized, the result texts, bad input.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::sync::{Arc, Mutex};

use agent_tools_core::ToolUseContext;
use agent_tools_core::call_tool;
use agent_tools_core::user::{UserChannel, UserMessage, install_user_channel};
use serde_json::json;

#[derive(Default)]
struct Inbox(Mutex<Vec<UserMessage>>);

impl UserChannel for Inbox {
    fn send(&self, message: &UserMessage) {
        self.0.lock().unwrap().push(message.clone());
    }
}

async fn send(ctx: &ToolUseContext, input: serde_json::Value) -> (bool, String) {
    let done = call_tool(agent_tool_send_user_message::tool().as_ref(), "toolu_1", input, ctx).await;
    (done.block.is_error, done.block.content.text())
}

#[tokio::test]
async fn the_message_and_its_files_reach_the_user() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("shot.PNG"), [0_u8; 10]).unwrap();
    std::fs::write(dir.path().join("run.log"), "line\n").unwrap();
    let ctx = ToolUseContext::new(dir.path());
    let inbox = Arc::new(Inbox::default());
    install_user_channel(&ctx, inbox.clone());
    let input =
        json!({"message": "**Done.** See the files.", "attachments": ["shot.PNG", "run.log"], "status": "proactive"});
    assert_eq!(send(&ctx, input).await, (false, "Message delivered to user. (2 attachments included)".into()));
    let got = inbox.0.lock().unwrap().clone();
    assert_eq!(got.len(), 1);
    assert_eq!((got[0].message.as_str(), got[0].status.as_str()), ("**Done.** See the files.", "proactive"));
    let files: Vec<(String, u64, bool)> = got[0]
        .attachments
        .iter()
        .map(|a| (a.path.file_name().unwrap().to_string_lossy().into_owned(), a.size, a.is_image))
        .collect();
    assert_eq!(files, [("shot.PNG".into(), 10, true), ("run.log".into(), 5, false)]);
    assert!(got[0].attachments[0].path.is_absolute());
    assert_eq!(send(&ctx, json!({"message": "hi", "status": "normal"})).await.1, "Message delivered to user.");
}

#[tokio::test]
async fn missing_files_folders_and_bad_statuses_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let ctx = ToolUseContext::new(dir.path());
    let inbox = Arc::new(Inbox::default());
    install_user_channel(&ctx, inbox.clone());
    let (error, text) = send(&ctx, json!({"message": "x", "attachments": ["gone.txt"], "status": "normal"})).await;
    assert!(error && text.contains("Attachment not found: gone.txt"), "{text}");
    let (error, text) = send(&ctx, json!({"message": "x", "attachments": ["."], "status": "normal"})).await;
    assert!(error && text.contains("Attachment is not a file: ."), "{text}");
    let (error, _) = send(&ctx, json!({"message": "x", "status": "urgent"})).await;
    assert!(error);
    let (error, _) = send(&ctx, json!({"message": "x"})).await;
    assert!(error);
    assert!(inbox.0.lock().unwrap().is_empty());
    // The alias answers too.
    assert!(agent_tools_core::tool_matches_name(agent_tool_send_user_message::tool().as_ref(), "Brief"));
}

#[tokio::test]
async fn attachments_need_the_permission_to_read_them() {
    use agent_tools_core::{PermissionBehavior, PermissionRuleSource, ToolPermissionContext};
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().canonicalize().unwrap();
    std::fs::write(root.join("secret.env"), "KEY=1\n").unwrap();
    std::fs::write(root.join("notes.md"), "ok\n").unwrap();
    let mut ctx = ToolUseContext::new(&root);
    let permissions = ToolPermissionContext::default().with_rule(
        PermissionBehavior::Deny,
        PermissionRuleSource::CliArg,
        "Read(./secret.env)",
    );
    ctx.permission_context = Arc::new(permissions);
    let inbox = Arc::new(Inbox::default());
    install_user_channel(&ctx, inbox.clone());
    let (error, text) = send(&ctx, json!({"message": "x", "attachments": ["secret.env"], "status": "normal"})).await;
    assert!(error, "{text}");
    assert!(!text.contains("6"), "nothing about the file: {text}");
    // Outside the working directories a file needs approval (here nobody gives it).
    let tool = agent_tool_send_user_message::tool();
    let outside = tool.parse(json!({"message": "x", "attachments": ["/etc/hostname"], "status": "normal"})).unwrap();
    assert!(!matches!(tool.check_permissions(&outside, &ctx).await, agent_tools_core::PermissionResult::Allow { .. }));
    let inside = tool.parse(json!({"message": "x", "attachments": ["notes.md"], "status": "normal"})).unwrap();
    assert!(matches!(tool.check_permissions(&inside, &ctx).await, agent_tools_core::PermissionResult::Allow { .. }));
    let (error, text) = send(&ctx, json!({"message": " ", "status": "normal"})).await;
    assert!(error && text.contains(agent_tool_send_user_message::EMPTY_MESSAGE), "{text}");
    assert!(inbox.0.lock().unwrap().is_empty());
}
