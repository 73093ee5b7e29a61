//! The system prompt (in our own words) and the environment facts the model gets: working
//! directory, whether it is a git repository, platform, OS version, today's date, the model, and
//! a snapshot of `git status` — the facts Claude Code gives, in its layout (a `# Environment`
//! block, then `gitStatus`).

use std::path::Path;
use std::process::Command;

/// Most characters of `git status --short` kept in the snapshot (Claude Code's 2,000).
pub const MAX_GIT_STATUS_CHARS: usize = 2_000;

/// The opening of the system prompt: who the agent is (Claude Code's first system block says the
/// same in its own words; some gateways look for it).
pub const IDENTITY: &str = "You are Claude Code, Anthropic's official CLI for Claude.";

/// Which default system prompt the model gets.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PromptStyle {
    /// The whole of it, for the Messages API's models: independent tools called together.
    Full,
    /// A short one for small local models behind an OpenAI-compatible server: one tool at a
    /// time, the result read before the next call, paths as they are, and an end that is an
    /// answer without a call. Each line answers a failure seen with Qwen2.5-Coder-1.5B: calls
    /// batched before the first result was read, a `path:` prefix copied from an answer-format
    /// hint, a working file rewritten after the task was done.
    Compact,
}

/// The main system prompt text: how to work with the tools, naming only those of `tools` (the
/// names of the tools the request carries) and speaking of deferred tools only when
/// `deferred` (tool search is active). A small local model takes a named tool it does not have
/// as an instruction to call it.
pub fn base_prompt(tools: &[&str], deferred: bool, style: PromptStyle) -> String {
    let has = |name: &str| tools.contains(&name);
    let file_tools: Vec<&str> =
        ["Read", "Edit", "Write", "Glob", "Grep"].into_iter().filter(|name| has(name)).collect();
    if style == PromptStyle::Compact {
        return compact_prompt(&file_tools, has("Bash"), deferred && has("ToolSearch"));
    }
    let mut text = String::from(
        "You are an agent that works on software projects in the user's working directory, with tools to read, \
         search, edit and run things there.\n\n\
         # How to work\n\
         - Do what was asked: no more, no less. Prefer editing existing files to creating new ones, and never \
         create documentation files unless asked.\n\
         - Read a file before you change it, and keep to its style. Run the project's tests or checks when you \
         can, and say plainly what you could not verify.\n",
    );
    match (file_tools.is_empty(), has("Bash")) {
        (false, true) => text.push_str(&format!(
            "- Use the dedicated tools for files and searches ({}) rather than shell commands such as cat, sed or \
             find; use Bash for builds, tests, git and other programs.\n",
            file_tools.join(", ")
        )),
        (false, false) => text.push_str(&format!("- Use {} for files and searches.\n", file_tools.join(", "))),
        (true, true) => text.push_str("- Use Bash for files, builds, tests, git and other programs.\n"),
        (true, false) => {}
    }
    text.push_str("- Call independent tools together in one response: they run at the same time.\n");
    if deferred && has("ToolSearch") {
        text.push_str(
            "- Some tools are deferred: only their names are listed. Load one with ToolSearch before you call it.\n",
        );
    }
    text.push_str(
        "- A call may be refused by the user's permission settings or a hook. Do not retry the same call; \
         adjust, or ask the user.\n\
         - Never guess URLs, and never expose secrets in output or commits.\n\n\
         # Answers\n\
         Be brief and direct. Refer to code as `path:line`. When the work is done, say what changed in a \
         sentence or two.",
    );
    text
}

/// [`PromptStyle::Compact`]'s text.
fn compact_prompt(file_tools: &[&str], bash: bool, deferred: bool) -> String {
    let mut text = String::from(
        "You are a coding agent. You work on the files in the user's working directory with the tools you have.\n\n\
         Rules:\n\
         - Do the work yourself with the tools: never tell the user how to do it.\n\
         - Call one tool at a time, and read its result before you decide on the next call.\n",
    );
    if file_tools.contains(&"Read") {
        text.push_str("- Read a file before you change it.\n");
    }
    if file_tools.contains(&"Edit") {
        text.push_str(
            "- To change a file, use Edit: old_string is copied exactly from the file, new_string replaces it.\n",
        );
    }
    let others: Vec<&str> = file_tools.iter().copied().filter(|name| !matches!(*name, "Read" | "Edit")).collect();
    if !others.is_empty() {
        text.push_str(&format!("- Other file tools: {}.\n", others.join(", ")));
    }
    if bash {
        text.push_str("- Use Bash to run programs and tests.\n");
    }
    if deferred {
        text.push_str("- More tools are listed by name only: load one with ToolSearch before you call it.\n");
    }
    if file_tools.contains(&"Read") && file_tools.contains(&"Edit") {
        text.push_str(
            "- When a command fails: 1. Read the file its error names. 2. Find the wrong line (often not the one the \
             error points at). 3. Fix it with Edit. 4. Run the command again.\n",
        );
    }
    text.push_str("- Do only what was asked. When it is done, answer in one short sentence, without a tool call.");
    text
}

