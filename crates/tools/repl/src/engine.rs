//! The JavaScript side: one QuickJS runtime and context on a thread of its own, kept for the
//! session, running one script at a time.
//!
//! A script runs as global code with top-level `await` (QuickJS's async eval), so its `let`,
//! `const`, functions and globals stay for the next script. A tool function called by the script
//! sends a [`Event::Call`] to the async side and returns a promise; the thread then runs the
//! script's pending jobs until it either settles or waits on tool calls only, and blocks for their
//! [`Reply`] (at most until the deadline). The deadline is also enforced inside JavaScript by
//! QuickJS's interrupt handler, so a busy loop stops too; memory is capped by the runtime's
//! limit. The context has ECMAScript's built-ins only: no module loader, no file system,
//! network or process access.

use std::cell::{Cell, RefCell};
use std::rc::Rc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, PoisonError, mpsc};
use std::time::{Duration, Instant};

use rquickjs::context::EvalOptions;
use rquickjs::promise::PromiseState;
use rquickjs::{CatchResultExt as _, Context, Ctx, Function, Promise, Runtime, Value};

/// The file name scripts are evaluated as (errors say `repl:LINE:COLUMN`).
pub const SCRIPT_NAME: &str = "repl";

/// What the prelude defines: the tool functions, the console and the result conversion.
const PRELUDE: &str = include_str!("prelude.js");

/// One script to run.
pub struct Job {
    /// The source.
    pub code: String,
    /// How long it may take in all, tool calls included.
    pub timeout: Duration,
    /// The tool names to define as functions (`Read`, `tools.Read`).
    pub tools: Vec<String>,
    /// Where the thread sends tool calls and the outcome.
    pub events: tokio::sync::mpsc::UnboundedSender<Event>,
    /// Where the async side sends tool results.
    pub replies: mpsc::Receiver<Reply>,
}

/// From the script's thread.
#[derive(Debug)]
pub enum Event {
    /// The script called a tool: its call number, the tool's name and the input (JSON text).
    Call {
        /// The call's number in this script (from 1).
        id: u32,
        /// The tool's name.
        name: String,
        /// The input object, as JSON text.
        input: String,
    },
    /// The script ended.
    Done(Outcome),
}

/// To the script's thread.
#[derive(Debug)]
pub enum Reply {
    /// The result of call `id`.
    Settle {
        /// The call's number.
        id: u32,
        /// Whether the tool succeeded (else the promise rejects with `text`).
        ok: bool,
        /// The result text.
        text: String,
        /// The tool's output object, as JSON text.
        data: Option<String>,
    },
    /// Stop the script (the call was cancelled).
    Stop,
}

/// How a script ended.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Outcome {
    /// What `console.log` and friends printed, one line per call.
    pub console: String,
    /// The value of the script's last expression, as text (strings as they are, other values
    /// as JSON); `None` for `undefined`.
    pub value: Option<String>,
    /// The uncaught error, with the script's line and column, if it failed.
    pub error: Option<String>,
    /// How many tool calls it made.
    pub calls: u32,
}

/// Limits of the runtime.
#[derive(Debug, Clone, Copy)]
pub struct Limits {
    /// Bytes the JavaScript heap may use.
    pub memory: usize,
    /// Bytes of native stack (deep recursion past it is a `RangeError`).
    pub stack: usize,
}

/// The handle to a running engine thread; dropping it ends the thread once its script is done.
#[derive(Debug)]
pub struct Engine {
    jobs: Mutex<mpsc::Sender<Job>>,
    stop: Arc<AtomicBool>,
}

impl Engine {
    /// Starts the thread with a new runtime and context.
    ///
    /// # Errors
    /// The runtime or context could not be made (out of memory), or the thread not started.
    pub fn start(limits: Limits) -> Result<Self, String> {
        let (jobs, inbox) = mpsc::channel::<Job>();
        let (ready, started) = mpsc::channel::<Result<(), String>>();
        let stop = Arc::new(AtomicBool::new(false));
        let stopped = Arc::clone(&stop);
        std::thread::Builder::new()
            .name("agent-tools-repl".into())
            .spawn(move || {
                let deadline: Arc<Mutex<Option<Instant>>> = Arc::default();
                let machine = match Machine::new(limits, Arc::clone(&deadline), Arc::clone(&stopped)) {
                    Ok(machine) => {
                        let _ = ready.send(Ok(()));
                        machine
                    }
                    Err(why) => {
                        let _ = ready.send(Err(why));
                        return;
                    }
                };
                while let Ok(job) = inbox.recv() {
                    stopped.store(false, Ordering::SeqCst);
                    *deadline.lock().unwrap_or_else(PoisonError::into_inner) = Some(Instant::now() + job.timeout);
                    let events = job.events.clone();
                    let outcome = machine.run(job);
                    *deadline.lock().unwrap_or_else(PoisonError::into_inner) = None;
                    let _ = events.send(Event::Done(outcome));
                }
            })
            .map_err(|error| format!("cannot start the JavaScript thread: {error}"))?;
        started.recv().map_err(|_| "the JavaScript thread ended at its start".to_owned())??;
        Ok(Self { jobs: Mutex::new(jobs), stop })
    }

