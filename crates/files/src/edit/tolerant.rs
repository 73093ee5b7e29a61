//! Tolerant matching, a fallback for an `old_string` not found as written: Claude Code's
//! curly-quote rule (‘ ’ “ ” read as ' "), and no-break spaces read as plain spaces (text
//! pasted from rich-text sources holds U+00A0, which Read shows like a space). The
//! replacement then takes the quote style of the text it replaces.
//!
//! Only a fallback: an `old_string` found as written is used as written, and its `new_string`
//! goes in unchanged (so `'%s'` → `‘%s’` is a real change, and ASCII code stays ASCII).
//! Each folded character stays one character, so a match maps back to exactly the file's own
//! span, and nothing outside it changes (a no-break space elsewhere stays one).

use std::ops::Range;

const LEFT_SINGLE: char = '\u{2018}';
const RIGHT_SINGLE: char = '\u{2019}';
const LEFT_DOUBLE: char = '\u{201C}';
const RIGHT_DOUBLE: char = '\u{201D}';

/// The plain character a tolerant match reads `c` as.
fn fold(c: char) -> char {
    match c {
        LEFT_SINGLE | RIGHT_SINGLE => '\'',
        LEFT_DOUBLE | RIGHT_DOUBLE => '"',
        // No-break space, figure space, narrow no-break space.
        '\u{00A0}' | '\u{2007}' | '\u{202F}' => ' ',
        other => other,
    }
}

/// `text` folded, and for each folded character whose width changed: its offset in the result
/// and the bytes saved so far (cumulative).
fn folded(text: &str) -> (String, Vec<(usize, usize)>) {
    let mut out = String::with_capacity(text.len());
    let mut shifts = Vec::new();
    let mut saved = 0;
    for c in text.chars() {
        let plain = fold(c);
        if plain.len_utf8() != c.len_utf8() {
            saved += c.len_utf8() - plain.len_utf8();
            shifts.push((out.len(), saved));
        }
        out.push(plain);
    }
    (out, shifts)
}

/// The ranges of `text` that equal `needle` once both are folded (curly quotes straight,
/// no-break spaces plain; non-overlapping, in order). Empty when `needle` is empty.
pub fn find_loose(text: &str, needle: &str) -> Vec<Range<usize>> {
    let (needle, _) = folded(needle);
    if needle.is_empty() {
        return Vec::new();
    }
    let (haystack, shifts) = folded(text);
    let original = |offset: usize| {
        let before = shifts.partition_point(|(at, _)| *at < offset);
        offset + before.checked_sub(1).map_or(0, |index| shifts[index].1)
    };
    haystack
        .match_indices(needle.as_str())
        .map(|(start, found)| original(start)..original(start + found.len()))
        .collect()
}

/// `new_string` in the quote style of `actual` (the file's text that an `old_string` with
/// straight quotes matched): when `actual` has curly double or single quotes, the straight ones
/// of that kind in `new_string` become curly — opening after a start, whitespace, an opening
/// bracket or a dash, closing otherwise, and an apostrophe between two letters becomes ’.
pub fn preserve_quote_style(old_string: &str, actual: &str, new_string: &str) -> String {
    if old_string == actual {
        return new_string.to_owned();
    }
    let doubles = actual.contains(LEFT_DOUBLE) || actual.contains(RIGHT_DOUBLE);
    let singles = actual.contains(LEFT_SINGLE) || actual.contains(RIGHT_SINGLE);
    if !doubles && !singles {
        return new_string.to_owned();
    }
    let chars: Vec<char> = new_string.chars().collect();
    let opening = |index: usize| {
        index == 0
            || chars[index - 1].is_whitespace()
            || matches!(chars[index - 1], '(' | '[' | '{' | '\u{2014}' | '\u{2013}')
    };
    chars
        .iter()
        .enumerate()
        .map(|(index, c)| match c {
            '"' if doubles => {
                if opening(index) {
                    LEFT_DOUBLE
                } else {
                    RIGHT_DOUBLE
                }
            }
            '\'' if singles => {
                let letter_before = index > 0 && chars[index - 1].is_alphabetic();
                let letter_after = chars.get(index + 1).is_some_and(|next| next.is_alphabetic());
                if letter_before && letter_after {
                    RIGHT_SINGLE
                } else if opening(index) {
                    LEFT_SINGLE
                } else {
                    RIGHT_SINGLE
                }
            }
            other => *other,
        })
        .collect()
}

