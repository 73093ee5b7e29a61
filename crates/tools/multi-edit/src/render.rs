//! MultiEdit's output → `tool_result` text, and its refusal texts. The exact strings live here;
//! the per-edit reasons are Edit's (`agent_tools_files::edit::refusal_message`).

use agent_tools_core::quote::quote;
use agent_tools_files::Hunk;
use agent_tools_files::edit::{BatchRefusal, Refusal, Seen, refusal_message, state_note};
use serde::Serialize;

use crate::input::MultiEditInput;

/// What MultiEdit returns (the MCP `structuredContent`): Edit's output fields, with one entry per
/// edit instead of Edit's single `oldString`/`newString`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct MultiEditOutput {
    /// The path as the model gave it.
    pub file_path: String,
    /// The edits, in the order they were applied.
    pub edits: Vec<AppliedEdit>,
    /// The file's text before the batch, line endings normalised to `\n` (empty for a new file).
    pub original_file: String,
    /// The line diff of the whole batch (original → final text).
    pub structured_patch: Vec<Hunk>,
    /// Whether the user changed the proposed edits (never, here: there is no proposal dialog).
    pub user_modified: bool,
    /// Whether the batch created the file (its first edit had an empty `old_string`).
    #[serde(skip)]
    pub created: bool,
    /// How much of the file the model had seen (decides the note after the result text).
    #[serde(skip)]
    pub seen: Seen,
}

/// One applied edit of [`MultiEditOutput`].
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct AppliedEdit {
    /// The text replaced: `old_string`, or the file's own spelling of it when only the
    /// curly-quote fallback found it (as Edit's `oldString`).
    pub old_string: String,
    /// The replacement as the model gave it.
    pub new_string: String,
    /// Whether every occurrence was replaced.
    pub replace_all: bool,
    /// How many occurrences were replaced (0 for an edit that created or filled the file).
    pub replacements: usize,
}

/// The result text, in the shape of Claude Code's MultiEdit result (`Applied 2 edits to PATH:`,
/// then `N. Replaced "old" with "new"` per edit, each string quoted briefly), with a
/// `replace_all` edit's count (as Edit gives it) and, on its own line, the note Edit
/// adds about the file's state in the model's context.
pub fn render(output: &MultiEditOutput) -> String {
    let count = output.edits.len();
    let plural = if count == 1 { "" } else { "s" };
    let new_file = if output.created { ", a new file" } else { "" };
    let mut text = format!("Applied {count} edit{plural} to {}{new_file}:", output.file_path);
    for (index, edit) in output.edits.iter().enumerate() {
        let all = match (edit.replace_all, edit.replacements) {
            (false, _) => String::new(),
            (true, 1) => " (1 occurrence)".to_owned(),
            (true, n) => format!(" (all {n} occurrences)"),
        };
        text.push_str(&format!(
            "\n{}. Replaced \"{}\" with \"{}\"{all}",
            index + 1,
            quote(&edit.old_string),
            quote(&edit.new_string)
        ));
    }
    if let Some(note) = state_note(output.seen) {
        text.push('\n');
        text.push_str(note);
    }
    text
}

/// Said after the reason when an edit fails: nothing was written.
pub const NOTHING_APPLIED: &str = "No edit was applied: the file is unchanged.";

/// Added to Edit's "match exactly" text when the edits of a batch undo one another.
pub const CANCEL_OUT: &str = "The edits, applied in order, cancel each other out.";

