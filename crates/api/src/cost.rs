//! What a call cost: [`cost_usd`], from a per-model price table.
//!
//! Prices in US dollars per million tokens (Anthropic's list prices), matched on the model id
//! (`claude-opus-4-1-20250805`, `claude-sonnet-4-5`, `anthropic/claude-haiku-4.5` … all
//! match):
//!
//! | model                                   | input | output |
//! |-----------------------------------------|------:|-------:|
//! | Opus 4.5 and later (`opus-4-5`, `opus-4-6` …, `opus-5` …) | 5 | 25 |
//! | Opus 4 / 4.1 and Claude 3 Opus           | 15    | 75     |
//! | Sonnet (any version)                     | 3     | 15     |
//! | Haiku 4.5 (and later)                    | 1     | 5      |
//! | Haiku 3.5                                | 0.80  | 4      |
//! | Haiku 3                                  | 0.25  | 1.25   |
//! | anything else                            | priced as Sonnet |
//!
//! Cache writes cost 1.25 × input, cache reads 0.1 × input.

use crate::stream::Usage;

/// A model's price: US dollars per million input and output tokens.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Price {
    /// Per million input tokens.
    pub input: f64,
    /// Per million output tokens.
    pub output: f64,
}

impl Price {
    /// Per million tokens written to the prompt cache: 1.25 × input.
    pub fn cache_write(&self) -> f64 {
        self.input * 1.25
    }

    /// Per million tokens read from the prompt cache: 0.1 × input.
    pub fn cache_read(&self) -> f64 {
        self.input * 0.1
    }
}

/// The price of `model` (see the table in [this module](self)); unknown models are priced as
/// Sonnet.
pub fn price(model: &str) -> Price {
    let id = model.to_ascii_lowercase().replace('.', "-");
    let has = |needle: &str| id.contains(needle);
    let (input, output) = if has("opus") {
        if has("3-opus") || has("opus-3") || opus_version(&id).is_some_and(|version| version < (4, 5)) {
            (15.0, 75.0)
        } else {
            (5.0, 25.0)
        }
    } else if has("haiku") {
        if has("3-5-haiku") || has("haiku-3-5") {
            (0.8, 4.0)
        } else if has("3-haiku") || has("haiku-3") {
            (0.25, 1.25)
        } else {
            (1.0, 5.0)
        }
    } else {
        (3.0, 15.0)
    };
    Price { input, output }
}

/// The `(major, minor)` after `opus-` in a normalised id (`opus-4-1-20250805` → (4, 1),
/// `opus-4-20250514` → (4, 0): an 8-digit date is not a minor version).
fn opus_version(id: &str) -> Option<(u32, u32)> {
    let rest = &id[id.find("opus-")? + "opus-".len()..];
    let mut parts = rest.split('-');
    let major = parts.next()?.parse().ok()?;
    let minor = parts.next().filter(|part| part.len() <= 2).and_then(|part| part.parse().ok()).unwrap_or(0);
    Some((major, minor))
}

/// What `usage` cost with `model`, in US dollars: input, output, cache writes (1.25 × input)
/// and cache reads (0.1 × input) at [`price`]`(model)`.
pub fn cost_usd(model: &str, usage: &Usage) -> f64 {
    let price = price(model);
    let million = |tokens: u64| tokens as f64 / 1_000_000.0;
    million(usage.input_tokens) * price.input
        + million(usage.output_tokens) * price.output
        + million(usage.cache_creation_input_tokens) * price.cache_write()
        + million(usage.cache_read_input_tokens) * price.cache_read()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn models_are_priced_by_family_and_version() {
        let cases = [
            ("claude-opus-4-20250514", 15.0, 75.0),
            ("claude-opus-4-1-20250805", 15.0, 75.0),
            ("claude-opus-4-1", 15.0, 75.0),
            ("claude-3-opus-20240229", 15.0, 75.0),
            ("claude-opus-4-5-20251101", 5.0, 25.0),
            ("claude-opus-4-6", 5.0, 25.0),
            ("claude-opus-5", 5.0, 25.0),
            ("anthropic/claude-opus-4.5", 5.0, 25.0),
            ("claude-sonnet-4-5-20250929", 3.0, 15.0),
            ("claude-3-7-sonnet-latest", 3.0, 15.0),
            ("claude-haiku-4-5", 1.0, 5.0),
            ("claude-3-5-haiku-20241022", 0.8, 4.0),
            ("claude-3-haiku-20240307", 0.25, 1.25),
            ("llama3.2", 3.0, 15.0),
        ];
        for (model, input, output) in cases {
            assert_eq!(price(model), Price { input, output }, "{model}");
        }
    }

    #[test]
    fn a_call_costs_its_tokens_at_the_models_prices() {
        let usage = Usage {
            input_tokens: 1_000_000,
            output_tokens: 100_000,
            cache_creation_input_tokens: 200_000,
            cache_read_input_tokens: 2_000_000,
        };
        // Sonnet: 3 + 1.5 + 0.2 × 3.75 + 2 × 0.3 = 5.85
        assert!((cost_usd("claude-sonnet-4-5", &usage) - 5.85).abs() < 1e-9);
        // Opus 4.1: 15 + 7.5 + 0.2 × 18.75 + 2 × 1.5 = 29.25
        assert!((cost_usd("claude-opus-4-1", &usage) - 29.25).abs() < 1e-9);
        assert_eq!(cost_usd("claude-haiku-4-5", &Usage::default()), 0.0);
        // 100 in, 20 out on Haiku 4.5: 0.0001 + 0.0001
        let small = Usage { input_tokens: 100, output_tokens: 20, ..Usage::default() };
        assert!((cost_usd("claude-haiku-4-5", &small) - 0.0002).abs() < 1e-12);
    }
}
