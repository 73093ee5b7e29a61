//! Jupyter notebooks (`.ipynb`): cells and their outputs, as Claude Code's Read shows them.
//!
//! Each cell becomes `<cell id="ID">` + metadata + source + `</cell id="ID">`, where the metadata
//! is `<cell_type>T</cell_type>` for cells that are not code and `<language>L</language>` for code
//! cells in a language other than Python. Each output follows as text (`\n` + the text) and/or
//! an image. A cell whose outputs together exceed [`LARGE_OUTPUTS_CHARS`] shows a hint instead.

use serde::Serialize;
use serde_json::Value;

/// Outputs of one cell larger than this (characters of text plus image data) are replaced by a
/// hint to inspect them with `jq` (Claude Code's limit).
pub const LARGE_OUTPUTS_CHARS: usize = 10_000;

/// Largest notebook file read, in bytes (its outputs are then bounded before the size limit).
pub const MAX_FILE_BYTES: u64 = 32 * 1024 * 1024;

/// Most characters of one output's text (as for Bash output).
pub const MAX_OUTPUT_CHARS: usize = 30_000;

/// An image in a cell output.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct OutputImage {
    /// `image/png` or `image/jpeg`.
    pub media_type: String,
    /// Base64 data.
    pub data: String,
}

/// One output of a code cell.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct CellOutput {
    /// `stream`, `execute_result`, `display_data` or `error`.
    pub output_type: String,
    /// Its text, if any.
    pub text: Option<String>,
    /// Its image, if any.
    pub image: Option<OutputImage>,
}

/// One cell.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Cell {
    /// The cell's `id`, or `cell-N` (N its index) when it has none.
    pub cell_id: String,
    /// `code`, `markdown` or `raw`.
    pub cell_type: String,
    /// The source text.
    pub source: String,
    /// The language of a code cell.
    pub language: Option<String>,
    /// A code cell's execution count.
    pub execution_count: Option<u64>,
    /// The outputs of a code cell.
    pub outputs: Vec<CellOutput>,
}

/// Joins nbformat's multi-line strings (a string, or a list of strings).
fn joined(value: Option<&Value>) -> String {
    match value {
        Some(Value::String(text)) => text.clone(),
        Some(Value::Array(parts)) => parts.iter().filter_map(Value::as_str).collect(),
        _ => String::new(),
    }
}

fn bounded(text: String) -> String {
    agent_tools_core::truncate_middle(&text, MAX_OUTPUT_CHARS)
}

fn output(raw: &Value) -> CellOutput {
    let output_type = raw.get("output_type").and_then(Value::as_str).unwrap_or_default().to_owned();
    let (text, image) = match output_type.as_str() {
        "stream" => (Some(bounded(joined(raw.get("text")))), None),
        "execute_result" | "display_data" => {
            let data = raw.get("data");
            let text = data.and_then(|data| data.get("text/plain")).map(|text| bounded(joined(Some(text))));
            let image = ["image/png", "image/jpeg"].iter().find_map(|media_type| {
                data.and_then(|data| data.get(*media_type)).map(|encoded| OutputImage {
                    media_type: (*media_type).to_owned(),
                    data: joined(Some(encoded)).split_whitespace().collect(),
                })
            });
            (text, image)
        }
        "error" => {
            let name = raw.get("ename").and_then(Value::as_str).unwrap_or_default();
            let value = raw.get("evalue").and_then(Value::as_str).unwrap_or_default();
            let traceback: Vec<&str> = raw
                .get("traceback")
                .and_then(Value::as_array)
                .map(|lines| lines.iter().filter_map(Value::as_str).collect())
                .unwrap_or_default();
            (Some(bounded(format!("{name}: {value}\n{}", traceback.join("\n")))), None)
        }
        _ => (None, None),
    };
    CellOutput { output_type, text, image }
}

/// Parses a notebook's JSON into cells.
///
/// # Errors
/// A message when the text is not a notebook (not JSON, or no `cells` list).
pub fn parse(text: &str, notebook_path: &str) -> Result<Vec<Cell>, String> {
    let notebook: Value = serde_json::from_str(text).map_err(|error| format!("not valid JSON: {error}"))?;
    let cells = notebook.get("cells").and_then(Value::as_array).ok_or("it has no `cells` list")?;
    let language =
        notebook.pointer("/metadata/language_info/name").and_then(Value::as_str).unwrap_or("python").to_owned();
    Ok(cells
        .iter()
        .enumerate()
        .map(|(index, raw)| {
            let cell_type = raw.get("cell_type").and_then(Value::as_str).unwrap_or("code").to_owned();
            let is_code = cell_type == "code";
            let mut outputs: Vec<CellOutput> = if is_code {
                raw.get("outputs").and_then(Value::as_array).map(|list| list.iter().map(output).collect()).unwrap_or_default()
            } else {
                Vec::new()
            };
            let size: usize = outputs
                .iter()
                .map(|o| o.text.as_ref().map_or(0, String::len) + o.image.as_ref().map_or(0, |i| i.data.len()))
                .sum();
            if size > LARGE_OUTPUTS_CHARS {
                outputs = vec![CellOutput {
                    output_type: "stream".to_owned(),
                    text: Some(format!(
                        "The outputs of this cell are too large to show. Inspect them with Bash: jq '.cells[{index}].outputs' {notebook_path}"
                    )),
                    image: None,
                }];
            }
            Cell {
                cell_id: raw.get("id").and_then(Value::as_str).map_or_else(|| format!("cell-{index}"), str::to_owned),
                source: joined(raw.get("source")),
                language: is_code.then(|| language.clone()),
                execution_count: if is_code { raw.get("execution_count").and_then(Value::as_u64) } else { None },
                cell_type,
                outputs,
            }
        })
        .collect())
}

