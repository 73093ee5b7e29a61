//! Agent definitions: what kinds of sub-agent the Agent tool can launch (Claude Code's
//! `AgentDefinition`, `builtInAgents.ts` and `loadAgentsDir.ts`).
//!
//! An agent definition is a type name the model passes as `subagent_type`, a line telling the
//! model when to use it, the tools it may use, an optional model and permission mode, and the
//! system prompt the sub-agent runs with. They come from three layers, later ones replacing
//! earlier ones of the same type ([`merge`]), as in Claude Code:
//!
//! 1. the built-in agents ([`built_in`]): `general-purpose`, `Explore`, `Plan`;
//! 2. the user's `~/.claude/agents/*.md` ([`load_dir`] with [`SourceKind::User`]);
//! 3. the project's `.claude/agents/*.md` ([`SourceKind::Project`]);
//! 4. the session's own, as JSON (`--agents`, the Agent SDKs' `agents`: [`parse_agents_json`]).
//!
//! An agent file is markdown with a flat YAML frontmatter (read with
//! [`agent_tools_core::frontmatter`]); the body is the system prompt:
//!
//! ```text
//! ---
//! name: code-reviewer
//! description: Reviews a change for bugs and style. Use after finishing a feature.
//! tools: Read, Grep, Glob, Bash(git diff:*)
//! model: sonnet
//! ---
//! You review code. Read the diff, then ...
//! ```
//!
//! ```
//! use std::path::Path;
//! use agent_tool_agent::definitions::{self, AgentSource};
//! let path = Path::new("/home/ada/.claude/agents/reviewer.md");
//! let text = "---\nname: reviewer\ndescription: Reviews code\ntools: Read, Grep\n---\nReview the code.\n";
//! let def = definitions::parse_agent_file(path, text, AgentSource::User(path.into())).unwrap();
//! assert_eq!(def.agent_type, "reviewer");
//! assert_eq!(def.tools, Some(vec!["Read".to_owned(), "Grep".to_owned()]));
//! assert_eq!(def.system_prompt, "Review the code.");
//! // The project's folder would override it; here the user's is merged over the built-ins.
//! let all = definitions::merge(vec![definitions::built_in(), vec![def]]);
//! let types: Vec<&str> = all.iter().map(|def| def.agent_type.as_str()).collect();
//! assert_eq!(types, ["general-purpose", "Explore", "Plan", "reviewer"]);
//! assert_eq!(
//!     definitions::listing(&all[3..]),
//!     "- reviewer: Reviews code (Tools: Read, Grep)"
//! );
//! ```

use std::collections::HashMap;
use std::fs;
use std::path::{Path, PathBuf};

use agent_tools_core::PermissionMode;
use agent_tools_core::frontmatter::{self, Frontmatter, Value};
use agent_tools_core::quote::quote;

/// Largest agent file read, in bytes (256 KiB); a larger one is skipped with a warning.
pub const MAX_FILE_BYTES: u64 = 256 * 1024;

/// The type of the agent used when the model names none (Claude Code's default).
pub const GENERAL_PURPOSE: &str = "general-purpose";

/// Where a definition came from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum AgentSource {
    /// Compiled in ([`built_in`]).
    BuiltIn,
    /// A file in the user's agents folder (`~/.claude/agents`); the file's path.
    User(PathBuf),
    /// A file in the project's agents folder (`.claude/agents`); the file's path.
    Project(PathBuf),
    /// Given by whoever started the session: the `--agents` flag or the Agent SDK's `agents`
    /// option (Claude Code's `flagSettings` source), above every folder.
    Session,
}

/// Which folder [`load_dir`] reads, and so which [`AgentSource`] its definitions get.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SourceKind {
    /// The user's folder: [`AgentSource::User`].
    User,
    /// The project's folder: [`AgentSource::Project`].
    Project,
}

impl SourceKind {
    /// The source of the file at `path` in a folder of this kind.
    pub fn source(self, path: PathBuf) -> AgentSource {
        match self {
            Self::User => AgentSource::User(path),
            Self::Project => AgentSource::Project(path),
        }
    }
}

