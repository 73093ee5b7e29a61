//! Workspace trust: whether a project folder's own configuration may run programs or allow
//! tool calls.
//!
//! A cloned repository is a stranger's code. Its `.mcp.json` names programs to start, its
//! `.claude/settings.json` names hooks to run and rules that allow tool calls, and none of that
//! should take effect before the user accepted the folder. Claude Code asks once per folder
//! (its trust dialog) and records the answer in its global configuration file, `~/.claude.json`
//! (`projects["/path"].hasTrustDialogAccepted`); agent-tools keeps its own record beside it
//! ([`TrustStore`]) and honours Claude Code's, so a folder trusted in either is trusted in both
//! programs' eyes here.
//!
//! A folder is trusted when it, or a folder above it, has such a record — except that a record
//! for the home folder or `/` trusts nothing below it (Claude Code never records the home
//! folder's trust: trusting it would trust every project of the user's at once).
//!
//! What an untrusted folder loses is decided by the settings ([`crate::LoadedSettings::restrict_untrusted`]):
//! its allow rules, mode, extra directories, hooks and the like; its deny and ask rules always
//! apply. Nothing here reads the environment: the caller says where the files are.

use std::io;
use std::path::{Path, PathBuf};

use agent_tools_files::{FileLock, lock_path_beside};
use serde_json::Value;

/// Where trust is recorded.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct TrustSources {
    /// Claude Code's global configuration file (`~/.claude.json`, or `.claude.json` in
    /// `$CLAUDE_CONFIG_DIR`); read, never written.
    pub claude_json: Option<PathBuf>,
    /// agent-tools' own record ([`TrustStore`]).
    pub store: Option<PathBuf>,
    /// The user's home folder: a record for it never trusts the folders below.
    pub home: Option<PathBuf>,
}

/// Why a folder is trusted.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TrustedBy {
    /// Claude Code's record for this folder (or one above it) in `~/.claude.json`.
    ClaudeCode(PathBuf),
    /// agent-tools' own record for this folder (or one above it).
    AgentTools(PathBuf),
}

impl TrustedBy {
    /// The folder whose record trusts.
    pub fn folder(&self) -> &Path {
        match self {
            Self::ClaudeCode(folder) | Self::AgentTools(folder) => folder,
        }
    }
}

/// The spellings of a folder a record may use: as given (normalised) and with links resolved.
fn spellings(dir: &Path) -> Vec<PathBuf> {
    let given = agent_tools_core::path::normalize(dir);
    let mut out = vec![given.clone()];
    if let Ok(real) = std::fs::canonicalize(&given)
        && real != given
    {
        out.push(real);
    }
    out
}

/// Whether a record for `folder` may trust folders below it.
fn counts(folder: &Path, home: Option<&Path>) -> bool {
    folder.parent().is_some() && home.is_none_or(|home| spellings(home).iter().all(|home| home != folder))
}

/// Why `dir` is trusted, or `None` when it is not (see the module docs). A file that cannot be
/// read or parsed trusts nothing.
pub fn trusted_by(dir: &Path, sources: &TrustSources) -> Option<TrustedBy> {
    let claude = sources.claude_json.as_deref().and_then(read_json);
    let ours = sources.store.as_deref().map(TrustStore::at).map(|store| store.folders()).unwrap_or_default();
    for spelling in spellings(dir) {
        let mut current = Some(spelling.as_path());
        while let Some(folder) = current {
            current = folder.parent();
            if !counts(folder, sources.home.as_deref()) {
                continue;
            }
            if let Some(config) = &claude
                && claude_code_trusts(config, folder)
            {
                return Some(TrustedBy::ClaudeCode(folder.to_path_buf()));
            }
            if ours.iter().any(|trusted| trusted == folder) {
                return Some(TrustedBy::AgentTools(folder.to_path_buf()));
            }
        }
    }
    None
}

fn read_json(path: &Path) -> Option<Value> {
    serde_json::from_str(&std::fs::read_to_string(path).ok()?).ok()
}

/// Claude Code's own record: `projects["<folder>"].hasTrustDialogAccepted == true`.
fn claude_code_trusts(config: &Value, folder: &Path) -> bool {
    let Some(key) = folder.to_str() else { return false };
    config
        .get("projects")
        .and_then(|projects| projects.get(key))
        .and_then(|project| project.get("hasTrustDialogAccepted"))
        == Some(&Value::Bool(true))
}

/// What Claude Code's `~/.claude.json` says of a project folder's `.mcp.json` servers: its
/// `projects["<folder>"]` entry's `enabledMcpjsonServers` and `disabledMcpjsonServers` (the
/// answers given in Claude Code's approval dialog), or empty lists.
pub fn claude_code_mcpjson_choices(claude_json: &Path, folder: &Path) -> (Vec<String>, Vec<String>) {
    let Some(config) = read_json(claude_json) else { return (Vec::new(), Vec::new()) };
    let list = |project: &Value, key: &str| -> Vec<String> {
        project
            .get(key)
            .and_then(Value::as_array)
            .map(|names| names.iter().filter_map(Value::as_str).map(str::to_owned).collect())
            .unwrap_or_default()
    };
    for spelling in spellings(folder) {
        if let Some(project) = spelling.to_str().and_then(|key| config.get("projects")?.get(key)) {
            return (list(project, "enabledMcpjsonServers"), list(project, "disabledMcpjsonServers"));
        }
    }
    (Vec::new(), Vec::new())
}

