//! Agent tasks: background sub-agents (Claude Code's `local_agent` tasks). The registry only
//! tracks them — the work is a future the Agent tool runs — and gives that future the handles it
//! needs: a cancellation token that fires when the task is stopped, and an inbox SendMessage
//! writes to.

use std::path::PathBuf;
use std::sync::{Arc, Condvar, Mutex, PoisonError};

use agent_tools_core::CancellationToken;
use agent_tools_core::NotificationQueue;
use agent_tools_core::SubagentOutcome;

use crate::{
    AgentWork, SpawnError, StopError, Task, TaskKind, TaskRegistry, TaskSnapshot, TaskState, TaskStatus, now_ms,
};

/// A background sub-agent to register ([`TaskRegistry::register_agent`]), from the Agent tool's
/// call.
#[derive(Debug, Clone, Default)]
pub struct AgentTaskSpec {
    /// The call's `description` (3–5 words): what the task is known by in notifications,
    /// TaskOutput and TaskStop. Empty means the name, else the agent type.
    pub description: String,
    /// The task the agent was given.
    pub prompt: String,
    /// The agent's type (`general-purpose`, `Explore`, a custom agent's name).
    pub agent_type: String,
    /// The call's `name`, by which SendMessage and TaskStop can reach the agent
    /// ([`TaskRegistry::find_agent`]).
    pub name: Option<String>,
    /// The `tool_use` id of the Agent call that started it.
    pub tool_use_id: Option<String>,
    /// The agent id of the sub-agent that started it ([`agent_tools_core::ToolUseContext::agent_id`]);
    /// `None` in the main conversation.
    pub owner: Option<String>,
    /// Where its completion notification goes (the starting conversation's queue); `None` for
    /// the registry's ([`crate::TasksConfig::notifications`]).
    pub notifications: Option<NotificationQueue>,
}

/// A registered agent task: the handles the future that runs the agent holds.
#[derive(Debug, Clone)]
pub struct AgentTask {
    /// The task's id, `a` + 8 of `[0-9a-z]` (also the agent's id).
    pub id: String,
    /// `<output dir>/<id>.output`, created empty: the agent loop writes the sub-agent's JSONL
    /// transcript there.
    pub output_path: PathBuf,
    /// Fires when the task is stopped (TaskStop, [`TaskRegistry::stop_owned_by`], shutdown): the
    /// runner then stops the agent's running tools and calls [`TaskRegistry::finish_agent`].
    pub cancel: CancellationToken,
    /// The agent's inbox: SendMessage pushes messages here, and the agent reads them between
    /// turns.
    pub inbox: NotificationQueue,
}

impl AgentTask {
    /// A token that fires when the task is stopped or `caller` fires — what a foreground
    /// agent runs under (it stops with the call that waits for it, and with TaskStop). The link
    /// lasts as long as the returned guard.
    ///
    /// Must be called inside a Tokio runtime (the link is a task).
    pub fn cancel_with(&self, caller: &CancellationToken) -> LinkedCancel {
        let token = caller.child_token();
        let (stopped, fire) = (self.cancel.clone(), token.clone());
        let link = tokio::spawn(async move {
            stopped.cancelled().await;
            fire.cancel();
        });
        LinkedCancel { token, link }
    }
}

/// A token fired by either of two others ([`AgentTask::cancel_with`]); dropping it ends the link.
#[derive(Debug)]
pub struct LinkedCancel {
    /// The token to run under.
    pub token: CancellationToken,
    link: tokio::task::JoinHandle<()>,
}

impl Drop for LinkedCancel {
    fn drop(&mut self) {
        self.link.abort();
    }
}

/// How an agent task's work ended ([`TaskRegistry::finish_agent`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AgentEnd {
    /// [`TaskStatus::Completed`] or [`TaskStatus::Failed`]; [`TaskStatus::Killed`] records a
    /// stop (no notification), and a status that is not finished counts as failed.
    pub status: TaskStatus,
    /// The agent's final text, or the error it ended with.
    pub result: String,
    /// The whole `<task-notification>` text to queue (the Agent tool writes Claude Code's);
    /// `None` to queue none.
    pub notification: Option<String>,
}

impl AgentEnd {
    /// How a run `ended`: completed with the agent's report ([`SubagentOutcome::report`]), or
    /// failed with the error; `notification` as given.
    pub fn of_run(ended: &Result<SubagentOutcome, String>, notification: Option<String>) -> Self {
        match ended {
            Ok(outcome) => Self { status: TaskStatus::Completed, result: outcome.report(), notification },
            Err(error) => Self { status: TaskStatus::Failed, result: error.clone(), notification },
        }
    }
}

