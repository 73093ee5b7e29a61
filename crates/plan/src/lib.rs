//! # agent-tools-plan: plan mode's shared state
//!
//! What EnterPlanMode and ExitPlanMode (two tool crates that never depend on each other) and the
//! file permission checks share, as Claude Code's `utils/plans.ts` and `prepareContextForPlanMode`
//! provide it:
//!
//! - **The plan file.** Each session gets one random word slug (`quiet-folding-lantern`), kept in
//!   the context's app state and chosen so that no file of that name exists yet; the session's
//!   plan file is `<plans dir>/<slug>.md`, a sub-agent's `<plans dir>/<slug>-agent-<agent id>.md`
//!   ([`plan_file_path`]). The plans folder comes from [`ToolUseOptions::plans_dir`]
//!   (the CLI passes `~/.claude/plans` or the `plansDirectory` setting), see [`plans_dir`].
//!   [`current_plan_file`] answers without creating a slug: the permission checks use it so that
//!   only a plan file a plan tool has named is exempt from plan mode's refusal to write.
//! - **The mode switch.** [`enter_plan_mode`] sets the mode to `plan` and remembers the mode it
//!   replaced (Claude Code's `prePlanMode`; entering again while already planning keeps the
//!   first one); [`exit_plan_mode`] restores it, or `default` when none was remembered.
//!
//! ```
//! use agent_tools_core::{PermissionMode, ToolPermissionContext, ToolUseContext};
//! let dir = tempfile::tempdir().unwrap();
//! let mut ctx = ToolUseContext::new(dir.path());
//! ctx.options.plans_dir = Some(dir.path().join("plans"));
//! assert_eq!(agent_tools_plan::current_plan_file(&ctx), None); // no plan tool has named one yet
//! let plan = agent_tools_plan::plan_file_path(&ctx); // chooses the session's slug
//! assert_eq!(agent_tools_plan::current_plan_file(&ctx).as_ref(), Some(&plan));
//! assert_eq!(plan.parent(), Some(dir.path().join("plans").as_path()));
//! agent_tools_plan::write_plan(&plan, "# Plan\n").unwrap();
//! assert_eq!(agent_tools_plan::read_plan(&plan).as_deref(), Some("# Plan\n"));
//! let mut permissions = ToolPermissionContext { mode: PermissionMode::AcceptEdits, ..Default::default() };
//! agent_tools_plan::enter_plan_mode(&mut permissions);
//! assert_eq!(permissions.mode, PermissionMode::Plan);
//! assert_eq!(permissions.pre_plan_mode, Some(PermissionMode::AcceptEdits));
//! assert_eq!(agent_tools_plan::exit_plan_mode(&mut permissions), PermissionMode::AcceptEdits);
//! assert_eq!(permissions.mode, PermissionMode::AcceptEdits);
//! ```
//!
//! [`ToolUseOptions::plans_dir`]: agent_tools_core::ToolUseOptions::plans_dir

use std::hash::{BuildHasher, Hasher};
use std::path::{Path, PathBuf};

use agent_tools_core::ToolUseContext;
use agent_tools_core::{PermissionMode, ToolPermissionContext};

/// The plans folder under Claude Code's configuration folder (`~/.claude/plans`).
pub const DEFAULT_PLANS_SUBDIR: &str = ".claude/plans";

/// How many slugs are tried before one whose plan file already exists is used anyway (Claude
/// Code's limit).
const SLUG_ATTEMPTS: usize = 10;

/// The session's plan slug, once chosen (one per app state, like Claude Code's per-session slug).
#[derive(Debug, Default)]
struct PlanSlug(Option<String>);

/// The folder plan files live in: [`ToolUseOptions::plans_dir`] when set, else
/// `<home>/.claude/plans`, else `<session_dir>/plans`, else `agent-tools-plans` in the
/// temporary folder.
///
/// [`ToolUseOptions::plans_dir`]: agent_tools_core::ToolUseOptions::plans_dir
pub fn plans_dir(ctx: &ToolUseContext) -> PathBuf {
    if let Some(dir) = &ctx.options.plans_dir {
        return dir.clone();
    }
    if let Some(home) = &ctx.home_dir {
        return home.join(DEFAULT_PLANS_SUBDIR);
    }
    if let Some(session) = &ctx.options.session_dir {
        return session.join("plans");
    }
    std::env::temp_dir().join("agent-tools-plans")
}

/// The session's plan slug, choosing one (and remembering it in the app state) on first use.
pub fn plan_slug(ctx: &ToolUseContext) -> String {
    if let Some(slug) = current_slug(ctx) {
        return slug;
    }
    let dir = plans_dir(ctx);
    let mut slug = random_slug();
    for _ in 1..SLUG_ATTEMPTS {
        if !dir.join(format!("{slug}.md")).exists() {
            break;
        }
        slug = random_slug();
    }
    // Another call may have chosen one meanwhile: the first choice wins.
    ctx.app_state.with(|state| state.update(|stored: &mut PlanSlug| stored.0.get_or_insert(slug).clone()))
}

