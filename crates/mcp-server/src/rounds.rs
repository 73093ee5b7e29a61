//! Questions to the client's user under MCP 2026-07-28, where a server may not send requests of
//! its own (SEP-2575) and asks through multi round-trip requests instead (SEP-2322).
//!
//! Under 2026-07-28 the client sends its capabilities with every request
//! (`_meta["io.modelcontextprotocol/clientCapabilities"]`), and there is no `initialize`. When
//! such a `tools/call` declares form elicitation, the call runs on a task of its own with a
//! [`RoundsPrompter`]. A question it asks (a permission question, AskUserQuestion's form,
//! ExitPlanMode's plan) ends the `tools/call` with an `InputRequiredResult`:
//! `{"resultType": "input_required", "inputRequests": {"answer": {"method": "elicitation/create",
//! "params": …}}, "requestState": "agent-tools-question-N-<random>"}`. The call waits, holding what it
//! holds (the session, for a call that is not concurrency-safe), until the client sends the
//! `tools/call` again with `requestState` and `inputResponses: {"answer": <ElicitResult>}`; that
//! request then carries the call on, to its result or to its next question.
//!
//! A retry naming a `requestState` that is not waiting (unknown, already answered, or given up
//! on) or another tool is a `-32602` error. A retry without an answer, or with one that does not
//! read as an `ElicitResult`, counts as a question the client could not show. A client that does
//! not come back within [`ANSWER_WAIT`] leaves the question unanswered: the call is refused
//! because nobody could be asked, and frees the session. Cancelling a round's request cancels
//! the call.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Mutex, PoisonError};
use std::time::Duration;

use agent_tools_core::BoxFuture;
use agent_tools_core::CancellationToken;
use agent_tools_host::{PermissionAnswer, PermissionPrompter, PermissionRequest};
use rmcp::model::{
    CallToolResponse, CallToolResult, ContentBlock, ElicitRequest, ElicitRequestParams, ElicitResult, ErrorData,
    InputRequest, InputRequests, InputRequiredResult, InputResponses,
};
use tokio::sync::{mpsc, oneshot};

use crate::elicitation::FormAsker;

/// How long a question waits for the client to come back with the answer: 15 minutes.
pub(crate) const ANSWER_WAIT: Duration = Duration::from_secs(15 * 60);

/// The key of the one input request of an `InputRequiredResult`.
pub(crate) const ANSWER_KEY: &str = "answer";

/// What the client sent back for a question: its result, or why there is none.
type Reply = Result<ElicitResult, String>;

/// What a running call tells the request that drives it.
pub(crate) enum Event {
    /// It has a question for the client's user, and waits for `answer`.
    Ask {
        /// The elicitation form.
        params: ElicitRequestParams,
        /// Where the reply goes.
        answer: oneshot::Sender<Reply>,
    },
    /// It finished with this result.
    Done(CallToolResult),
}

/// The running call's end of the channel: asks, and reports the result.
#[derive(Clone)]
pub(crate) struct Asker {
    events: mpsc::Sender<Event>,
}

/// A call being driven by a request: the tool, its events, and its cancellation. Dropping it
/// (nobody can take the call's result any more) cancels the call.
pub(crate) struct Running {
    tool: String,
    events: mpsc::Receiver<Event>,
    cancel: CancellationToken,
}

impl Drop for Running {
    fn drop(&mut self) {
        self.cancel.cancel();
    }
}

/// A channel for a call of `tool` that `cancel` stops: the asker goes with the call, the
/// [`Running`] to [`Rounds::drive`].
pub(crate) fn channel(tool: String, cancel: CancellationToken) -> (Asker, Running) {
    let (events, receiver) = mpsc::channel(1);
    (Asker { events }, Running { tool, events: receiver, cancel })
}

impl Asker {
    /// Puts a question to the client's user and waits (at most [`ANSWER_WAIT`]) for the reply;
    /// `Err` says why there is none.
    async fn elicit(&self, params: ElicitRequestParams) -> Reply {
        let ask = async {
            let (answer, reply) = oneshot::channel();
            if self.events.send(Event::Ask { params, answer }).await.is_err() {
                return Err("the request that asked went away".to_owned());
            }
            reply.await.unwrap_or_else(|_| Err("the question was dropped unanswered".to_owned()))
        };
        tokio::time::timeout(ANSWER_WAIT, ask)
            .await
            .unwrap_or_else(|_| Err(format!("no answer came within {} minutes", ANSWER_WAIT.as_secs() / 60)))
    }

    /// Reports the call's result to the request driving it, if one takes it within
    /// [`ANSWER_WAIT`].
    pub(crate) async fn finish(&self, result: CallToolResult) {
        match tokio::time::timeout(ANSWER_WAIT, self.events.send(Event::Done(result))).await {
            Ok(Ok(())) => {}
            _ => tracing::debug!("a call finished after its client stopped waiting for it"),
        }
    }
}

