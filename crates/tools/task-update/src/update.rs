//! The update itself, on a locked task list; free of the tool contract.

use agent_tools_tasklist::{Task, TaskStatus, TaskStore, Transaction};
use serde_json::{Map, Value};

use crate::input::{TaskUpdateInput, UpdateStatus};
use crate::render::{NOT_FOUND, StatusChange, TaskUpdateOutput};

fn failure(task_id: &str, error: impl Into<String>) -> TaskUpdateOutput {
    TaskUpdateOutput {
        success: false,
        task_id: task_id.to_owned(),
        updated_fields: Vec::new(),
        error: Some(error.into()),
        status_change: None,
    }
}

fn stored_status(status: UpdateStatus) -> Option<TaskStatus> {
    match status {
        UpdateStatus::Pending => Some(TaskStatus::Pending),
        UpdateStatus::InProgress => Some(TaskStatus::InProgress),
        UpdateStatus::Completed => Some(TaskStatus::Completed),
        UpdateStatus::Deleted => None,
    }
}

/// `ids` without those already in `existing`, without repeats, in the order given.
fn new_ids(ids: Option<&Vec<String>>, existing: &[String]) -> Vec<String> {
    let mut fresh: Vec<String> = Vec::new();
    for id in ids.into_iter().flatten() {
        if !existing.contains(id) && !fresh.contains(id) {
            fresh.push(id.clone());
        }
    }
    fresh
}

/// `changes` merged over `current`: each key set, a `null` value removing the key.
fn merge_metadata(current: Option<&Map<String, Value>>, changes: &Map<String, Value>) -> Map<String, Value> {
    let mut merged = current.cloned().unwrap_or_default();
    for (key, value) in changes {
        if value.is_null() {
            merged.remove(key);
        } else {
            merged.insert(key.clone(), value.clone());
        }
    }
    merged
}

/// Applies `input` to the list under its lock (Claude Code's TaskUpdate `call`, without hooks
/// and swarm parts). Every failure — unknown task, unknown or self link, unreadable file, write
/// error — is an output with `success: false` and the reason; links are checked before anything
/// is written, so a failed update changes nothing.
pub fn apply(store: &TaskStore, input: &TaskUpdateInput) -> TaskUpdateOutput {
    let id = input.task_id.as_str();
    match store.transaction(|tx| Ok(apply_locked(tx, input))) {
        Ok(output) => output,
        Err(error) => failure(id, error.to_string()),
    }
}

fn apply_locked(tx: &mut Transaction<'_>, input: &TaskUpdateInput) -> TaskUpdateOutput {
    let id = input.task_id.as_str();
    let existing = match tx.get(id) {
        Ok(Some(task)) => task,
        Ok(None) => return failure(id, NOT_FOUND),
        Err(error) => return failure(id, error.to_string()),
    };
    if input.status == Some(UpdateStatus::Deleted) {
        return match tx.delete(id) {
            Ok(true) => TaskUpdateOutput {
                success: true,
                task_id: id.to_owned(),
                updated_fields: vec!["deleted".to_owned()],
                error: None,
                status_change: Some(StatusChange { from: existing.status.to_string(), to: "deleted".to_owned() }),
            },
            Ok(false) => failure(id, "Failed to delete task"),
            Err(error) => failure(id, format!("Failed to delete task: {error}")),
        };
    }
    let blocks = new_ids(input.add_blocks.as_ref(), &existing.blocks);
    let blocked_by = new_ids(input.add_blocked_by.as_ref(), &existing.blocked_by);
    if let Some(problem) = check_links(tx, id, &blocks, &blocked_by) {
        return failure(id, problem);
    }

    let mut task: Task = existing.clone();
    let mut updated_fields: Vec<String> = Vec::new();
    let mut changed = |field: &str| updated_fields.push(field.to_owned());
    if let Some(subject) = input.subject.as_ref().filter(|subject| **subject != task.subject) {
        task.subject.clone_from(subject);
        changed("subject");
    }
    if let Some(description) = input.description.as_ref().filter(|description| **description != task.description) {
        task.description.clone_from(description);
        changed("description");
    }
    if let Some(active_form) = input.active_form.as_ref().filter(|form| task.active_form.as_ref() != Some(*form)) {
        task.active_form = Some(active_form.clone());
        changed("activeForm");
    }
    if let Some(owner) = input.owner.as_ref().filter(|owner| task.owner.as_ref() != Some(*owner)) {
        task.owner = Some(owner.clone());
        changed("owner");
    }
    if let Some(changes) = &input.metadata {
        let merged = merge_metadata(task.metadata.as_ref(), changes);
        if merged != task.metadata.clone().unwrap_or_default() {
            task.metadata = Some(merged);
            changed("metadata");
        }
    }
    let mut status_change = None;
    if let Some(status) = input.status.and_then(stored_status).filter(|status| *status != task.status) {
        status_change = Some(StatusChange { from: task.status.to_string(), to: status.to_string() });
        task.status = status;
        changed("status");
    }
    if task != existing
        && let Err(error) = tx.put(&task)
    {
        return failure(id, error.to_string());
    }
    for other in &blocks {
        if let Err(error) = tx.link(id, other) {
            return failure(id, error.to_string());
        }
    }
    if !blocks.is_empty() {
        changed("blocks");
    }
    for other in &blocked_by {
        if let Err(error) = tx.link(other, id) {
            return failure(id, error.to_string());
        }
    }
    if !blocked_by.is_empty() {
        changed("blockedBy");
    }
    TaskUpdateOutput { success: true, task_id: id.to_owned(), updated_fields, error: None, status_change }
}

/// Why the new links cannot be made, if they cannot: a task linked to itself, or to an id the
/// list does not have (Claude Code skips such a link silently).
fn check_links(tx: &Transaction<'_>, id: &str, blocks: &[String], blocked_by: &[String]) -> Option<String> {
    let fields = [("addBlocks", blocks), ("addBlockedBy", blocked_by)];
    for (field, ids) in fields {
        for other in ids {
            if other == id {
                return Some(format!("Task #{id} cannot block itself ({field}); nothing was changed"));
            }
            match tx.get(other) {
                Ok(Some(_)) => {}
                Ok(None) => {
                    return Some(format!("Task #{other} not found ({field}); nothing was changed"));
                }
                Err(error) => return Some(format!("{error} ({field}); nothing was changed")),
            }
        }
    }
    None
}
