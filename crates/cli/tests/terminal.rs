//! The permission question on a real terminal: `agent-tools call` runs on a pseudo-terminal (so
//! it can open `/dev/tty`) and a test types the answers.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use std::path::Path;

use common::Terminal;

/// `agent-tools --cwd CWD ARGS…` in `cwd` on a terminal.
fn start(cwd: &Path, args: &[&str]) -> Terminal {
    let mut command = common::program(cwd);
    command.arg("--cwd");
    command.arg(cwd);
    command.args(args);
    Terminal::start(command)
}

fn write_call(dir: &Path) -> String {
    format!(r#"{{"file_path": "{}", "content": "hello\n"}}"#, dir.join("new.txt").display())
}

#[test]
fn no_then_a_reason_on_the_next_line_reaches_the_model() {
    let dir = tempfile::tempdir().unwrap();
    let mut session = start(dir.path(), &["--no-settings", "call", "Write", &write_call(dir.path())]);
    session.expect_shown("Write wants to run");
    session.expect_shown("Allow? [y] once, [a] always this session, [n] no");
    session.type_line("n");
    session.expect_shown("Reason for the model (optional, Enter to skip): ");
    session.type_line("write it under docs/ instead");
    let (code, screen) = session.finish();
    assert_eq!(code, 1, "a refused call is an error result:\n{screen}");
    assert!(screen.contains("The user said: write it under docs/ instead"), "{screen}");
    assert!(!dir.path().join("new.txt").exists());
}

#[test]
fn a_reason_on_the_same_line_and_an_unclear_answer() {
    let dir = tempfile::tempdir().unwrap();
    let mut session = start(dir.path(), &["--no-settings", "call", "Write", &write_call(dir.path())]);
    session.expect_shown("Allow? [y]");
    session.type_line("maybe");
    session.expect_shown("Please answer y, a or n.");
    session.type_line("no not now");
    let (code, screen) = session.finish();
    assert_eq!(code, 1, "{screen}");
    assert!(screen.contains("The user said: not now"), "{screen}");
    assert!(!screen.contains("Reason for the model"), "a reason was already given:\n{screen}");
}

#[test]
fn yes_runs_the_call() {
    let dir = tempfile::tempdir().unwrap();
    let mut session = start(dir.path(), &["--no-settings", "call", "Write", &write_call(dir.path())]);
    session.expect_shown("Allow? [y]");
    session.type_line("y");
    let (code, screen) = session.finish();
    assert_eq!(code, 0, "{screen}");
    assert!(screen.contains("File created successfully"), "{screen}");
    assert_eq!(std::fs::read_to_string(dir.path().join("new.txt")).unwrap(), "hello\n");
}

/// A folder with an allow rule of its own for Write: the first use in a terminal asks whether to
/// trust it.
fn untrusted_project() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(dir.path().join(".claude")).unwrap();
    std::fs::write(dir.path().join(".claude/settings.json"), r#"{"permissions": {"allow": ["Write"]}}"#).unwrap();
    dir
}

#[test]
fn trusting_a_folder_on_first_use_applies_its_rules_and_is_remembered() {
    let dir = untrusted_project();
    let root = dir.path().canonicalize().unwrap();
    let mut session = start(&root, &["call", "Write", &write_call(&root)]);
    session.expect_shown(&format!("{} is a folder you have not trusted yet.", root.display()));
    session.expect_shown(
        "Its own configuration can run programs or allow tool calls: 1 allow rule in .claude/settings.json.",
    );
    session.expect_shown("Trust this folder? [y] yes, remember it; [n] no, run without its configuration: ");
    session.type_line("y");
    let (code, screen) = session.finish();
    assert_eq!(code, 0, "the project's rule allowed the write:\n{screen}");
    assert!(!screen.contains("Allow? [y]"), "no permission question:\n{screen}");
    assert!(root.join("new.txt").exists());
    let record = std::fs::read_to_string(root.join(".home/.config/agent-tools/trusted-folders.json")).unwrap();
    assert!(record.contains(root.to_str().unwrap()), "{record}");
    // Remembered: no question the next time.
    std::fs::remove_file(root.join("new.txt")).unwrap();
    let session = start(&root, &["call", "Write", &write_call(&root)]);
    let (code, screen) = session.finish();
    assert_eq!(code, 0, "{screen}");
    assert!(!screen.contains("not trusted yet"), "{screen}");
}

#[test]
fn declining_trust_runs_without_the_folders_rules() {
    let dir = untrusted_project();
    let root = dir.path().canonicalize().unwrap();
    let mut session = start(&root, &["call", "Write", &write_call(&root)]);
    session.expect_shown("Trust this folder? [y]");
    session.type_line("n");
    // The project's allow rule is left out, so the write itself is asked about.
    session.expect_shown("is not a trusted folder, so its own configuration is not used");
    session.expect_shown("Allow? [y] once");
    session.type_line("n");
    session.expect_shown("Reason for the model");
    session.type_line("");
    let (code, screen) = session.finish();
    assert_eq!(code, 1, "{screen}");
    assert!(!root.join("new.txt").exists());
    assert!(!root.join(".home/.config/agent-tools/trusted-folders.json").exists(), "nothing remembered");
}

#[test]
fn exit_plan_mode_shows_the_plan_and_yes_restores_the_earlier_mode() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().canonicalize().unwrap();
    let turn = format!(
        r#"[
        {{"type": "tool_use", "id": "toolu_1", "name": "EnterPlanMode", "input": {{}}}},
        {{"type": "tool_use", "id": "toolu_2", "name": "Write", "input": {{"file_path": "{0}/a.txt", "content": "a\n"}}}},
        {{"type": "tool_use", "id": "toolu_3", "name": "ExitPlanMode", "input": {{"plan": "PLAN-LINE-ONE\nPLAN-LINE-TWO\n"}}}},
        {{"type": "tool_use", "id": "toolu_4", "name": "Write", "input": {{"file_path": "{0}/b.txt", "content": "b\n"}}}}
    ]"#,
        root.display()
    );
    std::fs::write(root.join("turn.json"), turn).unwrap();
    let mut session = start(&root, &["--no-settings", "--permission-mode", "acceptEdits", "run", "turn.json"]);
    session.expect_shown("ExitPlanMode wants to run");
    session.expect_shown("Exit plan mode?");
    session.expect_shown("PLAN-LINE-ONE");
    session.expect_shown("PLAN-LINE-TWO");
    session.expect_shown("Allow? [y]");
    session.type_line("y");
    let (code, screen) = session.finish();
    assert_eq!(code, 0, "{screen}");
    assert!(screen.contains("while in plan mode"), "the first Write was refused:\n{screen}");
    assert!(screen.contains("## Approved Plan:"), "{screen}");
    assert!(!root.join("a.txt").exists());
    // Back in acceptEdits: the last Write ran without another question.
    assert_eq!(std::fs::read_to_string(root.join("b.txt")).unwrap(), "b\n");
    assert_eq!(screen.matches("wants to run").count(), 1, "{screen}");
}

