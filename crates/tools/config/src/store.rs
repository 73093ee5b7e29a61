//! The settings files: reading a setting's effective value across them, and writing one value
//! into one file atomically, other keys and their order left as they were.
//!
//! Precedence is `agent-tools-settings`' (Claude Code's): user, then project, then local, then
//! the `--settings` flag; a later source overrides an earlier one. Files are JSON objects; a
//! missing file is no settings, an empty one is `{}`.

use std::path::{Path, PathBuf};

use serde::Serialize;
use serde_json::{Map, Value};

use crate::keys::Setting;

/// One source of settings, in precedence order (later wins).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "camelCase")]
pub enum Layer {
    /// `~/.claude/settings.json`.
    User,
    /// `.claude/settings.json` (shared with the project; Config never writes it).
    Project,
    /// `.claude/settings.local.json`.
    Local,
    /// A `--settings` file or JSON text (read only).
    Flag,
}

/// Where a layer's settings come from.
#[derive(Debug, Clone, Copy)]
pub enum Source<'a> {
    /// A settings file.
    File(&'a Path),
    /// `--settings` JSON text.
    Text(&'a str),
}

impl Source<'_> {
    /// How messages name the source: the file's path, or `--settings` for JSON text.
    pub fn origin(&self) -> String {
        match self {
            Self::File(path) => path.display().to_string(),
            Self::Text(_) => "--settings".to_owned(),
        }
    }
}

/// A setting's value as a file holds it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Found {
    /// The value.
    pub value: Value,
    /// The file (its path, or `--settings`).
    pub file: String,
    /// Which source it is.
    pub layer: Layer,
}

/// A settings file Config cannot use. The texts are in `render`.
#[derive(Debug)]
pub enum StoreError {
    /// The file exists but cannot be read.
    Read {
        /// The file.
        path: PathBuf,
        /// Why.
        reason: std::io::Error,
    },
    /// The file (or `--settings` text) is not JSON.
    Invalid {
        /// The file's path or `--settings`.
        origin: String,
        /// The parser's complaint.
        reason: serde_json::Error,
    },
    /// The JSON is not an object at the top.
    NotObject {
        /// The file's path or `--settings`.
        origin: String,
    },
    /// A parent of a nested key holds something other than an object (`"permissions": 3`).
    Parent {
        /// The file.
        origin: String,
        /// The parent key (`permissions`).
        key: String,
    },
    /// The new file could not be written.
    Write {
        /// The file.
        path: PathBuf,
        /// Why.
        reason: std::io::Error,
    },
}

fn parse(text: &str, origin: &str) -> Result<Map<String, Value>, StoreError> {
    if text.trim().is_empty() {
        return Ok(Map::new());
    }
    match serde_json::from_str(text) {
        Ok(Value::Object(map)) => Ok(map),
        Ok(_) => Err(StoreError::NotObject { origin: origin.to_owned() }),
        Err(reason) => Err(StoreError::Invalid { origin: origin.to_owned(), reason }),
    }
}

/// The settings of one source; `None` when the file does not exist.
///
/// # Errors
/// A file that cannot be read, is not JSON, or is not an object.
pub fn load(source: Source<'_>) -> Result<Option<Map<String, Value>>, StoreError> {
    match source {
        Source::Text(text) => parse(text, "--settings").map(Some),
        Source::File(path) => match std::fs::read_to_string(path) {
            Ok(text) => parse(&text, &path.display().to_string()).map(Some),
            Err(error) if error.kind() == std::io::ErrorKind::NotFound => Ok(None),
            Err(reason) => Err(StoreError::Read { path: path.to_owned(), reason }),
        },
    }
}

/// The value at `setting`'s key path in `map`, if any.
pub fn lookup<'a>(map: &'a Map<String, Value>, setting: &Setting) -> Option<&'a Value> {
    let mut levels = setting.path();
    let mut current = map.get(levels.next()?)?;
    for level in levels {
        current = current.as_object()?.get(level)?;
    }
    Some(current)
}

