//! # agent-tool-grep: the Grep tool
//!
//! Searches file contents with a regular expression, as Claude Code's `Grep` tool does: the same
//! name, input fields (`pattern`, `path`, `glob`, `type`, `output_mode`, `-A`/`-B`/`-C`/`context`,
//! `-n`, `-i`, `-o`, `head_limit`, `offset`, `multiline`) and result texts. The three output
//! modes are `files_with_matches` (the default: paths, most recently modified first), `content`
//! (ripgrep's `path:line:text` lines with context) and `count` (`path:count`). Results are paged
//! with `offset` and `head_limit` (250 by default, 0 for no limit).
//!
//! The search runs in process with ripgrep's own libraries (`grep-searcher`, `grep-regex`) over
//! the walk Glob uses too (`agent-tools-walk`): `.gitignore` respected, hidden files searched,
//! version-control folders skipped. Where this differs from Claude Code, on purpose:
//!
//! - an invalid regex, glob or file type is an error result saying what is wrong, never an empty
//!   "no matches" (Claude Code's `rg` exit code 2 could end up looking like no matches);
//! - a pattern with `\n` while `multiline` is off is an error telling the model to set it;
//! - a text file with a stray NUL byte is searched as text (ripgrep calls it binary and shows
//!   nothing); NUL bytes are shown as `\0`. Files that really are binary are skipped;
//! - a matching line longer than [`MAX_LINE_BYTES`] is shown cut to a window around its match,
//!   with markers saying how many characters were left out on each side (`[… 1200 chars
//!   before] …NEEDLE… [3000 chars after …]`), where ripgrep's `--max-columns` hides the whole
//!   line behind `[Omitted long matching line]`; long context lines still get a short notice;
//! - `content` output lists files in path order and `count` output too, so results are the same
//!   from one run to the next;
//! - a `path` that is neither a file nor a folder (a FIFO, a socket) is a validation error, not a
//!   search that waits forever.
//!
//! As in Claude Code, the searched path goes through the read permission check
//! ([`agent_tools_permissions::check_read_permission`]), and files named by the session's
//! `Read(…)` deny rules are left out of every search ([`agent_tools_walk::ReadDenyRules`]). The
//! search stops promptly when the context's cancellation token fires.
//!
//! ```
//! # tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(async {
//! use agent_tools_core::{call_tool, ToolUseContext};
//! use serde_json::json;
//! let dir = tempfile::tempdir().unwrap();
//! std::fs::create_dir(dir.path().join("src")).unwrap();
//! std::fs::write(dir.path().join("src/main.rs"), "// entry\nfn main() {}\n").unwrap();
//! let ctx = ToolUseContext::new(dir.path());
//! let grep = agent_tool_grep::tool();
//! let input = json!({"pattern": "fn main", "output_mode": "content", "type": "rust"});
//! let done = call_tool(grep.as_ref(), "toolu_1", input, &ctx).await;
//! assert_eq!(done.block.content.text(), "src/main.rs:2:fn main() {}");
//! let done = call_tool(grep.as_ref(), "toolu_2", json!({"pattern": "entry"}), &ctx).await;
//! assert_eq!(done.block.content.text(), "Found 1 file\nsrc/main.rs");
//! # });
//! ```

mod input;
mod render;
mod search;

use agent_tools_core::{AgentScope, Capabilities, ToolKind};
use std::path::Path;
use std::sync::Arc;

use agent_tools_core::path::display_relative;
use agent_tools_core::{
    MaxResultSize, PermissionResult, Tool, ToolDef, ToolError, ToolResult, ToolResultBlock, ToolUseContext,
    ValidationResult, build_tool,
};
use agent_tools_walk::ReadDenyRules;
pub use agent_tools_walk::WalkConfig;

pub use crate::input::{DEFAULT_HEAD_LIMIT, GrepInput, OutputMode};
use crate::render::LineStyle;
pub use crate::render::{GrepOutput, MAX_LINE_BYTES};
use crate::search::{Collect, FileHits, FilterError, Filters, Hits, PatternError, Request};

/// The API name.
pub const NAME: &str = "Grep";

/// Grep's settings.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct GrepConfig {
    /// Which files the walk sees (by default: ignore files respected, hidden files included).
    pub walk: WalkConfig,
}

/// The Grep tool definition.
#[derive(Debug, Clone, Default)]
pub struct GrepTool {
    config: GrepConfig,
}

impl GrepTool {
    /// A Grep tool with the given settings.
    pub fn new(config: GrepConfig) -> Self {
        Self { config }
    }
}