/// A call waiting for the client to send a question's answer.
struct Waiting {
    running: Running,
    answer: oneshot::Sender<Reply>,
}

/// The calls waiting for answers, by the `requestState` each was given.
#[derive(Default)]
pub(crate) struct Rounds {
    waiting: Mutex<HashMap<String, Waiting>>,
    issued: AtomicU64,
}

impl Rounds {
    /// Carries `running` on until it finishes (its result) or asks (an `InputRequiredResult`
    /// holding the question). `request` is the driving request's cancellation: cancelling it
    /// cancels the call.
    pub(crate) async fn drive(&self, mut running: Running, request: &CancellationToken) -> CallToolResponse {
        let event = tokio::select! {
            event = running.events.recv() => event,
            () = request.cancelled() => {
                running.cancel.cancel();
                running.events.recv().await
            }
        };
        match event {
            Some(Event::Done(result)) => result.into(),
            Some(Event::Ask { params, answer }) => {
                // Numbered for the logs, and unguessable: over HTTP, stateless requests of every
                // client share one `Rounds`, and a state must let only its holder answer.
                let number = self.issued.fetch_add(1, Ordering::Relaxed) + 1;
                let state = format!("agent-tools-question-{number}-{}", uuid::Uuid::new_v4().simple());
                let mut requests = InputRequests::new();
                requests.insert(ANSWER_KEY.to_owned(), InputRequest::Elicitation(ElicitRequest::new(params)));
                let mut waiting = self.waiting.lock().unwrap_or_else(PoisonError::into_inner);
                // Questions whose call stopped waiting (it gave up on the client) go.
                waiting.retain(|_, question| !question.answer.is_closed());
                waiting.insert(state.clone(), Waiting { running, answer });
                InputRequiredResult::new(Some(requests), Some(state)).into()
            }
            None => {
                tracing::error!("a call of {} ended without a result", running.tool);
                CallToolResult::error(vec![ContentBlock::text(format!(
                    "<tool_use_error>Error: the call of {} stopped without a result</tool_use_error>",
                    running.tool
                ))])
                .into()
            }
        }
    }

    /// Takes the answer a retry of a call of `tool` brings for `state` to the call waiting for
    /// it, and returns the call to [`Rounds::drive`] on. `Err` (`-32602`) when no call of `tool`
    /// waits under `state`.
    pub(crate) fn resume(
        &self,
        state: &str,
        tool: &str,
        responses: Option<&InputResponses>,
    ) -> Result<Running, ErrorData> {
        let mut waiting = self.waiting.lock().unwrap_or_else(PoisonError::into_inner);
        let Some(question) = waiting.remove(state) else {
            return Err(ErrorData::invalid_params(
                format!(
                    "Invalid params: requestState {state:?} names no question this server is waiting on \
                     (answered already, never asked, or given up on)"
                ),
                None,
            ));
        };
        if question.running.tool != tool {
            let asked = question.running.tool.clone();
            waiting.insert(state.to_owned(), question);
            return Err(ErrorData::invalid_params(
                format!("Invalid params: requestState {state:?} belongs to a call of {asked}, not of {tool}"),
                None,
            ));
        }
        drop(waiting);
        let reply = match responses.and_then(|responses| responses.get(ANSWER_KEY)) {
            Some(value) => serde_json::from_value::<ElicitResult>(value.clone())
                .map_err(|err| format!("its answer could not be read: {err}")),
            None => Err(format!("it sent no inputResponses[{ANSWER_KEY:?}]")),
        };
        // If the call stopped waiting, its result (a refusal) follows all the same.
        let _ = question.answer.send(reply);
        Ok(question.running)
    }
}

/// Asks the client's user through [`Rounds`]: the same forms, messages and answers as
/// [`crate::elicitation::ElicitationPrompter`] gives a client of the 2025 protocol, which gets them
/// as `elicitation/create` requests ([`crate::elicitation::ask_through_forms`] for both).
pub(crate) struct RoundsPrompter {
    asker: Asker,
    offer_always: bool,
}

impl RoundsPrompter {
    /// A prompter asking through `asker`; `offer_always` false leaves "allow for the rest of
    /// this session" out (a session other clients share).
    pub(crate) fn new(asker: Asker, offer_always: bool) -> Self {
        Self { asker, offer_always }
    }
}

impl FormAsker for Asker {
    fn elicit(&self, params: ElicitRequestParams) -> BoxFuture<'_, Reply> {
        Box::pin(Asker::elicit(self, params))
    }
}

impl PermissionPrompter for RoundsPrompter {
    fn ask<'a>(&'a self, request: &'a PermissionRequest) -> BoxFuture<'a, PermissionAnswer> {
        Box::pin(crate::elicitation::ask_through_forms_with(&self.asker, request, self.offer_always))
    }
}
