//! The transcript's tests: the lines written, read back, repaired, cut, forked and found, and a
//! session Claude Code wrote.

#![allow(clippy::unwrap_used)]

use std::io::Write as _;

use agent_tools_api::{AssistantMessage, MessageBuilder, StreamEvent};

use super::*;

/// A session written by Claude Code (2.0.x) in its exact layout and line format, with our own
/// text: a prompt, an answer of two blocks (text, a Read call) sharing `message.id`, the result
/// with `toolUseResult`, a `turn_duration` system entry, and a turn of two calls at once whose
/// results each hang from their own call's entry (the fork Claude Code's parallel calls make).
pub(crate) const CLAUDE_CODE_SESSION: &str = include_str!("../../tests/fixtures/claude-code-session.jsonl");
const CLAUDE_CODE_SESSION_ID: &str = "5f3c2a9e-1b7d-4c8e-9a0f-2d6b8e4c1a37";

fn header(id: &str) -> Header {
    Header {
        session_id: id.to_owned(),
        cwd: PathBuf::from("/work/p"),
        version: "9.9.9".to_owned(),
        git_branch: Some("main".to_owned()),
        entrypoint: "sdk-py".to_owned(),
        agent_id: None,
    }
}

/// The answer a stream of `message` (the non-streaming API's shape) builds.
fn answer(message: Value) -> AssistantMessage {
    let mut builder = MessageBuilder::new();
    for event in StreamEvent::from_message(&message) {
        builder.apply(&event).unwrap();
    }
    builder.finish()
}

fn api_message(id: &str, content: Value, stop: &str) -> Value {
    json!({"id": id, "type": "message", "role": "assistant", "model": "claude-test", "content": content,
           "stop_reason": stop, "stop_sequence": null, "usage": {"input_tokens": 10, "output_tokens": 5}})
}

fn lines(path: &Path) -> Vec<Value> {
    std::fs::read_to_string(path).unwrap().lines().map(|line| serde_json::from_str(line).unwrap()).collect()
}

fn user(content: Value) -> Value {
    json!({"role": "user", "content": content})
}

fn text(text: &str) -> Value {
    json!({"type": "text", "text": text})
}

fn call(id: &str, name: &str) -> Value {
    json!({"type": "tool_use", "id": id, "name": name, "input": {"x": 1}})
}

fn result(id: &str, text: &str) -> Value {
    json!({"tool_use_id": id, "type": "tool_result", "content": text})
}

