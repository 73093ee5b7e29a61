//! The search itself: compile the pattern and the file filters, walk, search each file in
//! process with `grep-searcher`, and return per-file hits in path order. Free of the contract.

use std::fs::File;
use std::io::{self, Read, Seek, SeekFrom};
use std::path::{Path, PathBuf};
use std::time::SystemTime;

use agent_tools_core::context::CancellationToken;
use agent_tools_core::text::{SNIFF_BYTES, looks_binary};
use agent_tools_walk::{Cancelled, WalkConfig, collect_files};
use grep_matcher::{LineTerminator, Matcher};
use grep_regex::{ErrorKind, RegexMatcher, RegexMatcherBuilder};
use grep_searcher::{Searcher, SearcherBuilder, Sink, SinkContext, SinkMatch};
use ignore::overrides::{Override, OverrideBuilder};
use ignore::types::{Types, TypesBuilder};

/// Why a pattern could not be compiled.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PatternError {
    /// The regex does not parse (or is too big); the parser's message.
    Invalid(String),
    /// The pattern contains a literal line break but `multiline` is off; the parser's message.
    NeedsMultiline(String),
}

/// Compiles `pattern` as ripgrep would: `^`/`$` match at line boundaries (`\n` or `\r\n`, as
/// ripgrep's `--crlf`); without `multiline` no match may cross a line break; with it `.` also
/// matches `\n` (ripgrep's `-U --multiline-dotall`).
///
/// # Errors
/// [`PatternError`] with the regex parser's message.
pub fn compile(pattern: &str, case_insensitive: bool, multiline: bool) -> Result<RegexMatcher, PatternError> {
    let mut builder = RegexMatcherBuilder::new();
    // `crlf` lets `$` match before `\r\n` too, so files with Windows line endings behave like
    // the others; it also makes `\r\n` the matcher's line terminator, which no match may cross.
    builder.multi_line(true).crlf(true).case_insensitive(case_insensitive);
    if multiline {
        builder.line_terminator(None).dot_matches_new_line(true);
    }
    builder.build(pattern).map_err(|error| match error.kind() {
        ErrorKind::NotAllowed(_) => PatternError::NeedsMultiline(error.to_string()),
        // grep-regex wraps the pattern in `(?:…)` before parsing, so its message quotes (and
        // points into) text the model never wrote; parse the pattern as given for the message.
        _ => PatternError::Invalid(
            regex_syntax::ParserBuilder::new()
                .case_insensitive(case_insensitive)
                .build()
                .parse(pattern)
                .err()
                .map_or_else(|| error.to_string(), |syntax| syntax.to_string()),
        ),
    })
}

/// Splits a `glob` argument the way Claude Code does before passing each piece to ripgrep's
/// `--glob`: on whitespace, then each piece on commas unless it holds both `{` and `}` (so
/// `*.{ts,tsx}` stays whole).
pub fn glob_pieces(glob: &str) -> Vec<&str> {
    let mut pieces = Vec::new();
    for raw in glob.split_whitespace() {
        if raw.contains('{') && raw.contains('}') {
            pieces.push(raw);
        } else {
            pieces.extend(raw.split(',').filter(|piece| !piece.is_empty()));
        }
    }
    pieces
}

/// Why a `glob` or `type` filter could not be built.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FilterError {
    /// A glob piece is not a valid glob; the parser's message.
    Glob(String),
    /// The type name is not one of ripgrep's; the name.
    UnknownType(String),
}

/// The file filters of a search: `glob` as ripgrep overrides, `type` as ripgrep file types.
#[derive(Debug, Clone)]
pub struct Filters {
    overrides: Override,
    types: Option<Types>,
}