/// One kind of sub-agent (Claude Code's `AgentDefinition`, the fields this crate uses).
#[derive(Debug, Clone, PartialEq)]
pub struct AgentDefinition {
    /// The type name the model passes as `subagent_type` (frontmatter `name`): ASCII letters
    /// and digits, `-` and `_`.
    pub agent_type: String,
    /// When to use it, shown to the model in the Agent tool's prompt (frontmatter
    /// `description`; a written `\n` becomes a line break, as in Claude Code).
    pub when_to_use: String,
    /// The tools it may use, as tool names or rules; `None` for all of the caller's (frontmatter
    /// `tools` absent, empty or containing `*`). A rule (`Bash(git diff:*)`) keeps the tool and
    /// limits it to that rule, enforced in every mode (see
    /// [`restrictions_for_agent`](crate::tool_sets::restrictions_for_agent); Claude Code keeps
    /// only the tool's name).
    pub tools: Option<Vec<String>>,
    /// Tools it may not use (frontmatter `disallowedTools`), applied after `tools`.
    pub disallowed_tools: Vec<String>,
    /// The model: an alias (`sonnet`, `opus`, `haiku`) or a full model id; `None` (written
    /// `inherit`, or absent) runs on the caller's model.
    pub model: Option<String>,
    /// The permission mode it asks to run in (frontmatter `permissionMode`); `None` keeps the
    /// caller's. It applies only where it narrows the caller's mode
    /// ([`subagent_permission_mode`](agent_tools_core::subagent_permission_mode)):
    /// `plan` under a caller in `default` does, `acceptEdits` under a caller in `plan` does not
    /// (the agent stays in `plan`; stricter than Claude Code).
    pub permission_mode: Option<PermissionMode>,
    /// A display colour for the agent (frontmatter `color`), kept as written.
    pub color: Option<String>,
    /// Most model turns it may take (frontmatter `maxTurns`, a positive whole number).
    pub max_turns: Option<u32>,
    /// Always run in the background (frontmatter `background: true`).
    pub background: bool,
    /// Leave the project's CLAUDE.md files out of its context (the built-in `Explore` and
    /// `Plan` agents, which only search and plan; agent files cannot set it).
    pub omit_claude_md: bool,
    /// A JSON Schema its final answer must fit (frontmatter `outputSchema`, a JSON object
    /// written on one line); the Agent tool gives such an agent its own `StructuredOutput`
    /// tool, whose construction checks the schema.
    pub output_schema: Option<serde_json::Value>,
    /// The system prompt (the file's markdown body, trimmed; never empty).
    pub system_prompt: String,
    /// Where it came from.
    pub source: AgentSource,
}

impl AgentDefinition {
    /// True for the compiled-in agents.
    pub fn is_built_in(&self) -> bool {
        self.source == AgentSource::BuiltIn
    }
}

/// The tools the read-only built-in agents (`Explore`, `Plan`) may not use: no sub-agents, no
/// plan-mode exit, no file changes.
pub const READ_ONLY_AGENT_DISALLOWED_TOOLS: &[&str] =
    &["Agent", "ExitPlanMode", "Edit", "Write", "NotebookEdit", "MultiEdit"];

const GENERAL_PURPOSE_WHEN: &str = "A general-purpose agent for researching open questions, searching code across many files and carrying out multi-step tasks. Use it when finding something may take several rounds of searching, or to hand off a self-contained piece of work and get a report back.";

const GENERAL_PURPOSE_PROMPT: &str = "You are a sub-agent: another agent has handed you one task, and your reply goes back to that agent, not to a person. Do the whole task with the tools you have. Search widely when you do not know where something lives, read the relevant code instead of guessing, and check your work after you change something. Do not stop at a partial answer when a little more digging would finish it, and do not go beyond what was asked.

When you are done, reply with a self-contained report: what you found or did, the files involved (as absolute paths), and anything left open or uncertain. Be concrete and brief, and skip pleasantries. Do not create files, documentation in particular, unless the task needs them.";

const EXPLORE_WHEN: &str = "A fast, read-only agent for exploring a codebase: finding files by pattern, searching for symbols or text, and answering questions about how the code is organised. Say how thorough it should be: quick, medium or very thorough.";

const EXPLORE_PROMPT: &str = "You are a read-only search agent. Your job is to find things in a codebase quickly and report them accurately: where something is defined, which files take part in a feature, how the pieces of a system connect. You cannot change anything. You have no editing tools, and you must not run shell commands that create, move or delete files, install packages or change git state; use the shell only to read (listing folders, git log, git diff, git show and the like).

