//! The REPL tool through the contract, with a fake [`ToolCaller`] in place of the host's
//! executor: what a script's tool functions send and get back, the batching of its calls
//! (concurrency-safe ones at once, others alone, in order), and a context without a caller.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::sync::{Arc, Mutex};
use std::time::Duration;

use agent_tools_core::BoxFuture;
use agent_tools_core::call_tool;
use agent_tools_core::{InnerResult, ToolCaller};
use agent_tools_core::{
    MaxResultSize, PromptOptions, Tool, ToolDef, ToolError, ToolFlags, ToolResult, ToolResultBlock, ToolUseContext,
    build_tool,
};
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Value, json};

/// The stand-in tools' input (`Look` is concurrency-safe, `Change` is not); the fake caller
/// reads `n` from the JSON itself.
#[derive(Deserialize, JsonSchema)]
struct FakeInput {
    #[serde(default)]
    #[allow(dead_code)]
    n: u32,
}

macro_rules! fake_tool {
    ($ty:ident, $name:literal, $flags:expr) => {
        struct $ty;
        impl ToolDef for $ty {
            type Input = FakeInput;
            type Output = Value;
            const NAME: &'static str = $name;
            fn description(&self, _: &PromptOptions<'_>) -> String {
                "fake".into()
            }
            fn summary(&self, _: &FakeInput) -> String {
                String::new()
            }
            fn max_result_size_chars(&self) -> MaxResultSize {
                MaxResultSize::Chars(1000)
            }
            fn flags(&self) -> ToolFlags {
                $flags
            }
            async fn call(&self, _: FakeInput, _: &ToolUseContext) -> Result<ToolResult<Value>, ToolError> {
                unreachable!("the fake caller answers")
            }
            fn map_tool_result(&self, _: &Value, id: &str) -> ToolResultBlock {
                ToolResultBlock::text(id, "")
            }
        }
    };
}
fake_tool!(Look, "Look", ToolFlags::LOCAL_READ_ONLY);
fake_tool!(Change, "Change", ToolFlags::NOTHING);

/// Answers every call after 20 ms, recording when each started and ended (as a log of
/// `+name:n` / `-name:n`), so the test can see which ran at once.
struct Caller {
    tools: Arc<[Arc<dyn Tool>]>,
    log: Mutex<Vec<String>>,
}

impl ToolCaller for Caller {
    fn tools(&self) -> Arc<[Arc<dyn Tool>]> {
        Arc::clone(&self.tools)
    }

    fn call<'a>(&'a self, id: String, name: String, input: Value, _: &'a ToolUseContext) -> BoxFuture<'a, InnerResult> {
        Box::pin(async move {
            let n = input["n"].as_u64().unwrap_or(0);
            self.log.lock().unwrap().push(format!("+{name}:{n}"));
            tokio::time::sleep(Duration::from_millis(20)).await; // tidy:allow-sleep the fake tool's work, so that overlaps show
            self.log.lock().unwrap().push(format!("-{name}:{n}"));
            if n == 99 {
                return InnerResult { text: format!("{name} refused {n}"), is_error: true, data: None };
            }
            InnerResult {
                text: format!("{name} {n} ({id})"),
                is_error: false,
                data: Some(json!({"n": n, "tool": name})),
            }
        })
    }
}

fn context(caller: Option<Arc<Caller>>) -> ToolUseContext {
    let mut ctx = ToolUseContext::new(std::env::temp_dir());
    ctx.tool_use_id = Some("toolu_s".into());
    ctx.tool_caller = caller.map(|caller| caller as Arc<dyn ToolCaller>);
    ctx
}

async fn run(ctx: &ToolUseContext, code: &str) -> (String, bool, Option<Value>) {
    let done = call_tool(agent_tool_repl::tool().as_ref(), "toolu_s", json!({"code": code}), ctx).await;
    (done.block.content.text(), done.block.is_error, done.data.map(|data| data.to_json()))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn safe_calls_run_together_and_others_alone_in_the_order_made() {
    let caller =
        Arc::new(Caller { tools: Arc::from(vec![build_tool(Look), build_tool(Change)]), log: Mutex::default() });
    let ctx = context(Some(Arc::clone(&caller)));
    let code = "const r = await Promise.all([Look({n: 1}), Look({n: 2}), Change({n: 3}), Look({n: 4})]);\n\
                r.map((x) => `${x.tool}:${x.n}:${x.text}`)";
    let (text, is_error, data) = run(&ctx, code).await;
    assert!(!is_error, "{text}");
    assert_eq!(
        serde_json::from_str::<Value>(&text).unwrap(),
        json!([
            "Look:1:Look 1 (toolu_s_1)",
            "Look:2:Look 2 (toolu_s_2)",
            "Change:3:Change 3 (toolu_s_3)",
            "Look:4:Look 4 (toolu_s_4)"
        ])
    );
    assert_eq!(data.unwrap()["toolCalls"], 4);
    let log = caller.log.lock().unwrap().clone();
    // The two Looks overlap; Change starts after both ended and ends before the last Look.
    let at = |entry: &str| log.iter().position(|logged| logged == entry).unwrap_or_else(|| panic!("{entry}: {log:?}"));
    assert!(at("+Look:2") < at("-Look:1"), "{log:?}");
    assert!(at("+Change:3") > at("-Look:1") && at("+Change:3") > at("-Look:2"), "{log:?}");
    assert!(at("+Look:4") > at("-Change:3"), "{log:?}");

    // An error result rejects with its text; an unknown name is refused without the caller.
    let (text, is_error, _) = run(&ctx, "try { await Look({n: 99}) } catch (e) { `${e.name}: ${e.message}` }").await;
    assert_eq!((text.as_str(), is_error), ("LookError: Look refused 99", false));
    let (text, _, _) = run(&ctx, "typeof Nope + ' ' + Object.keys(tools).join()").await;
    assert_eq!(text, "undefined Look,Change");
    let (text, is_error, _) = run(&ctx, "await Look('not an object')").await;
    assert!(is_error && text.starts_with("TypeError: Look takes one object"), "{text}");
}

#[tokio::test]
async fn without_an_executor_scripts_run_but_no_tool_is_there() {
    let ctx = context(None);
    let (text, is_error, data) = run(&ctx, "console.log('a', {b: 1}); typeof tools.Read").await;
    assert!(!is_error);
    assert_eq!(text, "a {\n  \"b\": 1\n}\nundefined");
    assert_eq!(data.unwrap(), json!({"console": "a {\n  \"b\": 1\n}\n", "value": "undefined", "toolCalls": 0}));
    let (text, is_error, _) = run(&ctx, "await new Promise(() => {})").await;
    assert!(is_error);
    assert!(text.contains("waiting for something that will never happen"), "{text}");
    let done = call_tool(agent_tool_repl::tool().as_ref(), "toolu_t", json!({"code": "  "}), &ctx).await;
    assert!(done.block.is_error);
    assert!(done.block.content.text().contains("The script is empty"));
    let done =
        call_tool(agent_tool_repl::tool().as_ref(), "toolu_t", json!({"code": "1", "timeout": 700_000}), &ctx).await;
    assert!(done.block.content.text().contains("at most 600000 milliseconds"));
}
