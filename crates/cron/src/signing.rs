//! Who made a durable job: an HMAC of its fields with a key only this user has.
//!
//! `.claude/scheduled_tasks.json` sits in the project, so a repository can ship one. A job
//! fires its prompt into the conversation with the user's authority, so a job the user's own
//! sessions did not make must never fire: each job this crate writes carries
//! `agentToolsSignature`, an HMAC-SHA256 (hex) of its id, expression, prompt, creation time and
//! kind, keyed with 32 random bytes kept in the user's config folder (mode 0600). A job whose
//! signature is missing or wrong — written by hand, by a repository, by another user or by
//! Claude Code itself — is listed, marked, and can be deleted, but never fires.

use std::io::{self, Write as _};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, PoisonError};

use ring::hmac;
use ring::rand::{SecureRandom as _, SystemRandom};

use crate::store::CronJob;

/// The file field that holds the signature.
pub const SIGNATURE_FIELD: &str = "agentToolsSignature";

/// The key durable jobs are signed with: given as bytes, or kept in a file that is read when a
/// job is first checked and made when one is first signed ([`SigningKey::at`]).
#[derive(Clone)]
pub struct SigningKey(Arc<Inner>);

enum Inner {
    Ready(hmac::Key),
    File { path: PathBuf, key: Mutex<Option<hmac::Key>> },
}

impl std::fmt::Debug for SigningKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("SigningKey(..)")
    }
}

impl SigningKey {
    /// A key from raw bytes (tests; [`SigningKey::at`] for a real one).
    pub fn from_bytes(bytes: &[u8]) -> Self {
        Self(Arc::new(Inner::Ready(hmac::Key::new(hmac::HMAC_SHA256, bytes))))
    }

    /// The key kept in `path`, touched only when needed: read at the first check of a job (no
    /// file: nothing verifies), made at the first signature (32 random bytes, mode 0600, missing
    /// folders created). Nothing is written by merely opening a session.
    pub fn at(path: impl Into<PathBuf>) -> Self {
        Self(Arc::new(Inner::File { path: path.into(), key: Mutex::new(None) }))
    }

    /// The key in `path`, made now when there is none yet.
    ///
    /// # Errors
    /// When the file cannot be read or made, or holds fewer than 32 bytes.
    pub fn load_or_create(path: &Path) -> io::Result<Self> {
        let key = Self::at(path);
        key.key(true)?;
        Ok(key)
    }

    /// The HMAC key: from memory, else the file, else (with `create`) a new file.
    fn key(&self, create: bool) -> io::Result<hmac::Key> {
        let (path, slot) = match &*self.0 {
            Inner::Ready(key) => return Ok(key.clone()),
            Inner::File { path, key } => (path, key),
        };
        let mut slot = slot.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some(key) = slot.as_ref() {
            return Ok(key.clone());
        }
        let bytes = match read_key(path)? {
            Some(bytes) => bytes,
            None if create => make_key(path)?,
            None => return Err(io::Error::new(io::ErrorKind::NotFound, "no signing key yet")),
        };
        let key = hmac::Key::new(hmac::HMAC_SHA256, &bytes);
        *slot = Some(key.clone());
        Ok(key)
    }

    /// The signature of `job` (hex).
    ///
    /// # Errors
    /// When the key file cannot be read or made.
    pub fn sign(&self, job: &CronJob) -> io::Result<String> {
        let key = self.key(true)?;
        Ok(hmac::sign(&key, &Self::message(job)).as_ref().iter().map(|byte| format!("{byte:02x}")).collect())
    }

    /// True when `job` carries this key's signature of its fields (never without a key file).
    pub fn verify(&self, job: &CronJob) -> bool {
        let Some(hex) = job.extra.get(SIGNATURE_FIELD).and_then(serde_json::Value::as_str) else { return false };
        let Some(bytes) = decode_hex(hex) else { return false };
        let Ok(key) = self.key(false) else { return false };
        hmac::verify(&key, &Self::message(job), &bytes).is_ok()
    }

    fn message(job: &CronJob) -> Vec<u8> {
        let kind = if job.recurring { "recurring" } else { "one-shot" };
        format!("{}\n{}\n{}\n{}\n{kind}\n{}", job.id, job.cron, job.created_at, job.max_age_ms.unwrap_or(0), job.prompt)
            .into_bytes()
    }
}

