//! The search itself: compile the pattern and the file filters, walk, search each file in
//! process with `grep-searcher`, and return per-file hits in path order. Free of the contract.

use std::fs::File;
use std::io::{self, Read};
use std::path::{Path, PathBuf};
use std::time::SystemTime;

use agent_tools_core::CancellationToken;
use agent_tools_core::text::{SNIFF_BYTES, looks_binary};
use agent_tools_walk::{Cancelled, OpenFolder, ReadDenyRules, WalkConfig, collect_files};
use grep_matcher::{LineTerminator, Matcher};
use grep_regex::{ErrorKind, RegexMatcher, RegexMatcherBuilder};
use grep_searcher::{Searcher, SearcherBuilder, Sink, SinkContext, SinkMatch};

use crate::render::MAX_LINE_BYTES;
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

/// The longest `glob` accepted, in characters (the same bound as the Glob tool's pattern).
pub const MAX_GLOB_CHARS: usize = 10_000;

/// The file filters of a search: `glob` in ripgrep's `--glob` syntax (applied on top of the
/// ignore files, and before the types, see [`WalkConfig::builder_filtered`]), `type` as ripgrep
/// file types.
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
        if let Some(glob) = glob {
            let chars = glob.chars().count();
            if chars > MAX_GLOB_CHARS {
                return Err(FilterError::Glob(format!(
                    "the glob is {chars} characters long, and it may have at most {MAX_GLOB_CHARS}"
                )));
            }
        }
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

/// The text of one `content` line as it will be shown.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum LineText {
    /// The whole line (without its terminator).
    Whole(Vec<u8>),
    /// A part of a line longer than [`MAX_LINE_BYTES`], around its (first) match.
    Window {
        /// The part shown.
        text: Vec<u8>,
        /// Characters left out before it.
        before: usize,
        /// Characters left out after it.
        after: usize,
    },
    /// A context line longer than [`MAX_LINE_BYTES`], left out.
    Omitted,
}

/// One line of `content` output, before formatting.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Entry {
    /// A matching line (or, with only-matching, one match).
    Match {
        /// 1-based line number.
        line: u64,
        /// The text.
        text: LineText,
    },
    /// A context line.
    Context {
        /// 1-based line number.
        line: u64,
        /// The text.
        text: LineText,
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
    /// Its modification time, read for [`Collect::Files`] only (the epoch otherwise, or when
    /// unknown).
    pub modified: SystemTime,
    /// What it yielded.
    pub hits: Hits,
}

/// Searches `root` (a file, or a folder walked with `walk`'s rules and `filters`, leaving out
/// what `deny` names below it) and returns the files with matches sorted by path (byte-wise).
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
    deny: &ReadDenyRules,
    cancel: &CancellationToken,
) -> Result<Vec<FileHits>, Cancelled> {
    let mut found = if root.is_dir() {
        let builder = walk.builder_filtered(root, deny, Some(filters.overrides.clone()), filters.types.clone());
        collect_files(
            root,
            &builder,
            cancel,
            || Worker::new(request),
            |worker, entry| worker.search(request, entry.path(), true, cancel),
        )?
    } else {
        Worker::new(request).search(request, root, false, cancel).into_iter().collect()
    };
    if cancel.is_cancelled() {
        return Err(Cancelled);
    }
    found.sort_unstable_by(|a, b| a.path.as_os_str().as_encoded_bytes().cmp(b.path.as_os_str().as_encoded_bytes()));
    Ok(found)
}

/// Bytes read from the start of each file before searching. A file that fits is searched as one
/// slice, read by a single `read` (plus the one that sees the end); a longer one is searched as
/// a stream that continues from these bytes, so no byte is read twice.
const HEAD_BYTES: usize = 64 * 1024;

