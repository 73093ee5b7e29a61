//! Making a saved conversation a valid next request ([`repair`]), and the merge of consecutive
//! user messages the loop and the loader share ([`push_message`]).

use serde_json::{Value, json};

use crate::agent::INTERRUPTED_BY_USER;

/// A conversation made valid for the next request ([`repair`]).
#[derive(Debug, Clone, Default, PartialEq)]
#[non_exhaustive]
pub struct Repaired {
    /// The messages.
    pub messages: Vec<Value>,
    /// The calls that had no result and were answered as interrupted: `(tool_use id, tool name)`.
    pub interrupted: Vec<(String, String)>,
}

/// Makes a saved conversation one the Messages API accepts as it is, whatever a kill left (Claude
/// Code's repair of a resumed session, and its pairing of each `tool_use` with a `tool_result`
/// before a request):
///
/// - the message right after an assistant message with `tool_use` blocks is a user message that
///   starts with one `tool_result` per call, in `tool_use` order; a call without one (the
///   process was killed or terminated while it ran, or before its result was saved) gets an
///   error result, [`INTERRUPTED_BY_USER`], the text the loop gives a call a stopped turn left
///   without a result. System messages saved between a call and its results move after them;
/// - a `tool_result` that answers no call of the message before it is dropped;
/// - a user message that would follow another user message (only system messages between)
///   joins it ([`push_message`]): a prompt sent after a kill goes with the last results;
/// - messages with no role or no content, assistant messages before the first user message,
///   a `tool_use` without an id or outside an assistant message and a `tool_result` outside a
///   user message are dropped.
///
/// A valid conversation comes back unchanged, and repairing twice changes nothing more, so the
/// transcript itself is left as it was saved. Never panics, whatever the values hold.
pub fn repair(messages: &[Value]) -> Repaired {
    let mut repair = Repair::default();
    for message in messages {
        let Some(role) = message.get("role").and_then(Value::as_str) else { continue };
        let Some(mut blocks) = blocks_of(message) else { continue };
        // A call only an assistant makes, a result only a user gives; a call needs its id.
        blocks.retain(|block| match kind(block) {
            "tool_use" => role == "assistant" && id_of(block).is_some(),
            "tool_result" => role == "user",
            _ => true,
        });
        match role {
            "system" if blocks.is_empty() => {}
            "system" if repair.calls.is_empty() => repair.out.push(with_blocks(message, blocks)),
            "system" => repair.held.push(with_blocks(message, blocks)),
            "assistant" => {
                repair.answer(None);
                if !repair.seen_user {
                    continue;
                }
                if blocks.is_empty() {
                    continue;
                }
                repair.calls = blocks
                    .iter()
                    .filter(|block| kind(block) == "tool_use")
                    .filter_map(|block| {
                        let name = block.get("name").and_then(Value::as_str).unwrap_or_default().to_owned();
                        Some((id_of(block)?.to_owned(), name))
                    })
                    .collect();
                repair.out.push(with_blocks(message, blocks));
            }
            "user" if !repair.calls.is_empty() => repair.answer(Some((message, blocks))),
            "user" => {
                let kept: Vec<Value> = blocks.iter().filter(|block| kind(block) != "tool_result").cloned().collect();
                if kept.is_empty() {
                    continue;
                }
                repair.seen_user = true;
                push_message(&mut repair.out, with_blocks(message, kept));
            }
            _ => {}
        }
    }
    repair.answer(None);
    Repaired { messages: repair.out, interrupted: repair.interrupted }
}

/// The state of [`repair`].
#[derive(Default)]
struct Repair {
    out: Vec<Value>,
    /// The calls of the last assistant message, until their results are placed.
    calls: Vec<(String, String)>,
    /// System messages saved after those calls, placed after their results.
    held: Vec<Value>,
    seen_user: bool,
    interrupted: Vec<(String, String)>,
}

