//! What language servers answer → `tool_result` text. The exact strings live here.
//!
//! Every function is pure: it takes decoded [`lsp_types`] values and the working directory and
//! returns the text Claude Code's LSP tool shows for them, with the counts it reports
//! ([`Formatted`]). Paths are shown relative to the working directory when that is shorter and
//! does not climb more than one folder (`../../`), absolute otherwise; lines and columns are
//! shown counting from 1.

use std::collections::HashSet;
use std::path::{Component, Path};

use agent_tools_lsp::uri_to_path;
use lsp_types::{
    CallHierarchyIncomingCall, CallHierarchyItem, CallHierarchyOutgoingCall, DocumentSymbol, DocumentSymbolResponse,
    Hover, HoverContents, Location, MarkedString, OneOf, Range, SymbolInformation, SymbolKind, Uri,
    WorkspaceSymbolResponse,
};
use serde::Serialize;

use crate::input::Operation;

/// What the LSP tool returns (the MCP `structuredContent`; Claude Code's field names).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct LspOutput {
    /// The operation performed.
    pub operation: Operation,
    /// The result text (what the model reads).
    pub result: String,
    /// The `filePath` of the input, as given.
    pub file_path: String,
    /// How many results (locations, symbols, items, calls) the text lists; absent when the
    /// server was not asked or failed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub result_count: Option<usize>,
    /// How many distinct files those results are in; absent with `result_count`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub file_count: Option<usize>,
}

/// A formatted answer: the text and its counts.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Formatted {
    /// The result text.
    pub text: String,
    /// How many results it lists.
    pub result_count: usize,
    /// How many distinct files they are in.
    pub file_count: usize,
}

impl Formatted {
    fn new(text: impl Into<String>, result_count: usize, file_count: usize) -> Self {
        Self { text: text.into(), result_count, file_count }
    }

    fn none(text: &str) -> Self {
        Self::new(text, 0, 0)
    }

    /// A text that lists no results (both counts 0), such as [`HOVER_WITHHELD`].
    pub fn message(text: &str) -> Self {
        Self::none(text)
    }
}

/// The result when the session has no language servers at all (no manager in the context).
pub const NO_LANGUAGE_SERVERS: &str =
    "No language servers are available in this session, so code intelligence cannot be used here.";

/// goToDefinition / goToImplementation with nothing found.
pub const NO_DEFINITION: &str = "No definition found. This may occur if the cursor is not on a symbol, or if the definition is in an external library not indexed by the LSP server.";
/// findReferences with nothing found.
pub const NO_REFERENCES: &str = "No references found. This may occur if the symbol has no usages, or if the LSP server has not fully indexed the workspace.";
/// hover with nothing found.
pub const NO_HOVER: &str = "No hover information available. This may occur if the cursor is not on a symbol, or if the LSP server has not fully indexed the file.";
/// documentSymbol with nothing found.
pub const NO_DOCUMENT_SYMBOLS: &str = "No symbols found in document. This may occur if the file is empty, not supported by the LSP server, or if the server has not fully indexed the file.";
/// workspaceSymbol with nothing found.
pub const NO_WORKSPACE_SYMBOLS: &str = "No symbols found in workspace. This may occur if the workspace is empty, or if the LSP server has not finished indexing the project.";
/// prepareCallHierarchy (and incoming/outgoing calls) with no item at the position.
pub const NO_CALL_HIERARCHY_ITEM: &str = "No call hierarchy item found at this position";
/// incomingCalls with nothing found.
pub const NO_INCOMING_CALLS: &str = "No incoming calls found (nothing calls this function)";
/// outgoingCalls with nothing found.
pub const NO_OUTGOING_CALLS: &str = "No outgoing calls found (this function calls nothing)";

/// hover when a `Read(…)` deny rule covers the file the symbol is defined in, where the hover
/// text comes from: the whole hover is withheld.
pub const HOVER_WITHHELD: &str =
    "The hover text comes from a file a permission rule denies reading, so it was withheld.";
/// hover when there are `Read(…)` deny rules and the server could not say where the symbol is
/// defined, so the hover text's source could not be checked: the whole hover is withheld.
pub const HOVER_UNCHECKED: &str = "The hover text was withheld: a permission rule denies reading some files, and the language server could not say which file this symbol is defined in.";

/// The sentence saying that `count` results (locations, symbols, call-hierarchy items or
/// calls) were left out because a `Read(…)` deny rule covers their files; singular for 1.
pub fn withheld(count: usize) -> String {
    if count == 1 {
        "1 result in a file a permission rule denies reading was withheld.".to_owned()
    } else {
        format!("{count} results in files a permission rule denies reading were withheld.")
    }
}

/// `formatted` with the [`withheld`] sentence after a blank line when `count` is not 0, and
/// unchanged when it is. The counts stay those of the results shown.
pub fn with_withheld(formatted: Formatted, count: usize) -> Formatted {
    if count == 0 {
        return formatted;
    }
    Formatted { text: format!("{}\n\n{}", formatted.text, withheld(count)), ..formatted }
}