#[test]
fn a_conversation_is_written_as_claude_code_writes_it_and_reads_back() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("s1.jsonl");
    let transcript = Transcript::open(&path, header("s1")).unwrap();
    let prompt = user(json!([text("<system-reminder>\nmemory\n</system-reminder>\n"), text("Read a.txt")]));
    transcript.message(&prompt).unwrap();
    let context = json!({"role": "system", "content": [text("Working directory: /work/p")]});
    transcript.message(&context).unwrap();
    let first = answer(api_message("msg_1", json!([text("Reading."), call("t1", "Read")]), "tool_use"));
    transcript.answer(&first).unwrap();
    transcript.note_result("t1", json!({"type": "text", "file": {"filePath": "/work/p/a.txt"}}));
    let results = user(json!([result("t1", "hello"), text("Tool loaded.")]));
    transcript.message(&results).unwrap();
    let second = answer(api_message("msg_2", json!([text("It says hello.")]), "end_turn"));
    transcript.answer(&second).unwrap();

    let saved = lines(&path);
    let kinds: Vec<(&str, bool)> =
        saved.iter().map(|e| (e["type"].as_str().unwrap(), e["isMeta"] == json!(true))).collect();
    assert_eq!(
        kinds,
        [
            ("user", true),
            ("user", false),
            ("system", false),
            ("assistant", false),
            ("assistant", false),
            ("user", false),
            ("user", false),
            ("assistant", false)
        ]
    );
    // Chained one after another, from null; every entry carries the session's fields.
    assert_eq!(saved[0]["parentUuid"], Value::Null);
    for pair in saved.windows(2) {
        assert_eq!(pair[1]["parentUuid"], pair[0]["uuid"]);
    }
    for entry in &saved {
        assert_eq!(entry["sessionId"], "s1");
        assert_eq!(entry["cwd"], "/work/p");
        assert_eq!(entry["version"], "9.9.9");
        assert_eq!(entry["gitBranch"], "main");
        assert_eq!(entry["entrypoint"], "sdk-py");
        assert_eq!(entry["userType"], "external");
        assert_eq!(entry["isSidechain"], false);
        assert!(entry.get("agentId").is_none());
        let stamp = entry["timestamp"].as_str().unwrap();
        assert!(
            chrono::DateTime::parse_from_rfc3339(stamp).is_ok() && stamp.ends_with('Z') && stamp.len() == 24,
            "{stamp}"
        );
        assert_eq!(uuid::Uuid::parse_str(entry["uuid"].as_str().unwrap()).unwrap().get_version_num(), 4);
    }
    assert_eq!(saved[0]["message"], user(json!([text("<system-reminder>\nmemory\n</system-reminder>\n")])));
    assert_eq!(saved[1]["message"], user(json!([text("Read a.txt")])));
    assert_eq!(saved[2]["subtype"], "informational");
    assert_eq!(saved[2]["content"], "Working directory: /work/p");
    assert_eq!(saved[2]["message"], context);
    // One entry per block of the answer, the API message around each block.
    for (entry, block, index) in [(&saved[3], text("Reading."), 0), (&saved[4], call("t1", "Read"), 1)] {
        assert_eq!(
            entry["message"],
            json!({"id": "msg_1", "type": "message", "role": "assistant", "model": "claude-test", "content": [block],
                   "stop_reason": "tool_use", "stop_sequence": null,
                   "usage": {"input_tokens": 10, "output_tokens": 5, "cache_creation_input_tokens": 0, "cache_read_input_tokens": 0}})
        );
        assert_eq!(entry["uuid"], transcript.block_uuid(Some("msg_1"), index), "the streamed event's uuid");
    }
    // The result: an entry of its own, with the tool's output object and its caller.
    assert_eq!(saved[5]["message"], user(json!([result("t1", "hello")])));
    assert_eq!(saved[5]["toolUseResult"], json!({"type": "text", "file": {"filePath": "/work/p/a.txt"}}));
    assert_eq!(saved[5]["sourceToolAssistantUUID"], saved[4]["uuid"]);
    assert_eq!(saved[5]["uuid"], transcript.result_uuid("t1"));
    assert_eq!(saved[6]["message"], user(json!([text("Tool loaded.")])));

    let loaded = load_with_notices(&path).unwrap();
    assert_eq!(
        loaded.messages,
        [
            json!({"role": "user", "content": [text("<system-reminder>\nmemory\n</system-reminder>\n"), text("Read a.txt")]}),
            context,
            json!({"role": "assistant", "content": [text("Reading."), call("t1", "Read")]}),
            results,
            json!({"role": "assistant", "content": [text("It says hello.")]}),
        ]
    );
    assert!(loaded.notices.is_empty());
    assert_eq!(loaded.leaf.as_ref(), saved[7]["uuid"].as_str().map(str::to_owned).as_ref());

    // Reopened (a resume), new entries continue from the last one.
    let again = Transcript::open(&path, header("s1")).unwrap();
    again.message(&user(json!("next"))).unwrap();
    let saved = lines(&path);
    assert_eq!(saved[8]["parentUuid"], saved[7]["uuid"]);
    assert_eq!(saved[8]["message"], user(json!("next")));
}

#[test]
fn a_compaction_is_a_boundary_and_a_summary_and_loading_starts_there() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("s.jsonl");
    let transcript = Transcript::open(&path, header("s")).unwrap();
    transcript.message(&user(json!("old question"))).unwrap();
    transcript.answer(&answer(api_message("msg_1", json!([text("old answer")]), "end_turn"))).unwrap();
    transcript.compacted("auto", 180_000).unwrap();
    transcript.message(&user(json!([text("This session continues… summary")]))).unwrap();
    transcript.message(&json!({"role": "system", "content": [text("environment")]})).unwrap();
    transcript.answer(&answer(api_message("msg_2", json!([text("carrying on")]), "end_turn"))).unwrap();
    let saved = lines(&path);
    let boundary = &saved[2];
    assert_eq!(boundary["type"], "system");
    assert_eq!(boundary["subtype"], "compact_boundary");
    assert_eq!(boundary["parentUuid"], Value::Null);
    assert_eq!(boundary["logicalParentUuid"], saved[1]["uuid"]);
    assert_eq!(boundary["compactMetadata"], json!({"trigger": "auto", "preTokens": 180_000}));
    assert_eq!(saved[3]["parentUuid"], boundary["uuid"]);
    assert_eq!(saved[3]["isCompactSummary"], true);
    assert_eq!(saved[3]["isVisibleInTranscriptOnly"], true);
    assert!(saved[4].get("isCompactSummary").is_none());
    let messages = load(&path).unwrap();
    assert_eq!(
        messages,
        [
            user(json!([text("This session continues… summary")])),
            json!({"role": "system", "content": [text("environment")]}),
            json!({"role": "assistant", "content": [text("carrying on")]}),
        ]
    );
}

