//! [`LspManager`]: the session's language servers, started on first use, restarted after a
//! crash (a bounded number of times), kept in sync with the files on disk and shut down with
//! the session. Mirrors Claude Code's LSP server manager.

use std::collections::{HashMap, HashSet, VecDeque};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use agent_tools_core::CancellationToken;
use lsp_types::ServerCapabilities;
use serde_json::{Value, json};

use crate::capabilities::{Registrations, parse_capabilities};
use crate::config::NamedLspServer;
use crate::diagnostics::{DiagnosticStore, FileDiagnostics};
use crate::rpc::{Connection, Inbound, RpcError};
use crate::{LspError, MAX_FILE_BYTES, path_to_uri};

/// Default time a request has to be answered (30 s).
pub const DEFAULT_REQUEST_TIMEOUT: Duration = Duration::from_secs(30);
/// Default longest wait for a server's diagnostics after an edit (5 s, the server's start
/// included when the edit is the first use).
pub const DEFAULT_DIAGNOSTICS_TIMEOUT: Duration = Duration::from_secs(5);
/// Default longest wait, on a server's first request, for the work it reports with
/// `$/progress` (loading the project, indexing) to end (30 s).
pub const DEFAULT_READY_TIMEOUT: Duration = Duration::from_secs(30);
/// How long a server's first request waits for a sign that the server is working (a
/// `$/progress` begin or published diagnostics) before it goes ahead anyway (1 s).
const READY_GRACE: Duration = Duration::from_secs(1);
/// Default number of files kept open per server; past it the least recently used is closed
/// (`didClose`).
pub const DEFAULT_MAX_OPEN_FILES: usize = 200;

/// What an [`LspManager`] is made with.
#[derive(Debug, Clone)]
pub struct LspOptions {
    /// The workspace folder the servers get (the session's working directory, absolute).
    pub root: PathBuf,
    /// The servers, in order: for a file, the first whose `extensionToLanguage` has its
    /// extension is used.
    pub servers: Vec<NamedLspServer>,
    /// How long a request may take.
    pub request_timeout: Duration,
    /// How long [`LspManager::file_changed`] waits for the server's diagnostics.
    pub diagnostics_timeout: Duration,
    /// Files kept open per server.
    pub max_open_files: usize,
    /// The longest a server's first request waits for the server to finish the work it
    /// reports with `$/progress` (typescript-language-server loading the project,
    /// rust-analyzer indexing), so that the first answer is not the partial one a server
    /// gives while it loads.
    pub ready_timeout: Duration,
    /// Whether edits get their new diagnostics attached ([`LspManager::diagnostics_after_edit`];
    /// the host's `lsp.diagnostics` setting). The manager itself does not look at it.
    pub diagnostics_after_edit: bool,
}

impl LspOptions {
    /// Options for `servers` working in `root`, with the defaults above.
    pub fn new(root: impl Into<PathBuf>, servers: Vec<NamedLspServer>) -> Self {
        Self {
            root: root.into(),
            servers,
            request_timeout: DEFAULT_REQUEST_TIMEOUT,
            diagnostics_timeout: DEFAULT_DIAGNOSTICS_TIMEOUT,
            max_open_files: DEFAULT_MAX_OPEN_FILES,
            ready_timeout: DEFAULT_READY_TIMEOUT,
            diagnostics_after_edit: true,
        }
    }
}

/// Where one server stands.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ServerStatus {
    /// Not started yet (nothing needed it).
    Idle,
    /// Running, with this process id.
    Running {
        /// The server's process id.
        pid: Option<u32>,
        /// How many times it was started (1 before any restart).
        starts: u32,
    },
    /// Given up on: why.
    Failed(String),
}

/// The session's language servers.
#[derive(Debug)]
pub struct LspManager {
    options: LspOptions,
    slots: Vec<Slot>,
    diagnostics: Arc<DiagnosticStore>,
    closed: AtomicBool,
    /// The openings [`LspManager::file_read`] started, per file: the version they sent.
    reads: Mutex<HashMap<PathBuf, tokio::task::JoinHandle<Option<i32>>>>,
}