/// The result when no configured server takes the file's extension; `extension` with its dot
/// (`.xyz`), empty when the file has none.
pub fn no_server(extension: &str) -> String {
    format!("No LSP server available for file type: {extension}")
}

/// The result for a file over the servers' size limit (`bytes` rounded up to whole decimal
/// megabytes).
pub fn file_too_large(bytes: u64) -> String {
    format!("File too large for LSP analysis ({}MB exceeds 10MB limit)", bytes.div_ceil(1_000_000))
}

/// The result when the server could not answer, or its answer could not be read.
pub fn failed(operation: Operation, why: &str) -> String {
    format!("Error performing {operation}: {why}")
}

/// The result when the server for the file did not announce the capability `operation` needs
/// (`provider`, as the `initialize` result names it: `callHierarchyProvider`), so it was not
/// asked: [`failed`]'s shape, naming the server.
pub fn unsupported(operation: Operation, server: &str, provider: &str) -> String {
    failed(
        operation,
        &format!("the language server \"{server}\" does not support {operation} (it did not announce {provider})"),
    )
}

/// The validation message for a `filePath` that does not exist (code 1).
pub fn missing_file(file_path: &str) -> String {
    format!("File does not exist: {file_path}")
}

/// The validation message for a `filePath` that cannot be examined (code 4).
pub fn cannot_access(file_path: &str, why: &str) -> String {
    format!("Cannot access file: {file_path}. {why}")
}

/// The validation message for a `filePath` that is not a regular file (code 2).
pub fn not_a_file(file_path: &str) -> String {
    format!("Path is not a file: {file_path}")
}

/// The name of a symbol kind (`Function`), `Unknown` for kinds the protocol does not define.
pub fn kind_name(kind: SymbolKind) -> &'static str {
    match kind {
        SymbolKind::FILE => "File",
        SymbolKind::MODULE => "Module",
        SymbolKind::NAMESPACE => "Namespace",
        SymbolKind::PACKAGE => "Package",
        SymbolKind::CLASS => "Class",
        SymbolKind::METHOD => "Method",
        SymbolKind::PROPERTY => "Property",
        SymbolKind::FIELD => "Field",
        SymbolKind::CONSTRUCTOR => "Constructor",
        SymbolKind::ENUM => "Enum",
        SymbolKind::INTERFACE => "Interface",
        SymbolKind::FUNCTION => "Function",
        SymbolKind::VARIABLE => "Variable",
        SymbolKind::CONSTANT => "Constant",
        SymbolKind::STRING => "String",
        SymbolKind::NUMBER => "Number",
        SymbolKind::BOOLEAN => "Boolean",
        SymbolKind::ARRAY => "Array",
        SymbolKind::OBJECT => "Object",
        SymbolKind::KEY => "Key",
        SymbolKind::NULL => "Null",
        SymbolKind::ENUM_MEMBER => "EnumMember",
        SymbolKind::STRUCT => "Struct",
        SymbolKind::EVENT => "Event",
        SymbolKind::OPERATOR => "Operator",
        SymbolKind::TYPE_PARAMETER => "TypeParameter",
        _ => "Unknown",
    }
}

/// How a URI is shown: a `file://` URI as its path, relative to `cwd` when that is shorter and
/// does not start with `../../`, else absolute; any other URI as it is.
pub fn display_uri(uri: &str, cwd: &Path) -> String {
    match uri_to_path(uri) {
        Some(path) => display_path(&path, cwd),
        None => uri.to_owned(),
    }
}

/// How a path is shown (see [`display_uri`]).
pub fn display_path(path: &Path, cwd: &Path) -> String {
    let absolute = path.to_string_lossy().into_owned();
    match relative(cwd, path) {
        Some(relative)
            if !relative.is_empty()
                && relative.chars().count() < absolute.chars().count()
                && !relative.starts_with("../../") =>
        {
            relative
        }
        _ => absolute,
    }
}

/// The lexical path from folder `from` to `to` (both absolute), like Node's `path.relative`.
fn relative(from: &Path, to: &Path) -> Option<String> {
    if !from.is_absolute() || !to.is_absolute() {
        return None;
    }
    let from = normal_parts(from);
    let to = normal_parts(to);
    let common = from.iter().zip(&to).take_while(|(a, b)| a == b).count();
    let mut parts: Vec<String> = vec!["..".to_owned(); from.len() - common];
    parts.extend(to[common..].iter().cloned());
    Some(parts.join("/"))
}

fn normal_parts(path: &Path) -> Vec<String> {
    let mut parts: Vec<String> = Vec::new();
    for component in path.components() {
        match component {
            Component::Normal(part) => parts.push(part.to_string_lossy().into_owned()),
            Component::ParentDir => {
                parts.pop();
            }
            Component::CurDir | Component::RootDir | Component::Prefix(_) => {}
        }
    }
    parts
}

