//! The shell tools' one contract: [`ShellTool`] implements the Tool contract once for any
//! [`Shell`], which supplies only what differs between shells — the program and its arguments,
//! what exit codes mean, the prompt, and the classification and permission rules for its
//! command language.

use agent_tools_core::{AgentScope, Capabilities, ToolKind};
use std::fmt;
use std::path::Path;

use agent_tools_background::ShellTaskSpec;
use agent_tools_core::PermissionDecisionReason;
use agent_tools_core::{
    InterruptBehavior, MaxResultSize, PermissionResult, PromptOptions, ToolDef, ToolError, ToolResult, ToolResultBlock,
    ToolUseContext,
};
use agent_tools_core::{PermissionMatcher, RestrictionMatcher};
use serde_json::Value;

use crate::input::{ShellInput, input_schema};
use crate::process::Argv;
use crate::render::{ShellOutput, to_block};
use crate::runner::{
    Background, Foreground, Interpretation, MAX_OUTPUT_CHARS, ShellConfig, run_foreground, start_background,
};
use crate::sandbox;

/// A shell a tool runs commands in (Bash, PowerShell): everything [`ShellTool`] needs to know
/// about it. Implemented by a type that is never built (`enum Bash {}`); every member is an
/// associated item.
pub trait Shell: fmt::Debug + Clone + PartialEq + Eq + Send + Sync + 'static {
    /// The tool's API name (`Bash`, `PowerShell`).
    const NAME: &'static str;
    /// A 3–10 word capability phrase for ToolSearch.
    const SEARCH_HINT: &'static str;
    /// The model-facing prompt.
    const PROMPT: &'static str;
    /// The prompt's paragraph on `run_in_background` (left out when background tasks are off).
    const BACKGROUND_PROMPT: &'static str;
    /// The `command` field's description, when it is not the shared input's (Bash's).
    const COMMAND_DESCRIPTION: Option<&'static str> = None;
    /// Whether a command that will run sandboxed is allowed without asking when
    /// `sandbox.autoAllowBashIfSandboxed` is on (unless a rule or safety check says otherwise).
    const AUTO_ALLOW_SANDBOXED: bool;

    /// What names the program in the settings ([`ShellConfig::shell`]): a path (Bash), or an
    /// optional path (PowerShell, `None` when it is not installed).
    type Program: fmt::Debug + Clone + PartialEq + Eq + Send + Sync;

    /// The program when the settings do not name one.
    fn default_program() -> Self::Program;

    /// The program to run, or `Err(message)` when there is none: the tool is then disabled, and
    /// a call fails with the message.
    fn program(program: &Self::Program) -> Result<&Path, &'static str>;

    /// The program and arguments running `command` in the foreground; the shell must write the
    /// directory it ends in to `cwd_file` however the command ends.
    fn foreground(program: &Path, command: &str, cwd_file: &Path) -> Argv;

    /// The background task running `command` in `dir` (its description, environment additions
    /// and sandbox are filled in by the caller).
    fn background(program: &Path, command: &str, dir: &Path) -> ShellTaskSpec;

    /// What `exit_code` means for `command`.
    fn interpret(command: &str, exit_code: i32) -> Interpretation;

    /// Whether `command` provably only reads.
    fn is_read_only(command: &str) -> bool;

    /// Whether `command` may run side by side with other concurrency-safe calls.
    fn is_concurrency_safe(command: &str) -> bool;

    /// Whether `command` may delete or overwrite data (`true` when in doubt).
    fn is_destructive(command: &str) -> bool;

    /// The permission decision for `command` under the tool's rules, paths and mode.
    fn check_permissions(command: &str, ctx: &ToolUseContext) -> PermissionResult;

    /// Whether a rule pattern of this tool covers any part of `command` (for hook conditions).
    fn permission_matcher(command: &str) -> PermissionMatcher;

    /// Whether rule contents of this tool, together, cover every part of `command` (for a
    /// sub-agent's tool restriction). `None` by default: a restricted call of this shell is then
    /// refused, since its parts cannot be checked one by one.
    fn restriction_matcher(_command: &str) -> Option<RestrictionMatcher> {
        None
    }

    /// Whether `command` is one of the sandbox's `excludedCommands` patterns.
    fn is_excluded(command: &str, excluded: &[String]) -> bool;
}