Work quickly. Start broad with file-name patterns and text searches, then narrow down, and read only the parts of files you need. Run independent searches at the same time. Match the effort to the thoroughness you were asked for. Finish with a direct answer to the question, citing absolute file paths and, where useful, line numbers. Report in your reply; do not write files.";

const PLAN_WHEN: &str = "A software-architect agent that studies the code and returns a step-by-step implementation plan: the approach, the files to change, the order of the work and the trade-offs. Read-only.";

const PLAN_PROMPT: &str = "You are a software architect planning a change. You only read and analyse: you have no editing tools, and you must not run commands that modify files, dependencies or git state. First explore the code the change concerns: the existing patterns and conventions, the parts it can reuse, and every place it has to touch.

Then return a plan that someone else can follow without redoing your research: the approach and why you prefer it to the alternatives; numbered steps in the order they should be done; the files to create or change (absolute paths) and what changes in each; how to test the result; and the risks and open questions. Keep it concrete. Do not write the implementation itself, beyond short sketches where they make a step clear.";

/// The built-in agents, in the order the Agent tool lists them (Claude Code's public set
/// without its UI-specific helpers): `general-purpose` (all tools), `Explore` (read and search
/// only, on `haiku`, without CLAUDE.md) and `Plan` (read-only, on the caller's model, without
/// CLAUDE.md). The system prompts are this project's own.
pub fn built_in() -> Vec<AgentDefinition> {
    let read_only = || READ_ONLY_AGENT_DISALLOWED_TOOLS.iter().map(|name| (*name).to_owned()).collect::<Vec<_>>();
    let agent = |agent_type: &str, when: &str, prompt: &str| AgentDefinition {
        agent_type: agent_type.to_owned(),
        when_to_use: when.to_owned(),
        tools: None,
        disallowed_tools: Vec::new(),
        model: None,
        permission_mode: None,
        color: None,
        max_turns: None,
        background: false,
        omit_claude_md: false,
        output_schema: None,
        system_prompt: prompt.to_owned(),
        source: AgentSource::BuiltIn,
    };
    vec![
        agent(GENERAL_PURPOSE, GENERAL_PURPOSE_WHEN, GENERAL_PURPOSE_PROMPT),
        AgentDefinition {
            disallowed_tools: read_only(),
            model: Some("haiku".to_owned()),
            omit_claude_md: true,
            ..agent("Explore", EXPLORE_WHEN, EXPLORE_PROMPT)
        },
        AgentDefinition {
            disallowed_tools: read_only(),
            omit_claude_md: true,
            ..agent("Plan", PLAN_WHEN, PLAN_PROMPT)
        },
    ]
}

/// Whether `name` is a valid agent type: not empty; ASCII letters and digits, `-` and `_` only.
pub fn is_valid_agent_type(name: &str) -> bool {
    !name.is_empty() && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
}