/// The session's plan slug, if a plan tool has chosen one.
pub fn current_slug(ctx: &ToolUseContext) -> Option<String> {
    ctx.app_state.with(|state| state.get::<PlanSlug>().and_then(|slug| slug.0.clone()))
}

/// The plan file's name for a slug and the caller: `<slug>.md`, or inside a sub-agent
/// `<slug>-agent-<agent id>.md` (characters outside `A-Z a-z 0-9 _ -` in the id become `_`).
fn file_name(slug: &str, agent_id: Option<&str>) -> String {
    match agent_id {
        None => format!("{slug}.md"),
        Some(id) => {
            let id: String =
                id.chars().map(|c| if c.is_ascii_alphanumeric() || matches!(c, '_' | '-') { c } else { '_' }).collect();
            format!("{slug}-agent-{id}.md")
        }
    }
}

/// The caller's plan file (the session's, or the sub-agent's when `ctx.agent_id` is set),
/// choosing the session's slug on first use (Claude Code's `getPlanFilePath`).
pub fn plan_file_path(ctx: &ToolUseContext) -> PathBuf {
    let slug = plan_slug(ctx);
    plans_dir(ctx).join(file_name(&slug, ctx.agent_id.as_deref()))
}

/// The caller's plan file if a plan tool already chose the session's slug; `None` before that.
/// Never chooses one.
pub fn current_plan_file(ctx: &ToolUseContext) -> Option<PathBuf> {
    current_slug(ctx).map(|slug| plans_dir(ctx).join(file_name(&slug, ctx.agent_id.as_deref())))
}

/// The plan in `path`: `None` when the file is missing, unreadable or holds only white space.
/// Bytes that are not UTF-8 are replaced (the plan is shown, never parsed).
pub fn read_plan(path: &Path) -> Option<String> {
    let bytes = std::fs::read(path).ok()?;
    let text = String::from_utf8_lossy(&bytes).into_owned();
    (!text.trim().is_empty()).then_some(text)
}

/// Writes `plan` to `path`, creating the folder first.
///
/// # Errors
/// The I/O error of creating the folder or writing the file.
pub fn write_plan(path: &Path, plan: &str) -> std::io::Result<()> {
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir)?;
    }
    std::fs::write(path, plan)
}

/// Switches `permissions` to plan mode, remembering the mode it leaves in `pre_plan_mode`.
/// Already in plan mode: nothing changes, so the mode remembered first is kept (Claude Code's
/// `prepareContextForPlanMode` followed by `setMode: plan`).
pub fn enter_plan_mode(permissions: &mut ToolPermissionContext) {
    if permissions.mode == PermissionMode::Plan {
        return;
    }
    permissions.pre_plan_mode = Some(permissions.mode);
    permissions.mode = PermissionMode::Plan;
}

/// Leaves plan mode: restores the remembered mode, or `default` when none was remembered, and
/// forgets it. Outside plan mode nothing changes (Claude Code's ExitPlanMode state update).
/// Returns the mode now in force.
pub fn exit_plan_mode(permissions: &mut ToolPermissionContext) -> PermissionMode {
    if permissions.mode == PermissionMode::Plan {
        permissions.mode = permissions.pre_plan_mode.take().unwrap_or_default();
    }
    permissions.mode
}

const ADJECTIVES: &[&str] = &[
    "amber", "bold", "bright", "calm", "cosy", "crisp", "dapper", "eager", "fancy", "gentle", "golden", "happy",
    "jolly", "keen", "lively", "lucky", "mellow", "merry", "nimble", "patient", "plucky", "quiet", "rosy", "serene",
    "snug", "sunny", "swift", "tidy", "velvet", "witty",
];

const GERUNDS: &[&str] = &[
    "baking",
    "bouncing",
    "building",
    "chasing",
    "climbing",
    "dancing",
    "drifting",
    "dreaming",
    "folding",
    "gliding",
    "humming",
    "juggling",
    "knitting",
    "leaping",
    "mapping",
    "painting",
    "pondering",
    "roaming",
    "sailing",
    "singing",
    "sketching",
    "skipping",
    "soaring",
    "spinning",
    "strolling",
    "tinkering",
    "twirling",
    "wandering",
    "weaving",
    "whistling",
];

const NOUNS: &[&str] = &[
    "acorn", "badger", "beacon", "biscuit", "canyon", "comet", "cedar", "dolphin", "ember", "falcon", "fern", "garnet",
    "harbor", "heron", "island", "lantern", "maple", "meadow", "nebula", "otter", "pebble", "quartz", "river", "robin",
    "summit", "teapot", "thistle", "walrus", "willow", "zephyr",
];

