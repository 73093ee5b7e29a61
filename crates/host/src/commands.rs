//! The user's slash commands beside the built-in ones: custom commands (`.claude/commands/
//! <name>.md`) and skills (`.claude/skills/<name>/SKILL.md`), from the folders the session's
//! Skill tool reads (the project's only in a trusted folder). A front end lists them
//! (`system/init`'s `slash_commands`) and expands `/name args` into the prompt the model gets,
//! as Claude Code does for a prompt that starts with `/`.

/// A user command: its name (without `/`) and description.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UserCommand {
    /// The name typed after `/`.
    pub name: String,
    /// What it does (its `description`, else its first line).
    pub description: String,
    /// The `argument-hint` of its frontmatter, when it gives one.
    pub argument_hint: String,
}

impl crate::Session {
    /// The session's custom commands and skills, skills first (a skill and a command of the
    /// same name: the skill), each folder's sorted by name. Empty without the Skill tool's
    /// folders (a build without the `skill` feature, a sub-agent's session).
    pub fn user_commands(&self) -> Vec<UserCommand> {
        #[cfg(feature = "skill")]
        if let Some(config) = self.tool_options().and_then(|tools| tools.get::<agent_tool_skill::SkillConfig>()) {
            let (skills, _) = agent_tool_skill::skills::discover(&config.dirs, &config.command_dirs);
            return skills
                .into_iter()
                .map(|skill| UserCommand {
                    argument_hint: skill
                        .frontmatter
                        .get("argument-hint")
                        .map(|hint| hint.to_text())
                        .unwrap_or_default(),
                    name: skill.name,
                    description: skill.description,
                })
                .collect();
        }
        Vec::new()
    }

    /// The prompt `/name args` stands for: the command's or skill's body with its arguments
    /// put in (`$ARGUMENTS`, `$1` …; see [`agent_tool_skill::skills::expand`]), headed by its
    /// folder for a skill. `None` when no such command exists.
    ///
    /// # Errors
    /// The command exists but its file cannot be read now.
    pub fn expand_user_command(&self, name: &str, args: &str) -> Option<Result<String, String>> {
        #[cfg(feature = "skill")]
        if let Some(config) = self.tool_options().and_then(|tools| tools.get::<agent_tool_skill::SkillConfig>()) {
            let (skills, _) = agent_tool_skill::skills::discover(&config.dirs, &config.command_dirs);
            let skill = skills.into_iter().find(|skill| skill.name == name)?;
            return Some(skill.read_body().map(|body| {
                let expanded = agent_tool_skill::skills::expand(&body, args, &skill.base_dir);
                if skill.path.ends_with(agent_tool_skill::skills::SKILL_FILE) {
                    format!("Base directory for this skill: {}\n\n{expanded}", skill.base_dir.display())
                } else {
                    expanded
                }
            }));
        }
        let _ = (name, args);
        None
    }
}