/// Parses one agent file. `path` names the file in error messages; `source` is recorded.
///
/// Frontmatter keys (others are ignored, as Claude Code ignores keys it does not use):
///
/// | key | becomes | accepted |
/// |---|---|---|
/// | `name` (required) | `agent_type` | ASCII letters and digits, `-`, `_` |
/// | `description` (required) | `when_to_use` | any text; `\n` written out becomes a line break |
/// | `tools` | `tools` | a comma/space list (`Read, Grep`) or a YAML list; `*` = all; empty = all |
/// | `disallowedTools` | `disallowed_tools` | the same forms |
/// | `model` | `model` | `inherit` (= `None`), `sonnet`, `opus`, `haiku` or a model id (no spaces) |
/// | `permissionMode` | `permission_mode` | `default`, `acceptEdits`, `plan`, `bypassPermissions`, `dontAsk`, `auto` |
/// | `color` | `color` | any text |
/// | `maxTurns` | `max_turns` | a positive whole number |
/// | `background` | `background` | `true`/`false` (also `yes`/`no`, `on`/`off`) |
/// | `outputSchema` | `output_schema` | a JSON object on one line (`outputSchema: {"type": "object", ...}`), or the same quoted |
///
/// The body after the frontmatter, trimmed, is the system prompt.
///
/// # Errors
/// `<path>: <reason>` when the file has no frontmatter, the frontmatter does not parse, `name`
/// or `description` is missing, a value is not one of the accepted forms above, or the body is
/// empty. Claude Code drops some bad values with a debug log instead; here the file is refused
/// so that its author sees why.
pub fn parse_agent_file(path: &Path, text: &str, source: AgentSource) -> Result<AgentDefinition, String> {
    let shown = quote(&path.display().to_string()).into_owned();
    let fail = |reason: String| format!("{shown}: {reason}");
    let (head, body) = frontmatter::split(text).map_err(fail)?;
    let Some(head) = head else {
        return Err(fail(
            "there is no frontmatter: an agent file starts with a `---` block giving at least `name` and `description`"
                .to_owned(),
        ));
    };
    let (head, raw_schema) = take_inline_json(head, "outputSchema");
    let map = frontmatter::parse(&head).map_err(|error| fail(format!("the frontmatter does not parse: {error}")))?;
    let fields = Fields(&map);

    let agent_type = fields.text("name").map_err(fail)?.ok_or_else(|| fail("the frontmatter has no `name`".into()))?;
    if !is_valid_agent_type(&agent_type) {
        return Err(fail(format!("the name `{}` may hold only letters, digits, `-` and `_`", quote(&agent_type))));
    }
    let when_to_use = fields
        .text("description")
        .map_err(fail)?
        .ok_or_else(|| fail("the frontmatter has no `description`".into()))?
        .replace("\\n", "\n");

    let tools = match map.get("tools") {
        None => None,
        Some(Value::Text(text)) if text.trim().is_empty() => None,
        Some(value) => {
            let list = value.to_list();
            if list.iter().any(|item| item.trim() == "*") { None } else { Some(list) }
        }
    };
    let disallowed_tools = map.get("disallowedTools").map(Value::to_list).unwrap_or_default();

    let model = match fields.text("model").map_err(fail)? {
        None => None,
        Some(model) if model == "inherit" => None,
        Some(model) if model.chars().any(|c| c.is_whitespace() || c.is_control()) => {
            return Err(fail(format!(
                "`model` must be `inherit`, an alias (`sonnet`, `opus`, `haiku`) or a model id, not `{}`",
                quote(&model)
            )));
        }
        Some(model) => Some(model),
    };
    let permission_mode = match fields.text("permissionMode").map_err(fail)? {
        None => None,
        Some(mode) => Some(PermissionMode::parse(&mode).ok_or_else(|| {
            fail(format!(
                "`permissionMode` must be one of default, acceptEdits, plan, bypassPermissions, dontAsk, auto; not `{}`",
                quote(&mode)
            ))
        })?),
    };
    let color = fields.text("color").map_err(fail)?;
    let max_turns = match fields.text("maxTurns").map_err(fail)? {
        None => None,
        Some(turns) => match turns.parse::<u32>() {
            Ok(turns) if turns > 0 => Some(turns),
            _ => return Err(fail(format!("`maxTurns` must be a positive whole number, not `{}`", quote(&turns)))),
        },
    };
    let background = match fields.text("background").map_err(fail)? {
        None => false,
        Some(flag) => match flag.to_ascii_lowercase().as_str() {
            "true" | "yes" | "on" => true,
            "false" | "no" | "off" => false,
            _ => return Err(fail(format!("`background` must be true or false, not `{}`", quote(&flag)))),
        },
    };
    let raw_schema = match raw_schema {
        Some(raw) => Some(raw),
        None => fields.text("outputSchema").map_err(fail)?,
    };
    let output_schema = match raw_schema {
        None => None,
        Some(raw) => match serde_json::from_str::<serde_json::Value>(&raw) {
            Ok(schema @ serde_json::Value::Object(_)) => Some(schema),
            Ok(other) => {
                let kind = agent_tools_core::type_phrase(&other);
                return Err(fail(format!("`outputSchema` must be a JSON object (a JSON Schema), not {kind}")));
            }
            Err(error) => return Err(fail(format!("`outputSchema` is not valid JSON: {error}"))),
        },
    };

    let system_prompt = body.trim().to_owned();
    if system_prompt.is_empty() {
        return Err(fail("the file has no instructions after its frontmatter (the system prompt is empty)".into()));
    }

    Ok(AgentDefinition {
        agent_type,
        when_to_use,
        tools,
        disallowed_tools,
        model,
        permission_mode,
        color,
        max_turns,
        background,
        omit_claude_md: false,
        output_schema,
        system_prompt,
        source,
    })
}

