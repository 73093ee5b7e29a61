//! Reading a transcript in Claude Code's format back into a conversation: the lines parsed
//! (torn ones skipped), the chain of entries from the last one back through `parentUuid`
//! (which stops at a compaction's boundary), the calls and results of a parallel turn that
//! chain leaves aside put back, and the entries made messages again.

use std::collections::{HashMap, HashSet};

use serde_json::{Map, Value, json};

/// The entry types that are links of the `parentUuid` chain (Claude Code's transcript messages).
const LINKED: [&str; 5] = ["user", "assistant", "system", "attachment", "progress"];

/// The JSON objects of a transcript's lines, in file order, and the (1-based) numbers of the
/// lines that are not whole JSON: a line cut short. The last line is not counted: without its
/// newline it is the one a kill tore, and skipping it is expected.
pub(super) fn parse_lines(bytes: &[u8]) -> (Vec<Map<String, Value>>, Vec<usize>) {
    let mut objects = Vec::new();
    let mut torn = Vec::new();
    let lines: Vec<&[u8]> = bytes.split(|byte| *byte == b'\n').collect();
    let last = lines.len().saturating_sub(1);
    for (index, line) in lines.into_iter().enumerate() {
        if line.iter().all(u8::is_ascii_whitespace) {
            continue;
        }
        match serde_json::from_slice::<Value>(line) {
            Ok(Value::Object(object)) => objects.push(object),
            Ok(_) => {}
            Err(_) if index < last => torn.push(index + 1),
            Err(_) => {}
        }
    }
    (objects, torn)
}

/// Whether these are the lines of agent-tools' first transcript format (a `session` header and
/// `message` / `compact` records) rather than Claude Code's.
pub(super) fn is_legacy(objects: &[Map<String, Value>]) -> bool {
    objects.iter().any(|object| match kind(object) {
        "session" => object.contains_key("session_id"),
        "message" | "compact" => !object.contains_key("uuid"),
        _ => false,
    })
}

fn kind(object: &Map<String, Value>) -> &str {
    object.get("type").and_then(Value::as_str).unwrap_or_default()
}

fn text<'a>(object: &'a Map<String, Value>, key: &str) -> Option<&'a str> {
    object.get(key).and_then(Value::as_str).filter(|text| !text.is_empty())
}

fn flag(object: &Map<String, Value>, key: &str) -> bool {
    object.get(key).and_then(Value::as_bool).unwrap_or(false)
}

/// An assistant entry's API message id (`message.id`).
fn message_id(object: &Map<String, Value>) -> Option<&str> {
    (kind(object) == "assistant")
        .then(|| object.get("message")?.get("id")?.as_str())
        .flatten()
        .filter(|id| !id.is_empty())
}

/// The ids named by `field` in the `block_type` blocks of an entry's `message.content`.
fn block_ids<'a>(object: &'a Map<String, Value>, block_type: &str, field: &str) -> Vec<&'a str> {
    let Some(Value::Array(blocks)) = object.get("message").and_then(|message| message.get("content")) else {
        return Vec::new();
    };
    blocks
        .iter()
        .filter(|block| block.get("type").and_then(Value::as_str) == Some(block_type))
        .filter_map(|block| block.get(field).and_then(Value::as_str))
        .collect()
}

/// Whether `object` was written by the same agent as `other` (main conversation or the same
/// sub-agent).
fn same_writer(object: &Map<String, Value>, other: &Map<String, Value>) -> bool {
    flag(object, "isSidechain") == flag(other, "isSidechain") && object.get("agentId") == other.get("agentId")
}

/// Where a chain may end: a user or assistant entry, or one of the loop's own system messages
/// (a `system` entry carrying its `message`).
fn is_tip(object: &Map<String, Value>) -> bool {
    match kind(object) {
        "user" | "assistant" => true,
        "system" => object.get("message").is_some_and(Value::is_object),
        _ => false,
    }
}

/// The linked entries of a transcript: those of the main conversation when there are any (older
/// Claude Code versions wrote sub-agents' entries into the session's file), else all (a
/// sub-agent's own transcript).
fn linked(objects: &[Map<String, Value>]) -> Vec<&Map<String, Value>> {
    let linked: Vec<&Map<String, Value>> =
        objects.iter().filter(|object| LINKED.contains(&kind(object)) && text(object, "uuid").is_some()).collect();
    let any_main = linked.iter().any(|object| !flag(object, "isSidechain"));
    linked.into_iter().filter(|object| !any_main || !flag(object, "isSidechain")).collect()
}

