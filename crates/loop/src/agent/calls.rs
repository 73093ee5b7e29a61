//! Running the model's calls: the ones started while the answer streamed and the rest, with
//! [`runs_concurrently`](agent_tools_core::runs_concurrently) as the one rule for what runs
//! together; each result reported as it finishes, and what a turn's results deliver to the
//! conversation.

use super::*;

pub(super) struct Call {
    pub(super) block: ToolUseBlock,
    pub(super) state: CallState,
}

pub(super) enum CallState {
    Waiting,
    Running(JoinHandle<Invocation>),
    /// Finished and reported: the invocation and its `tool_result` as sent (boxed: an
    /// invocation is large and most calls pass through the other states).
    Done(Box<(Invocation, Value)>),
}

/// The first early call that has finished, if any (its outcome taken from its task).
pub(super) fn poll_finished(
    calls: &mut [Call],
    cx: &mut std::task::Context<'_>,
) -> std::task::Poll<(usize, Result<Invocation, tokio::task::JoinError>)> {
    for (index, call) in calls.iter_mut().enumerate() {
        if let CallState::Running(handle) = &mut call.state
            && let std::task::Poll::Ready(outcome) = std::pin::Pin::new(handle).poll(cx)
        {
            return std::task::Poll::Ready((index, outcome));
        }
    }
    std::task::Poll::Pending
}

impl Agent {
    /// Reports a finished call (`CallFinished`, then its `user` event) and returns its
    /// `tool_result` block as sent.
    pub(super) fn report(&self, block: &ToolUseBlock, done: &Invocation, sink: Sink<'_>) -> Value {
        sink(AgentEvent::CallFinished {
            tool_use_id: block.id.clone(),
            tool_name: self.tool_name(block),
            is_error: done.block.is_error,
            denied: done.permission_denied,
        });
        let result = self.result_json(block, done);
        if done.permission_denied {
            // Claude Code's `system/permission_denied` line: the SDK host sees the refusal as
            // it happens (the result's `permission_denials` lists them all at the end).
            sink(AgentEvent::Message(serde_json::json!({
                "type": "system", "subtype": "permission_denied",
                "tool_name": self.tool_name(block), "tool_use_id": block.id,
                "agent_id": self.session.agent_id(),
                "message": done.block.content.text(),
                "session_id": self.session.id(), "uuid": crate::agent::uuid(),
            })));
        }
        let data = done.data.as_ref().map(|data| data.to_json());
        if let (Some(transcript), Some(data)) = (&self.transcript, &data) {
            transcript.note_result(&block.id, data.clone());
        }
        sink(AgentEvent::Message(self.user_event(&result, data)));
        result
    }

    pub(super) fn tool_name(&self, block: &ToolUseBlock) -> String {
        self.session.find_tool(&block.name).map_or_else(|| block.name.clone(), |tool| tool.name().to_owned())
    }

    /// A finished call's `tool_result` block, shaped for the called tool: its name and
    /// capabilities, or the block's name and [`Capabilities::DEFAULT`](agent_tools_core::Capabilities::DEFAULT)
    /// for a tool not in the pool.
    fn result_json(&self, block: &ToolUseBlock, done: &Invocation) -> Value {
        let tool = self.session.find_tool(&block.name);
        let name = tool.as_ref().map_or(block.name.as_str(), |tool| tool.name());
        let capabilities = tool.as_ref().map_or_else(Default::default, |tool| tool.capabilities());
        tool_result_json(name, capabilities, done)
    }

    pub(super) fn is_concurrency_safe(&self, block: &ToolUseBlock) -> bool {
        unparsed_input(&block.input).is_none() && self.session.runs_concurrently(block)
    }

    /// A call's options: the query's interrupt, and progress relayed to the loop.
    pub(super) fn call_options(&self, interrupt: &CancellationToken) -> CallOptions {
        let tx = self.progress_tx.clone();
        let progress: agent_tools_core::ProgressSink = Arc::new(move |event| {
            let _ = tx.send(event);
        });
        CallOptions {
            // Stopping the agent (a sub-agent's caller cancelled, TaskStop) stops every call.
            cancel: Some(self.session.cancel_token().child_token()),
            interrupt: Some(interrupt.clone()),
            progress: Some(progress),
            ..CallOptions::default()
        }
    }

