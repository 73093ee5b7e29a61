//! Reading a PowerShell command line without a PowerShell parser, conservatively.
//!
//! - [`simple_command`] accepts only one command with literal arguments: plain ASCII, one line,
//!   bare words of letters, digits and `- _ . / \ : * ? ~ + = ^`, and single- or double-quoted
//!   strings with nothing to expand. Everything else — `;`, `|`, `&&`, `||`, `&`, a leading
//!   `.`, redirections, `$` (variables, `$(…)`), backticks, `( )`, `{ }`, `@`, `[ ]`, commas,
//!   comments, quotes inside a word, a quoted or expression-like command name, any non-ASCII
//!   character (PowerShell reads curly quotes and dashes as syntax) — makes it not simple, with
//!   the reason. Only a simple command can be allowed by a rule or be read-only.
//! - [`read_only_cmdlet`] is the allow-list of cmdlets that only read, and [`read_paths`] the
//!   paths such a command reads.
//! - [`rule_spellings`] are the forms deny and ask rules are matched against: every statement and
//!   every quoted or bracketed piece of the line, lower-cased, also with wrappers (`sudo`,
//!   `Start-Process`, `Invoke-Expression` …) skipped, aliases (`rm`, `del`, `ri` …) turned into
//!   their cmdlets and `/usr/bin/x` into `x` — over-matching rather than missing.
//! - [`write_targets`] are the paths a line may write or remove (the arguments of writing
//!   cmdlets and programs, and redirection targets), for the protected-path checks.

/// A word of a simple command.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Word {
    /// As written, quotes included.
    pub raw: String,
    /// As PowerShell passes it on: quotes removed, a doubled quote inside made single.
    pub value: String,
    /// Whether it was quoted.
    pub quoted: bool,
}

impl Word {
    /// A parameter name (`-Path`, `-Path:value`): starts with `-` and a letter, unquoted.
    pub fn is_parameter(&self) -> bool {
        !self.quoted
            && self.value.strip_prefix('-').is_some_and(|rest| rest.starts_with(|c: char| c.is_ascii_alphabetic()))
    }
}

/// Why a character outside quotes stops a line from being one simple command (words that follow
/// "it uses").
fn syntax_reason(byte: u8) -> &'static str {
    match byte {
        b';' => "`;` (more than one statement)",
        b'|' => "a pipeline (`|`)",
        b'&' => "`&` (the call operator, `&&` or a background job)",
        b'<' | b'>' => "a redirection",
        b'$' => "`$` (a variable or a `$(…)` subexpression)",
        b'`' => "a backtick (an escape or a line continuation)",
        b'(' | b')' => "parentheses (an expression)",
        b'{' | b'}' => "braces (a script block)",
        b'@' => "`@` (splatting, an array or a here-string)",
        b'[' | b']' => "brackets (a type or a wildcard range)",
        b',' => "a comma (an array argument)",
        b'#' => "`#` (a comment)",
        _ => "a character PowerShell may read as syntax",
    }
}

fn is_bare(byte: u8) -> bool {
    byte.is_ascii_alphanumeric() || b"-_./\\:*?~+=^".contains(&byte)
}