impl Filters {
    /// Builds the filters for a search rooted at `root`.
    ///
    /// # Errors
    /// [`FilterError`] for an invalid glob or an unknown type.
    pub fn new(root: &Path, glob: Option<&str>, file_type: Option<&str>) -> Result<Self, FilterError> {
        let mut builder = OverrideBuilder::new(root);
        for piece in glob.map(glob_pieces).unwrap_or_default() {
            builder.add(piece).map_err(|error| FilterError::Glob(error.to_string()))?;
        }
        let overrides = builder.build().map_err(|error| FilterError::Glob(error.to_string()))?;
        let types = match file_type {
            None => None,
            Some(name) => {
                let mut types = TypesBuilder::new();
                types.add_defaults().select(name);
                Some(types.build().map_err(|_| FilterError::UnknownType(name.to_owned()))?)
            }
        };
        Ok(Self { overrides, types })
    }
}

/// What to collect from each file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Collect {
    /// Whether the file matches at all (stops at the first match).
    Files,
    /// The number of matching lines (in multi-line mode: of matches, as ripgrep's `-c -U`).
    Counts,
    /// The matching lines and their context.
    Lines,
}

/// A compiled search.
#[derive(Debug, Clone)]
pub struct Request {
    /// The pattern.
    pub matcher: RegexMatcher,
    /// Matches may span lines.
    pub multiline: bool,
    /// Context lines before each match.
    pub before: usize,
    /// Context lines after each match.
    pub after: usize,
    /// Report each match rather than each matching line.
    pub only_matching: bool,
    /// What to collect.
    pub collect: Collect,
    /// For [`Collect::Lines`]: stop reading a file once it produced this many lines (enough to
    /// fill the requested page and tell that more exist). `None` reads every file to the end.
    pub line_cap: Option<usize>,
}

/// One line of `content` output, before formatting.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Entry {
    /// A matching line (or, with only-matching, one match).
    Match {
        /// 1-based line number.
        line: u64,
        /// The text, without its line terminator.
        text: Vec<u8>,
    },
    /// A context line.
    Context {
        /// 1-based line number.
        line: u64,
        /// The text, without its line terminator.
        text: Vec<u8>,
    },
    /// A gap between two groups of lines that are not adjacent.
    Break,
}

/// What one file yielded.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Hits {
    /// The file matches.
    Matched,
    /// The number of matching lines (or multi-line matches).
    Count(u64),
    /// The lines to show.
    Lines(Vec<Entry>),
}

/// A file with at least one match.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FileHits {
    /// Absolute path of the file.
    pub path: PathBuf,
    /// Its modification time (the epoch when unknown).
    pub modified: SystemTime,
    /// What it yielded.
    pub hits: Hits,
}

/// Searches `root` (a file, or a folder walked with `walk`'s rules and `filters`) and returns
/// the files with matches sorted by path (byte-wise).
///
/// In folder searches, files whose first bytes look binary are skipped; text with a stray NUL is
/// searched as text. A file named as `root` is always searched. Files that cannot be read are
/// skipped.
///
/// # Errors
/// [`Cancelled`] when the token fired.
pub fn run(
    root: &Path,
    request: &Request,
    filters: &Filters,
    walk: WalkConfig,
    cancel: &CancellationToken,
) -> Result<Vec<FileHits>, Cancelled> {
    let mut found = if root.is_dir() {
        let mut builder = walk.builder(root);
        builder.overrides(filters.overrides.clone());
        if let Some(types) = &filters.types {
            builder.types(types.clone());
        }
        collect_files(
            &builder,
            cancel,
            || searcher_for(request),
            |searcher, entry| search_file(searcher, request, entry.path(), true, cancel),
        )?
    } else {
        let mut searcher = searcher_for(request);
        search_file(&mut searcher, request, root, false, cancel).into_iter().collect()
    };
    if cancel.is_cancelled() {
        return Err(Cancelled);
    }
    found.sort_unstable_by(|a, b| a.path.as_os_str().as_encoded_bytes().cmp(b.path.as_os_str().as_encoded_bytes()));
    Ok(found)
}

fn searcher_for(request: &Request) -> Searcher {
    SearcherBuilder::new()
        .line_number(true)
        .line_terminator(LineTerminator::crlf())
        .multi_line(request.multiline)
        .before_context(request.before)
        .after_context(request.after)
        .build()
}