    /// Waits for `work`, relaying the calls' progress to `sink` meanwhile.
    pub(super) async fn relaying<T>(&self, work: impl std::future::Future<Output = T>, sink: Sink<'_>) -> T {
        let mut progress = self.progress_rx.lock().await;
        tokio::pin!(work);
        loop {
            tokio::select! {
                out = &mut work => {
                    while let Ok(event) = progress.try_recv() {
                        sink(AgentEvent::Progress(event));
                    }
                    return out;
                }
                Some(event) = progress.recv() => sink(AgentEvent::Progress(event)),
            }
        }
    }

    pub(super) fn spawn_call(&self, block: ToolUseBlock, interrupt: &CancellationToken) -> JoinHandle<Invocation> {
        let session = Arc::clone(&self.session);
        let options = self.call_options(interrupt);
        tokio::spawn(async move { session.call(&block, options).await })
    }

    /// Runs the message's calls: those started while it streamed, then the rest — consecutive
    /// concurrency-safe calls together, any other call alone, in block order. Each result is
    /// reported as it finishes (results reported while streaming are not reported again); the
    /// results come back in block order.
    pub(super) async fn run_calls(
        &self,
        calls: Vec<Call>,
        interrupt: &CancellationToken,
        sink: Sink<'_>,
    ) -> Vec<(ToolUseBlock, Invocation, Value)> {
        let mut running: Vec<(usize, JoinHandle<Invocation>)> = Vec::new();
        let mut done: Vec<Option<(Invocation, Value)>> = (0..calls.len()).map(|_| None).collect();
        let mut blocks: Vec<ToolUseBlock> = Vec::with_capacity(calls.len());
        for (index, call) in calls.into_iter().enumerate() {
            let Call { block, state } = call;
            match state {
                CallState::Done(finished) => done[index] = Some(*finished),
                CallState::Running(handle) => running.push((index, handle)),
                CallState::Waiting => {
                    if let Some(raw) = unparsed_input(&block.input) {
                        let text = unparsed_input_error(&block.name, raw);
                        let refused = Invocation::refused(ToolResultBlock::error(&block.id, text));
                        let result = self.report(&block, &refused, sink);
                        done[index] = Some((refused, result));
                    } else if self.is_concurrency_safe(&block) {
                        running.push((index, self.spawn_call(block.clone(), interrupt)));
                    } else {
                        self.join_all(&mut running, &blocks, &mut done, sink).await;
                        let options = self.call_options(interrupt);
                        let finished = self.relaying(self.session.call(&block, options), sink).await;
                        let result = self.report(&block, &finished, sink);
                        done[index] = Some((finished, result));
                    }
                }
            }
            blocks.push(block);
        }
        self.join_all(&mut running, &blocks, &mut done, sink).await;
        blocks
            .into_iter()
            .zip(done)
            .map(|(block, done)| {
                let (done, result) = done.unwrap_or_else(|| {
                    let missing = Invocation::refused(ToolResultBlock::error(&block.id, INTERRUPTED_BY_USER));
                    let result = self.result_json(&block, &missing);
                    (missing, result)
                });
                (block, done, result)
            })
            .collect()
    }

    /// Waits for the running calls, reporting each as it finishes.
    pub(super) async fn join_all(
        &self,
        running: &mut Vec<(usize, JoinHandle<Invocation>)>,
        blocks: &[ToolUseBlock],
        done: &mut [Option<(Invocation, Value)>],
        sink: Sink<'_>,
    ) {
        if running.is_empty() {
            return;
        }
        let (mut indices, mut handles): (Vec<usize>, Vec<JoinHandle<Invocation>>) = running.drain(..).unzip();
        while !handles.is_empty() {
            let (outcome, position, rest) = self.relaying(futures_util::future::select_all(handles), sink).await;
            handles = rest;
            let at = indices.remove(position);
            let Some(block) = blocks.get(at) else { continue };
            let invocation = outcome.unwrap_or_else(|error| join_error(error, &block.id));
            let result = self.report(block, &invocation, sink);
            done[at] = Some((invocation, result));
        }
    }

    /// Stops the watches the query's Monitor calls started: the user who interrupts wants the
    /// work stopped, and a watch's events would otherwise wake the model again. Background
    /// commands (`run_in_background`) go on: the model started them to outlive its turn.
    pub(super) async fn stop_monitors(&self, run: &Run) {
        if run.monitors.is_empty() {
            return;
        }
        let ctx = self.session.context().await;
        if let Some(registry) = agent_tools_background::TaskRegistry::existing(&ctx) {
            for id in &run.monitors {
                let _ = registry.stop(id).await;
            }
        }
    }