/// Reads `command` as one simple command (see the [module docs](self)): its words, or why it is
/// not one (words that follow "it uses").
pub fn simple_command(command: &str) -> Result<Vec<Word>, &'static str> {
    let line = command.trim_matches([' ', '\t']);
    if line.is_empty() {
        return Err("no command at all");
    }
    if !line.is_ascii() {
        return Err("characters other than plain ASCII (PowerShell reads some quotes and dashes as syntax)");
    }
    if line.bytes().any(|byte| byte == b'\n' || byte == b'\r') {
        return Err("more than one line");
    }
    if line.bytes().any(|byte| byte.is_ascii_control() && byte != b'\t') {
        return Err("a control character");
    }
    let bytes = line.as_bytes();
    let mut words: Vec<Word> = Vec::new();
    let mut at = 0;
    while at < bytes.len() {
        let byte = bytes[at];
        if byte == b' ' || byte == b'\t' {
            at += 1;
            continue;
        }
        let start = at;
        let word = if byte == b'\'' || byte == b'"' {
            let (value, end) = quoted(bytes, at)?;
            at = end;
            if bytes.get(at).is_some_and(|next| *next != b' ' && *next != b'\t') {
                return Err("a quote inside a word");
            }
            Word { raw: line[start..at].to_owned(), value, quoted: true }
        } else {
            while at < bytes.len() && is_bare(bytes[at]) {
                at += 1;
            }
            match bytes.get(at) {
                None | Some(b' ' | b'\t') => {}
                Some(b'\'' | b'"') => return Err("a quote inside a word"),
                Some(other) => return Err(syntax_reason(*other)),
            }
            Word { raw: line[start..at].to_owned(), value: line[start..at].to_owned(), quoted: false }
        };
        words.push(word);
    }
    let Some(name) = words.first() else { return Err("no command at all") };
    if name.quoted {
        return Err("a quoted command name (PowerShell reads it as a string, not a command)");
    }
    if name.value == "." {
        return Err("dot-sourcing (`.`)");
    }
    if !name.value.starts_with(|c: char| c.is_ascii_alphabetic() || "_./\\~".contains(c)) {
        return Err("a command name PowerShell may read as an expression");
    }
    Ok(words)
}

/// A quoted string starting at `start`: its value and the index after the closing quote. Inside
/// double quotes, `$` and backticks would expand, so they are refused.
fn quoted(bytes: &[u8], start: usize) -> Result<(String, usize), &'static str> {
    let quote = bytes[start];
    let mut value = Vec::new();
    let mut at = start + 1;
    loop {
        let Some(&byte) = bytes.get(at) else { return Err("an unterminated quote") };
        if byte == quote {
            if bytes.get(at + 1) == Some(&quote) {
                value.push(quote);
                at += 2;
                continue;
            }
            return Ok((String::from_utf8_lossy(&value).into_owned(), at + 1));
        }
        if quote == b'"' && (byte == b'$' || byte == b'`') {
            return Err(syntax_reason(byte));
        }
        value.push(byte);
        at += 1;
    }
}

/// The rule spelling of a simple command: its words as written, one space apart, the command
/// name lower-cased (PowerShell matches command names without regard to case, arguments are the
/// program's business).
pub fn allow_spelling(words: &[Word]) -> String {
    let mut spelled: Vec<String> = words.iter().map(|word| word.raw.clone()).collect();
    if let Some(name) = spelled.first_mut() {
        *name = name.to_ascii_lowercase();
    }
    spelled.join(" ")
}

/// Rule content for matching [`allow_spelling`]: the first word lower-cased (`Get-ChildItem:*`
/// → `get-childitem:*`).
pub fn allow_pattern(content: &str) -> String {
    let trimmed = content.trim_start();
    let end = trimmed.find(char::is_whitespace).unwrap_or(trimmed.len());
    format!("{}{}", trimmed[..end].to_ascii_lowercase(), &trimmed[end..])
}

/// A cmdlet that only reads, whatever its parameters.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Cmdlet {
    /// Its name, lower-case.
    pub name: &'static str,
    /// Aliases that name it in `pwsh` (lower-case), and that stay read-only where a native program
    /// of the same name runs instead (`dir`, `echo`, `pwd`). `ls`, `cat`, `write` and the like
    /// are left out: on Linux and macOS they run the native programs.
    pub aliases: &'static [&'static str],
    /// Whether its arguments are paths it reads (checked against the working directories and
    /// `Read(…)` rules).
    pub reads_paths: bool,
}

