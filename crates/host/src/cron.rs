//! The session's scheduler of prompts (CronCreate's jobs): made with the session when a cron
//! tool is in the pool, run by the front end ([`Session::start_cron`]), stopped with the session.
//!
//! Durable jobs live in the project's `.claude/scheduled_tasks.json` and are signed with the
//! user's key, `<Claude config folder>/agent-tools/cron-signing.key` (made when the first durable
//! job is saved): a job the file holds that this user's sessions did not sign never fires (see
//! [`agent_tools_cron::signing`]). Without a config folder every job is session-only; when the
//! key cannot be made, CronCreate says the job was kept for the session only, and why.

use std::path::Path;

use agent_tools_core::CancellationToken;
use agent_tools_core::ToolUseContext;
use agent_tools_cron::{CronConfig, CronScheduler, Fired, SigningKey};
use tokio::task::JoinHandle;

use crate::Session;

pub use crate::session::CRON_KEY_PREFIX;

/// The key file, under the Claude config folder.
pub const SIGNING_KEY_FILE: &str = "agent-tools/cron-signing.key";

/// Stops the driver when the session ends.
#[derive(Default)]
struct DriverStop(Option<CancellationToken>);

/// Makes the session's scheduler and puts it in `ctx`'s root app state.
pub(crate) fn install(ctx: &ToolUseContext, config_dir: Option<&Path>) {
    let project = ctx.original_cwd.clone();
    let mut config = CronConfig::system(None);
    match config_dir.map(|dir| dir.join(SIGNING_KEY_FILE)) {
        // Read when a job is first checked, made when one is first saved (a CronCreate with
        // `durable`): opening a session writes nothing.
        Some(path) => config = config.durable(project, SigningKey::at(path)),
        None => tracing::debug!("no Claude config folder: scheduled jobs are session-only"),
    }
    CronScheduler::new(config).install(ctx);
}

/// Stops the driver (the session is shutting down).
pub(crate) fn stop(ctx: &ToolUseContext) {
    if let Some(token) = ctx.root_app_state.with(|state| state.get::<DriverStop>().and_then(|stop| stop.0.clone())) {
        token.cancel();
    }
}

impl Session {
    /// The session's scheduler, when a cron tool is in its pool.
    pub fn cron(&self) -> Option<CronScheduler> {
        CronScheduler::existing(&self.root)
    }

    /// Runs the scheduler (once per session; `None` when there is none, or it runs already):
    /// each job that fires goes to `sink`, until the session shuts down.
    pub fn start_cron(&self, sink: impl FnMut(Fired) + Send + 'static) -> Option<JoinHandle<()>> {
        let scheduler = self.cron()?;
        let token = CancellationToken::new();
        let fresh = self.root.root_app_state.with(|state| {
            state.update(|stop: &mut DriverStop| {
                if stop.0.is_some() {
                    return false;
                }
                stop.0 = Some(token.clone());
                true
            })
        });
        fresh.then(|| tokio::spawn(async move { scheduler.run(sink, token).await }))
    }
}

/// See [`Session::start_cron_into_queue`].
pub(crate) fn start_into_queue(session: &Session) -> Option<JoinHandle<()>> {
    let queue = session.root.notifications();
    session.start_cron(move |fired| queue.push(format!("{CRON_KEY_PREFIX}{}", fired.id), fired.prompt))
}
