//! A command line parsed with tree-sitter-bash into the simple commands it runs.
//!
//! The walk accepts only the node kinds it fully understands: the program, lists joined by `&&`,
//! `||`, `;`, `&` and line breaks, pipelines (`|`, `|&`), `!`, commands with leading `VAR=value`
//! assignments, plain words, quoted strings, `$VAR` / `${VAR}`, and file redirections. Anything
//! else — command or process substitution, subshells, groups, functions, control structures,
//! here-documents, ANSI-C quoting, brace expansion, a parse error, and commands that run their
//! arguments as shell code (`eval`, `bash -c`, `source` …) — makes the command *complex*: the
//! walk goes on only to collect every command it can find, so deny rules can still see them.
//!
//! Before parsing, two places where tree-sitter and bash read the same bytes differently are
//! ruled out: control characters other than tab and line feed (tree-sitter treats `\r` as a
//! space, bash does not), Unicode spaces, and a backslash-newline glued between two word
//! characters (bash joins `r\<newline>m` into `rm`, tree-sitter sees two words). So is a `{`
//! followed by a character above U+00FF, which tree-sitter-bash's scanner reads out of bounds
//! (`brace_scan_overreads`): such a command is complex, never a crash.

use std::cell::RefCell;

use tree_sitter::{Node, Parser, Tree};

use super::rules::{self, Unwrap};

/// Longest command the parser is given (bytes); longer ones are complex.
pub(crate) const MAX_COMMAND_BYTES: usize = 32 * 1024;

/// Deepest nesting the walk follows.
const MAX_DEPTH: usize = 100;

/// How deep `bash -c '…'` / `eval …` code is parsed again to find commands for deny rules.
const MAX_REPARSE: usize = 3;

thread_local! {
    static PARSER: RefCell<Option<Parser>> = RefCell::new(new_parser());
}

fn new_parser() -> Option<Parser> {
    let mut parser = Parser::new();
    parser.set_language(&tree_sitter_bash::LANGUAGE.into()).ok()?;
    Some(parser)
}

/// Parses with this thread's parser (a fresh one if it is busy or missing).
fn parse_tree(source: &str) -> Option<Tree> {
    let reused = PARSER
        .try_with(|cell| {
            let mut slot = cell.try_borrow_mut().ok()?;
            let parser = slot.as_mut()?;
            let tree = parser.parse(source, None);
            parser.reset();
            Some(tree)
        })
        .ok()
        .flatten();
    match reused {
        Some(tree) => tree,
        None => new_parser()?.parse(source, None),
    }
}

/// One word of a command, after quote removal.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub(crate) struct Word {
    /// The word as written (quotes and escapes included).
    pub raw: String,
    /// The word after quote removal; expansions kept as written (`$HOME`).
    pub value: String,
    /// Holds `$VAR` / `${VAR}`: the value is not known before running.
    pub variable: bool,
    /// Holds an unquoted `*`, `?` or `[`: bash may replace it with file names.
    pub glob: bool,
    /// Starts with an unquoted `~` (or has one after an unquoted `=` / `:`).
    pub tilde: bool,
    /// Holds something the walk does not understand (only in complex commands).
    pub dynamic: bool,
}

impl Word {
    /// Bash passes exactly [`Word::value`]: no expansion of any kind.
    pub fn is_literal(&self) -> bool {
        !self.variable && !self.glob && !self.tilde && !self.dynamic
    }
}

/// What a redirection does.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum RedirectOp {
    /// `>`, `>|`, `&>`, `>&file`: creates or truncates the target.
    Write,
    /// `>>`, `&>>`: appends to the target.
    Append,
    /// `<`: reads the target.
    Read,
    /// `2>&1`, `>&-`: duplicates or closes a descriptor; no file.
    Duplicate,
    /// `<<< word`: the word is the input.
    HereString,
}

/// One redirection of a command.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Redirect {
    /// What it does.
    pub op: RedirectOp,
    /// The file (or here-string) it names.
    pub target: Option<Word>,
}

/// A leading `NAME=value`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Assignment {
    /// The variable name.
    pub name: String,
    /// As written.
    pub raw: String,
}

/// One simple command: assignments, words, redirections.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub(crate) struct SimpleCommand {
    /// Leading `NAME=value` assignments.
    pub assignments: Vec<Assignment>,
    /// The command name and its arguments.
    pub words: Vec<Word>,
    /// Its redirections, in order.
    pub redirects: Vec<Redirect>,
    /// Found inside a construct the walk does not accept (a substitution, a subshell, `bash -c`).
    pub nested: bool,
    /// May run in a subshell of its own (in a pipeline, or sent to the background with `&`):
    /// a `cd` here may not move the commands after it.
    pub isolated: bool,
}

impl SimpleCommand {
    /// The command as written without its redirections: assignments and words joined by spaces.
    pub fn text(&self) -> String {
        let mut out = String::new();
        for piece in self.assignments.iter().map(|a| a.raw.as_str()).chain(self.words.iter().map(|w| w.raw.as_str())) {
            if !out.is_empty() {
                out.push(' ');
            }
            out.push_str(piece);
        }
        out
    }

    /// The command name after quote removal, if it has one.
    #[cfg(test)]
    pub fn name(&self) -> Option<&str> {
        self.words.first().map(|word| word.value.as_str())
    }
}

/// A parsed command line.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub(crate) struct ParsedCommand {
    /// Every simple command found. When [`ParsedCommand::complex`] is `None` these are exactly
    /// the commands bash runs, in order; otherwise they are the ones the walk could find (for
    /// deny rules only; a command inside another's words comes before it).
    pub commands: Vec<SimpleCommand>,
    /// Why the command cannot be checked part by part, if it cannot.
    pub complex: Option<&'static str>,
    /// Some of the code that would run could not be seen at all: a syntax error, a command too
    /// long or too deep, a computed command name, `eval "$x"` or `source file`.
    pub opaque: bool,
}

