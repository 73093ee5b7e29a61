//! The session's team, kept in [`ToolUseContext::root_app_state`] (the same at every depth of
//! sub-agents, so in-process teammates see their lead's team): the team this session leads
//! ([`ActiveTeam`], set by TeamCreate, cleared by TeamDelete), or, in a tmux teammate's own
//! process, who it is ([`Teammate`]). Dropping the state (the session ending) stops the lead's
//! mailbox watcher.

use agent_tools_core::ToolUseContext;

use crate::{LEAD_NAME, MailboxWatch, Team, TmuxConfig};

/// The team a session leads.
#[derive(Debug)]
pub struct ActiveTeam {
    /// The team.
    pub team: Team,
    /// The tmux its tmux teammates run in (what TeamDelete needs to stop them), if any.
    pub tmux: Option<TmuxConfig>,
    /// The watcher moving the lead's mailbox into the lead's notifications; stopped when this
    /// is dropped.
    pub watch: Option<MailboxWatch>,
}

/// Who this process is, in a tmux teammate's process (`agent-tools agent --teammate`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Teammate {
    /// Its team.
    pub team: Team,
    /// Its name.
    pub name: String,
}

#[derive(Debug, Default)]
struct TeamSlot {
    active: Option<ActiveTeam>,
    teammate: Option<Teammate>,
}

/// The team the session leads, if any.
pub fn current_team(ctx: &ToolUseContext) -> Option<Team> {
    ctx.root_app_state
        .with(|state| state.get::<TeamSlot>().and_then(|slot| slot.active.as_ref().map(|a| a.team.clone())))
}

/// The tmux config of the team the session leads, if it has one.
pub fn current_tmux(ctx: &ToolUseContext) -> Option<TmuxConfig> {
    ctx.root_app_state.with(|state| {
        state.get::<TeamSlot>().and_then(|slot| slot.active.as_ref().and_then(|active| active.tmux.clone()))
    })
}

/// Makes `active` the team the session leads.
///
/// # Errors
/// The name of the team it already leads (nothing changes then); `active` is dropped.
pub fn begin_team(ctx: &ToolUseContext, active: ActiveTeam) -> Result<(), String> {
    ctx.root_app_state.with(|state| {
        state.update(|slot: &mut TeamSlot| match &slot.active {
            Some(existing) => Err(existing.team.name().to_owned()),
            None => {
                slot.active = Some(active);
                Ok(())
            }
        })
    })
}

/// Sets the lead's mailbox watcher of the team the session leads (replacing and stopping any
/// other); gives `watch` back when the session leads no team.
///
/// # Errors
/// `watch` itself, when there is no team to attach it to.
pub fn set_watch(ctx: &ToolUseContext, watch: MailboxWatch) -> Result<(), MailboxWatch> {
    ctx.root_app_state.with(|state| {
        state.update(|slot: &mut TeamSlot| match &mut slot.active {
            Some(active) => {
                active.watch = Some(watch);
                Ok(())
            }
            None => Err(watch),
        })
    })
}

/// Clears the session's team and returns it (its watcher stops when it is dropped).
pub fn end_team(ctx: &ToolUseContext) -> Option<ActiveTeam> {
    ctx.root_app_state.with(|state| state.update(|slot: &mut TeamSlot| slot.active.take()))
}

/// Records that this process is a tmux teammate (the CLI's `--teammate`).
pub fn install_teammate(ctx: &ToolUseContext, teammate: Teammate) {
    ctx.root_app_state.with(|state| state.update(|slot: &mut TeamSlot| slot.teammate = Some(teammate)));
}

/// Who this process is, when it is a tmux teammate.
pub fn teammate(ctx: &ToolUseContext) -> Option<Teammate> {
    ctx.root_app_state.with(|state| state.get::<TeamSlot>().and_then(|slot| slot.teammate.clone()))
}

/// The team the caller belongs to and the name it sends team messages as:
///
/// - in a tmux teammate's process: its team, and its name (its sub-agents: their agent id);
/// - in a session that leads a team: the main conversation is `team-lead`, an in-process
///   teammate (a sub-agent whose id is a member's `task_id`) its member name, any other
///   sub-agent its agent id.
///
/// `None` outside any team.
pub fn team_of(ctx: &ToolUseContext) -> Option<(Team, String)> {
    if let Some(teammate) = teammate(ctx) {
        let name = ctx.agent_id.clone().unwrap_or(teammate.name);
        return Some((teammate.team, name));
    }
    let team = current_team(ctx)?;
    let Some(id) = ctx.agent_id.as_deref() else { return Some((team, LEAD_NAME.to_owned())) };
    let member = team
        .load()
        .ok()
        .and_then(|file| file.members.into_iter().find(|member| member.task_id.as_deref() == Some(id)))
        .map(|member| member.name);
    let name = member.unwrap_or_else(|| id.to_owned());
    Some((team, name))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Backend, Member};

    #[test]
    fn a_session_leads_one_team_and_knows_who_speaks() {
        let dir = tempfile::tempdir().unwrap_or_else(|error| panic!("{error}"));
        let ctx = ToolUseContext::new(dir.path());
        assert_eq!(current_team(&ctx), None);
        assert!(team_of(&ctx).is_none());
        let Ok((team, _)) = Team::create(dir.path(), "t", None, None) else { panic!("no team") };
        let member = Member {
            agent_id: team.agent_id("alice"),
            name: "alice".into(),
            agent_type: "general-purpose".into(),
            backend: Backend::InProcess,
            task_id: Some("a12345678".into()),
            tmux_pane: None,
            cwd: dir.path().to_path_buf(),
        };
        assert!(team.add_member(member).is_ok());
        assert_eq!(begin_team(&ctx, ActiveTeam { team: team.clone(), tmux: None, watch: None }), Ok(()));
        let again = begin_team(&ctx, ActiveTeam { team: team.clone(), tmux: None, watch: None });
        assert_eq!(again, Err("t".to_owned()));
        assert_eq!(team_of(&ctx).map(|(_, name)| name).as_deref(), Some("team-lead"));
        let mut member_ctx = ctx.clone();
        member_ctx.agent_id = Some("a12345678".into());
        assert_eq!(team_of(&member_ctx).map(|(_, name)| name).as_deref(), Some("alice"));
        member_ctx.agent_id = Some("aother".into());
        assert_eq!(team_of(&member_ctx).map(|(_, name)| name).as_deref(), Some("aother"));
        assert!(end_team(&ctx).is_some());
        assert_eq!(current_team(&ctx), None);

        let process = ToolUseContext::new(dir.path());
        install_teammate(&process, Teammate { team: team.clone(), name: "bob".into() });
        assert_eq!(team_of(&process), Some((team, "bob".to_owned())));
    }
}
