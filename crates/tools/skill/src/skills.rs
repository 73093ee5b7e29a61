//! Finding skills on disk and expanding their text.
//!
//! A skill is a folder `<skills dir>/<name>/SKILL.md`: YAML frontmatter (`name`, `description`,
//! `when_to_use`, `allowed-tools`, `model`, `disable-model-invocation`, `context` …) and a
//! markdown body, the prompt the model receives when the skill runs.

use std::collections::HashSet;
use std::path::{Path, PathBuf};

use agent_tools_core::frontmatter::{self, Frontmatter, Value};

/// The file naming a skill inside its folder.
pub const SKILL_FILE: &str = "SKILL.md";

/// Frontmatter keys that do not widen what a skill may do. A skill using only these runs
/// without asking (Claude Code allows skills whose definition has only "safe" properties).
/// Any other key — `allowed-tools`, `hooks`, `model`, `effort`, `agent`, and keys this crate
/// does not know — makes the call ask first.
pub const SAFE_KEYS: &[&str] = &[
    "name",
    "description",
    "when_to_use",
    "when-to-use",
    "argument-hint",
    "arguments",
    "version",
    "license",
    "disable-model-invocation",
    "user-invocable",
    "paths",
];

/// One skill found on disk.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Skill {
    /// The name the model calls it by: the folder's name (Claude Code names a skill after its
    /// folder; a `name` key in the frontmatter is only a display name).
    pub name: String,
    /// The `description` key, else the body's first non-empty line (without `#`s).
    pub description: String,
    /// The `when_to_use` key, if any.
    pub when_to_use: Option<String>,
    /// The skill's folder (absolute when the skills folder was).
    pub base_dir: PathBuf,
    /// The `SKILL.md` path.
    pub path: PathBuf,
    /// The parsed frontmatter.
    pub frontmatter: Frontmatter,
}

impl Skill {
    /// `allowed-tools` as rule strings (`Read`, `Bash(git diff:*)`); empty when unset.
    pub fn allowed_tools(&self) -> Vec<String> {
        self.frontmatter.get("allowed-tools").map(Value::to_list).unwrap_or_default()
    }

    /// The `model` key, unless empty or `inherit`.
    pub fn model(&self) -> Option<String> {
        let model = self.frontmatter.get("model")?.to_text();
        (!model.trim().is_empty() && model.trim() != "inherit").then(|| model.trim().to_owned())
    }

    /// True when `disable-model-invocation` is set: only the user may run the skill.
    pub fn model_invocation_disabled(&self) -> bool {
        self.frontmatter.get("disable-model-invocation").is_some_and(Value::is_true)
    }

    /// True for `context: fork` (the skill runs as a sub-agent in Claude Code).
    pub fn is_fork(&self) -> bool {
        self.frontmatter.get("context").is_some_and(|value| value.to_text().trim() == "fork")
    }

    /// True when every frontmatter key is in [`SAFE_KEYS`] (or has an empty value).
    pub fn uses_only_safe_keys(&self) -> bool {
        self.frontmatter.iter().all(|(key, value)| {
            SAFE_KEYS.contains(&key.as_str())
                || match value {
                    Value::Text(text) => text.trim().is_empty(),
                    Value::List(items) => items.is_empty(),
                }
        })
    }

    /// The skill's body (the file without its frontmatter), read now so edits since discovery
    /// count. Errors are I/O or frontmatter errors, as text.
    pub fn read_body(&self) -> Result<String, String> {
        let text = std::fs::read_to_string(&self.path).map_err(|error| format!("{}: {error}", self.path.display()))?;
        let (_, body) = frontmatter::split(&text).map_err(|error| format!("{}: {error}", self.path.display()))?;
        Ok(body.trim_start_matches(['\n', '\r']).to_owned())
    }

    /// The listing entry for the prompt: `- name: description - when_to_use`.
    pub fn listing_entry(&self) -> String {
        let mut entry = format!("- {}: {}", self.name, self.description);
        if let Some(when) = &self.when_to_use {
            entry.push_str(" - ");
            entry.push_str(when);
        }
        entry
    }
}

