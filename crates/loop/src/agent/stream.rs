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
        let mut stream = match self.backend.stream_json(body, &self.headers()).await {
            Ok(stream) => stream,
            Err(error) => return Err((error, Vec::new())),
        };
        let mut progress = self.progress_rx.lock().await;
        let mut builder = MessageBuilder::new();
        let mut calls: Vec<Call> = Vec::new();
        let mut leading = true;
        let mut message_id = None;
        loop {
            let running = calls.iter().any(|call| matches!(call.state, CallState::Running(_)));
            let next = tokio::select! {
                biased;
                () = interrupt.cancelled() => Next::Interrupted,
                Some(event) = progress.recv() => Next::Progress(event),
                (index, outcome) = std::future::poll_fn(|cx| poll_finished(&mut calls, cx)), if running => {
                    Next::Finished(index, outcome)
                }
                event = stream.next() => Next::Event(event),
            };
            let event = match next {
                Next::Interrupted => return Ok(Streamed::Interrupted(calls)),
                Next::Progress(event) => {
                    sink(AgentEvent::Progress(event));
                    continue;
                }
                Next::Finished(index, outcome) => {
                    // An early call finished while the answer streams: report it now.
                    let call = &mut calls[index];
                    let done = outcome.unwrap_or_else(|error| join_error(error, &call.block.id));
                    let result = self.report(&call.block, &done, sink);
                    call.state = CallState::Done(done, result);
                    continue;
                }
                Next::Event(event) => event,
            };
            let event = match event {
                None => break,
                Some(Ok(event)) => event,
                Some(Err(error)) => return Err((error, calls)),
            };
            if let StreamEvent::Error { kind, message } = &event {
                return Err((ApiError::StreamError { kind: kind.clone(), message: message.clone() }, calls));
            }
            if let StreamEvent::MessageStart { message } = &event {
                message_id = message.get("id").and_then(Value::as_str).map(str::to_owned);
            }
            if let StreamEvent::ContentBlockDelta { delta: Delta::Text(text), .. } = &event {
                sink(AgentEvent::TextDelta(text.clone()));
            }
            sink(AgentEvent::Stream(event.clone()));
            let finished = match builder.apply(&event) {
                Ok(finished) => finished,
                Err(error) => return Err((error, calls)),
            };
            if matches!(event, StreamEvent::MessageStop) {
                break;
            }
            let Some(index) = finished else { continue };
            let Some(block) = builder.block(index).cloned() else { continue };
            sink(AgentEvent::Message(self.assistant_event(message_id.as_deref(), &block, builder.usage())));
            if block.get("type").and_then(Value::as_str) != Some("tool_use") {
                continue;
            }
            let tool_use = ToolUseBlock {
                id: block.get("id").and_then(Value::as_str).unwrap_or_default().to_owned(),
                name: block.get("name").and_then(Value::as_str).unwrap_or_default().to_owned(),
                input: block.get("input").cloned().unwrap_or_else(|| json!({})),
            };
            leading = leading && self.is_concurrency_safe(&tool_use);
            let state = if leading {
                CallState::Running(self.spawn_call(tool_use.clone(), interrupt))
            } else {
                CallState::Waiting
            };
            calls.push(Call { block: tool_use, state });
        }
        // Early calls still running when the answer ends are waited for with the rest.
        Ok(Streamed::Done(builder.finish(), calls))
    }
}