/// The uuid of the entry a new entry continues from: the last user, assistant or system message
/// in the file.
pub(super) fn tip(objects: &[Map<String, Value>]) -> Option<String> {
    linked(objects)
        .into_iter()
        .rev()
        .find(|object| is_tip(object))
        .and_then(|object| text(object, "uuid"))
        .map(str::to_owned)
}

/// The conversation's entries, oldest first: from the entry `at` (else the last message of the
/// file) back through `parentUuid` to the chain's root (the first entry, or the boundary of the
/// last compaction), with the entries of a parallel turn the walk passed by put back. `Err` with
/// the uuid when no entry has it.
pub(super) fn chain<'a>(
    objects: &'a [Map<String, Value>],
    at: Option<&str>,
) -> Result<Vec<&'a Map<String, Value>>, String> {
    let linked = linked(objects);
    let mut by_uuid: HashMap<&str, usize> = HashMap::new();
    for (position, object) in linked.iter().enumerate() {
        if let Some(uuid) = text(object, "uuid") {
            by_uuid.insert(uuid, position);
        }
    }
    let tip = match at {
        Some(uuid) => Some(*by_uuid.get(uuid).ok_or_else(|| uuid.to_owned())?),
        None => linked.iter().rposition(|object| is_tip(object)),
    };
    let Some(tip) = tip else { return Ok(Vec::new()) };
    let mut walk = Vec::new();
    let mut seen = HashSet::new();
    let mut current = Some(tip);
    while let Some(position) = current {
        if !seen.insert(position) {
            break;
        }
        walk.push(position);
        current =
            linked[position].get("parentUuid").and_then(Value::as_str).and_then(|parent| by_uuid.get(parent)).copied();
    }
    walk.reverse();
    let positions = recover_parallel(&linked, walk, tip);
    Ok(positions.into_iter().map(|position| linked[position]).collect())
}

/// Claude Code writes one assistant entry per content block and one user entry per
/// `tool_result`, each result's parent being the entry of its own call: a turn with several
/// calls forks, and the walk back from the last entry keeps only the branch the next turn
/// followed. For each answer on the chain, its other entries and the results answering its calls
/// (written by the same agent, not after the chain's tip) are put back right after its last
/// entry on the chain, blocks and results in file order, as the Agent SDKs read such a turn.
fn recover_parallel(linked: &[&Map<String, Value>], chain: Vec<usize>, tip: usize) -> Vec<usize> {
    let on_chain: HashSet<usize> = chain.iter().copied().collect();
    let mut anchors: Vec<(&str, usize)> = Vec::new();
    for &position in &chain {
        if let Some(id) = message_id(linked[position]) {
            match anchors.iter_mut().find(|(known, _)| *known == id) {
                Some(anchor) => anchor.1 = position,
                None => anchors.push((id, position)),
            }
        }
    }
    if anchors.is_empty() {
        return chain;
    }
    let mut inserts: HashMap<usize, Vec<usize>> = HashMap::new();
    for (id, anchor) in anchors {
        let group: Vec<usize> = (0..=tip).filter(|&position| message_id(linked[position]) == Some(id)).collect();
        let calls: HashSet<&str> =
            group.iter().flat_map(|&position| block_ids(linked[position], "tool_use", "id")).collect();
        let mut recovered: Vec<usize> = group.iter().copied().filter(|position| !on_chain.contains(position)).collect();
        recovered.extend((0..=tip).filter(|&position| {
            let object = linked[position];
            !on_chain.contains(&position)
                && kind(object) == "user"
                && same_writer(object, linked[anchor])
                && block_ids(object, "tool_result", "tool_use_id").iter().any(|call| calls.contains(call))
        }));
        if !recovered.is_empty() {
            inserts.insert(anchor, recovered);
        }
    }
    let mut out = Vec::with_capacity(chain.len());
    let mut placed = HashSet::new();
    for position in chain {
        out.push(position);
        for extra in inserts.remove(&position).unwrap_or_default() {
            if placed.insert(extra) {
                out.push(extra);
            }
        }
    }
    out
}