/// Commands that run their arguments (or a file) as shell code in the current shell, or change
/// how later words are read.
const EVALUATORS: &[&str] = &["eval", "source", ".", "alias", "shopt", "enable", "trap", "set", "fc", "watch"];

/// `set` arguments that only make a script stricter or louder.
pub(crate) const SAFE_SET_OPTIONS: &[&str] = &[
    "-e", "-u", "-x", "-v", "-eu", "-ue", "-ex", "-xe", "-eux", "-euo", "-eo", "-o", "+e", "+x", "+u", "pipefail",
    "errexit", "nounset", "xtrace",
];

/// Shells whose `-c` argument is shell code.
const SHELLS: &[&str] = &["bash", "sh", "zsh", "dash", "ksh", "mksh", "ash", "fish", "rbash", "yash", "csh", "tcsh"];

/// Commands whose `-c` / `--command` argument is shell code.
const COMMAND_FLAG_RUNNERS: &[&str] = &["su", "runuser", "script", "flock"];

/// Whether `words` (a command and its arguments) runs shell code, and the code when literal.
fn runs_code(words: &[Word]) -> Option<Option<String>> {
    let name = words.first()?;
    let base = name.value.rsplit('/').next().unwrap_or_default();
    let literal_code = |word: Option<&Word>| word.filter(|w| w.is_literal()).map(|w| w.value.clone());
    if base == "set" && words.iter().skip(1).all(|w| w.is_literal() && SAFE_SET_OPTIONS.contains(&w.value.as_str())) {
        return None;
    }
    if EVALUATORS.contains(&base) {
        let args = words.get(1..).unwrap_or_default();
        let known = args.iter().all(Word::is_literal);
        let code = args.iter().map(|w| w.value.as_str()).collect::<Vec<_>>().join(" ");
        return Some((known && base == "eval").then_some(code));
    }
    if SHELLS.contains(&base) {
        // `bash [options] -c CODE …`, also `-xc CODE`; `-o opt` and `--rcfile file` take a value.
        let mut index = 1;
        while let Some(word) = words.get(index) {
            let value = word.value.as_str();
            if !word.is_literal() {
                return Some(None);
            }
            if value == "--" || !value.starts_with(['-', '+']) {
                return None;
            }
            if value == "--rcfile" || value == "--init-file" {
                index += 2;
                continue;
            }
            if !value.starts_with("--") {
                if value.contains('c') {
                    return Some(literal_code(words.get(index + 1)));
                }
                if value.contains(['o', 'O']) {
                    index += 1;
                }
            }
            index += 1;
        }
        return None;
    }
    if COMMAND_FLAG_RUNNERS.contains(&base) {
        let at = words.iter().position(|w| matches!(w.value.as_str(), "-c" | "--command" | "--session-command"))?;
        return Some(literal_code(words.get(at + 1)));
    }
    None
}

/// Parses a command line (see the module docs).
pub(crate) fn parse_command(source: &str) -> ParsedCommand {
    parse_at_depth(source, 0)
}

fn parse_at_depth(source: &str, reparse: usize) -> ParsedCommand {
    let unreadable = |why| ParsedCommand { commands: Vec::new(), complex: Some(why), opaque: true };
    if let Some(why) = lexical_hazard(source) {
        return unreadable(why);
    }
    if source.len() > MAX_COMMAND_BYTES {
        return unreadable("a command too long to check");
    }
    let Some(tree) = parse_tree(source) else {
        return unreadable("a command the parser could not read");
    };
    let root = tree.root_node();
    let mut walker = Walker { src: source, commands: Vec::new(), complex: None, opaque: false, reparse, isolated: 0 };
    if root.has_error() {
        walker.mark("a syntax error");
        walker.opaque = true;
    }
    if skips_text(root, source) {
        walker.mark("text the parser skipped");
        walker.opaque = true;
    }
    walker.statement(root, 0, false);
    ParsedCommand { commands: walker.commands, complex: walker.complex, opaque: walker.opaque }
}

/// Byte sequences that bash and tree-sitter split differently, or that tree-sitter-bash cannot
/// read safely (see the module docs).
fn lexical_hazard(source: &str) -> Option<&'static str> {
    if source.chars().any(|c| (c.is_control() && c != '\n' && c != '\t') || (c.is_whitespace() && !c.is_ascii())) {
        return Some("control characters or unusual spaces");
    }
    if brace_scan_overreads(source) {
        return Some("a character after `{` that the parser cannot read");
    }
    let bytes = source.as_bytes();
    for (index, pair) in bytes.windows(2).enumerate() {
        if pair == b"\\\n" {
            let before = index.checked_sub(1).and_then(|i| bytes.get(i));
            let after = bytes.get(index + 2);
            let glued = |b: Option<&u8>| b.is_some_and(|b| !matches!(b, b' ' | b'\t' | b'\n'));
            if glued(before) && glued(after) {
                return Some("a line continuation inside a word");
            }
        }
    }
    None
}

