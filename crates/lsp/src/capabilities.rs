//! What a language server offers: the [`ServerCapabilities`] it announced in its `initialize`
//! result, plus what it registered later (`client/registerCapability`), and which of them a
//! request needs.
//!
//! A request whose provider the server did not announce is not sent ([`LspManager::request`]
//! answers [`LspError::Unsupported`] at once): many servers never answer a method they do not
//! implement, and the caller would wait out the whole request timeout. A provider given as
//! `true` or as an options object counts as announced; `false`, `null` or absent does not.
//! Only the requests listed in [`provider_of`] are checked; any other method is sent as it is.
//!
//! ```
//! use agent_tools_lsp::capabilities::{announces, parse_capabilities, provider_of};
//! use serde_json::json;
//! let caps = parse_capabilities(&json!({"hoverProvider": true, "callHierarchyProvider": false,
//!                                       "referencesProvider": {"workDoneProgress": true}}));
//! assert_eq!(announces(&caps, "textDocument/hover"), Some(true));
//! assert_eq!(announces(&caps, "textDocument/references"), Some(true));
//! assert_eq!(announces(&caps, "callHierarchy/incomingCalls"), Some(false));
//! assert_eq!(announces(&caps, "textDocument/definition"), Some(false));
//! assert_eq!(announces(&caps, "workspace/executeCommand"), None);
//! assert_eq!(provider_of("callHierarchy/outgoingCalls").map(|p| p.name), Some("callHierarchyProvider"));
//! ```
//!
//! [`LspManager::request`]: crate::LspManager::request
//! [`LspError::Unsupported`]: crate::LspError::Unsupported

use std::collections::HashMap;
use std::sync::{Mutex, PoisonError};

use lsp_types::{
    CallHierarchyServerCapability, HoverProviderCapability, ImplementationProviderCapability, OneOf, ServerCapabilities,
};
use serde_json::{Map, Value};

/// The capability a request needs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Provider {
    /// Its name in the `initialize` result's `capabilities` (`callHierarchyProvider`).
    pub name: &'static str,
    /// The method a server registers it under with `client/registerCapability`
    /// (`textDocument/prepareCallHierarchy` for all three call-hierarchy requests).
    pub registration: &'static str,
}

/// The providers [`provider_of`] knows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Definition,
    References,
    Hover,
    DocumentSymbol,
    WorkspaceSymbol,
    Implementation,
    CallHierarchy,
}

impl Kind {
    fn of(method: &str) -> Option<Self> {
        Some(match method {
            "textDocument/definition" => Self::Definition,
            "textDocument/references" => Self::References,
            "textDocument/hover" => Self::Hover,
            "textDocument/documentSymbol" => Self::DocumentSymbol,
            "workspace/symbol" => Self::WorkspaceSymbol,
            "textDocument/implementation" => Self::Implementation,
            "textDocument/prepareCallHierarchy" | "callHierarchy/incomingCalls" | "callHierarchy/outgoingCalls" => {
                Self::CallHierarchy
            }
            _ => return None,
        })
    }

    fn provider(self) -> Provider {
        let (name, registration) = match self {
            Self::Definition => ("definitionProvider", "textDocument/definition"),
            Self::References => ("referencesProvider", "textDocument/references"),
            Self::Hover => ("hoverProvider", "textDocument/hover"),
            Self::DocumentSymbol => ("documentSymbolProvider", "textDocument/documentSymbol"),
            Self::WorkspaceSymbol => ("workspaceSymbolProvider", "workspace/symbol"),
            Self::Implementation => ("implementationProvider", "textDocument/implementation"),
            Self::CallHierarchy => ("callHierarchyProvider", "textDocument/prepareCallHierarchy"),
        };
        Provider { name, registration }
    }
}

/// The capability `method` needs, for the requests the LSP tool sends: definition,
/// references, hover, document and workspace symbols, implementation and the three
/// call-hierarchy requests. `None` for any other method (it is not checked).
pub fn provider_of(method: &str) -> Option<Provider> {
    Kind::of(method).map(Kind::provider)
}

