//! Agent definitions from real `.md` files in temporary folders.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::fs;
use std::path::Path;

use agent_tool_agent::definitions::{
    AgentDefinition, AgentSource, MAX_FILE_BYTES, SourceKind, built_in, listing, load_dir, merge,
};
use serde_json::json;

fn write(dir: &Path, name: &str, text: &str) {
    fs::write(dir.join(name), text).unwrap();
}

fn types(defs: &[AgentDefinition]) -> Vec<&str> {
    defs.iter().map(|def| def.agent_type.as_str()).collect()
}

#[test]
fn a_valid_file_is_read_whole() {
    let dir = tempfile::tempdir().unwrap();
    let text = "---\nname: reviewer\ndescription: Reviews code for bugs\ntools: Read, Grep\nmodel: sonnet\ncolor: green\nmaxTurns: 12\n---\n\nYou review code.\n\nBe brief.\n";
    write(dir.path(), "reviewer.md", text);
    let (defs, warnings) = load_dir(dir.path(), SourceKind::Project);
    assert_eq!(warnings, Vec::<String>::new());
    assert_eq!(defs.len(), 1);
    let def = &defs[0];
    assert_eq!(def.agent_type, "reviewer");
    assert_eq!(def.when_to_use, "Reviews code for bugs");
    assert_eq!(def.tools, Some(vec!["Read".to_owned(), "Grep".to_owned()]));
    assert_eq!(def.disallowed_tools, Vec::<String>::new());
    assert_eq!(def.model.as_deref(), Some("sonnet"));
    assert_eq!(def.color.as_deref(), Some("green"));
    assert_eq!(def.max_turns, Some(12));
    assert_eq!(def.permission_mode, None);
    assert!(!def.background && !def.omit_claude_md);
    assert_eq!(def.output_schema, None);
    assert_eq!(def.system_prompt, "You review code.\n\nBe brief.");
    assert_eq!(def.source, AgentSource::Project(dir.path().join("reviewer.md")));
    assert_eq!(listing(&defs), "- reviewer: Reviews code for bugs (Tools: Read, Grep)");
}

#[test]
fn a_yaml_list_of_tools_and_disallowed_tools() {
    let dir = tempfile::tempdir().unwrap();
    write(
        dir.path(),
        "a.md",
        "---\nname: lister\ndescription: d\ntools:\n  - Read\n  - \"Bash(git log:*)\"\ndisallowedTools: [Write, Edit]\npermissionMode: plan\nbackground: true\n---\nx\n",
    );
    let (defs, warnings) = load_dir(dir.path(), SourceKind::User);
    assert_eq!(warnings, Vec::<String>::new());
    assert_eq!(defs[0].tools, Some(vec!["Read".to_owned(), "Bash(git log:*)".to_owned()]));
    assert_eq!(defs[0].disallowed_tools, ["Write", "Edit"]);
    assert_eq!(defs[0].permission_mode, Some(agent_tools_core::PermissionMode::Plan));
    assert!(defs[0].background);
    assert_eq!(defs[0].source, AgentSource::User(dir.path().join("a.md")));
}

#[test]
fn an_inline_output_schema_is_parsed_as_json() {
    let dir = tempfile::tempdir().unwrap();
    write(
        dir.path(),
        "a.md",
        "---\nname: summariser\ndescription: d\noutputSchema: {\"type\": \"object\", \"properties\": {\"summary\": {\"type\": \"string\"}}, \"required\": [\"summary\"]}\n---\nSummarise.\n",
    );
    let (defs, warnings) = load_dir(dir.path(), SourceKind::Project);
    assert_eq!(warnings, Vec::<String>::new());
    assert_eq!(
        defs[0].output_schema,
        Some(json!({"type": "object", "properties": {"summary": {"type": "string"}}, "required": ["summary"]}))
    );
}

#[test]
fn bad_files_become_warnings_naming_file_and_reason() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "1-no-name.md", "---\ndescription: d\n---\nx\n");
    write(dir.path(), "2-bad-name.md", "---\nname: my agent\ndescription: d\n---\nx\n");
    write(dir.path(), "3-bad-schema.md", "---\nname: s\ndescription: d\noutputSchema: {\"type\": object}\n---\nx\n");
    write(dir.path(), "4-array-schema.md", "---\nname: t\ndescription: d\noutputSchema: '[1, 2]'\n---\nx\n");
    write(dir.path(), "5-good.md", "---\nname: good\ndescription: d\n---\nx\n");
    let (defs, warnings) = load_dir(dir.path(), SourceKind::Project);
    assert_eq!(types(&defs), ["good"]);
    let file = |name: &str| dir.path().join(name).display().to_string();
    assert_eq!(warnings.len(), 4, "{warnings:#?}");
    assert_eq!(warnings[0], format!("{}: the frontmatter has no `name`", file("1-no-name.md")));
    assert_eq!(
        warnings[1],
        format!("{}: the name `my agent` may hold only letters, digits, `-` and `_`", file("2-bad-name.md"))
    );
    assert!(
        warnings[2].starts_with(&format!("{}: `outputSchema` is not valid JSON: ", file("3-bad-schema.md"))),
        "{}",
        warnings[2]
    );
    assert_eq!(
        warnings[3],
        format!("{}: `outputSchema` must be a JSON object (a JSON Schema), not an array", file("4-array-schema.md"))
    );
}

