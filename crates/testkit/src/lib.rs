//! Test support shared by the agent-tools crates (a dev-dependency only).
//!
//! - [`oracle_fixture`]: the folder Claude Code's recorded results were taken in, rebuilt
//!   in a temporary directory, so each tool crate can
//!   assert the recorded texts on the same files;
//! - [`write`](fn@write) / [`touch`]: create files and set their modification times;
//! - [`run`]: one call through the contract, returning the result text and whether it is an
//!   error;
//! - [`Session::mark_read`]: the model's Read of a file, recorded as Read records it, so the
//!   file-changing tools' tests need no tool crate besides their own;
//! - [`fake_api::FakeApi`]: a scripted fake of the Messages API (and of Chat Completions) on a
//!   local port, for the model client's, the agent loop's and the CLI's tests.
//!
//! ```
//! use std::time::{Duration, SystemTime, UNIX_EPOCH};
//! use agent_tools_testkit::{eventually_blocking, touch, GitRepo, Session};
//! let s = Session::new(); // a temporary folder and one context
//! let path = s.put("src/notes.txt", "one\r\ntwo\r\n");
//! assert_eq!(s.mark_read(&path), "one\ntwo\n"); // recorded as Read records it
//! assert_eq!(&*s.ctx.read_file_state.get(&s.path("src/notes.txt")).unwrap().content, "one\ntwo\n");
//! touch(s.dir.path(), "src/notes.txt", 1_000_000_000);
//! let modified = std::fs::metadata(&path).unwrap().modified().unwrap();
//! assert_eq!(modified, UNIX_EPOCH + Duration::from_secs(1_000_000_000));
//! assert!(eventually_blocking(Duration::from_secs(5), || SystemTime::now() > modified));
//! let repo = GitRepo::new(); // one commit of README.md on main, git isolated from the user's config
//! assert_eq!(repo.git(&["log", "--format=%s"]), "first\n");
//! assert!(repo.has_branch("main"));
//! ```

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

pub mod fake_api;
pub mod http;
pub mod procs;

pub use crate::procs::{alive, carrying, ended, eventually, eventually_blocking, live_processes_with_arg};

use std::fs;
use std::path::Path;

use agent_tools_core::call_tool;
use agent_tools_core::{Tool, ToolUseContext};
use filetime::{FileTime, set_file_mtime};
use serde_json::Value;

/// Writes `bytes` to `root/path`, creating folders as needed.
pub fn write(root: &Path, path: &str, bytes: impl AsRef<[u8]>) {
    let file = root.join(path);
    fs::create_dir_all(file.parent().unwrap()).unwrap();
    fs::write(file, bytes).unwrap();
}

/// Sets the modification time of `root/path` (seconds since the Unix epoch).
pub fn touch(root: &Path, path: &str, unix_seconds: i64) {
    set_file_mtime(root.join(path), FileTime::from_unix_time(unix_seconds, 0)).unwrap();
}

/// The `proj` tree of the oracle fixture, in mtime order (oldest first).
pub const PROJ_FILES: &[(&str, &str)] = &[
    ("proj/README.md", "# Proj\nA helper project.\n"),
    ("proj/docs/guide.md", "# Guide\n\nUse `helper()` here.\nTODO: more docs\n"),
    ("proj/scripts/run.py", "def main():\n    print('hello')  # TODO\n\nif __name__ == '__main__':\n    main()\n"),
    ("proj/scripts/util.py", "import os\n\ndef helper():\n    return os.getcwd()\n"),
    ("proj/src/lib.rs", "// TODO: document\npub struct Foo {\n    a: i32,\n    b: i32,\n}\n\npub fn helper() {}\n"),
    ("proj/src/main.rs", "fn main() {\n    println!(\"Hello\");\n    helper();\n}\n"),
    ("proj/src/util/mod.rs", "pub fn util_fn() -> u32 {\n    42\n}\n// todo lower\n"),
];

/// The notebook of the oracle fixture (`nb.ipynb`).
pub const NOTEBOOK: &str = r##"{
 "cells": [
  {
   "cell_type": "markdown",
   "id": "intro",
   "metadata": {},
   "source": [
    "# Title\n",
    "Some text"
   ]
  },
  {
   "cell_type": "code",
   "id": "calc",
   "metadata": {},
   "execution_count": 1,
   "outputs": [
    {
     "name": "stdout",
     "output_type": "stream",
     "text": [
      "2\n"
     ]
    }
   ],
   "source": [
    "print(1 + 1)"
   ]
  }
 ],
 "metadata": {
  "kernelspec": {
   "display_name": "Python 3",
   "language": "python",
   "name": "python3"
  },
  "language_info": {
   "name": "python"
  }
 },
 "nbformat": 4,
 "nbformat_minor": 5
}
"##;

