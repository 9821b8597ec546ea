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
            let _ = writeln!(out, "{line} | {}", escape_line(text));
            // The caret runs under the escaped text: a control character shown as `\x1b` is four
            // columns wide, so both the padding and the caret count escaped widths.
            let spanned = if end_line == line { end_col.saturating_sub(col) } else { 0 };
            let width = text.chars().skip(col - 1).take(spanned).map(|c| shown(c).map_or(1, |e| e.len())).sum::<usize>().max(1);
            let pad: String = text
                .chars()
                .take(col - 1)
                .map(|c| match shown(c) {
                    Some(e) => " ".repeat(e.len()),
                    None if c == '\t' => "\t".to_string(),
                    None => " ".to_string(),
                })
                .collect();
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

/// How a character of a source line is shown in a diagnostic when it cannot be printed as itself:
/// control characters other than tab (NUL, BEL, ESC, a CR inside a line, DEL, the C1 range) as
/// `\xNN`, and the Unicode bidirectional controls, which would reorder the printed line, as
/// `\u{NNNN}`. `None` for characters printed as they are.
fn shown(c: char) -> Option<String> {
    match c {
        '\t' => None,
        c if (c as u32) < 0x20 || (0x7f..=0x9f).contains(&(c as u32)) => Some(format!("\\x{:02x}", c as u32)),
        '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}' | '\u{200e}' | '\u{200f}' | '\u{061c}' => Some(format!("\\u{{{:04x}}}", c as u32)),
        _ => None,
    }
}

/// A source line with every character that [`shown`] escapes replaced by its escape, so the
/// terminal neither interprets it (ESC sequences, a CR that returns to column 0, a BEL) nor hides it.
pub fn escape_line(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match shown(c) {
            Some(e) => out.push_str(&e),
            None => out.push(c),
        }
    }
    out
}

/// Render all diagnostics, errors and warnings in source order.
pub fn render_all(diags: &[Diagnostic], sources: &SourceMap) -> String {
    diags.iter().map(|d| d.render(sources)).collect::<Vec<_>>().join("\n")
}