#[derive(Debug)]
struct Slot {
    server: NamedLspServer,
    state: tokio::sync::Mutex<SlotState>,
}

#[derive(Debug, Default)]
struct SlotState {
    running: Option<Arc<Server>>,
    starts: u32,
    failure: Option<String>,
}

#[derive(Debug)]
struct Server {
    connection: Connection,
    docs: Mutex<Docs>,
    /// Whether the server wants `didSave` (its `textDocumentSync.save`).
    wants_save: bool,
    /// What it announced in its `initialize` result.
    capabilities: ServerCapabilities,
    /// What it registered since (`client/registerCapability`).
    registrations: Arc<Registrations>,
    /// The work the server reports (`$/progress`).
    progress: Arc<Progress>,
    /// Whether a request has waited for the server to be ready ([`Progress::settle`]).
    ready: AtomicBool,
}

/// The server's reported work: the `$/progress` tokens that began and have not ended, and
/// whether the server has shown any sign of work yet (a progress begin or diagnostics).
#[derive(Debug, Default)]
struct Progress {
    state: Mutex<ProgressState>,
    changed: tokio::sync::Notify,
}

#[derive(Debug, Default)]
struct ProgressState {
    active: HashSet<String>,
    signalled: bool,
}

impl Progress {
    fn update(&self, change: impl FnOnce(&mut ProgressState)) {
        change(&mut self.state.lock().unwrap_or_else(PoisonError::into_inner));
        self.changed.notify_waiters();
    }

    /// `$/progress`: a `begin` adds the token, an `end` removes it.
    fn on_progress(&self, params: &Value) {
        let token = params.get("token").map(Value::to_string).unwrap_or_default();
        match params.pointer("/value/kind").and_then(Value::as_str) {
            Some("begin") => self.update(|state| {
                state.active.insert(token);
                state.signalled = true;
            }),
            Some("end") => self.update(|state| {
                state.active.remove(&token);
            }),
            _ => {}
        }
    }

    /// Waits until the server is quiet: no reported work left once it signalled any, or
    /// nothing signalled within `grace`; at most `limit` in all. `Err` when cancelled.
    async fn settle(&self, grace: Duration, limit: Duration, cancel: &CancellationToken) -> Result<(), LspError> {
        let start = tokio::time::Instant::now();
        loop {
            let changed = self.changed.notified();
            tokio::pin!(changed);
            changed.as_mut().enable();
            let deadline = {
                let state = self.state.lock().unwrap_or_else(PoisonError::into_inner);
                if state.signalled && state.active.is_empty() {
                    return Ok(());
                }
                if state.signalled { start + limit } else { start + grace.min(limit) }
            };
            if tokio::time::Instant::now() >= deadline {
                return Ok(());
            }
            tokio::select! {
                () = &mut changed => {}
                () = tokio::time::sleep_until(deadline) => {}
                () = cancel.cancelled() => return Err(LspError::Cancelled),
            }
        }
    }
}

#[derive(Debug, Default)]
struct Docs {
    open: HashMap<PathBuf, Doc>,
    /// Least recently used first.
    order: VecDeque<PathBuf>,
}

#[derive(Debug, Clone, Copy)]
struct Doc {
    version: i32,
    hash: u64,
}

/// How a file was brought in line with the disk.
enum Synced {
    /// Opened, or changed to a new version: the version sent.
    Sent(i32),
    /// Already open with this content.
    Unchanged,
    /// Closed (the file is gone).
    Closed,
}

impl LspManager {
    /// A manager for these servers; none is started until a file needs it.
    pub fn new(options: LspOptions) -> Self {
        let slots = options
            .servers
            .iter()
            .map(|server| Slot { server: server.clone(), state: tokio::sync::Mutex::default() })
            .collect();
        Self { options, slots, diagnostics: Arc::default(), closed: AtomicBool::new(false), reads: Mutex::default() }
    }

    /// The workspace folder.
    pub fn root(&self) -> &Path {
        &self.options.root
    }

    /// Whether edits should get their new diagnostics ([`LspOptions::diagnostics_after_edit`]).
    pub fn diagnostics_after_edit(&self) -> bool {
        self.options.diagnostics_after_edit
    }

