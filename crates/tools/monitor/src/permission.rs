//! Monitor's permission check: its command is a Bash command and passes Bash's check.
//!
//! The check is the shell tools' own ([`ShellTool::check_permissions`] over [`BashCommands`],
//! Bash as `agent-tools-shell` sees it): `Bash(…)` deny, ask and allow rules part by part, the
//! paths the command reads and writes against `Read(…)`/`Edit(…)` rules and the working
//! directories, the mode, the read-only allow-list, and — in sandbox mode with
//! `autoAllowBashIfSandboxed` — no question for a command that will run sandboxed. Around it:
//!
//! - whole-tool `Bash` rules count too, as they would for the command run with Bash: `Bash` in
//!   the deny list denies every Monitor call, `Bash` in the ask list always asks, `Bash` in the
//!   allow list allows what nothing else refuses;
//! - `Monitor(…)` rules, in the same syntax, are honoured beside the `Bash(…)` ones (that is what
//!   "allow always" saves when no `Bash(…)` rule is suggested), deny and ask before any allow.
//!
//! A command that needs approval comes back as `passthrough` with Bash's message and suggested
//! `Bash(…)` rules; nothing is allowed by default.

use std::path::{Path, PathBuf};

use agent_tools_background::ShellTaskSpec;
use agent_tools_core::PermissionMatcher;
use agent_tools_core::{PermissionBehavior, PermissionDecisionReason, PermissionResult, PermissionRule};
use agent_tools_core::{ToolDef, ToolUseContext};
use agent_tools_shell::{Argv, Interpretation, Shell, ShellConfig, ShellInput, ShellTool, sandbox};

use crate::render;

/// The name Bash's rules are written under.
const BASH: &str = "Bash";

/// Bash as a [`Shell`], with the members the Bash tool gives it: `/bin/bash` (else `bash` on
/// `PATH`), its rules (`agent_tools_shell_analysis`), and the sandbox's exclusions. Monitor uses it
/// for the permission check and for the background task it starts; it never runs a foreground
/// command.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum BashCommands {}

impl Shell for BashCommands {
    const NAME: &'static str = BASH;
    const SEARCH_HINT: &'static str = "run shell commands";
    const PROMPT: &'static str = "";
    const BACKGROUND_PROMPT: &'static str = "";
    /// As Bash: in sandbox mode with `autoAllowBashIfSandboxed`, a command that will run
    /// sandboxed needs no approval unless a rule or safety check says so.
    const AUTO_ALLOW_SANDBOXED: bool = true;

    type Program = PathBuf;

    fn default_program() -> PathBuf {
        let bin_bash = Path::new("/bin/bash");
        if bin_bash.is_file() { bin_bash.to_path_buf() } else { PathBuf::from("bash") }
    }

    fn program(program: &PathBuf) -> Result<&Path, &'static str> {
        Ok(program)
    }

    /// Not used by Monitor; a plain `bash -c` that records the directory it ends in.
    fn foreground(program: &Path, command: &str, cwd_file: &Path) -> Argv {
        let script = r#"trap 'pwd -P >| "$1"' EXIT; eval "$2""#;
        Argv::new(program).arg("-c").arg(script).arg(program).arg(cwd_file).arg(command)
    }

    fn background(program: &Path, command: &str, dir: &Path) -> ShellTaskSpec {
        ShellTaskSpec::new(program, command, dir)
    }

    fn interpret(_command: &str, exit_code: i32) -> Interpretation {
        Interpretation::plain(exit_code)
    }

    fn is_read_only(command: &str) -> bool {
        agent_tools_shell_analysis::is_read_only_command(command, None)
    }

    fn is_concurrency_safe(command: &str) -> bool {
        Self::is_read_only(command) && !agent_tools_shell_analysis::changes_working_directory(command)
    }

    fn is_destructive(command: &str) -> bool {
        agent_tools_shell_analysis::is_destructive_command(command)
    }

    fn check_permissions(command: &str, ctx: &ToolUseContext) -> PermissionResult {
        agent_tools_shell_analysis::check_shell_command(BASH, command, ctx)
    }

    fn permission_matcher(command: &str) -> PermissionMatcher {
        agent_tools_shell_analysis::shell_permission_matcher(command)
    }

    fn is_excluded(command: &str, excluded: &[String]) -> bool {
        sandbox::is_excluded(command, excluded)
    }
}

/// The first whole-tool `Bash` rule of a behaviour (`Bash` with no content).
fn whole_bash_rule(ctx: &ToolUseContext, behavior: PermissionBehavior) -> Option<PermissionRule> {
    ctx.permission_context
        .rules(behavior)
        .find(|rule| rule.rule_value.tool_name == BASH && rule.rule_value.rule_content.is_none())
}

/// An ask that the host puts to the user whatever the mode (a rule asked).
fn is_forced_ask(result: &PermissionResult) -> bool {
    matches!(result, PermissionResult::Ask { .. })
}

/// The decision for running `command` as a Monitor (see the module docs); `bwrap` is the
/// sandbox's binary (`None`: `bwrap` on `PATH`).
pub(crate) async fn check(command: &str, bwrap: Option<&Path>, ctx: &ToolUseContext) -> PermissionResult {
    if let Some(rule) = whole_bash_rule(ctx, PermissionBehavior::Deny) {
        return PermissionResult::deny(render::BASH_DENIED, PermissionDecisionReason::Rule { rule });
    }
    let bash_tool =
        ShellTool::<BashCommands>::new(ShellConfig { bwrap: bwrap.map(Path::to_path_buf), ..ShellConfig::default() });
    let input = ShellInput {
        command: command.to_owned(),
        timeout: None,
        description: None,
        run_in_background: Some(true),
        dangerously_disable_sandbox: None,
    };
    let bash = ToolDef::check_permissions(&bash_tool, &input, ctx).await;
    if matches!(bash, PermissionResult::Deny { .. }) {
        return bash;
    }
    let own = agent_tools_shell_analysis::check_shell_command(crate::NAME, command, ctx);
    if matches!(own, PermissionResult::Deny { .. }) {
        return own;
    }
    if let Some(rule) = whole_bash_rule(ctx, PermissionBehavior::Ask) {
        return PermissionResult::Ask {
            message: render::approval(command),
            updated_input: None,
            decision_reason: Some(PermissionDecisionReason::Rule { rule }),
            suggestions: Vec::new(),
            blocked_path: None,
        };
    }
    if is_forced_ask(&bash) {
        return bash;
    }
    if is_forced_ask(&own) {
        return own;
    }
    if matches!(bash, PermissionResult::Allow { .. }) {
        return bash;
    }
    if let Some(rule) = whole_bash_rule(ctx, PermissionBehavior::Allow) {
        return PermissionResult::Allow {
            updated_input: None,
            decision_reason: Some(PermissionDecisionReason::Rule { rule }),
        };
    }
    // Bash's reasoning with Monitor's rules: only a `Monitor(…)` allow rule makes it differ.
    if matches!(own, PermissionResult::Allow { .. }) {
        return own;
    }
    bash
}
