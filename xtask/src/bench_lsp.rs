//! `bench lsp`: the LSP tool on real language servers (release build, in process, through a
//! `Session` like a model's calls), beside `Grep` for the same symbol.
//!
//! For each language (TypeScript on typescript-language-server, Python on pyright, from
//! `AGENT_TOOLS_LSP_BIN` or `.ci/lsp`: `npm install --prefix .ci/lsp`) a generated project of
//! `--files N` modules (default 500): module `i` imports `target` from the core module and calls
//! it when `i % 5 == 0` (so `target` has N/5 call sites) and calls module `i-1`'s function.
//! Then:
//! - **first answer**: a new session's first `goToDefinition` (the server's start and its
//!   loading of the project included), `--starts N` times (default 3), median and max;
//! - **warm**: `goToDefinition` and `findReferences` on `target`, `--runs N` times (default 20)
//!   in one session after a warm-up, p50 and max;
//! - **Grep**: `Grep` for `\btarget\(` with line numbers in the same session, p50 and max.
//!
//! Every answer is checked (the definition's place, the reference count), so a server that
//! answers wrong fails the benchmark instead of looking fast.

use std::path::Path;
use std::time::{Duration, Instant};

use agent_tools_core::PermissionMode;
use agent_tools_core::ToolUseBlock;
use agent_tools_host::session::WorkspaceTrust;
use agent_tools_host::{CallOptions, Environment, Session};
use anyhow::{Context as _, ensure};
use serde_json::{Value, json};

use crate::bench_run::{median, ms};

struct Options {
    files: usize,
    starts: usize,
    runs: usize,
    only: Option<String>,
}

fn options(args: &[String]) -> anyhow::Result<Options> {
    let mut options = Options { files: 500, starts: 3, runs: 20, only: None };
    let mut rest = args.iter();
    while let Some(arg) = rest.next() {
        let mut number = |name: &str| -> anyhow::Result<usize> {
            rest.next().and_then(|n| n.parse().ok()).with_context(|| format!("{name} N"))
        };
        match arg.as_str() {
            "--files" => options.files = number("--files")?,
            "--starts" => options.starts = number("--starts")?,
            "--runs" => options.runs = number("--runs")?,
            "--only" => options.only = rest.next().cloned(),
            _ => {}
        }
    }
    ensure!((10..=20_000).contains(&options.files), "--files must be 10 to 20000");
    ensure!(
        (1..=50).contains(&options.starts) && (1..=10_000).contains(&options.runs),
        "--starts 1-50, --runs 1-10000"
    );
    Ok(options)
}

/// One language's project and what its answers must be.
struct Language {
    title: &'static str,
    programs: &'static [&'static str],
    /// The module file name of module `i`, relative to the project root.
    module: fn(usize) -> String,
    /// The text of module `i` (`0` is the core module that defines `target`).
    text: fn(usize) -> String,
    /// Extra files (configuration).
    extra: &'static [(&'static str, &'static str)],
    /// Where `target` is called in module 5 (1-based line and character), and where it is
    /// defined in the core module.
    call_site: (u32, u32),
    definition: &'static str,
}

fn languages() -> Vec<Language> {
    vec![
        Language {
            title: "TypeScript (typescript-language-server)",
            programs: &["typescript-language-server", "tsserver", "node"],
            module: |i| if i == 0 { "src/core.ts".into() } else { format!("src/m{i}.ts") },
            text: |i| {
                match i {
                0 => "export function target(x: number): number {\n  return x + 1;\n}\n".into(),
                1 => "import { target } from \"./core\";\n\nexport function f1(x: number): number {\n  return x;\n}\n\nexport const unused1 = target;\n".into(),
                _ => {
                    let call = if i % 5 == 0 { "target(x)" } else { "x" };
                    format!(
                        "import {{ target }} from \"./core\";\nimport {{ f{p} }} from \"./m{p}\";\n\nexport function f{i}(x: number): number {{\n  return f{p}({call});\n}}\n\nexport const unused{i} = target;\n",
                        p = i - 1
                    )
                }
            }
            },
            extra: &[(
                "tsconfig.json",
                "{\"compilerOptions\": {\"strict\": true, \"noEmit\": true, \"target\": \"ES2022\", \"module\": \"commonjs\"}, \"include\": [\"src\"]}\n",
            )],
            call_site: (5, 15), // in `target(x)`
            definition: "Defined in src/core.ts:1:17",
        },
        Language {
            title: "Python (pyright)",
            programs: &["pyright-langserver", "node"],
            module: |i| if i == 0 { "pkg/core.py".into() } else { format!("pkg/m{i}.py") },
            text: |i| match i {
                0 => "def target(x: int) -> int:\n    return x + 1\n".into(),
                1 => "from pkg.core import target\n\n\ndef f1(x: int) -> int:\n    return x\n\n\nunused1 = target\n"
                    .into(),
                _ => {
                    let call = if i % 5 == 0 { "target(x)" } else { "x" };
                    format!(
                        "from pkg.core import target\nfrom pkg.m{p} import f{p}\n\n\ndef f{i}(x: int) -> int:\n    return f{p}({call})\n\n\nunused{i} = target\n",
                        p = i - 1
                    )
                }
            },
            extra: &[("pkg/__init__.py", ""), ("pyrightconfig.json", "{}\n")],
            call_site: (6, 19),
            definition: "Defined in pkg/core.py:1:5",
        },
    ]
}

