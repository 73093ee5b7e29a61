//! The requests each operation sends and the decoding of what comes back, free of the
//! contract.

use lsp_types::{GotoDefinitionResponse, Location, LocationLink};
use serde::de::DeserializeOwned;
use serde_json::{Value, json};

use crate::input::Operation;

/// `callHierarchy/incomingCalls` or `callHierarchy/outgoingCalls`, for the two operations that
/// need a second request.
pub fn second_method(operation: Operation) -> Option<&'static str> {
    match operation {
        Operation::IncomingCalls => Some("callHierarchy/incomingCalls"),
        Operation::OutgoingCalls => Some("callHierarchy/outgoingCalls"),
        _ => None,
    }
}

/// The first request of `operation`: its method and params. `line` and `character` are the
/// model's 1-based position; the server gets them 0-based.
pub fn first_request(
    operation: Operation,
    uri: &str,
    line: u32,
    character: u32,
    query: Option<&str>,
) -> (&'static str, Value) {
    let document = json!({"uri": uri});
    let at = json!({
        "textDocument": document,
        "position": {"line": line.saturating_sub(1), "character": character.saturating_sub(1)},
    });
    match operation {
        Operation::GoToDefinition => ("textDocument/definition", at),
        Operation::FindReferences => {
            let mut params = at;
            params["context"] = json!({"includeDeclaration": true});
            ("textDocument/references", params)
        }
        Operation::Hover => ("textDocument/hover", at),
        Operation::DocumentSymbol => ("textDocument/documentSymbol", json!({"textDocument": document})),
        Operation::WorkspaceSymbol => ("workspace/symbol", json!({"query": query.unwrap_or("")})),
        Operation::GoToImplementation => ("textDocument/implementation", at),
        Operation::PrepareCallHierarchy | Operation::IncomingCalls | Operation::OutgoingCalls => {
            ("textDocument/prepareCallHierarchy", at)
        }
    }
}

/// Decodes a result into `T` (null included, for `Option` types); the error is serde's
/// message.
pub fn decode<T: DeserializeOwned>(value: Value) -> Result<T, String> {
    serde_json::from_value(value).map_err(|error| error.to_string())
}

/// A LocationLink as the location it points at: its target URI and selection range.
pub fn link_target(link: LocationLink) -> Location {
    Location { uri: link.target_uri, range: link.target_selection_range }
}

/// The locations of a definition or implementation result (one Location, several, or
/// LocationLinks); empty for null.
///
/// # Errors
/// serde's message when the result is none of these.
pub fn locations(value: Value) -> Result<Vec<Location>, String> {
    Ok(match decode::<Option<GotoDefinitionResponse>>(value)? {
        None => Vec::new(),
        Some(GotoDefinitionResponse::Scalar(location)) => vec![location],
        Some(GotoDefinitionResponse::Array(locations)) => locations,
        Some(GotoDefinitionResponse::Link(links)) => links.into_iter().map(link_target).collect(),
    })
}

/// The first item of a `prepareCallHierarchy` result as the server sent it (sent back
/// unchanged, its `data` included); `None` for null or an empty list.
///
/// # Errors
/// serde's message when the result is no list of items.
pub fn first_call_item(value: Value) -> Result<Option<Value>, String> {
    let items: Option<Vec<lsp_types::CallHierarchyItem>> = decode(value.clone())?;
    if items.is_none_or(|items| items.is_empty()) {
        return Ok(None);
    }
    Ok(match value {
        Value::Array(mut raw) if !raw.is_empty() => Some(raw.swap_remove(0)),
        _ => None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn positions_go_out_zero_based_with_each_operations_params() {
        let (method, params) = first_request(Operation::FindReferences, "file:///w/a.py", 3, 7, None);
        assert_eq!(method, "textDocument/references");
        assert_eq!(
            params,
            json!({"textDocument": {"uri": "file:///w/a.py"}, "position": {"line": 2, "character": 6},
                   "context": {"includeDeclaration": true}})
        );
        let (method, params) = first_request(Operation::DocumentSymbol, "file:///w/a.py", 1, 1, None);
        assert_eq!(
            (method, params),
            ("textDocument/documentSymbol", json!({"textDocument": {"uri": "file:///w/a.py"}}))
        );
        assert_eq!(
            first_request(Operation::WorkspaceSymbol, "file:///w/a.py", 1, 1, Some("Foo")),
            ("workspace/symbol", json!({"query": "Foo"}))
        );
        assert_eq!(first_request(Operation::WorkspaceSymbol, "u", 1, 1, None).1, json!({"query": ""}));
        let methods: Vec<&str> = [
            Operation::GoToDefinition,
            Operation::Hover,
            Operation::GoToImplementation,
            Operation::PrepareCallHierarchy,
            Operation::IncomingCalls,
            Operation::OutgoingCalls,
        ]
        .into_iter()
        .map(|operation| first_request(operation, "u", 1, 1, None).0)
        .collect();
        assert_eq!(
            methods,
            [
                "textDocument/definition",
                "textDocument/hover",
                "textDocument/implementation",
                "textDocument/prepareCallHierarchy",
                "textDocument/prepareCallHierarchy",
                "textDocument/prepareCallHierarchy"
            ]
        );
        assert_eq!(second_method(Operation::IncomingCalls), Some("callHierarchy/incomingCalls"));
        assert_eq!(second_method(Operation::OutgoingCalls), Some("callHierarchy/outgoingCalls"));
        assert_eq!(second_method(Operation::Hover), None);
    }

    fn range(line: u32) -> Value {
        json!({"start": {"line": line, "character": 0}, "end": {"line": line, "character": 1}})
    }

    #[test]
    fn definition_results_of_every_shape_become_locations() {
        assert_eq!(locations(Value::Null).unwrap(), []);
        let one = locations(json!({"uri": "file:///a.py", "range": range(1)})).unwrap();
        assert_eq!((one.len(), one[0].uri.as_str(), one[0].range.start.line), (1, "file:///a.py", 1));
        let links = locations(json!([{"targetUri": "file:///b.py", "targetRange": range(3),
                                      "targetSelectionRange": range(4)}]))
        .unwrap();
        assert_eq!((links[0].uri.as_str(), links[0].range.start.line), ("file:///b.py", 4));
        let error = locations(json!({"nope": 1})).unwrap_err();
        assert_eq!(error, "data did not match any variant of untagged enum GotoDefinitionResponse");
    }

    #[test]
    fn the_first_call_item_is_sent_back_as_it_came() {
        let item = json!({"name": "f", "kind": 12, "uri": "file:///a.py", "range": range(0),
                          "selectionRange": range(0), "data": {"opaque": [1, 2]}});
        assert_eq!(first_call_item(json!([item.clone(), item.clone()])).unwrap(), Some(item));
        assert_eq!(first_call_item(json!([])).unwrap(), None);
        assert_eq!(first_call_item(Value::Null).unwrap(), None);
        assert!(first_call_item(json!({"name": 3})).is_err());
    }
}