/// Whether tree-sitter-bash 0.25's external scanner would read out of bounds on `source`.
///
/// Looking for a brace range (`{1..3}`), the scanner passes the character after `{`, and the one
/// after `{digits..`, to C's `isdigit` each time a run of digits ends; `isdigit` of a code point
/// above U+00FF reads past its table, which crashes the process (`echo {😀` did). Any `{` whose
/// run of `[0-9]*` (then `..` and `[0-9]*`) ends at such a character is refused before parsing.
fn brace_scan_overreads(source: &str) -> bool {
    let beyond_table = |c: Option<char>| c.is_some_and(|c| u32::from(c) > 0xFF);
    let mut rest = source;
    while let Some(at) = rest.find('{') {
        rest = &rest[at + 1..];
        let after_digits = rest.trim_start_matches(|c: char| c.is_ascii_digit());
        if beyond_table(after_digits.chars().next()) {
            return true;
        }
        if let Some(range) = after_digits.strip_prefix("..") {
            let end = range.trim_start_matches(|c: char| c.is_ascii_digit());
            if beyond_table(end.chars().next()) {
                return true;
            }
        }
    }
    false
}

/// Whether `at` is where bash may start a word: the start, or after an unescaped blank or an
/// operator character, line continuations skipped.
fn starts_a_word(source: &str, at: usize) -> bool {
    let mut before = source.get(..at).unwrap_or_default();
    while let Some(rest) = before.strip_suffix("\\\n") {
        before = rest;
    }
    match before.chars().last() {
        None => true,
        Some(' ' | '\t' | '\n') => {
            let blank_at = before.len() - 1;
            let backslashes = before[..blank_at].chars().rev().take_while(|c| *c == '\\').count();
            backslashes % 2 == 0
        }
        Some(c) => matches!(c, ';' | '&' | '|' | '(' | ')'),
    }
}

/// Whether tree-sitter read some bytes differently from bash: bytes that belong to no leaf and
/// are not blanks or line continuations between leaves (it drops a leading `\ ` of a word, which
/// bash keeps as a space), or a comment where bash sees the middle of a word.
fn skips_text(root: Node<'_>, source: &str) -> bool {
    let blank = |gap: &str| gap.replace("\\\n", "").chars().all(|c| matches!(c, ' ' | '\t' | '\n'));
    let mut cursor = root.walk();
    let mut covered = 0;
    loop {
        let node = cursor.node();
        if node.child_count() == 0 {
            let range = node.byte_range();
            if node.kind() == "comment" && !starts_a_word(source, range.start) {
                return true;
            }
            if range.start > covered && !source.get(covered..range.start).is_some_and(blank) {
                return true;
            }
            covered = covered.max(range.end);
        } else if cursor.goto_first_child() {
            continue;
        }
        while !cursor.goto_next_sibling() {
            if !cursor.goto_parent() {
                return source.get(covered..).is_none_or(|rest| !blank(rest));
            }
        }
    }
}

struct Walker<'s> {
    src: &'s str,
    commands: Vec<SimpleCommand>,
    complex: Option<&'static str>,
    opaque: bool,
    reparse: usize,
    /// Inside a pipeline or a background statement (a depth count).
    isolated: usize,
}

/// The children of a node with their field names, in order.
fn children<'t>(node: Node<'t>) -> Vec<(Option<&'t str>, Node<'t>)> {
    let mut out = Vec::new();
    let mut cursor = node.walk();
    if cursor.goto_first_child() {
        loop {
            out.push((cursor.field_name(), cursor.node()));
            if !cursor.goto_next_sibling() {
                break;
            }
        }
    }
    out
}

impl<'s> Walker<'s> {
    fn push(&mut self, mut command: SimpleCommand) {
        command.isolated |= self.isolated > 0;
        self.commands.push(command);
    }

    fn mark(&mut self, why: &'static str) {
        if self.complex.is_none() {
            self.complex = Some(why);
        }
    }