/// The cmdlets that only read (Claude Code's conservative read-only cmdlet check): listing,
/// reading, searching and testing files, and printing.
pub const READ_ONLY_CMDLETS: &[Cmdlet] = &[
    Cmdlet { name: "get-childitem", aliases: &["gci", "dir"], reads_paths: true },
    Cmdlet { name: "get-content", aliases: &["gc", "type"], reads_paths: true },
    Cmdlet { name: "get-item", aliases: &["gi"], reads_paths: true },
    Cmdlet { name: "test-path", aliases: &[], reads_paths: true },
    Cmdlet { name: "resolve-path", aliases: &["rvpa"], reads_paths: true },
    Cmdlet { name: "select-string", aliases: &["sls"], reads_paths: true },
    Cmdlet { name: "get-filehash", aliases: &[], reads_paths: true },
    Cmdlet { name: "get-location", aliases: &["gl", "pwd"], reads_paths: false },
    Cmdlet { name: "measure-object", aliases: &["measure"], reads_paths: false },
    Cmdlet { name: "get-command", aliases: &["gcm"], reads_paths: false },
    Cmdlet { name: "get-date", aliases: &[], reads_paths: false },
    // Not `write`: on Linux and macOS that is the program that writes to another user's terminal.
    Cmdlet { name: "write-output", aliases: &["echo"], reads_paths: false },
];

/// The read-only cmdlet a command name names, if any (case-insensitive).
pub fn read_only_cmdlet(name: &str) -> Option<&'static Cmdlet> {
    let name = name.to_ascii_lowercase();
    READ_ONLY_CMDLETS.iter().find(|cmdlet| cmdlet.name == name || cmdlet.aliases.contains(&name.as_str()))
}

/// Parameters of the reading cmdlets whose value is not a path (a name filter, a pattern, a
/// count …): the word after them is not checked as a path. Only full names: an abbreviated one
/// leaves its value checked as a path, which can only ask more.
const VALUE_PARAMETERS: &[&str] = &[
    "-filter",
    "-include",
    "-exclude",
    "-pattern",
    "-encoding",
    "-depth",
    "-context",
    "-totalcount",
    "-head",
    "-first",
    "-tail",
    "-last",
    "-readcount",
    "-delimiter",
    "-algorithm",
    "-attributes",
    "-culture",
    "-pathtype",
    "-newerthan",
    "-olderthan",
];

/// A path argument of a reading cmdlet.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ReadPath {
    /// A plain file-system path (`\` already turned into `/`, which PowerShell accepts on every
    /// platform).
    Plain(String),
    /// A path that can only be known when it runs: a wildcard (`*`, `?`), or a provider path
    /// (`Env:`, `Variable:`, `HKLM:` …) that does not name a file.
    Unknown(String),
}

/// The paths a read-only command reads (none for cmdlets that read no paths): every argument
/// but parameter names and the values of parameters that take no path (`-Filter`, `-Pattern`,
/// `-Encoding`, `-Tail` … by their full names). With none, it reads the working
/// directory only.
pub fn read_paths(cmdlet: &Cmdlet, words: &[Word]) -> Vec<ReadPath> {
    if !cmdlet.reads_paths {
        return Vec::new();
    }
    let mut paths = Vec::new();
    let mut skip_value = false;
    for word in words.iter().skip(1) {
        if skip_value {
            skip_value = false;
            continue;
        }
        let value = if word.is_parameter() {
            let (name, inline) = match word.value.split_once(':') {
                Some((name, value)) => (name, Some(value)),
                None => (word.value.as_str(), None),
            };
            let takes_value = VALUE_PARAMETERS.contains(&name.to_ascii_lowercase().as_str());
            match inline {
                Some(value) if !takes_value => value,
                Some(_) => continue,
                None => {
                    skip_value = takes_value;
                    continue;
                }
            }
        } else {
            word.value.as_str()
        };
        paths.push(read_path(value));
    }
    paths
}

fn read_path(value: &str) -> ReadPath {
    let path = value.replace('\\', "/");
    if path.contains(['*', '?', ':']) || path.is_empty() {
        ReadPath::Unknown(value.to_owned())
    } else {
        ReadPath::Plain(path)
    }
}

