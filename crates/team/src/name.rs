//! Team and member names: the sanitiser that makes a name safe as a folder or file name, and
//! the random word slugs Claude Code falls back to when a team name is taken.

use crate::TeamError;

/// The longest name, in characters, after sanitising.
pub const MAX_NAME_CHARS: usize = 64;

/// A name made safe for the teams folder, as Claude Code's `sanitizeName` makes it: lowercase
/// ASCII letters, digits and `-`; every other character becomes `-` (`"My Team"` →
/// `"my-team"`, `"QA_bot"` → `"qa-bot"`).
///
/// Stricter than Claude Code, so nothing escapes the teams folder and no name means two
/// things: a name that is empty (after trimming), holds `/`, `\`, `..` or a control character,
/// has no letter or digit, or is longer than [`MAX_NAME_CHARS`] is refused.
///
/// # Errors
/// [`TeamError::InvalidName`], saying why, for the names above.
///
/// ```
/// use agent_tools_team::sanitize_name;
/// assert_eq!(sanitize_name("  My Team ").unwrap(), "my-team");
/// assert_eq!(sanitize_name("QA_bot.2").unwrap(), "qa-bot-2");
/// assert!(sanitize_name("../x").is_err());
/// assert!(sanitize_name("a/b").is_err());
/// assert!(sanitize_name("  ").is_err());
/// ```
pub fn sanitize_name(raw: &str) -> Result<String, TeamError> {
    let trimmed = raw.trim();
    let invalid = |why: &str| TeamError::InvalidName { name: raw.to_owned(), why: why.to_owned() };
    if trimmed.is_empty() {
        return Err(invalid("it is empty"));
    }
    if trimmed.contains(['/', '\\']) || trimmed.contains("..") {
        return Err(invalid("it must not contain '/', '\\' or '..'"));
    }
    if trimmed.chars().any(char::is_control) {
        return Err(invalid("it must not contain control characters"));
    }
    let name: String =
        trimmed.chars().map(|c| if c.is_ascii_alphanumeric() { c.to_ascii_lowercase() } else { '-' }).collect();
    if !name.chars().any(|c| c.is_ascii_alphanumeric()) {
        return Err(invalid("it needs at least one letter or digit"));
    }
    if name.chars().count() > MAX_NAME_CHARS {
        return Err(invalid(&format!("it is longer than {MAX_NAME_CHARS} characters")));
    }
    Ok(name)
}

const ADJECTIVES: &[&str] = &[
    "amber", "brave", "calm", "clever", "swift", "quiet", "bright", "bold", "eager", "gentle", "keen", "lively",
    "lucky", "merry", "nimble", "proud", "rapid", "sharp", "steady", "sunny", "tidy", "vivid", "wise", "witty",
];

const NOUNS: &[&str] = &[
    "badger", "falcon", "otter", "heron", "lynx", "marten", "osprey", "panda", "quail", "raven", "robin", "salmon",
    "tiger", "walrus", "wren", "yak", "beacon", "comet", "harbor", "meadow", "orchard", "ridge", "summit", "willow",
];

/// A random `adjective-noun-NN` slug (`"swift-otter-42"`), what a team is called when the name
/// asked for is taken (Claude Code's `generateWordSlug`). Always a valid [`sanitize_name`]
/// name.
pub fn word_slug() -> String {
    let bytes = *uuid::Uuid::new_v4().as_bytes();
    let adjective = ADJECTIVES[usize::from(bytes[0]) % ADJECTIVES.len()];
    let noun = NOUNS[usize::from(bytes[1]) % NOUNS.len()];
    format!("{adjective}-{noun}-{}", bytes[2] % 100)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_lowercased_and_other_characters_become_dashes() {
        assert_eq!(sanitize_name("Alpha Squad").ok().as_deref(), Some("alpha-squad"));
        assert_eq!(sanitize_name("team-lead").ok().as_deref(), Some("team-lead"));
        assert_eq!(sanitize_name(".hidden").ok().as_deref(), Some("-hidden"));
        assert_eq!(sanitize_name("Ünïcode").ok().as_deref(), Some("-n-code"));
    }

    #[test]
    fn names_that_could_escape_or_mean_nothing_are_refused() {
        for bad in ["", "   ", "../x", "x/..", "..", "a/b", "a\\b", "---", "__", "a\nb", "a\0b"] {
            let error = sanitize_name(bad).err().map(|error| error.to_string()).unwrap_or_default();
            assert!(error.starts_with("invalid name"), "{bad:?} was accepted ({error})");
        }
        let long = "a".repeat(MAX_NAME_CHARS + 1);
        assert!(sanitize_name(&long).is_err());
        assert!(sanitize_name(&long[1..]).is_ok());
    }

    #[test]
    fn slugs_are_valid_names() {
        for _ in 0..50 {
            let slug = word_slug();
            assert_eq!(sanitize_name(&slug).ok().as_deref(), Some(slug.as_str()));
            assert_eq!(slug.split('-').count(), 3, "{slug}");
        }
    }
}