    fn text(&self, node: Node<'_>) -> &'s str {
        self.src.get(node.byte_range()).unwrap_or_default()
    }

    /// A statement position: the program, a list, a pipeline, or one command.
    fn statement(&mut self, node: Node<'_>, depth: usize, nested: bool) {
        if depth > MAX_DEPTH {
            self.mark("nesting too deep to check");
            self.opaque = true;
            return;
        }
        if node.is_error() || node.is_missing() {
            self.mark("a syntax error");
            self.extract(node, depth + 1);
            return;
        }
        match node.kind() {
            "program" | "list" | "pipeline" => {
                let parts = children(node);
                for (index, (_, child)) in parts.iter().enumerate() {
                    if child.is_named() {
                        let background = parts.get(index + 1).is_some_and(|(_, next)| next.kind() == "&");
                        let isolate = node.kind() == "pipeline" || background;
                        self.isolated += usize::from(isolate);
                        self.statement(*child, depth + 1, nested);
                        self.isolated -= usize::from(isolate);
                    } else if !matches!(child.kind(), "&&" | "||" | "|" | "|&" | ";" | "&") {
                        self.mark("an unsupported operator");
                    }
                }
            }
            "negated_command" => {
                for (_, child) in children(node) {
                    if child.is_named() {
                        self.statement(child, depth + 1, nested);
                    }
                }
            }
            "comment" => {}
            "test_command" if children(node).first().is_some_and(|(_, c)| c.kind() == "[") => {
                // `[ … ]` is the `test` builtin: its operands are words, never evaluated.
                let mut command = SimpleCommand { nested, ..SimpleCommand::default() };
                self.test_words(node, &mut command.words, depth + 1);
                self.push(command);
            }
            "command" => self.command(node, Vec::new(), Vec::new(), depth + 1, nested),
            "redirected_statement" => self.redirected(node, depth + 1, nested),
            "variable_assignment" => {
                let mut command = SimpleCommand { nested, ..SimpleCommand::default() };
                self.assignment(node, &mut command, depth + 1);
                self.push(command);
            }
            "variable_assignments" => {
                let mut command = SimpleCommand { nested, ..SimpleCommand::default() };
                for (_, child) in children(node) {
                    if child.kind() == "variable_assignment" {
                        self.assignment(child, &mut command, depth + 1);
                    }
                }
                self.push(command);
            }
            kind => {
                self.mark(construct_name(kind));
                self.extract(node, depth + 1);
            }
        }
    }

    /// The words of a `[ … ]` test, in order.
    fn test_words(&mut self, node: Node<'_>, out: &mut Vec<Word>, depth: usize) {
        if depth > MAX_DEPTH {
            self.mark("nesting too deep to check");
            self.opaque = true;
            return;
        }
        for (_, child) in children(node) {
            match child.kind() {
                "unary_expression" | "binary_expression" | "parenthesized_expression" => {
                    self.test_words(child, out, depth + 1);
                }
                "test_operator" => out.push(literal_word(self.text(child))),
                // tree-sitter reads the right side of `=` / `!=` as a pattern; to `[` it is a word.
                "extglob_pattern" => {
                    let mut builder = WordBuilder::default();
                    builder.push_unquoted_word(self.text(child));
                    let (word, brace) = builder.finish(self.text(child));
                    if brace || word.dynamic {
                        self.mark("an unsupported shell construct");
                    }
                    out.push(word);
                }
                _ if !child.is_named() => out.push(literal_word(self.text(child))),
                _ => out.push(self.word(child, depth + 1)),
            }
        }
    }

    /// `body > file`: the redirections belong to the command in the body.
    fn redirected(&mut self, node: Node<'_>, depth: usize, nested: bool) {
        let mut body = None;
        let mut redirect_nodes = Vec::new();
        for (field, child) in children(node) {
            match field {
                Some("body") => body = Some(child),
                _ if child.is_named() => redirect_nodes.push(child),
                _ => {}
            }
        }
        let mut redirects = Vec::new();
        let mut extra = Vec::new();
        for child in redirect_nodes {
            if let Some(redirect) = self.redirect(child, depth + 1, &mut extra) {
                redirects.push(redirect);
            }
        }
        match body {
            Some(body) if body.kind() == "command" => self.command(body, redirects, extra, depth + 1, nested),
            // tree-sitter hangs `a && b > f` and `a | b > f` on the whole list; in bash a
            // redirection binds tighter than `|`, `&&` and `;`: it is the last command's.
            Some(body) if matches!(body.kind(), "list" | "pipeline") => {
                let before = self.commands.len();
                self.statement(body, depth + 1, nested);
                match self.commands.get_mut(before..).and_then(<[SimpleCommand]>::last_mut) {
                    Some(last) => {
                        last.redirects.append(&mut redirects);
                        last.words.append(&mut extra);
                    }
                    None => self.mark("a redirection without a command"),
                }
            }
            Some(body) => {
                self.mark("a redirected group of commands");
                self.statement(body, depth + 1, true);
                self.push(SimpleCommand { words: extra, redirects, nested: true, ..SimpleCommand::default() });
            }
            // A redirection alone (`> file`) truncates or creates the file.
            None => self.push(SimpleCommand { words: extra, redirects, nested, ..SimpleCommand::default() }),
        }
    }

    fn command(
        &mut self,
        node: Node<'_>,
        mut redirects: Vec<Redirect>,
        mut extra: Vec<Word>,
        depth: usize,
        nested: bool,
    ) {
        if depth > MAX_DEPTH {
            self.mark("nesting too deep to check");
            self.opaque = true;
            return;
        }
        let mut command = SimpleCommand { nested, ..SimpleCommand::default() };
        let mut word_end = None;
        let mut child_end = None;
        for (field, child) in children(node) {
            // A line break between two parts of one command (not a `\` continuation) ends the
            // command in bash: tree-sitter joined two commands into one.
            if let Some(end) = child_end {
                let gap = self.src.get(end..child.start_byte()).unwrap_or_default();
                if gap.replace("\\\n", "").contains('\n') {
                    self.mark("commands the parser joined");
                    self.opaque = true;
                }
            }
            child_end = Some(child.end_byte());
            if matches!(field, Some("name" | "argument")) {
                // Two words with nothing but line continuations between them are one word to
                // bash.
                if let Some(end) = word_end {
                    let gap = self.src.get(end..child.start_byte()).unwrap_or_default();
                    if gap.replace("\\\n", "").is_empty() {
                        self.mark("words the parser split apart");
                    }
                }
                word_end = Some(child.end_byte());
            }
            match (field, child.kind()) {
                (Some("name"), _) => {
                    let word = self.command_name(child, depth + 1);
                    if !word.is_literal() {
                        self.mark("a command name that is computed when it runs");
                        self.opaque = true;
                    }
                    command.words.push(word);
                }
                (Some("argument"), _) => {
                    let word = self.word(child, depth + 1);
                    command.words.push(word);
                }
                (Some("redirect"), _) | (_, "herestring_redirect" | "file_redirect" | "heredoc_redirect") => {
                    let mut words_after = Vec::new();
                    if let Some(redirect) = self.redirect(child, depth + 1, &mut words_after) {
                        command.redirects.push(redirect);
                    }
                    command.words.append(&mut words_after);
                }
                (_, "variable_assignment") => self.assignment(child, &mut command, depth + 1),
                (_, "comment") => {}
                (_, kind) if child.is_named() => {
                    self.mark(construct_name(kind));
                    self.extract(child, depth + 1);
                }
                _ => {}
            }
        }
        command.redirects.append(&mut redirects);
        command.words.append(&mut extra);
        let code = self.evaluated_code(&command);
        self.push(command);
        if let Some(code) = code {
            self.mark("a command that runs its arguments as shell code");
            match code {
                Some(code) if self.reparse < MAX_REPARSE => {
                    // The code's own commands, for deny rules.
                    let inner = parse_at_depth(&code, self.reparse + 1);
                    self.opaque |= inner.opaque;
                    self.commands.extend(inner.commands.into_iter().map(|mut c| {
                        c.nested = true;
                        c
                    }));
                }
                _ => self.opaque = true,
            }
        }
    }

    /// `Some(code)` when the command runs shell code: the code when it is literal (`bash -c
    /// 'ls'`, `eval ls`), `None` inside when it is not known. Wrappers are seen through
    /// (`timeout 5 sh -c …`, `xargs sh -c …`), and so are the commands `find -exec` runs.
    fn evaluated_code(&self, command: &SimpleCommand) -> Option<Option<String>> {
        let words = &command.words;
        let mut heads: Vec<&[Word]> = Vec::new();
        for start in rules::layers(words, Unwrap::Everything) {
            heads.push(words.get(start..).unwrap_or_default());
        }
        heads.extend(rules::find_exec_commands(rules::strip_all_wrappers(words)));
        heads.into_iter().find_map(runs_code)
    }

    fn assignment(&mut self, node: Node<'_>, command: &mut SimpleCommand, depth: usize) {
        let mut name = String::new();
        for (field, child) in children(node) {
            match field {
                Some("name") => {
                    if child.kind() == "variable_name" {
                        name = self.text(child).to_owned();
                    } else {
                        // `a[$(cmd)]=x`: a subscript is evaluated.
                        self.mark("an array assignment");
                        self.extract(child, depth + 1);
                    }
                }
                Some("value") => {
                    if child.kind() == "array" {
                        self.mark("an array assignment");
                        self.extract(child, depth + 1);
                    } else {
                        let _ = self.word(child, depth + 1);
                    }
                }
                _ if child.is_named() => {
                    self.mark(construct_name(child.kind()));
                    self.extract(child, depth + 1);
                }
                _ => {}
            }
        }
        command.assignments.push(Assignment { name, raw: self.text(node).to_owned() });
    }

    fn command_name(&mut self, node: Node<'_>, depth: usize) -> Word {
        let named: Vec<Node<'_>> = children(node).into_iter().map(|(_, n)| n).filter(|n| n.is_named()).collect();
        match named.as_slice() {
            [only] => self.word(*only, depth + 1),
            _ => {
                self.mark("a command name that is computed when it runs");
                self.opaque = true;
                self.extract(node, depth + 1);
                Word {
                    raw: self.text(node).to_owned(),
                    value: self.text(node).to_owned(),
                    dynamic: true,
                    ..Word::default()
                }
            }
        }
    }

    /// One redirection. Words tree-sitter hangs on a redirection after its target (`> f x`) are
    /// the command's arguments in bash: they go to `extra` (and make the command complex).
    fn redirect(&mut self, node: Node<'_>, depth: usize, extra: &mut Vec<Word>) -> Option<Redirect> {
        match node.kind() {
            "file_redirect" => {
                let mut operator = "";
                let mut destination = None;
                for (field, child) in children(node) {
                    match field {
                        Some("destination") if destination.is_some() => {
                            self.mark("words after a redirection");
                            extra.push(self.word(child, depth + 1));
                        }
                        Some("destination") => destination = Some(child),
                        Some("descriptor") => {}
                        _ if !child.is_named() => operator = child.kind(),
                        _ => {
                            self.mark("an unsupported redirection");
                            self.extract(child, depth + 1);
                        }
                    }
                }
                let target = destination.map(|d| self.word(d, depth + 1));
                let is_descriptor = target
                    .as_ref()
                    .is_some_and(|t| t.is_literal() && (t.value == "-" || t.value.parse::<u32>().is_ok()));
                let op = match operator {
                    ">" | ">|" | "&>" => RedirectOp::Write,
                    ">>" | "&>>" => RedirectOp::Append,
                    "<" => RedirectOp::Read,
                    ">&" | "<&" if is_descriptor => RedirectOp::Duplicate,
                    ">&" => RedirectOp::Write,
                    "<&" => RedirectOp::Read,
                    "<&-" | ">&-" => RedirectOp::Duplicate,
                    _ => {
                        self.mark("an unsupported redirection");
                        RedirectOp::Write
                    }
                };
                Some(Redirect { op, target })
            }
            "herestring_redirect" => {
                let named: Vec<Node<'_>> =
                    children(node).into_iter().map(|(_, n)| n).filter(|n| n.is_named()).collect();
                let target = match named.as_slice() {
                    [only] => Some(self.word(*only, depth + 1)),
                    _ => {
                        self.mark("an unsupported redirection");
                        None
                    }
                };
                Some(Redirect { op: RedirectOp::HereString, target })
            }
            "heredoc_redirect" => {
                self.mark("a here-document");
                self.extract(node, depth + 1);
                None
            }
            kind => {
                self.mark(construct_name(kind));
                self.extract(node, depth + 1);
                None
            }
        }
    }

    /// One word in argument position.
    fn word(&mut self, node: Node<'_>, depth: usize) -> Word {
        let mut builder = WordBuilder::default();
        self.word_piece(node, &mut builder, depth);
        let joined = builder.joined;
        let (word, brace) = builder.finish(self.text(node));
        if joined {
            self.mark("words the parser joined");
            self.opaque = true;
        }
        if brace {
            self.mark("brace expansion");
        }
        if word.dynamic {
            self.mark("an unsupported shell construct");
        }
        word
    }

    fn word_piece(&mut self, node: Node<'_>, out: &mut WordBuilder, depth: usize) {
        if depth > MAX_DEPTH {
            self.mark("nesting too deep to check");
            self.opaque = true;
            out.dynamic = true;
            return;
        }
        let text = self.text(node);
        match node.kind() {
            "word" => out.push_unquoted_word(text),
            "number" if node.named_child_count() == 0 => out.push_unquoted_word(text),
            "raw_string" => {
                let inner = text.strip_prefix('\'').and_then(|t| t.strip_suffix('\''));
                match inner {
                    Some(inner) => out.push_quoted(inner),
                    None => {
                        self.mark("an unclosed quote");
                        out.dynamic = true;
                    }
                }
            }
            "string" => {
                // tree-sitter leaves line breaks inside the quotes out of every child: the text
                // between children is part of the string too.
                let mut at = node.start_byte();
                for (_, child) in children(node) {
                    let range = child.byte_range();
                    if range.start > at {
                        out.push_double_quoted(self.src.get(at..range.start).unwrap_or_default());
                    }
                    at = at.max(range.end);
                    match child.kind() {
                        "\"" => {}
                        "string_content" => out.push_double_quoted(self.text(child)),
                        "simple_expansion" | "expansion" => self.expansion(child, out, depth + 1, true),
                        kind => {
                            self.mark(construct_name(kind));
                            self.extract(child, depth + 1);
                            out.push_dynamic(self.text(child));
                        }
                    }
                }
            }
            "concatenation" => {
                for (_, child) in children(node) {
                    self.word_piece(child, out, depth + 1);
                }
            }
            "simple_expansion" | "expansion" => self.expansion(node, out, depth + 1, false),
            kind => {
                self.mark(construct_name(kind));
                self.extract(node, depth + 1);
                out.push_dynamic(text);
            }
        }
    }

    /// `$NAME`, `${NAME}` (plain variables); anything with operators is complex.
    fn expansion(&mut self, node: Node<'_>, out: &mut WordBuilder, depth: usize, quoted: bool) {
        let text = self.text(node);
        let parts = children(node);
        let plain = parts
            .iter()
            .all(|(_, child)| matches!(child.kind(), "$" | "${" | "}" | "variable_name" | "special_variable_name"))
            && parts.iter().filter(|(_, c)| c.is_named()).count() == 1;
        if plain {
            out.push_variable(text, quoted);
        } else {
            self.mark("a parameter expansion with operators");
            self.extract(node, depth + 1);
            out.push_dynamic(text);
        }
    }

    /// Collects every command below `node` (for deny rules in complex commands).
    fn extract(&mut self, node: Node<'_>, depth: usize) {
        if depth > MAX_DEPTH {
            self.mark("nesting too deep to check");
            self.opaque = true;
            return;
        }
        for (_, child) in children(node) {
            match child.kind() {
                "command" => self.command(child, Vec::new(), Vec::new(), depth + 1, true),
                "redirected_statement" => self.redirected(child, depth + 1, true),
                // `$(< file)` reads the file with no command at all: a redirection of its own.
                "file_redirect" if node.kind() == "command_substitution" => {
                    let mut extra = Vec::new();
                    if let Some(redirect) = self.redirect(child, depth + 1, &mut extra) {
                        self.push(SimpleCommand {
                            words: extra,
                            redirects: vec![redirect],
                            nested: true,
                            ..SimpleCommand::default()
                        });
                    }
                }
                _ => self.extract(child, depth + 1),
            }
        }
    }
}

fn literal_word(text: &str) -> Word {
    Word { raw: text.to_owned(), value: text.to_owned(), ..Word::default() }
}

/// What a node kind is called in messages.
fn construct_name(kind: &str) -> &'static str {
    match kind {
        "command_substitution" => "command substitution",
        "process_substitution" => "process substitution",
        "subshell" => "a subshell",
        "compound_statement" => "a command group",
        "function_definition" => "a function definition",
        "if_statement" | "for_statement" | "c_style_for_statement" | "while_statement" | "case_statement" => {
            "a control structure"
        }
        "heredoc_redirect" | "heredoc_body" => "a here-document",
        "ansi_c_string" => "ANSI-C quoting",
        "translated_string" => "a translated string",
        "$" => "a bare $",
        "arithmetic_expansion" => "arithmetic expansion",
        "test_command" => "a [[ … ]] test",
        "declaration_command" | "unset_command" => "a declaration",
        "ERROR" => "a syntax error",
        _ => "an unsupported shell construct",
    }
}