/// Reads one skill folder; `Ok(None)` when it holds no `SKILL.md`.
pub fn load_skill(dir: &Path) -> Result<Option<Skill>, String> {
    let Some(name) = dir.file_name().and_then(|name| name.to_str()) else {
        return Err(format!("{}: the folder name is not UTF-8", dir.display()));
    };
    load_file(&dir.join(SKILL_FILE), name, dir)
}

/// Reads one legacy command file (`.claude/commands/<name>.md`), named after the file; its base
/// directory is the commands folder. `Ok(None)` when there is no such file.
pub fn load_command(file: &Path) -> Result<Option<Skill>, String> {
    let (Some(name), Some(dir)) = (file.file_stem().and_then(|stem| stem.to_str()), file.parent()) else {
        return Err(format!("{}: not a command file name", file.display()));
    };
    if !file.is_file() {
        return Ok(None);
    }
    load_file(file, name, dir)
}

fn load_file(path: &Path, name: &str, base_dir: &Path) -> Result<Option<Skill>, String> {
    let text = match std::fs::read_to_string(path) {
        Ok(text) => text,
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(error) => return Err(format!("{}: {error}", path.display())),
    };
    let (head, body) = frontmatter::split(&text).map_err(|error| format!("{}: {error}", path.display()))?;
    let map = match head {
        Some(head) => frontmatter::parse(head).map_err(|error| format!("{}: {error}", path.display()))?,
        None => Frontmatter::new(),
    };
    let description = map
        .get("description")
        .map(Value::to_text)
        .filter(|text| !text.trim().is_empty())
        .unwrap_or_else(|| first_line(body));
    let when_to_use = map
        .get("when_to_use")
        .or_else(|| map.get("when-to-use"))
        .map(Value::to_text)
        .filter(|text| !text.trim().is_empty());
    Ok(Some(Skill {
        name: name.to_owned(),
        description,
        when_to_use,
        base_dir: base_dir.to_path_buf(),
        path: path.to_path_buf(),
        frontmatter: map,
    }))
}

fn first_line(body: &str) -> String {
    body.lines()
        .map(|line| line.trim().trim_start_matches('#').trim())
        .find(|line| !line.is_empty())
        .unwrap_or_default()
        .to_owned()
}

/// Every skill in `dirs` (each a skills folder holding `<name>/SKILL.md`), then every legacy
/// command in `command_dirs` (each holding `<name>.md`), earlier folders first; a name found
/// again later is skipped (the first one wins). Missing folders are fine; an unreadable or
/// malformed file is skipped with a warning, and its message returned in the second list.
/// Entries of one folder come sorted by name.
pub fn discover(dirs: &[PathBuf], command_dirs: &[PathBuf]) -> (Vec<Skill>, Vec<String>) {
    let mut skills = Vec::new();
    let mut warnings = Vec::new();
    let mut seen = HashSet::new();
    let sources = dirs.iter().map(|dir| (dir, false)).chain(command_dirs.iter().map(|dir| (dir, true)));
    for (dir, commands) in sources {
        let Ok(entries) = std::fs::read_dir(dir) else { continue };
        let mut paths: Vec<PathBuf> = entries.filter_map(Result::ok).map(|entry| entry.path()).collect();
        paths.sort();
        for path in paths {
            let loaded = if commands {
                if path.extension().is_none_or(|ext| ext != "md") {
                    continue;
                }
                load_command(&path)
            } else if path.is_dir() {
                load_skill(&path)
            } else {
                continue;
            };
            match loaded {
                Ok(Some(skill)) => {
                    if seen.insert(skill.name.clone()) {
                        skills.push(skill);
                    }
                }
                Ok(None) => {}
                Err(warning) => {
                    tracing::warn!(%warning, "skipping a skill that cannot be read");
                    warnings.push(warning);
                }
            }
        }
    }
    (skills, warnings)
}

