//! Cleaning terminal output into plain text, as it streams: ANSI escape sequences removed, line
//! ends made `\n`.
//!
//! Programs that see a terminal colour their output, move the cursor and redraw progress bars.
//! What the model reads (the task's output file) keeps only the text:
//!
//! - escape sequences are removed whole: CSI (`ESC [ … final`, colours and cursor moves), OSC
//!   (`ESC ] … BEL` or `ESC ] … ESC \`, window titles and links), DCS/SOS/PM/APC strings (up to
//!   `ESC \`) and two-character escapes (`ESC 7`, `ESC (B` …);
//! - `\r\n` (and runs of `\r` before `\n`) become `\n`; a `\r` that returns to the start of the
//!   line to redraw it (a progress bar) also becomes `\n`, so every state of the line stays
//!   readable;
//! - tabs and newlines are kept, other control characters (bell, backspace …) dropped;
//! - everything else passes through byte for byte (UTF-8 included).
//!
//! The state carries over between chunks, so a sequence split across two reads is still removed
//! whole: feeding the bytes in any pieces gives the same text as feeding them at once.

/// Most bytes of an unterminated string sequence (OSC, DCS …) swallowed before the stripper
/// gives up on it and returns to plain text (a stray `ESC ]` must not hide the rest of the output).
const MAX_STRING_BYTES: usize = 4096;

const ESC: u8 = 0x1b;
const BEL: u8 = 0x07;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
enum State {
    /// Plain text.
    #[default]
    Ground,
    /// After `ESC`.
    Escape,
    /// After `ESC` and intermediate bytes (`ESC ( B`).
    EscapeIntermediate,
    /// Inside `ESC [ …`.
    Csi,
    /// Inside a string sequence (OSC, DCS, SOS, PM, APC), until BEL or `ESC \`.
    String,
    /// After `ESC` inside a string sequence.
    StringEscape,
}

/// A streaming ANSI stripper (see the module docs). Feed it chunks with [`AnsiStripper::push`].
#[derive(Debug, Clone, Default)]
pub struct AnsiStripper {
    state: State,
    /// A `\r` (or a run of them) seen in plain text and not yet written.
    pending_cr: bool,
    /// Bytes swallowed by the current string sequence.
    string_len: usize,
}

impl AnsiStripper {
    /// A stripper in its initial state.
    pub fn new() -> Self {
        Self::default()
    }

    /// Appends the clean text of `input` to `out`.
    pub fn push(&mut self, input: &[u8], out: &mut Vec<u8>) {
        for &byte in input {
            self.byte(byte, out);
        }
    }

    /// Writes what is still held back (a trailing `\r` becomes `\n`) and resets the state.
    pub fn finish(&mut self, out: &mut Vec<u8>) {
        if self.pending_cr {
            out.push(b'\n');
        }
        *self = Self::default();
    }

    /// The whole clean text of `input` (for one-shot use and tests).
    pub fn strip(input: &[u8]) -> Vec<u8> {
        let mut stripper = Self::new();
        let mut out = Vec::with_capacity(input.len());
        stripper.push(input, &mut out);
        stripper.finish(&mut out);
        out
    }

    fn byte(&mut self, byte: u8, out: &mut Vec<u8>) {
        match self.state {
            State::Ground => self.ground(byte, out),
            State::Escape => match byte {
                b'[' => self.state = State::Csi,
                b']' | b'P' | b'X' | b'^' | b'_' => {
                    self.state = State::String;
                    self.string_len = 0;
                }
                0x20..=0x2f => self.state = State::EscapeIntermediate,
                0x30..=0x7e => self.state = State::Ground,
                ESC => {}
                // Anything else cancels the sequence and is plain text again.
                _ => {
                    self.state = State::Ground;
                    self.ground(byte, out);
                }
            },
            State::EscapeIntermediate => match byte {
                0x20..=0x2f => {}
                0x30..=0x7e => self.state = State::Ground,
                ESC => self.state = State::Escape,
                _ => {
                    self.state = State::Ground;
                    self.ground(byte, out);
                }
            },
            State::Csi => match byte {
                // Parameters and intermediates.
                0x20..=0x3f => {}
                // The final byte ends the sequence.
                0x40..=0x7e => self.state = State::Ground,
                ESC => self.state = State::Escape,
                _ => {
                    self.state = State::Ground;
                    self.ground(byte, out);
                }
            },
            State::String => match byte {
                BEL => self.state = State::Ground,
                ESC => self.state = State::StringEscape,
                _ => {
                    self.string_len += 1;
                    if self.string_len > MAX_STRING_BYTES {
                        self.state = State::Ground;
                    }
                }
            },
            State::StringEscape => {
                if byte == b'\\' {
                    self.state = State::Ground;
                } else {
                    // `ESC` followed by something else starts a new sequence.
                    self.state = State::Escape;
                    self.byte(byte, out);
                }
            }
        }
    }