/// The value in effect for `setting` across `sources` (given in precedence order): the last
/// source holding a value of the setting's shape ([`crate::Kind::accepts`]); `None` when no
/// source sets it.
///
/// # Errors
/// The first source that cannot be read or parsed: with it unreadable, the value in effect is
/// unknown.
pub fn effective(sources: &[(Layer, Source<'_>)], setting: &Setting) -> Result<Option<Found>, StoreError> {
    let mut found = None;
    for (layer, source) in sources {
        let Some(map) = load(*source)? else { continue };
        if let Some(value) = lookup(&map, setting).filter(|value| setting.kind.accepts(value)) {
            found = Some(Found { value: value.clone(), file: source.origin(), layer: *layer });
        }
    }
    Ok(found)
}

/// Sets `setting` to `value` in the file at `path` and returns what the file held there before.
///
/// The file is read, changed and written back whole (two-space-indented JSON and a final
/// newline) through a temporary file in the same folder renamed over it
/// ([`agent_tools_files::write_atomic`]), so it is never half-written. Every other key
/// stays, in its order; a new key goes last; a missing file and its folders are created. The
/// read, change and write happen under an exclusive lock on `.<file name>.lock` beside the file
/// ([`agent_tools_files::FileLock`]), so two sessions setting keys at once (in this process or
/// others) both keep their change.
///
/// # Errors
/// A file that cannot be read, is not a JSON object, has a non-object where a parent of the key
/// should be, or cannot be written. The file is then unchanged.
pub fn write(path: &Path, setting: &Setting, value: Value) -> Result<Option<Value>, StoreError> {
    let origin = path.display().to_string();
    let write_error = |reason| StoreError::Write { path: path.to_owned(), reason };
    if let Some(parent) = path.parent().filter(|parent| !parent.as_os_str().is_empty()) {
        std::fs::create_dir_all(parent).map_err(write_error)?;
    }
    let _lock =
        agent_tools_files::FileLock::acquire(&agent_tools_files::lock_path_beside(path)).map_err(write_error)?;
    let mut map = load(Source::File(path))?.unwrap_or_default();
    let levels: Vec<&str> = setting.path().collect();
    let Some((last, parents)) = levels.split_last() else {
        return Err(StoreError::NotObject { origin });
    };
    let mut current = &mut map;
    for parent in parents {
        let entry = current.entry((*parent).to_owned()).or_insert_with(|| Value::Object(Map::new()));
        current = entry
            .as_object_mut()
            .ok_or_else(|| StoreError::Parent { origin: origin.clone(), key: (*parent).to_owned() })?;
    }
    let previous = current.insert((*last).to_owned(), value);
    let mut text = serde_json::to_string_pretty(&Value::Object(map))
        .map_err(|reason| StoreError::Invalid { origin: origin.clone(), reason })?;
    text.push('\n');
    agent_tools_files::write_atomic(path, text.as_bytes()).map_err(write_error)?;
    Ok(previous)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::keys::find;
    use serde_json::json;

    #[test]
    fn nested_values_are_found_and_written_in_place() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("deep/settings.json");
        let mode = find("permissions.defaultMode").unwrap();
        assert_eq!(write(&path, mode, json!("plan")).unwrap(), None);
        assert_eq!(
            std::fs::read_to_string(&path).unwrap(),
            "{\n  \"permissions\": {\n    \"defaultMode\": \"plan\"\n  }\n}\n"
        );
        assert_eq!(write(&path, mode, json!("default")).unwrap(), Some(json!("plan")));
        let map = load(Source::File(&path)).unwrap().unwrap();
        assert_eq!(lookup(&map, mode), Some(&json!("default")));
        std::fs::write(&path, r#"{"permissions": ["Bash"]}"#).unwrap();
        assert!(
            matches!(write(&path, mode, json!("plan")), Err(StoreError::Parent { key, .. }) if key == "permissions")
        );
    }

    #[test]
    fn later_sources_win_and_wrong_shapes_are_ignored() {
        let model = find("model").unwrap();
        let sources =
            [(Layer::User, Source::Text(r#"{"model": "opus"}"#)), (Layer::Local, Source::Text(r#"{"model": 3}"#))];
        let found = effective(&sources, model).unwrap().unwrap();
        assert_eq!((found.value, found.layer), (json!("opus"), Layer::User));
        assert!(effective(&[(Layer::Flag, Source::Text("[1]"))], model).is_err());
        assert_eq!(effective(&[(Layer::Flag, Source::Text("  "))], model).unwrap(), None);
    }

    /// Issue 31: sessions setting different keys of one file at once each keep their change
    /// (without the lock, a read-modify-write lost the others' keys).
    #[test]
    fn concurrent_writers_of_one_file_lose_no_key() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(".claude/settings.json");
        let writes = [
            ("model", json!("opus")),
            ("permissions.defaultMode", json!("plan")),
            ("cleanupPeriodDays", json!(7)),
            ("plansDirectory", json!("plans")),
            ("lsp.enabled", json!(true)),
            ("lsp.diagnostics", json!(false)),
            ("sandbox.enabled", json!(true)),
            ("sandbox.autoAllowBashIfSandboxed", json!(false)),
        ];
        let start = std::sync::Barrier::new(writes.len());
        std::thread::scope(|scope| {
            for (key, value) in &writes {
                let (path, start) = (&path, &start);
                scope.spawn(move || {
                    start.wait();
                    write(path, find(key).unwrap(), value.clone()).unwrap();
                });
            }
        });
        let map = load(Source::File(&path)).unwrap().unwrap();
        for (key, value) in &writes {
            assert_eq!(lookup(&map, find(key).unwrap()), Some(value), "{key} in {map:?}");
        }
    }
}