/// Splits arguments the way a shell would for `$0`, `$1` …: on whitespace, with `'…'` and
/// `"…"` grouping words (quotes removed).
pub fn split_args(args: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut current = String::new();
    let mut in_word = false;
    let mut quote = None::<char>;
    for c in args.chars() {
        match (quote, c) {
            (Some(q), c) if c == q => quote = None,
            (Some(_), c) => current.push(c),
            (None, '"' | '\'') => {
                quote = Some(c);
                in_word = true;
            }
            (None, c) if c.is_whitespace() => {
                if in_word {
                    out.push(std::mem::take(&mut current));
                    in_word = false;
                }
            }
            (None, c) => {
                current.push(c);
                in_word = true;
            }
        }
    }
    if in_word {
        out.push(current);
    }
    out
}

/// Expands a skill body for a call with `args`: `$ARGUMENTS` becomes the whole argument string,
/// `$ARGUMENTS[N]` and `$N` the N-th argument (0-based, split as a shell would); a positional
/// with no argument stays as written. `${CLAUDE_SKILL_DIR}` becomes the skill's folder. When the
/// body has none of these placeholders and `args` is not blank, `ARGUMENTS: <args>` is appended, as Claude
/// Code does, so the arguments are never lost.
pub fn expand(body: &str, args: &str, skill_dir: &Path) -> String {
    let words = split_args(args);
    let body = body.replace("${CLAUDE_SKILL_DIR}", &skill_dir.display().to_string());
    let mut placeholders = false;
    let mut out = String::with_capacity(body.len() + args.len());
    let mut rest = body.as_str();
    while let Some(dollar) = rest.find('$') {
        out.push_str(&rest[..dollar]);
        let after = &rest[dollar + 1..];
        if let Some(tail) = after.strip_prefix("ARGUMENTS") {
            placeholders = true;
            if let Some((index, consumed)) = bracket_index(tail) {
                match words.get(index) {
                    Some(word) => out.push_str(word),
                    None => out.push_str(&rest[dollar..dollar + 1 + "ARGUMENTS".len() + consumed]),
                }
                rest = &tail[consumed..];
            } else {
                out.push_str(args);
                rest = tail;
            }
            continue;
        }
        let digits = after.bytes().take_while(u8::is_ascii_digit).count();
        if digits > 0 {
            placeholders = true;
            let word = after[..digits].parse::<usize>().ok().and_then(|index| words.get(index));
            match word {
                Some(word) => out.push_str(word),
                None => out.push_str(&rest[dollar..dollar + 1 + digits]),
            }
            rest = &after[digits..];
            continue;
        }
        out.push('$');
        rest = after;
    }
    out.push_str(rest);
    if !placeholders && !args.trim().is_empty() {
        out.truncate(out.trim_end().len());
        out.push_str("\n\nARGUMENTS: ");
        out.push_str(args);
    }
    out
}

/// `[N]` at the start of `text`: the index and the bytes it takes.
fn bracket_index(text: &str) -> Option<(usize, usize)> {
    let inner = text.strip_prefix('[')?;
    let close = inner.find(']')?;
    let index = inner[..close].parse::<usize>().ok()?;
    Some((index, close + 2))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn expands_arguments_and_positionals() {
        let dir = Path::new("/s/fix");
        assert_eq!(
            expand("Fix $ARGUMENTS: first $0, second $ARGUMENTS[1], none $2 in ${CLAUDE_SKILL_DIR}", "12 'a b'", dir),
            "Fix 12 'a b': first 12, second a b, none $2 in /s/fix"
        );
        assert_eq!(expand("Costs $ and $x", "", dir), "Costs $ and $x");
        assert_eq!(expand("No placeholder", "go now", dir), "No placeholder\n\nARGUMENTS: go now");
        assert_eq!(expand("Tail $ARGUMENTS[", "x", dir), "Tail x[");
        assert_eq!(expand("Big $99999999999999999999999", "x", dir), "Big $99999999999999999999999");
        assert_eq!(expand("Body\n\n", "a", dir), "Body\n\nARGUMENTS: a");
    }

    #[test]
    fn splits_arguments_like_a_shell() {
        assert_eq!(split_args(r#"a "b c" 'd'  e"#), vec!["a", "b c", "d", "e"]);
        assert_eq!(split_args("\"\""), vec![""]);
        assert!(split_args("   ").is_empty());
    }
}