/// A shell tool: Claude Code's Bash contract over the shell `S` (see the crate docs).
#[derive(Debug, Clone)]
pub struct ShellTool<S: Shell> {
    config: ShellConfig<S>,
}

impl<S: Shell> Default for ShellTool<S> {
    fn default() -> Self {
        Self::new(ShellConfig::default())
    }
}

impl<S: Shell> ShellTool<S> {
    /// The tool with the given settings.
    pub fn new(config: ShellConfig<S>) -> Self {
        Self { config }
    }

    /// The settings.
    pub fn config(&self) -> &ShellConfig<S> {
        &self.config
    }

    /// Whether this call runs in the sandbox (sandbox mode on, not left with
    /// `dangerouslyDisableSandbox`, not an excluded command).
    fn sandboxed(input: &ShellInput, ctx: &ToolUseContext) -> bool {
        sandbox::wanted(&ctx.options.sandbox, input.dangerously_disable_sandbox, |excluded| {
            S::is_excluded(&input.command, excluded)
        })
    }
}

impl<S: Shell> ToolDef for ShellTool<S> {
    type Input = ShellInput;
    type Output = ShellOutput;

    const NAME: &'static str = S::NAME;

    const CAPABILITIES: Capabilities = Capabilities::new(ToolKind::Execute).scope(AgentScope::Everywhere).shell();