/// 1-based `line:column` of a range's start.
fn position(range: &Range) -> String {
    format!("{}:{}", u64::from(range.start.line) + 1, u64::from(range.start.character) + 1)
}

fn line_of(range: &Range) -> u64 {
    u64::from(range.start.line) + 1
}

/// `rel:line:column` of a location's start.
fn location(location: &Location, cwd: &Path) -> String {
    format!("{}:{}", display_uri(location.uri.as_str(), cwd), position(&location.range))
}

fn distinct<'a>(uris: impl IntoIterator<Item = &'a Uri>) -> usize {
    uris.into_iter().map(|uri| uri.as_str()).collect::<HashSet<_>>().len()
}

/// Groups `items` by their shown file, in the order files first appear.
fn group_by_file<'a, T>(
    items: impl IntoIterator<Item = &'a T>,
    uri: impl Fn(&T) -> &Uri,
    cwd: &Path,
) -> Vec<(String, Vec<&'a T>)> {
    let mut groups: Vec<(String, Vec<&'a T>)> = Vec::new();
    for item in items {
        let file = display_uri(uri(item).as_str(), cwd);
        match groups.iter_mut().find(|(known, _)| *known == file) {
            Some((_, members)) => members.push(item),
            None => groups.push((file, vec![item])),
        }
    }
    groups
}

fn plural(count: usize, word: &str) -> String {
    if count == 1 { word.to_owned() } else { format!("{word}s") }
}

/// goToDefinition and goToImplementation: `Defined in <loc>`, or `Found N definitions:` and
/// one indented location per line, or [`NO_DEFINITION`]. (LocationLinks come here as their
/// target URI and selection range.)
pub fn definitions(locations: &[Location], cwd: &Path) -> Formatted {
    let count = locations.len();
    let files = distinct(locations.iter().map(|found| &found.uri));
    match locations {
        [] => Formatted::none(NO_DEFINITION),
        [only] => Formatted::new(format!("Defined in {}", location(only, cwd)), 1, files),
        many => {
            let list: Vec<String> = many.iter().map(|found| format!("  {}", location(found, cwd))).collect();
            Formatted::new(format!("Found {count} definitions:\n{}", list.join("\n")), count, files)
        }
    }
}

/// findReferences: `Found 1 reference:` and its location, or `Found N references across M
/// files:` and, per file, `<rel>:` and its `  Line L:C` lines; or [`NO_REFERENCES`].
pub fn references(locations: &[Location], cwd: &Path) -> Formatted {
    let count = locations.len();
    let files = distinct(locations.iter().map(|found| &found.uri));
    match locations {
        [] => Formatted::none(NO_REFERENCES),
        [only] => Formatted::new(format!("Found 1 reference:\n  {}", location(only, cwd)), 1, files),
        many => {
            let groups = group_by_file(many, |found| &found.uri, cwd);
            let mut lines = vec![format!("Found {count} references across {} files:", groups.len())];
            for (file, members) in groups {
                lines.push(format!("\n{file}:"));
                lines.extend(members.iter().map(|found| format!("  Line {}", position(&found.range))));
            }
            Formatted::new(lines.join("\n"), count, files)
        }
    }
}

fn marked_text(marked: &MarkedString) -> &str {
    match marked {
        MarkedString::String(text) => text,
        MarkedString::LanguageString(code) => &code.value,
    }
}

/// hover: the hover's text (array items joined by a blank line), after `Hover info at L:C:`
/// and a blank line when the server gave a range; [`NO_HOVER`] when there is none.
pub fn hover(hover: Option<&Hover>) -> Formatted {
    let Some(hover) = hover else { return Formatted::none(NO_HOVER) };
    let content = match &hover.contents {
        HoverContents::Scalar(marked) => marked_text(marked).to_owned(),
        HoverContents::Array(items) => items.iter().map(marked_text).collect::<Vec<_>>().join("\n\n"),
        HoverContents::Markup(markup) => markup.value.clone(),
    };
    let text = match &hover.range {
        Some(range) => format!("Hover info at {}:\n\n{content}", position(range)),
        None => content,
    };
    Formatted::new(text, 1, 1)
}

fn count_symbols(symbols: &[DocumentSymbol]) -> usize {
    symbols.iter().map(|symbol| 1 + symbol.children.as_deref().map_or(0, count_symbols)).sum()
}

fn push_symbol(lines: &mut Vec<String>, symbol: &DocumentSymbol, depth: usize) {
    let mut line = format!("{}{} ({})", "  ".repeat(depth), symbol.name, kind_name(symbol.kind));
    if let Some(detail) = symbol.detail.as_deref().filter(|detail| !detail.is_empty()) {
        line.push(' ');
        line.push_str(detail);
    }
    line.push_str(&format!(" - Line {}", line_of(&symbol.range)));
    lines.push(line);
    for child in symbol.children.iter().flatten() {
        push_symbol(lines, child, depth + 1);
    }
}

/// documentSymbol: `Document symbols:` and one line per symbol, children indented under
/// their parent; a flat `SymbolInformation` list is shown as workspaceSymbol shows it (as
/// Claude Code does). [`NO_DOCUMENT_SYMBOLS`] when there are none. The result count includes
/// nested symbols; the file count is 1.
pub fn document_symbols(response: Option<&DocumentSymbolResponse>, cwd: &Path) -> Formatted {
    match response {
        None => Formatted::none(NO_DOCUMENT_SYMBOLS),
        Some(DocumentSymbolResponse::Flat(symbols)) if symbols.is_empty() => Formatted::none(NO_DOCUMENT_SYMBOLS),
        Some(DocumentSymbolResponse::Nested(symbols)) if symbols.is_empty() => Formatted::none(NO_DOCUMENT_SYMBOLS),
        Some(DocumentSymbolResponse::Flat(symbols)) => {
            let text = symbol_list(&symbols.iter().map(SymbolRow::from_information).collect::<Vec<_>>(), cwd);
            Formatted::new(text, symbols.len(), 1)
        }
        Some(DocumentSymbolResponse::Nested(symbols)) => {
            let mut lines = vec!["Document symbols:".to_owned()];
            for symbol in symbols {
                push_symbol(&mut lines, symbol, 0);
            }
            Formatted::new(lines.join("\n"), count_symbols(symbols), 1)
        }
    }
}

/// One symbol of a flat list, from either shape a server may send.
struct SymbolRow<'a> {
    name: &'a str,
    kind: SymbolKind,
    container: Option<&'a str>,
    uri: &'a Uri,
    line: u64,
}