/// agent-tools' record of trusted folders: a JSON file `{"trustedFolders": ["/abs/path", …]}`
/// (by default `~/.config/agent-tools/trusted-folders.json`). Changes are made under an
/// exclusive lock on a `.lock` file beside it and written atomically, so concurrent `trust`
/// commands never lose an entry and a reader never sees half a file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TrustStore {
    path: PathBuf,
}

impl TrustStore {
    /// The record at `path` (created on the first [`TrustStore::add`]).
    pub fn at(path: &Path) -> Self {
        Self { path: path.to_path_buf() }
    }

    /// The file.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The trusted folders, in the order they were added; empty when the file is missing or
    /// unreadable.
    pub fn folders(&self) -> Vec<PathBuf> {
        read_json(&self.path)
            .and_then(|value| {
                value
                    .get("trustedFolders")
                    .and_then(Value::as_array)
                    .map(|folders| folders.iter().filter_map(Value::as_str).map(PathBuf::from).collect::<Vec<_>>())
            })
            .unwrap_or_default()
    }

    /// The trusted folders for a change of the record: as [`TrustStore::folders`], but a record
    /// that exists and cannot be read, or is not `{"trustedFolders": [...]}`, is an error
    /// rather than empty, so a change never overwrites (and drops) what it held.
    fn folders_to_change(&self) -> io::Result<Vec<PathBuf>> {
        let text = match std::fs::read_to_string(&self.path) {
            Ok(text) => text,
            Err(error) if error.kind() == io::ErrorKind::NotFound => return Ok(Vec::new()),
            Err(error) => return Err(error),
        };
        let value: Value = serde_json::from_str(&text).map_err(|error| {
            io::Error::new(
                io::ErrorKind::InvalidData,
                format!("{} is not JSON ({error}); fix or remove it", self.path.display()),
            )
        })?;
        let folders = value.get("trustedFolders").and_then(Value::as_array).ok_or_else(|| {
            io::Error::new(
                io::ErrorKind::InvalidData,
                format!("{} has no \"trustedFolders\" list; fix or remove it", self.path.display()),
            )
        })?;
        Ok(folders.iter().filter_map(Value::as_str).map(PathBuf::from).collect())
    }

    /// The record's lock (`.<file name>.lock` beside it), its folder made first.
    fn locked(&self) -> io::Result<FileLock> {
        let parent = self.path.parent().unwrap_or(Path::new("."));
        std::fs::create_dir_all(parent)?;
        FileLock::acquire(&lock_path_beside(&self.path))
    }

    fn save(&self, folders: &[PathBuf]) -> io::Result<()> {
        let list: Vec<Value> =
            folders.iter().map(|folder| Value::String(folder.to_string_lossy().into_owned())).collect();
        let mut text =
            serde_json::to_string_pretty(&serde_json::json!({ "trustedFolders": list })).map_err(io::Error::other)?;
        text.push('\n');
        agent_tools_files::write_atomic(&self.path, text.as_bytes()).map(|_| ())
    }

    /// Records `folder` (absolute; stored with links resolved) as trusted. Returns `false` when
    /// it already was.
    ///
    /// # Errors
    /// The folder does not exist, or the record cannot be locked, read or written, or is not a
    /// record this program wrote (it is then left as it is).
    pub fn add(&self, folder: &Path) -> io::Result<bool> {
        let folder = std::fs::canonicalize(folder)?;
        let _lock = self.locked()?;
        let mut folders = self.folders_to_change()?;
        if folders.contains(&folder) {
            return Ok(false);
        }
        folders.push(folder);
        self.save(&folders)?;
        Ok(true)
    }