/// The environment facts of one session.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EnvironmentFacts {
    /// The working directory.
    pub cwd: String,
    /// Whether it is inside a git work tree.
    pub is_git_repo: bool,
    /// `linux`, `macos`, `windows` …
    pub platform: String,
    /// The kernel or OS version (`uname -sr`), if known.
    pub os_version: Option<String>,
    /// Today's date, `YYYY-MM-DD` (UTC).
    pub date: String,
    /// The model the loop asks.
    pub model: String,
    /// Extra directories the tools may use (`--add-dir`).
    pub additional_dirs: Vec<String>,
}

impl EnvironmentFacts {
    /// The facts for `cwd` now.
    pub fn gather(cwd: &Path, model: &str, additional_dirs: &[std::path::PathBuf]) -> Self {
        Self {
            cwd: cwd.display().to_string(),
            is_git_repo: in_git_work_tree(cwd),
            platform: std::env::consts::OS.to_owned(),
            os_version: os_version(),
            date: today(),
            model: model.to_owned(),
            additional_dirs: additional_dirs.iter().map(|dir| dir.display().to_string()).collect(),
        }
    }

    /// The `# Environment` block.
    pub fn render(&self) -> String {
        let mut text = String::from("# Environment\nYou are working in this environment:\n");
        text.push_str(&format!(" - Primary working directory: {}\n", self.cwd));
        text.push_str(&format!(" - Is a git repository: {}\n", self.is_git_repo));
        if !self.additional_dirs.is_empty() {
            text.push_str(&format!(" - Additional working directories: {}\n", self.additional_dirs.join(", ")));
        }
        text.push_str(&format!(" - Platform: {}\n", self.platform));
        if let Some(version) = &self.os_version {
            text.push_str(&format!(" - OS version: {version}\n"));
        }
        text.push_str(&format!(" - Today's date: {}\n", self.date));
        text.push_str(&format!(" - Model: {}", self.model));
        text
    }
}

/// Whether `cwd` is inside a git work tree: a `.git` folder or file (a worktree, a submodule)
/// in it or a folder above it. No process is started: this runs before the first request.
pub fn in_git_work_tree(cwd: &Path) -> bool {
    agent_tools_core::path::git_work_tree_top(cwd).is_some()
}

/// The kernel and its release (`Linux 6.1.0`), read from `/proc` on Linux, else from `uname -sr`.
fn os_version() -> Option<String> {
    let read =
        |name: &str| std::fs::read_to_string(format!("/proc/sys/kernel/{name}")).ok().map(|t| t.trim().to_owned());
    match (read("ostype"), read("osrelease")) {
        (Some(kind), Some(release)) => Some(format!("{kind} {release}")),
        _ => {
            let mut command = Command::new("uname");
            command.arg("-sr");
            run(Path::new("/"), command)
        }
    }
}

/// The `gitStatus` snapshot (branch, status, recent commits) for `cwd`, if it is a git work tree,
/// run by `git` (its program and environment; guarded unless `git.trust_repository`: nothing the
/// repository configures runs — see `agent_tools_worktree::guard`). `None` as well when the
/// repository's configuration cannot be made safe.
pub fn git_status(cwd: &Path, git: &agent_tools_worktree::Git) -> Option<String> {
    let guard = git.guard_blocking(cwd).ok()?;
    let run_git = |args: &[&str]| {
        let mut command = Command::new(&git.program);
        command.args(&guard).args(args).envs(git.env.iter().map(|(key, value)| (key, value)));
        run(cwd, command)
    };
    let branch = run_git(&["branch", "--show-current"])?;
    let mut status = run_git(&["status", "--short"]).unwrap_or_default();
    if status.chars().count() > MAX_GIT_STATUS_CHARS {
        status = status.chars().take(MAX_GIT_STATUS_CHARS).collect();
        status.push_str("\n… (truncated; run git status for the rest)");
    }
    let log = run_git(&["log", "--oneline", "-n", "5"]).unwrap_or_default();
    Some(format!(
        "gitStatus: a snapshot taken when the session started; it does not change during the session.\n\
         Current branch: {branch}\n\nStatus:\n{}\n\nRecent commits:\n{log}",
        if status.is_empty() { "(clean)" } else { status.as_str() }
    ))
}

