//! # agent-tools-tasklist: the on-disk task list of the Task* tools
//!
//! The storage behind Claude Code's task list V2 tools (`TaskCreate`, `TaskGet`, `TaskList`,
//! `TaskUpdate`), laid out as Claude Code lays it out (`utils/tasks.ts`):
//!
//! - **One folder per list**, `<root>/<list id>/` ([`TaskStore`]). The root is given by the
//!   caller (the CLI passes `~/.claude/tasks`); the list id is `CLAUDE_CODE_TASK_LIST_ID` when the
//!   host passes one, else the session id ([`context::list_id`]). Path components are sanitised
//!   ([`sanitize_component`]): `/`, `..`, NUL and anything else outside `[A-Za-z0-9_-]` never
//!   reach a path.
//! - **One JSON file per task**, `<id>.json`, holding Claude Code's record ([`Task`]:
//!   `{id, subject, description, activeForm?, owner?, status, blocks, blockedBy, metadata?}`).
//!   Files are written atomically (a flushed temporary file renamed into place), so readers
//!   never see half a task and need no lock.
//! - **Ids** are decimal strings, the highest id in use or ever used + 1, given out under an
//!   exclusive lock on `<list>/.lock` (`flock`; threads and processes alike), with the highest id
//!   recorded in `.highwatermark` so an id is never reused after its task is deleted.
//! - **Deleting** a task also removes its id from the `blocks` / `blockedBy` of the others;
//!   **linking** ([`Transaction::link`]) records a dependency on both sides.
//! - **Corrupt files** never panic: [`TaskStore::get`] reports them as
//!   [`TaskListError::Corrupt`] (file and reason), [`TaskStore::list`] skips them into
//!   [`Listing::skipped`].
//!
//! Library code never reads the environment: [`context`] finds the root and list id in the
//! [`agent_tools_core::ToolUseContext`] the host filled in.
//!
//! ```
//! use agent_tools_tasklist::{NewTask, TaskStore};
//! # fn main() -> Result<(), Box<dyn std::error::Error>> {
//! let root = tempfile::tempdir()?;
//! let store = TaskStore::new(root.path(), "session-1");
//! let task = store.create(NewTask { subject: "Run the tests".into(), ..NewTask::default() })?;
//! assert_eq!(task.id, "1");
//! assert_eq!(store.list()?.tasks.len(), 1);
//! # Ok(()) }
//! ```

pub mod context;
mod store;
mod task;

pub use crate::context::{list_id, run_blocking, store_for, tasks_root};
pub use crate::store::{
    DEFAULT_LIST, HIGH_WATER_MARK_FILE, LOCK_FILE, Listing, MAX_COMPONENT_CHARS, TaskListError, TaskStore, Transaction,
    is_valid_id, sanitize_component,
};
pub use crate::task::{NewTask, Task, TaskStatus};