/// The agents a session is started with, as the `--agents` flag and the Agent SDKs' `agents`
/// option give them (Claude Code's `AgentDefinition` of `sdk.d.ts`): an object of type names
/// to `{"description", "prompt", "tools"?, "disallowedTools"?, "model"?, "maxTurns"?,
/// "background"?, "omitClaudeMd"?, "permissionMode"?}`; other fields (`mcpServers`, `skills`,
/// `effort` …) are not used here and are ignored. Each gets [`AgentSource::Session`].
///
/// # Errors
/// What is wrong, naming the agent: not an object, a bad type name, a missing or empty
/// `description` or `prompt`, a field of the wrong type, an unknown permission mode.
///
/// ```
/// use agent_tool_agent::definitions::{AgentSource, parse_agents_json};
/// let agents = serde_json::json!({"reviewer": {"description": "Reviews code", "prompt": "Review it.",
///                                              "tools": ["Read", "Grep"], "model": "inherit"}});
/// let defs = parse_agents_json(&agents).unwrap();
/// assert_eq!(defs[0].agent_type, "reviewer");
/// assert_eq!(defs[0].tools, Some(vec!["Read".to_owned(), "Grep".to_owned()]));
/// assert_eq!((defs[0].model.clone(), defs[0].source.clone()), (None, AgentSource::Session));
/// assert!(parse_agents_json(&serde_json::json!({"x": {"prompt": "p"}})).unwrap_err().contains("description"));
/// ```
pub fn parse_agents_json(agents: &serde_json::Value) -> Result<Vec<AgentDefinition>, String> {
    use serde_json::Value as Json;
    let Json::Object(agents) = agents else {
        return Err("the agents must be a JSON object of agent names to definitions".to_owned());
    };
    let mut definitions = Vec::with_capacity(agents.len());
    for (name, entry) in agents {
        let fail = |reason: &str| format!("agent {}: {reason}", quote(name));
        if !is_valid_agent_type(name) {
            return Err(fail("the name may hold only letters, digits, `-` and `_`"));
        }
        let Json::Object(entry) = entry else { return Err(fail("the definition must be an object")) };
        let text = |key: &str| -> Result<Option<String>, String> {
            match entry.get(key) {
                None | Some(Json::Null) => Ok(None),
                Some(Json::String(text)) => Ok(Some(text.trim().to_owned()).filter(|text| !text.is_empty())),
                Some(_) => Err(fail(&format!("`{key}` must be a string"))),
            }
        };
        let list = |key: &str| -> Result<Option<Vec<String>>, String> {
            match entry.get(key) {
                None | Some(Json::Null) => Ok(None),
                Some(Json::Array(items)) => items
                    .iter()
                    .map(|item| {
                        item.as_str().map(str::to_owned).ok_or_else(|| fail(&format!("`{key}` must list strings")))
                    })
                    .collect::<Result<Vec<_>, _>>()
                    .map(Some),
                Some(_) => Err(fail(&format!("`{key}` must be a list of strings"))),
            }
        };
        let flag = |key: &str| -> Result<bool, String> {
            match entry.get(key) {
                None | Some(Json::Null) => Ok(false),
                Some(Json::Bool(flag)) => Ok(*flag),
                Some(_) => Err(fail(&format!("`{key}` must be true or false"))),
            }
        };
        let when_to_use = text("description")?.ok_or_else(|| fail("`description` is missing or empty"))?;
        let system_prompt = text("prompt")?.ok_or_else(|| fail("`prompt` is missing or empty"))?;
        let tools = list("tools")?.filter(|tools| !tools.is_empty() && !tools.iter().any(|tool| tool.trim() == "*"));
        let model = text("model")?.filter(|model| model != "inherit");
        let permission_mode = match text("permissionMode")? {
            None => None,
            Some(mode) => Some(PermissionMode::parse(&mode).ok_or_else(|| {
                fail(&format!(
                    "`permissionMode` {} is not one of default, acceptEdits, plan, bypassPermissions, dontAsk, auto",
                    quote(&mode)
                ))
            })?),
        };
        let max_turns = match entry.get("maxTurns") {
            None | Some(Json::Null) => None,
            Some(turns) => Some(
                turns
                    .as_u64()
                    .and_then(|turns| u32::try_from(turns).ok())
                    .filter(|turns| *turns > 0)
                    .ok_or_else(|| fail("`maxTurns` must be a positive whole number"))?,
            ),
        };
        definitions.push(AgentDefinition {
            agent_type: name.clone(),
            when_to_use,
            tools,
            disallowed_tools: list("disallowedTools")?.unwrap_or_default(),
            model,
            permission_mode,
            color: None,
            max_turns,
            background: flag("background")?,
            omit_claude_md: flag("omitClaudeMd")?,
            output_schema: None,
            system_prompt,
            source: AgentSource::Session,
        });
    }
    Ok(definitions)
}

