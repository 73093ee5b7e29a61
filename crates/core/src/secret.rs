//! The one way a secret (an API key, an auth token) is shown: never. Config types that hold one
//! print it through [`Redacted`] in their `Debug` form, so a logged config or a failed assertion
//! cannot leak it.

use std::fmt;

/// A secret's printable stand-in: `<redacted>`, or `<none>` when the secret is empty (so a log
/// still tells a missing key from a set one). Both `Debug` and `Display` print it.
///
/// ```
/// use agent_tools_core::secret::Redacted;
/// assert_eq!(format!("{:?}", Redacted("sk-ant-123")), "<redacted>");
/// assert_eq!(Redacted("").to_string(), "<none>");
/// ```
#[derive(Clone, Copy)]
pub struct Redacted<'a>(pub &'a str);

impl fmt::Display for Redacted<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(if self.0.is_empty() { "<none>" } else { "<redacted>" })
    }
}

impl fmt::Debug for Redacted<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self, f)
    }
}
