//! A runtime-CLI command file (`--entries`), as `run`, `switch` and `rtl-sim` load it before the
//! first packet.
//!
//! A regular file is read as a stream, line by line, twice: once when it is named, to report every
//! malformed line before any work is done, and once per switch to apply it. Memory stays that of
//! one line whatever the file's size (a full routing table is tens of megabytes). A file that
//! cannot be read twice (a pipe, `/dev/stdin`) is read once, whole, within the text bound.

use crate::error::{read_text, CliError, CliResult};
use crate::frontend::Dataplane;
use p4_stf::commands::{apply_command, apply_commands, parse_command, parse_commands, CliLine};
use p4_stf::error::LineError;
use p4_stf::runtime::SessionState;
use std::path::{Path, PathBuf};

/// The longest line an entries file may have (a `table_add` is a few hundred bytes).
pub const MAX_LINE: usize = 1 << 20;

/// The most malformed lines reported one by one (the rest are counted).
const MAX_REPORTED: usize = 100;

/// An entries file, checked, and the name its errors use.
pub struct Entries {
    origin: String,
    source: Source,
}

enum Source {
    /// A regular file, streamed again when applied.
    File(PathBuf),
    /// What a pipe or device gave, parsed.
    Read(Vec<CliLine>),
}

impl Entries {
    /// Opens `path` and checks every line; every malformed line is reported with its number
    /// (exit 2).
    pub fn read(path: &Path) -> CliResult<Entries> {
        let origin = path.display().to_string();
        let regular = std::fs::metadata(path).is_ok_and(|m| m.is_file());
        if !regular {
            let text = read_text(path, "entries file")?;
            let commands = parse_commands(&text).map_err(|e| CliError::input(e.render(&origin).trim_end().to_string()))?;
            return Ok(Entries { origin, source: Source::Read(commands) });
        }
        let mut errors = Vec::new();
        let mut malformed = 0usize;
        each_line(path, &origin, |line| {
            if let Err(e) = line {
                malformed += 1;
                if errors.len() < MAX_REPORTED {
                    errors.push(e);
                }
            }
            Ok(())
        })?;
        if malformed > 0 {
            let mut text: Vec<String> = errors.iter().map(|e| format!("{origin}:{}: {}", e.line, e.message)).collect();
            if malformed > errors.len() {
                text.push(format!("{origin}: and {} more malformed lines", malformed - errors.len()));
            }
            return Err(CliError::input(text.join("\n")));
        }
        Ok(Entries { origin, source: Source::File(path.to_path_buf()) })
    }

    /// Applies the commands; a refused one is a bad input naming its line (exit 2). Returns what the
    /// commands printed, each line prefixed with the file name.
    pub fn apply(&self, switch: &mut dyn Dataplane) -> CliResult<Vec<String>> {
        let origin = &self.origin;
        let refused = |e: LineError| CliError::input(format!("{origin}:{}: {}", e.line, e.message));
        let printed = match &self.source {
            Source::Read(commands) => apply_commands(switch, commands).map_err(refused)?,
            Source::File(path) => {
                let (mut session, mut printed) = (SessionState::default(), Vec::new());
                each_line(path, origin, |line| {
                    // Checked when the file was named; a file changed since is still refused.
                    let command = line.map_err(refused)?;
                    apply_command(switch, &command, &mut session, &mut printed).map_err(refused)
                })?;
                printed
            }
        };
        Ok(printed.into_iter().map(|line| format!("{origin}: {line}")).collect())
    }
}

/// Calls `each` with every command line of the file at `path` parsed (or why it is malformed), in
/// order, stopping at the first error `each` returns; a line longer than [`MAX_LINE`] or text
/// that is not UTF-8 is an error naming the line.
fn each_line(path: &Path, origin: &str, mut each: impl FnMut(Result<CliLine, LineError>) -> CliResult<()>) -> CliResult<()> {
    for line in p4_io::input::Lines::open(path, "entries file", MAX_LINE)? {
        let (number, text) = line.map_err(|(number, why)| CliError::input(format!("{origin}:{number}: {why}")))?;
        let Some(content) = p4_stf::error::meaningful(&text) else { continue };
        each(parse_command(content).map(|command| CliLine { line: number, command }).map_err(|m| LineError::new(number, m)))?;
        if p4_io::interrupt::interrupted() {
            return Err(CliError::interrupted(p4_io::interrupt::Interrupted.to_string()));
        }
    }
    Ok(())
}
