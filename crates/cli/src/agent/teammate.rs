//! `agent-tools agent --teammate TEAM/NAME`: a teammate of an agent team in a process of its
//! own, as TeamCreate's tmux backend starts it (one per tmux pane).
//!
//! The teammate runs headless (permission questions are refused, as with `-p`), with the
//! teammate system prompt appended and without TeamCreate and TeamDelete (only the lead manages
//! the team). It reads its mailbox (`<teams dir>/TEAM/inboxes/NAME.json`) every 500 ms: the
//! first message is its task (or `-p PROMPT`, when given), and each later batch of unread
//! messages is its next prompt; messages that arrive while it works reach it with its next tool
//! results. After each answer (and the reports of any background agents it started) it appends
//! the answer to the lead's mailbox (`inboxes/team-lead.json`), where the lead hears it.
//!
//! Before it waits for its next message the `TeammateIdle` hooks run (`teammate_name`,
//! `team_name`); one that blocks keeps it working, its reason the next prompt (at most
//! [`agent_tools_loop::DEFAULT_STOP_HOOK_BLOCK_CAP`] times in a row without a message).
//!
//! It exits on a `shutdown_request` message, when the team is deleted (its config file gone),
//! after `--teammate-idle-secs` (default 30 minutes) without a message, or on a signal (tmux's
//! `kill-session` sends SIGHUP).

use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;
use std::time::{Duration, Instant};

use agent_tools_core::NotificationQueue;
use agent_tools_host::{Environment, WorkspaceTrust};
use agent_tools_loop::{Agent, AgentEvent, QueryResult};
use agent_tools_team::state::{Teammate, install_teammate};
use agent_tools_team::{DEFAULT_INTERVAL, LEAD_NAME, MailboxWatch, Message, Team, TeamError, sanitize_name};
use serde_json::{Value, json};

use super::setup::{self, Frontend, Started};
use super::{AgentArgs, Outcome, headless, interruptible, output};
use crate::GlobalOptions;

/// How long a teammate waits for a message before it exits, by default.
const DEFAULT_IDLE: Duration = Duration::from_secs(30 * 60);

/// How often the wait for a message looks at what the mailbox watcher queued.
const WAIT_STEP: Duration = Duration::from_millis(100);

/// `TEAM/NAME`, both sanitised names as they are.
fn parse(spec: &str) -> Result<(String, String), String> {
    let (team, name) =
        spec.split_once('/').ok_or_else(|| format!("--teammate {spec:?} must be TEAM/NAME (e.g. alpha/alice)"))?;
    for part in [team, name] {
        let clean = sanitize_name(part).map_err(|error| format!("--teammate {spec:?}: {error}"))?;
        if clean != part {
            return Err(format!("--teammate {spec:?}: {part:?} is not a team or member name (try {clean:?})"));
        }
    }
    Ok((team.to_owned(), name.to_owned()))
}

/// The team and the member, checked: the team exists and has this member.
fn open(args: &AgentArgs, spec: &str) -> Result<(Team, String), String> {
    let (team_name, name) = parse(spec)?;
    let teams_dir: PathBuf = match &args.teams_dir {
        Some(dir) => dir.clone(),
        None => Environment::from_process()
            .claude_config_dir()
            .map(|dir| dir.join("teams"))
            .ok_or("no teams folder: set HOME or CLAUDE_CONFIG_DIR, or pass --teams-dir")?,
    };
    let team = Team::open(&teams_dir, &team_name).map_err(|error| error.to_string())?;
    let file = team.load().map_err(|error| error.to_string())?;
    if file.member(&name).is_none() {
        return Err(format!("'{name}' is not a member of team '{team_name}'"));
    }
    Ok((team, name))
}

/// The flags with the teammate's prompt appended to the system prompt.
fn teammate_args(args: &AgentArgs, team: &str, name: &str) -> Result<AgentArgs, String> {
    let mut args = args.clone();
    let mut extra = match args.append_system_prompt_file.take() {
        Some(path) => std::fs::read_to_string(&path)
            .map_err(|error| format!("--append-system-prompt-file {}: {error}", path.display()))?,
        None => args.append_system_prompt.take().unwrap_or_default(),
    };
    if !extra.trim().is_empty() {
        extra.push_str("\n\n");
    }
    extra.push_str(&agent_tools_team::teammate_system_prompt(team, name));
    args.append_system_prompt = Some(extra);
    Ok(args)
}

/// What the wait for the next prompt found.
enum Next {
    /// Messages: the next prompt's blocks.
    Prompt(Vec<Value>),
    /// A reason to stop.
    Stop(String),
}

/// Waits for the mailbox watcher to queue something, or for a reason to stop.
async fn next_prompt(watch: &MailboxWatch, queue: &NotificationQueue, idle: Duration) -> Next {
    let started = Instant::now();
    loop {
        if watch.shutdown_requested() {
            return Next::Stop("the lead asked this teammate to shut down".into());
        }
        if watch.team_gone() {
            return Next::Stop("the team was deleted".into());
        }
        if !queue.is_empty() {
            let blocks =
                queue.drain().into_iter().map(|pending| json!({"type": "text", "text": pending.text})).collect();
            return Next::Prompt(blocks);
        }
        if started.elapsed() >= idle {
            return Next::Stop(format!("no message came for {} s", idle.as_secs()));
        }
        tokio::time::sleep(WAIT_STEP).await;
    }
}

/// Answers one prompt, then what its background agents report, as `-p` does.
async fn answer(agent: &Agent, blocks: Vec<Value>) -> QueryResult {
    let mut sink = |event: AgentEvent| {
        if let AgentEvent::Notice(notice) = event {
            crate::report(format_args!("{notice}"));
        }
    };
    let mut result = agent.query_blocks(blocks, &mut sink).await;
    while !result.is_error {
        match agent.continue_with_pending(&mut sink).await {
            Some(next) => result = next,
            None => break,
        }
    }
    result
}