    /// Rules match the command (`Bash(npm test:*)`), so "allow always" keeps it.
    fn rule_content_field(&self) -> Option<&'static str> {
        Some("command")
    }

    fn search_hint(&self) -> Option<&str> {
        Some(S::SEARCH_HINT)
    }

    /// Enabled when the settings name a program.
    fn is_enabled(&self) -> bool {
        S::program(&self.config.shell).is_ok()
    }

    /// The derived schema, with the shell's `command` description, and without
    /// `run_in_background` when background tasks are off.
    fn input_json_schema(&self) -> Option<Value> {
        input_schema(self.config.background_tasks, S::COMMAND_DESCRIPTION)
    }

    fn summary(&self, input: &ShellInput) -> String {
        input.summary().unwrap_or(&input.command).to_owned()
    }

    /// What the auto mode's classifier judges: The command itself.
    fn to_auto_classifier_input(&self, input: &ShellInput) -> serde_json::Value {
        serde_json::Value::String(input.command.clone())
    }

    fn description(&self, _options: &PromptOptions<'_>) -> String {
        let mut prompt = S::PROMPT.to_owned();
        if self.config.background_tasks {
            prompt.push('\n');
            prompt.push_str(S::BACKGROUND_PROMPT);
        }
        prompt.push_str(sandbox::PROMPT);
        prompt
    }

    fn max_result_size_chars(&self) -> MaxResultSize {
        MaxResultSize::Chars(MAX_OUTPUT_CHARS)
    }

    /// An interrupt stops the command: its whole process tree is killed at once (SIGKILL, as
    /// Claude Code's Esc does), so nothing it would still do happens after the user said stop.
    fn interrupt_behavior(&self) -> InterruptBehavior {
        InterruptBehavior::Cancel
    }

    fn activity_description(&self, input: &ShellInput) -> Option<String> {
        Some(format!("Running {}", input.summary().unwrap_or(&input.command)))
    }

    /// See [`Shell::is_read_only`].
    fn is_read_only(&self, input: &ShellInput) -> bool {
        S::is_read_only(&input.command)
    }

    /// See [`Shell::is_concurrency_safe`].
    fn is_concurrency_safe(&self, input: &ShellInput) -> bool {
        S::is_concurrency_safe(&input.command)
    }

    /// See [`Shell::is_destructive`].
    fn is_destructive(&self, input: &ShellInput) -> bool {
        S::is_destructive(&input.command)
    }

    /// The shell's permission check ([`Shell::check_permissions`]). With
    /// [`Shell::AUTO_ALLOW_SANDBOXED`], in sandbox mode with `autoAllowBashIfSandboxed` (the
    /// default), a command that will run sandboxed needs no approval unless a deny rule, an ask
    /// rule or a safety check says so — and only while the sandbox can hide every path the
    /// `Read(…)` deny and ask rules cover.
    async fn check_permissions(&self, input: &ShellInput, ctx: &ToolUseContext) -> PermissionResult {
        let result = S::check_permissions(&input.command, ctx);
        if !S::AUTO_ALLOW_SANDBOXED
            || !ctx.options.sandbox.auto_allow_bash_if_sandboxed
            || !Self::sandboxed(input, ctx)
            || !sandbox::available(self.config.bwrap.as_deref())
            || !sandbox::hides_read_rules(ctx)
        {
            return result;
        }
        match &result {
            PermissionResult::Allow { .. } | PermissionResult::Deny { .. } => result,
            PermissionResult::Ask { decision_reason, .. } | PermissionResult::Passthrough { decision_reason, .. }
                if matches!(
                    decision_reason,
                    Some(PermissionDecisionReason::Rule { .. } | PermissionDecisionReason::SafetyCheck { .. })
                ) =>
            {
                result
            }
            PermissionResult::Ask { .. } | PermissionResult::Passthrough { .. } => PermissionResult::Allow {
                updated_input: None,
                decision_reason: Some(PermissionDecisionReason::Other {
                    reason: "runs in the sandbox (sandbox.autoAllowBashIfSandboxed)".to_owned(),
                }),
            },
        }
    }

    /// See [`Shell::permission_matcher`] (Claude Code's `preparePermissionMatcher`).
    fn prepare_permission_matcher(&self, input: &ShellInput) -> Option<PermissionMatcher> {
        Some(S::permission_matcher(&input.command))
    }

    /// See [`Shell::restriction_matcher`].
    fn prepare_restriction_matcher(&self, input: &ShellInput) -> Option<RestrictionMatcher> {
        S::restriction_matcher(&input.command)
    }

    /// Runs the command in the foreground ([`run_foreground`]), or with `run_in_background`
    /// starts it as a task ([`start_background`]).
    async fn call(&self, input: ShellInput, ctx: &ToolUseContext) -> Result<ToolResult<ShellOutput>, ToolError> {
        if ctx.cancel.is_cancelled() {
            return Err(ToolError::Cancelled);
        }
        let program = S::program(&self.config.shell).map_err(ToolError::failed)?;
        let sandboxed = Self::sandboxed(&input, ctx);
        if input.in_background() && self.config.background_tasks {
            let spec = |dir: &Path| S::background(program, &input.command, dir);
            let call = Background { input: &input, settings: &self.config, sandboxed, spec: &spec };
            return start_background(call, ctx).map(ToolResult::new);
        }
        let argv = |cwd_file: &Path| S::foreground(program, &input.command, cwd_file);
        let call = Foreground {
            tool_name: S::NAME,
            input: &input,
            settings: &self.config,
            sandboxed,
            argv: &argv,
            interpret: S::interpret,
        };
        run_foreground(call, ctx).await
    }

    /// `Exit code N` results are error blocks (`is_error: true`), like Claude Code's thrown
    /// errors; their text is already within [`ShellConfig::max_error_chars`].
    fn map_tool_result(&self, output: &ShellOutput, tool_use_id: &str) -> ToolResultBlock {
        to_block(output, tool_use_id)
    }
}