/// Tags the API spells differently in model output, and what they stand for in a file
/// (Claude Code's de-sanitisation table, the entries its documentation names).
const SANITIZED: &[(&str, &str)] = &[
    ("<fnr>", "<function_results>"),
    ("</fnr>", "</function_results>"),
    ("<n>", "<name>"),
    ("</n>", "</name>"),
    ("<o>", "<output>"),
    ("</o>", "</output>"),
    ("<e>", "<error>"),
    ("</e>", "</error>"),
    ("<s>", "<system>"),
    ("</s>", "</system>"),
    ("<r>", "<result>"),
    ("</r>", "</result>"),
    ("\n\nH:", "\n\nHuman:"),
    ("\n\nA:", "\n\nAssistant:"),
];

/// `text` with the sanitised spellings of [`SANITIZED`] written out, and which entries applied;
/// `None` when none did. Claude Code's last fallback for an `old_string` not found: when the
/// written-out form is in the file, it is used, and the same entries are applied to `new_string`
/// (see [`desanitize_with`]).
pub fn desanitize(text: &str) -> Option<(String, Vec<usize>)> {
    let applied: Vec<usize> =
        SANITIZED.iter().enumerate().filter(|(_, (short, _))| text.contains(short)).map(|(index, _)| index).collect();
    if applied.is_empty() {
        return None;
    }
    Some((desanitize_with(text, &applied), applied))
}

/// `text` with the entries `applied` of [`SANITIZED`] written out.
pub fn desanitize_with(text: &str, applied: &[usize]) -> String {
    applied
        .iter()
        .filter_map(|index| SANITIZED.get(*index))
        .fold(text.to_owned(), |text, (short, long)| text.replace(short, long))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn straight_quotes_find_curly_text() {
        let text = "say \u{201C}hi\u{201D} and \u{2018}bye\u{2019}\n";
        let found = find_loose(text, "\"hi\" and 'bye'");
        assert_eq!(found.len(), 1);
        assert_eq!(&text[found[0].clone()], "\u{201C}hi\u{201D} and \u{2018}bye\u{2019}");
        assert!(find_loose(text, "").is_empty());
        assert!(find_loose(text, "\"nope\"").is_empty());
    }

    #[test]
    fn plain_spaces_find_no_break_spaces() {
        let text = "a\u{00A0}b \u{201C}c\u{202F}d\u{201D} e\n";
        let found = find_loose(text, "b \"c d\" e");
        assert_eq!(found.len(), 1);
        assert_eq!(&text[found[0].clone()], "b \u{201C}c\u{202F}d\u{201D} e");
        assert_eq!(&text[find_loose(text, "a b")[0].clone()], "a\u{00A0}b");
    }

    #[test]
    fn sanitised_tags_are_written_out() {
        let (old, applied) = desanitize("<n>x</n>\n\nH: hi").unwrap();
        assert_eq!(old, "<name>x</name>\n\nHuman: hi");
        assert_eq!(desanitize_with("<n>y</n> <o>", &applied), "<name>y</name> <o>");
        assert!(desanitize("plain <b>text</b>").is_none());
    }

    #[test]
    fn replacements_take_the_files_quote_style() {
        let actual = "\u{201C}hi\u{201D}, it\u{2019}s";
        assert_eq!(
            preserve_quote_style("\"hi\", it's", actual, "\"hello\", it's 'x'"),
            "\u{201C}hello\u{201D}, it\u{2019}s \u{2018}x\u{2019}"
        );
        // Found as written: untouched.
        assert_eq!(preserve_quote_style("'a'", "'a'", "'b'"), "'b'");
        // Only the kinds present in the file's text are changed.
        assert_eq!(preserve_quote_style("\"a\" 'b'", "\u{201C}a\u{201D} 'b'", "\"c\" 'd'"), "\u{201C}c\u{201D} 'd'");
    }
}