/// Builds a [`Word`] from its pieces, tracking which characters were quoted.
#[derive(Default)]
struct WordBuilder {
    /// Each character of the value and whether it was quoted.
    chars: Vec<(char, bool)>,
    variable: bool,
    dynamic: bool,
    /// Holds what bash would split into several words or commands.
    joined: bool,
}

impl WordBuilder {
    /// An unquoted word: backslash escapes one character.
    fn push_unquoted_word(&mut self, text: &str) {
        let mut iter = text.chars();
        while let Some(c) = iter.next() {
            if c == '\\' {
                match iter.next() {
                    Some('\n') => {}
                    Some(escaped) => self.chars.push((escaped, true)),
                    None => self.chars.push(('\\', true)),
                }
            } else {
                if c == '$' || c == '`' {
                    self.dynamic = true;
                }
                // An unescaped blank or operator inside one word leaf: bash ends the word here.
                if matches!(c, ' ' | '\t' | '\n' | ';' | '&' | '|' | '<' | '>' | '(' | ')') {
                    self.joined = true;
                }
                self.chars.push((c, false));
            }
        }
    }

    fn push_quoted(&mut self, text: &str) {
        self.chars.extend(text.chars().map(|c| (c, true)));
    }

    /// Inside double quotes a backslash escapes only `$`, `` ` ``, `"`, `\` and a line break.
    fn push_double_quoted(&mut self, text: &str) {
        let mut iter = text.chars().peekable();
        while let Some(c) = iter.next() {
            match (c, iter.peek().copied()) {
                ('\\', Some('$' | '`' | '"' | '\\')) => {
                    if let Some(escaped) = iter.next() {
                        self.chars.push((escaped, true));
                    }
                }
                ('\\', Some('\n')) => {
                    iter.next();
                }
                ('$' | '`', _) => {
                    self.dynamic = true;
                    self.chars.push((c, true));
                }
                _ => self.chars.push((c, true)),
            }
        }
    }