/// A walker thread's reusable state: the searcher, its own copy of the matcher, the buffer file
/// heads are read into, and the folder the last file was opened from.
struct Worker {
    searcher: Searcher,
    /// A clone per thread: a regex's scratch space comes from a pool that only its first user
    /// reaches without a lock, so sharing one matcher makes the other threads queue on every
    /// search.
    matcher: RegexMatcher,
    head: Vec<u8>,
    folder: OpenFolder,
}

impl Worker {
    fn new(request: &Request) -> Self {
        // Line numbers cost a count of every line break; only content mode shows them.
        let searcher = SearcherBuilder::new()
            .line_number(request.collect == Collect::Lines)
            .line_terminator(LineTerminator::crlf())
            .multi_line(request.multiline)
            .before_context(request.before)
            .after_context(request.after)
            .build();
        Self { searcher, matcher: request.matcher.clone(), head: Vec::new(), folder: OpenFolder::default() }
    }

    fn search(
        &mut self,
        request: &Request,
        path: &Path,
        skip_binary: bool,
        cancel: &CancellationToken,
    ) -> Option<FileHits> {
        let mut file = self.folder.open(path).ok()?;
        let (filled, complete) = read_head(&mut file, &mut self.head).ok()?;
        let head = &self.head[..filled];
        if skip_binary && is_binary(head) {
            return None;
        }
        if complete && request.collect == Collect::Counts && !request.multiline {
            // Counting matching lines of a file held whole needs no searcher: find a match, count
            // its line, go on from the next line (the same count as the searcher's, with no
            // per-line bookkeeping).
            let count = count_matching_lines(&self.matcher, head)?;
            return (count > 0).then(|| FileHits {
                path: path.to_path_buf(),
                modified: SystemTime::UNIX_EPOCH,
                hits: Hits::Count(count),
            });
        }
        let mut sink = Collector { request, cancel, matched: false, count: 0, entries: Vec::new(), lines: 0, calls: 0 };
        let searched = if complete {
            self.searcher.search_slice(&self.matcher, head, &mut sink)
        } else {
            let rest = CancellableRead { inner: io::Cursor::new(head).chain(&mut file), cancel };
            self.searcher.search_reader(&self.matcher, rest, &mut sink)
        };
        searched.ok()?;
        if !sink.matched {
            return None;
        }
        let (hits, modified) = match request.collect {
            // Only this mode sorts by modification time, and only files that match need it.
            Collect::Files => {
                let modified = file.metadata().and_then(|meta| meta.modified()).unwrap_or(SystemTime::UNIX_EPOCH);
                (Hits::Matched, modified)
            }
            Collect::Counts => (Hits::Count(sink.count), SystemTime::UNIX_EPOCH),
            Collect::Lines => (Hits::Lines(sink.entries), SystemTime::UNIX_EPOCH),
        };
        Some(FileHits { path: path.to_path_buf(), modified, hits })
    }
}

/// The number of lines of `bytes` holding a match of `matcher` (which cannot match a line
/// break: not multi-line), as ripgrep's `-c` counts them; `None` if the matcher fails.
///
/// Only where a match ends is needed (the shortest match, found without the reverse scan that
/// locates its start): a match holds no line break, so it lies on the line holding its end,
/// counting a line break as part of the line it ends.
fn count_matching_lines(matcher: &RegexMatcher, bytes: &[u8]) -> Option<u64> {
    let mut count = 0;
    let mut at = 0;
    while at <= bytes.len() {
        let Some(end) = matcher.shortest_match_at(bytes, at).ok()? else { break };
        // An empty match at the very end of a file that is empty or ends in a line break is
        // not on a line.
        if end == bytes.len() && bytes.last().is_none_or(|last| *last == b'\n') {
            break;
        }
        count += 1;
        match memchr::memchr(b'\n', &bytes[end..]) {
            Some(offset) => at = end + offset + 1,
            None => break,
        }
    }
    Some(count)
}

