//! Streaming one answer: the request with its retries, each finished block reported as it
//! comes, and the leading run of concurrency-safe calls started while the rest still streams.

use super::*;

/// What woke a streaming answer up.
enum Next {
    Interrupted,
    Progress(ProgressEvent),
    Finished(usize, Result<Invocation, tokio::task::JoinError>),
    Event(Option<Result<StreamEvent, ApiError>>),
}

/// Whether the answer goes on after an event.
enum Flow {
    Go,
    End,
}

/// What one streamed answer has so far: the message being built, its calls, whether they are
/// all concurrency-safe so far (the leading run starts early), and the message's id.
struct Answer {
    builder: MessageBuilder,
    calls: Vec<Call>,
    leading: bool,
    message_id: Option<String>,
}

/// How one streamed request ended.
pub(super) enum Streamed {
    Done(AssistantMessage, Vec<Call>),
    Interrupted(Vec<Call>),
}

impl Agent {
    /// Streams one answer, retrying a failed request as the retry policy allows (calls started
    /// from a failed attempt are stopped and their results dropped).
    pub(super) async fn stream_with_retries(
        &self,
        body: &Request<'_>,
        sink: Sink<'_>,
        interrupt: &CancellationToken,
    ) -> Result<Streamed, ApiError> {
        let mut attempt = 0;
        loop {
            match self.stream_once(body, sink, interrupt).await {
                Ok(streamed) => return Ok(streamed),
                Err((error, started)) => {
                    for call in started {
                        if let CallState::Running(running) = call.state {
                            running.abort();
                        }
                    }
                    attempt += 1;
                    let Some(wait) = self.options.retry.wait_before(attempt, &error) else { return Err(error) };
                    sink(AgentEvent::Notice(format!(
                        "API request failed ({}); retrying in {:.1} s (attempt {attempt} of {})",
                        api_error_text(&error),
                        wait.as_secs_f64(),
                        self.options.retry.max_retries
                    )));
                    // Claude Code's `system/api_retry` line, for SDK hosts that show retries.
                    sink(AgentEvent::Message(serde_json::json!({
                        "type": "system", "subtype": "api_retry",
                        "attempt": attempt, "max_retries": self.options.retry.max_retries,
                        "retry_delay_ms": u64::try_from(wait.as_millis()).unwrap_or(u64::MAX),
                        "error_status": error.status().map(|status| status.as_u16()),
                        "error": api_error_text(&error),
                        "session_id": self.session.id(), "uuid": crate::agent::uuid(),
                    })));
                    tokio::select! {
                        () = tokio::time::sleep(wait) => {}
                        () = interrupt.cancelled() => return Ok(Streamed::Interrupted(Vec::new())),
                    }
                }
            }
        }
    }

    /// One streamed request. Each finished block is an `assistant` event; a `tool_use` block of
    /// the leading run of concurrency-safe calls starts at once, while the rest still streams.
    pub(super) async fn stream_once(
        &self,
        body: &Request<'_>,
        sink: Sink<'_>,
        interrupt: &CancellationToken,
    ) -> Result<Streamed, (ApiError, Vec<Call>)> {
        // An interrupt while the API has not answered yet (no headers) stops at once too.
        let headers = self.headers();
        let opened = tokio::select! {
            biased;
            () = interrupt.cancelled() => return Ok(Streamed::Interrupted(Vec::new())),
            opened = self.backend.stream_json(body, &headers) => opened,
        };
        let mut stream = match opened {
            Ok(stream) => stream,
            Err(error) => return Err((error, Vec::new())),
        };
        let mut progress = self.progress_rx.lock().await;
        let mut answer = Answer { builder: MessageBuilder::new(), calls: Vec::new(), leading: true, message_id: None };
        loop {
            let running = answer.calls.iter().any(|call| matches!(call.state, CallState::Running(_)));
            let next = tokio::select! {
                biased;
                () = interrupt.cancelled() => Next::Interrupted,
                Some(event) = progress.recv() => Next::Progress(event),
                (index, outcome) = std::future::poll_fn(|cx| poll_finished(&mut answer.calls, cx)), if running => {
                    Next::Finished(index, outcome)
                }
                event = stream.next() => Next::Event(event),
            };
            let event = match next {
                Next::Interrupted => return Ok(Streamed::Interrupted(answer.calls)),
                Next::Progress(event) => {
                    sink(AgentEvent::Progress(event));
                    continue;
                }
                Next::Finished(index, outcome) => {
                    // An early call finished while the answer streams: report it now.
                    let call = &mut answer.calls[index];
                    let done = outcome.unwrap_or_else(|error| join_error(error, &call.block.id));
                    let result = self.report(&call.block, &done, sink);
                    call.state = CallState::Done(Box::new((done, result)));
                    continue;
                }
                Next::Event(None) => break,
                Next::Event(Some(Err(error))) => return Err((error, answer.calls)),
                Next::Event(Some(Ok(event))) => event,
            };
            match self.on_event(&mut answer, event, sink, interrupt) {
                Ok(Flow::Go) => {}
                Ok(Flow::End) => break,
                Err(error) => return Err((error, answer.calls)),
            }
        }
        // Early calls still running when the answer ends are waited for with the rest.
        Ok(Streamed::Done(answer.builder.finish(), answer.calls))
    }

    /// One event of the answer: reported (its text as it comes), applied to the message, and
    /// when it finishes a block, the block reported and its call queued or started.
    fn on_event(
        &self,
        answer: &mut Answer,
        event: StreamEvent,
        sink: Sink<'_>,
        interrupt: &CancellationToken,
    ) -> Result<Flow, ApiError> {
        if let StreamEvent::Error { kind, message } = &event {
            return Err(ApiError::StreamError { kind: kind.clone(), message: message.clone() });
        }
        if let StreamEvent::MessageStart { message } = &event {
            answer.message_id = message.get("id").and_then(Value::as_str).map(str::to_owned);
        }
        if let StreamEvent::ContentBlockDelta { delta: Delta::Text(text), .. } = &event {
            sink(AgentEvent::TextDelta(text.clone()));
        }
        sink(AgentEvent::Stream(event.clone()));
        let finished = answer.builder.apply(&event)?;
        if matches!(event, StreamEvent::MessageStop) {
            return Ok(Flow::End);
        }
        if let Some(index) = finished {
            self.block_finished(answer, index, sink, interrupt);
        }
        Ok(Flow::Go)
    }

    /// A finished block: its `assistant` event, and for a `tool_use`, its call — started at
    /// once while the answer's calls so far are all concurrency-safe, else queued.
    fn block_finished(&self, answer: &mut Answer, index: usize, sink: Sink<'_>, interrupt: &CancellationToken) {
        let Some(block) = answer.builder.block(index).cloned() else { return };
        sink(AgentEvent::Message(self.assistant_event(
            answer.message_id.as_deref(),
            index,
            &block,
            answer.builder.usage(),
        )));
        if block.get("type").and_then(Value::as_str) != Some("tool_use") {
            return;
        }
        let tool_use = ToolUseBlock {
            id: block.get("id").and_then(Value::as_str).unwrap_or_default().to_owned(),
            name: block.get("name").and_then(Value::as_str).unwrap_or_default().to_owned(),
            input: block.get("input").cloned().unwrap_or_else(|| json!({})),
        };
        answer.leading = answer.leading && self.is_concurrency_safe(&tool_use);
        let state = if answer.leading {
            CallState::Running(self.spawn_call(tool_use.clone(), interrupt))
        } else {
            CallState::Waiting
        };
        answer.calls.push(Call { block: tool_use, state });
    }
}
