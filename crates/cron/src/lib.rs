//! # agent-tools-cron: scheduled prompts
//!
//! The scheduler behind Claude Code's CronCreate, CronDelete and CronList tools: a job is a
//! five-field cron expression in local time ([`Schedule`]) and a prompt; when the expression
//! matches, the job *fires* and its prompt enters the conversation (the agent loop queues it as
//! a prompt; `serve` sends it to its client as a log message).
//!
//! - **One-shot or recurring.** A one-shot job fires at its first match after it was made, then
//!   is deleted. A recurring job fires at every match until it is deleted or reaches its maximum
//!   age ([`RECURRING_MAX_AGE_MS`], 30 days, as Claude Code 2.1.332): the first match past that
//!   age is its last run, and the job ends with it. A match missed while nothing ran (a durable
//!   job across a restart) fires once, not once per missed match.
//! - **Session-only or durable.** Session-only jobs live in memory and end with the session.
//!   Durable ones are kept in `<project>/.claude/scheduled_tasks.json` ([`store`]): written
//!   atomically under a file lock, read again at each tick, so they survive a restart and two
//!   sessions of the project never fire one occurrence twice (the firing session records
//!   `lastFiredAt` under the lock; the other then sees it fired). The file is in the project, so
//!   a repository could ship one: only jobs signed with this user's key ([`signing`]) fire; any
//!   other is listed as not made here and never runs.
//! - **Limits** ([`CronScheduler::create`]): an expression that does not parse (code 1), that
//!   matches no date within a year (code 2), more than [`MAX_JOBS`] jobs (code 3), a durable job
//!   asked for by a sub-agent (code 4).
//! - **Time** comes from a [`Clock`]: the system's, or a [`FakeClock`] tests move by hand.
//!
//! The scheduler is kept in the session's root app state ([`CronScheduler::install`],
//! [`CronScheduler::existing`]), where the tools find it; the front end runs its driver
//! ([`CronScheduler::run`]) with a sink for the jobs that fire.
//!
//! ```
//! # tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(async {
//! use std::sync::Arc;
//! use agent_tools_cron::{CronConfig, CronScheduler, FakeClock, NewJob, Zone};
//! let clock = Arc::new(FakeClock::new(1_796_346_000_000)); // 2026-12-04 01:00 UTC
//! let scheduler = CronScheduler::new(CronConfig { zone: Zone::utc(), ..CronConfig::new(None, clock.clone()) });
//! let job = scheduler.create(NewJob::new("*/5 * * * *", "check the build")).unwrap();
//! assert_eq!((job.human_schedule.as_str(), job.recurring, job.durable), ("every 5 minutes", true, false));
//! assert_eq!(job.next_fire_at, Some(1_796_346_000_000 + 300_000));
//! assert!(scheduler.due(clock.now_ms()).is_empty());
//! clock.advance(300_000);
//! let fired = scheduler.due(clock.now_ms());
//! assert_eq!(fired.iter().map(|f| f.prompt.as_str()).collect::<Vec<_>>(), ["check the build"]);
//! # use agent_tools_cron::Clock as _;
//! # });
//! ```

mod clock;
mod schedule;
pub mod signing;
pub mod store;

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

use agent_tools_core::CancellationToken;
use agent_tools_core::ToolUseContext;

pub use crate::clock::{Clock, FakeClock, Sleep, SystemClock};
pub use crate::schedule::{SEARCH_HORIZON_MS, Schedule, ScheduleError, Zone, human};
pub use crate::signing::SigningKey;
pub use crate::store::{CronJob, DurableStore, StoreError};

/// Most jobs at once, session-only and durable together (Claude Code's limit).
pub const MAX_JOBS: usize = 50;

/// Age at which a recurring job runs one last time and ends: 30 days, in ms (Claude Code
/// 2.1.332's `recurringMaxAgeMs`; older versions said 7 days).
pub const RECURRING_MAX_AGE_MS: i64 = 30 * 24 * 60 * 60 * 1000;