/// Rebuilds the oracle fixture in a new temporary directory: the files Claude Code's recorded
/// calls ran on, the `proj` tree with mtimes one minute apart from 2024-01-01 (README.md
/// oldest, mod.rs newest), and 120 empty files `many/f001.txt`…`f120.txt` one second apart.
pub fn oracle_fixture() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    write(root, "small.txt", "alpha\nbeta\ngamma\ndelta\nepsilon\n");
    write(root, "lines100.txt", (1..=100).map(|i| format!("line {i}\n")).collect::<String>());
    write(root, "lines2500.txt", (1..=2500).map(|i| format!("row {i}\n")).collect::<String>());
    write(root, "long-line.txt", format!("short first line\n{}\nlast line\n", "x".repeat(2500)));
    write(root, "empty.txt", "");
    write(root, "blob.bin", b"\x7fELF\x02\x01\x01\x00\x00\x00\x00\x00\x00\x00\x00\x00\x03\x00\xfe\x00\xff\x00");
    write(root, "plain-text.dat", "plain text in a .dat file\n");
    write(root, "nul-bytes.txt", b"hi\x00\nthere\xff\n");
    write(root, "latin1.txt", b"caf\x88\xe9\n");
    write(root, "existing.txt", "original content\n");
    write(root, "edit.txt", "foo bar\nfoo baz\nqux\n");
    write(root, "crlf.txt", "one\r\ntwo\r\nthree\r\n");
    write(root, "unread.txt", "never read\n");
    write(root, "nb.ipynb", NOTEBOOK);
    for (i, (path, text)) in PROJ_FILES.iter().enumerate() {
        write(root, path, text);
        touch(root, path, 1_704_067_200 + 60 * i as i64);
    }
    for i in 1..=120 {
        let path = format!("many/f{i:03}.txt");
        write(root, &path, "");
        touch(root, &path, 1_706_745_600 + i);
    }
    dir
}

/// Runs one call of `tool` (parse → validate → call → map) and returns the result text and
/// whether it is an error.
pub async fn run(tool: &dyn Tool, ctx: &ToolUseContext, input: Value) -> (String, bool) {
    let done = call_tool(tool, "toolu_test", input, ctx).await;
    assert_eq!(done.block.tool_use_id, "toolu_test");
    (done.block.content.text(), done.block.is_error)
}

/// Runs one call with a fresh context at `cwd` and expects success; returns the text.
pub async fn ok(tool: &dyn Tool, cwd: &Path, input: Value) -> String {
    let (text, is_error) = run(tool, &ToolUseContext::new(cwd), input.clone()).await;
    assert!(!is_error, "unexpected error for {input}: {text}");
    text
}

/// Runs one call with a fresh context at `cwd` and expects an error; returns the text.
pub async fn err(tool: &dyn Tool, cwd: &Path, input: Value) -> String {
    let (text, is_error) = run(tool, &ToolUseContext::new(cwd), input.clone()).await;
    assert!(is_error, "expected an error for {input}, got: {text}");
    text
}

/// One conversation in a fresh folder: a context whose file-read state and working directory
/// live across calls, as in an agent session.
pub struct Session {
    /// The folder (deleted when the session is dropped).
    pub dir: tempfile::TempDir,
    /// The context every call of the session uses.
    pub ctx: ToolUseContext,
}

impl Default for Session {
    fn default() -> Self {
        Self::in_dir(tempfile::tempdir().unwrap())
    }
}

impl Session {
    /// A session in a new empty folder.
    pub fn new() -> Self {
        Self::default()
    }

    /// A session in `dir` (e.g. [`oracle_fixture`]).
    pub fn in_dir(dir: tempfile::TempDir) -> Self {
        let ctx = ToolUseContext::new(dir.path());
        Self { dir, ctx }
    }

    /// `name` inside the folder.
    pub fn path(&self, name: &str) -> std::path::PathBuf {
        self.dir.path().join(name)
    }

    /// `name` inside the folder, as a string (how a model would pass it).
    pub fn abs(&self, name: &str) -> String {
        self.path(name).to_string_lossy().into_owned()
    }

    /// Writes `bytes` to `name` (creating folders) and returns its absolute path.
    pub fn put(&self, name: &str, bytes: impl AsRef<[u8]>) -> String {
        write(self.dir.path(), name, bytes);
        self.abs(name)
    }

    /// The bytes of `name`.
    pub fn bytes(&self, name: &str) -> Vec<u8> {
        fs::read(self.path(name)).unwrap()
    }

