//! The sandbox, run for real with the machine's bubblewrap. `.ci/run` installs it and sets
//! `AGENT_TOOLS_REQUIRE_BWRAP=1`, so there a missing bwrap fails; elsewhere these tests print that
//! they were skipped (the unit tests cover the refusal).

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, clippy::print_stderr)]

use std::ffi::OsString;
use std::path::Path;
use std::process::{Command, Output};

use agent_tools_sandbox::{Bubblewrap, Policy};

fn bwrap() -> Option<Bubblewrap> {
    match Bubblewrap::find(std::env::var_os("PATH").as_deref()) {
        Ok(bwrap) => Some(bwrap),
        Err(why) => {
            assert!(
                std::env::var_os("AGENT_TOOLS_REQUIRE_BWRAP").is_none_or(|v| v != "1"),
                "bubblewrap is required: {why}"
            );
            eprintln!("skipped: {why}");
            None
        }
    }
}

fn run(bwrap: &Bubblewrap, policy: &Policy, script: &str) -> Output {
    let (program, args) = bwrap.wrap(policy, Path::new("/bin/sh"), &[OsString::from("-c"), script.into()]);
    Command::new(program).args(args).output().unwrap()
}

fn text(output: &Output) -> String {
    format!("{}{}", String::from_utf8_lossy(&output.stdout), String::from_utf8_lossy(&output.stderr))
}

#[test]
fn only_the_working_directory_and_the_writable_folders_can_be_written() {
    let Some(bwrap) = bwrap() else { return };
    // Siblings in one fresh folder, wherever the temporary folder or the clone is.
    let base = tempfile::tempdir().unwrap();
    let project = tempfile::tempdir_in(base.path()).unwrap();
    let scratch = tempfile::tempdir_in(base.path()).unwrap();
    let elsewhere = tempfile::tempdir_in(base.path()).unwrap();
    std::fs::write(elsewhere.path().join("keep.txt"), "original").unwrap();
    let policy = Policy::new(project.path()).writable([scratch.path()]);

    let ok = run(
        &bwrap,
        &policy,
        "echo made > here.txt && pwd -P && echo tmp > \"$1\"/x.txt"
            .replace("$1", &scratch.path().display().to_string())
            .as_str(),
    );
    assert!(ok.status.success(), "{}", text(&ok));
    assert_eq!(
        String::from_utf8_lossy(&ok.stdout).trim(),
        project.path().canonicalize().unwrap().display().to_string()
    );
    assert_eq!(std::fs::read_to_string(project.path().join("here.txt")).unwrap(), "made\n");
    assert_eq!(std::fs::read_to_string(scratch.path().join("x.txt")).unwrap(), "tmp\n");

    let outside = elsewhere.path().join("keep.txt");
    let refused = run(&bwrap, &policy, &format!("echo changed > {}", outside.display()));
    assert!(!refused.status.success());
    assert!(text(&refused).contains("Read-only file system"), "{}", text(&refused));
    assert_eq!(std::fs::read_to_string(&outside).unwrap(), "original", "the file outside is untouched");

    // Reading outside is fine.
    let read = run(&bwrap, &policy, &format!("cat {}", outside.display()));
    assert_eq!(String::from_utf8_lossy(&read.stdout), "original");
}

#[test]
fn there_is_no_network_not_even_the_hosts_loopback() {
    let Some(bwrap) = bwrap() else { return };
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    let project = tempfile::tempdir().unwrap();
    let probe = format!("exec 3<>/dev/tcp/127.0.0.1/{port} && echo connected || echo refused");
    let (program, args) =
        bwrap.wrap(&Policy::new(project.path()), Path::new("/bin/bash"), &[OsString::from("-c"), probe.clone().into()]);
    let inside = Command::new(program).args(args).output().unwrap();
    assert_eq!(String::from_utf8_lossy(&inside.stdout).trim(), "refused", "{}", text(&inside));
    // The same probe outside the sandbox connects, so the refusal is the sandbox's doing.
    let outside = Command::new("/bin/bash").args(["-c", &probe]).output().unwrap();
    assert_eq!(String::from_utf8_lossy(&outside.stdout).trim(), "connected");
}

#[test]
fn processes_outside_cannot_be_seen_or_signalled() {
    let Some(bwrap) = bwrap() else { return };
    let project = tempfile::tempdir().unwrap();
    let mut outside = Command::new("sleep").arg("30").spawn().unwrap();
    let pid = outside.id();
    let tried = run(
        &bwrap,
        &Policy::new(project.path()),
        &format!("kill -9 {pid} 2>/dev/null && echo killed || echo no-such-process; echo $$"),
    );
    let said = String::from_utf8_lossy(&tried.stdout);
    let lines: Vec<&str> = said.lines().collect();
    assert_eq!(lines[0], "no-such-process", "{}", text(&tried));
    assert!(lines[1].parse::<u32>().unwrap() < 10, "the shell has a low PID of its own namespace: {}", lines[1]);
    assert!(outside.try_wait().unwrap().is_none(), "the process outside survived");
    outside.kill().unwrap();
    outside.wait().unwrap();
}

#[test]
fn protected_paths_inside_the_project_stay_read_only() {
    let Some(bwrap) = bwrap() else { return };
    let project = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(project.path().join(".git/hooks")).unwrap();
    let policy = Policy::new(project.path()).read_only([project.path().join(".git/hooks")]);
    let tried = run(&bwrap, &policy, "echo evil > .git/hooks/pre-commit; echo fine > ok.txt");
    assert!(text(&tried).contains("Read-only file system"), "{}", text(&tried));
    assert!(!project.path().join(".git/hooks/pre-commit").exists());
    assert_eq!(std::fs::read_to_string(project.path().join("ok.txt")).unwrap(), "fine\n");
}