#[test]
fn after_a_torn_line_the_next_record_starts_on_its_own_line_and_the_torn_one_is_noticed() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("s.jsonl");
    let first = Transcript::open(&path, header("s")).unwrap();
    first.message(&user(json!("one"))).unwrap();
    // A kill in the middle of a line, cut inside a UTF-8 character (é is two bytes).
    let whole = json!({"type": "user", "message": user(json!("café au lait")), "uuid": "x"}).to_string();
    let cut = whole.find('é').unwrap() + 1;
    std::fs::OpenOptions::new().append(true).open(&path).unwrap().write_all(&whole.as_bytes()[..cut]).unwrap();
    let torn = load_with_notices(&path).unwrap();
    assert_eq!(torn.messages, [user(json!("one"))]);
    assert!(torn.notices.is_empty(), "a torn last line is expected after a kill: {:?}", torn.notices);

    // The resumed run opens the transcript again and appends: its records stay whole.
    let second = Transcript::open(&path, header("s")).unwrap();
    second.answer(&answer(api_message("msg_1", json!([text("two")]), "end_turn"))).unwrap();
    second.message(&user(json!("three"))).unwrap();
    let loaded = load_with_notices(&path).unwrap();
    assert_eq!(loaded.messages.len(), 3, "{:?}", loaded.messages);
    assert_eq!(loaded.messages[2]["content"], "three");
    assert_eq!(loaded.notices.len(), 1, "{:?}", loaded.notices);
    assert!(loaded.notices[0].contains(": line 2 is not whole"), "{}", loaded.notices[0]);
    let bytes = std::fs::read(&path).unwrap();
    let text = String::from_utf8_lossy(&bytes);
    assert_eq!(text.lines().count(), 4, "one, the torn line, two, three: {text}");
    assert!(text.ends_with("}\n"), "{text}");
}

#[test]
fn a_kill_during_a_call_is_repaired_on_load() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("s.jsonl");
    let transcript = Transcript::open(&path, header("s")).unwrap();
    transcript.message(&user(json!("run both"))).unwrap();
    transcript
        .answer(&answer(api_message("msg_1", json!([call("t1", "Bash"), call("t2", "Read")]), "tool_use")))
        .unwrap();
    // Killed while the calls ran: the next run's prompt follows the calls.
    let resumed = Transcript::open(&path, header("s")).unwrap();
    resumed.message(&user(json!([text("carry on")]))).unwrap();
    let loaded = load_with_notices(&path).unwrap();
    let interrupted =
        |id: &str| json!({"type": "tool_result", "content": INTERRUPTED_BY_USER, "is_error": true, "tool_use_id": id});
    assert_eq!(loaded.messages[2], user(json!([interrupted("t1"), interrupted("t2"), text("carry on")])));
    assert_eq!(
        loaded.notices,
        [format!(
            "The session stopped during 2 tool calls (Bash, Read) before their results were saved; they are answered \"{INTERRUPTED_BY_USER}\"."
        )]
    );
}