/// The Messages API conversation the entries of a chain hold: user entries' messages (one
/// message where they follow each other, as [`push_message`](super::push_message) joins them),
/// the blocks of consecutive assistant entries of one answer (one `message.id`) as one message,
/// the loop's own system messages; everything else (compaction boundaries, Claude Code's informational
/// system entries, attachments, progress, its synthetic API-error answers) left out.
pub(super) fn messages(chain: &[&Map<String, Value>]) -> Vec<Value> {
    let mut out: Vec<Value> = Vec::new();
    let mut answer_id: Option<&str> = None;
    for object in chain {
        let Some(message) = object.get("message").and_then(Value::as_object) else { continue };
        match kind(object) {
            "user" => {
                answer_id = None;
                if let Some(content) =
                    message.get("content").filter(|content| content.is_string() || content.is_array())
                {
                    // The results of one round (an entry each) are one message again.
                    super::push_message(&mut out, json!({"role": "user", "content": content}));
                }
            }
            "assistant" => {
                if flag(object, "isApiErrorMessage")
                    || message.get("model").and_then(Value::as_str) == Some("<synthetic>")
                {
                    continue;
                }
                let blocks = match message.get("content") {
                    Some(Value::Array(blocks)) => blocks.clone(),
                    Some(Value::String(text)) if !text.is_empty() => vec![json!({"type": "text", "text": text})],
                    _ => continue,
                };
                let id = message_id(object);
                let joins = id.is_some() && id == answer_id;
                match out.last_mut().and_then(|last| last.get_mut("content")).and_then(Value::as_array_mut) {
                    Some(content) if joins => content.extend(blocks),
                    _ => out.push(json!({"role": "assistant", "content": blocks})),
                }
                answer_id = id;
            }
            "system" if message.get("role").and_then(Value::as_str) == Some("system") => {
                answer_id = None;
                out.push(Value::Object(message.clone()));
            }
            _ => {}
        }
    }
    out
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    fn objects(lines: &[Value]) -> Vec<Map<String, Value>> {
        lines.iter().map(|line| line.as_object().unwrap().clone()).collect()
    }

    fn entry(kind: &str, uuid: &str, parent: Option<&str>, message: Value) -> Value {
        json!({"parentUuid": parent, "isSidechain": false, "type": kind, "message": message, "uuid": uuid})
    }

    fn block(id: &str, block: Value, uuid: &str, parent: &str) -> Value {
        entry("assistant", uuid, Some(parent), json!({"id": id, "role": "assistant", "content": [block]}))
    }

    fn result(id: &str, uuid: &str, parent: &str) -> Value {
        let content = json!([{"type": "tool_result", "tool_use_id": id, "content": format!("out {id}")}]);
        entry("user", uuid, Some(parent), json!({"role": "user", "content": content}))
    }

    /// Claude Code's shape of a parallel turn: each result's parent is its own call's entry, so
    /// the walk from the end misses the first result; it is put back, and the answer is one
    /// message again.
    #[test]
    fn a_parallel_turn_claude_code_wrote_reads_back_whole() {
        let call = |id: &str| json!({"type": "tool_use", "id": id, "name": "Read", "input": {}});
        let lines = objects(&[
            entry("user", "u1", None, json!({"role": "user", "content": "read both"})),
            block("msg_1", json!({"type": "text", "text": "Reading."}), "a1", "u1"),
            block("msg_1", call("t1"), "a2", "a1"),
            block("msg_1", call("t2"), "a3", "a2"),
            result("t1", "r1", "a2"),
            result("t2", "r2", "a3"),
            block("msg_2", json!({"type": "text", "text": "Both read."}), "a4", "r2"),
        ]);
        let chain = chain(&lines, None).unwrap();
        let uuids: Vec<&str> = chain.iter().map(|object| text(object, "uuid").unwrap()).collect();
        assert_eq!(uuids, ["u1", "a1", "a2", "a3", "r1", "r2", "a4"]);
        let messages = messages(&chain);
        let roles: Vec<&str> = messages.iter().map(|message| message["role"].as_str().unwrap()).collect();
        assert_eq!(roles, ["user", "assistant", "user", "assistant"]);
        assert_eq!(messages[1]["content"].as_array().unwrap().len(), 3);
        assert_eq!(messages[2]["content"][0]["tool_use_id"], "t1");
        assert_eq!(messages[2]["content"][1]["tool_use_id"], "t2");
        assert_eq!(messages[3]["content"][0]["text"], "Both read.");
    }

    /// Any lines at all: no panic, and what loads (repaired) is a conversation the API takes.
    #[test]
    fn any_entries_load_without_a_panic() {
        let mut seed: u64 = 0x2545_F491_4F6C_DD1D;
        let mut below = |n: usize| {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            (seed % n as u64) as usize
        };
        let mut loaded = 0;
        let uuids = ["u0", "u1", "u2", "u3", "u4", "u5", "u6", "u7", "u8", "u9"];
        let kinds = ["user", "user", "user", "assistant", "assistant", "system", "progress", "summary"];
        let contents = [
            json!("text"),
            json!([{"type": "text", "text": "more"}, {"type": "tool_use", "id": "t1", "name": "Bash", "input": {}}]),
            json!([{"type": "text", "text": "t"}]),
            json!([{"type": "tool_use", "id": "t1", "name": "Bash", "input": {}}]),
            json!([{"type": "tool_result", "tool_use_id": "t1", "content": "r"}]),
            json!([{"type": "tool_use", "id": "t2", "name": "Read", "input": {}}]),
            json!(7),
            json!(null),
        ];
        for _ in 0..2000 {
            let mut lines = Vec::new();
            for index in 0..below(10) {
                let mut entry = Map::new();
                let kind = kinds[below(kinds.len())];
                entry.insert("type".into(), json!(kind));
                // Mostly as a writer chains them: each entry names the one before.
                if below(8) > 0 {
                    entry.insert("uuid".into(), json!(uuids[if below(6) > 0 { index } else { below(10) }]));
                }
                let parent = match (index, below(6)) {
                    (0, _) | (_, 0) => Value::Null,
                    (_, 1) => json!(uuids[below(10)]),
                    _ => json!(uuids[index - 1]),
                };
                entry.insert("parentUuid".into(), parent);
                let role = if below(6) > 0 { kind } else { ["user", "assistant", "system", "tool"][below(4)] };
                let id = ["msg_1", "msg_2"][below(2)];
                let content = contents[below(contents.len())].clone();
                let message = match below(8) {
                    0 => json!("not an object"),
                    _ => json!({"role": role, "id": id, "content": content}),
                };
                entry.insert("message".into(), message);
                entry.insert("isSidechain".into(), json!(below(10) == 0));
                lines.push(entry);
            }
            let at = (below(4) == 0).then(|| uuids[below(uuids.len())]);
            let Ok(chain) = chain(&lines, at) else { continue };
            let repaired = super::super::repair(&messages(&chain));
            loaded += usize::from(!repaired.messages.is_empty());
            let mut sent = repaired.messages;
            super::super::push_message(&mut sent, json!({"role": "user", "content": [{"type": "text", "text": "go"}]}));
            let mut problems = agent_tools_testkit::fake_api::message_problems(&Value::Array(sent.clone()));
            problems.retain(|problem| !problem.ends_with("a second assistant message in a row"));
            assert!(problems.is_empty(), "{problems:?} in {sent:#?} from {lines:#?}");
        }
        assert!(loaded > 300, "the cases load conversations: {loaded}");
    }

    #[test]
    fn the_chain_starts_at_the_last_compaction_and_can_stop_at_a_message() {
        let lines = objects(&[
            entry("user", "u1", None, json!({"role": "user", "content": "old"})),
            json!({"parentUuid": null, "logicalParentUuid": "u1", "type": "system", "subtype": "compact_boundary", "uuid": "b1"}),
            json!({"parentUuid": "b1", "type": "user", "isCompactSummary": true, "uuid": "s1",
                   "message": {"role": "user", "content": "summary"}}),
            block("msg_9", json!({"type": "text", "text": "ok"}), "a1", "s1"),
            json!({"type": "custom-title", "customTitle": "t", "sessionId": "x"}),
        ]);
        let all = messages(&chain(&lines, None).unwrap());
        assert_eq!(
            all,
            [
                json!({"role": "user", "content": "summary"}),
                json!({"role": "assistant", "content": [{"type": "text", "text": "ok"}]})
            ]
        );
        let cut = messages(&chain(&lines, Some("s1")).unwrap());
        assert_eq!(cut, [json!({"role": "user", "content": "summary"})]);
        assert_eq!(chain(&lines, Some("nope")).unwrap_err(), "nope");
        assert_eq!(tip(&lines).as_deref(), Some("a1"));
        // A loop in the links ends the walk.
        let looped = objects(&[
            entry("user", "x", Some("y"), json!({"role": "user", "content": "x"})),
            entry("user", "y", Some("x"), json!({"role": "user", "content": "y"})),
        ]);
        assert_eq!(chain(&looped, None).unwrap().len(), 2);
    }
}
