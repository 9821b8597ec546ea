//! Errors of the generator: every construct outside the hardware subset is refused with the
//! source location of the construct and a message naming it.

use p4_syntax::span::Span;

/// A construct the hardware target cannot build, located in the P4 source.
#[derive(Clone, Debug, PartialEq)]
pub struct RtlError {
    pub span: Span,
    pub message: String,
}

impl RtlError {
    pub fn new(span: Span, message: impl Into<String>) -> RtlError {
        RtlError { span, message: message.into() }
    }
    /// An error at no particular place (a property of the whole program).
    pub fn global(message: impl Into<String>) -> RtlError {
        RtlError { span: Span::DUMMY, message: message.into() }
    }
}

impl std::fmt::Display for RtlError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "outside the hardware subset: {}", self.message)
    }
}

impl std::error::Error for RtlError {}

pub type Result<T> = std::result::Result<T, RtlError>;

/// Shorthand for refusing a construct at `span`.
pub fn unsupported<T>(span: Span, what: impl Into<String>) -> Result<T> {
    Err(RtlError::new(span, what))
}