    fn ground(&mut self, byte: u8, out: &mut Vec<u8>) {
        match byte {
            b'\r' => self.pending_cr = true,
            b'\n' => {
                self.pending_cr = false;
                out.push(b'\n');
            }
            ESC => {
                self.flush_cr(out);
                self.state = State::Escape;
            }
            b'\t' => {
                self.flush_cr(out);
                out.push(b'\t');
            }
            // Other C0 controls and DEL carry no text.
            0x00..=0x1f | 0x7f => {}
            _ => {
                self.flush_cr(out);
                out.push(byte);
            }
        }
    }

    /// A `\r` not followed by `\n`: the line is redrawn from its start; keep both states.
    fn flush_cr(&mut self, out: &mut Vec<u8>) {
        if self.pending_cr {
            self.pending_cr = false;
            out.push(b'\n');
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn clean(input: &str) -> String {
        String::from_utf8(AnsiStripper::strip(input.as_bytes())).unwrap()
    }

    #[test]
    fn colours_and_cursor_moves_are_removed() {
        assert_eq!(clean("\x1b[1;31merror\x1b[0m: bad"), "error: bad");
        assert_eq!(clean("a\x1b[2Kb\x1b[10;20Hc\x1b[?25l"), "abc");
        assert_eq!(clean("\x1b7saved\x1b8\x1b(Bx"), "savedx");
        assert_eq!(clean("plain text, tabs\tkept\n"), "plain text, tabs\tkept\n");
        assert_eq!(clean("héllo 日本 💥\n"), "héllo 日本 💥\n");
    }

    #[test]
    fn string_sequences_are_removed_whatever_ends_them() {
        assert_eq!(clean("\x1b]0;window title\x07after"), "after");
        assert_eq!(clean("\x1b]8;;https://example.com\x1b\\link\x1b]8;;\x1b\\"), "link");
        assert_eq!(clean("\x1bPq#0;2;0;0;0\x1b\\x"), "x");
        // A stray OSC never hides more than a bounded amount of output.
        let stray = format!("\x1b]{}\nrest", "y".repeat(MAX_STRING_BYTES + 10));
        assert!(clean(&stray).ends_with("\nrest"), "{}", clean(&stray));
    }

    #[test]
    fn line_ends_become_newlines() {
        assert_eq!(clean("one\r\ntwo\r\n"), "one\ntwo\n");
        assert_eq!(clean("one\r\r\ntwo"), "one\ntwo");
        assert_eq!(clean("10%\r50%\r100%\n"), "10%\n50%\n100%\n");
        assert_eq!(clean("\r\x1b[Kdone\n"), "\ndone\n");
        assert_eq!(clean("end\r"), "end\n");
        assert_eq!(clean("bell\x07 back\x08space"), "bell backspace");
    }

    #[test]
    fn chunks_split_anywhere_give_the_same_text() {
        let input = "start \x1b[38;5;196mred\x1b[0m\r\nprogress 1\rprogress 2\r\n\x1b]0;t\x1b\\é end\n".as_bytes();
        let whole = AnsiStripper::strip(input);
        for size in 1..input.len() {
            let mut stripper = AnsiStripper::new();
            let mut out = Vec::new();
            for chunk in input.chunks(size) {
                stripper.push(chunk, &mut out);
            }
            stripper.finish(&mut out);
            assert_eq!(out, whole, "chunks of {size}");
        }
        assert_eq!(String::from_utf8(whole).unwrap(), "start red\nprogress 1\nprogress 2\né end\n");
    }
}