    /// Waits for the calls an interrupted answer had started (those whose tool stops on
    /// interrupt stop; the others finish). The answer is not kept, so nothing else needs an answer.
    pub(super) async fn stop_calls(&self, calls: Vec<Call>) {
        for call in calls {
            if let CallState::Running(running) = call.state {
                let _ = running.await;
            }
        }
    }

    /// Puts a round of results into the conversation: one user message (the results in block
    /// order, then a "Tool loaded." text per result that loaded tools), then the system messages
    /// (hook output, a changed working directory, background notifications).
    pub(super) async fn deliver(
        &self,
        st: &mut State,
        finished: Vec<(ToolUseBlock, Invocation, Value)>,
        run: &mut Run,
    ) {
        let batch_context = self.post_tool_batch_hooks(&finished).await;
        let mut content = Vec::with_capacity(finished.len());
        let mut loaded = 0;
        let mut system = Vec::new();
        for (block, done, result) in finished {
            if self.tool_name(&block) == STRUCTURED_OUTPUT && !done.block.is_error {
                run.structured = Some(block.input.clone());
            }
            if self.tool_name(&block) == MONITOR
                && !done.block.is_error
                && let Some(task) = done.data.as_ref().map(|data| data.to_json())
                && let Some(id) = task.get("taskId").and_then(Value::as_str)
            {
                run.monitors.push(id.to_owned());
            }
            if done.permission_denied {
                run.denials.push(json!({"tool_name": block.name, "tool_use_id": block.id, "tool_input": block.input}));
            }
            if let Some(reason) = &done.stop {
                run.stop.get_or_insert_with(|| reason.clone());
            }
            if !done.block.is_error && !done.block.content.tool_references().is_empty() {
                loaded += 1;
            }
            let repeated = self.options.repeated_call_note && repeats_last_call(st, &block, &result);
            content.extend(Block::from_value(result));
            if repeated {
                content.push(Block::text(repeated_call_text(&block.name)));
            }
            for message in &done.new_messages {
                if let Some(message) = serde_json::to_value(message).ok().and_then(Message::from_value) {
                    system.push(message);
                }
            }
        }
        for _ in 0..loaded {
            content.push(Block::text(TOOL_LOADED));
        }
        self.push(st, Message::user(content));
        for message in system {
            self.push(st, message);
        }
        for context in batch_context {
            self.push(st, Message::system_text(format!("PostToolBatch hook additional context: {context}")));
        }
        let cwd = self.session.context().await.cwd;
        if cwd != st.reported_cwd {
            self.cwd_changed_hooks(&st.reported_cwd, &cwd).await;
            let text = format!(
                "# Environment update\n - Primary working directory: {} (was {})",
                cwd.display(),
                st.reported_cwd.display()
            );
            st.reported_cwd = cwd;
            self.push(st, Message::system_text(text));
        }
        for notification in self.session.drain_notifications().await {
            let text = crate::results::midturn_text(&notification);
            self.push(st, Message::system_text(text));
        }
    }
}

/// Whether `block` with `result` is the very call (tool and input) the model made last, with
/// the very same result; remembers it as the last call either way.
fn repeats_last_call(st: &mut State, block: &ToolUseBlock, result: &Value) -> bool {
    let call = json!([block.name, block.input, result.get("content"), result.get("is_error")]).to_string();
    let repeated = st.last_call.as_deref() == Some(call.as_str());
    st.last_call = Some(call);
    repeated
}

/// The line after a repeated call's result ([`AgentOptions::repeated_call_note`](crate::AgentOptions::repeated_call_note)).
fn repeated_call_text(tool: &str) -> String {
    format!(
        "This {tool} call is the same as your previous one, and so is its result: repeating it changes nothing. \
         Act on what the result says: take a different next step (read the code the result points at, change it, \
         then check again)."
    )
}

/// The answer of a call whose task died (or was cancelled): an error the model can read.
pub(super) fn join_error(error: tokio::task::JoinError, id: &str) -> Invocation {
    let text =
        if error.is_cancelled() { INTERRUPTED_BY_USER.to_owned() } else { format!("The tool call failed: {error}") };
    Invocation::refused(ToolResultBlock::error(id, text))
}