    /// Whether any server is configured.
    pub fn has_servers(&self) -> bool {
        !self.slots.is_empty()
    }

    /// The configured servers' names, in order.
    pub fn server_names(&self) -> Vec<&str> {
        self.slots.iter().map(|slot| slot.server.name.as_str()).collect()
    }

    /// The name of the server that handles `path` (by its extension), if any.
    pub fn server_for(&self, path: &Path) -> Option<&str> {
        self.slot_for(path).map(|slot| slot.server.name.as_str())
    }

    fn slot_for(&self, path: &Path) -> Option<&Slot> {
        self.slots.iter().find(|slot| slot.server.config.language_for(path).is_some())
    }

    /// Where the server named `name` stands.
    pub async fn status(&self, name: &str) -> Option<ServerStatus> {
        let slot = self.slots.iter().find(|slot| slot.server.name == name)?;
        let state = slot.state.lock().await;
        Some(match (&state.running, &state.failure) {
            (_, Some(why)) => ServerStatus::Failed(why.clone()),
            (Some(server), None) if server.connection.is_alive() => {
                ServerStatus::Running { pid: server.connection.pid(), starts: state.starts }
            }
            _ => ServerStatus::Idle,
        })
    }

    /// The diagnostics servers published, per file.
    pub fn diagnostics(&self) -> &DiagnosticStore {
        &self.diagnostics
    }

    /// The capabilities the server named `name` announced in its `initialize` result, while it
    /// runs; `None` when it is not running (not started yet, failed, shut down) or no server
    /// has that name.
    pub async fn capabilities(&self, name: &str) -> Option<ServerCapabilities> {
        let slot = self.slots.iter().find(|slot| slot.server.name == name)?;
        let state = slot.state.lock().await;
        state.running.as_ref().filter(|server| server.connection.is_alive()).map(|server| server.capabilities.clone())
    }

    /// Sends `method` with `params` to the server for `path`, after starting it if needed and
    /// opening `path` from disk (or sending its new content when it changed on disk). Returns
    /// the result (`Value::Null` when the server found nothing); `Ok(None)` when no server
    /// handles the file's extension.
    ///
    /// A request that needs a capability the server did not announce (see
    /// [`crate::capabilities`]) is not sent, and the file is not opened for it: the answer is
    /// [`LspError::Unsupported`] as soon as the server is running.
    ///
    /// # Errors
    /// [`LspError::FileTooLarge`] over [`MAX_FILE_BYTES`]; [`LspError::Unavailable`] when the
    /// server cannot be started or was given up on; [`LspError::Unsupported`] when it does not
    /// offer `method`; [`LspError::Request`] for the server's own error, a timeout, or a crash
    /// during the request; [`LspError::Io`] when the file cannot be read or is gone;
    /// [`LspError::Cancelled`] when `cancel` fires first.
    pub async fn request(
        &self,
        path: &Path,
        method: &str,
        params: Value,
        cancel: &CancellationToken,
    ) -> Result<Option<Value>, LspError> {
        let Some(slot) = self.slot_for(path) else { return Ok(None) };
        let server = self.running(slot).await?;
        if let Some(provider) = crate::capabilities::provider_of(method)
            && !server.offers(method, provider.registration)
        {
            return Err(LspError::Unsupported {
                server: slot.server.name.clone(),
                method: method.to_owned(),
                provider: provider.name,
            });
        }
        if let Synced::Closed = self.sync(slot, &server, path).await? {
            return Err(LspError::Io(format!("{} no longer exists", path.display())));
        }
        if !server.ready.load(Ordering::SeqCst) {
            server.progress.settle(READY_GRACE, self.options.ready_timeout, cancel).await?;
            server.ready.store(true, Ordering::SeqCst);
        }
        match server.connection.request(method, params, self.options.request_timeout, cancel).await {
            Ok(result) => Ok(Some(result)),
            Err(RpcError::Cancelled) => Err(LspError::Cancelled),
            Err(error) => Err(LspError::Request(error)),
        }
    }