/// The key file's bytes, if it exists (fewer than 32 is an error).
fn read_key(path: &Path) -> io::Result<Option<Vec<u8>>> {
    match std::fs::read(path) {
        Ok(bytes) if bytes.len() >= 32 => Ok(Some(bytes)),
        Ok(_) => Err(io::Error::new(io::ErrorKind::InvalidData, "the signing key is too short")),
        Err(error) if error.kind() == io::ErrorKind::NotFound => Ok(None),
        Err(error) => Err(error),
    }
}

/// Makes the key file: 32 random bytes, mode 0600; another process's file made first wins.
fn make_key(path: &Path) -> io::Result<Vec<u8>> {
    let mut bytes = [0_u8; 32];
    SystemRandom::new().fill(&mut bytes).map_err(|_| io::Error::other("no random bytes"))?;
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent)?;
    }
    let mut options = std::fs::OpenOptions::new();
    options.write(true).create_new(true);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o600);
    match options.open(path) {
        Ok(mut file) => {
            file.write_all(&bytes)?;
            file.sync_all()?;
            Ok(bytes.to_vec())
        }
        Err(error) if error.kind() == io::ErrorKind::AlreadyExists => {
            read_key(path)?.ok_or_else(|| io::Error::other("the signing key vanished"))
        }
        Err(error) => Err(error),
    }
}

fn decode_hex(hex: &str) -> Option<Vec<u8>> {
    if !hex.len().is_multiple_of(2) {
        return None;
    }
    (0..hex.len()).step_by(2).map(|at| u8::from_str_radix(hex.get(at..at + 2)?, 16).ok()).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn job() -> CronJob {
        CronJob {
            id: "1a2b3c4d".into(),
            cron: "0 9 * * *".into(),
            prompt: "standup".into(),
            created_at: 5,
            last_fired_at: None,
            recurring: true,
            max_age_ms: Some(10),
            agent_id: None,
            durable: true,
            extra: serde_json::Map::new(),
        }
    }

    #[test]
    fn a_signature_covers_every_field_that_decides_what_fires() {
        let key = SigningKey::from_bytes(&[7; 32]);
        let mut signed = job();
        signed.extra.insert(SIGNATURE_FIELD.into(), key.sign(&signed).unwrap_or_default().into());
        assert!(key.verify(&signed));
        assert!(!SigningKey::from_bytes(&[8; 32]).verify(&signed));
        let mut changed = signed.clone();
        changed.prompt = "rm -rf ~".into();
        assert!(!key.verify(&changed));
        let mut changed = signed.clone();
        changed.cron = "* * * * *".into();
        assert!(!key.verify(&changed));
        assert!(!key.verify(&job()));
    }

    #[test]
    fn a_key_file_is_made_only_by_the_first_signature() {
        let dir = tempfile::tempdir().unwrap_or_else(|error| panic!("{error}"));
        let path = dir.path().join("keys/cron.key");
        let key = SigningKey::at(&path);
        let mut signed = job();
        signed.extra.insert(SIGNATURE_FIELD.into(), "00".repeat(32).into());
        assert!(!key.verify(&signed));
        assert!(!path.exists(), "a check makes no key");
        let signature = key.sign(&signed).unwrap_or_default();
        assert!(path.exists());
        signed.extra.insert(SIGNATURE_FIELD.into(), signature.into());
        assert!(SigningKey::at(&path).verify(&signed));
    }

    #[test]
    fn the_key_file_is_made_once_and_private() {
        let dir = tempfile::tempdir().unwrap_or_else(|error| panic!("{error}"));
        let path = dir.path().join("keys/cron.key");
        let first = SigningKey::load_or_create(&path).unwrap_or_else(|error| panic!("{error}"));
        let again = SigningKey::load_or_create(&path).unwrap_or_else(|error| panic!("{error}"));
        let mut signed = job();
        signed.extra.insert(SIGNATURE_FIELD.into(), first.sign(&signed).unwrap_or_default().into());
        assert!(again.verify(&signed));
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt as _;
            let mode = std::fs::metadata(&path).unwrap_or_else(|error| panic!("{error}")).permissions().mode();
            assert_eq!(mode & 0o777, 0o600);
        }
    }
}
