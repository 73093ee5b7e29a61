//! JSON Schemas for tool inputs, derived from the input type with schemars (draft 2020-12).
//!
//! Mirrors Claude Code's zod → JSON Schema conversion for `z.strictObject` inputs: the root is an
//! object with `additionalProperties: false`; optional fields are plain (not nullable) types.
//! [`crate::tool::build_tool`] builds each tool's schema once and caches it (Claude Code's `lazySchema`).

use schemars::JsonSchema;
use schemars::generate::SchemaSettings;
use serde_json::{Map, Value};

/// The JSON Schema (draft 2020-12) of `T`, cleaned for the Messages API and MCP:
/// no root `title`, optional fields not nullable, no non-standard integer `format`s
/// (`uint64`, `int32` …), no root title or description (the prompt describes the tool), and
/// `additionalProperties: false` on the root object.
pub fn input_schema_for<T: JsonSchema>() -> Value {
    let generator = SchemaSettings::draft2020_12().with(|settings| settings.inline_subschemas = true).into_generator();
    let mut schema = generator.into_root_schema_for::<T>().to_value();
    clean(&mut schema);
    let Value::Object(mut root) = schema else { return schema };
    // The tool's prompt describes it; the type's own title and doc comment are noise here.
    root.remove("title");
    root.remove("description");
    root.entry("additionalProperties").or_insert(Value::Bool(false));
    // Conventional key order: `$schema`, `type`, `properties`, `required`, then the rest.
    let mut ordered = Map::new();
    for key in ["$schema", "type", "properties", "required"] {
        if let Some(value) = root.remove(key) {
            ordered.insert(key.to_owned(), value);
        }
    }
    ordered.extend(root);
    Value::Object(ordered)
}

/// Non-standard `format` values schemars adds to numbers; they carry nothing a model can use.
const NUMERIC_FORMATS: &[&str] =
    &["int8", "int16", "int32", "int64", "uint", "uint8", "uint16", "uint32", "uint64", "float", "double"];

fn clean(value: &mut Value) {
    match value {
        Value::Object(map) => {
            clean_object(map);
            for child in map.values_mut() {
                clean(child);
            }
        }
        Value::Array(items) => items.iter_mut().for_each(clean),
        _ => {}
    }
}

fn clean_object(map: &mut Map<String, Value>) {
    if map.get("format").and_then(Value::as_str).is_some_and(|format| NUMERIC_FORMATS.contains(&format)) {
        map.remove("format");
    }
    // `Option<T>` becomes `"type": ["T", "null"]`; an absent field already means "none".
    if let Some(Value::Array(types)) = map.get_mut("type") {
        types.retain(|t| t != "null");
        if types.len() == 1 {
            let single = types.remove(0);
            map.insert("type".to_owned(), single);
        }
    }
    // `Option<Enum>` becomes `"anyOf": [{"$ref": …}, {"type": "null"}]`.
    if let Some(Value::Array(variants)) = map.get_mut("anyOf") {
        variants.retain(|variant| variant.get("type") != Some(&Value::String("null".to_owned())));
        if variants.len() == 1 {
            let single = variants.remove(0);
            map.remove("anyOf");
            if let Value::Object(inner) = single {
                for (key, value) in inner {
                    map.entry(key).or_insert(value);
                }
            }
        }
    }
    // `enum` lists of an optional field may carry a `null` member.
    if let Some(Value::Array(members)) = map.get_mut("enum") {
        members.retain(|member| !member.is_null());
    }
    if map.get("default") == Some(&Value::Null) {
        map.remove("default");
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde::Deserialize;
    use serde_json::json;

    /// Output layout.
    #[derive(Deserialize, JsonSchema)]
    #[serde(rename_all = "snake_case")]
    #[allow(dead_code)]
    enum Mode {
        Content,
        FilesWithMatches,
    }

    #[derive(Deserialize, JsonSchema)]
    #[serde(deny_unknown_fields)]
    #[allow(dead_code)]
    struct Input {
        /// The pattern.
        pattern: String,
        /// How many.
        #[serde(default)]
        limit: Option<u64>,
        /// Which mode.
        #[serde(default)]
        output_mode: Option<Mode>,
        #[serde(rename = "-i", default)]
        case_insensitive: Option<bool>,
    }

    #[test]
    fn schema_is_draft_2020_12_strict_and_plain() {
        let schema = input_schema_for::<Input>();
        assert_eq!(schema["$schema"], "https://json-schema.org/draft/2020-12/schema");
        assert_eq!(schema["type"], "object");
        assert_eq!(schema["additionalProperties"], false);
        assert_eq!(schema["required"], json!(["pattern"]));
        assert!(schema.get("title").is_none());
        assert_eq!(schema["properties"]["pattern"], json!({"type": "string", "description": "The pattern."}));
        assert_eq!(schema["properties"]["limit"], json!({"type": "integer", "minimum": 0, "description": "How many."}));
        assert_eq!(schema["properties"]["-i"], json!({"type": "boolean"}));
        let mode = &schema["properties"]["output_mode"];
        assert_eq!(mode["description"], "Which mode.");
        assert!(mode.get("anyOf").is_none(), "{mode}");
        // Declaration order is kept (the API shows fields in this order).
        let keys: Vec<&String> = schema["properties"].as_object().map(|m| m.keys().collect()).unwrap_or_default();
        assert_eq!(keys, ["pattern", "limit", "output_mode", "-i"]);
    }
}