/// The longest the driver sleeps before it looks again (for durable jobs another session added,
/// and a wall clock that jumps): one minute, in ms.
pub const MAX_SLEEP_MS: i64 = 60_000;

/// How a scheduler is set up.
#[derive(Clone)]
pub struct CronConfig {
    /// The project whose `.claude/scheduled_tasks.json` holds durable jobs; `None`: no durable
    /// jobs (every job is session-only).
    pub project_dir: Option<PathBuf>,
    /// The zone the expressions are read in (default: local time).
    pub zone: Zone,
    /// Where the time comes from.
    pub clock: Arc<dyn Clock>,
    /// Age in ms at which recurring jobs end (default [`RECURRING_MAX_AGE_MS`]; 0: never).
    pub recurring_max_age_ms: i64,
    /// The user's key durable jobs are signed with; `None`: no durable jobs (as with no
    /// [`CronConfig::project_dir`]).
    pub signing_key: Option<SigningKey>,
}

impl std::fmt::Debug for CronConfig {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CronConfig")
            .field("project_dir", &self.project_dir)
            .field("zone", &self.zone)
            .field("recurring_max_age_ms", &self.recurring_max_age_ms)
            .finish_non_exhaustive()
    }
}

impl CronConfig {
    /// Durable jobs in `project_dir` (if any), local time, `clock`, the default maximum age.
    pub fn new(project_dir: Option<PathBuf>, clock: Arc<dyn Clock>) -> Self {
        Self { project_dir, zone: Zone::Local, clock, recurring_max_age_ms: RECURRING_MAX_AGE_MS, signing_key: None }
    }

    /// [`CronConfig::new`] on the system clock.
    pub fn system(project_dir: Option<PathBuf>) -> Self {
        Self::new(project_dir, Arc::new(SystemClock))
    }

    /// Durable jobs in `project_dir`, signed with `key`.
    pub fn durable(self, project_dir: PathBuf, key: SigningKey) -> Self {
        Self { project_dir: Some(project_dir), signing_key: Some(key), ..self }
    }
}

/// What CronCreate asks for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NewJob {
    /// The five-field expression.
    pub cron: String,
    /// The prompt it enqueues.
    pub prompt: String,
    /// Fire at every match (default) or once.
    pub recurring: bool,
    /// Keep it in the project's file (default: session-only).
    pub durable: bool,
    /// The sub-agent asking ([`ToolUseContext::agent_id`]); `None` for the main conversation.
    pub agent_id: Option<String>,
}

impl NewJob {
    /// A recurring, session-only job of the main conversation.
    pub fn new(cron: impl Into<String>, prompt: impl Into<String>) -> Self {
        Self { cron: cron.into(), prompt: prompt.into(), recurring: true, durable: false, agent_id: None }
    }
}

/// A job just made.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CreatedJob {
    /// Its id.
    pub id: String,
    /// Its schedule in words ([`Schedule::human`]).
    pub human_schedule: String,
    /// Recurring or one-shot.
    pub recurring: bool,
    /// Kept in the file (false when it was asked for but could not be saved: see `save_error`).
    pub durable: bool,
    /// When it fires next, ms since the Unix epoch.
    pub next_fire_at: Option<i64>,
    /// A recurring job's maximum age in ms (0: never ends by age).
    pub max_age_ms: Option<i64>,
    /// Why a durable job was kept in the session only.
    pub save_error: Option<String>,
}

/// One job as CronList shows it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ListedJob {
    /// Its id.
    pub id: String,
    /// The expression.
    pub cron: String,
    /// The expression in words.
    pub human_schedule: String,
    /// The prompt.
    pub prompt: String,
    /// Recurring or one-shot.
    pub recurring: bool,
    /// Kept in the file.
    pub durable: bool,
    /// When it fires next, ms since the Unix epoch (`None` for a job that will not run here).
    pub next_fire_at: Option<i64>,
    /// A durable job not signed by this user (a repository's, another user's, Claude Code's):
    /// it never fires here.
    pub foreign: bool,
}