    /// Tells the server for `path` (starting it in the background if needed) that the file
    /// was read, so it is open, with the text read now, and its diagnostics are known before
    /// an edit. Never waits for the server.
    pub fn file_read(self: &Arc<Self>, path: &Path) {
        if self.closed.load(Ordering::SeqCst) || self.slot_for(path).is_none() {
            return;
        }
        // The text as the model read it: an edit that lands before the server is up must
        // still be a change from it.
        let text = read_text_now(path);
        let manager = Arc::clone(self);
        let owned = path.to_path_buf();
        let task = tokio::spawn(async move {
            let slot = manager.slot_for(&owned)?;
            let server = manager.running(slot).await.ok()?;
            match manager.sync_text(slot, &server, &owned, text) {
                Ok(Synced::Sent(version)) => Some(version),
                _ => None,
            }
        });
        let mut reads = self.reads.lock().unwrap_or_else(PoisonError::into_inner);
        reads.retain(|_, task| !task.is_finished());
        if let Some(earlier) = reads.insert(path.to_path_buf(), task) {
            earlier.abort();
        }
    }

    /// After an edit of `path`: sends the file's new content to its server (starting it if
    /// needed), waits for the server's diagnostics (at most
    /// [`LspOptions::diagnostics_timeout`]) and returns the errors and warnings that are new
    /// since before the edit, in every file the server reported on. Empty when no server takes
    /// the file, the server is not available, or nothing new came in time.
    pub async fn file_changed(&self, path: &Path) -> Vec<FileDiagnostics> {
        let Some(slot) = self.slot_for(path) else { return Vec::new() };
        if self.closed.load(Ordering::SeqCst) {
            return Vec::new();
        }
        let deadline = tokio::time::Instant::now() + self.options.diagnostics_timeout;
        // The file as it was read: opened, and its diagnostics in, before they are compared.
        let read = self.reads.lock().unwrap_or_else(PoisonError::into_inner).remove(path);
        if let Some(read) = read
            && let Ok(Ok(Some(version))) = tokio::time::timeout_at(deadline, read).await
        {
            self.diagnostics.wait_for(path, 0, Some(version), deadline).await;
        }
        let before = self.diagnostics.snapshot();
        let after = self.diagnostics.seq();
        let Ok(Ok(server)) = tokio::time::timeout_at(deadline, self.running(slot)).await else { return Vec::new() };
        let version = match tokio::time::timeout_at(deadline, self.sync(slot, &server, path)).await {
            Ok(Ok(Synced::Sent(version))) => version,
            // Nothing was sent, so nothing will be published for it.
            _ => return Vec::new(),
        };
        if self.diagnostics.wait_for(path, after, Some(version), deadline).await {
            self.diagnostics.new_since(&before)
        } else {
            Vec::new()
        }
    }

    /// Shuts every running server down (`shutdown`, then `exit`; killed when it does not
    /// answer in its `shutdownTimeout`). Later calls start nothing.
    pub async fn shutdown(&self) {
        self.closed.store(true, Ordering::SeqCst);
        for slot in &self.slots {
            let running = slot.state.lock().await.running.take();
            let Some(server) = running else { continue };
            let timeout = slot.server.config.shutdown_timeout();
            let never = CancellationToken::new();
            if server.connection.is_alive() {
                let _ = server.connection.request("shutdown", Value::Null, timeout, &never).await;
                server.connection.notify("exit", Value::Null);
                server.connection.wait_exit(timeout).await;
            }
            server.connection.kill().await;
        }
    }