    fn push_variable(&mut self, text: &str, quoted: bool) {
        self.variable = true;
        self.chars.extend(text.chars().map(|c| (c, quoted || c != '$')));
    }

    fn push_dynamic(&mut self, text: &str) {
        self.dynamic = true;
        self.chars.extend(text.chars().map(|c| (c, true)));
    }

    /// The word, and whether it holds a brace expansion.
    fn finish(self, raw: &str) -> (Word, bool) {
        let value: String = self.chars.iter().map(|(c, _)| *c).collect();
        let unquoted = |index: usize, wanted: char| self.chars.get(index).is_some_and(|&(c, q)| c == wanted && !q);
        // `*`, `?`, or a `[` closed by a later `]` (a lone `[` is the test command).
        let glob = self.chars.iter().enumerate().any(|(index, &(c, quoted))| {
            !quoted
                && (matches!(c, '*' | '?')
                    || (c == '[' && self.chars.iter().skip(index + 1).any(|&(c, quoted)| c == ']' && !quoted)))
        });
        let tilde = unquoted(0, '~')
            || self
                .chars
                .windows(2)
                .any(|pair| matches!(pair, [(sep, false), ('~', false)] if *sep == '=' || *sep == ':'));
        let brace = has_brace_expansion(&self.chars);
        let word =
            Word { raw: raw.to_owned(), value, variable: self.variable, glob, tilde, dynamic: self.dynamic || brace };
        (word, brace)
    }
}