pub(crate) fn run(args: &[String]) -> anyhow::Result<()> {
    let options = options(args)?;
    let runtime = tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build()?;
    println!(
        "LSP benchmark: {} modules per project, first answer x{}, warm calls x{} (release build, in process)\n",
        options.files, options.starts, options.runs
    );
    println!("{:<50} {:>12} {:>12}", "", "median/p50", "max");
    for language in languages() {
        if options.only.as_ref().is_some_and(|only| !language.title.contains(only.as_str())) {
            continue;
        }
        let Some(bin) = agent_tools_testkit::lsp_bin_dir(language.title, language.programs) else { continue };
        runtime.block_on(bench_language(&language, &bin, &options))?;
    }
    Ok(())
}

async fn bench_language(language: &Language, bin: &Path, options: &Options) -> anyhow::Result<()> {
    let project = tempfile::tempdir()?;
    let root = project.path().canonicalize()?;
    for i in 0..options.files {
        write(&root.join((language.module)(i)), &(language.text)(i))?;
    }
    for (path, text) in language.extra {
        write(&root.join(path), text)?;
    }
    let home = tempfile::tempdir()?;
    let caller = (language.module)(5);
    let (line, character) = language.call_site;
    let definition = json!({"operation": "goToDefinition", "filePath": caller, "line": line, "character": character});
    // Module 1 and every fifth module call or name `target`; each also names it once more.
    let calls = options.files.div_ceil(5) - 1;
    let expected_references = 1 + 2 * (options.files - 1) + calls;

    println!("{}", language.title);
    let mut firsts = Vec::new();
    for _ in 0..options.starts {
        let session = open(&root, bin, home.path()).await?;
        let start = Instant::now();
        let text = call(&session, "LSP", definition.clone()).await?;
        firsts.push(start.elapsed());
        ensure!(text == language.definition, "first goToDefinition answered {text:?}");
        session.shutdown().await;
    }
    row("  first goToDefinition (server start included)", &mut firsts);

    let session = open(&root, bin, home.path()).await?;
    call(&session, "LSP", definition.clone()).await?;
    let core = (language.module)(0);
    let references = json!({"operation": "findReferences", "filePath": core, "line": 1, "character": 5});
    let grep = json!({"pattern": r"\btarget\b", "output_mode": "content", "-n": true, "head_limit": 0});
    call(&session, "LSP", references.clone()).await?;
    let mut warm_definition = Vec::new();
    let mut warm_references = Vec::new();
    let mut greps = Vec::new();
    for _ in 0..options.runs {
        let start = Instant::now();
        let text = call(&session, "LSP", definition.clone()).await?;
        warm_definition.push(start.elapsed());
        ensure!(text == language.definition, "goToDefinition answered {text:?}");

        let start = Instant::now();
        let text = call(&session, "LSP", references.clone()).await?;
        warm_references.push(start.elapsed());
        let found = first_number(&text);
        ensure!(found == Some(expected_references), "findReferences found {found:?}, not {expected_references}");

        let start = Instant::now();
        let text = call(&session, "Grep", grep.clone()).await?;
        greps.push(start.elapsed());
        // Grep sees the same lines (text, not the symbol); so many that the result is saved to
        // a file and the model gets a preview, as in Claude Code.
        let lines = grep_lines(&text)?;
        ensure!(lines >= expected_references, "Grep found {lines} lines, fewer than {expected_references}");
    }
    session.shutdown().await;
    row("  warm goToDefinition", &mut warm_definition);
    row(&format!("  warm findReferences ({expected_references} references)"), &mut warm_references);
    row("  Grep for the same symbol (text matches)", &mut greps);
    println!();
    Ok(())
}

fn write(path: &Path, text: &str) -> anyhow::Result<()> {
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent)?;
    }
    std::fs::write(path, text)?;
    Ok(())
}

async fn open(root: &Path, bin: &Path, home: &Path) -> anyhow::Result<Session> {
    let env = Environment::empty()
        .with("HOME", home)
        .with("PATH", agent_tools_testkit::path_with(bin))
        .with("ENABLE_LSP_TOOL", "1");
    let session = Session::builder(root)
        .environment(env)
        .permission_mode(Some(PermissionMode::BypassPermissions))
        .workspace_trust(WorkspaceTrust::Trusted)
        .build()
        .await?;
    ensure!(session.pool().iter().any(|tool| tool.name() == "LSP"), "the session has no LSP tool");
    Ok(session)
}

/// One call through the session; its text, or an error when the result is one.
pub(crate) async fn call(session: &Session, name: &str, input: Value) -> anyhow::Result<String> {
    let block = ToolUseBlock { id: "toolu_bench".into(), name: name.into(), input };
    let done = session.call(&block, CallOptions::default()).await;
    let text = done.block.content.text();
    ensure!(!done.block.is_error, "{name} failed: {text}");
    Ok(text)
}

/// The lines of a Grep result, or of the file a large one was saved to.
fn grep_lines(text: &str) -> anyhow::Result<usize> {
    let saved = text.lines().find_map(|line| line.split_once("Full output saved to: ").map(|(_, path)| path));
    Ok(match saved {
        Some(path) => std::fs::read_to_string(path.trim())?.lines().count(),
        None => text.lines().count(),
    })
}

/// The count in "Found 123 references across …".
fn first_number(text: &str) -> Option<usize> {
    text.split_whitespace().find_map(|word| word.parse().ok())
}

fn row(title: &str, times: &mut [Duration]) {
    let p50 = median(times);
    let max = times.last().copied().unwrap_or_default();
    println!("{title:<50} {:>9.1} ms {:>9.1} ms", ms(p50), ms(max));
}