    /// The running server of `slot`: started now if it is not running, restarted when it
    /// exited (at most `maxRestarts` times, then given up on).
    async fn running(&self, slot: &Slot) -> Result<Arc<Server>, LspError> {
        let name = &slot.server.name;
        let mut state = slot.state.lock().await;
        if self.closed.load(Ordering::SeqCst) {
            return Err(LspError::Unavailable(format!("the language server \"{name}\" was shut down")));
        }
        if let Some(why) = &state.failure {
            return Err(LspError::Unavailable(why.clone()));
        }
        if let Some(server) = &state.running {
            if server.connection.is_alive() {
                return Ok(Arc::clone(server));
            }
            tracing::warn!(server = %name, "language server exited; restarting");
            state.running = None;
            self.forget_open_files(slot);
        }
        let allowed = 1 + slot.server.config.max_restarts();
        if state.starts >= allowed {
            let why = format!("the language server \"{name}\" stopped {} times and was given up on", state.starts);
            state.failure = Some(why.clone());
            return Err(LspError::Unavailable(why));
        }
        state.starts += 1;
        match self.start(slot).await {
            Ok(server) => {
                let server = Arc::new(server);
                state.running = Some(Arc::clone(&server));
                Ok(server)
            }
            Err(StartError::Spawn(why)) => {
                // A program that cannot be started will not start on the next try either.
                let why = format!("the language server \"{name}\" could not be started: {why}");
                state.failure = Some(why.clone());
                Err(LspError::Unavailable(why))
            }
            Err(StartError::Initialize(why)) => {
                Err(LspError::Unavailable(format!("the language server \"{name}\" did not start: {why}")))
            }
        }
    }

    fn forget_open_files(&self, slot: &Slot) {
        // A new process knows no file: their diagnostics are stale.
        let stale: Vec<PathBuf> = self
            .diagnostics
            .snapshot_paths()
            .into_iter()
            .filter(|path| slot.server.config.language_for(path).is_some())
            .collect();
        for path in stale {
            self.diagnostics.forget(&path);
        }
    }

    async fn start(&self, slot: &Slot) -> Result<Server, StartError> {
        let config = &slot.server.config;
        let folder = config.workspace_folder.clone().unwrap_or_else(|| self.options.root.clone());
        let mut command = tokio::process::Command::new(&config.command);
        command.args(&config.args).envs(&config.env).current_dir(&folder);
        let progress = Arc::new(Progress::default());
        let registrations = Arc::new(Registrations::default());
        let inbound = Arc::new(Handler {
            diagnostics: Arc::clone(&self.diagnostics),
            progress: Arc::clone(&progress),
            registrations: Arc::clone(&registrations),
            settings: config.settings.clone().unwrap_or(Value::Null),
            folder: folder.clone(),
        });
        let connection = Connection::spawn(command, inbound, &slot.server.name)
            .map_err(|error| StartError::Spawn(format!("{}: {error}", config.command)))?;
        let params = initialize_params(&folder, config.initialization_options.clone());
        let never = CancellationToken::new();
        let answer = match connection.request("initialize", params, config.startup_timeout(), &never).await {
            Ok(answer) => answer,
            Err(error) => {
                connection.kill().await;
                return Err(StartError::Initialize(error.to_string()));
            }
        };
        connection.notify("initialized", json!({}));
        if let Some(settings) = &config.settings {
            connection.notify("workspace/didChangeConfiguration", json!({"settings": settings}));
        }
        let sync = &answer["capabilities"]["textDocumentSync"];
        let wants_save = sync.get("save").is_some_and(|save| save.as_bool() != Some(false) && !save.is_null());
        let capabilities = parse_capabilities(&answer["capabilities"]);
        tracing::debug!(server = %slot.server.name, pid = ?connection.pid(), "language server started");
        Ok(Server {
            connection,
            docs: Mutex::default(),
            wants_save,
            capabilities,
            registrations,
            progress,
            ready: AtomicBool::new(false),
        })
    }

    /// Brings the server's copy of `path` in line with the disk: `didOpen` when it is not open,
    /// `didChange` (the whole text) and `didSave` when its content changed, `didClose` when
    /// the file is gone.
    async fn sync(&self, slot: &Slot, server: &Server, path: &Path) -> Result<Synced, LspError> {
        self.sync_text(slot, server, path, read_text(path).await)
    }