impl Repair {
    /// Places the results of the waiting calls: those `user` (the message after the calls, with
    /// its blocks) holds, an interrupted error for the others; then the held system messages.
    fn answer(&mut self, user: Option<(&Value, Vec<Value>)>) {
        if self.calls.is_empty() {
            self.out.append(&mut self.held);
            return;
        }
        let (original, blocks) = match user {
            Some((message, blocks)) => (Some(message), blocks),
            None => (None, Vec::new()),
        };
        let (mut given, rest): (Vec<Value>, Vec<Value>) =
            blocks.iter().cloned().partition(|block| kind(block) == "tool_result");
        let mut content = Vec::with_capacity(self.calls.len() + rest.len());
        for (id, name) in self.calls.drain(..) {
            let found = given.iter().position(|block| block.get("tool_use_id").and_then(Value::as_str) == Some(&id));
            match found {
                Some(at) => content.push(given.remove(at)),
                None => {
                    content.push(interrupted_result(&id));
                    self.interrupted.push((id, name));
                }
            }
        }
        content.extend(rest);
        let message = match original {
            Some(message) => with_blocks(message, content),
            None => json!({"role": "user", "content": content}),
        };
        self.out.push(message);
        self.seen_user = true;
        self.out.append(&mut self.held);
    }
}

/// The error result of a call that has no result because the session stopped while it ran: what
/// the loop gives a call a stopped turn left without a result.
fn interrupted_result(id: &str) -> Value {
    let block = agent_tools_core::ToolResultBlock::error(id, INTERRUPTED_BY_USER);
    crate::results::tool_result_json(
        "",
        agent_tools_core::Capabilities::DEFAULT,
        &agent_tools_core::Invocation::refused(block),
    )
}

/// Appends `message` to `messages`, the conversation the loop sends: a user message whose
/// previous message (system messages aside) is a user message joins that one, its blocks after
/// the earlier ones (so results stay first), as Claude Code merges consecutive user messages
/// before a request. That happens when a prompt follows a turn that ended without an answer:
/// a kill or an interrupt during the stream or the calls, with the last results or prompt last.
pub fn push_message(messages: &mut Vec<Value>, message: Value) {
    if role(&message) == Some("user")
        && let Some(previous) = messages.iter_mut().rev().find(|earlier| role(earlier) != Some("system"))
        && role(previous) == Some("user")
        && previous.is_object()
    {
        let mut blocks = blocks_of(previous).unwrap_or_default();
        blocks.extend(blocks_of(&message).unwrap_or_default());
        *previous = with_blocks(previous, blocks);
        return;
    }
    messages.push(message);
}

fn role(message: &Value) -> Option<&str> {
    message.get("role").and_then(Value::as_str)
}

/// A message's content as blocks (a string is one text block; empty text is no block, which the
/// API refuses; what is not an object with a type is left out), or `None` when it has no usable content (none, an
/// empty string or list, not a string or list).
fn blocks_of(message: &Value) -> Option<Vec<Value>> {
    match message.get("content")? {
        Value::String(text) if text.is_empty() => None,
        Value::String(text) => Some(vec![json!({"type": "text", "text": text})]),
        Value::Array(blocks) => {
            let blocks: Vec<Value> = blocks
                .iter()
                .filter(|block| match kind(block) {
                    "" => false,
                    "text" => block.get("text").and_then(Value::as_str).is_some_and(|text| !text.is_empty()),
                    _ => true,
                })
                .cloned()
                .collect();
            (!blocks.is_empty()).then_some(blocks)
        }
        _ => None,
    }
}

fn kind(block: &Value) -> &str {
    block.get("type").and_then(Value::as_str).unwrap_or_default()
}

fn id_of(block: &Value) -> Option<&str> {
    block.get("id").and_then(Value::as_str).filter(|id| !id.is_empty())
}

