//! Quoting a value the model sent inside a message about it.
//!
//! An error names the bad value so the model can see what it sent, but a value can be ten
//! megabytes long or hold NUL bytes and terminal escapes. [`quote`] shows at most
//! [`QUOTE_MAX_CHARS`] characters of it, control characters escaped, and says how long the whole
//! value was; a short, printable value comes back unchanged, so ordinary messages read exactly as
//! Claude Code's do.

use std::borrow::Cow;
use std::fmt::Write as _;

/// The most characters of a value [`quote`] shows.
pub const QUOTE_MAX_CHARS: usize = 200;

/// Whether `c` is shown escaped: control characters other than tab and line feed (NUL, escape,
/// carriage return, DEL, the C1 range) and the Unicode line and paragraph separators.
fn needs_escape(c: char) -> bool {
    (c.is_control() && c != '\t' && c != '\n') || c == '\u{2028}' || c == '\u{2029}'
}

/// `value` as a message quotes it: unchanged when it is at most [`QUOTE_MAX_CHARS`] characters
/// of printable text; otherwise its control characters escaped as Rust writes them (`\0`,
/// `\r`, `\u{1b}`), cut after [`QUOTE_MAX_CHARS`] characters and followed by
/// `… (N characters)` giving the whole value's length in characters.
///
/// ```
/// use agent_tools_core::quote::quote;
/// assert_eq!(quote("src/main.rs"), "src/main.rs");
/// assert_eq!(quote("a\u{0}b\u{1b}[31m"), "a\\0b\\u{1b}[31m");
/// let long = "x".repeat(10_000);
/// assert_eq!(quote(&long), format!("{}… (10000 characters)", "x".repeat(200)));
/// ```
pub fn quote(value: &str) -> Cow<'_, str> {
    quote_up_to(value, QUOTE_MAX_CHARS)
}

/// [`quote`] with another limit: at most `max_chars` characters shown. For messages that repeat
/// a value the model needs to see whole in ordinary cases (Edit's `String: …` line), while a
/// huge value is still cut.
///
/// ```
/// use agent_tools_core::quote::quote_up_to;
/// assert_eq!(quote_up_to("abcdef", 3), "abc… (6 characters)");
/// assert_eq!(quote_up_to("abc", 3), "abc");
/// ```
pub fn quote_up_to(value: &str, max_chars: usize) -> Cow<'_, str> {
    let mut chars = value.char_indices();
    let mut shown_end = value.len();
    let mut count = 0usize;
    let mut clean = true;
    for (index, c) in chars.by_ref() {
        if count == max_chars {
            shown_end = index;
            break;
        }
        count += 1;
        clean &= !needs_escape(c);
    }
    let cut = shown_end < value.len();
    if clean && !cut {
        return Cow::Borrowed(value);
    }
    let mut quoted = String::with_capacity(shown_end + 32);
    for c in value[..shown_end].chars() {
        if needs_escape(c) {
            let _ = write!(quoted, "{}", c.escape_debug());
        } else {
            quoted.push(c);
        }
    }
    if cut {
        let total = count + 1 + chars.count();
        let _ = write!(quoted, "… ({total} characters)");
    }
    Cow::Owned(quoted)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn short_printable_values_are_unchanged_and_borrowed() {
        for value in ["", "a b", "tab\there", "two\nlines", "日本語", "💥"] {
            assert!(matches!(quote(value), Cow::Borrowed(v) if v == value));
        }
    }

    #[test]
    fn control_characters_are_escaped() {
        assert_eq!(quote("\u{0}"), "\\0");
        assert_eq!(quote("a\rb"), "a\\rb");
        assert_eq!(quote("\u{7f}\u{85}\u{2028}"), "\\u{7f}\\u{85}\\u{2028}");
    }

    #[test]
    fn long_values_are_cut_at_a_character_boundary_with_their_length() {
        let value = "é".repeat(201);
        assert_eq!(quote(&value), format!("{}… (201 characters)", "é".repeat(200)));
        let exact = "é".repeat(200);
        assert_eq!(quote(&exact), exact);
        let mut nul = "x".repeat(300);
        nul.insert(5, '\u{0}');
        assert_eq!(quote(&nul), format!("xxxxx\\0{}… (301 characters)", "x".repeat(194)));
    }
}