/// Whether `caps` announce what `method` needs: `Some(true)` when its provider is `true` or
/// an options object, `Some(false)` when it is `false` or absent, `None` when `method` is not
/// one [`provider_of`] knows.
pub fn announces(caps: &ServerCapabilities, method: &str) -> Option<bool> {
    fn one_of<T>(value: Option<&OneOf<bool, T>>) -> bool {
        matches!(value, Some(OneOf::Left(true) | OneOf::Right(_)))
    }
    Some(match Kind::of(method)? {
        Kind::Definition => one_of(caps.definition_provider.as_ref()),
        Kind::References => one_of(caps.references_provider.as_ref()),
        Kind::DocumentSymbol => one_of(caps.document_symbol_provider.as_ref()),
        Kind::WorkspaceSymbol => one_of(caps.workspace_symbol_provider.as_ref()),
        Kind::Hover => matches!(
            caps.hover_provider,
            Some(HoverProviderCapability::Simple(true) | HoverProviderCapability::Options(_))
        ),
        Kind::Implementation => matches!(
            caps.implementation_provider,
            Some(ImplementationProviderCapability::Simple(true) | ImplementationProviderCapability::Options(_))
        ),
        Kind::CallHierarchy => matches!(
            caps.call_hierarchy_provider,
            Some(CallHierarchyServerCapability::Simple(true) | CallHierarchyServerCapability::Options(_))
        ),
    })
}

/// The `capabilities` object of an `initialize` result as [`ServerCapabilities`]. Lenient: an
/// entry whose shape lsp-types does not accept (a server's own extension of a standard field)
/// is left out, and the others are kept; anything that is not an object announces nothing.
pub fn parse_capabilities(capabilities: &Value) -> ServerCapabilities {
    if let Ok(caps) = serde_json::from_value::<ServerCapabilities>(capabilities.clone()) {
        return caps;
    }
    let Some(entries) = capabilities.as_object() else { return ServerCapabilities::default() };
    let accepted: Map<String, Value> = entries
        .iter()
        .filter(|(key, value)| {
            let alone = Value::Object(Map::from_iter([((*key).clone(), (*value).clone())]));
            let fits = serde_json::from_value::<ServerCapabilities>(alone).is_ok();
            if !fits {
                tracing::debug!("language server capability {key} has a shape lsp-types does not accept; ignored");
            }
            fits
        })
        .map(|(key, value)| (key.clone(), value.clone()))
        .collect();
    serde_json::from_value(Value::Object(accepted)).unwrap_or_default()
}

/// The capabilities a server registered after `initialize` (`client/registerCapability`), by
/// registration id, less those it unregistered.
#[derive(Debug, Default)]
pub struct Registrations {
    by_id: Mutex<HashMap<String, String>>,
}

impl Registrations {
    /// Records the `registrations` (`[{id, method, registerOptions?}]`) of a
    /// `client/registerCapability` request's params; entries without a string `id` and
    /// `method` are skipped.
    pub fn register(&self, params: &Value) {
        let mut by_id = self.by_id.lock().unwrap_or_else(PoisonError::into_inner);
        for (id, method) in entries(params, &["registrations"]) {
            by_id.insert(id, method);
        }
    }

    /// Forgets the `unregisterations` (the protocol's spelling; `unregistrations` is taken
    /// too) of a `client/unregisterCapability` request's params.
    pub fn unregister(&self, params: &Value) {
        let mut by_id = self.by_id.lock().unwrap_or_else(PoisonError::into_inner);
        for (id, _) in entries(params, &["unregisterations", "unregistrations"]) {
            by_id.remove(&id);
        }
    }

    /// Whether some registration is for `method` (a registration method such as
    /// [`Provider::registration`]).
    pub fn has(&self, method: &str) -> bool {
        self.by_id.lock().unwrap_or_else(PoisonError::into_inner).values().any(|known| known == method)
    }
}