#[test]
fn resuming_at_a_message_cuts_after_it_and_goes_on_in_a_branch() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("s.jsonl");
    let transcript = Transcript::open(&path, header("s")).unwrap();
    transcript.message(&user(json!("first"))).unwrap();
    transcript.answer(&answer(api_message("msg_1", json!([text("one")]), "end_turn"))).unwrap();
    transcript.message(&user(json!("second"))).unwrap();
    transcript.answer(&answer(api_message("msg_2", json!([text("two")]), "end_turn"))).unwrap();
    let at = lines(&path)[1]["uuid"].as_str().unwrap().to_owned();

    let cut = load_at(&path, Some(&at)).unwrap();
    assert_eq!(cut.messages, [user(json!("first")), json!({"role": "assistant", "content": [text("one")]})]);
    assert_eq!(cut.leaf.as_deref(), Some(at.as_str()));
    assert!(
        matches!(load_at(&path, Some("no-such-uuid")), Err(TranscriptError::MessageNotFound(uuid)) if uuid == "no-such-uuid")
    );

    let branch = Transcript::open(&path, header("s")).unwrap();
    branch.continue_from(&at);
    branch.message(&user(json!("another second"))).unwrap();
    let saved = lines(&path);
    assert_eq!(saved.len(), 5, "the old branch stays in the file");
    assert_eq!(saved[4]["parentUuid"], at.as_str());
    assert_eq!(
        load(&path).unwrap(),
        [user(json!("first")), json!({"role": "assistant", "content": [text("one")]}), user(json!("another second"))]
    );
}

#[test]
fn a_fork_copies_the_history_into_a_new_session_whole() {
    let dir = tempfile::tempdir().unwrap();
    let source = dir.path().join("old.jsonl");
    let transcript = Transcript::open(&source, header("old")).unwrap();
    transcript.message(&user(json!("first"))).unwrap();
    transcript.answer(&answer(api_message("msg_1", json!([text("one")]), "end_turn"))).unwrap();
    transcript.message(&user(json!("second"))).unwrap();
    let original = lines(&source);

    let dest = dir.path().join("sub/new.jsonl");
    let loaded = copy_into(&source, &dest, &header("new"), None).unwrap();
    assert_eq!(loaded.messages, load(&source).unwrap());
    let copied = lines(&dest);
    assert_eq!(copied.len(), 3);
    for (copy, from) in copied.iter().zip(&original) {
        assert_eq!(copy["sessionId"], "new");
        assert_eq!(copy["uuid"], from["uuid"]);
        assert_eq!(copy["parentUuid"], from["parentUuid"]);
        assert_eq!(copy["forkedFrom"], json!({"sessionId": "old", "messageUuid": from["uuid"]}));
        assert_eq!(copy["message"], from["message"]);
    }
    assert_eq!(loaded.leaf.as_deref(), original[2]["uuid"].as_str());
    assert_eq!(std::fs::read_dir(dir.path().join("sub")).unwrap().count(), 1, "nothing left aside");
    assert!(matches!(copy_into(&source, &dest, &header("new"), None), Err(TranscriptError::InUse(id)) if id == "new"));

    // Cut at a message.
    let at = original[1]["uuid"].as_str().unwrap();
    let cut = copy_into(&source, &dir.path().join("cut.jsonl"), &header("cut"), Some(at)).unwrap();
    assert_eq!(cut.messages.len(), 2);
    assert_eq!(lines(&dir.path().join("cut.jsonl")).len(), 2);
}

/// The other process of [`two_processes_appending_to_one_transcript_never_interleave_lines`]:
/// when started by it, appends large records to the transcript it names.
#[test]
fn appending_writer() {
    let Some(path) = std::env::var_os("AGENT_TOOLS_TRANSCRIPT_WRITER") else { return };
    let writer = std::env::var("AGENT_TOOLS_TRANSCRIPT_WRITER_NAME").unwrap();
    let transcript = Transcript::open(Path::new(&path), header("s")).unwrap();
    for n in 0..200 {
        // 20 kB records: far beyond PIPE_BUF, each one `write`.
        let text = format!("{writer} {n} {}", writer.repeat(20_000 / writer.len()));
        transcript.message(&user(json!(text))).unwrap();
    }
}