    /// [`Self::sync`] with the file's text (or why there is none) read already.
    fn sync_text(
        &self,
        slot: &Slot,
        server: &Server,
        path: &Path,
        text: Result<String, ReadError>,
    ) -> Result<Synced, LspError> {
        let uri = path_to_uri(path);
        let text = match text {
            Ok(text) => text,
            Err(ReadError::Missing) => {
                let was_open = server.docs.lock().unwrap_or_else(PoisonError::into_inner).close(path);
                if was_open {
                    server.connection.notify("textDocument/didClose", json!({"textDocument": {"uri": uri}}));
                    self.diagnostics.forget(path);
                }
                return Ok(Synced::Closed);
            }
            Err(ReadError::TooLarge(bytes)) => return Err(LspError::FileTooLarge { bytes }),
            Err(ReadError::Io(why)) => return Err(LspError::Io(why)),
        };
        let hash = agent_tools_core::content_hash(text.as_bytes());
        let language = slot.server.config.language_for(path).unwrap_or("plaintext").to_owned();
        let (step, evicted) = {
            let mut docs = server.docs.lock().unwrap_or_else(PoisonError::into_inner);
            let step = match docs.open.get_mut(path) {
                Some(doc) if doc.hash == hash => None,
                Some(doc) => {
                    doc.version += 1;
                    doc.hash = hash;
                    Some((false, doc.version))
                }
                None => {
                    docs.open.insert(path.to_path_buf(), Doc { version: 1, hash });
                    Some((true, 1))
                }
            };
            docs.touch(path);
            let evicted = docs.evict(self.options.max_open_files);
            (step, evicted)
        };
        for gone in evicted {
            server.connection.notify("textDocument/didClose", json!({"textDocument": {"uri": path_to_uri(&gone)}}));
        }
        let Some((opening, version)) = step else { return Ok(Synced::Unchanged) };
        if opening {
            server.connection.notify(
                "textDocument/didOpen",
                json!({"textDocument": {"uri": uri, "languageId": language, "version": version, "text": text}}),
            );
        } else {
            server.connection.notify(
                "textDocument/didChange",
                json!({"textDocument": {"uri": uri, "version": version}, "contentChanges": [{"text": text}]}),
            );
            if server.wants_save {
                server.connection.notify("textDocument/didSave", json!({"textDocument": {"uri": uri}}));
            }
        }
        Ok(Synced::Sent(version))
    }
}

impl Server {
    /// Whether the server offers `method`: announced in its `initialize` result, or registered
    /// under `registration` since. Methods [`crate::capabilities`] does not check are offered.
    fn offers(&self, method: &str, registration: &str) -> bool {
        crate::capabilities::announces(&self.capabilities, method) != Some(false)
            || self.registrations.has(registration)
    }
}

enum StartError {
    Spawn(String),
    Initialize(String),
}

impl Docs {
    fn touch(&mut self, path: &Path) {
        self.order.retain(|known| known != path);
        self.order.push_back(path.to_path_buf());
    }

    fn close(&mut self, path: &Path) -> bool {
        self.order.retain(|known| known != path);
        self.open.remove(path).is_some()
    }

    /// Closes the least recently used files past `max`; their paths.
    fn evict(&mut self, max: usize) -> Vec<PathBuf> {
        let mut evicted = Vec::new();
        while self.open.len() > max.max(1) {
            let Some(oldest) = self.order.pop_front() else { break };
            self.open.remove(&oldest);
            evicted.push(oldest);
        }
        evicted
    }
}

enum ReadError {
    Missing,
    TooLarge(u64),
    Io(String),
}

async fn read_text(path: &Path) -> Result<String, ReadError> {
    let owned = path.to_path_buf();
    tokio::task::spawn_blocking(move || read_text_now(&owned))
        .await
        .unwrap_or_else(|error| Err(ReadError::Io(error.to_string())))
}

/// The file's text, lossily decoded; [`ReadError::TooLarge`] past [`MAX_FILE_BYTES`].
fn read_text_now(path: &Path) -> Result<String, ReadError> {
    let meta = match std::fs::metadata(path) {
        Ok(meta) => meta,
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => return Err(ReadError::Missing),
        Err(error) => return Err(ReadError::Io(error.to_string())),
    };
    if meta.len() > MAX_FILE_BYTES {
        return Err(ReadError::TooLarge(meta.len()));
    }
    let bytes = std::fs::read(path).map_err(|error| ReadError::Io(error.to_string()))?;
    Ok(String::from_utf8_lossy(&bytes).into_owned())
}