impl<'a> SymbolRow<'a> {
    fn from_information(symbol: &'a SymbolInformation) -> Self {
        Self {
            name: &symbol.name,
            kind: symbol.kind,
            container: symbol.container_name.as_deref(),
            uri: &symbol.location.uri,
            line: line_of(&symbol.location.range),
        }
    }
}

fn symbol_list(rows: &[SymbolRow<'_>], cwd: &Path) -> String {
    let count = rows.len();
    let mut lines = vec![format!("Found {count} {} in workspace:", plural(count, "symbol"))];
    for (file, members) in group_by_file(rows, |row| row.uri, cwd) {
        lines.push(format!("\n{file}:"));
        for row in members {
            let mut line = format!("  {} ({}) - Line {}", row.name, kind_name(row.kind), row.line);
            if let Some(container) = row.container.filter(|container| !container.is_empty()) {
                line.push_str(&format!(" in {container}"));
            }
            lines.push(line);
        }
    }
    lines.join("\n")
}

/// workspaceSymbol: `Found N symbol(s) in workspace:` and, per file, `<rel>:` and its
/// `  <name> (<Kind>) - Line L[ in <container>]` lines; [`NO_WORKSPACE_SYMBOLS`] when there are
/// none. A `WorkspaceSymbol` whose location has no range counts as line 1.
pub fn workspace_symbols(response: Option<&WorkspaceSymbolResponse>, cwd: &Path) -> Formatted {
    let rows: Vec<SymbolRow<'_>> = match response {
        None => Vec::new(),
        Some(WorkspaceSymbolResponse::Flat(symbols)) => symbols.iter().map(SymbolRow::from_information).collect(),
        Some(WorkspaceSymbolResponse::Nested(symbols)) => symbols
            .iter()
            .map(|symbol| {
                let (uri, line) = match &symbol.location {
                    OneOf::Left(location) => (&location.uri, line_of(&location.range)),
                    OneOf::Right(location) => (&location.uri, 1),
                };
                SymbolRow {
                    name: &symbol.name,
                    kind: symbol.kind,
                    container: symbol.container_name.as_deref(),
                    uri,
                    line,
                }
            })
            .collect(),
    };
    if rows.is_empty() {
        return Formatted::none(NO_WORKSPACE_SYMBOLS);
    }
    let files = distinct(rows.iter().map(|row| row.uri));
    Formatted::new(symbol_list(&rows, cwd), rows.len(), files)
}

/// `<name> (<Kind>) - <rel>:<line>[ [<detail>]]`.
fn call_item(item: &CallHierarchyItem, cwd: &Path) -> String {
    let mut text = format!(
        "{} ({}) - {}:{}",
        item.name,
        kind_name(item.kind),
        display_uri(item.uri.as_str(), cwd),
        line_of(&item.range)
    );
    if let Some(detail) = item.detail.as_deref().filter(|detail| !detail.is_empty()) {
        text.push_str(&format!(" [{detail}]"));
    }
    text
}