/// `message` with `blocks` as its content: the message as it is when those are its blocks
/// already (a string content stays a string), else a copy with the blocks in place.
fn with_blocks(message: &Value, blocks: Vec<Value>) -> Value {
    if blocks_of(message).is_some_and(|own| own == blocks)
        && message.get("content").is_some_and(|content| content.as_array().is_none_or(|all| all.len() == blocks.len()))
    {
        return message.clone();
    }
    let mut message = message.clone();
    if let Some(fields) = message.as_object_mut() {
        fields.insert("content".into(), Value::Array(blocks));
    }
    message
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use agent_tools_testkit::fake_api::message_problems;

    use super::*;

    fn call(id: &str, name: &str) -> Value {
        json!({"type": "tool_use", "id": id, "name": name, "input": {}})
    }

    fn result(id: &str, text: &str) -> Value {
        json!({"tool_use_id": id, "type": "tool_result", "content": text})
    }

    fn interrupted(id: &str) -> Value {
        json!({"type": "tool_result", "content": INTERRUPTED_BY_USER, "is_error": true, "tool_use_id": id})
    }

    fn user(content: Value) -> Value {
        json!({"role": "user", "content": content})
    }

    fn assistant(content: Value) -> Value {
        json!({"role": "assistant", "content": content})
    }

    fn system(text: &str) -> Value {
        json!({"role": "system", "content": [{"type": "text", "text": text}]})
    }

    /// The conversation followed by a prompt, as the loop sends it: valid for the Messages API.
    fn assert_sendable(messages: &[Value]) {
        let mut sent = messages.to_vec();
        push_message(&mut sent, user(json!([{"type": "text", "text": "go on"}])));
        let problems = message_problems(&Value::Array(sent.clone()));
        assert!(problems.is_empty(), "{problems:?} in {sent:#?}");
    }

    /// [`assert_sendable`], but two assistant messages in a row (the loop's own after a
    /// pause_turn; the API combines consecutive turns) are not a problem.
    fn assert_sendable_but_for_assistant_runs(messages: &[Value]) {
        let mut sent = messages.to_vec();
        push_message(&mut sent, user(json!([{"type": "text", "text": "go on"}])));
        let mut problems = message_problems(&Value::Array(sent.clone()));
        problems.retain(|problem| !problem.ends_with("a second assistant message in a row"));
        assert!(problems.is_empty(), "{problems:?} in {sent:#?}");
    }

    #[test]
    fn a_call_left_without_its_result_is_answered_as_interrupted_in_tool_use_order() {
        let saved = [
            user(json!("run both")),
            system("environment"),
            assistant(json!([{"type": "text", "text": "Running."}, call("t1", "Bash"), call("t2", "Read")])),
        ];
        let repaired = repair(&saved);
        assert_eq!(repaired.messages[..3], saved);
        assert_eq!(repaired.messages[3], user(json!([interrupted("t1"), interrupted("t2")])));
        assert_eq!(repaired.interrupted, [("t1".to_owned(), "Bash".to_owned()), ("t2".to_owned(), "Read".to_owned())]);
        assert_sendable(&repaired.messages);
        // The synthetic result is the loop's own for a call a stopped turn left without one.
        let loop_block = crate::results::tool_result_json(
            "Bash",
            agent_tools_core::Capabilities::DEFAULT,
            &agent_tools_core::Invocation::refused(agent_tools_core::ToolResultBlock::error("t1", INTERRUPTED_BY_USER)),
        );
        assert_eq!(loop_block.to_string(), interrupted("t1").to_string());

        // Results saved out of order, one missing, one answering nothing, a system message
        // between the call and them: in tool_use order, right after the call.
        let saved = [
            user(json!("go")),
            assistant(json!([call("a", "Bash"), call("b", "Grep"), call("c", "Read")])),
            system("hook output"),
            user(json!([result("c", "C"), result("zz", "orphan"), {"type": "text", "text": "note"}, result("a", "A")])),
        ];
        let repaired = repair(&saved);
        assert_eq!(repaired.messages.len(), 4);
        assert_eq!(
            repaired.messages[2],
            user(json!([result("a", "A"), interrupted("b"), result("c", "C"), {"type": "text", "text": "note"}]))
        );
        assert_eq!(repaired.messages[3], system("hook output"));
        assert_eq!(repaired.interrupted, [("b".to_owned(), "Grep".to_owned())]);
        assert_sendable(&repaired.messages);
    }

    #[test]
    fn a_prompt_after_the_last_results_joins_their_message() {
        // Killed between the results and the next request: a prompt after them, then a
        // second run killed while its answer streamed, then a third prompt.
        let saved = [
            user(json!("list")),
            system("environment"),
            assistant(json!([call("t1", "Bash")])),
            user(json!([result("t1", "a.txt")])),
            system("# Environment update"),
            user(json!([{"type": "text", "text": "and now?"}])),
            user(json!("still there?")),
        ];
        let repaired = repair(&saved);
        assert_eq!(repaired.messages.len(), 5);
        assert_eq!(
            repaired.messages[3],
            user(json!([
                result("t1", "a.txt"),
                {"type": "text", "text": "and now?"},
                {"type": "text", "text": "still there?"},
            ]))
        );
        assert_eq!(repaired.messages[4], system("# Environment update"));
        assert!(repaired.interrupted.is_empty());
        assert_sendable(&repaired.messages);

        // The loop does the same as it goes, so what it sends is what a later resume loads.
        let mut live = Vec::new();
        for message in saved {
            push_message(&mut live, message);
        }
        assert_eq!(live, repaired.messages);
    }

    #[test]
    fn a_valid_conversation_is_unchanged_and_repairing_twice_changes_nothing_more() {
        let valid = [
            user(json!("hi")),
            system("environment"),
            assistant(json!([{"type": "text", "text": "Reading."}, call("t1", "Read")])),
            user(json!([result("t1", "text"), {"type": "text", "text": "Tool loaded."}])),
            assistant(json!([{"type": "text", "text": "Done."}])),
        ];
        assert_eq!(repair(&valid), Repaired { messages: valid.to_vec(), interrupted: Vec::new() });
        let odd = [
            json!({"role": "assistant", "content": [call("early", "Bash")]}),
            user(json!([result("early", "x")])),
            user(json!("first")),
            assistant(json!([])),
            assistant(json!([{"type": "tool_use", "name": "NoId", "input": {}}, call("t2", "Bash")])),
            json!({"role": "user"}),
            json!({"content": "no role"}),
        ];
        let once = repair(&odd);
        assert_eq!(
            once.messages,
            [user(json!("first")), assistant(json!([call("t2", "Bash")])), user(json!([interrupted("t2")]))]
        );
        assert_eq!(repair(&once.messages).messages, once.messages);
        assert_sendable(&once.messages);
    }

    /// A small deterministic generator (no new dependency): xorshift.
    struct Random(u64);

    impl Random {
        fn below(&mut self, n: usize) -> usize {
            self.0 ^= self.0 << 13;
            self.0 ^= self.0 >> 7;
            self.0 ^= self.0 << 17;
            (self.0 % n as u64) as usize
        }
    }

    #[test]
    fn any_saved_conversation_repairs_to_one_the_api_takes_without_a_panic() {
        let mut random = Random(0x9E37_79B9_7F4A_7C15);
        let ids = ["a", "b", "c", ""];
        let mut answered = 0;
        for _ in 0..3000 {
            let mut saved = Vec::new();
            for _ in 0..random.below(9) {
                let id = ids[random.below(ids.len())];
                let block = match random.below(7) {
                    0 => call(id, "Bash"),
                    1 => result(id, "r"),
                    2 => json!({"type": "text", "text": "t"}),
                    3 => json!({"type": "text", "text": ""}),
                    4 => json!(null),
                    5 => json!({"type": "tool_use", "id": 7}),
                    _ => json!({"type": "thinking", "thinking": "hm", "signature": "s"}),
                };
                let content = match random.below(5) {
                    0 => json!("plain"),
                    1 => json!(""),
                    2 => json!({"type": "text"}),
                    _ => json!([block, call(ids[random.below(3)], "Read")]),
                };
                let role = ["user", "user", "user", "assistant", "assistant", "assistant", "system", "tool", ""]
                    [random.below(9)];
                saved.push(match random.below(12) {
                    0 => json!(42),
                    1 => json!({"role": 5, "content": content}),
                    _ => json!({"role": role, "content": content}),
                });
            }
            let repaired = repair(&saved);
            assert_eq!(repair(&repaired.messages).messages, repaired.messages, "{saved:#?}");
            answered += repaired.interrupted.len();
            assert_sendable_but_for_assistant_runs(&repaired.messages);
        }
        assert!(answered > 200, "the cases cover calls without results: {answered}");
    }
}