impl TaskRegistry {
    /// Registers a background sub-agent as a `local_agent` task, `running` at once, and returns
    /// the handles its runner needs. No process is started: the Agent tool runs the agent as a
    /// future, which must end with [`Self::finish_agent`] (also after its `cancel` token fired).
    ///
    /// # Errors
    /// [`SpawnError::ShutDown`] when the registry was shut down, [`SpawnError::Output`] when the
    /// output file (or its folder) cannot be created.
    pub fn register_agent(&self, spec: AgentTaskSpec) -> Result<AgentTask, SpawnError> {
        // Held until the task is registered, so a shutdown either sees it or comes first.
        let shut_down = self.inner.shut_down.lock().unwrap_or_else(PoisonError::into_inner);
        if *shut_down {
            return Err(SpawnError::ShutDown);
        }
        let (id, output_path, _file) = self.inner.new_output('a')?;
        let description = if !spec.description.trim().is_empty() {
            spec.description
        } else if let Some(name) = spec.name.as_ref().filter(|name| !name.trim().is_empty()) {
            name.clone()
        } else {
            spec.agent_type.clone()
        };
        let cancel = CancellationToken::new();
        let inbox = NotificationQueue::default();
        let (status, _) = tokio::sync::watch::channel(TaskStatus::Running);
        let task = Arc::new(Task {
            id: id.clone(),
            command: description.clone(),
            description,
            tool_use_id: spec.tool_use_id,
            output_path: output_path.clone(),
            started_at_ms: now_ms(),
            owner: spec.owner,
            notifications: spec.notifications.unwrap_or_else(|| self.inner.config.notifications.clone()),
            kind: TaskKind::Agent(AgentWork {
                name: spec.name,
                agent_type: spec.agent_type,
                prompt: spec.prompt,
                inbox: inbox.clone(),
                cancel: Mutex::new(cancel.clone()),
            }),
            state: Mutex::new(TaskState { status: TaskStatus::Running, ..TaskState::default() }),
            changed: Condvar::new(),
            status,
            events: self.inner.events.clone(),
        });
        let snapshot = task.snapshot();
        self.inner.tasks().push(task);
        drop(shut_down);
        let _ = self.inner.events.send(snapshot);
        tracing::debug!(%id, "agent task registered");
        Ok(AgentTask { id, output_path, cancel, inbox })
    }

    /// Records how an agent task's work ended: its status, result and end time; the task is
    /// then settled (a [`Self::stop`] waiting for it returns). Its notification, if given, is
    /// queued (keyed by the id) on the spec's queue or the registry's — unless the task was
    /// stopped or is already marked notified. On a stopped task only the result is recorded: its
    /// status stays `killed` and nothing is queued. Returns the task as it now stands; `None`
    /// when no agent task has this id.
    pub fn finish_agent(&self, id: &str, end: AgentEnd) -> Option<TaskSnapshot> {
        let task = self.inner.find(id).filter(|task| task.agent().is_some())?;
        task.update(|state| {
            state.result = Some(end.result);
            state.settled = true;
            if state.status == TaskStatus::Killed {
                return;
            }
            let status = match end.status {
                TaskStatus::Completed => TaskStatus::Completed,
                TaskStatus::Killed => TaskStatus::Killed,
                TaskStatus::Failed | TaskStatus::Pending | TaskStatus::Running => TaskStatus::Failed,
            };
            if !state.status.is_finished() || state.ended_at_ms.is_none() {
                state.ended_at_ms = Some(now_ms());
            }
            state.status = status;
            // Pushed under the task's lock: whoever sees the task finished also sees the
            // notification, so [`Self::mark_notified`] can withdraw it.
            if !state.notified
                && status != TaskStatus::Killed
                && let Some(text) = end.notification
            {
                task.notifications.push(id, text);
            }
            state.notified = true;
        });
        task.publish();
        tracing::debug!(id, "agent task finished");
        Some(task.snapshot())
    }

    /// Makes a finished agent task (completed, failed or killed) `running` again, with a new
    /// cancellation token and the same id, output file and inbox; its result is cleared and it
    /// will notify again (SendMessage continuing a stopped agent). The runner must end it with
    /// [`Self::finish_agent`], as after [`Self::register_agent`].
    ///
    /// # Errors
    /// [`StopError::NotFound`] when no agent task has this id, [`StopError::StillRunning`] when
    /// it is running (or was stopped and its runner has not called [`Self::finish_agent`] yet),
    /// [`StopError::ShutDown`] after a shutdown.
    pub fn restart_agent(&self, id: &str) -> Result<AgentTask, StopError> {
        let shut_down = self.inner.shut_down.lock().unwrap_or_else(PoisonError::into_inner);
        if *shut_down {
            return Err(StopError::ShutDown);
        }
        let task = self.inner.find(id).ok_or_else(|| StopError::NotFound(id.to_owned()))?;
        let Some(agent) = task.agent() else { return Err(StopError::NotFound(id.to_owned())) };
        let cancel = CancellationToken::new();
        task.update(|state| {
            // A stopped agent whose runner has not reported yet is still winding down: its late
            // `finish_agent` would end the new run.
            if !state.status.is_finished() || !state.settled {
                return Err(StopError::StillRunning(id.to_owned()));
            }
            *agent.cancel.lock().unwrap_or_else(PoisonError::into_inner) = cancel.clone();
            *state = TaskState { status: TaskStatus::Running, ..TaskState::default() };
            Ok(())
        })?;
        drop(shut_down);
        task.publish();
        tracing::debug!(id, "agent task restarted");
        Ok(AgentTask { id: task.id.clone(), output_path: task.output_path.clone(), cancel, inbox: agent.inbox.clone() })
    }

    /// The agent task with this id, else the most recently registered agent task with this
    /// `name` (SendMessage's and TaskStop's lookup). Shell tasks are never found here.
    pub fn find_agent(&self, name_or_id: &str) -> Option<TaskSnapshot> {
        let found = {
            let tasks = self.inner.tasks();
            let agents = || tasks.iter().filter(|task| task.agent().is_some());
            agents()
                .find(|task| task.id == name_or_id)
                .or_else(|| {
                    agents().rev().find(|task| task.agent().and_then(|agent| agent.name.as_deref()) == Some(name_or_id))
                })
                .cloned()
        };
        found.map(|task| task.snapshot())
    }

    /// The inbox of the agent task with this id (what SendMessage pushes into); `None` when no
    /// agent task has this id.
    pub fn agent_inbox(&self, id: &str) -> Option<NotificationQueue> {
        self.inner.find(id).and_then(|task| task.agent().map(|agent| agent.inbox.clone()))
    }
}
