//! The git commands on real repositories in temporary folders.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use agent_tools_testkit::{GitRepo, write};
use agent_tools_worktree::{Changes, CreateError, Git};

fn git(repo: &GitRepo) -> Git {
    Git { env: repo.env(), ..Git::default() }
}

#[tokio::test]
async fn the_root_is_the_main_worktree_from_anywhere_inside() {
    let repo = GitRepo::new();
    let git = git(&repo);
    std::fs::create_dir_all(repo.root.join("src/deep")).unwrap();
    assert_eq!(git.repo_root(&repo.root.join("src/deep")).await.unwrap(), repo.root);
    let made = git.create(&repo.root, "inner").await.unwrap();
    assert_eq!(git.repo_root(&made.path).await.unwrap(), repo.root, "from inside a linked worktree");
    let outside = tempfile::tempdir().unwrap();
    assert!(matches!(git.repo_root(outside.path()).await, Err(CreateError::NotARepository(_))));
}

#[tokio::test]
async fn create_adds_the_folder_and_branch_and_reuses_an_existing_one() {
    let repo = GitRepo::new();
    let git = git(&repo);
    let head = repo.git(&["rev-parse", "HEAD"]).trim().to_owned();
    let made = git.create(&repo.root, "feature/login").await.unwrap();
    assert_eq!(made.path, repo.root.join(".claude/worktrees/feature/login"));
    assert_eq!(made.branch, "worktree-feature-login");
    assert_eq!(made.base_commit, head);
    assert!(!made.existed);
    assert!(made.path.join("README.md").is_file());
    assert_eq!(repo.git_in(&made.path, &["rev-parse", "--abbrev-ref", "HEAD"]).trim(), "worktree-feature-login");

    let again = git.create(&repo.root, "feature/login").await.unwrap();
    assert!(again.existed);
    assert_eq!(again.path, made.path);

    std::fs::create_dir_all(repo.root.join(".claude/worktrees/plain")).unwrap();
    assert!(matches!(git.create(&repo.root, "plain").await, Err(CreateError::FolderInTheWay(_))));
}

#[tokio::test]
async fn a_repository_without_commits_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let repo = GitRepo::new();
    let git = git(&repo);
    let root = dir.path().canonicalize().unwrap();
    repo.git_in(&root, &["init", "-q"]);
    assert_eq!(git.create(&root, "x").await, Err(CreateError::NoCommits(root)));
}

#[tokio::test]
async fn changes_count_files_and_commits_then_removal_deletes_both() {
    let repo = GitRepo::new();
    let git = git(&repo);
    let made = git.create(&repo.root, "work").await.unwrap();
    assert_eq!(git.changes(&made.path, &made.base_commit, None).await.unwrap(), Changes { files: 0, commits: 0 });
    assert_eq!(repo.git(&["status", "--porcelain"]), "", "the main repository does not see the worktree");

    write(&made.path, "new.txt", "x\n");
    write(&made.path, "README.md", "changed\n");
    assert_eq!(git.changes(&made.path, &made.base_commit, None).await.unwrap(), Changes { files: 2, commits: 0 });
    repo.git_in(&made.path, &["commit", "-qam", "edit"]);
    assert_eq!(git.changes(&made.path, &made.base_commit, None).await.unwrap(), Changes { files: 1, commits: 1 });
    assert!(git.changes(&made.path, "not-a-sha", None).await.is_err());
    // Counted by branch: the commit only this branch holds, whatever the base.
    let branch = Some(made.branch.as_str());
    assert_eq!(git.changes(&made.path, "", branch).await.unwrap(), Changes { files: 1, commits: 1 });
    let head = git.head(&made.path).await.unwrap().unwrap();
    assert_eq!(git.changes(&made.path, &head, None).await.unwrap().commits, 0, "a base at HEAD sees nothing");
    assert_eq!(git.changes(&made.path, &head, branch).await.unwrap().commits, 1, "the branch still does");
    // Once another branch holds the commit, removing this one loses nothing.
    repo.git(&["branch", "keep-it", &made.branch]);
    assert_eq!(git.changes(&made.path, "", branch).await.unwrap().commits, 0);

    git.remove_worktree(&repo.root, &made.path).await.unwrap();
    git.delete_branch(&repo.root, &made.branch).await.unwrap();
    assert!(!made.path.exists());
    assert!(!repo.has_branch("worktree-work"));
    assert!(git.delete_branch(&repo.root, &made.branch).await.is_err(), "already gone");
}

#[tokio::test]
async fn two_names_for_one_branch_are_refused_clearly() {
    let repo = GitRepo::new();
    let git = git(&repo);
    git.create(&repo.root, "x/y").await.unwrap();
    let error = git.create(&repo.root, "x-y").await.unwrap_err();
    assert_eq!(error, CreateError::BranchTaken { branch: "worktree-x-y".into() });
    assert!(error.to_string().starts_with("the branch worktree-x-y already exists"), "{error}");
    assert!(!repo.root.join(".claude/worktrees/x-y").exists());
}

#[tokio::test]
async fn a_missing_git_program_is_a_spawn_error() {
    let repo = GitRepo::new();
    let git = Git { program: "/nonexistent/git".into(), ..Git::default() };
    let error = git.repo_root(&repo.root).await.unwrap_err();
    assert!(error.to_string().starts_with("could not run /nonexistent/git"), "{error}");
}

/// Runs the worktree session's git commands on a repository whose configuration names programs
/// (`GitRepo::arm_programs`); returns what ran.
async fn programs_run_by_a_worktree_session(trust_repository: bool) -> String {
    let repo = GitRepo::new();
    let log = repo.arm_programs();
    let git = Git { trust_repository, ..git(&repo) };
    git.repo_root(&repo.root).await.unwrap();
    let made = git.create(&repo.root, "spike").await.unwrap();
    write(&made.path, "notes.md", "new\n");
    assert_eq!(git.changes(&made.path, &made.base_commit, Some(&made.branch)).await.unwrap().files, 1);
    git.remove_worktree(&made.repo_root, &made.path).await.unwrap();
    git.delete_branch(&made.repo_root, &made.branch).await.unwrap();
    std::fs::read_to_string(log).unwrap_or_default()
}

#[tokio::test]
async fn an_untrusted_repositorys_configured_programs_never_run() {
    // Issue: git ran core.fsmonitor, hooks and filters of a folder nobody trusted.
    let ran = programs_run_by_a_worktree_session(false).await;
    assert_eq!(ran, "", "programs ran in an untrusted repository");
    // The same repository, trusted: its hooks and filters are the user's to run (so the test
    // above can fail).
    let ran = programs_run_by_a_worktree_session(true).await;
    for program in ["hook-post-checkout", "hook-reference-transaction", "smudge", "included-smudge"] {
        assert!(ran.lines().any(|line| line == program), "{program} did not run in a trusted repository: {ran}");
    }
}

#[tokio::test]
async fn a_setting_git_cannot_override_stops_an_untrusted_call() {
    let repo = GitRepo::new();
    repo.git(&["config", "filter.a=b.smudge", "cat"]);
    let guarded = git(&repo);
    let error = guarded.repo_root(&repo.root).await.unwrap_err();
    assert!(error.to_string().contains("filter.a=b.smudge"), "{error}");
    let trusted = Git { trust_repository: true, ..git(&repo) };
    assert_eq!(trusted.repo_root(&repo.root).await.unwrap(), repo.root);
}