/// Grep with default settings, ready for the host.
pub fn tool() -> Arc<dyn Tool> {
    build_tool(GrepTool::default())
}

/// Grep with the given settings.
pub fn tool_with(config: GrepConfig) -> Arc<dyn Tool> {
    build_tool(GrepTool::new(config))
}

impl ToolDef for GrepTool {
    type Input = GrepInput;
    type Output = GrepOutput;

    const NAME: &'static str = NAME;

    const PROMPT: &'static str = include_str!("prompt.md");

    const CAPABILITIES: Capabilities = Capabilities::new(ToolKind::Search)
        .scope(AgentScope::Everywhere)
        .flags(agent_tools_core::ToolFlags::LOCAL_READ_ONLY)
        .search_hint("search file contents with regular expressions");

    fn summary(&self, input: &GrepInput) -> String {
        match input.search_path() {
            Some(path) => format!("Search for {} in {path}", input.pattern),
            None => format!("Search for {}", input.pattern),
        }
    }

    /// What the auto mode's classifier judges: The pattern and where.
    fn to_auto_classifier_input(&self, input: &GrepInput) -> serde_json::Value {
        serde_json::Value::String(match &input.path {
            Some(path) => format!("{} in {path}", input.pattern),
            None => input.pattern.clone(),
        })
    }

    fn max_result_size_chars(&self) -> MaxResultSize {
        MaxResultSize::Chars(20_000)
    }

    fn get_path(&self, input: &GrepInput) -> Option<String> {
        input.search_path().map(str::to_owned)
    }

    fn activity_description(&self, input: &GrepInput) -> Option<String> {
        Some(format!("Searching for {}", input.pattern))
    }

    async fn validate_input(&self, input: &GrepInput, ctx: &ToolUseContext) -> ValidationResult {
        if let Some(path) = input.search_path() {
            match std::fs::metadata(ctx.resolve_path(path)) {
                Err(_) => return ValidationResult::error(render::missing_path(path, &ctx.cwd.to_string_lossy()), 1),
                Ok(meta) if !meta.is_file() && !meta.is_dir() => {
                    return ValidationResult::error(render::not_searchable(path, &ctx.cwd.to_string_lossy()), 2);
                }
                Ok(_) => {}
            }
        }
        ValidationResult::Ok
    }

    /// The read check on the searched file or folder (deny and ask rules, the working
    /// directories, allow rules), as Claude Code's Grep does.
    async fn check_permissions(&self, input: &GrepInput, ctx: &ToolUseContext) -> PermissionResult {
        let root = input.search_path().map_or_else(|| ctx.cwd.clone(), |path| ctx.resolve_path(path));
        agent_tools_permissions::check_read_permission(&root, ctx)
    }

    async fn call(&self, input: GrepInput, ctx: &ToolUseContext) -> Result<ToolResult<GrepOutput>, ToolError> {
        let root = input.search_path().map_or_else(|| ctx.cwd.clone(), |path| ctx.resolve_path(path));
        let mode = input.mode();
        let multiline = input.multiline.unwrap_or(false);
        let matcher =
            search::compile(&input.pattern, input.case_insensitive.unwrap_or(false), multiline).map_err(|error| {
                match error {
                    PatternError::Invalid(message) => ToolError::failed(render::invalid_regex(&message)),
                    PatternError::NeedsMultiline(message) => ToolError::failed(render::needs_multiline(&message)),
                }
            })?;
        let filters = Filters::new(&root, input.glob_filter(), input.type_filter()).map_err(|error| match error {
            FilterError::Glob(message) => ToolError::failed(render::invalid_glob(&message)),
            FilterError::UnknownType(name) => ToolError::failed(render::unknown_type(&name)),
        })?;
        let (before, after) = input.context_lines();
        let collect = match mode {
            OutputMode::FilesWithMatches => Collect::Files,
            OutputMode::Count => Collect::Counts,
            OutputMode::Content => Collect::Lines,
        };
        // A file never contributes more than `offset + limit` shown lines, plus one to tell that
        // the page was cut: reading further cannot change the result.
        let line_cap = input
            .limit()
            .map(|limit| usize::try_from(input.skip().saturating_add(limit).saturating_add(1)).unwrap_or(usize::MAX));
        let request = Request {
            matcher,
            multiline,
            before: usize::try_from(before).unwrap_or(usize::MAX),
            after: usize::try_from(after).unwrap_or(usize::MAX),
            only_matching: input.only_matching(),
            collect,
            line_cap,
        };
        let single_file = !root.is_dir();
        if agent_tools_permissions::is_read_denied(&root, ctx) {
            // Refused at the permission stage already when the host runs the call; a caller
            // that skips that stage still gets nothing from a denied file or folder.
            return Ok(ToolResult::new(assemble(Vec::new(), &input, single_file, &ctx.cwd)));
        }
        let walk = self.config.walk;
        let deny = ReadDenyRules::from_context(ctx);
        let cancel = ctx.cancel.clone();
        let worker = tokio::task::spawn_blocking(move || search::run(&root, &request, &filters, walk, &deny, &cancel));
        // Answer as soon as the token fires; the worker sees it too and winds down on its own.
        let found = ctx
            .cancel
            .run_until_cancelled(worker)
            .await
            .ok_or(ToolError::Cancelled)?
            .map_err(|error| ToolError::internal(format!("grep worker failed: {error}")))?
            .map_err(|_| ToolError::Cancelled)?;
        Ok(ToolResult::new(assemble(found, &input, single_file, &ctx.cwd)))
    }