/// A job that fired.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Fired {
    /// The job's id.
    pub id: String,
    /// Its expression.
    pub cron: String,
    /// What enters the conversation.
    pub prompt: String,
    /// Recurring (it stays, unless `last`) or one-shot (it was deleted).
    pub recurring: bool,
    /// Kept in the file.
    pub durable: bool,
    /// The sub-agent that made it, if one did.
    pub agent_id: Option<String>,
    /// The match it fired for, ms since the Unix epoch.
    pub scheduled_for: i64,
    /// A recurring job's last run (it reached its maximum age and was deleted).
    pub last: bool,
}

/// Why a job could not be made or deleted. The text is what the model reads.
#[derive(Debug, thiserror::Error)]
pub enum CronError {
    /// The expression does not parse, or matches nothing within a year.
    #[error(transparent)]
    Schedule(#[from] ScheduleError),
    /// [`MAX_JOBS`] jobs exist already (code 3).
    #[error("Too many scheduled jobs (max {MAX_JOBS}). Cancel one first.")]
    TooMany,
    /// A sub-agent asked for a durable job (code 4).
    #[error("durable jobs are not available to sub-agents (they do not outlive the session that started them)")]
    DurableForAgent,
    /// No job has this id (CronDelete's code 1).
    #[error("No scheduled job with id '{0}'")]
    NotFound(String),
    /// The job belongs to another agent (CronDelete's code 2).
    #[error("Cannot delete job {0}: it belongs to another agent")]
    NotOwned(String),
    /// The project's file could not be used.
    #[error(transparent)]
    Store(#[from] StoreError),
}

impl CronError {
    /// Claude Code's validation `errorCode` for it (CronCreate: 1 invalid, 2 no match, 3 too
    /// many, 4 durable for an agent; CronDelete: 1 not found, 2 not owned); 0 for the others.
    pub fn code(&self) -> i32 {
        match self {
            Self::Schedule(error) => error.code(),
            Self::TooMany => 3,
            Self::DurableForAgent => 4,
            Self::NotFound(_) => 1,
            Self::NotOwned(_) => 2,
            Self::Store(_) => 0,
        }
    }
}

struct Inner {
    config: CronConfig,
    store: Option<DurableStore>,
    session: Mutex<Vec<CronJob>>,
    changed: tokio::sync::Notify,
}

/// The session's scheduled jobs (see the crate docs). Clones share the jobs.
#[derive(Clone)]
pub struct CronScheduler {
    inner: Arc<Inner>,
}

impl std::fmt::Debug for CronScheduler {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CronScheduler").field("config", &self.inner.config).finish_non_exhaustive()
    }
}

/// The slot in the root app state.
#[derive(Default)]
struct Slot(Option<CronScheduler>);

fn new_id() -> String {
    uuid::Uuid::new_v4().simple().to_string()[..8].to_owned()
}

impl CronScheduler {
    /// A scheduler with no jobs yet (durable ones are read from the file when needed).
    pub fn new(config: CronConfig) -> Self {
        let store = config.project_dir.as_deref().filter(|_| config.signing_key.is_some()).map(DurableStore::new);
        Self {
            inner: Arc::new(Inner {
                config,
                store,
                session: Mutex::new(Vec::new()),
                changed: tokio::sync::Notify::new(),
            }),
        }
    }

    /// Makes this the session's scheduler (kept in the root app state, so sub-agents share it).
    pub fn install(&self, ctx: &ToolUseContext) {
        ctx.root_app_state.with(|state| state.set(Slot(Some(self.clone()))));
    }

    /// The session's scheduler, if one was installed.
    pub fn existing(ctx: &ToolUseContext) -> Option<Self> {
        ctx.root_app_state.with(|state| state.get::<Slot>().and_then(|slot| slot.0.clone()))
    }