#[test]
fn only_md_files_are_read_in_name_order_and_not_recursively() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "b.md", "---\nname: bee\ndescription: d\n---\nx\n");
    write(dir.path(), "a.md", "---\nname: ant\ndescription: d\n---\nx\n");
    write(dir.path(), "notes.txt", "---\nname: text\ndescription: d\n---\nx\n");
    write(dir.path(), "README", "not an agent");
    fs::create_dir(dir.path().join("nested")).unwrap();
    write(&dir.path().join("nested"), "c.md", "---\nname: nested\ndescription: d\n---\nx\n");
    fs::create_dir(dir.path().join("folder.md")).unwrap();
    let (defs, warnings) = load_dir(dir.path(), SourceKind::Project);
    assert_eq!(types(&defs), ["ant", "bee"]);
    assert_eq!(warnings, Vec::<String>::new());
}

#[test]
fn an_oversized_file_is_skipped_with_a_warning() {
    let dir = tempfile::tempdir().unwrap();
    let mut text = "---\nname: big\ndescription: d\n---\n".to_owned();
    text.push_str(&"x".repeat(MAX_FILE_BYTES as usize + 1));
    write(dir.path(), "big.md", &text);
    write(dir.path(), "small.md", "---\nname: small\ndescription: d\n---\nx\n");
    let (defs, warnings) = load_dir(dir.path(), SourceKind::User);
    assert_eq!(types(&defs), ["small"]);
    assert_eq!(
        warnings,
        [format!(
            "{}: skipped: the file is {} bytes, more than the 262144 an agent file may have",
            dir.path().join("big.md").display(),
            text.len()
        )]
    );
}

#[test]
fn non_utf8_and_duplicate_types_are_warned_and_a_missing_folder_is_empty() {
    let dir = tempfile::tempdir().unwrap();
    fs::write(dir.path().join("a.md"), b"---\nname: a\xff\n---\n").unwrap();
    write(dir.path(), "b.md", "---\nname: same\ndescription: first\n---\nx\n");
    write(dir.path(), "c.md", "---\nname: same\ndescription: second\n---\nx\n");
    let (defs, warnings) = load_dir(dir.path(), SourceKind::User);
    assert_eq!(defs.len(), 1);
    assert_eq!(defs[0].when_to_use, "first");
    assert_eq!(
        warnings,
        [
            format!("{}: skipped: the file is not UTF-8 text", dir.path().join("a.md").display()),
            format!(
                "{}: skipped: another file in this folder already defines the agent `same`",
                dir.path().join("c.md").display()
            ),
        ]
    );
    assert_eq!(load_dir(&dir.path().join("absent"), SourceKind::User), (Vec::new(), Vec::new()));
}

#[test]
fn project_overrides_user_overrides_built_in() {
    let user = tempfile::tempdir().unwrap();
    let project = tempfile::tempdir().unwrap();
    write(user.path(), "explore.md", "---\nname: Explore\ndescription: the user's explorer\n---\nUser explore.\n");
    write(user.path(), "helper.md", "---\nname: helper\ndescription: the user's helper\n---\nUser helper.\n");
    write(user.path(), "mine.md", "---\nname: mine\ndescription: only the user's\n---\nMine.\n");
    write(project.path(), "helper.md", "---\nname: helper\ndescription: the project's helper\n---\nProject helper.\n");
    write(project.path(), "plan.md", "---\nname: Plan\ndescription: the project's planner\ntools: Read\n---\nPlan.\n");
    write(project.path(), "zeta.md", "---\nname: zeta\ndescription: only the project's\n---\nZeta.\n");
    let (user_defs, user_warnings) = load_dir(user.path(), SourceKind::User);
    let (project_defs, project_warnings) = load_dir(project.path(), SourceKind::Project);
    assert!(user_warnings.is_empty() && project_warnings.is_empty());
    let all = merge(vec![built_in(), user_defs, project_defs]);
    assert_eq!(types(&all), ["general-purpose", "Explore", "Plan", "helper", "mine", "zeta"]);
    assert_eq!(all[0].source, AgentSource::BuiltIn);
    assert_eq!(all[1].when_to_use, "the user's explorer");
    assert_eq!(all[1].source, AgentSource::User(user.path().join("explore.md")));
    assert_eq!(all[2].when_to_use, "the project's planner");
    assert_eq!(all[2].source, AgentSource::Project(project.path().join("plan.md")));
    assert_eq!(all[3].system_prompt, "Project helper.");
    assert_eq!(all[4].source, AgentSource::User(user.path().join("mine.md")));
    let lines: Vec<String> = listing(&all).lines().map(str::to_owned).collect();
    assert_eq!(lines[2], "- Plan: the project's planner (Tools: Read)");
    assert_eq!(lines[3], "- helper: the project's helper (Tools: All tools)");
    assert_eq!(lines.len(), 6);
}
