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
use std::path::Path;

use ring::hmac;
use ring::rand::{SecureRandom as _, SystemRandom};

use crate::store::CronJob;

/// The file field that holds the signature.
pub const SIGNATURE_FIELD: &str = "agentToolsSignature";

/// The key durable jobs are signed with.
#[derive(Clone)]
pub struct SigningKey(hmac::Key);

impl std::fmt::Debug for SigningKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("SigningKey(..)")
    }
}

impl SigningKey {
    /// A key from raw bytes (tests; [`SigningKey::load_or_create`] for a real one).
    pub fn from_bytes(bytes: &[u8]) -> Self {
        Self(hmac::Key::new(hmac::HMAC_SHA256, bytes))
    }

    /// The key in `path`, made (32 random bytes, mode 0600, missing folders created) when there
    /// is none yet.
    ///
    /// # Errors
    /// When the file cannot be read or made, or holds fewer than 32 bytes.
    pub fn load_or_create(path: &Path) -> io::Result<Self> {
        match std::fs::read(path) {
            Ok(bytes) if bytes.len() >= 32 => return Ok(Self::from_bytes(&bytes)),
            Ok(_) => return Err(io::Error::new(io::ErrorKind::InvalidData, "the signing key is too short")),
            Err(error) if error.kind() == io::ErrorKind::NotFound => {}
            Err(error) => return Err(error),
        }
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
                Ok(Self::from_bytes(&bytes))
            }
            // Another process made it first: use theirs.
            Err(error) if error.kind() == io::ErrorKind::AlreadyExists => Self::load_or_create(path),
            Err(error) => Err(error),
        }
    }

    fn message(job: &CronJob) -> Vec<u8> {
        let kind = if job.recurring { "recurring" } else { "one-shot" };
        format!("{}\n{}\n{}\n{}\n{kind}\n{}", job.id, job.cron, job.created_at, job.max_age_ms.unwrap_or(0), job.prompt)
            .into_bytes()
    }

    /// The signature of `job` (hex).
    pub fn sign(&self, job: &CronJob) -> String {
        hmac::sign(&self.0, &Self::message(job)).as_ref().iter().map(|byte| format!("{byte:02x}")).collect()
    }

    /// True when `job` carries this key's signature of its fields.
    pub fn verify(&self, job: &CronJob) -> bool {
        let Some(hex) = job.extra.get(SIGNATURE_FIELD).and_then(serde_json::Value::as_str) else { return false };
        let Some(bytes) = decode_hex(hex) else { return false };
        hmac::verify(&self.0, &Self::message(job), &bytes).is_ok()
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
        signed.extra.insert(SIGNATURE_FIELD.into(), key.sign(&signed).into());
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
    fn the_key_file_is_made_once_and_private() {
        let dir = tempfile::tempdir().unwrap_or_else(|error| panic!("{error}"));
        let path = dir.path().join("keys/cron.key");
        let first = SigningKey::load_or_create(&path).unwrap_or_else(|error| panic!("{error}"));
        let again = SigningKey::load_or_create(&path).unwrap_or_else(|error| panic!("{error}"));
        let mut signed = job();
        signed.extra.insert(SIGNATURE_FIELD.into(), first.sign(&signed).into());
        assert!(again.verify(&signed));
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt as _;
            let mode = std::fs::metadata(&path).unwrap_or_else(|error| panic!("{error}")).permissions().mode();
            assert_eq!(mode & 0o777, 0o600);
        }
    }
}