    /// The durable jobs' file, when durable jobs are on.
    pub fn durable_path(&self) -> Option<&Path> {
        self.inner.store.as_ref().map(DurableStore::path)
    }

    /// The time now, by the scheduler's clock (ms since the Unix epoch).
    pub fn now_ms(&self) -> i64 {
        self.inner.config.clock.now_ms()
    }

    /// The zone expressions are read in.
    pub fn zone(&self) -> Zone {
        self.inner.config.zone
    }

    fn session(&self) -> MutexGuard<'_, Vec<CronJob>> {
        // Every change is a push, retain or field update: a poisoned lock is still consistent.
        self.inner.session.lock().unwrap_or_else(PoisonError::into_inner)
    }

    fn durable(&self) -> Result<Vec<CronJob>, StoreError> {
        self.inner.store.as_ref().map_or_else(|| Ok(Vec::new()), DurableStore::load)
    }

    /// Checks a job the way CronCreate's validation does, without making it.
    ///
    /// # Errors
    /// [`CronError::Schedule`] (codes 1 and 2), [`CronError::TooMany`] (3),
    /// [`CronError::DurableForAgent`] (4).
    pub fn check(&self, job: &NewJob) -> Result<Schedule, CronError> {
        let schedule = Schedule::parse_matching(&job.cron, self.now_ms(), self.zone())?;
        // Jobs that can never run here (not this user's) do not take a place: a repository could
        // otherwise ship fifty of them.
        let durable = self.durable().map(|jobs| jobs.iter().filter(|job| self.runnable(job)).count()).unwrap_or(0);
        if self.session().len() + durable >= MAX_JOBS {
            return Err(CronError::TooMany);
        }
        if job.durable && job.agent_id.is_some() {
            return Err(CronError::DurableForAgent);
        }
        Ok(schedule)
    }

    /// Makes a job (after [`CronScheduler::check`]). A durable job that cannot be saved (no
    /// project, an unwritable or broken file) is kept for the session, and `save_error` says why.
    ///
    /// # Errors
    /// As [`CronScheduler::check`].
    pub fn create(&self, job: NewJob) -> Result<CreatedJob, CronError> {
        let schedule = self.check(&job)?;
        let now = self.now_ms();
        let max_age_ms = job.recurring.then_some(self.inner.config.recurring_max_age_ms);
        let mut entry = CronJob {
            id: new_id(),
            cron: job.cron.clone(),
            prompt: job.prompt,
            created_at: now,
            last_fired_at: None,
            recurring: job.recurring,
            max_age_ms,
            agent_id: job.agent_id,
            durable: false,
            extra: serde_json::Map::new(),
        };
        let mut save_error = None;
        if job.durable {
            match &self.inner.store {
                None => save_error = Some("durable jobs are not available in this session".to_owned()),
                Some(store) => {
                    let mut saved = entry.clone();
                    let signed = match &self.inner.config.signing_key {
                        Some(key) => key.sign(&saved).map(|signature| {
                            saved.extra.insert(signing::SIGNATURE_FIELD.to_owned(), signature.into());
                        }),
                        None => Ok(()),
                    };
                    match signed.map_err(|error| format!("the signing key cannot be used: {error}")).and_then(|()| {
                        store
                            .update(|jobs| {
                                jobs.push(CronJob { durable: true, ..saved });
                                (true, ())
                            })
                            .map_err(|error| error.to_string())
                    }) {
                        Ok(()) => entry.durable = true,
                        Err(error) => save_error = Some(error),
                    }
                }
            }
        }
        let created = CreatedJob {
            id: entry.id.clone(),
            human_schedule: schedule.human(),
            recurring: entry.recurring,
            durable: entry.durable,
            next_fire_at: schedule.next_after(now, self.zone()),
            max_age_ms,
            save_error,
        };
        if !entry.durable {
            self.session().push(entry);
        }
        self.inner.changed.notify_one();
        Ok(created)
    }