    fn map_tool_result(&self, output: &GrepOutput, tool_use_id: &str) -> ToolResultBlock {
        ToolResultBlock::text(tool_use_id, render::render(output))
    }
}

/// Turns the files found into the output for the input's mode: sorted (newest first for
/// `files_with_matches`, by path otherwise), paged with `offset`/`head_limit`, paths shown
/// relative to `cwd` when inside it.
fn assemble(mut found: Vec<FileHits>, input: &GrepInput, single_file: bool, cwd: &Path) -> GrepOutput {
    let mode = input.mode();
    let (limit, offset) = (input.limit(), input.skip());
    let applied_offset = (offset > 0).then_some(offset);
    match mode {
        OutputMode::FilesWithMatches => {
            found.sort_by(|a, b| {
                b.modified
                    .cmp(&a.modified)
                    .then_with(|| a.path.as_os_str().as_encoded_bytes().cmp(b.path.as_os_str().as_encoded_bytes()))
            });
            let names: Vec<String> = found.iter().map(|file| display_relative(&file.path, cwd)).collect();
            let found_entries = names.len();
            let (filenames, applied_limit) = search::page(names, limit, offset);
            GrepOutput {
                mode,
                num_files: filenames.len(),
                filenames,
                content: None,
                num_lines: None,
                num_matches: None,
                applied_limit,
                applied_offset,
                found_entries,
            }
        }
        OutputMode::Count => {
            let counts: Vec<(&Path, u64)> = found
                .iter()
                .filter_map(|file| match file.hits {
                    Hits::Count(count) => Some((file.path.as_path(), count)),
                    _ => None,
                })
                .collect();
            // The closing line counts every match of every file, not only the page shown
            // (Claude Code's count).
            let (found_entries, total) = (counts.len(), counts.iter().map(|(_, count)| count).sum());
            let (shown, applied_limit) = search::page(counts, limit, offset);
            // Only the page's paths are shown, straight into one text.
            let mut content = String::with_capacity(shown.len() * 32);
            for (i, (path, count)) in shown.iter().enumerate() {
                if i > 0 {
                    content.push('\n');
                }
                content.push_str(&render::count_line(&display_relative(path, cwd), *count));
            }
            GrepOutput {
                mode,
                num_files: found_entries,
                filenames: Vec::new(),
                content: Some(content),
                num_lines: None,
                num_matches: Some(total),
                applied_limit,
                applied_offset,
                found_entries,
            }
        }
        OutputMode::Content => {
            let files: Vec<(String, &[search::Entry])> = found
                .iter()
                .filter_map(|file| match &file.hits {
                    Hits::Lines(entries) => Some((display_relative(&file.path, cwd), entries.as_slice())),
                    _ => None,
                })
                .collect();
            let style = LineStyle {
                show_path: !single_file,
                show_numbers: input.show_line_numbers(),
                separate_files: input.context_lines() != (0, 0),
            };
            let lines = render::content_lines(files.iter().map(|(path, entries)| (path.as_str(), *entries)), style);
            let found_entries = lines.len();
            let (shown, applied_limit) = search::page(lines, limit, offset);
            GrepOutput {
                mode,
                num_files: 0,
                filenames: Vec::new(),
                num_lines: Some(shown.len()),
                content: Some(shown.join("\n")),
                num_matches: None,
                applied_limit,
                applied_offset,
                found_entries,
            }
        }
    }
}
