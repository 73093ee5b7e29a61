//! Deciding a NotebookEdit: the checks in Claude Code's order, the cell, and the notebook's new
//! bytes. Free of the contract; [`plan`] runs in `validate_input` and again in `call`.
//!
//! The notebook is never re-serialised: the edited cell (or the inside of the `cells` list, for
//! an insert or a delete) is rebuilt from the text of the members and cells that stay, and only
//! the values that change are written anew, in the file's own layout ([`Layout`]). Everything
//! else keeps its bytes.

use std::collections::HashSet;
use std::hash::{BuildHasher, Hasher};
use std::path::Path;

use agent_tools_core::FileReadState;
use agent_tools_files::{
    Encoding, LoadError, MAX_FILE_BYTES, StaleRead, TextFile, Unrepresentable, encode_text, load_text_file,
    normalize_newlines, require_fresh,
};
use serde_json::{Map, Value};

use crate::input::{CellType, EditMode};
use crate::json::{Items, Layout, Node, parse, split_lines, write_string, write_value};

/// What the model asked for.
#[derive(Debug, Clone, Copy)]
pub struct Request<'a> {
    /// The cell: its `id`, or `cell-N` for the N-th cell (from 0).
    pub cell_id: Option<&'a str>,
    /// The new source.
    pub new_source: &'a str,
    /// The cell type asked for.
    pub cell_type: Option<CellType>,
    /// Replace, insert or delete.
    pub mode: EditMode,
}

/// Why a NotebookEdit may not go ahead, in the order they are checked.
#[derive(Debug)]
pub enum Refusal {
    /// The path does not end in `.ipynb`.
    NotNotebookPath,
    /// An insert without `cell_type`.
    CellTypeRequired,
    /// No file at the path.
    Missing,
    /// The file cannot be loaded (folder, device, binary, too large, I/O).
    Load(LoadError),
    /// The model has not read the notebook, or it changed on disk since.
    Stale(StaleRead),
    /// The file's bytes do not decode cleanly in its encoding.
    Undecodable(Encoding),
    /// The file is not JSON.
    InvalidJson,
    /// The file is JSON without a `cells` list.
    NoCells,
    /// A replace or delete without `cell_id`.
    CellIdRequired,
    /// `cell-N` names a cell past the last one (N as written).
    IndexMissing(String),
    /// No cell has this id.
    IdNotFound(String),
    /// The cell at this index is not a JSON object.
    CellNotObject(usize),
    /// The new text has a character the file's encoding lacks.
    Unrepresentable(Unrepresentable),
}

/// A NotebookEdit ready to write.
#[derive(Debug)]
pub struct Planned {
    /// The notebook before the edit.
    pub original: Box<TextFile>,
    /// The bytes to write.
    pub bytes: Vec<u8>,
    /// The new text as written (its line endings as in the file).
    pub raw: String,
    /// The cell named in the result: the `cell_id` given (replace, delete), the new cell's id, or
    /// `cell-N` for a new cell in a notebook without ids (insert).
    pub cell_id: String,
    /// The type of the cell edited, inserted or deleted.
    pub cell_type: String,
    /// The notebook's language (`metadata.language_info.name`, else `python`).
    pub language: String,
}

