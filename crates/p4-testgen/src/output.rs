//! The generated files, collected in memory (path relative to the workspace root -> text) and then
//! written out, so the same generation serves the command line and the drift test.

use std::collections::BTreeMap;
use std::io;
use std::path::Path;

use crate::packet::hexs;

/// Generated files keyed by their path relative to the workspace root (`/`-separated).
#[derive(Default, Debug)]
pub struct Files {
    files: BTreeMap<String, String>,
}

impl Files {
    /// Records `text` as the content of `path`; a later add of the same path replaces it.
    pub fn add(&mut self, path: impl Into<String>, text: String) {
        self.files.insert(path.into(), text);
    }

    /// The files in path order.
    pub fn iter(&self) -> impl Iterator<Item = (&str, &str)> {
        self.files.iter().map(|(p, t)| (p.as_str(), t.as_str()))
    }

    /// Writes every file under `root`, creating directories as needed.
    pub fn write_to(&self, root: &Path) -> io::Result<()> {
        for (rel, text) in self.iter() {
            let path = root.join(rel);
            if let Some(dir) = path.parent() {
                std::fs::create_dir_all(dir)?;
            }
            std::fs::write(&path, text)?;
        }
        Ok(())
    }
}

/// Lines of an STF file. The text is the lines joined by newlines, trailing whitespace trimmed, plus
/// one final newline (what both former Python generators produced).
#[derive(Default, Debug)]
pub struct StfLines {
    lines: Vec<String>,
}

impl StfLines {
    /// Appends one line verbatim.
    pub fn raw(&mut self, line: impl Into<String>) {
        self.lines.push(line.into());
    }

    /// `packet PORT HEX`.
    pub fn packet(&mut self, port: u32, data: &[u8]) {
        self.raw(format!("packet {port} {}", hexs(data)));
    }

    /// `expect PORT HEX $` (the `$` demands an exact length).
    pub fn expect(&mut self, port: u32, data: &[u8]) {
        self.raw(format!("expect {port} {} $", hexs(data)));
    }

    /// The file's text.
    pub fn text(&self) -> String {
        format!("{}\n", self.lines.join("\n").trim_end())
    }
}