/// A fresh random slug of three words, `adjective-gerund-noun` (`quiet-folding-lantern`), in the
/// manner of Claude Code's plan slugs (our own word lists). Letters and `-` only.
pub fn random_slug() -> String {
    static COUNTER: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
    let mut hasher = std::collections::hash_map::RandomState::new().build_hasher();
    let nanos = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_nanos());
    hasher.write_u128(nanos);
    hasher.write_u32(std::process::id());
    hasher.write_u64(COUNTER.fetch_add(1, std::sync::atomic::Ordering::Relaxed));
    let bits = hasher.finish();
    let pick = |list: &[&'static str], shift: u32| {
        let index = usize::try_from((bits >> shift) % list.len() as u64).unwrap_or(0);
        list.get(index).copied().unwrap_or("plan")
    };
    format!("{}-{}-{}", pick(ADJECTIVES, 0), pick(GERUNDS, 16), pick(NOUNS, 32))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slugs_are_three_words_and_vary() {
        let slugs: std::collections::HashSet<String> = (0..30).map(|_| random_slug()).collect();
        assert!(slugs.len() > 1);
        for slug in &slugs {
            assert_eq!(slug.split('-').count(), 3, "{slug}");
            assert!(slug.chars().all(|c| c.is_ascii_lowercase() || c == '-'), "{slug}");
        }
    }

    #[test]
    fn the_plan_file_is_chosen_once_per_session_and_per_agent() {
        let dir = tempfile::tempdir().unwrap();
        let mut ctx = ToolUseContext::new(dir.path());
        ctx.options.plans_dir = Some(dir.path().join("plans"));
        assert_eq!(current_plan_file(&ctx), None, "nothing chosen yet");
        let path = plan_file_path(&ctx);
        assert_eq!(path.parent(), Some(dir.path().join("plans").as_path()));
        let copy = ctx.clone();
        assert_eq!(plan_file_path(&copy), path, "the same file for the whole session");
        assert_eq!(current_plan_file(&ctx), Some(path.clone()));
        let slug = current_slug(&ctx).unwrap();
        assert_eq!(path.file_name().unwrap().to_str().unwrap(), format!("{slug}.md"));
        let mut agent = copy;
        agent.agent_id = Some("a1/../x".into());
        assert_eq!(plan_file_path(&agent), dir.path().join("plans").join(format!("{slug}-agent-a1____x.md")));
    }

    #[test]
    fn the_plans_folder_falls_back_to_home_then_the_session_folder() {
        let mut ctx = ToolUseContext::new("/w");
        ctx.options.session_dir = Some(PathBuf::from("/state/s1"));
        assert_eq!(plans_dir(&ctx), Path::new("/state/s1/plans"));
        ctx.home_dir = Some(PathBuf::from("/home/me"));
        assert_eq!(plans_dir(&ctx), Path::new("/home/me/.claude/plans"));
        ctx.options.plans_dir = Some(PathBuf::from("/w/plans"));
        assert_eq!(plans_dir(&ctx), Path::new("/w/plans"));
    }

    #[test]
    fn plans_are_read_and_written_and_blank_is_none() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("deep/plans/p.md");
        assert_eq!(read_plan(&path), None);
        write_plan(&path, "  \n").unwrap();
        assert_eq!(read_plan(&path), None);
        write_plan(&path, "# Plan\n1. do it\n").unwrap();
        assert_eq!(read_plan(&path).as_deref(), Some("# Plan\n1. do it\n"));
    }

    #[test]
    fn entering_remembers_the_mode_and_exiting_restores_it() {
        let mut permissions = ToolPermissionContext { mode: PermissionMode::AcceptEdits, ..Default::default() };
        enter_plan_mode(&mut permissions);
        assert_eq!(
            (permissions.mode, permissions.pre_plan_mode),
            (PermissionMode::Plan, Some(PermissionMode::AcceptEdits))
        );
        enter_plan_mode(&mut permissions);
        assert_eq!(permissions.pre_plan_mode, Some(PermissionMode::AcceptEdits), "re-entering keeps the first mode");
        assert_eq!(exit_plan_mode(&mut permissions), PermissionMode::AcceptEdits);
        assert_eq!(permissions.pre_plan_mode, None);
        assert_eq!(exit_plan_mode(&mut permissions), PermissionMode::AcceptEdits, "outside plan mode: unchanged");
        let mut started_in_plan = ToolPermissionContext { mode: PermissionMode::Plan, ..Default::default() };
        assert_eq!(exit_plan_mode(&mut started_in_plan), PermissionMode::Default);
    }
}