    /// Queues `job`; its events come on `job.events`.
    ///
    /// # Errors
    /// The thread is gone.
    pub fn submit(&self, job: Job) -> Result<(), String> {
        self.jobs
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .send(job)
            .map_err(|_| "the JavaScript context is gone".to_owned())
    }

    /// Interrupts the running script at its next check (the call was cancelled).
    pub fn interrupt(&self) {
        self.stop.store(true, Ordering::SeqCst);
    }
}

/// How long the thread polls for a tool result before it sleeps: most inner calls (a Read, a
/// Grep) finish within it, and a sleeping thread's wake-up costs more than the call.
const POLL_BEFORE_SLEEP: Duration = Duration::from_micros(300);

/// The next reply: polled for [`POLL_BEFORE_SLEEP`] (yielding the core), then waited for until
/// `wait` has passed.
fn receive(replies: &mpsc::Receiver<Reply>, wait: Duration) -> Result<Reply, mpsc::RecvTimeoutError> {
    let start = Instant::now();
    let poll = POLL_BEFORE_SLEEP.min(wait);
    while start.elapsed() < poll {
        match replies.try_recv() {
            Ok(reply) => return Ok(reply),
            Err(mpsc::TryRecvError::Disconnected) => return Err(mpsc::RecvTimeoutError::Disconnected),
            Err(mpsc::TryRecvError::Empty) => std::thread::yield_now(),
        }
    }
    replies.recv_timeout(wait.saturating_sub(start.elapsed()))
}

/// The thread's runtime and context.
struct Machine {
    _runtime: Runtime,
    context: Context,
    deadline: Arc<Mutex<Option<Instant>>>,
    stop: Arc<AtomicBool>,
    /// Set by the tool functions during a run.
    current: Rc<RefCell<Option<Running>>>,
}

/// The run in progress, as the Rust functions the prelude calls see it.
struct Running {
    events: tokio::sync::mpsc::UnboundedSender<Event>,
    console: String,
    outstanding: Rc<Cell<u32>>,
    calls: u32,
}

impl Machine {
    fn new(limits: Limits, deadline: Arc<Mutex<Option<Instant>>>, stop: Arc<AtomicBool>) -> Result<Self, String> {
        let runtime = Runtime::new().map_err(|error| error.to_string())?;
        runtime.set_memory_limit(limits.memory);
        runtime.set_max_stack_size(limits.stack);
        let (clock, stopping) = (Arc::clone(&deadline), Arc::clone(&stop));
        runtime.set_interrupt_handler(Some(Box::new(move || {
            stopping.load(Ordering::SeqCst)
                || clock
                    .lock()
                    .unwrap_or_else(PoisonError::into_inner)
                    .is_some_and(|deadline| Instant::now() >= deadline)
        })));
        let context = Context::full(&runtime).map_err(|error| error.to_string())?;
        let current: Rc<RefCell<Option<Running>>> = Rc::default();
        context.with(|ctx| -> Result<(), String> {
            let globals = ctx.globals();
            let sender = Rc::clone(&current);
            let request = Function::new(ctx.clone(), move |id: u32, name: String, input: String| {
                if let Some(running) = sender.borrow_mut().as_mut() {
                    running.outstanding.set(running.outstanding.get() + 1);
                    running.calls += 1;
                    let _ = running.events.send(Event::Call { id, name, input });
                }
            })
            .map_err(|error| error.to_string())?;
            let printer = Rc::clone(&current);
            let print = Function::new(ctx.clone(), move |line: String| {
                if let Some(running) = printer.borrow_mut().as_mut() {
                    running.console.push_str(&line);
                    running.console.push('\n');
                }
            })
            .map_err(|error| error.to_string())?;
            globals.set("__agentToolsRequest", request).map_err(|error| error.to_string())?;
            globals.set("__agentToolsPrint", print).map_err(|error| error.to_string())?;
            ctx.eval::<(), _>(PRELUDE).catch(&ctx).map_err(|error| format!("the REPL prelude failed: {error}"))?;
            Ok(())
        })?;
        Ok(Self { _runtime: runtime, context, deadline, stop, current })
    }

    fn run(&self, job: Job) -> Outcome {
        let outstanding = Rc::new(Cell::new(0));
        *self.current.borrow_mut() = Some(Running {
            events: job.events,
            console: String::new(),
            outstanding: Rc::clone(&outstanding),
            calls: 0,
        });
        let (value, error) =
            self.context.with(|ctx| self.evaluate(&ctx, &job.code, &job.tools, &job.replies, &outstanding));
        let running = self.current.borrow_mut().take();
        let (console, calls) = running.map(|running| (running.console, running.calls)).unwrap_or_default();
        Outcome { console, value, error, calls }
    }

