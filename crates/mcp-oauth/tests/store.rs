//! The token files: where they go, their modes, atomic replacement, and what a damaged file does.
#![allow(clippy::unwrap_used)]

use agent_tools_mcp_oauth::store::file_name;
use agent_tools_mcp_oauth::{OAuthError, OAuthStore, StoredCredentials};
use rmcp::transport::auth::{CredentialStore as _, OAuthTokenResponse};

const URL: &str = "https://mcp.example.com/mcp";

fn credentials(access: &str) -> StoredCredentials {
    let response: OAuthTokenResponse = serde_json::from_value(serde_json::json!({
        "access_token": access,
        "token_type": "bearer",
        "expires_in": 3600,
        "refresh_token": format!("refresh-{access}"),
    }))
    .unwrap();
    StoredCredentials::new("client-1".to_owned(), Some(response), vec!["mcp".to_owned()], Some(1_700_000_000))
}

#[cfg(unix)]
fn mode(path: &std::path::Path) -> u32 {
    use std::os::unix::fs::PermissionsExt as _;
    std::fs::metadata(path).unwrap().permissions().mode() & 0o777
}

#[test]
fn file_names_keep_servers_apart_and_inside_the_folder() {
    let a = file_name("github", URL);
    assert!(a.starts_with("github-") && a.ends_with(".json") && a.len() == "github-".len() + 16 + ".json".len(), "{a}");
    assert_eq!(file_name("github", URL), a, "stable");
    assert_ne!(file_name("github", "https://other.example.com/mcp"), a, "another URL, another file");
    assert_ne!(file_name("gitlab", URL), a);
    let evil = file_name("../../etc/passwd", URL);
    assert!(evil.starts_with("______etc_passwd-"), "{evil}");
    assert!(!evil.contains('/'));
    let long = file_name(&"x".repeat(500), URL);
    assert_eq!(long.len(), 64 + 1 + 16 + ".json".len());
}

#[tokio::test]
async fn saved_credentials_load_back_from_a_private_file_in_a_private_folder() {
    let config = tempfile::tempdir().unwrap();
    let store = OAuthStore::new(config.path());
    assert_eq!(store.dir(), config.path().join("mcp-oauth"));
    let server = store.server("demo", URL);
    assert!(server.load().await.unwrap().is_none());
    assert!(!server.has_tokens().unwrap());

    server.save(credentials("first")).await.unwrap();
    server.save(credentials("second")).await.unwrap();
    let loaded = server.load().await.unwrap().unwrap();
    assert_eq!(loaded.client_id, "client-1");
    assert_eq!(loaded.granted_scopes, ["mcp"]);
    assert_eq!(loaded.token_received_at, Some(1_700_000_000));
    let file: serde_json::Value = serde_json::from_slice(&std::fs::read(server.path()).unwrap()).unwrap();
    assert_eq!(file["version"], 1);
    assert_eq!(file["server_name"], "demo");
    assert_eq!(file["server_url"], URL);
    assert_eq!(file["credentials"]["token_response"]["access_token"], "second");
    assert!(server.has_tokens().unwrap());
    #[cfg(unix)]
    {
        assert_eq!(mode(server.path()), 0o600);
        assert_eq!(mode(store.dir()), 0o700);
    }
    assert_eq!(std::fs::read_dir(store.dir()).unwrap().count(), 1, "no temporary file is left");
    assert!(!format!("{server:?}").contains("second"), "Debug shows no token");

    server.clear().await.unwrap();
    assert!(server.load().await.unwrap().is_none());
    server.clear().await.unwrap();
}

#[cfg(unix)]
#[tokio::test]
async fn an_existing_open_folder_is_narrowed_to_the_owner() {
    use std::os::unix::fs::PermissionsExt as _;
    let config = tempfile::tempdir().unwrap();
    let store = OAuthStore::new(config.path());
    std::fs::create_dir(store.dir()).unwrap();
    std::fs::set_permissions(store.dir(), std::fs::Permissions::from_mode(0o755)).unwrap();
    store.server("demo", URL).save(credentials("t")).await.unwrap();
    assert_eq!(mode(store.dir()), 0o700);
}

#[tokio::test]
async fn a_damaged_file_is_a_clear_error_and_is_left_alone() {
    let config = tempfile::tempdir().unwrap();
    let store = OAuthStore::new(config.path());
    let server = store.server("demo", URL);
    std::fs::create_dir_all(store.dir()).unwrap();
    for (contents, expected) in [
        (&b"{not json"[..], "is not a valid token file"),
        (&b"\xff\xfe\x00"[..], "is not a valid token file"),
        (&br#"{"version": 1}"#[..], "is not a valid token file"),
        (&br#"{"version": 9, "server_name": "demo", "server_url": "https://mcp.example.com/mcp", "credentials": {"client_id": "c", "token_response": null}}"#[..], "has version 9"),
        (&br#"{"version": 1, "server_name": "demo", "server_url": "https://elsewhere/mcp", "credentials": {"client_id": "c", "token_response": null}}"#[..], "holds tokens for https://elsewhere/mcp"),
    ] {
        std::fs::write(server.path(), contents).unwrap();
        let error = server.read().unwrap_err();
        assert!(matches!(error, OAuthError::Store(_)), "{error:?}");
        let message = error.to_string();
        assert!(message.contains(&server.path().display().to_string()), "{message}");
        assert!(message.contains(expected), "{message}");
        let through_rmcp = server.load().await.unwrap_err().to_string();
        assert!(through_rmcp.contains(expected), "{through_rmcp}");
        assert_eq!(std::fs::read(server.path()).unwrap(), contents, "the file is not replaced");
    }
}

#[tokio::test]
async fn a_rejected_refresh_token_is_dropped_but_a_newer_sign_in_is_kept() {
    let config = tempfile::tempdir().unwrap();
    let server = OAuthStore::new(config.path()).server("demo", URL);
    let old = credentials("old");
    server.save(old.clone()).await.unwrap();
    server.on_refresh_token_rejected(&old).await.unwrap();
    let after = server.load().await.unwrap().unwrap();
    assert_eq!(after.client_id, "client-1");
    assert!(after.token_response.is_none());
    assert!(!server.has_tokens().unwrap());

    server.save(credentials("new")).await.unwrap();
    server.on_refresh_token_rejected(&old).await.unwrap();
    assert!(server.has_tokens().unwrap(), "the newer tokens stay");
}