/// The `(id, method)` pairs of the first of `lists` in `params` that is an array.
fn entries(params: &Value, lists: &[&str]) -> Vec<(String, String)> {
    let Some(list) = lists.iter().find_map(|name| params.get(*name).and_then(Value::as_array)) else {
        return Vec::new();
    };
    list.iter()
        .filter_map(|entry| {
            let id = entry.get("id")?.as_str()?;
            let method = entry.get("method")?.as_str()?;
            Some((id.to_owned(), method.to_owned()))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    const METHODS: [&str; 9] = [
        "textDocument/definition",
        "textDocument/references",
        "textDocument/hover",
        "textDocument/documentSymbol",
        "workspace/symbol",
        "textDocument/implementation",
        "textDocument/prepareCallHierarchy",
        "callHierarchy/incomingCalls",
        "callHierarchy/outgoingCalls",
    ];

    fn announced(capabilities: Value) -> Vec<bool> {
        let caps = parse_capabilities(&capabilities);
        METHODS.iter().map(|method| announces(&caps, method).unwrap()).collect()
    }

    #[test]
    fn true_or_options_announce_and_false_null_or_absent_do_not() {
        assert_eq!(announced(json!({})), [false; 9]);
        let all_true = json!({"definitionProvider": true, "referencesProvider": true, "hoverProvider": true,
            "documentSymbolProvider": true, "workspaceSymbolProvider": true, "implementationProvider": true,
            "callHierarchyProvider": true});
        assert_eq!(announced(all_true), [true; 9]);
        let all_options = json!({"definitionProvider": {}, "referencesProvider": {"workDoneProgress": true},
            "hoverProvider": {}, "documentSymbolProvider": {"label": "x"}, "workspaceSymbolProvider":
            {"resolveProvider": true}, "implementationProvider": {"id": "i"}, "callHierarchyProvider": {}});
        assert_eq!(announced(all_options), [true; 9]);
        let all_false = json!({"definitionProvider": false, "referencesProvider": false, "hoverProvider": false,
            "documentSymbolProvider": null, "workspaceSymbolProvider": false, "implementationProvider": false,
            "callHierarchyProvider": false});
        assert_eq!(announced(all_false), [false; 9]);
        let calls_only = json!({"callHierarchyProvider": true});
        assert_eq!(announced(calls_only), [false, false, false, false, false, false, true, true, true]);
        assert_eq!(announces(&ServerCapabilities::default(), "textDocument/formatting"), None);
        assert_eq!(provider_of("shutdown"), None);
    }

    #[test]
    fn an_entry_of_an_unexpected_shape_is_dropped_and_the_rest_kept() {
        // `hoverProvider` as a string and `textDocumentSync` as text fit no lsp-types shape.
        let odd = json!({"hoverProvider": "yes", "textDocumentSync": "full", "callHierarchyProvider": true,
                         "experimental": {"anything": [1]}});
        assert!(serde_json::from_value::<ServerCapabilities>(odd.clone()).is_err());
        let caps = parse_capabilities(&odd);
        assert_eq!(announces(&caps, "textDocument/hover"), Some(false));
        assert_eq!(announces(&caps, "callHierarchy/incomingCalls"), Some(true));
        assert_eq!(caps.experimental, Some(json!({"anything": [1]})));
        for nothing in [Value::Null, json!([1, 2]), json!("caps"), json!(7)] {
            assert_eq!(parse_capabilities(&nothing), ServerCapabilities::default());
        }
    }

    #[test]
    fn registrations_come_and_go_by_id() {
        let registrations = Registrations::default();
        registrations.register(&json!({"registrations": [
            {"id": "1", "method": "textDocument/prepareCallHierarchy", "registerOptions": {}},
            {"id": "2", "method": "workspace/symbol"},
            {"id": 3, "method": "textDocument/hover"},
            {"method": "textDocument/definition"},
        ]}));
        registrations.register(&json!({"registrations": "nonsense"}));
        registrations.register(&Value::Null);
        assert!(registrations.has("textDocument/prepareCallHierarchy"));
        assert!(registrations.has("workspace/symbol"));
        assert!(!registrations.has("textDocument/hover"));
        assert!(!registrations.has("textDocument/definition"));
        registrations
            .unregister(&json!({"unregisterations": [{"id": "1", "method": "textDocument/prepareCallHierarchy"}]}));
        registrations.unregister(&json!({"unregistrations": [{"id": "2", "method": "workspace/symbol"}]}));
        assert!(!registrations.has("textDocument/prepareCallHierarchy"));
        assert!(!registrations.has("workspace/symbol"));
    }
}