fn questions_call() -> &'static str {
    r#"{"questions": [
        {"question": "Which database?", "header": "Database", "options": [
            {"label": "Postgres", "description": "The server we run"},
            {"label": "SQLite", "description": "A file, no server"}]},
        {"question": "Which features?", "header": "Features", "multiSelect": true, "options": [
            {"label": "Auth", "description": "Log-in"}, {"label": "Search", "description": "Full text"},
            {"label": "Export", "description": "CSV files"}]}
    ]}"#
}

#[test]
fn ask_user_question_is_answered_by_number_and_in_free_text() {
    let dir = tempfile::tempdir().unwrap();
    // Bypass mode: the questions are still put to the user.
    let args = ["--no-settings", "--permission-mode", "bypassPermissions", "call", "AskUserQuestion", questions_call()];
    let mut session = start(dir.path(), &args);
    session.expect_shown("[Database] Which database?");
    session.expect_shown("2. SQLite — A file, no server");
    session.expect_shown("3. Other (type your own answer)");
    session.expect_shown("Your answer (a number, or your own words): ");
    session.type_line("5");
    session.expect_shown("Please answer with one number from 1 to 3, or type your own answer.");
    session.type_line("2");
    session.expect_shown("[Features] Which features?");
    session.expect_shown("Your answer (numbers separated by commas, e.g. 1,3, or your own words): ");
    session.type_line("auth and an audit log");
    let (code, screen) = session.finish();
    assert_eq!(code, 0, "{screen}");
    assert!(
        screen.contains(
            "User has answered your questions: \"Which database?\"=\"SQLite\", \"Which features?\"=\"auth and an audit log\". \
             You can now continue with the user's answers in mind."
        ),
        "{screen}"
    );
}

#[test]
fn ask_user_question_takes_several_numbers_and_other_and_ctrl_d_declines() {
    let dir = tempfile::tempdir().unwrap();
    let mut session = start(dir.path(), &["--no-settings", "call", "AskUserQuestion", questions_call()]);
    session.expect_shown("Your answer (a number");
    session.type_line("3");
    session.expect_shown("Your own answer: ");
    session.type_line("DuckDB");
    session.expect_shown("Your answer (numbers separated by commas");
    session.type_line("3, 1");
    let (code, screen) = session.finish();
    assert_eq!(code, 0, "{screen}");
    assert!(screen.contains("\"Which database?\"=\"DuckDB\", \"Which features?\"=\"Export, Auth\""), "{screen}");

    let mut session = start(dir.path(), &["--no-settings", "call", "AskUserQuestion", questions_call()]);
    session.expect_shown("Your answer (a number");
    session.keys("\x04");
    let (code, screen) = session.finish();
    assert_eq!(code, 1, "a declined question set is an error result:\n{screen}");
    assert!(screen.contains("The user declined this tool use"), "{screen}");
}