#[test]
fn two_processes_appending_to_one_transcript_never_interleave_lines() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("s.jsonl");
    let exe = std::env::current_exe().unwrap();
    let writers: Vec<std::process::Child> = ["x", "y"]
        .iter()
        .map(|name| {
            std::process::Command::new(&exe)
                .args(["--exact", "transcript::tests::appending_writer", "--test-threads=1", "--nocapture"])
                .env("AGENT_TOOLS_TRANSCRIPT_WRITER", &path)
                .env("AGENT_TOOLS_TRANSCRIPT_WRITER_NAME", name)
                .stdout(std::process::Stdio::null())
                .spawn()
                .unwrap()
        })
        .collect();
    for mut writer in writers {
        assert!(writer.wait().unwrap().success());
    }
    let bytes = std::fs::read(&path).unwrap();
    let (objects, torn) = reader::parse_lines(&bytes);
    assert!(torn.is_empty(), "torn lines {torn:?}");
    assert_eq!(objects.len(), 400);
    for name in ["x", "y"] {
        let texts: Vec<&str> = objects
            .iter()
            .filter_map(|entry| entry.get("message")?.get("content")?.as_str())
            .filter(|text| text.starts_with(name))
            .collect();
        assert_eq!(texts.len(), 200, "{name}");
        for (n, text) in texts.iter().enumerate() {
            assert_eq!(
                *text,
                format!("{name} {n} {}", name.repeat(20_000)),
                "{name}'s record {n} is whole and in order"
            );
        }
    }
}

fn env_at(home: &Path) -> Environment {
    Environment::empty().with("HOME", home).with("XDG_STATE_HOME", home.join("state"))
}

#[test]
fn sessions_are_found_by_id_and_by_directory_claude_codes_and_the_first_format_too() {
    let home = tempfile::tempdir().unwrap();
    let home = home.path().canonicalize().unwrap();
    let env = env_at(&home);
    let project = home.join("work/papaya");
    std::fs::create_dir_all(&project).unwrap();
    let projects = projects_dir(&env).unwrap();
    assert_eq!(projects, home.join(".claude/projects"));
    assert!(matches!(latest(&env, &project), Err(TranscriptError::NothingToContinue(_))));

    // A session Claude Code wrote, found by id from another directory too.
    let folder = project_dir(&projects, &project);
    std::fs::create_dir_all(&folder).unwrap();
    let claude = folder.join(format!("{CLAUDE_CODE_SESSION_ID}.jsonl"));
    std::fs::write(&claude, CLAUDE_CODE_SESSION).unwrap();
    let found = find(&env, &project, CLAUDE_CODE_SESSION_ID).unwrap();
    assert_eq!(found, Found { id: CLAUDE_CODE_SESSION_ID.to_owned(), path: claude.clone(), legacy: false });
    assert_eq!(find(&env, &home, CLAUDE_CODE_SESSION_ID).unwrap().path, claude);
    assert_eq!(latest(&env, &project).unwrap().path, claude);
    assert!(matches!(find(&env, &project, "../x"), Err(TranscriptError::NotFound(_))));
    assert!(matches!(find(&env, &project, "nope"), Err(TranscriptError::NotFound(_))));

    // A first-format session: found, and the latest when it changed last.
    let old = env.sessions_dir().join("old-1");
    std::fs::create_dir_all(&old).unwrap();
    std::fs::write(
        old.join(LEGACY_FILE_NAME),
        format!(
            "{}\n{}\n{}\n",
            json!({"type": "session", "session_id": "old-1", "cwd": project, "model": "m", "version": "0.1.0"}),
            json!({"type": "message", "message": user(json!("legacy prompt"))}),
            json!({"type": "message", "message": {"role": "assistant", "content": [text("legacy answer")]}}),
        ),
    )
    .unwrap();
    let hour = std::time::Duration::from_secs(3600);
    let now = std::time::SystemTime::now();
    touch(&claude, now - hour * 2);
    touch(&old.join(LEGACY_FILE_NAME), now - hour);
    let legacy = find(&env, &project, "old-1").unwrap();
    assert!(legacy.legacy);
    assert_eq!(latest(&env, &project).unwrap(), legacy);
    assert_eq!(load(&legacy.path).unwrap().len(), 2);

    // Resuming it goes on in Claude Code's layout, the first-format file left as it was.
    let before = std::fs::read(&legacy.path).unwrap();
    let dest = session_file(&projects, &project, "old-1");
    let mut new_header = header("old-1");
    new_header.cwd.clone_from(&project);
    let imported = copy_into(&legacy.path, &dest, &new_header, None).unwrap();
    assert_eq!(imported.messages, load(&legacy.path).unwrap());
    assert_eq!(std::fs::read(&legacy.path).unwrap(), before);
    assert_eq!(load(&dest).unwrap(), imported.messages);
    assert_eq!(find(&env, &project, "old-1").unwrap(), Found { id: "old-1".into(), path: dest.clone(), legacy: false });

    // A sub-agent's transcript at the top of the folder is not a session to continue.
    let side = folder.join("agent-a1.jsonl");
    let sidechain = Transcript::open(&side, header("x").sidechain(Some("a1"))).unwrap();
    sidechain.message(&user(json!("sub task"))).unwrap();
    assert_eq!(lines(&side)[0]["isSidechain"], true);
    assert_eq!(lines(&side)[0]["agentId"], "a1");
    touch(&side, now + hour);
    assert_eq!(latest(&env, &project).unwrap().path, dest);
}