/// Typed access to frontmatter values.
struct Fields<'a>(&'a Frontmatter);

impl Fields<'_> {
    /// A single value, trimmed; `None` when absent or empty; an error for a list.
    fn text(&self, key: &str) -> Result<Option<String>, String> {
        match self.0.get(key) {
            None => Ok(None),
            Some(Value::Text(text)) => Ok(Some(text.trim().to_owned()).filter(|text| !text.is_empty())),
            Some(Value::List(_)) => Err(format!("`{key}` must be a single value, not a list")),
        }
    }
}

/// Takes a top-level `key: {…}` line out of frontmatter text (the flat reader refuses inline
/// maps), returning the text without it (the line left blank, so line numbers in errors stay
/// right) and the JSON written after the colon. Only a value starting with `{` is taken; a
/// quoted one is left for the reader.
fn take_inline_json(head: &str, key: &str) -> (String, Option<String>) {
    let mut raw = None;
    let mut lines = Vec::new();
    for line in head.lines() {
        let value = line.strip_prefix(key).and_then(|rest| rest.strip_prefix(':')).map(str::trim);
        match value {
            Some(value) if value.starts_with('{') => {
                raw = Some(value.to_owned());
                lines.push("");
            }
            _ => lines.push(line),
        }
    }
    (lines.join("\n"), raw)
}

/// Reads the agent files of one folder: its `*.md` files (not its subfolders), in file-name
/// order. A missing folder gives nothing. A file that cannot be read, is larger than
/// [`MAX_FILE_BYTES`], is not UTF-8 or does not parse ([`parse_agent_file`]) is skipped with a
/// warning (`<path>: <reason>`), as is a second file giving an agent type the folder already
/// has (the first, by file name, is kept). Never panics.
pub fn load_dir(dir: &Path, kind: SourceKind) -> (Vec<AgentDefinition>, Vec<String>) {
    let mut warnings = Vec::new();
    let shown = |path: &Path| quote(&path.display().to_string()).into_owned();
    let entries = match fs::read_dir(dir) {
        Ok(entries) => entries,
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => return (Vec::new(), warnings),
        Err(error) => {
            warnings.push(format!("{}: the agents folder cannot be read: {error}", shown(dir)));
            return (Vec::new(), warnings);
        }
    };
    let mut paths: Vec<PathBuf> = entries
        .filter_map(|entry| match entry {
            Ok(entry) => Some(entry.path()),
            Err(error) => {
                warnings.push(format!("{}: an entry cannot be read: {error}", shown(dir)));
                None
            }
        })
        .filter(|path| path.extension().is_some_and(|ext| ext == "md"))
        .collect();
    paths.sort_by(|a, b| a.file_name().cmp(&b.file_name()));

    let mut definitions: Vec<AgentDefinition> = Vec::new();
    for path in paths {
        let metadata = match fs::metadata(&path) {
            Ok(metadata) => metadata,
            Err(error) => {
                warnings.push(format!("{}: cannot be read: {error}", shown(&path)));
                continue;
            }
        };
        if !metadata.is_file() {
            continue;
        }
        if metadata.len() > MAX_FILE_BYTES {
            warnings.push(format!(
                "{}: skipped: the file is {} bytes, more than the {MAX_FILE_BYTES} an agent file may have",
                shown(&path),
                metadata.len()
            ));
            continue;
        }
        let text = match fs::read(&path) {
            Ok(bytes) => match String::from_utf8(bytes) {
                Ok(text) => text,
                Err(_) => {
                    warnings.push(format!("{}: skipped: the file is not UTF-8 text", shown(&path)));
                    continue;
                }
            },
            Err(error) => {
                warnings.push(format!("{}: cannot be read: {error}", shown(&path)));
                continue;
            }
        };
        match parse_agent_file(&path, &text, kind.source(path.clone())) {
            Ok(definition) => {
                if definitions.iter().any(|seen| seen.agent_type == definition.agent_type) {
                    warnings.push(format!(
                        "{}: skipped: another file in this folder already defines the agent `{}`",
                        shown(&path),
                        definition.agent_type
                    ));
                } else {
                    definitions.push(definition);
                }
            }
            Err(error) => warnings.push(error),
        }
    }
    for warning in &warnings {
        tracing::warn!(warning = %warning, "agent definition skipped");
    }
    (definitions, warnings)
}