fn search_file(
    searcher: &mut Searcher,
    request: &Request,
    path: &Path,
    skip_binary: bool,
    cancel: &CancellationToken,
) -> Option<FileHits> {
    if cancel.is_cancelled() {
        return None;
    }
    let mut file = File::open(path).ok()?;
    if skip_binary {
        let mut sample = Vec::with_capacity(SNIFF_BYTES);
        (&mut file).take(SNIFF_BYTES as u64).read_to_end(&mut sample).ok()?;
        if looks_binary(&sample) {
            return None;
        }
        file.seek(SeekFrom::Start(0)).ok()?;
    }
    let mut sink = Collector { request, cancel, matched: false, count: 0, entries: Vec::new(), lines: 0 };
    searcher.search_file(&request.matcher, &file, &mut sink).ok()?;
    if !sink.matched {
        return None;
    }
    let hits = match request.collect {
        Collect::Files => Hits::Matched,
        Collect::Counts => Hits::Count(sink.count),
        Collect::Lines => Hits::Lines(sink.entries),
    };
    let modified = file.metadata().and_then(|meta| meta.modified()).unwrap_or(SystemTime::UNIX_EPOCH);
    Some(FileHits { path: path.to_path_buf(), modified, hits })
}

/// The text of a line without its terminator (`\n`, or `\r\n`).
fn strip_terminator(line: &[u8]) -> &[u8] {
    let line = line.strip_suffix(b"\n").unwrap_or(line);
    line.strip_suffix(b"\r").unwrap_or(line)
}

/// Collects one file's hits.
struct Collector<'a> {
    request: &'a Request,
    cancel: &'a CancellationToken,
    matched: bool,
    count: u64,
    entries: Vec<Entry>,
    /// Match and context lines collected so far.
    lines: usize,
}

impl Collector<'_> {
    fn push(&mut self, entry: Entry) {
        if !matches!(entry, Entry::Break) {
            self.lines += 1;
        }
        self.entries.push(entry);
    }

    /// Whether to keep reading the file.
    fn keep_going(&self) -> bool {
        !self.cancel.is_cancelled() && self.request.line_cap.is_none_or(|cap| self.lines < cap)
    }

    /// Calls `each(offset, match)` for every non-empty match inside `bytes`.
    fn each_match(&self, bytes: &[u8], mut each: impl FnMut(&[u8], usize)) {
        let _ = self.request.matcher.find_iter(bytes, |found| {
            if !found.is_empty() {
                each(&bytes[found.start()..found.end()], found.start());
            }
            true
        });
    }
}

impl Sink for Collector<'_> {
    type Error = io::Error;

    fn matched(&mut self, _searcher: &Searcher, mat: &SinkMatch<'_>) -> Result<bool, io::Error> {
        self.matched = true;
        match self.request.collect {
            Collect::Files => return Ok(false),
            Collect::Counts => {
                if self.request.multiline {
                    let mut found = 0u64;
                    self.each_match(mat.bytes(), |_, _| found += 1);
                    self.count += found.max(1);
                } else {
                    self.count += 1;
                }
            }
            Collect::Lines => {
                let first = mat.line_number().unwrap_or(1);
                if self.request.only_matching {
                    let bytes = mat.bytes();
                    let mut found = Vec::new();
                    self.each_match(bytes, |text, start| {
                        let line = first + bytes[..start].iter().filter(|b| **b == b'\n').count() as u64;
                        found.push((line, text.to_vec()));
                    });
                    for (line, text) in found {
                        // A match spanning lines is shown one line at a time.
                        for (i, piece) in strip_terminator(&text).split(|b| *b == b'\n').enumerate() {
                            self.push(Entry::Match { line: line + i as u64, text: strip_terminator(piece).to_vec() });
                        }
                    }
                } else {
                    for (i, line) in mat.lines().enumerate() {
                        self.push(Entry::Match { line: first + i as u64, text: strip_terminator(line).to_vec() });
                    }
                }
            }
        }
        Ok(self.keep_going())
    }

    fn context(&mut self, _searcher: &Searcher, context: &SinkContext<'_>) -> Result<bool, io::Error> {
        if self.request.collect == Collect::Lines {
            let line = context.line_number().unwrap_or(1);
            self.push(Entry::Context { line, text: strip_terminator(context.bytes()).to_vec() });
        }
        Ok(self.keep_going())
    }

    fn context_break(&mut self, _searcher: &Searcher) -> Result<bool, io::Error> {
        if self.request.collect == Collect::Lines {
            self.push(Entry::Break);
        }
        Ok(self.keep_going())
    }
}