    /// Removes `folder`'s record. Returns `false` when there was none.
    ///
    /// # Errors
    /// The record cannot be locked, read or written, or is not a record this program wrote (it
    /// is then left as it is).
    pub fn remove(&self, folder: &Path) -> io::Result<bool> {
        let _lock = self.locked()?;
        let mut folders = self.folders_to_change()?;
        let before = folders.len();
        let names = spellings(folder);
        folders.retain(|trusted| !names.contains(trusted));
        if folders.len() == before {
            return Ok(false);
        }
        self.save(&folders)?;
        Ok(true)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_folder_is_trusted_by_either_record_for_it_or_a_folder_above_but_not_by_home() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap();
        let home = root.join("home");
        let project = home.join("code/app");
        let other = home.join("elsewhere");
        std::fs::create_dir_all(&project).unwrap();
        std::fs::create_dir_all(&other).unwrap();
        let claude_json = home.join(".claude.json");
        let store = home.join(".config/agent-tools/trusted-folders.json");
        let sources = TrustSources {
            claude_json: Some(claude_json.clone()),
            store: Some(store.clone()),
            home: Some(home.clone()),
        };
        assert_eq!(trusted_by(&project, &sources), None);
        // Claude Code's record for a folder above.
        let code = home.join("code");
        std::fs::write(
            &claude_json,
            serde_json::json!({"projects": {code.to_str().unwrap(): {"hasTrustDialogAccepted": true}}}).to_string(),
        )
        .unwrap();
        assert_eq!(trusted_by(&project, &sources), Some(TrustedBy::ClaudeCode(code.clone())));
        assert_eq!(trusted_by(&other, &sources), None);
        // A record for the home folder trusts nothing below it (nor does `false`).
        std::fs::write(
            &claude_json,
            serde_json::json!({"projects": {home.to_str().unwrap(): {"hasTrustDialogAccepted": true},
                                            code.to_str().unwrap(): {"hasTrustDialogAccepted": false}}})
            .to_string(),
        )
        .unwrap();
        assert_eq!(trusted_by(&project, &sources), None);
        // Our own record.
        let ours = TrustStore::at(&store);
        assert!(ours.add(&project).unwrap());
        assert!(!ours.add(&project).unwrap(), "already there");
        assert_eq!(trusted_by(&project.join("sub"), &sources), Some(TrustedBy::AgentTools(project.clone())));
        assert_eq!(ours.folders(), std::slice::from_ref(&project));
        assert!(ours.remove(&project).unwrap());
        assert!(!ours.remove(&project).unwrap());
        assert_eq!(trusted_by(&project, &sources), None);
        // A broken file trusts nothing.
        std::fs::write(&claude_json, "{ not json").unwrap();
        assert_eq!(trusted_by(&project, &sources), None);
    }

    #[test]
    fn concurrent_additions_are_all_kept() {
        let dir = tempfile::tempdir().unwrap();
        let store = dir.path().join("trusted.json");
        let folders: Vec<PathBuf> = (0..16)
            .map(|i| {
                let folder = dir.path().join(format!("p{i}"));
                std::fs::create_dir_all(&folder).unwrap();
                folder.canonicalize().unwrap()
            })
            .collect();
        let barrier = std::sync::Arc::new(std::sync::Barrier::new(folders.len()));
        // Every thread must be started before any is joined: they meet at the barrier.
        #[allow(clippy::needless_collect)]
        let threads: Vec<_> = folders
            .iter()
            .cloned()
            .map(|folder| {
                let (store, barrier) = (store.clone(), barrier.clone());
                std::thread::spawn(move || {
                    barrier.wait();
                    TrustStore::at(&store).add(&folder).unwrap()
                })
            })
            .collect();
        assert!(threads.into_iter().all(|thread| thread.join().unwrap()));
        let mut kept = TrustStore::at(&store).folders();
        kept.sort();
        let mut expected = folders;
        expected.sort();
        assert_eq!(kept, expected);
    }

    #[test]
    fn claude_codes_server_choices_are_read_from_the_project_entry() {
        let dir = tempfile::tempdir().unwrap();
        let folder = dir.path().canonicalize().unwrap();
        let config = folder.join(".claude.json");
        std::fs::write(
            &config,
            serde_json::json!({"projects": {folder.to_str().unwrap():
                {"enabledMcpjsonServers": ["a"], "disabledMcpjsonServers": ["b", 3]}}})
            .to_string(),
        )
        .unwrap();
        assert_eq!(claude_code_mcpjson_choices(&config, &folder), (vec!["a".to_owned()], vec!["b".to_owned()]));
        assert_eq!(claude_code_mcpjson_choices(&config, &folder.join("x")), (Vec::new(), Vec::new()));
    }

    /// Issue 31: a record that is not ours (corrupt, hand-edited into another shape) is not
    /// overwritten by the next change, which would drop every folder it held.
    #[test]
    fn a_record_that_cannot_be_read_is_not_overwritten() {
        let dir = tempfile::tempdir().unwrap();
        let record = dir.path().join("trusted-folders.json");
        let store = TrustStore::at(&record);
        for text in ["{\"trustedFolders\": [\"/a\", ", "{\"folders\": [\"/a\"]}"] {
            std::fs::write(&record, text).unwrap();
            let error = store.add(dir.path()).unwrap_err();
            assert_eq!(error.kind(), io::ErrorKind::InvalidData, "{error}");
            assert!(error.to_string().contains("fix or remove it"), "{error}");
            assert!(store.remove(Path::new("/a")).is_err());
            assert_eq!(std::fs::read_to_string(&record).unwrap(), text);
        }
        std::fs::remove_file(&record).unwrap();
        assert!(store.add(dir.path()).unwrap());
        assert_eq!(store.folders(), [dir.path().canonicalize().unwrap()]);
    }
}