/// An unquoted `{` followed by an unquoted `,` or `..` and later an unquoted `}`: bash may expand
/// it into several words (bash's own matching is looser than balanced braces: `{},}` expands).
fn has_brace_expansion(chars: &[(char, bool)]) -> bool {
    let unquoted = |index: usize, wanted: char| chars.get(index).is_some_and(|&(c, q)| c == wanted && !q);
    let Some(open) = (0..chars.len()).find(|&i| unquoted(i, '{')) else { return false };
    let separator = (open + 1..chars.len()).find(|&i| unquoted(i, ',') || (unquoted(i, '.') && unquoted(i + 1, '.')));
    separator.is_some_and(|at| (at + 1..chars.len()).any(|i| unquoted(i, '}')))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn argv(command: &SimpleCommand) -> Vec<&str> {
        command.words.iter().map(|w| w.value.as_str()).collect()
    }

    fn simple(source: &str) -> Vec<Vec<String>> {
        let parsed = parse_command(source);
        assert_eq!(parsed.complex, None, "{source}");
        parsed.commands.iter().map(|c| argv(c).into_iter().map(str::to_owned).collect()).collect()
    }

    fn complex(source: &str) -> &'static str {
        parse_command(source).complex.unwrap_or("NOT COMPLEX")
    }

    #[test]
    fn lists_pipelines_and_separators_become_simple_commands_in_order() {
        assert_eq!(simple("git status; rm -rf ~"), [vec!["git", "status"], vec!["rm", "-rf", "~"]]);
        assert_eq!(
            simple("a && b || c | d |& e & f\ng"),
            ["a", "b", "c", "d", "e", "f", "g"].map(|c| vec![c.to_owned()])
        );
        assert_eq!(simple("! ls"), [vec!["ls"]]);
        assert_eq!(simple("ls # a comment; rm x"), [vec!["ls"]]);
        assert_eq!(simple("ls;"), [vec!["ls"]]);
        assert_eq!(simple("echo a \\\n  b"), [vec!["echo", "a", "b"]], "a continuation between words");
        assert_eq!(
            simple("[ -f \"a b\" ] && [ x != y ]"),
            [vec!["[", "-f", "a b", "]"], vec!["[", "x", "!=", "y", "]"]]
        );
    }

    #[test]
    fn quotes_and_escapes_are_removed_like_bash() {
        assert_eq!(
            simple(r#"echo "a b" 'c d' e\ f "x\"y" "\$z" 'a'"b"c"#),
            [vec!["echo", "a b", "c d", "e f", "x\"y", "$z", "abc"]]
        );
        assert_eq!(simple(r#""rm" -rf \rm r'm'"#), [vec!["rm", "-rf", "rm", "rm"]]);
        assert_eq!(simple("echo \"a && b\" 'c; d'"), [vec!["echo", "a && b", "c; d"]]);
    }

    #[test]
    fn word_flags_mark_what_bash_would_expand() {
        let parsed = parse_command("ls *.rs ~/x $HOME \"$HOME\" '*' a=~/b {} x@{1}");
        assert_eq!(parsed.complex, None);
        let words = &parsed.commands[0].words;
        let flags: Vec<(bool, bool, bool)> = words.iter().map(|w| (w.glob, w.tilde, w.variable)).collect();
        assert_eq!(
            flags,
            [
                (false, false, false),
                (true, false, false),
                (false, true, false),
                (false, false, true),
                (false, false, true),
                (false, false, false),
                (false, true, false),
                (false, false, false),
                (false, false, false),
            ]
        );
    }

    #[test]
    fn assignments_and_redirections_are_kept_apart() {
        let parsed = parse_command("FOO=1 BAR='x y' ls -la > out.txt 2>&1 < in.txt >> log");
        assert_eq!(parsed.complex, None);
        let command = &parsed.commands[0];
        assert_eq!(command.assignments.iter().map(|a| a.name.as_str()).collect::<Vec<_>>(), ["FOO", "BAR"]);
        assert_eq!(argv(command), ["ls", "-la"]);
        let redirects: Vec<(RedirectOp, Option<&str>)> =
            command.redirects.iter().map(|r| (r.op, r.target.as_ref().map(|t| t.value.as_str()))).collect();
        assert_eq!(
            redirects,
            [
                (RedirectOp::Write, Some("out.txt")),
                (RedirectOp::Duplicate, Some("1")),
                (RedirectOp::Read, Some("in.txt")),
                (RedirectOp::Append, Some("log")),
            ]
        );
        assert_eq!(command.text(), "FOO=1 BAR='x y' ls -la");
        // A redirection after a list or pipeline is the last command's.
        let list = parse_command("git status && echo x > out.txt");
        assert_eq!(list.complex, None);
        assert_eq!(list.commands[0].redirects, []);
        assert_eq!(list.commands[1].redirects[0].target.as_ref().map(|t| t.value.as_str()), Some("out.txt"));
        let mixed = parse_command("a && b 2>&1 | c > f");
        let ops: Vec<Vec<RedirectOp>> =
            mixed.commands.iter().map(|c| c.redirects.iter().map(|r| r.op).collect()).collect();
        assert_eq!(ops, [vec![], vec![RedirectOp::Duplicate], vec![RedirectOp::Write]]);
        assert_eq!(parse_command("{ ls; } > f").complex, Some("a redirected group of commands"));
        let alone = parse_command("> f");
        assert_eq!(alone.commands[0].words.len(), 0);
        assert_eq!(alone.commands[0].redirects[0].op, RedirectOp::Write);
    }

    #[test]
    fn constructs_that_hide_commands_are_complex_and_their_commands_still_found() {
        for (source, why) in [
            ("echo $(rm -rf /)", "command substitution"),
            ("echo `id`", "command substitution"),
            ("echo \"$(whoami)\"", "command substitution"),
            ("diff <(ls a) <(ls b)", "process substitution"),
            ("ls > >(tee x)", "process substitution"),
            ("(cd x && make)", "a subshell"),
            ("{ ls; }", "a command group"),
            ("f() { rm x; }", "a function definition"),
            ("for i in a; do rm $i; done", "a control structure"),
            ("if true; then rm x; fi", "a control structure"),
            ("cat <<EOF\nx\nEOF", "a here-document"),
            ("echo $'\\x72m'", "ANSI-C quoting"),
            ("echo $\"x\"", "a bare $"),
            ("echo ${x:-$(id)}", "a parameter expansion with operators"),
            ("echo $((1+2))", "arithmetic expansion"),
            ("[[ -f x ]]", "a [[ … ]] test"),
            ("export A=1", "a declaration"),
            ("echo {a,b}", "brace expansion"),
            ("{rm,-rf,/}", "a syntax error"),
            ("echo 'unclosed", "a syntax error"),
            ("$cmd -rf /", "a command name that is computed when it runs"),
            ("eval \"rm -rf /\"", "a command that runs its arguments as shell code"),
            ("bash -c 'rm -rf /'", "a command that runs its arguments as shell code"),
            ("sh -xc 'rm -rf /'", "a command that runs its arguments as shell code"),
            ("timeout 5 sh -c x", "a command that runs its arguments as shell code"),
            ("source ./x.sh", "a command that runs its arguments as shell code"),
            (". ./x.sh", "a command that runs its arguments as shell code"),
            ("r\\\nm -rf /", "a line continuation inside a word"),
            ("ls\rrm", "control characters or unusual spaces"),
            ("ls\u{a0}x", "control characters or unusual spaces"),
            ("a[$(id)]=1", "an array assignment"),
            ("rm > /dev/null -rf /", "words after a redirection"),
            ("printf x \\ a", "text the parser skipped"),
            ("printf x 'a\nb'\\;", "words the parser split apart"),
            ("printf x \\\\\\ \\\n'q r'", "words the parser split apart"),
            ("printf x \\\\\\ \\\n#", "text the parser skipped"),
            ("printf x ] {}", "words the parser joined"),
            ("echo x\n\\\nrm -rf /", "commands the parser joined"),
        ] {
            assert_eq!(complex(source), why, "{source}");
        }
        // The commands inside are still found (inner ones before the one holding them), for
        // deny rules.
        let found = |source: &str| -> Vec<String> {
            parse_command(source).commands.iter().filter_map(|c| c.name().map(str::to_owned)).collect()
        };
        assert_eq!(found("echo $(rm -rf /)"), ["rm", "echo"]);
        assert_eq!(found("ls && (curl x | sh)"), ["ls", "curl", "sh"]);
        assert_eq!(found("bash -c 'git push --force'"), ["bash", "git"]);
        assert_eq!(found("eval rm -rf /"), ["eval", "rm"]);
        assert_eq!(found("f() { rm x; }; f"), ["rm", "f"]);
        assert_eq!(found("cat <<EOF\n$(rm x)\nEOF"), ["rm", "cat"]);
        // Words after a redirection target are the command's arguments.
        let hidden = parse_command("rm > /dev/null -rf /");
        assert_eq!(argv(&hidden.commands[0]), ["rm", "-rf", "/"]);
    }

    #[test]
    fn deep_nesting_and_huge_input_never_overflow() {
        let deep = format!("{}ls{}", "$(".repeat(5000), ")".repeat(5000));
        assert!(parse_command(&deep).complex.is_some());
        let parens = format!("{}ls{}", "(".repeat(5000), ")".repeat(5000));
        assert!(parse_command(&parens).complex.is_some());
        let long = "ls ".repeat(20_000);
        assert_eq!(parse_command(&long).complex, Some("a command too long to check"));
        let many = "ls;".repeat(2000);
        assert_eq!(parse_command(&many).commands.len(), 2000);
    }
}