/// The message and Edit's error code for a refused batch. A refusal of one edit names it by its
/// number (`Edit #3 of 3 failed: ` + Edit's text for the reason) and, for an edit after the
/// first, says it was matched against the text the edits before it left; file-level refusals
/// (not read, changed since read, missing, a notebook …) are Edit's texts as they are. `at_call`
/// as for `agent_tools_files::edit::refusal_message`.
pub fn refusal(refused: &BatchRefusal, input: &MultiEditInput, cwd: &std::path::Path, at_call: bool) -> (String, i32) {
    let total = input.edits.len();
    let old_string = refused.edit.and_then(|index| input.edits.get(index)).map_or("", |edit| edit.old_string.as_str());
    let (reason, code) = refusal_message(&refused.refusal, &input.file_path, old_string, cwd, at_call);
    let message = match refused.edit {
        Some(index) => {
            let n = index + 1;
            // Only a match depends on the edits before; `old_string == new_string` is checked first.
            let depends = matches!(refused.refusal, Refusal::NotFound | Refusal::Ambiguous(_) | Refusal::Identical);
            let matched = match n {
                2 if depends => "Edit #2 was matched against the file as edit #1 left it. ".to_owned(),
                3.. if depends => format!("Edit #{n} was matched against the file as edits #1–#{} left it. ", n - 1),
                _ => String::new(),
            };
            format!("Edit #{n} of {total} failed: {reason}\n{matched}{NOTHING_APPLIED}")
        }
        None if total > 1 && matches!(refused.refusal, Refusal::Identical) => format!("{reason} {CANCEL_OUT}"),
        None => reason,
    };
    (message, code)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::input::EditEntry;

    fn applied(old: &str, new: &str, replace_all: bool, replacements: usize) -> AppliedEdit {
        AppliedEdit { old_string: old.into(), new_string: new.into(), replace_all, replacements }
    }

    fn output(edits: Vec<AppliedEdit>, seen: Seen) -> MultiEditOutput {
        MultiEditOutput {
            file_path: "/w/f.txt".into(),
            edits,
            original_file: "a\n".into(),
            structured_patch: Vec::new(),
            user_modified: false,
            created: false,
            seen,
        }
    }

    #[test]
    fn texts() {
        let two = vec![applied("a", "b", false, 1), applied("0", "1", true, 3)];
        assert_eq!(
            render(&output(two.clone(), Seen::Whole)),
            "Applied 2 edits to /w/f.txt:\n1. Replaced \"a\" with \"b\"\n2. Replaced \"0\" with \"1\" (all 3 occurrences)\n(file state is current in your context — no need to Read it back)"
        );
        // After a Read with offset or limit the model has seen part of the file: no note.
        assert_eq!(
            render(&output(vec![applied("a", "b", true, 1)], Seen::Part)),
            "Applied 1 edit to /w/f.txt:\n1. Replaced \"a\" with \"b\" (1 occurrence)"
        );
        let created = MultiEditOutput { created: true, ..output(vec![applied("", "x", false, 0)], Seen::Whole) };
        assert!(render(&created).starts_with("Applied 1 edit to /w/f.txt, a new file:\n1. Replaced \"\" with \"x\"\n"));
        // A long string is quoted briefly, never echoed whole.
        let long = "y".repeat(1000);
        let text = render(&output(vec![applied("a", &long, false, 1)], Seen::Part));
        assert_eq!(
            text,
            format!("Applied 1 edit to /w/f.txt:\n1. Replaced \"a\" with \"{}… (1000 characters)\"", "y".repeat(200))
        );
        assert_eq!(
            serde_json::to_value(output(two, Seen::Whole)).unwrap(),
            serde_json::json!({"filePath": "/w/f.txt", "edits": [
                {"oldString": "a", "newString": "b", "replaceAll": false, "replacements": 1},
                {"oldString": "0", "newString": "1", "replaceAll": true, "replacements": 3}],
                "originalFile": "a\n", "structuredPatch": [], "userModified": false})
        );
    }

    #[test]
    fn refusals_name_the_edit() {
        let entry = |old: &str| EditEntry { old_string: old.into(), new_string: "z".into(), replace_all: None };
        let input = MultiEditInput { file_path: "/w/f.txt".into(), edits: vec![entry("a"), entry("b"), entry("c")] };
        let cwd = std::path::Path::new("/w");
        let at = |edit, refusal| BatchRefusal { edit, refusal };
        assert_eq!(
            refusal(&at(Some(0), Refusal::NotFound), &input, cwd, false),
            ("Edit #1 of 3 failed: String to replace not found in file.\nString: a\nNo edit was applied: the file is unchanged.".to_owned(), 8)
        );
        assert_eq!(
            refusal(&at(Some(1), Refusal::Ambiguous(2)), &input, cwd, false).0,
            "Edit #2 of 3 failed: Found 2 matches of the string to replace, but replace_all is false. To replace all occurrences, set replace_all to true. To replace only one occurrence, please provide more context to uniquely identify the instance.\nString: b\nEdit #2 was matched against the file as edit #1 left it. No edit was applied: the file is unchanged."
        );
        assert_eq!(
            refusal(&at(Some(2), Refusal::NoChange), &input, cwd, false),
            ("Edit #3 of 3 failed: No changes to make: old_string and new_string are exactly the same.\nNo edit was applied: the file is unchanged.".to_owned(), 1)
        );
        assert_eq!(
            refusal(&at(Some(2), Refusal::NotFound), &input, cwd, false).0,
            "Edit #3 of 3 failed: String to replace not found in file.\nString: c\nEdit #3 was matched against the file as edits #1–#2 left it. No edit was applied: the file is unchanged."
        );
        assert_eq!(
            refusal(&at(None, Refusal::Stale(agent_tools_files::StaleRead::NotRead)), &input, cwd, false),
            ("File has not been read yet. Read it first before writing to it.".to_owned(), 6)
        );
        assert_eq!(
            refusal(&at(None, Refusal::Identical), &input, cwd, false).0,
            "Original and edited file match exactly. Failed to apply edit. The edits, applied in order, cancel each other out."
        );
    }
}