/// A piece of the rendered notebook: text or an image.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Piece {
    /// Text.
    Text(String),
    /// An image (media type, base64 data).
    Image(String, String),
}

/// Renders cells as content pieces, adjacent texts merged with `\n`.
pub fn render(cells: &[Cell]) -> Vec<Piece> {
    let mut pieces: Vec<Piece> = Vec::new();
    let push_text = |pieces: &mut Vec<Piece>, text: String| match pieces.last_mut() {
        Some(Piece::Text(previous)) => {
            previous.push('\n');
            previous.push_str(&text);
        }
        _ => pieces.push(Piece::Text(text)),
    };
    for cell in cells {
        let mut metadata = String::new();
        if cell.cell_type != "code" {
            metadata.push_str(&format!("<cell_type>{}</cell_type>", cell.cell_type));
        } else if let Some(language) = cell.language.as_deref().filter(|language| *language != "python") {
            metadata.push_str(&format!("<language>{language}</language>"));
        }
        push_text(&mut pieces, format!("<cell id=\"{0}\">{metadata}{1}</cell id=\"{0}\">", cell.cell_id, cell.source));
        for output in &cell.outputs {
            if let Some(text) = &output.text {
                push_text(&mut pieces, format!("\n{text}"));
            }
            if let Some(image) = &output.image {
                pieces.push(Piece::Image(image.media_type.clone(), image.data.clone()));
            }
        }
    }
    pieces
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn renders_cells_outputs_and_languages() {
        let notebook = serde_json::json!({
            "cells": [
                {"cell_type": "markdown", "id": "intro", "source": ["# Title\n", "Some text"]},
                {"cell_type": "code", "id": "calc", "execution_count": 1, "source": ["print(1 + 1)"],
                 "outputs": [{"output_type": "stream", "name": "stdout", "text": ["2\n"]}]},
                {"cell_type": "code", "source": "x", "outputs": [
                    {"output_type": "execute_result", "data": {"text/plain": "42", "image/png": "iVBO\nRw=="}},
                    {"output_type": "error", "ename": "ValueError", "evalue": "bad", "traceback": ["t1", "t2"]}
                ]}
            ],
            "metadata": {"language_info": {"name": "python"}}
        });
        let cells = parse(&notebook.to_string(), "nb.ipynb").unwrap();
        assert_eq!(cells[2].cell_id, "cell-2");
        assert_eq!(
            render(&cells),
            [
                Piece::Text(
                    "<cell id=\"intro\"><cell_type>markdown</cell_type># Title\nSome text</cell id=\"intro\">\n\
                     <cell id=\"calc\">print(1 + 1)</cell id=\"calc\">\n\n2\n\n\
                     <cell id=\"cell-2\">x</cell id=\"cell-2\">\n\n42"
                        .into()
                ),
                Piece::Image("image/png".into(), "iVBORw==".into()),
                Piece::Text("\nValueError: bad\nt1\nt2".into()),
            ]
        );
    }

    #[test]
    fn other_languages_are_named_and_large_outputs_replaced() {
        let big = "y".repeat(LARGE_OUTPUTS_CHARS + 1);
        let notebook = serde_json::json!({
            "cells": [{"cell_type": "code", "id": "r", "source": "1", "outputs": [{"output_type": "stream", "text": big}]}],
            "metadata": {"language_info": {"name": "R"}}
        });
        let cells = parse(&notebook.to_string(), "/w/a.ipynb").unwrap();
        assert_eq!(
            render(&cells),
            [Piece::Text(
                "<cell id=\"r\"><language>R</language>1</cell id=\"r\">\n\nThe outputs of this cell are too large to show. Inspect them with Bash: jq '.cells[0].outputs' /w/a.ipynb"
                    .into()
            )]
        );
        assert!(parse("{", "x").is_err());
        assert!(parse("{}", "x").is_err());
    }
}