/// Sets the file's change time.
fn touch(path: &Path, time: std::time::SystemTime) {
    std::fs::File::options().write(true).open(path).unwrap().set_modified(time).unwrap();
}

#[test]
fn the_claude_code_session_loads_with_its_parallel_turn_whole() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("s.jsonl");
    std::fs::write(&path, CLAUDE_CODE_SESSION).unwrap();
    let loaded = load_with_notices(&path).unwrap();
    assert!(loaded.notices.is_empty(), "{:?}", loaded.notices);
    let shape: Vec<(String, usize)> = loaded
        .messages
        .iter()
        .map(|m| (m["role"].as_str().unwrap().to_owned(), m["content"].as_array().map_or(1, Vec::len)))
        .collect();
    let expected = [
        ("user", 1),
        ("assistant", 2),
        ("user", 1),
        ("assistant", 1),
        ("user", 1),
        ("assistant", 2),
        ("user", 2),
        ("assistant", 1),
    ];
    assert_eq!(shape, expected.map(|(role, n)| (role.to_owned(), n)));
    assert_eq!(loaded.messages[0]["content"], "What does notes.txt say? Keep the word PAPAYA in mind for later.");
    assert_eq!(loaded.messages[6]["content"][0]["tool_use_id"], "toolu_01FixtureGlobMd000002");
    assert_eq!(loaded.messages[6]["content"][1]["tool_use_id"], "toolu_01FixtureGlobTxt00003");
    assert_eq!(loaded.leaf.as_deref(), Some("0b6c1a3e-7a52-4d1f-8a2e-61c9d7e4f012"));
    let mut sent = loaded.messages;
    push_message(&mut sent, user(json!([text("And the fruit?")])));
    let problems = agent_tools_testkit::fake_api::message_problems(&Value::Array(sent));
    assert!(problems.is_empty(), "the API takes it as the next request: {problems:?}");
}

#[test]
fn a_subagents_transcript_goes_beside_the_sessions_and_its_output_file_links_to_it() {
    let dir = tempfile::tempdir().unwrap();
    let main = dir.path().join("projects/-p/s1.jsonl");
    let output = dir.path().join("tasks/a1b2c3d4e.output");
    std::fs::create_dir_all(output.parent().unwrap()).unwrap();
    std::fs::write(&output, "").unwrap();
    let meta = json!({"agentType": "Explore", "description": "look", "toolUseId": "toolu_9", "parentAgentId": null});
    let file = subagent_file(Some(&main), "a1b2c3d4e", &output, &meta);
    assert_eq!(file, dir.path().join("projects/-p/s1/subagents/agent-a1b2c3d4e.jsonl"));
    let sidecar = dir.path().join("projects/-p/s1/subagents/agent-a1b2c3d4e.meta.json");
    assert_eq!(serde_json::from_str::<Value>(&std::fs::read_to_string(sidecar).unwrap()).unwrap(), meta);
    #[cfg(unix)]
    assert_eq!(std::fs::read_link(&output).unwrap(), file);
    let transcript = Transcript::open(&file, header("s1").sidechain(Some("a1b2c3d4e"))).unwrap();
    transcript.message(&user(json!("SUB: look around"))).unwrap();
    assert!(std::fs::read_to_string(&output).unwrap().contains("SUB: look around"), "read through the link");
    // Without a session transcript, the output file is the transcript.
    assert_eq!(subagent_file(None, "a2", &output, &meta), output);
    assert_eq!(subagent_file(Some(&output), "a2", &output, &meta), output);
}