/// prepareCallHierarchy: `Call hierarchy item: <item>`, or `Found N call hierarchy items:` and
/// one indented item per line; [`NO_CALL_HIERARCHY_ITEM`] when there is none.
pub fn call_hierarchy_items(items: &[CallHierarchyItem], cwd: &Path) -> Formatted {
    let count = items.len();
    let files = distinct(items.iter().map(|item| &item.uri));
    match items {
        [] => Formatted::none(NO_CALL_HIERARCHY_ITEM),
        [only] => Formatted::new(format!("Call hierarchy item: {}", call_item(only, cwd)), 1, files),
        many => {
            let mut lines = vec![format!("Found {count} call hierarchy items:")];
            lines.extend(many.iter().map(|item| format!("  {}", call_item(item, cwd))));
            Formatted::new(lines.join("\n"), count, files)
        }
    }
}

/// The calls grouped by the file of `item`, each `  <name> (<Kind>) - Line L` plus
/// ` [<label>: L:C, …]` when the call sites are known.
fn call_list<T>(
    calls: &[T],
    header: String,
    item: impl Fn(&T) -> &CallHierarchyItem,
    ranges: impl Fn(&T) -> &[Range],
    label: &str,
    cwd: &Path,
) -> Formatted {
    let mut lines = vec![header];
    for (file, members) in group_by_file(calls, |call| &item(call).uri, cwd) {
        lines.push(format!("\n{file}:"));
        for call in members {
            let target = item(call);
            let mut line = format!("  {} ({}) - Line {}", target.name, kind_name(target.kind), line_of(&target.range));
            let sites = ranges(call);
            if !sites.is_empty() {
                let sites: Vec<String> = sites.iter().map(position).collect();
                line.push_str(&format!(" [{label}: {}]", sites.join(", ")));
            }
            lines.push(line);
        }
    }
    let files = distinct(calls.iter().map(|call| &item(call).uri));
    Formatted::new(lines.join("\n"), calls.len(), files)
}

/// incomingCalls: `Found N incoming call(s):` and the callers grouped by file, with
/// ` [calls at: L:C, …]`; [`NO_INCOMING_CALLS`] when there are none.
pub fn incoming_calls(calls: &[CallHierarchyIncomingCall], cwd: &Path) -> Formatted {
    if calls.is_empty() {
        return Formatted::none(NO_INCOMING_CALLS);
    }
    let header = format!("Found {} incoming {}:", calls.len(), plural(calls.len(), "call"));
    call_list(calls, header, |call| &call.from, |call| &call.from_ranges, "calls at", cwd)
}

/// outgoingCalls: `Found N outgoing call(s):` and the callees grouped by file, with
/// ` [called from: L:C, …]`; [`NO_OUTGOING_CALLS`] when there are none.
pub fn outgoing_calls(calls: &[CallHierarchyOutgoingCall], cwd: &Path) -> Formatted {
    if calls.is_empty() {
        return Formatted::none(NO_OUTGOING_CALLS);
    }
    let header = format!("Found {} outgoing {}:", calls.len(), plural(calls.len(), "call"));
    call_list(calls, header, |call| &call.to, |call| &call.from_ranges, "called from", cwd)
}

#[cfg(test)]
mod tests {
    use serde::de::DeserializeOwned;
    use serde_json::{Value, json};

    use super::*;

    const CWD: &str = "/w/proj";