/// Runs every check on the notebook at `path` and computes the edited file.
///
/// # Errors
/// The first [`Refusal`] that applies.
pub fn plan(path: &Path, state: &FileReadState, request: Request<'_>) -> Result<Planned, Refusal> {
    if !path.extension().is_some_and(|ext| ext.eq_ignore_ascii_case("ipynb")) {
        return Err(Refusal::NotNotebookPath);
    }
    if request.mode == EditMode::Insert && request.cell_type.is_none() {
        return Err(Refusal::CellTypeRequired);
    }
    let file = load_text_file(path, MAX_FILE_BYTES).map_err(Refusal::Load)?.ok_or(Refusal::Missing)?;
    require_fresh(state, &file).map_err(Refusal::Stale)?;
    if !file.lossless {
        return Err(Refusal::Undecodable(file.encoding));
    }
    let doc: Value = serde_json::from_str(&file.raw).map_err(|_| Refusal::InvalidJson)?;
    let cells = doc.get("cells").and_then(Value::as_array).ok_or(Refusal::NoCells)?;
    let parsed = parse(&file.raw).ok_or(Refusal::InvalidJson)?;
    let cells_node = parsed.root.get("cells").ok_or(Refusal::NoCells)?;
    if cells_node.elements().len() != cells.len() {
        return Err(Refusal::InvalidJson);
    }
    let index = match (request.cell_id, request.mode) {
        (None, EditMode::Insert) => None,
        (None, _) => return Err(Refusal::CellIdRequired),
        (Some(cell_id), _) => Some(locate(cells, cell_id)?),
    };

    let raw = file.raw.as_str();
    let layout = Layout::detect(raw, &parsed);
    // The top-level object starts its line; its members are one level in.
    let root_indent = layout.indent.as_ref().map(|_| "");
    let root_items = Items::of(raw, &parsed.root, &layout, root_indent);
    let mut cell_items = Items::of(raw, cells_node, &layout, root_items.indent.as_deref());
    let cell_indent = cell_items.indent.clone();
    let type_of = |cell: &Value| cell.get("cell_type").and_then(Value::as_str).unwrap_or("code").to_owned();

    let (cell_id, cell_type) = match (request.mode, index) {
        (EditMode::Delete, Some(index)) => {
            cell_items.remove(index);
            (request.cell_id.unwrap_or_default().to_owned(), cells.get(index).map(type_of).unwrap_or_default())
        }
        (EditMode::Insert, after) => {
            let at = after.map_or(0, |index| index + 1);
            let kind = request.cell_type.unwrap_or(CellType::Code);
            let id = has_cell_ids(&doc).then(|| {
                let taken: HashSet<&str> =
                    cells.iter().filter_map(|cell| cell.get("id").and_then(Value::as_str)).collect();
                new_cell_id(&taken)
            });
            let template = at
                .checked_sub(1)
                .or((!cells.is_empty()).then_some(0))
                .and_then(|index| Some((cells_node.elements().get(index)?, cells.get(index)?)));
            let body = new_cell(&layout, cell_indent.as_deref(), template, kind, request.new_source, id.clone());
            cell_items.insert(at, body);
            (id.unwrap_or_else(|| format!("cell-{at}")), kind.as_str().to_owned())
        }
        (_, Some(index)) => {
            let (Some(node), Some(cell)) = (cells_node.elements().get(index), cells.get(index)) else {
                return Err(Refusal::CellNotObject(index));
            };
            let (body, cell_type) = replaced_cell(raw, node, cell, &layout, cell_indent.as_deref(), request)
                .ok_or(Refusal::CellNotObject(index))?;
            cell_items.set(index, body);
            (request.cell_id.unwrap_or_default().to_owned(), cell_type)
        }
        (_, None) => return Err(Refusal::CellIdRequired),
    };

    let open = cells_node.span.start + 1;
    let close = cells_node.span.end.saturating_sub(1).max(open);
    let new_raw = format!(
        "{}{}{}",
        raw.get(..open).unwrap_or_default(),
        cell_items.render(),
        raw.get(close..).unwrap_or_default()
    );
    let bytes = encode_text(&new_raw, file.encoding).map_err(Refusal::Unrepresentable)?;
    let language = doc.pointer("/metadata/language_info/name").and_then(Value::as_str).unwrap_or("python").to_owned();
    Ok(Planned { original: Box::new(file), bytes, raw: new_raw, cell_id, cell_type, language })
}

impl Planned {
    /// The new text with line endings normalised to `\n` (for the file-read state).
    pub fn text(&self) -> String {
        normalize_newlines(&self.raw)
    }
}

/// The index of the cell `cell_id` names: the cell with that `id`, else `cell-N` (N from 0).
fn locate(cells: &[Value], cell_id: &str) -> Result<usize, Refusal> {
    if let Some(index) = cells.iter().position(|cell| cell.get("id").and_then(Value::as_str) == Some(cell_id)) {
        return Ok(index);
    }
    match cell_id.strip_prefix("cell-") {
        Some(digits) if !digits.is_empty() && digits.bytes().all(|byte| byte.is_ascii_digit()) => {
            match digits.parse::<usize>() {
                Ok(index) if index < cells.len() => Ok(index),
                Ok(index) => Err(Refusal::IndexMissing(index.to_string())),
                Err(_) => Err(Refusal::IndexMissing(digits.to_owned())),
            }
        }
        _ => Err(Refusal::IdNotFound(cell_id.to_owned())),
    }
}