/// Layers definitions: a later layer's definition replaces an earlier one of the same
/// `agent_type`, in the earlier one's place; types new to a layer follow in their order. Pass
/// `[built_in(), user, project]` for Claude Code's precedence (project over user over
/// built-in), which lists the built-ins first.
pub fn merge(layers: Vec<Vec<AgentDefinition>>) -> Vec<AgentDefinition> {
    let mut merged: Vec<AgentDefinition> = Vec::new();
    let mut index: HashMap<String, usize> = HashMap::new();
    for definition in layers.into_iter().flatten() {
        match index.get(&definition.agent_type) {
            Some(&at) => merged[at] = definition,
            None => {
                index.insert(definition.agent_type.clone(), merged.len());
                merged.push(definition);
            }
        }
    }
    merged
}

/// The tools part of an agent's listing (Claude Code's `getToolsDescription`): `All tools`;
/// `All tools except A, B` when only `disallowed_tools` is set; `A, B, C` for an allow-list
/// (less any it also disallows); `None` when that leaves nothing.
pub fn tools_label(def: &AgentDefinition) -> String {
    match &def.tools {
        None if def.disallowed_tools.is_empty() => "All tools".to_owned(),
        None => format!("All tools except {}", def.disallowed_tools.join(", ")),
        Some(tools) => {
            let kept: Vec<&str> = tools
                .iter()
                .map(String::as_str)
                .filter(|tool| !def.disallowed_tools.iter().any(|no| no == tool))
                .collect();
            if kept.is_empty() { "None".to_owned() } else { kept.join(", ") }
        }
    }
}