/// Runs a short command; its trimmed stdout when it succeeded.
fn run(cwd: &Path, mut command: Command) -> Option<String> {
    let output = command
        .current_dir(cwd)
        .env("GIT_OPTIONAL_LOCKS", "0")
        .stdin(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .output()
        .ok()?;
    output.status.success().then(|| String::from_utf8_lossy(&output.stdout).trim().to_owned())
}

/// Today's date in UTC, `YYYY-MM-DD` (civil-from-days, no time-zone database needed).
pub fn today() -> String {
    let secs = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_secs());
    date_of(secs / 86_400)
}

/// The civil date of a day count since 1970-01-01.
fn date_of(days: u64) -> String {
    // Howard Hinnant's civil_from_days, for days >= 0.
    let z = days + 719_468;
    let era = z / 146_097;
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let y = yoe + era * 400;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = if m <= 2 { y + 1 } else { y };
    format!("{y:04}-{m:02}-{d:02}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dates_are_civil() {
        assert_eq!(date_of(0), "1970-01-01");
        assert_eq!(date_of(20_454), "2026-01-01");
        assert_eq!(date_of(11_016), "2000-02-29");
    }

    #[test]
    fn a_git_work_tree_is_found_from_below_without_git() {
        #![allow(clippy::unwrap_used)]
        let dir = tempfile::tempdir().unwrap();
        let sub = dir.path().join("a/b");
        std::fs::create_dir_all(&sub).unwrap();
        let outside = !dir.path().ancestors().any(|d| d.join(".git").exists());
        assert_eq!(in_git_work_tree(&sub), !outside);
        std::fs::create_dir(dir.path().join(".git")).unwrap();
        assert!(in_git_work_tree(&sub));
        if cfg!(target_os = "linux") {
            assert!(os_version().is_some_and(|v| v.starts_with("Linux ")));
        }
    }

    #[test]
    fn the_prompt_names_only_the_tools_sent() {
        let all =
            base_prompt(&["Read", "Edit", "Write", "Glob", "Grep", "Bash", "ToolSearch"], true, PromptStyle::Full);
        assert!(all.contains("(Read, Edit, Write, Glob, Grep) rather than shell commands"), "{all}");
        assert!(all.contains("Load one with ToolSearch"));
        assert!(all.contains("Call independent tools together"));
        let lean = base_prompt(&["Read", "Edit", "Bash"], false, PromptStyle::Full);
        assert!(lean.contains("(Read, Edit) rather than shell commands"), "{lean}");
        for absent in ["Glob", "Grep", "Write", "ToolSearch", "deferred"] {
            assert!(!lean.contains(absent), "{absent} in {lean}");
        }
        let shell = base_prompt(&["Bash"], false, PromptStyle::Full);
        assert!(shell.contains("- Use Bash for files, builds") && !shell.contains("dedicated tools"), "{shell}");
        assert!(!base_prompt(&[], true, PromptStyle::Full).contains("Bash"));
        let compact = base_prompt(&["Read", "Edit", "Bash", "Grep", "ToolSearch"], false, PromptStyle::Compact);
        assert!(
            compact.contains("Call one tool at a time") && compact.contains("Other file tools: Grep."),
            "{compact}"
        );
        for absent in ["path:line", "ToolSearch", "Write", "together"] {
            assert!(!compact.contains(absent), "{absent} in {compact}");
        }
    }

    #[test]
    fn the_environment_block_names_the_facts() {
        let facts = EnvironmentFacts {
            cwd: "/p".into(),
            is_git_repo: false,
            platform: "linux".into(),
            os_version: Some("Linux 6.1".into()),
            date: "2026-12-02".into(),
            model: "m".into(),
            additional_dirs: vec!["/q".into()],
        };
        let text = facts.render();
        assert!(text.starts_with("# Environment\n"));
        for line in [
            " - Primary working directory: /p",
            " - Is a git repository: false",
            " - Additional working directories: /q",
            " - Today's date: 2026-12-02",
        ] {
            assert!(text.contains(line), "{line}");
        }
    }
}