/// Whether the notebook's format gives cells an `id` (nbformat 4.5 and later).
fn has_cell_ids(doc: &Value) -> bool {
    let major = doc.get("nbformat").and_then(Value::as_u64).unwrap_or(0);
    let minor = doc.get("nbformat_minor").and_then(Value::as_u64).unwrap_or(0);
    major > 4 || (major == 4 && minor >= 5)
}

/// A new cell id as nbformat makes them (8 lower-case hex digits), unused in the notebook.
fn new_cell_id(taken: &HashSet<&str>) -> String {
    let random = std::collections::hash_map::RandomState::new();
    let nanos = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |time| time.as_nanos());
    let mut fallback = String::new();
    for attempt in 0u64..1_000 {
        let mut hasher = random.build_hasher();
        hasher.write_u128(nanos);
        hasher.write_u64(attempt);
        let hash = hasher.finish();
        let id = format!("{:08x}", hash & 0xFFFF_FFFF);
        if !taken.contains(id.as_str()) {
            return id;
        }
        fallback = format!("{hash:016x}");
    }
    fallback
}

/// A cell's `source` as nbformat writes it: a list of lines, or one string when the cell (or,
/// for a new cell, its neighbour) has it that way.
fn source_value(source: &str, as_string: bool) -> Value {
    if as_string {
        Value::String(source.to_owned())
    } else {
        Value::Array(split_lines(source).into_iter().map(|line| Value::String(line.to_owned())).collect())
    }
}

/// Whether the keys are in ascending order (as Jupyter writes them).
fn sorted<'k>(keys: impl Iterator<Item = &'k str>) -> bool {
    let keys: Vec<&str> = keys.collect();
    keys.windows(2).all(|pair| pair[0] <= pair[1])
}

/// The text of a new cell, laid out like its neighbour `template` (key order, source as list or
/// string) in the file's layout.
fn new_cell(
    layout: &Layout,
    indent: Option<&str>,
    template: Option<(&Node, &Value)>,
    kind: CellType,
    source: &str,
    id: Option<String>,
) -> String {
    let as_string = template.is_some_and(|(_, cell)| cell.get("source").is_some_and(Value::is_string));
    let mut entries: Vec<(&str, Value)> = vec![("cell_type", Value::String(kind.as_str().to_owned()))];
    if let Some(id) = id {
        entries.push(("id", Value::String(id)));
    }
    entries.push(("metadata", Value::Object(Map::new())));
    entries.push(("source", source_value(source, as_string)));
    if kind == CellType::Code {
        entries.push(("execution_count", Value::Null));
        entries.push(("outputs", Value::Array(Vec::new())));
    }
    let template_keys: Vec<&str> =
        template.map(|(node, _)| node.members().iter().map(|member| member.key.as_str()).collect()).unwrap_or_default();
    if sorted(template_keys.iter().copied()) {
        entries.sort_by(|a, b| a.0.cmp(b.0));
    } else {
        entries.sort_by_key(|(key, _)| template_keys.iter().position(|known| known == key).unwrap_or(usize::MAX));
    }
    let map: Map<String, Value> = entries.into_iter().map(|(key, value)| (key.to_owned(), value)).collect();
    let mut out = String::new();
    write_value(&mut out, &Value::Object(map), layout, indent);
    out
}