/// The agent list for the Agent tool's prompt: one `- <type>: <when_to_use> (Tools: <label>)`
/// line per definition, in order (Claude Code's format).
pub fn listing(defs: &[AgentDefinition]) -> String {
    defs.iter()
        .map(|def| format!("- {}: {} (Tools: {})", def.agent_type, def.when_to_use, tools_label(def)))
        .collect::<Vec<_>>()
        .join("\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> Result<AgentDefinition, String> {
        parse_agent_file(Path::new("/a/x.md"), text, AgentSource::Project("/a/x.md".into()))
    }

    #[test]
    fn the_built_ins_are_general_purpose_explore_and_plan() {
        let defs = built_in();
        let types: Vec<&str> = defs.iter().map(|def| def.agent_type.as_str()).collect();
        assert_eq!(types, ["general-purpose", "Explore", "Plan"]);
        assert_eq!(tools_label(&defs[0]), "All tools");
        assert_eq!(tools_label(&defs[1]), "All tools except Agent, ExitPlanMode, Edit, Write, NotebookEdit, MultiEdit");
        assert_eq!((defs[1].model.as_deref(), defs[2].model.as_deref()), (Some("haiku"), None));
        assert!(!defs[0].omit_claude_md && defs[1].omit_claude_md && defs[2].omit_claude_md);
        assert!(defs.iter().all(|def| def.is_built_in() && !def.system_prompt.is_empty()));
    }

    #[test]
    fn every_key_is_read() {
        let text = "---\nname: a_b-1\ndescription: Line one\\nline two\ntools: [Read, \"Bash(git:*)\"]\ndisallowedTools: Write\nmodel: claude-opus-4-1\npermissionMode: acceptEdits\ncolor: blue\nmaxTurns: 7\nbackground: yes\noutputSchema: {\"type\": \"object\", \"required\": [\"x\"]}\nextra: ignored\n---\n\n  Do it.  \n";
        let def = parse(text).unwrap();
        assert_eq!(def.agent_type, "a_b-1");
        assert_eq!(def.when_to_use, "Line one\nline two");
        assert_eq!(def.tools, Some(vec!["Read".to_owned(), "Bash(git:*)".to_owned()]));
        assert_eq!(def.disallowed_tools, ["Write"]);
        assert_eq!(def.model.as_deref(), Some("claude-opus-4-1"));
        assert_eq!(def.permission_mode, Some(PermissionMode::AcceptEdits));
        assert_eq!(def.color.as_deref(), Some("blue"));
        assert_eq!(def.max_turns, Some(7));
        assert!(def.background && !def.omit_claude_md);
        assert_eq!(def.output_schema, Some(serde_json::json!({"type": "object", "required": ["x"]})));
        assert_eq!(def.system_prompt, "Do it.");
    }

    #[test]
    fn star_empty_and_inherit_mean_the_callers() {
        let def = parse("---\nname: a\ndescription: d\ntools: Read, *\nmodel: inherit\n---\nx").unwrap();
        assert_eq!((def.tools, def.model), (None, None));
        let def = parse("---\nname: a\ndescription: d\ntools:\n---\nx").unwrap();
        assert_eq!(def.tools, None);
        let def = parse("---\nname: a\ndescription: d\ntools: []\n---\nx").unwrap();
        assert_eq!(def.tools, Some(Vec::new()));
        assert_eq!(tools_label(&def), "None");
    }

    #[test]
    fn bad_values_are_refused_with_the_reason() {
        let cases = [
            (
                "name: a\ndescription: d\npermissionMode: bubble",
                "`permissionMode` must be one of default, acceptEdits, plan, bypassPermissions, dontAsk, auto; not `bubble`",
            ),
            ("name: a\ndescription: d\nmaxTurns: 0", "`maxTurns` must be a positive whole number, not `0`"),
            ("name: a\ndescription: d\nmaxTurns: -3", "`maxTurns` must be a positive whole number, not `-3`"),
            ("name: a\ndescription: d\nbackground: maybe", "`background` must be true or false, not `maybe`"),
            (
                "name: a\ndescription: d\nmodel: big model",
                "`model` must be `inherit`, an alias (`sonnet`, `opus`, `haiku`) or a model id, not `big model`",
            ),
            ("name: [a, b]\ndescription: d", "`name` must be a single value, not a list"),
            ("description: d", "the frontmatter has no `name`"),
            ("name: a\ndescription: ''", "the frontmatter has no `description`"),
        ];
        for (head, reason) in cases {
            assert_eq!(parse(&format!("---\n{head}\n---\nbody")), Err(format!("/a/x.md: {reason}")), "{head}");
        }
        assert_eq!(
            parse("---\nname: a\ndescription: d\n---\n  \n"),
            Err("/a/x.md: the file has no instructions after its frontmatter (the system prompt is empty)".into())
        );
        assert!(parse("just a body").unwrap_err().contains("there is no frontmatter"));
        assert!(parse("---\nname: a\n").unwrap_err().contains("no closing `---` line"));
        assert!(
            parse("---\nname: a\nmeta:\n  nested: map\n---\nx").unwrap_err().contains("the frontmatter does not parse")
        );
    }

    #[test]
    fn an_output_schema_may_be_quoted_but_must_be_an_object() {
        let def = parse("---\nname: a\ndescription: d\noutputSchema: '{\"type\": \"object\"}'\n---\nx").unwrap();
        assert_eq!(def.output_schema, Some(serde_json::json!({"type": "object"})));
        assert_eq!(
            parse("---\nname: a\ndescription: d\noutputSchema: [1]\n---\nx"),
            Err("/a/x.md: `outputSchema` must be a single value, not a list".into())
        );
        assert_eq!(
            parse("---\nname: a\ndescription: d\noutputSchema: '\"text\"'\n---\nx"),
            Err("/a/x.md: `outputSchema` must be a JSON object (a JSON Schema), not a string".into())
        );
        assert!(
            parse("---\nname: a\ndescription: d\noutputSchema: {\"type\": \n---\nx")
                .unwrap_err()
                .starts_with("/a/x.md: `outputSchema` is not valid JSON: ")
        );
    }

    #[test]
    fn labels_and_listing() {
        let mut def =
            parse("---\nname: r\ndescription: Reviews\ntools: Read, Grep, Bash\ndisallowedTools: Bash\n---\nx")
                .unwrap();
        assert_eq!(tools_label(&def), "Read, Grep");
        def.tools = None;
        assert_eq!(tools_label(&def), "All tools except Bash");
        assert_eq!(listing(&[def]), "- r: Reviews (Tools: All tools except Bash)");
        assert_eq!(listing(&[]), "");
    }
}