/// [`looks_binary`] on a file's first bytes, quicker for text: without a NUL byte among them
/// only a leading signature can make them binary, and the longest signature is 16 bytes, so
/// [`SIGNATURE_BYTES`] of them are all that need a look (`memchr` finds the NUL much faster
/// than the byte-by-byte scan inside `looks_binary`).
fn is_binary(head: &[u8]) -> bool {
    let sample = &head[..head.len().min(SNIFF_BYTES)];
    match memchr::memchr(0, sample) {
        Some(_) => looks_binary(sample),
        None => looks_binary(&sample[..sample.len().min(SIGNATURE_BYTES)]),
    }
}

/// More than the longest binary signature `looks_binary` knows (with room to spare).
const SIGNATURE_BYTES: usize = 64;

/// Reads up to [`HEAD_BYTES`] from the start of `file` into `buf` (grown once, then reused).
/// Returns how many bytes were read and whether that is the whole file.
fn read_head(file: &mut File, buf: &mut Vec<u8>) -> io::Result<(usize, bool)> {
    if buf.len() < HEAD_BYTES {
        buf.resize(HEAD_BYTES, 0);
    }
    let mut filled = 0;
    while filled < HEAD_BYTES {
        match file.read(&mut buf[filled..HEAD_BYTES]) {
            Ok(0) => return Ok((filled, true)),
            Ok(read) => filled += read,
            Err(error) if error.kind() == io::ErrorKind::Interrupted => {}
            Err(error) => return Err(error),
        }
    }
    Ok((filled, false))
}

/// A reader that fails once the token fired, so a long file's search stops promptly even when
/// it finds nothing (the sink, which checks the token too, only hears of matches).
struct CancellableRead<'a, R> {
    inner: R,
    cancel: &'a CancellationToken,
}

impl<R: Read> Read for CancellableRead<'_, R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        if self.cancel.is_cancelled() {
            return Err(io::Error::other(Cancelled));
        }
        self.inner.read(buf)
    }
}

/// The text of a line without its terminator (`\n`, or `\r\n`).
fn strip_terminator(line: &[u8]) -> &[u8] {
    let line = line.strip_suffix(b"\n").unwrap_or(line);
    line.strip_suffix(b"\r").unwrap_or(line)
}

/// Whether `byte` starts a UTF-8 character (is not a continuation byte).
fn starts_char(byte: u8) -> bool {
    byte & 0xC0 != 0x80
}

/// Characters in `bytes` (UTF-8; each invalid byte counts as one).
fn char_count(bytes: &[u8]) -> usize {
    bytes.iter().filter(|byte| starts_char(**byte)).count()
}

/// The text of a line to show. A matching line longer than [`MAX_LINE_BYTES`] is cut to that
/// many bytes (fewer at character boundaries) around the match at byte range `span` — centred
/// when the match is shorter, from its start when not, from the line's start without a span; a
/// long context line is left out.
pub fn line_text(text: &[u8], span: Option<(usize, usize)>, is_match: bool) -> LineText {
    if text.len() <= MAX_LINE_BYTES {
        return LineText::Whole(text.to_vec());
    }
    if !is_match {
        return LineText::Omitted;
    }
    let (match_start, match_end) = span.map_or((0, 0), |(start, end)| {
        let start = start.min(text.len());
        (start, end.clamp(start, text.len()))
    });
    let spare = MAX_LINE_BYTES.saturating_sub(match_end - match_start);
    let mut start = match_start.saturating_sub(spare / 2);
    let mut end = (start + MAX_LINE_BYTES).min(text.len());
    start = start.min(end.saturating_sub(MAX_LINE_BYTES));
    while start < end && !starts_char(text[start]) {
        start += 1;
    }
    while end > start && end < text.len() && !starts_char(text[end]) {
        end -= 1;
    }
    LineText::Window {
        text: text[start..end].to_vec(),
        before: char_count(&text[..start]),
        after: char_count(&text[end..]),
    }
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
    /// Sink calls so far, to look at the cancellation token only every so often (looking takes
    /// a lock the other walker threads want too).
    calls: u32,
}

