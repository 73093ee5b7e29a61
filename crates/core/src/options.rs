//! Each tool crate's own options, carried to it by the host without the host knowing their
//! shapes.
//!
//! A tool that can be configured defines its options type in its own crate (Glob's
//! `GlobConfig`, Skill's `SkillConfig` …) and reads it back with [`ToolOptions::get`] when the
//! host builds the pool. The host keeps one [`ToolOptions`] per session and never grows a field
//! per tool: zed hands each tool its own settings the same way, and Claude Code reads each tool's
//! environment variables inside the tool.
//!
//! ```
//! use agent_tools_core::ToolOptions;
//!
//! #[derive(Debug, Clone, PartialEq, Default)]
//! struct GreeterOptions { greeting: String }
//!
//! let mut options = ToolOptions::new();
//! assert_eq!(options.get::<GreeterOptions>(), None);
//! options.insert(GreeterOptions { greeting: "hi".into() });
//! assert_eq!(options.get::<GreeterOptions>().map(|o| o.greeting.as_str()), Some("hi"));
//! // One value per type: a second insert replaces the first.
//! options.insert(GreeterOptions { greeting: "hello".into() });
//! assert_eq!(options.get_or_default::<GreeterOptions>().greeting, "hello");
//! assert!(format!("{options:?}").contains("GreeterOptions"));
//! ```

use std::any::{Any, TypeId};
use std::collections::HashMap;
use std::fmt;
use std::sync::Arc;

/// One value per options type: a type map from an options struct to its value.
///
/// Cloning is cheap (values are shared). `Debug` prints the types held, never their values (an
/// options value may hold a token).
#[derive(Clone, Default)]
pub struct ToolOptions {
    values: HashMap<TypeId, Entry>,
}

#[derive(Clone)]
struct Entry {
    type_name: &'static str,
    value: Arc<dyn Any + Send + Sync>,
}

impl ToolOptions {
    /// No options: every tool builds with its defaults.
    pub fn new() -> Self {
        Self::default()
    }

    /// Sets the options of type `T`, replacing any held before.
    pub fn insert<T: Any + Send + Sync>(&mut self, value: T) {
        let entry = Entry { type_name: std::any::type_name::<T>(), value: Arc::new(value) };
        self.values.insert(TypeId::of::<T>(), entry);
    }

    /// These options with `value` set (the builder form of [`Self::insert`]).
    #[must_use]
    pub fn with<T: Any + Send + Sync>(mut self, value: T) -> Self {
        self.insert(value);
        self
    }

    /// The options of type `T`, when some were set.
    pub fn get<T: Any + Send + Sync>(&self) -> Option<&T> {
        self.values.get(&TypeId::of::<T>()).and_then(|entry| entry.value.downcast_ref())
    }

    /// The options of type `T`, or `T`'s defaults when none were set.
    pub fn get_or_default<T: Any + Send + Sync + Clone + Default>(&self) -> T {
        self.get::<T>().cloned().unwrap_or_default()
    }

    /// Changes the options of type `T` in place, starting from its defaults when none were set.
    pub fn update<T: Any + Send + Sync + Clone + Default>(&mut self, change: impl FnOnce(&mut T)) {
        let mut value = self.get_or_default::<T>();
        change(&mut value);
        self.insert(value);
    }
}

impl fmt::Debug for ToolOptions {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut names: Vec<&str> = self.values.values().map(|entry| entry.type_name).collect();
        names.sort_unstable();
        f.debug_set().entries(names).finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Debug, Clone, Default, PartialEq)]
    struct Dirs(Vec<String>);

    #[test]
    fn update_starts_from_the_default_and_keeps_other_types() {
        let mut options = ToolOptions::new().with(7_u32);
        options.update::<Dirs>(|dirs| dirs.0.push("a".into()));
        options.update::<Dirs>(|dirs| dirs.0.push("b".into()));
        assert_eq!(options.get::<Dirs>(), Some(&Dirs(vec!["a".into(), "b".into()])));
        assert_eq!(options.get::<u32>(), Some(&7));
        let copy = options.clone();
        options.insert(8_u32);
        assert_eq!(copy.get::<u32>(), Some(&7), "a clone keeps its own values");
    }
}
