//! Located diagnostics. Rendering follows the familiar compiler layout:
//!
//! ```text
//! error: undeclared name `foo`
//!  --> prog.p4:12:9
//!    |
//! 12 |     x = foo + 1;
//!    |         ^^^ not found in this scope
//! ```

use crate::span::{SourceMap, Span};
use std::fmt::Write;

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Severity {
    Warning,
    Error,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Diagnostic {
    pub severity: Severity,
    pub message: String,
    pub span: Span,
    /// Text printed under the caret.
    pub label: Option<String>,
    /// Extra lines (`= note: ...`), e.g. how to fix it.
    pub notes: Vec<String>,
}

impl Diagnostic {
    pub fn error(span: Span, message: impl Into<String>) -> Diagnostic {
        Diagnostic { severity: Severity::Error, message: message.into(), span, label: None, notes: vec![] }
    }
    pub fn warning(span: Span, message: impl Into<String>) -> Diagnostic {
        Diagnostic { severity: Severity::Warning, message: message.into(), span, label: None, notes: vec![] }
    }
    pub fn with_label(mut self, label: impl Into<String>) -> Diagnostic {
        self.label = Some(label.into());
        self
    }
    pub fn with_note(mut self, note: impl Into<String>) -> Diagnostic {
        self.notes.push(note.into());
        self
    }
    pub fn is_error(&self) -> bool {
        self.severity == Severity::Error
    }

    /// Render with file:line:col, the source line and a caret under the span.
    pub fn render(&self, sources: &SourceMap) -> String {
        let mut out = String::new();
        let kind = match self.severity {
            Severity::Error => "error",
            Severity::Warning => "warning",
        };
        let _ = writeln!(out, "{kind}: {}", self.message);
        if let Some(file) = (!self.span.is_dummy()).then(|| sources.get(self.span.file)).flatten() {
            let (line, col) = file.line_col(self.span.lo);
            let (end_line, end_col) = file.line_col(self.span.hi.max(self.span.lo));
            let gutter = line.to_string().len();
            let _ = writeln!(out, "{:gutter$}--> {}:{}:{}", "", file.path.display(), line, col);
            let _ = writeln!(out, "{:gutter$} |", "");
            let text = file.line_text(line);
            let _ = writeln!(out, "{line} | {text}");
            let width = if end_line == line { end_col.saturating_sub(col).max(1) } else { 1 };
            let pad: String = text.chars().take(col - 1).map(|c| if c == '\t' { '\t' } else { ' ' }).collect();
            let _ = write!(out, "{:gutter$} | {pad}{}", "", "^".repeat(width));
            if let Some(label) = &self.label {
                let _ = write!(out, " {label}");
            }
            out.push('\n');
        }
        for note in &self.notes {
            let _ = writeln!(out, "  = note: {note}");
        }
        out
    }
}

/// Render all diagnostics, errors and warnings in source order.
pub fn render_all(diags: &[Diagnostic], sources: &SourceMap) -> String {
    diags.iter().map(|d| d.render(sources)).collect::<Vec<_>>().join("\n")
}