impl Collector<'_> {
    fn push(&mut self, entry: Entry) {
        if !matches!(entry, Entry::Break) {
            self.lines += 1;
        }
        self.entries.push(entry);
    }

    /// Whether to keep reading the file.
    fn keep_going(&mut self) -> bool {
        self.calls = self.calls.wrapping_add(1);
        if self.calls.is_multiple_of(64) && self.cancel.is_cancelled() {
            return false;
        }
        self.request.line_cap.is_none_or(|cap| self.lines < cap)
    }

    /// Where the first match touching the line at `bytes[line_start..line_start + len]` lies,
    /// relative to the line: a match starting on it, or one that began on an earlier line of a
    /// multi-line match (from the line's start). `None` when none is found.
    fn span_in(&self, bytes: &[u8], line_start: usize, len: usize) -> Option<(usize, usize)> {
        let line_end = line_start + len;
        let mut span = None;
        let _ = self.request.matcher.find_iter(bytes, |found| {
            if found.end() > line_start && found.start() < line_end && !found.is_empty() {
                let start = found.start().max(line_start) - line_start;
                span = Some((start, found.end().min(line_end) - line_start));
                return false;
            }
            found.start() < line_end
        });
        span
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
                        // A match spanning lines is shown one line at a time.
                        for (i, piece) in strip_terminator(text).split(|b| *b == b'\n').enumerate() {
                            let piece = strip_terminator(piece);
                            let span = (i == 0).then_some((0, piece.len()));
                            found.push(Entry::Match { line: line + i as u64, text: line_text(piece, span, true) });
                        }
                    });
                    for entry in found {
                        self.push(entry);
                    }
                } else {
                    let bytes = mat.bytes();
                    let mut line_start = 0;
                    for (i, line) in mat.lines().enumerate() {
                        let text = strip_terminator(line);
                        // Only a line too long to show whole needs to know where its match is.
                        let span = if text.len() > MAX_LINE_BYTES {
                            self.span_in(bytes, line_start, text.len())
                        } else {
                            None
                        };
                        line_start += line.len();
                        self.push(Entry::Match { line: first + i as u64, text: line_text(text, span, true) });
                    }
                }
            }
        }
        Ok(self.keep_going())
    }

    fn context(&mut self, _searcher: &Searcher, context: &SinkContext<'_>) -> Result<bool, io::Error> {
        if self.request.collect == Collect::Lines {
            let line = context.line_number().unwrap_or(1);
            self.push(Entry::Context { line, text: line_text(strip_terminator(context.bytes()), None, false) });
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

    /// What the searcher counts (the slow path, and the reference for the fast one).
    fn searcher_count(matcher: &RegexMatcher, bytes: &[u8]) -> u64 {
        let mut count = 0;
        let mut searcher = SearcherBuilder::new().line_terminator(LineTerminator::crlf()).build();
        searcher
            .search_slice(
                matcher,
                bytes,
                grep_searcher::sinks::Bytes(|_, _| {
                    count += 1;
                    Ok(true)
                }),
            )
            .unwrap();
        count
    }

    #[test]
    fn the_fast_line_count_agrees_with_the_searcher() {
        let texts: &[&[u8]] = &[
            b"",
            b"\n",
            b"a",
            b"a\n",
            b"a\nb\na\n",
            b"aa aa\naaa\n\n",
            b"x\r\ny\r\nx\r\n",
            b"no final newline a",
            b"\n\n\n",
            b"caf\xe9 a\n\x00a\n",
            b"a\n\nb",
            b"\r\n\r\n",
            b"xa\n\nax\n",
        ];
        for pattern in ["a", "^", "$", "^$", "a$", "^a", "a*", "x$", "\\w+", "(?i)A", "é|a", "a|$", "x?", "\\b"] {
            let matcher = compile(pattern, false, false).unwrap();
            for text in texts {
                assert_eq!(
                    count_matching_lines(&matcher, text),
                    Some(searcher_count(&matcher, text)),
                    "{pattern:?} in {:?}",
                    String::from_utf8_lossy(text)
                );
            }
        }
    }

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
    fn long_matching_lines_are_cut_around_the_match() {
        let mut line = "a".repeat(1200).into_bytes();
        line.extend_from_slice(b"NEEDLE");
        line.extend(std::iter::repeat_n(b'z', 3000));
        let LineText::Window { text, before, after } = line_text(&line, Some((1200, 1206)), true) else {
            panic!("expected a window")
        };
        assert_eq!(text.len(), MAX_LINE_BYTES);
        assert_eq!((before, after), (1200 - 247, 3000 - 247));
        assert_eq!(&text[247..253], b"NEEDLE");
        // Near the start or end the window leans on that edge.
        let LineText::Window { text, before, after } = line_text(&line, Some((3, 4)), true) else { panic!() };
        assert_eq!((text.len(), before, after), (500, 0, line.len() - 500));
        let end = line.len();
        let LineText::Window { before, after, .. } = line_text(&line, Some((end - 1, end)), true) else { panic!() };
        assert_eq!((before, after), (end - 500, 0));
        // A match longer than the window is shown from its start.
        let LineText::Window { text, before, .. } = line_text(&line, Some((100, 4000)), true) else { panic!() };
        assert_eq!((text.len(), before), (500, 100));
        // Short lines are whole; long context lines are left out.
        assert_eq!(line_text(b"short", None, true), LineText::Whole(b"short".to_vec()));
        assert_eq!(line_text(&line, None, false), LineText::Omitted);
        assert_eq!(line_text(&[b'x'; 500], None, false), LineText::Whole(vec![b'x'; 500]));
    }

    #[test]
    fn windows_cut_on_character_boundaries_and_count_characters() {
        let line = "é".repeat(600); // 1,200 bytes, 600 characters
        let LineText::Window { text, before, after } = line_text(line.as_bytes(), Some((600, 602)), true) else {
            panic!("expected a window")
        };
        let shown = std::str::from_utf8(&text).unwrap();
        assert_eq!(before + shown.chars().count() + after, 600);
        assert!(text.len() <= MAX_LINE_BYTES);
    }

    #[test]
    fn the_quick_binary_check_agrees_with_looks_binary() {
        let mut samples: Vec<Vec<u8>> = vec![
            b"fn main() {}\n".to_vec(),
            b"hello TOKEN here\x00more text\nsecond line TOKEN\n".to_vec(),
            b"\x7fELF\x02\x01\x01\x00\x00\x00\x00\x00".to_vec(),
            b"%PDF-1.7\n%\xe2\xe3\xcf\xd3\n1 0 obj".to_vec(),
            b"\x89PNG\r\n\x1a\nabc".to_vec(),
            b"SQLite format 3\x00rest".to_vec(),
            b"BZh91AY&SY".to_vec(),
            vec![0xFF, 0xFE, b'a', 0, b'b', 0],
            vec![0u8, 1, 2, 3, 0, 0, 200, 17, 0, 9],
            Vec::new(),
        ];
        let mut long = "text ".repeat(3000).into_bytes();
        samples.push(long.clone());
        long[9000] = 0; // past the sniffed part
        samples.push(long);
        for sample in samples {
            assert_eq!(is_binary(&sample), looks_binary(&sample[..sample.len().min(SNIFF_BYTES)]), "{sample:?}");
        }
    }

    #[test]
    fn terminators_are_stripped() {
        assert_eq!(strip_terminator(b"a\r\n"), b"a");
        assert_eq!(strip_terminator(b"a\n"), b"a");
        assert_eq!(strip_terminator(b"a"), b"a");
    }
}
