//! A runtime-CLI command file (`--entries`), as `run` and `switch` load it before the first packet.

use crate::error::{read_text, CliError, CliResult};
use crate::frontend::Dataplane;
use p4_stf::commands::{apply_commands, parse_commands, CliLine};
use std::path::Path;

/// A parsed entries file and the name its errors use.
pub struct Entries {
    origin: String,
    commands: Vec<CliLine>,
}

impl Entries {
    /// Reads and parses `path`; every malformed line is reported with its number (exit 2).
    pub fn read(path: &Path) -> CliResult<Entries> {
        let text = read_text(path, "entries file")?;
        let origin = path.display().to_string();
        let commands = parse_commands(&text).map_err(|e| CliError::input(e.render(&origin).trim_end().to_string()))?;
        Ok(Entries { origin, commands })
    }

    /// Applies the commands; a refused one is a bad input naming its line (exit 2). Returns what the
    /// commands printed, each line prefixed with the file name.
    pub fn apply(&self, switch: &mut dyn Dataplane) -> CliResult<Vec<String>> {
        let origin = &self.origin;
        let printed = apply_commands(switch, &self.commands).map_err(|e| CliError::input(format!("{origin}:{}: {}", e.line, e.message)))?;
        Ok(printed.into_iter().map(|line| format!("{origin}: {line}")).collect())
    }
}