    /// Deletes job `id` for `agent_id` (a sub-agent may delete only its own jobs; the main
    /// conversation, any).
    ///
    /// # Errors
    /// [`CronError::NotFound`] (code 1), [`CronError::NotOwned`] (2), [`CronError::Store`]
    /// when the file cannot be rewritten.
    pub fn delete(&self, id: &str, agent_id: Option<&str>) -> Result<(), CronError> {
        self.check_delete(id, agent_id)?;
        let in_session = {
            let mut session = self.session();
            let before = session.len();
            session.retain(|job| job.id != id);
            session.len() != before
        };
        let removed = in_session
            || match &self.inner.store {
                Some(store) => store.update(|jobs| {
                    let before = jobs.len();
                    jobs.retain(|job| job.id != id);
                    let removed = jobs.len() != before;
                    (removed, removed)
                })?,
                None => false,
            };
        if !removed {
            return Err(CronError::NotFound(id.to_owned()));
        }
        self.inner.changed.notify_one();
        Ok(())
    }

    /// Whether job `id` exists and `agent_id` may delete it (CronDelete's validation).
    ///
    /// # Errors
    /// [`CronError::NotFound`], [`CronError::NotOwned`].
    pub fn check_delete(&self, id: &str, agent_id: Option<&str>) -> Result<(), CronError> {
        if let Some(job) = self.session().iter().find(|job| job.id == id) {
            if agent_id.is_some() && job.agent_id.as_deref() != agent_id {
                return Err(CronError::NotOwned(id.to_owned()));
            }
            return Ok(());
        }
        match self.durable()?.iter().find(|job| job.id == id) {
            Some(_) if agent_id.is_some() => Err(CronError::NotOwned(id.to_owned())),
            Some(_) => Ok(()),
            None => Err(CronError::NotFound(id.to_owned())),
        }
    }

    /// The jobs `agent_id` sees (a sub-agent: its own; the main conversation: all), durable ones
    /// first, each with its next run.
    ///
    /// # Errors
    /// [`CronError::Store`] when the file cannot be read.
    pub fn list(&self, agent_id: Option<&str>) -> Result<Vec<ListedJob>, CronError> {
        let now = self.now_ms();
        let mut jobs = self.durable()?;
        jobs.extend(self.session().iter().cloned());
        Ok(jobs
            .into_iter()
            .filter(|job| agent_id.is_none() || job.agent_id.as_deref() == agent_id)
            .map(|job| ListedJob {
                next_fire_at: self.next_fire(&job).map(|at| at.max(now)),
                foreign: !self.runnable(&job),
                human_schedule: human(&job.cron),
                id: job.id,
                cron: job.cron,
                prompt: job.prompt,
                recurring: job.recurring,
                durable: job.durable,
            })
            .collect())
    }

    /// Whether `job` may fire here: a session-only job always; a durable one only when it
    /// carries this user's signature.
    fn runnable(&self, job: &CronJob) -> bool {
        !job.durable || self.inner.config.signing_key.as_ref().is_some_and(|key| key.verify(job))
    }

    /// When `job` fires next: its first match after its last run (or its creation); `None` for
    /// a job that may not run here.
    fn next_fire(&self, job: &CronJob) -> Option<i64> {
        if !self.runnable(job) {
            return None;
        }
        let schedule = Schedule::parse(&job.cron).ok()?;
        schedule.next_after(job.last_fired_at.unwrap_or(job.created_at), self.zone())
    }

    fn is_last(&self, job: &CronJob, at: i64) -> bool {
        let max_age = job.max_age_ms.unwrap_or(self.inner.config.recurring_max_age_ms);
        job.recurring && max_age > 0 && at.saturating_sub(job.created_at) >= max_age
    }