    /// Records that the model read `file_path` whole, as the Read tool records it
    /// (`agent_tools_files::record_read`): what Edit, Write and NotebookEdit require before they
    /// change an existing file. Returns the text recorded (byte-order mark dropped, line endings
    /// normalised to `\n`). Panics when the file cannot be loaded as text.
    pub fn mark_read(&self, file_path: &str) -> String {
        self.mark_read_lines(file_path, None)
    }

    /// As [`Session::mark_read`] for a Read with `offset` and `limit`: `Some((offset, limit))`
    /// records lines `offset..offset + limit` (1-based) as the part of the file the model saw.
    pub fn mark_read_lines(&self, file_path: &str, range: Option<(u64, u64)>) -> String {
        let path = self.ctx.resolve_path(file_path);
        let file = agent_tools_files::load_text_file(&path, agent_tools_files::MAX_FILE_BYTES)
            .unwrap_or_else(|error| panic!("{file_path}: {error:?}"))
            .unwrap_or_else(|| panic!("{file_path} does not exist"));
        let content = match range {
            None => file.text.clone(),
            Some((offset, limit)) => {
                let skip = usize::try_from(offset.saturating_sub(1)).unwrap();
                let take = usize::try_from(limit).unwrap();
                file.text.split('\n').skip(skip).take(take).collect::<Vec<_>>().join("\n")
            }
        };
        let modified = fs::metadata(&path).and_then(|meta| meta.modified());
        let (offset, limit) = range.map_or((None, None), |(offset, limit)| (Some(offset), Some(limit)));
        agent_tools_files::record_read(
            &self.ctx.read_file_state,
            &path,
            content.clone(),
            file.content_hash,
            modified,
            offset,
            limit,
        );
        content
    }

    /// One call of `tool` in this session: the result text and whether it is an error.
    pub async fn run(&self, tool: &dyn Tool, input: Value) -> (String, bool) {
        run(tool, &self.ctx, input).await
    }

    /// One call that must succeed; returns the text.
    pub async fn ok(&self, tool: &dyn Tool, input: Value) -> String {
        let (text, is_error) = self.run(tool, input.clone()).await;
        assert!(!is_error, "{} failed for {input}: {text}", tool.name());
        text
    }

    /// One call that must fail; returns the text.
    pub async fn err(&self, tool: &dyn Tool, input: Value) -> String {
        let (text, is_error) = self.run(tool, input.clone()).await;
        assert!(is_error, "{} should have failed for {input}: {text}", tool.name());
        text
    }
}

/// A git repository in a new temporary folder, isolated from the user's git configuration:
/// one commit of `README.md` on `main`, `user.name` / `user.email` set in the repository.
pub struct GitRepo {
    /// The folder (deleted when the value is dropped).
    pub dir: tempfile::TempDir,
    /// The repository root, canonical (symbolic links resolved), as git reports it.
    pub root: std::path::PathBuf,
}

impl GitRepo {
    /// Creates the repository (`git init -b main`, one commit).
    pub fn new() -> Self {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().join("repo");
        fs::create_dir_all(&root).unwrap();
        let root = root.canonicalize().unwrap();
        let repo = Self { dir, root };
        repo.git(&["init", "-q", "-b", "main"]);
        repo.git(&["config", "user.name", "Test"]);
        repo.git(&["config", "user.email", "test@example.com"]);
        repo.git(&["config", "commit.gpgsign", "false"]);
        write(&repo.root, "README.md", "# test\n");
        repo.git(&["add", "README.md"]);
        repo.git(&["commit", "-q", "-m", "first"]);
        repo
    }

    /// The environment every git command of a test should get: `HOME` and the XDG config folder
    /// inside the temporary folder, no system configuration.
    pub fn env(&self) -> Vec<(std::ffi::OsString, std::ffi::OsString)> {
        let home = self.dir.path().join("home");
        vec![
            ("HOME".into(), home.clone().into_os_string()),
            ("XDG_CONFIG_HOME".into(), home.join(".config").into_os_string()),
            ("GIT_CONFIG_NOSYSTEM".into(), "1".into()),
        ]
    }

    /// Runs `git <args>` in `dir` with [`GitRepo::env`]; panics on failure; returns stdout.
    pub fn git_in(&self, dir: &Path, args: &[&str]) -> String {
        let output = std::process::Command::new("git").arg("-C").arg(dir).args(args).envs(self.env()).output().unwrap();
        assert!(output.status.success(), "git {args:?} failed: {}", String::from_utf8_lossy(&output.stderr));
        String::from_utf8(output.stdout).unwrap()
    }

    /// Runs `git <args>` at the repository root (see [`GitRepo::git_in`]).
    pub fn git(&self, args: &[&str]) -> String {
        self.git_in(&self.root, args)
    }

