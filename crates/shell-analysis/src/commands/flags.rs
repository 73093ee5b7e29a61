//! The flag-spec language: each command's flags are listed in a small spec string, one token
//! per flag, and [`scan`] splits a command's arguments into flags and operands by it.
//!
//! | token | meaning |
//! |---|---|
//! | `-n` | a flag without a value |
//! | `-n=` | a flag with a value (`-n 5`, `-n5`, `--lines=5`, `--lines 5`); a value shaped like a path outside (`/x`, `~/x`, `../x`) is checked as a file read |
//! | `-e:` | a flag whose value is never a path (a script, a pattern) |
//! | `--color?` | a long flag whose value may only be attached (`--color=auto`) |
//! | `-f@` | the value is a file the command reads |
//! | `--files0-from&` | the value is a file *listing* the files the command reads (their names are unseen here) |
//! | `-o!` | the value is a file the command writes (never read-only) |
//! | `-exec^` / `--pre^=` | a flag that writes or runs something (never read-only) |
//! | `#` | `-5` style numeric flags |
//!
//! Long flags may be abbreviated (GNU `getopt_long` and git both accept `--outp` for
//! `--output`), so an abbreviation counts as the most dangerous flag it could stand for. In a
//! *strict* spec an unlisted flag makes the command not read-only; in a permissive one (for
//! commands with no dangerous flag beyond those listed) it is taken as a harmless switch.

use super::{Analysis, PathArg, PathUse, looks_like_outside_path};
use crate::parse::Word;

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub(super) enum Kind {
    Plain,
    Optional,
    /// A value that is never a path (a script, a pattern, a header).
    Data,
    Value,
    ReadPath,
    /// A file listing the files the command reads.
    ListPath,
    Forbidden,
    ForbiddenValue,
    WritePath,
}

impl Kind {
    pub(super) fn takes_value(self) -> bool {
        matches!(
            self,
            Self::Data | Self::Value | Self::ReadPath | Self::ListPath | Self::WritePath | Self::ForbiddenValue
        )
    }

    pub(super) fn forbidden(self) -> bool {
        matches!(self, Self::Forbidden | Self::ForbiddenValue | Self::WritePath)
    }
}

pub(super) fn parse_token(token: &str) -> (&str, Kind) {
    if let Some(name) = token.strip_suffix("^=") {
        (name, Kind::ForbiddenValue)
    } else if let Some(name) = token.strip_suffix('^') {
        (name, Kind::Forbidden)
    } else if let Some(name) = token.strip_suffix('=') {
        (name, Kind::Value)
    } else if let Some(name) = token.strip_suffix(':') {
        (name, Kind::Data)
    } else if let Some(name) = token.strip_suffix('?') {
        (name, Kind::Optional)
    } else if let Some(name) = token.strip_suffix('@') {
        (name, Kind::ReadPath)
    } else if let Some(name) = token.strip_suffix('&') {
        (name, Kind::ListPath)
    } else if let Some(name) = token.strip_suffix('!') {
        (name, Kind::WritePath)
    } else {
        (token, Kind::Plain)
    }
}

/// The kind of `flag` in `spec`; a long flag may be an abbreviation (the worst match counts).
pub(super) fn lookup(spec: &str, flag: &str) -> Option<Kind> {
    let mut abbreviated: Option<Kind> = None;
    for token in spec.split_whitespace() {
        let (name, kind) = parse_token(token);
        if name == flag {
            return Some(kind);
        }
        if flag.starts_with("--") && flag.len() > 2 && name.starts_with(flag) {
            abbreviated = Some(abbreviated.map_or(kind, |seen| seen.max(kind)));
        }
    }
    abbreviated
}

#[derive(Debug, Clone)]
pub(super) struct Flag {
    pub(super) name: String,
    pub(super) kind: Kind,
    pub(super) value: Option<Word>,
}

#[derive(Debug, Default)]
pub(super) struct Scan<'w> {
    pub(super) flags: Vec<Flag>,
    pub(super) operands: Vec<&'w Word>,
    /// A flag not in the spec (or a value given to a flag that takes none).
    pub(super) unknown: bool,
    /// A word that may turn into a flag when it runs (`$X`, `-$X`).
    pub(super) opaque: bool,
}