/// The `initialize` request: the workspace folder, and the client capabilities the LSP tool
/// and the diagnostics use.
fn initialize_params(folder: &Path, initialization_options: Option<Value>) -> Value {
    let uri = path_to_uri(folder);
    let name = folder.file_name().map_or_else(|| "workspace".to_owned(), |name| name.to_string_lossy().into_owned());
    json!({
        "processId": std::process::id(),
        "clientInfo": {"name": "agent-tools", "version": env!("CARGO_PKG_VERSION")},
        "rootUri": uri,
        "rootPath": folder.to_string_lossy(),
        "workspaceFolders": [{"uri": uri, "name": name}],
        "initializationOptions": initialization_options,
        "capabilities": {
            "general": {"positionEncodings": ["utf-16"]},
            "workspace": {
                "configuration": true,
                "workspaceFolders": true,
                "symbol": {"dynamicRegistration": false},
                "didChangeConfiguration": {"dynamicRegistration": false},
            },
            "textDocument": {
                "synchronization": {"dynamicRegistration": false, "didSave": true, "willSave": false},
                "publishDiagnostics": {"relatedInformation": false, "versionSupport": true},
                "definition": {"linkSupport": true},
                "implementation": {"linkSupport": true},
                "references": {},
                "hover": {"contentFormat": ["markdown", "plaintext"]},
                "documentSymbol": {"hierarchicalDocumentSymbolSupport": true},
                "callHierarchy": {"dynamicRegistration": false},
            },
            "window": {"workDoneProgress": true},
        },
    })
}

/// Answers what a server sends: diagnostics into the store, `workspace/configuration` from the
/// server's `settings`, the folder for `workspace/workspaceFolders`, `$/progress` into the
/// server's [`Progress`], registrations into its [`Registrations`] (answered null, as are
/// progress tokens), "method not found" for anything else.
struct Handler {
    diagnostics: Arc<DiagnosticStore>,
    progress: Arc<Progress>,
    registrations: Arc<Registrations>,
    settings: Value,
    folder: PathBuf,
}

impl Inbound for Handler {
    fn notification(&self, method: &str, params: Value) {
        match method {
            "textDocument/publishDiagnostics" => {
                self.diagnostics.publish(&params);
                self.progress.update(|state| state.signalled = true);
            }
            "$/progress" => self.progress.on_progress(&params),
            _ => {}
        }
    }

    fn request(&self, method: &str, params: Value) -> Result<Value, (i64, String)> {
        match method {
            "workspace/configuration" => {
                let items = params.get("items").and_then(Value::as_array).cloned().unwrap_or_default();
                Ok(Value::Array(
                    items
                        .iter()
                        .map(|item| match item.get("section").and_then(Value::as_str) {
                            Some(section) => section_of(&self.settings, section),
                            None => self.settings.clone(),
                        })
                        .collect(),
                ))
            }
            "workspace/workspaceFolders" => Ok(
                json!([{"uri": path_to_uri(&self.folder), "name": self.folder.file_name().map(|name| name.to_string_lossy())}]),
            ),
            "client/registerCapability" => {
                self.registrations.register(&params);
                Ok(Value::Null)
            }
            "client/unregisterCapability" => {
                self.registrations.unregister(&params);
                Ok(Value::Null)
            }
            "window/workDoneProgress/create"
            | "window/showMessageRequest"
            | "workspace/diagnostic/refresh"
            | "workspace/semanticTokens/refresh"
            | "workspace/inlayHint/refresh"
            | "workspace/codeLens/refresh" => Ok(Value::Null),
            "workspace/applyEdit" => {
                Ok(json!({"applied": false, "failureReason": "agent-tools applies no edits from a language server"}))
            }
            _ => Err((-32601, format!("agent-tools does not handle {method}"))),
        }
    }
}