/// Whether `command` only reads: one simple command naming a read-only cmdlet, whose path
/// arguments (if it reads paths) are not provider paths. Without the working directory and the
/// rules this says nothing about *which* files it reads (see the permission check for that).
pub fn is_read_only(command: &str) -> bool {
    let Ok(words) = simple_command(command) else { return false };
    let Some(cmdlet) = words.first().and_then(|name| read_only_cmdlet(&name.value)) else { return false };
    read_paths(cmdlet, &words).iter().all(|path| match path {
        ReadPath::Plain(_) => true,
        ReadPath::Unknown(value) => !value.contains(':'),
    })
}

/// Aliases PowerShell defines, and other names of the same commands, with the cmdlet they run
/// (lower-case). Deny and ask rules naming the cmdlet also see these.
pub const ALIASES: &[(&str, &str)] = &[
    ("rm", "remove-item"),
    ("del", "remove-item"),
    ("erase", "remove-item"),
    ("rd", "remove-item"),
    ("ri", "remove-item"),
    ("rmdir", "remove-item"),
    ("mv", "move-item"),
    ("move", "move-item"),
    ("mi", "move-item"),
    ("cp", "copy-item"),
    ("copy", "copy-item"),
    ("cpi", "copy-item"),
    ("ren", "rename-item"),
    ("rni", "rename-item"),
    ("ni", "new-item"),
    ("md", "new-item"),
    ("mkdir", "new-item"),
    ("sc", "set-content"),
    ("ac", "add-content"),
    ("clc", "clear-content"),
    ("si", "set-item"),
    ("tee", "tee-object"),
    ("iex", "invoke-expression"),
    ("icm", "invoke-command"),
    ("saps", "start-process"),
    ("start", "start-process"),
    ("kill", "stop-process"),
    ("spps", "stop-process"),
    ("iwr", "invoke-webrequest"),
    ("curl", "invoke-webrequest"),
    ("wget", "invoke-webrequest"),
    ("irm", "invoke-restmethod"),
    ("cd", "set-location"),
    ("chdir", "set-location"),
    ("sl", "set-location"),
    ("gci", "get-childitem"),
    ("ls", "get-childitem"),
    ("dir", "get-childitem"),
    ("gc", "get-content"),
    ("cat", "get-content"),
    ("type", "get-content"),
    ("echo", "write-output"),
    ("write", "write-output"),
    ("sajb", "start-job"),
    ("%", "foreach-object"),
    ("foreach", "foreach-object"),
];

/// Words that run the command after them (or a command given to them): deny and ask rules also
/// see every later part of the statement as a command.
const WRAPPERS: &[&str] = &[
    ".",
    "sudo",
    "doas",
    "env",
    "nohup",
    "time",
    "timeout",
    "nice",
    "exec",
    "command",
    "xargs",
    "start-process",
    "invoke-expression",
    "invoke-command",
    "start-job",
    "start-threadjob",
    "foreach-object",
    "pwsh",
    "powershell",
    "cmd",
    "bash",
    "sh",
];

/// The command name as a rule sees it: lower-case, without a folder or `.exe`, an alias turned
/// into its cmdlet.
fn canonical(name: &str) -> String {
    let lower = name.to_ascii_lowercase();
    let base = lower.rsplit(['/', '\\']).next().unwrap_or(&lower);
    let base = base.strip_suffix(".exe").unwrap_or(base);
    ALIASES.iter().find(|(alias, _)| *alias == base).map_or(base, |(_, cmdlet)| cmdlet).to_owned()
}

/// Statements of a line, roughly: the pieces between `;`, `|`, `&`, line breaks, brackets and
/// braces (quotes are not respected: a piece of a quoted string is a piece too).
fn statements(command: &str) -> impl Iterator<Item = &str> {
    command.split([';', '|', '&', '\n', '\r', '(', ')', '{', '}']).filter(|piece| !piece.trim().is_empty())
}

