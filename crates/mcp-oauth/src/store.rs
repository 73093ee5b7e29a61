//! Where a server's OAuth tokens live: one JSON file per server under `<config dir>/mcp-oauth/`,
//! the folder `0700`, each file `0600` from the moment it exists, replaced atomically.
//!
//! Claude Code keeps MCP OAuth tokens in the user's secure storage (the macOS keychain, or a
//! `0600` file in `~/.claude` elsewhere), keyed by server name and a hash of the server's
//! configuration; this store is the file form of that, keyed by the server's name and its URL.
//!
//! Several processes may use one server's tokens at once (three `agent-tools call`s, `serve`
//! beside `agent`), and a server may rotate refresh tokens (each refresh returns a new one and
//! revokes the old). So every refresh — and every sign-in's save — runs under an exclusive lock
//! that holds across processes ([`ServerCredentialStore::lock`], a `flock` on `.<file>.lock`
//! beside the token file), and the tokens are read again inside it:
//!
//! - connecting ([`crate::authorized_manager`]) reads them inside the lock and refreshes only if
//!   they are still expired there, so a process that finds the tokens another one just saved
//!   uses them instead of spending a refresh token that was spent already;
//! - a refresh during a session (rmcp's, as an access token nears its expiry or the server
//!   answers 401) reads the file inside the same lock and spends the newest refresh token: it
//!   never fails for having lost a race, though two processes may each refresh once.

use std::collections::HashMap;
use std::fs;
use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::sync::{Arc, LazyLock, Mutex as StdMutex};
use std::time::{Duration, Instant};

use agent_tools_files::{FileLock, lock_path_beside};

use rmcp::transport::auth::{AuthError, CredentialRefreshGuard, CredentialStore, StoredCredentials};
use serde::{Deserialize, Serialize};
use sha2::{Digest as _, Sha256};

use crate::OAuthError;

/// The folder under the caller's config folder that holds the token files.
pub const STORE_DIR: &str = "mcp-oauth";

/// The version written in each file (`"version": 1`); a file of another version is refused.
pub const FILE_VERSION: u32 = 1;

/// Most characters of the server's name kept in a file name.
const MAX_NAME_CHARS: usize = 64;

/// How long [`ServerCredentialStore::lock`] waits for another holder before giving up. A holder
/// makes one token request (rmcp gives each 30 s), so only a stuck process holds it this long.
pub const LOCK_TIMEOUT: Duration = Duration::from_secs(90);

/// The longest pause between two looks at a lock file another process holds.
const LOCK_POLL_MAX: Duration = Duration::from_millis(25);

tokio::task_local! {
    /// The token file whose lock the current task holds through
    /// [`ServerCredentialStore::while_locked`], so a refresh inside does not wait for itself.
    static HELD: PathBuf;
}

/// The token files of one config folder (`<config dir>/mcp-oauth/`).
///
/// Cheap to clone. Nothing is created until a token is saved.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OAuthStore {
    dir: PathBuf,
}

impl OAuthStore {
    /// The store of `config_dir` (the caller passes e.g. `~/.claude`; this crate never reads the
    /// environment): its files go to `<config_dir>/mcp-oauth/`.
    pub fn new(config_dir: impl AsRef<Path>) -> Self {
        Self { dir: config_dir.as_ref().join(STORE_DIR) }
    }

    /// The folder holding the files (`<config_dir>/mcp-oauth`).
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// The store of one server: `server_name` as configured, `server_url` its MCP endpoint.
    pub fn server(&self, server_name: &str, server_url: &str) -> ServerCredentialStore {
        let path = self.dir.join(file_name(server_name, server_url));
        ServerCredentialStore {
            inner: Arc::new(Inner { path, server_name: server_name.to_owned(), server_url: server_url.to_owned() }),
        }
    }
}

/// `<name>-<hash>.json`: the name with every character outside `[A-Za-z0-9_-]` made `_` (so no
/// name can leave the folder), at most 64 characters, and the first 16 hex digits of the SHA-256
/// of the URL (so two servers of one name, or one name's server moved elsewhere, never share
/// tokens).
pub fn file_name(server_name: &str, server_url: &str) -> String {
    let name: String = server_name
        .chars()
        .take(MAX_NAME_CHARS)
        .map(|c| if c.is_ascii_alphanumeric() || c == '-' || c == '_' { c } else { '_' })
        .collect();
    let digest = Sha256::digest(server_url.as_bytes());
    let hash: String = digest.iter().take(8).map(|byte| format!("{byte:02x}")).collect();
    format!("{name}-{hash}.json")
}