/// The text of cell `node` (value `cell`) with the request applied, and its type after it:
/// `source` replaced, the type changed if asked, a code cell's `execution_count` set to null and
/// its `outputs` emptied; a cell turned into markdown loses the code-only keys, a cell turned
/// into code its `attachments`. Members that stay keep their text. `None` when the cell is not
/// an object.
fn replaced_cell(
    raw: &str,
    node: &Node,
    cell: &Value,
    layout: &Layout,
    indent: Option<&str>,
    request: Request<'_>,
) -> Option<(String, String)> {
    if !cell.is_object() {
        return None;
    }
    let mut members = Items::of(raw, node, layout, indent);
    let member_indent = members.indent.clone();
    // Each member's key and the text up to its value ("\"key\": "), kept in step with `members`.
    let mut heads: Vec<(String, String)> = node
        .members()
        .iter()
        .map(|member| {
            (member.key.clone(), raw.get(member.key_start..member.value.span.start).unwrap_or_default().to_owned())
        })
        .collect();
    let keys_sorted = sorted(heads.iter().map(|(key, _)| key.as_str()));

    let current = cell.get("cell_type").and_then(Value::as_str).unwrap_or("code");
    let target: &str = match request.cell_type {
        Some(kind) => kind.as_str(),
        None => current,
    };
    let as_string = cell.get("source").is_some_and(Value::is_string);
    let mut changes: Vec<(&str, Option<Value>)> = vec![("source", Some(source_value(request.new_source, as_string)))];
    if target != current {
        changes.push(("cell_type", Some(Value::String(target.to_owned()))));
    }
    match target {
        "code" => {
            changes.push(("execution_count", Some(Value::Null)));
            changes.push(("outputs", Some(Value::Array(Vec::new()))));
            if target != current {
                changes.push(("attachments", None));
            }
        }
        _ if target != current => {
            changes.push(("execution_count", None));
            changes.push(("outputs", None));
        }
        _ => {}
    }

    for (key, value) in changes {
        let at = heads.iter().rposition(|(known, _)| known == key);
        match (value, at) {
            (Some(value), Some(at)) => {
                let mut body = heads[at].1.clone();
                write_value(&mut body, &value, layout, member_indent.as_deref());
                members.set(at, body);
            }
            (Some(value), None) => {
                let at =
                    if keys_sorted { heads.partition_point(|(known, _)| known.as_str() < key) } else { heads.len() };
                let mut head = String::new();
                write_string(&mut head, key, layout.ensure_ascii);
                head.push_str(&layout.colon);
                let mut body = head.clone();
                write_value(&mut body, &value, layout, member_indent.as_deref());
                members.insert(at, body);
                heads.insert(at, (key.to_owned(), head));
            }
            (None, Some(at)) => {
                members.remove(at);
                heads.remove(at);
            }
            (None, None) => {}
        }
    }
    Some((format!("{{{}}}", members.render()), target.to_owned()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cells_are_found_by_id_then_by_index() {
        let cells = vec![serde_json::json!({"id": "a"}), serde_json::json!({"id": "cell-0"}), serde_json::json!({})];
        assert_eq!(locate(&cells, "a").ok(), Some(0));
        // A real id wins over the index form.
        assert_eq!(locate(&cells, "cell-0").ok(), Some(1));
        assert_eq!(locate(&cells, "cell-2").ok(), Some(2));
        assert!(matches!(locate(&cells, "cell-3"), Err(Refusal::IndexMissing(n)) if n == "3"));
        assert!(matches!(locate(&cells, "cell-007"), Err(Refusal::IndexMissing(n)) if n == "7"));
        assert!(matches!(locate(&cells, "cell-x"), Err(Refusal::IdNotFound(id)) if id == "cell-x"));
        assert!(matches!(locate(&cells, "cell-"), Err(Refusal::IdNotFound(_))));
        assert!(matches!(locate(&cells, "cell-99999999999999999999999"), Err(Refusal::IndexMissing(_))));
    }

    #[test]
    fn new_ids_are_short_hex_and_unused() {
        let id = new_cell_id(&HashSet::new());
        assert_eq!(id.len(), 8);
        assert!(id.bytes().all(|byte| byte.is_ascii_hexdigit() && !byte.is_ascii_uppercase()));
        let taken: HashSet<&str> = [id.as_str()].into();
        assert_ne!(new_cell_id(&taken), id);
    }

    #[test]
    fn the_format_version_decides_ids() {
        assert!(has_cell_ids(&serde_json::json!({"nbformat": 4, "nbformat_minor": 5})));
        assert!(has_cell_ids(&serde_json::json!({"nbformat": 5, "nbformat_minor": 0})));
        assert!(!has_cell_ids(&serde_json::json!({"nbformat": 4, "nbformat_minor": 4})));
        assert!(!has_cell_ids(&serde_json::json!({})));
    }
}