    /// Fires what is due at `now_ms`: one-shot jobs are deleted, recurring ones remember the
    /// run (and end at their maximum age). Durable jobs are updated in the file under its lock,
    /// so a job another session already fired for this match does not fire again here.
    pub fn due(&self, now_ms: i64) -> Vec<Fired> {
        let mut fired = Vec::new();
        {
            let mut session = self.session();
            session.retain_mut(|job| self.take_due(job, now_ms, &mut fired));
        }
        // The file is locked (and rewritten) only when one of its jobs is due: a look without
        // the lock first, since a reader always sees a whole file.
        let any_due = |jobs: &[CronJob]| jobs.iter().any(|job| self.next_fire(job).is_some_and(|at| at <= now_ms));
        if let Some(store) = self.inner.store.as_ref().filter(|store| store.load().is_ok_and(|jobs| any_due(&jobs))) {
            let outcome = store.update(|jobs| {
                let before = fired.len();
                jobs.retain_mut(|job| self.take_due(job, now_ms, &mut fired));
                (fired.len() != before, ())
            });
            if let Err(error) = outcome {
                tracing::warn!(%error, "the durable scheduled jobs could not be checked");
            }
        }
        fired
    }

    /// Pushes `job`'s firing into `fired` if it is due; returns whether the job stays.
    fn take_due(&self, job: &mut CronJob, now_ms: i64, fired: &mut Vec<Fired>) -> bool {
        if !self.runnable(job) {
            // Not this user's: it stays in the file, for them to see and delete.
            return true;
        }
        let Some(at) = self.next_fire(job) else {
            // Nothing matches any more (a one-shot date long past): it can never fire.
            return job.recurring && Schedule::parse(&job.cron).is_ok();
        };
        if at > now_ms {
            return true;
        }
        let last = self.is_last(job, at);
        fired.push(Fired {
            id: job.id.clone(),
            cron: job.cron.clone(),
            prompt: job.prompt.clone(),
            recurring: job.recurring,
            durable: job.durable,
            agent_id: job.agent_id.clone(),
            scheduled_for: at,
            last,
        });
        job.last_fired_at = Some(now_ms);
        job.recurring && !last
    }

    /// When the driver should look next: the earliest next run of any job, ms since the Unix
    /// epoch (`None` with no jobs).
    pub fn next_wake(&self) -> Option<i64> {
        let durable = self.durable().unwrap_or_default();
        let session = self.session().clone();
        durable.iter().chain(session.iter()).filter_map(|job| self.next_fire(job)).min()
    }

    /// True while a session-only one-shot job waits to fire: a headless run waits for those
    /// before it exits, since they end with it (a durable one fires in a later session, and
    /// recurring jobs would keep it alive for weeks).
    pub fn has_pending_one_shot(&self) -> bool {
        self.session().iter().any(|job| !job.recurring && self.next_fire(job).is_some())
    }

    /// Runs the schedule until `cancel` fires: at each due time, `sink` gets every job that
    /// fired. It wakes at the earliest next run, when a job is made or deleted, and at least
    /// every [`MAX_SLEEP_MS`].
    pub async fn run(&self, mut sink: impl FnMut(Fired) + Send, cancel: CancellationToken) {
        loop {
            let changed = self.inner.changed.notified();
            tokio::pin!(changed);
            changed.as_mut().enable();
            let now = self.now_ms();
            for fired in self.due(now) {
                sink(fired);
            }
            // A job still due after `due` (its file could not be written) is tried again in a
            // second, not in a busy loop.
            // With durable jobs it also looks just after every whole minute, when cron matches
            // fall: a job another session added is then on time.
            let minute = if self.inner.store.is_some() { (now / 60_000 + 1) * 60_000 + 50 } else { i64::MAX };
            let wake = self.next_wake().map_or(now + MAX_SLEEP_MS, |next| {
                if next <= now { now + 1_000 } else { next.min(now + MAX_SLEEP_MS) }
            });
            let wake = wake.min(minute);
            tokio::select! {
                () = self.inner.config.clock.sleep_until(wake) => {}
                () = &mut changed => {}
                () = cancel.cancelled() => return,
            }
        }
    }
}