/// The file's contents: who it is for, and rmcp's credentials (client id, token response, granted
/// scopes, when the token was received, the issuer).
#[derive(Serialize, Deserialize)]
struct CredentialFile {
    version: u32,
    server_name: String,
    server_url: String,
    credentials: StoredCredentials,
}

#[derive(Debug)]
struct Inner {
    path: PathBuf,
    server_name: String,
    server_url: String,
}

/// One server's token file, as rmcp's [`CredentialStore`] (give it to an
/// `AuthorizationManager` with `set_credential_store`).
///
/// - `load`: `None` when there is no file; a file that is not valid JSON of this shape, of another
///   version or for another server URL is an error naming the file (never a panic, never silently
///   replaced);
/// - `save`: writes a temporary file created `0600` in the same folder, syncs it and renames it
///   over the old one, so a reader sees the old file or the new one, and no one else can ever read
///   either; the folder is created (or narrowed to) `0700`;
/// - `clear`: removes the file (absent is fine);
/// - refreshes of the same file are serialised across threads and processes (rmcp's refresh
///   guard is [`ServerCredentialStore::lock`]), and rmcp reads the file again inside the guard,
///   so each refresh spends the newest refresh token;
/// - a refresh token the server rejected is dropped from the file (the client id stays), so the
///   server reads as needing authentication again — unless the file holds other tokens by then,
///   which stay.
///
/// Tokens never reach a log: the `Debug` output shows only the path.
#[derive(Debug, Clone)]
pub struct ServerCredentialStore {
    inner: Arc<Inner>,
}

/// One async mutex per token file, shared by every store of that file in this process: waiters
/// here queue without looking at the lock file.
static REFRESH_LOCKS: LazyLock<StdMutex<HashMap<PathBuf, Arc<tokio::sync::Mutex<()>>>>> =
    LazyLock::new(|| StdMutex::new(HashMap::new()));

fn store_error(error: OAuthError) -> AuthError {
    AuthError::CredentialStoreError(error.to_string())
}

impl ServerCredentialStore {
    /// The token file's path.
    pub fn path(&self) -> &Path {
        &self.inner.path
    }

    /// The stored credentials, if any.
    ///
    /// # Errors
    /// [`OAuthError::Store`] when the file cannot be read or is not a valid token file for this
    /// server.
    pub fn read(&self) -> Result<Option<StoredCredentials>, OAuthError> {
        let path = &self.inner.path;
        let bytes = match fs::read(path) {
            Ok(bytes) => bytes,
            Err(error) if error.kind() == std::io::ErrorKind::NotFound => return Ok(None),
            Err(error) => return Err(OAuthError::Store(format!("cannot read {}: {error}", path.display()))),
        };
        let file: CredentialFile = serde_json::from_slice(&bytes).map_err(|error| {
            OAuthError::Store(format!(
                "{} is not a valid token file ({error}); remove it to sign in again",
                path.display()
            ))
        })?;
        if file.version != FILE_VERSION {
            return Err(OAuthError::Store(format!(
                "{} has version {}, this program reads version {FILE_VERSION}",
                path.display(),
                file.version
            )));
        }
        if file.server_url != self.inner.server_url {
            return Err(OAuthError::Store(format!(
                "{} holds tokens for {}, not {}",
                path.display(),
                file.server_url,
                self.inner.server_url
            )));
        }
        Ok(Some(file.credentials))
    }

    /// Whether an access or refresh token is stored (a client id alone does not count).
    ///
    /// # Errors
    /// As [`ServerCredentialStore::read`].
    pub fn has_tokens(&self) -> Result<bool, OAuthError> {
        Ok(self.read()?.is_some_and(|credentials| credentials.token_response.is_some()))
    }

    /// Writes `credentials` atomically (see the type's docs).
    ///
    /// # Errors
    /// [`OAuthError::Store`] when the folder or the file cannot be written.
    pub fn write(&self, credentials: StoredCredentials) -> Result<(), OAuthError> {
        let file = CredentialFile {
            version: FILE_VERSION,
            server_name: self.inner.server_name.clone(),
            server_url: self.inner.server_url.clone(),
            credentials,
        };
        let json = serde_json::to_vec_pretty(&file)
            .map_err(|error| OAuthError::Store(format!("cannot encode the token file: {error}")))?;
        write_private(&self.inner.path, &json)
    }