    /// True when the branch exists.
    pub fn has_branch(&self, branch: &str) -> bool {
        !self.git(&["branch", "--list", branch]).trim().is_empty()
    }

    /// Makes the repository's own configuration name programs git runs by itself, as a hostile
    /// repository would: `core.fsmonitor`, the `post-checkout`, `reference-transaction` and
    /// `pre-auto-gc` hooks, a clean/smudge filter for every file (through a committed
    /// `.gitattributes`), a diff `textconv` driver, and a second filter and a credential helper
    /// set in a file the configuration includes. Each program appends its name to the returned
    /// log file (outside the repository) and passes its input through, so git works as usual;
    /// an empty or missing log means none ran.
    pub fn arm_programs(&self) -> std::path::PathBuf {
        let log = self.dir.path().join("programs-ran.log");
        let script = self.dir.path().join("program.sh");
        write(
            self.dir.path(),
            "program.sh",
            format!("#!/bin/sh\necho \"$1\" >> '{}'\ncat 2>/dev/null\nexit 0\n", log.display()),
        );
        let hooks = self.root.join(".git/hooks");
        for hook in ["post-checkout", "reference-transaction", "pre-auto-gc"] {
            write(&hooks, hook, format!("#!/bin/sh\necho hook-{hook} >> '{}'\nexit 0\n", log.display()));
        }
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            for file in ["post-checkout", "reference-transaction", "pre-auto-gc"]
                .map(|hook| hooks.join(hook))
                .iter()
                .chain([&script])
            {
                fs::set_permissions(file, fs::Permissions::from_mode(0o755)).unwrap();
            }
        }
        let run = |name: &str| format!("{} {name}", script.display());
        self.git(&["config", "core.fsmonitor", &run("fsmonitor")]);
        self.git(&["config", "filter.evil.clean", &run("clean")]);
        self.git(&["config", "filter.evil.smudge", &run("smudge")]);
        self.git(&["config", "diff.conv.textconv", &run("textconv")]);
        self.git(&["config", "include.path", "../../included.config"]);
        write(
            self.dir.path(),
            "included.config",
            format!(
                "[filter \"inc\"]\n\tsmudge = {}\n[credential]\n\thelper = {}\n",
                run("included-smudge"),
                run("credential")
            ),
        );
        write(&self.root, ".gitattributes", "* filter=evil diff=conv\n*.md filter=inc\n");
        self.git(&["add", ".gitattributes"]);
        self.git(&["commit", "-q", "-m", "attributes"]);
        // Setting up ran some of them; start the log afresh.
        let _ = fs::remove_file(&log);
        log
    }
}

impl Default for GitRepo {
    fn default() -> Self {
        Self::new()
    }
}

/// The folder holding the real language servers the LSP tests use (`pyright-langserver`,
/// `typescript-language-server`, and the `node` they run on): `AGENT_TOOLS_LSP_BIN` when set,
/// else `.ci/lsp/node_modules/.bin` of this checkout when `.ci/run` (or `npm install --prefix
/// .ci/lsp`) installed them there. `None` prints why the caller skips — and panics instead
/// when `AGENT_TOOLS_REQUIRE_LSP=1` (CI), so a missing server fails there rather than skip.
pub fn lsp_bin_dir(test: &str, programs: &[&str]) -> Option<std::path::PathBuf> {
    let dir = std::env::var_os("AGENT_TOOLS_LSP_BIN")
        .map(std::path::PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("../../.ci/lsp/node_modules/.bin"));
    let missing: Vec<&str> = programs.iter().copied().filter(|program| !dir.join(program).exists()).collect();
    if missing.is_empty() {
        return Some(dir);
    }
    let why = format!(
        "{test}: skipped: {} not found in {} (run `npm install --prefix .ci/lsp`)",
        missing.join(", "),
        dir.display()
    );
    if std::env::var_os("AGENT_TOOLS_REQUIRE_LSP").is_some_and(|value| value == "1") {
        #[allow(clippy::panic)]
        {
            panic!("{why}, and AGENT_TOOLS_REQUIRE_LSP=1 forbids skipping");
        }
    }
    #[allow(clippy::print_stderr)]
    {
        eprintln!("{why}");
    }
    None
}

/// `PATH` with `dir` first (so a server's `#!/usr/bin/env node` finds the `node` beside it).
pub fn path_with(dir: &Path) -> std::ffi::OsString {
    let rest = std::env::var_os("PATH").unwrap_or_default();
    std::env::join_paths(std::iter::once(dir.to_path_buf()).chain(std::env::split_paths(&rest))).unwrap_or(rest)
}