/// The spellings deny and ask rules are matched against (see the [module docs](self)), all
/// lower-case with single spaces.
pub fn rule_spellings(command: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    let mut push = |spelling: String| {
        if !spelling.is_empty() && !out.contains(&spelling) {
            out.push(spelling);
        }
    };
    let lower = command.to_ascii_lowercase();
    push(lower.split_whitespace().collect::<Vec<_>>().join(" "));
    let pieces = statements(&lower)
        .chain(lower.split([';', '|', '&', '\n', '\r', '(', ')', '{', '}', '\'', '"', '`', '<', '>']))
        .filter(|piece| !piece.trim().is_empty())
        .take(1000);
    for piece in pieces {
        let tokens: Vec<&str> = piece.split_whitespace().collect();
        let mut wrapped = false;
        for start in 0..tokens.len() {
            if start > 0 && !wrapped {
                break;
            }
            let rest = &tokens[start..];
            push(rest.join(" "));
            if let Some((name, args)) = rest.split_first() {
                let canonical = canonical(name);
                push(std::iter::once(canonical.as_str()).chain(args.iter().copied()).collect::<Vec<_>>().join(" "));
                wrapped |= WRAPPERS.contains(&canonical.as_str());
            }
        }
    }
    out
}

/// Lower-cased rule content, for matching [`rule_spellings`].
pub fn rule_pattern(content: &str) -> String {
    content.to_ascii_lowercase()
}

/// Cmdlets and programs whose arguments are paths they write or remove (canonical names).
const WRITERS: &[&str] = &[
    "set-content",
    "add-content",
    "clear-content",
    "out-file",
    "new-item",
    "set-item",
    "copy-item",
    "move-item",
    "rename-item",
    "remove-item",
    "tee-object",
    "export-csv",
    "export-clixml",
    "touch",
    "ln",
    "chmod",
    "chown",
    "truncate",
];

/// Of [`WRITERS`], those that remove.
const REMOVERS: &[&str] = &["remove-item", "move-item"];

/// A path a line may write.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WriteTarget {
    /// The path as it would reach the file system (quotes removed, `\` turned into `/`).
    pub path: String,
    /// Whether the command removes it (or moves it away).
    pub removes: bool,
}

/// The paths a line may write (see the [module docs](self)): the arguments of writing cmdlets and
/// programs anywhere in it, and the targets of `>` and `>>`. Arguments that are only known when
/// it runs (`$x`, `$(…)`) or name another provider (`Env:x`) are left out.
pub fn write_targets(command: &str) -> Vec<WriteTarget> {
    let mut targets = Vec::new();
    let mut push = |raw: &str, removes: bool| {
        let value = raw.trim_matches(['\'', '"']);
        let unknowable = value.is_empty() || value.contains(['$', '(', '`', '@', '{', ':']);
        if !unknowable {
            targets.push(WriteTarget { path: value.replace('\\', "/"), removes });
        }
    };
    for statement in statements(command) {
        let mut tokens = statement.split_whitespace().peekable();
        // Wrappers (`sudo`, `Start-Process -FilePath`, `iex '…'`) and their options come first.
        let mut wrapped = false;
        while let Some(token) = tokens.peek() {
            let name = canonical(token.trim_matches(['\'', '"']));
            if WRAPPERS.contains(&name.as_str()) || (wrapped && token.starts_with('-')) {
                wrapped = true;
                tokens.next();
            } else {
                break;
            }
        }
        let Some(name) = tokens.next() else { continue };
        let name = canonical(name.trim_matches(['\'', '"']));
        if !WRITERS.contains(&name.as_str()) {
            continue;
        }
        let removes = REMOVERS.contains(&name.as_str());
        for token in tokens {
            match token.strip_prefix('-') {
                Some(parameter) => {
                    if let Some((_, value)) = parameter.split_once(':') {
                        push(value, removes);
                    }
                }
                None => push(token, removes),
            }
        }
    }
    let bytes = command.as_bytes();
    let mut at = 0;
    while let Some(found) = command.get(at..).and_then(|rest| rest.find('>')) {
        at += found;
        while bytes.get(at) == Some(&b'>') {
            at += 1;
        }
        if bytes.get(at) == Some(&b'&') {
            continue;
        }
        let rest = command.get(at..).unwrap_or_default().trim_start();
        let end = rest.find(|c: char| c.is_whitespace() || ";|&)}".contains(c)).unwrap_or(rest.len());
        push(&rest[..end], false);
    }
    targets
}