    /// Removes the file; absent is fine.
    ///
    /// # Errors
    /// [`OAuthError::Store`] when it exists and cannot be removed.
    pub fn remove(&self) -> Result<(), OAuthError> {
        match fs::remove_file(&self.inner.path) {
            Ok(()) => Ok(()),
            Err(error) if error.kind() == std::io::ErrorKind::NotFound => Ok(()),
            Err(error) => Err(OAuthError::Store(format!("cannot remove {}: {error}", self.inner.path.display()))),
        }
    }

    /// The lock file of this server's tokens: `.<token file>.lock` beside it (made `0600` on
    /// first use, empty, never removed).
    pub fn lock_path(&self) -> PathBuf {
        lock_path_beside(&self.inner.path)
    }

    /// Takes the exclusive lock on this server's tokens, shared by every thread and process
    /// that uses this file, waiting for another holder at most [`LOCK_TIMEOUT`]. Hold it across
    /// a read, the token request and the save. The folder is made (`0700`) if missing.
    ///
    /// Waiting does not block the runtime: holders in this process are waited for on an async
    /// mutex, other processes by looking at the lock file every few milliseconds.
    ///
    /// # Errors
    /// [`OAuthError::Store`] when the folder or lock file cannot be made or locked, or another
    /// holder keeps it past [`LOCK_TIMEOUT`].
    pub async fn lock(&self) -> Result<TokenLock, OAuthError> {
        let in_process = self.process_mutex().lock_owned().await;
        let path = self.lock_path();
        let fail = |what: String| OAuthError::Store(format!("cannot lock {}: {what}", path.display()));
        if let Some(dir) = path.parent() {
            create_private_dir(dir).map_err(|error| fail(format!("cannot create {}: {error}", dir.display())))?;
        }
        let deadline = Instant::now() + LOCK_TIMEOUT;
        let mut pause = Duration::from_millis(1);
        loop {
            match FileLock::try_acquire(&path) {
                Ok(Some(file)) => return Ok(TokenLock { _file: file, _in_process: in_process }),
                Ok(None) if Instant::now() < deadline => {
                    tokio::time::sleep(pause).await;
                    pause = (pause * 2).min(LOCK_POLL_MAX);
                }
                Ok(None) => {
                    return Err(fail(format!(
                        "another process has held it for more than {} s",
                        LOCK_TIMEOUT.as_secs()
                    )));
                }
                Err(error) => return Err(fail(error.to_string())),
            }
        }
    }

    /// Runs `work` while holding [`ServerCredentialStore::lock`]. A refresh that rmcp makes
    /// through this store inside `work` (in the same task) does not take the lock again, so
    /// `manager.get_access_token()` run here reads the tokens inside the lock and refreshes only
    /// when they are still expired. Nested calls for the same file take the lock once.
    ///
    /// # Errors
    /// As [`ServerCredentialStore::lock`]; `work` has not run then.
    pub async fn while_locked<F: Future>(&self, work: F) -> Result<F::Output, OAuthError> {
        if self.holds_lock() {
            return Ok(work.await);
        }
        let _lock = self.lock().await?;
        Ok(HELD.scope(self.inner.path.clone(), work).await)
    }

    /// Whether the current task runs inside [`ServerCredentialStore::while_locked`] for this file.
    fn holds_lock(&self) -> bool {
        HELD.try_with(|held| *held == self.inner.path).unwrap_or(false)
    }

    fn process_mutex(&self) -> Arc<tokio::sync::Mutex<()>> {
        let mut locks = REFRESH_LOCKS.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        Arc::clone(locks.entry(self.inner.path.clone()).or_default())
    }
}

/// The exclusive lock on one server's tokens ([`ServerCredentialStore::lock`]), released when
/// dropped (and by the system if the process dies).
pub struct TokenLock {
    _file: FileLock,
    _in_process: tokio::sync::OwnedMutexGuard<()>,
}

impl std::fmt::Debug for TokenLock {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TokenLock").field("file", &self._file.path()).finish()
    }
}