    fn cwd() -> &'static Path {
        Path::new(CWD)
    }

    fn decode<T: DeserializeOwned>(value: Value) -> T {
        serde_json::from_value(value).unwrap()
    }

    fn range(line: u32, character: u32) -> Value {
        json!({"start": {"line": line, "character": character}, "end": {"line": line, "character": character + 3}})
    }

    fn loc(path: &str, line: u32, character: u32) -> Value {
        json!({"uri": format!("file://{path}"), "range": range(line, character)})
    }

    fn locations(values: Vec<Value>) -> Vec<Location> {
        decode(Value::Array(values))
    }

    #[test]
    fn paths_are_relative_when_shorter_and_not_two_folders_up() {
        let shown = |path: &str| display_path(Path::new(path), cwd());
        assert_eq!(shown("/w/proj/src/a.py"), "src/a.py");
        // One folder up is shown relative when shorter; equal length or two up, absolute.
        let home = Path::new("/home/user/proj");
        assert_eq!(display_path(Path::new("/home/user/other/a.py"), home), "../other/a.py");
        assert_eq!(display_path(Path::new("/home/a/b.py"), home), "/home/a/b.py");
        assert_eq!(shown("/w/other/long_name.py"), "/w/other/long_name.py");
        assert_eq!(shown("/x/y.py"), "/x/y.py");
        assert_eq!(shown("/w/a.py"), "/w/a.py");
        assert_eq!(shown("/w/proj/./src/../b.py"), "b.py");
        assert_eq!(display_uri("file:///w/proj/a%20b.py", cwd()), "a b.py");
        assert_eq!(display_uri("jdt://contents/x.class", cwd()), "jdt://contents/x.class");
    }

    #[test]
    fn kinds_have_their_protocol_names() {
        let kind = |number: i32| kind_name(decode(json!(number)));
        let names: Vec<&str> = (0..=27).map(kind).collect();
        assert_eq!(
            names,
            [
                "Unknown",
                "File",
                "Module",
                "Namespace",
                "Package",
                "Class",
                "Method",
                "Property",
                "Field",
                "Constructor",
                "Enum",
                "Interface",
                "Function",
                "Variable",
                "Constant",
                "String",
                "Number",
                "Boolean",
                "Array",
                "Object",
                "Key",
                "Null",
                "EnumMember",
                "Struct",
                "Event",
                "Operator",
                "TypeParameter",
                "Unknown",
            ]
        );
    }

    #[test]
    fn definitions_none_one_many() {
        assert_eq!(definitions(&[], cwd()), Formatted::new(NO_DEFINITION, 0, 0));
        assert_eq!(
            NO_DEFINITION,
            "No definition found. This may occur if the cursor is not on a symbol, or if the definition is in an external library not indexed by the LSP server."
        );
        let one = locations(vec![loc("/w/proj/src/a.py", 9, 4)]);
        assert_eq!(definitions(&one, cwd()), Formatted::new("Defined in src/a.py:10:5", 1, 1));
        let many =
            locations(vec![loc("/w/proj/src/a.py", 0, 0), loc("/w/proj/src/a.py", 4, 2), loc("/lib/b.py", 1, 1)]);
        assert_eq!(
            definitions(&many, cwd()),
            Formatted::new("Found 3 definitions:\n  src/a.py:1:1\n  src/a.py:5:3\n  /lib/b.py:2:2", 3, 2)
        );
    }

    #[test]
    fn references_none_one_many_grouped_by_file() {
        assert_eq!(
            references(&[], cwd()),
            Formatted::new(
                "No references found. This may occur if the symbol has no usages, or if the LSP server has not fully indexed the workspace.",
                0,
                0
            )
        );
        let one = locations(vec![loc("/w/proj/src/a.py", 2, 6)]);
        assert_eq!(references(&one, cwd()), Formatted::new("Found 1 reference:\n  src/a.py:3:7", 1, 1));
        let many = locations(vec![
            loc("/w/proj/src/a.py", 0, 4),
            loc("/w/proj/src/b.py", 1, 2),
            loc("/w/proj/src/a.py", 8, 0),
        ]);
        assert_eq!(
            references(&many, cwd()),
            Formatted::new(
                "Found 3 references across 2 files:\n\nsrc/a.py:\n  Line 1:5\n  Line 9:1\n\nsrc/b.py:\n  Line 2:3",
                3,
                2
            )
        );
        // One file, still "files", as Claude Code writes it.
        let same = locations(vec![loc("/w/proj/a.py", 0, 0), loc("/w/proj/a.py", 1, 0)]);
        assert_eq!(
            references(&same, cwd()).text,
            "Found 2 references across 1 files:\n\na.py:\n  Line 1:1\n  Line 2:1"
        );
    }

    #[test]
    fn hover_with_and_without_range_and_every_content_shape() {
        assert_eq!(
            hover(None),
            Formatted::new(
                "No hover information available. This may occur if the cursor is not on a symbol, or if the LSP server has not fully indexed the file.",
                0,
                0
            )
        );
        let markup: Hover =
            decode(json!({"contents": {"kind": "markdown", "value": "```python\ndef f()\n```"}, "range": range(3, 4)}));
        assert_eq!(hover(Some(&markup)), Formatted::new("Hover info at 4:5:\n\n```python\ndef f()\n```", 1, 1));
        let plain: Hover = decode(json!({"contents": "just text"}));
        assert_eq!(hover(Some(&plain)), Formatted::new("just text", 1, 1));
        let marked: Hover = decode(json!({"contents": {"language": "rust", "value": "fn x()"}}));
        assert_eq!(hover(Some(&marked)).text, "fn x()");
        let array: Hover =
            decode(json!({"contents": ["first", {"language": "c", "value": "int x"}], "range": range(0, 0)}));
        assert_eq!(hover(Some(&array)).text, "Hover info at 1:1:\n\nfirst\n\nint x");
    }

    #[test]
    fn nested_document_symbols_are_indented_and_counted() {
        assert_eq!(
            document_symbols(None, cwd()),
            Formatted::new(
                "No symbols found in document. This may occur if the file is empty, not supported by the LSP server, or if the server has not fully indexed the file.",
                0,
                0
            )
        );
        assert_eq!(document_symbols(Some(&decode(json!([]))), cwd()).text, NO_DOCUMENT_SYMBOLS);
        let symbol = |name: &str, kind: i32, line: u32, detail: Option<&str>, children: Vec<Value>| {
            json!({"name": name, "kind": kind, "detail": detail, "range": range(line, 0),
                   "selectionRange": range(line, 4), "children": children})
        };
        let nested: DocumentSymbolResponse = decode(json!([
            symbol(
                "Shape",
                5,
                0,
                None,
                vec![
                    symbol("area", 6, 2, Some("(self) -> float"), vec![symbol("r", 13, 3, Some(""), vec![])]),
                    symbol("name", 7, 5, None, vec![]),
                ]
            ),
            symbol("main", 12, 10, Some("()"), vec![]),
        ]));
        assert_eq!(
            document_symbols(Some(&nested), cwd()),
            Formatted::new(
                "Document symbols:\nShape (Class) - Line 1\n  area (Method) (self) -> float - Line 3\n    r (Variable) - Line 4\n  name (Property) - Line 6\nmain (Function) () - Line 11",
                5,
                1
            )
        );
    }

    #[test]
    fn flat_document_symbols_read_like_workspace_symbols() {
        let flat: DocumentSymbolResponse = decode(json!([
            {"name": "A", "kind": 5, "location": loc("/w/proj/m.py", 0, 0)},
            {"name": "f", "kind": 6, "location": loc("/w/proj/m.py", 3, 4), "containerName": "A"},
        ]));
        assert_eq!(
            document_symbols(Some(&flat), cwd()),
            Formatted::new(
                "Found 2 symbols in workspace:\n\nm.py:\n  A (Class) - Line 1\n  f (Method) - Line 4 in A",
                2,
                1
            )
        );
    }

    #[test]
    fn workspace_symbols_pluralise_group_and_take_both_shapes() {
        assert_eq!(
            workspace_symbols(None, cwd()),
            Formatted::new(
                "No symbols found in workspace. This may occur if the workspace is empty, or if the LSP server has not finished indexing the project.",
                0,
                0
            )
        );
        assert_eq!(workspace_symbols(Some(&decode(json!([]))), cwd()).text, NO_WORKSPACE_SYMBOLS);
        let one: WorkspaceSymbolResponse =
            decode(json!([{"name": "Thing", "kind": 23, "location": loc("/w/proj/src/t.rs", 6, 0)}]));
        assert_eq!(
            workspace_symbols(Some(&one), cwd()),
            Formatted::new("Found 1 symbol in workspace:\n\nsrc/t.rs:\n  Thing (Struct) - Line 7", 1, 1)
        );
        let many: WorkspaceSymbolResponse = decode(json!([
            {"name": "helper", "kind": 12, "location": loc("/w/proj/a.py", 2, 0), "containerName": "util"},
            {"name": "Other", "kind": 99, "location": {"uri": "file:///w/proj/b.py"}},
            {"name": "CONST", "kind": 14, "location": loc("/w/proj/a.py", 9, 0), "containerName": ""},
        ]));
        assert_eq!(
            workspace_symbols(Some(&many), cwd()),
            Formatted::new(
                "Found 3 symbols in workspace:\n\na.py:\n  helper (Function) - Line 3 in util\n  CONST (Constant) - Line 10\n\nb.py:\n  Other (Unknown) - Line 1",
                3,
                2
            )
        );
    }

    fn item(name: &str, kind: i32, path: &str, line: u32, detail: Option<&str>) -> Value {
        json!({"name": name, "kind": kind, "detail": detail, "uri": format!("file://{path}"),
               "range": range(line, 0), "selectionRange": range(line, 4)})
    }

    #[test]
    fn call_hierarchy_items_none_one_many() {
        assert_eq!(
            call_hierarchy_items(&[], cwd()),
            Formatted::new("No call hierarchy item found at this position", 0, 0)
        );
        let one: Vec<CallHierarchyItem> = decode(json!([item("run", 12, "/w/proj/app.py", 4, Some("app"))]));
        assert_eq!(
            call_hierarchy_items(&one, cwd()),
            Formatted::new("Call hierarchy item: run (Function) - app.py:5 [app]", 1, 1)
        );
        let many: Vec<CallHierarchyItem> =
            decode(json!([item("run", 12, "/w/proj/app.py", 4, None), item("run", 6, "/elsewhere/x.py", 0, Some(""))]));
        assert_eq!(
            call_hierarchy_items(&many, cwd()),
            Formatted::new(
                "Found 2 call hierarchy items:\n  run (Function) - app.py:5\n  run (Method) - /elsewhere/x.py:1",
                2,
                2
            )
        );
    }

    #[test]
    fn incoming_calls_group_by_caller_file_with_call_sites() {
        assert_eq!(
            incoming_calls(&[], cwd()),
            Formatted::new("No incoming calls found (nothing calls this function)", 0, 0)
        );
        let one: Vec<CallHierarchyIncomingCall> =
            decode(json!([{"from": item("main", 12, "/w/proj/main.py", 0, None), "fromRanges": []}]));
        assert_eq!(
            incoming_calls(&one, cwd()),
            Formatted::new("Found 1 incoming call:\n\nmain.py:\n  main (Function) - Line 1", 1, 1)
        );
        let many: Vec<CallHierarchyIncomingCall> = decode(json!([
            {"from": item("main", 12, "/w/proj/main.py", 0, None), "fromRanges": [range(2, 4), range(7, 8)]},
            {"from": item("test_x", 12, "/w/proj/tests/t.py", 3, None), "fromRanges": [range(4, 0)]},
            {"from": item("other", 6, "/w/proj/main.py", 10, None), "fromRanges": []},
        ]));
        assert_eq!(
            incoming_calls(&many, cwd()),
            Formatted::new(
                "Found 3 incoming calls:\n\nmain.py:\n  main (Function) - Line 1 [calls at: 3:5, 8:9]\n  other (Method) - Line 11\n\ntests/t.py:\n  test_x (Function) - Line 4 [calls at: 5:1]",
                3,
                2
            )
        );
    }

    #[test]
    fn outgoing_calls_group_by_callee_file_with_call_sites() {
        assert_eq!(
            outgoing_calls(&[], cwd()),
            Formatted::new("No outgoing calls found (this function calls nothing)", 0, 0)
        );
        let one: Vec<CallHierarchyOutgoingCall> =
            decode(json!([{"to": item("helper", 12, "/w/proj/util.py", 2, None), "fromRanges": [range(5, 4)]}]));
        assert_eq!(
            outgoing_calls(&one, cwd()),
            Formatted::new("Found 1 outgoing call:\n\nutil.py:\n  helper (Function) - Line 3 [called from: 6:5]", 1, 1)
        );
        let many: Vec<CallHierarchyOutgoingCall> = decode(json!([
            {"to": item("helper", 12, "/w/proj/util.py", 2, None), "fromRanges": [range(5, 4), range(6, 0)]},
            {"to": item("print", 12, "/usr/lib/python3/builtins.pyi", 100, None), "fromRanges": []},
        ]));
        assert_eq!(
            outgoing_calls(&many, cwd()),
            Formatted::new(
                "Found 2 outgoing calls:\n\nutil.py:\n  helper (Function) - Line 3 [called from: 6:5, 7:1]\n\n/usr/lib/python3/builtins.pyi:\n  print (Function) - Line 101",
                2,
                2
            )
        );
    }

    #[test]
    fn fixed_messages() {
        assert_eq!(no_server(".xyz"), "No LSP server available for file type: .xyz");
        assert_eq!(no_server(""), "No LSP server available for file type: ");
        assert_eq!(file_too_large(10_000_001), "File too large for LSP analysis (11MB exceeds 10MB limit)");
        assert_eq!(file_too_large(12_000_000), "File too large for LSP analysis (12MB exceeds 10MB limit)");
        assert_eq!(failed(Operation::FindReferences, "boom"), "Error performing findReferences: boom");
        assert_eq!(
            unsupported(Operation::OutgoingCalls, "clangd", "callHierarchyProvider"),
            "Error performing outgoingCalls: the language server \"clangd\" does not support outgoingCalls (it did not announce callHierarchyProvider)"
        );
        assert_eq!(missing_file("a.py"), "File does not exist: a.py");
        assert_eq!(
            cannot_access("a.py", "Permission denied (os error 13)"),
            "Cannot access file: a.py. Permission denied (os error 13)"
        );
        assert_eq!(not_a_file("src"), "Path is not a file: src");
    }

    #[test]
    fn withheld_results_are_said_after_what_is_shown() {
        assert_eq!(withheld(1), "1 result in a file a permission rule denies reading was withheld.");
        assert_eq!(withheld(3), "3 results in files a permission rule denies reading were withheld.");
        let one = locations(vec![loc("/w/proj/pub/use.py", 2, 6)]);
        let shown = references(&one, cwd());
        assert_eq!(with_withheld(shown.clone(), 0), shown, "nothing withheld: the text as it was");
        assert_eq!(
            with_withheld(shown, 2),
            Formatted::new(
                "Found 1 reference:\n  pub/use.py:3:7\n\n2 results in files a permission rule denies reading were withheld.",
                1,
                1
            )
        );
        assert_eq!(
            with_withheld(definitions(&[], cwd()), 1),
            Formatted::new(
                format!("{NO_DEFINITION}\n\n1 result in a file a permission rule denies reading was withheld."),
                0,
                0
            )
        );
        assert_eq!(
            Formatted::message(HOVER_WITHHELD),
            Formatted::new(
                "The hover text comes from a file a permission rule denies reading, so it was withheld.",
                0,
                0
            )
        );
        assert_eq!(
            HOVER_UNCHECKED,
            "The hover text was withheld: a permission rule denies reading some files, and the language server could not say which file this symbol is defined in."
        );
    }

    #[test]
    fn the_output_leaves_absent_counts_out() {
        let output = LspOutput {
            operation: Operation::GoToDefinition,
            result: "x".into(),
            file_path: "a.py".into(),
            result_count: None,
            file_count: None,
        };
        assert_eq!(
            serde_json::to_value(&output).unwrap(),
            json!({"operation": "goToDefinition", "result": "x", "filePath": "a.py"})
        );
        let counted = LspOutput { result_count: Some(2), file_count: Some(1), ..output };
        assert_eq!(
            serde_json::to_value(&counted).unwrap(),
            json!({"operation": "goToDefinition", "result": "x", "filePath": "a.py", "resultCount": 2, "fileCount": 1})
        );
    }
}
