//! The error a pass reports: which pass, what, and where in the source when it is known.

use p4_ir::Span;
use std::fmt;

/// A pass could not lower the program. `span` points into the P4 source when the failure is tied to
/// a construct (the CLI renders it as file:line:col with a caret).
#[derive(Clone, Debug, PartialEq)]
pub struct PassError {
    /// The failing pass's [`crate::Pass::name`] (or the name a hook gave, e.g. `verify`).
    pub pass: String,
    pub message: String,
    pub span: Option<Span>,
}

impl PassError {
    pub fn new(pass: impl Into<String>, message: impl Into<String>) -> PassError {
        PassError { pass: pass.into(), message: message.into(), span: None }
    }
    /// Attaches a location (a dummy span counts as none).
    pub fn at(mut self, span: Span) -> PassError {
        if span != Span::DUMMY {
            self.span = Some(span);
        }
        self
    }
}

impl fmt::Display for PassError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "mid-end pass `{}`: {}", self.pass, self.message)
    }
}

impl std::error::Error for PassError {}