#[cfg(test)]
mod tests {
    use super::*;

    fn values(command: &str) -> Vec<String> {
        simple_command(command).unwrap().into_iter().map(|word| word.value).collect()
    }

    #[test]
    fn quotes_are_read_as_powershell_reads_them() {
        assert_eq!(values("Get-Content 'it''s here.txt'"), ["Get-Content", "it's here.txt"]);
        assert_eq!(values(r#"Write-Output "say ""hi""" plain"#), ["Write-Output", "say \"hi\"", "plain"]);
        assert_eq!(values("  git   status\t-s  "), ["git", "status", "-s"]);
        assert_eq!(simple_command("git log 'a'b"), Err("a quote inside a word"));
        assert_eq!(simple_command("git log a'b'"), Err("a quote inside a word"));
        assert_eq!(simple_command("echo 'open"), Err("an unterminated quote"));
    }

    #[test]
    fn allow_spellings_lower_case_only_the_command_name() {
        let words = simple_command("Get-ChildItem -Path 'My Docs'").unwrap();
        assert_eq!(allow_spelling(&words), "get-childitem -Path 'My Docs'");
        assert_eq!(allow_pattern("Get-ChildItem:*"), "get-childitem:*");
        assert_eq!(allow_pattern("NPM Test"), "npm Test");
    }

    #[test]
    fn rule_spellings_see_statements_quotes_wrappers_and_aliases() {
        let spellings = rule_spellings("Write-Output ok; Start-Process -FilePath rm -ArgumentList '-rf', '/'");
        for expected in ["rm -argumentlist", "write-output ok", "start-process -filepath rm -argumentlist"] {
            assert!(spellings.iter().any(|s| s.starts_with(expected)), "{expected}: {spellings:?}");
        }
        let aliased = rule_spellings("del C:\\x");
        assert!(aliased.contains(&"remove-item c:\\x".to_owned()), "{aliased:?}");
        let inner = rule_spellings("iex 'Remove-Item x'");
        assert!(inner.contains(&"remove-item x".to_owned()), "{inner:?}");
        let path = rule_spellings("/usr/bin/rm -rf x");
        assert!(path.contains(&"remove-item -rf x".to_owned()), "{path:?}");
        assert!(!rule_spellings("git commit -m done").iter().any(|s| s.starts_with("done")));
    }

    #[test]
    fn write_targets_come_from_writers_and_redirections() {
        let targets = write_targets("Set-Content -Path .git/config -Value x; rm '.\\build'; echo hi > out.txt 2>&1");
        let paths: Vec<(&str, bool)> = targets.iter().map(|t| (t.path.as_str(), t.removes)).collect();
        assert_eq!(paths, [(".git/config", false), ("x", false), ("./build", true), ("out.txt", false)], "{targets:?}");
        assert!(write_targets("Set-Content $p x").iter().all(|t| t.path == "x"));
        assert!(write_targets("Get-Content a > $null").is_empty());
        assert!(write_targets("Set-Content Env:X 1").iter().all(|t| t.path == "1"));
        let wrapped =
            write_targets("sudo rm -rf /; Start-Process -FilePath Remove-Item -ArgumentList x; iex 'ni .bashrc'");
        let paths: Vec<(&str, bool)> = wrapped.iter().map(|t| (t.path.as_str(), t.removes)).collect();
        assert_eq!(paths, [("/", true), ("x", true), (".bashrc", false)]);
    }
}