/// Appends the answer to the lead's mailbox; `false` when the team is gone.
async fn report_to_lead(team: &Team, name: &str, text: String, failed: bool) -> bool {
    let summary = if failed { format!("{name} stopped with an error") } else { format!("{name} finished") };
    let message = Message::new(name, text, Some(summary));
    let team = team.clone();
    match tokio::task::spawn_blocking(move || team.append_message(LEAD_NAME, message)).await {
        Ok(Ok(())) => true,
        Ok(Err(TeamError::NotFound(_))) => false,
        Ok(Err(error)) => {
            crate::report(format_args!("agent-tools: cannot report to the lead: {error}"));
            true
        }
        Err(_) => false,
    }
}

/// Runs the teammate `args.teammate` names until it has a reason to stop (see the module docs).
pub(crate) async fn run(options: &GlobalOptions, args: &AgentArgs) -> ExitCode {
    let spec = args.teammate.clone().unwrap_or_default();
    let (team, name) = match open(args, &spec) {
        Ok(found) => found,
        Err(error) => {
            crate::report(format_args!("agent-tools: {error}"));
            return ExitCode::from(1);
        }
    };
    let args = match teammate_args(args, team.name(), &name) {
        Ok(args) => args,
        Err(error) => {
            crate::report(format_args!("agent-tools: {error}"));
            return ExitCode::from(1);
        }
    };
    // Only the lead manages the team.
    let mut options = options.clone();
    options.disallowed_tools.push("TeamCreate,TeamDelete".to_owned());
    let frontend = Frontend {
        prompter: Some(Arc::new(headless::Headless)),
        trust: WorkspaceTrust::Recorded,
        hooks: None,
        notify: false,
        sdk_servers: None,
    };
    let Started { agent, session } = match setup::start(&options, &args, frontend).await {
        Ok(started) => started,
        Err(error) => {
            crate::report(format_args!("agent-tools: {}", error.text()));
            return ExitCode::from(1);
        }
    };
    let ctx = session.context().await;
    install_teammate(&ctx, Teammate { team: team.clone(), name: name.clone() });
    let queue = ctx.notifications();
    let watch = match MailboxWatch::start(team.clone(), &name, queue.clone(), DEFAULT_INTERVAL) {
        Ok(watch) => watch,
        Err(error) => {
            crate::report(format_args!("agent-tools: cannot watch the mailbox: {error}"));
            session.shutdown().await;
            return ExitCode::from(1);
        }
    };
    let idle = args.teammate_idle_secs.map_or(DEFAULT_IDLE, Duration::from_secs);
    let given = args.print.clone().flatten().or_else(|| args.prompt.clone());
    let mut next = given.map(|prompt| vec![json!({"type": "text", "text": prompt})]);
    crate::report(format_args!("agent-tools: teammate {name} of team {} is waiting for messages", team.name()));
    // TeammateIdle blocks since the last message, bounded as the Stop hook's are.
    let mut idle_blocks = 0;
    let code = loop {
        let blocks = match next.take() {
            Some(blocks) => blocks,
            None => match interruptible(&agent, next_prompt(&watch, &queue, idle)).await {
                Outcome::Done(Next::Prompt(blocks)) => {
                    idle_blocks = 0;
                    blocks
                }
                Outcome::Done(Next::Stop(reason)) => {
                    crate::report(format_args!("agent-tools: teammate {name} stops: {reason}"));
                    break ExitCode::SUCCESS;
                }
                Outcome::Stopped(code) => break ExitCode::from(code),
            },
        };
        let result = match interruptible(&agent, answer(&agent, blocks)).await {
            Outcome::Done(result) => result,
            Outcome::Stopped(code) => break ExitCode::from(code),
        };
        output::print_result(args.output_format, &result, args.max_turns, args.max_budget_usd);
        let text = output::result_text(&result, args.max_turns, args.max_budget_usd);
        if !report_to_lead(&team, &name, text, result.is_error).await {
            crate::report(format_args!("agent-tools: teammate {name} stops: the team was deleted"));
            break ExitCode::SUCCESS;
        }
        // About to wait for a message: a TeammateIdle hook that blocks keeps it working.
        if idle_blocks < agent_tools_loop::DEFAULT_STOP_HOOK_BLOCK_CAP
            && let Some(feedback) = agent.teammate_idle(&name, team.name()).await
        {
            idle_blocks += 1;
            next = Some(vec![json!({"type": "text", "text": format!("TeammateIdle hook feedback:\n{feedback}")})]);
        }
    };
    watch.stop();
    agent.end("other").await;
    crate::report_stopped_tasks(&session.shutdown().await);
    code
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn teammate_specs_name_a_team_and_a_member_exactly() {
        assert_eq!(parse("alpha/alice"), Ok(("alpha".to_owned(), "alice".to_owned())));
        for bad in ["alpha", "alpha/", "/alice", "Alpha/alice", "alpha/../x", "a/b/c", "alpha/al ice"] {
            assert!(parse(bad).is_err(), "{bad:?}");
        }
    }

    #[test]
    fn the_teammate_prompt_is_appended() {
        let args = AgentArgs { append_system_prompt: Some("Be brief.".into()), ..AgentArgs::default() };
        let made = teammate_args(&args, "alpha", "alice").unwrap_or_default();
        let prompt = made.append_system_prompt.unwrap_or_default();
        assert!(prompt.starts_with("Be brief.\n\nYou are `alice`, a teammate in the agent team `alpha`."), "{prompt}");
    }
}