/// `settings` at a dotted `section` (`python.analysis`), or null.
fn section_of(settings: &Value, section: &str) -> Value {
    section.split('.').try_fold(settings, |value, part| value.get(part)).cloned().unwrap_or(Value::Null)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn configuration_is_answered_by_section() {
        let handler = Handler {
            diagnostics: Arc::default(),
            progress: Arc::default(),
            registrations: Arc::default(),
            settings: json!({"python": {"analysis": {"typeCheckingMode": "strict"}}}),
            folder: PathBuf::from("/w"),
        };
        let answer = handler
            .request(
                "workspace/configuration",
                json!({"items": [{"section": "python.analysis"}, {"section": "nope"}, {}]}),
            )
            .unwrap();
        assert_eq!(
            answer,
            json!([{"typeCheckingMode": "strict"}, null, {"python": {"analysis": {"typeCheckingMode": "strict"}}}])
        );
        assert_eq!(handler.request("client/registerCapability", json!({})), Ok(Value::Null));
        let calls = json!({"registrations": [{"id": "c", "method": "textDocument/prepareCallHierarchy"}]});
        assert_eq!(handler.request("client/registerCapability", calls), Ok(Value::Null));
        assert!(handler.registrations.has("textDocument/prepareCallHierarchy"));
        let gone = json!({"unregisterations": [{"id": "c", "method": "textDocument/prepareCallHierarchy"}]});
        assert_eq!(handler.request("client/unregisterCapability", gone), Ok(Value::Null));
        assert!(!handler.registrations.has("textDocument/prepareCallHierarchy"));
        assert_eq!(handler.request("workspace/applyEdit", json!({})).unwrap()["applied"], false);
        assert_eq!(handler.request("x/y", Value::Null).unwrap_err().0, -32601);
    }

    #[tokio::test(start_paused = true)]
    async fn the_first_request_waits_for_reported_work_to_end() {
        let never = CancellationToken::new();
        let grace = Duration::from_secs(1);
        let limit = Duration::from_secs(30);
        // Nothing signalled: the grace, then on.
        let quiet = Progress::default();
        let start = tokio::time::Instant::now();
        quiet.settle(grace, limit, &never).await.unwrap();
        assert_eq!(start.elapsed(), grace);

        // Work begins, then ends 5 s later: the wait ends with it.
        let busy = Arc::new(Progress::default());
        let server = Arc::clone(&busy);
        tokio::spawn(async move {
            tokio::time::sleep(Duration::from_millis(30)).await; // tidy:allow-sleep the paused clock: the server's timing
            server.on_progress(&json!({"token": "load", "value": {"kind": "begin", "title": "Loading"}}));
            server.on_progress(&json!({"token": 7, "value": {"kind": "begin"}}));
            server.on_progress(&json!({"token": 7, "value": {"kind": "report", "message": "half"}}));
            tokio::time::sleep(Duration::from_secs(2)).await; // tidy:allow-sleep the paused clock
            server.on_progress(&json!({"token": 7, "value": {"kind": "end"}}));
            tokio::time::sleep(Duration::from_secs(3)).await; // tidy:allow-sleep the paused clock
            server.on_progress(&json!({"token": "load", "value": {"kind": "end"}}));
        });
        let start = tokio::time::Instant::now();
        busy.settle(grace, limit, &never).await.unwrap();
        assert_eq!(start.elapsed(), Duration::from_millis(5030));

        // Work that never ends: the limit.
        let stuck = Progress::default();
        stuck.on_progress(&json!({"token": "x", "value": {"kind": "begin"}}));
        let start = tokio::time::Instant::now();
        stuck.settle(grace, limit, &never).await.unwrap();
        assert_eq!(start.elapsed(), limit);

        // Diagnostics already published and no work left: no wait at all.
        let done = Progress::default();
        done.update(|state| state.signalled = true);
        let start = tokio::time::Instant::now();
        done.settle(grace, limit, &never).await.unwrap();
        assert_eq!(start.elapsed(), Duration::ZERO);

        let cancel = CancellationToken::new();
        cancel.cancel();
        assert!(matches!(stuck.settle(grace, limit, &cancel).await, Err(LspError::Cancelled)));
    }

    #[test]
    fn the_least_recently_used_file_is_closed_first() {
        let mut docs = Docs::default();
        for name in ["a", "b", "c"] {
            docs.open.insert(PathBuf::from(name), Doc { version: 1, hash: 0 });
            docs.touch(Path::new(name));
        }
        docs.touch(Path::new("a"));
        assert_eq!(docs.evict(2), [PathBuf::from("b")]);
        assert!(docs.close(Path::new("a")));
        assert!(!docs.close(Path::new("a")));
        assert_eq!(docs.order, [PathBuf::from("c")]);
    }
}