/// Creates the folder of `path` with `0700` (narrowing it if it exists), then writes `bytes` to a
/// new `0600` temporary file beside `path`, syncs it and renames it over `path`.
fn write_private(path: &Path, bytes: &[u8]) -> Result<(), OAuthError> {
    let fail = |what: &str, error: std::io::Error| OAuthError::Store(format!("cannot {what}: {error}"));
    let dir = path.parent().ok_or_else(|| OAuthError::Store(format!("{} has no folder", path.display())))?;
    create_private_dir(dir).map_err(|error| fail(&format!("create {}", dir.display()), error))?;
    let file_name = path.file_name().map(|name| name.to_string_lossy().into_owned()).unwrap_or_default();
    let nonce: u64 = rand_u64();
    let temp = dir.join(format!(".{file_name}.{}.{nonce:016x}.tmp", std::process::id()));
    let written = (|| {
        let mut file = open_private(&temp)?;
        file.write_all(bytes)?;
        file.sync_all()?;
        drop(file);
        fs::rename(&temp, path)
    })();
    if let Err(error) = written {
        let _ = fs::remove_file(&temp);
        return Err(fail(&format!("write {}", path.display()), error));
    }
    // The rename is durable once the folder is synced; a failure here loses nothing written.
    if let Ok(folder) = fs::File::open(dir) {
        let _ = folder.sync_all();
    }
    Ok(())
}

/// 64 bits that differ between calls (for temporary names; not a secret).
fn rand_u64() -> u64 {
    use std::hash::{BuildHasher as _, Hasher as _};
    let mut hasher = std::collections::hash_map::RandomState::new().build_hasher();
    hasher
        .write_u128(std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap_or_default().as_nanos());
    hasher.finish()
}

#[cfg(unix)]
fn create_private_dir(dir: &Path) -> std::io::Result<()> {
    use std::os::unix::fs::{DirBuilderExt as _, PermissionsExt as _};
    fs::DirBuilder::new().recursive(true).mode(0o700).create(dir)?;
    let mode = fs::metadata(dir)?.permissions().mode() & 0o777;
    if mode != 0o700 {
        fs::set_permissions(dir, fs::Permissions::from_mode(0o700))?;
    }
    Ok(())
}

#[cfg(not(unix))]
fn create_private_dir(dir: &Path) -> std::io::Result<()> {
    fs::create_dir_all(dir)
}

#[cfg(unix)]
fn open_private(path: &Path) -> std::io::Result<fs::File> {
    use std::os::unix::fs::OpenOptionsExt as _;
    fs::OpenOptions::new().write(true).create_new(true).mode(0o600).open(path)
}

#[cfg(not(unix))]
fn open_private(path: &Path) -> std::io::Result<fs::File> {
    fs::OpenOptions::new().write(true).create_new(true).open(path)
}

async fn blocking<T: Send + 'static>(
    work: impl FnOnce() -> Result<T, OAuthError> + Send + 'static,
) -> Result<T, AuthError> {
    match tokio::task::spawn_blocking(work).await {
        Ok(result) => result.map_err(store_error),
        Err(error) => Err(AuthError::CredentialStoreError(format!("the token file task failed: {error}"))),
    }
}

#[async_trait::async_trait]
impl CredentialStore for ServerCredentialStore {
    async fn load(&self) -> Result<Option<StoredCredentials>, AuthError> {
        let store = self.clone();
        blocking(move || store.read()).await
    }

    async fn save(&self, credentials: StoredCredentials) -> Result<(), AuthError> {
        let store = self.clone();
        blocking(move || store.write(credentials)).await
    }

    async fn clear(&self) -> Result<(), AuthError> {
        let store = self.clone();
        blocking(move || store.remove()).await
    }

    async fn on_refresh_token_rejected(&self, rejected: &StoredCredentials) -> Result<(), AuthError> {
        let store = self.clone();
        let rejected_token = refresh_secret(rejected);
        blocking(move || {
            let Some(mut current) = store.read()? else { return Ok(()) };
            // Only the credentials that were refused: a newer sign-in stays.
            if refresh_secret(&current) != rejected_token {
                return Ok(());
            }
            current.token_response = None;
            current.granted_scopes.clear();
            current.token_received_at = None;
            store.write(current)
        })
        .await
    }

    async fn acquire_refresh_guard(&self) -> Result<Option<CredentialRefreshGuard>, AuthError> {
        if self.holds_lock() {
            // The caller's `while_locked` holds it already; taking it again would wait forever.
            return Ok(None);
        }
        let lock = self.lock().await.map_err(store_error)?;
        Ok(Some(CredentialRefreshGuard::new(lock)))
    }
}

/// The refresh token of `credentials`, if any (read through the token response's JSON form).
fn refresh_secret(credentials: &StoredCredentials) -> Option<String> {
    token_field(credentials, "refresh_token")
}

/// A string field of the stored token response (`access_token`, `refresh_token`).
pub(crate) fn token_field(credentials: &StoredCredentials, field: &str) -> Option<String> {
    let response = serde_json::to_value(credentials.token_response.as_ref()?).ok()?;
    response.get(field)?.as_str().map(str::to_owned)
}