/// One page of `items`: skip `offset`, keep at most `limit` (`None`: all). Returns the page and
/// the limit when it cut something off (Claude Code reports the limit only then).
pub fn page<T>(items: Vec<T>, limit: Option<u64>, offset: u64) -> (Vec<T>, Option<u64>) {
    let skip = usize::try_from(offset).unwrap_or(usize::MAX);
    let rest: Vec<T> = items.into_iter().skip(skip).collect();
    match limit {
        Some(limit) if u64::try_from(rest.len()).unwrap_or(u64::MAX) > limit => {
            let keep = usize::try_from(limit).unwrap_or(usize::MAX);
            (rest.into_iter().take(keep).collect(), Some(limit))
        }
        _ => (rest, None),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn glob_pieces_split_like_claude_code() {
        assert_eq!(glob_pieces("*.{md,sh}"), ["*.{md,sh}"]);
        assert_eq!(glob_pieces("*.md,*.sh"), ["*.md", "*.sh"]);
        assert_eq!(glob_pieces(" *.rs  !target/** "), ["*.rs", "!target/**"]);
        assert_eq!(glob_pieces("*.{md,"), ["*.{md"]);
        assert!(glob_pieces("  ").is_empty());
    }

    #[test]
    fn pattern_errors_are_told_apart() {
        assert!(matches!(compile("foo(", false, false), Err(PatternError::Invalid(m)) if m.contains("unclosed group")));
        // The message quotes the pattern as written, not grep-regex's `(?:…)` wrapper.
        let Err(PatternError::Invalid(message)) = compile("foo(", false, false) else { panic!("expected an error") };
        assert_eq!(message, "regex parse error:\n    foo(\n       ^\nerror: unclosed group");
        assert!(matches!(compile("a\\nb", false, false), Err(PatternError::NeedsMultiline(_))));
        assert!(compile("a\\nb", false, true).is_ok());
        assert!(compile("attach\\(", true, false).is_ok());
    }

    #[test]
    fn filters_reject_bad_globs_and_unknown_types() {
        let root = Path::new("/w");
        assert!(matches!(Filters::new(root, Some("*.{md"), None), Err(FilterError::Glob(m)) if m.contains("*.{md")));
        assert_eq!(Filters::new(root, None, Some("nope")).unwrap_err(), FilterError::UnknownType("nope".into()));
        assert!(Filters::new(root, Some("*.rs !x/**"), Some("rust")).is_ok());
    }

    #[test]
    fn pages_report_the_limit_only_when_it_cut() {
        assert_eq!(page(vec![1, 2, 3], Some(2), 0), (vec![1, 2], Some(2)));
        assert_eq!(page(vec![1, 2, 3], Some(2), 1), (vec![2, 3], None));
        assert_eq!(page(vec![1, 2, 3], None, 1), (vec![2, 3], None));
        assert_eq!(page(vec![1, 2, 3], Some(5), 9), (vec![], None));
    }

    #[test]
    fn terminators_are_stripped() {
        assert_eq!(strip_terminator(b"a\r\n"), b"a");
        assert_eq!(strip_terminator(b"a\n"), b"a");
        assert_eq!(strip_terminator(b"a"), b"a");
    }
}