    fn evaluate(
        &self,
        ctx: &Ctx<'_>,
        code: &str,
        tools: &[String],
        replies: &mpsc::Receiver<Reply>,
        outstanding: &Cell<u32>,
    ) -> (Option<String>, Option<String>) {
        let begin = || -> rquickjs::Result<()> {
            let start: Function<'_> = ctx.globals().get("__agentToolsBegin")?;
            start.call((serde_json::to_string(tools).unwrap_or_else(|_| "[]".into()),))
        };
        if let Err(error) = begin().catch(ctx) {
            return (None, Some(format!("the REPL could not define the tools: {error}")));
        }
        let mut options = EvalOptions::default();
        options.global = true;
        options.strict = false;
        options.promise = true;
        options.filename = Some(SCRIPT_NAME.to_owned());
        let promise: Promise<'_> = match ctx.eval_with_options(code, options) {
            Ok(promise) => promise,
            Err(_) => return (None, Some(self.describe_thrown(ctx, ctx.catch()))),
        };
        loop {
            // Run what can run now.
            while ctx.execute_pending_job() {}
            match promise.state() {
                PromiseState::Resolved => {
                    let value = promise.result::<Value<'_>>().and_then(Result::ok);
                    return (value.and_then(|completion| self.completion_text(ctx, completion)), None);
                }
                PromiseState::Rejected => {
                    let _ = promise.result::<Value<'_>>();
                    return (None, Some(self.describe_thrown(ctx, ctx.catch())));
                }
                PromiseState::Pending => {}
            }
            if self.past_deadline() {
                return (None, Some(self.stopped_text()));
            }
            if outstanding.get() == 0 {
                return (
                    None,
                    Some("Error: the script is waiting for something that will never happen (a promise that is neither a tool call nor settled by the script)".into()),
                );
            }
            match receive(replies, self.time_left()) {
                Ok(Reply::Settle { id, ok, text, data }) => {
                    outstanding.set(outstanding.get().saturating_sub(1));
                    let settle = || -> rquickjs::Result<()> {
                        let settle: Function<'_> = ctx.globals().get("__agentToolsSettle")?;
                        settle.call((id, ok, text, data))
                    };
                    if let Err(error) = settle().catch(ctx) {
                        return (
                            None,
                            Some(format!("Error: a tool result could not be handed to the script: {error}")),
                        );
                    }
                }
                Ok(Reply::Stop) | Err(mpsc::RecvTimeoutError::Disconnected) => {
                    self.stop.store(true, Ordering::SeqCst);
                    return (None, Some(self.stopped_text()));
                }
                Err(mpsc::RecvTimeoutError::Timeout) => return (None, Some(self.stopped_text())),
            }
        }
    }

    /// The async eval's `{value}` as text.
    fn completion_text<'js>(&self, ctx: &Ctx<'js>, completion: Value<'js>) -> Option<String> {
        let show: Function<'js> = ctx.globals().get("__agentToolsShow").ok()?;
        let value = completion.as_object().and_then(|object| object.get::<_, Value<'js>>("value").ok())?;
        show.call::<_, Option<String>>((value,)).ok().flatten()
    }

    /// A thrown value as the model should read it: `Name: message` and the stack with the
    /// script's lines and columns; the timeout and the memory limit in words.
    fn describe_thrown<'js>(&self, ctx: &Ctx<'js>, thrown: Value<'js>) -> String {
        if self.past_deadline() || self.stop.load(Ordering::SeqCst) {
            return self.stopped_text();
        }
        let described = ctx
            .globals()
            .get::<_, Function<'js>>("__agentToolsDescribe")
            .and_then(|describe| describe.call::<_, String>((thrown,)));
        // Describing can itself fail (out of memory): say so plainly.
        let _ = ctx.catch();
        let text = described.unwrap_or_else(|_| "Error: the script failed (the error could not be shown)".into());
        if text.contains("out of memory") {
            return format!("{text}\n(the script used more memory than the REPL allows; the context is still usable)");
        }
        text
    }

    fn past_deadline(&self) -> bool {
        self.deadline.lock().unwrap_or_else(PoisonError::into_inner).is_some_and(|deadline| Instant::now() >= deadline)
    }

    fn time_left(&self) -> Duration {
        self.deadline
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .map_or(Duration::ZERO, |deadline| deadline.saturating_duration_since(Instant::now()))
    }

    fn stopped_text(&self) -> String {
        if self.stop.load(Ordering::SeqCst) {
            "Error: the script was stopped (the call was interrupted)".into()
        } else {
            "Error: the script ran past its timeout and was stopped; the context (its variables) is kept".into()
        }
    }
}
