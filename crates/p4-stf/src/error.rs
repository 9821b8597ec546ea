//! Errors located at a line of a command file.

use std::fmt;

/// A problem with one line of an STF or command file: its 1-based line number and what is wrong.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LineError {
    /// 1-based line number.
    pub line: usize,
    /// What is wrong, in the user's terms.
    pub message: String,
}

impl LineError {
    /// An error at `line`.
    pub fn new(line: usize, message: impl Into<String>) -> LineError {
        LineError { line, message: message.into() }
    }
}

impl fmt::Display for LineError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "line {}: {}", self.line, self.message)
    }
}

impl std::error::Error for LineError {}

/// Every malformed line of a file (parsing does not stop at the first one, so a user can fix them all
/// in one pass).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ParseErrors(pub Vec<LineError>);

impl ParseErrors {
    /// Renders each error as `<origin>:<line>: <message>`, one per line.
    pub fn render(&self, origin: &str) -> String {
        self.0.iter().map(|e| format!("{origin}:{}: {}\n", e.line, e.message)).collect()
    }
}

impl fmt::Display for ParseErrors {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let lines: Vec<String> = self.0.iter().map(ToString::to_string).collect();
        f.write_str(&lines.join("\n"))
    }
}

impl std::error::Error for ParseErrors {}

/// Splits a file into `(line number, content without comment)` for every non-blank line.
pub(crate) fn meaningful_lines(text: &str) -> impl Iterator<Item = (usize, &str)> {
    text.lines().enumerate().filter_map(|(i, raw)| meaningful(raw).map(|content| (i + 1, content)))
}

/// A line's content without its comment and surrounding blanks; `None` if nothing is left.
pub fn meaningful(raw: &str) -> Option<&str> {
    let content = raw.split_once('#').map_or(raw, |(before, _)| before).trim();
    (!content.is_empty()).then_some(content)
}