impl Scan<'_> {
    pub(super) fn has(&self, names: &[&str]) -> bool {
        self.flags.iter().any(|flag| names.contains(&flag.name.as_str()))
    }

    pub(super) fn values<'a>(&'a self, names: &'a [&'a str]) -> impl Iterator<Item = &'a Word> + 'a {
        self.flags.iter().filter(|f| names.contains(&f.name.as_str())).filter_map(|f| f.value.as_ref())
    }

    pub(super) fn forbidden(&self) -> bool {
        self.flags.iter().any(|flag| flag.kind.forbidden())
    }

    /// Whether one of `names` was given; a long name also in any abbreviation of three letters
    /// or more (`--recur` for `--recursive`), as GNU `getopt_long` accepts.
    pub(super) fn has_any(&self, names: &[&str]) -> bool {
        self.flags.iter().any(|flag| {
            names.iter().any(|name| {
                flag.name == *name
                    || (name.starts_with("--")
                        && flag.name.starts_with("--")
                        && flag.name.len() > 4
                        && name.starts_with(flag.name.as_str()))
            })
        })
    }

    /// The values given to one of `names` (long names also abbreviated, as in [`Self::has_any`]).
    pub(super) fn values_any<'a>(&'a self, names: &'a [&'a str]) -> impl Iterator<Item = &'a Word> + 'a {
        self.flags
            .iter()
            .filter(move |flag| {
                names.iter().any(|name| {
                    flag.name == *name
                        || (name.starts_with("--")
                            && flag.name.starts_with("--")
                            && flag.name.len() > 4
                            && name.starts_with(flag.name.as_str()))
                })
            })
            .filter_map(|flag| flag.value.as_ref())
    }

    /// Nothing unknown, nothing forbidden, nothing that may expand into a flag.
    pub(super) fn clean(&self, strict: bool) -> bool {
        !(self.forbidden() || self.opaque || (strict && self.unknown))
    }
}

/// A piece of `word` (an attached flag value) as a word of its own.
pub(super) fn piece(word: &Word, text: &str) -> Word {
    Word {
        raw: text.to_owned(),
        value: text.to_owned(),
        variable: word.variable,
        glob: word.glob,
        tilde: text.starts_with('~'),
        dynamic: word.dynamic,
    }
}

/// Splits `args` into flags and operands by `spec`. With `permute`, flags may follow operands
/// (GNU style); without, the first operand ends the flags.
pub(super) fn scan<'w>(args: &'w [Word], spec: &str, permute: bool) -> Scan<'w> {
    let mut out = Scan::default();
    let mut only_operands = false;
    let mut iter = args.iter();
    while let Some(word) = iter.next() {
        let value = word.value.as_str();
        if word.variable || word.dynamic {
            out.opaque = true;
        }
        if only_operands || value == "-" || !value.starts_with('-') {
            out.operands.push(word);
            only_operands |= !permute;
            continue;
        }
        if value == "--" {
            only_operands = true;
            continue;
        }
        if value.starts_with("--") {
            let (name, attached) = match value.split_once('=') {
                Some((name, attached)) => (name, Some(attached)),
                None => (value, None),
            };
            let kind = lookup(spec, name);
            let flag_value = match kind {
                Some(kind) if kind.takes_value() => attached.map(|a| piece(word, a)).or_else(|| iter.next().cloned()),
                Some(_) | None => attached.map(|a| piece(word, a)),
            };
            if kind.is_none() || (attached.is_some() && kind == Some(Kind::Plain)) {
                out.unknown = true;
            }
            out.flags.push(Flag { name: name.to_owned(), kind: kind.unwrap_or(Kind::Plain), value: flag_value });
            continue;
        }
        let body = &value[1..];
        if body.chars().all(|c| c.is_ascii_digit()) && lookup(spec, "#").is_some() {
            out.flags.push(Flag { name: "-#".to_owned(), kind: Kind::Plain, value: Some(piece(word, body)) });
            continue;
        }
        for (index, c) in body.char_indices() {
            let name = format!("-{c}");
            let kind = lookup(spec, &name);
            let rest = &body[index + c.len_utf8()..];
            match kind {
                Some(kind) if kind.takes_value() || kind == Kind::Optional => {
                    let flag_value = if !rest.is_empty() {
                        Some(piece(word, rest))
                    } else if kind == Kind::Optional {
                        None
                    } else {
                        iter.next().cloned()
                    };
                    out.flags.push(Flag { name, kind, value: flag_value });
                    break;
                }
                Some(kind) => out.flags.push(Flag { name, kind, value: None }),
                None => {
                    out.unknown = true;
                    out.flags.push(Flag { name, kind: Kind::Plain, value: None });
                }
            }
        }
    }
    out
}

/// Flag values that are paths: declared ones, and any value shaped like a path outside.
pub(super) fn flag_paths(analysis: &mut Analysis, scan: &Scan<'_>) {
    for flag in &scan.flags {
        let Some(value) = &flag.value else { continue };
        let path_use = match flag.kind {
            Kind::ReadPath => PathUse::Read,
            Kind::ListPath => {
                analysis.unseen_reads = true;
                PathUse::Read
            }
            Kind::WritePath => PathUse::Write,
            Kind::Data => continue,
            _ if looks_like_outside_path(value) => PathUse::Read,
            _ => continue,
        };
        analysis.paths.push(PathArg { path_use, word: value.clone() });
    }
}
