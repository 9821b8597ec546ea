//! `swap PROG [ENTRIES]`, a command line on standard input or the control socket: another
//! program replaces the running one while the ports keep their frames.
//!
//! The new program is compiled (and its entries file loaded into it) on a thread of its own while
//! the old one keeps switching; once it is ready, the packet loop puts it in place between two
//! batches. Every frame of a batch is switched by one program to the end, and frames not yet
//! taken wait in their ports' queues (socket rings, capture files) as they do between any two
//! batches, so a swap loses, cuts or repeats none. The answer (`swapped to PROG after N frames`,
//! N the frames switched before the new program took over) goes where the line came from. A
//! program that does not compile, or whose entries are refused, is answered with the reason and
//! the old one keeps running. A P4Runtime device changes programs with
//! `SetForwardingPipelineConfig` instead, which its controller owns.

use std::path::{Path, PathBuf};
use std::sync::{mpsc, Arc};

use crate::error::CliResult;

/// Makes a ready switch of a program and, if given, its entries file.
pub type Builder<T> = Arc<dyn Fn(&Path, Option<&Path>) -> CliResult<T> + Send + Sync>;

/// The word a swap line starts with.
const WORD: &str = "swap";

/// `Some` for a swap line: its program and entries file, or why it is malformed.
pub fn parse(line: &str) -> Option<Result<(PathBuf, Option<PathBuf>), String>> {
    let mut words = line.split_whitespace();
    if words.next() != Some(WORD) {
        return None;
    }
    let rest: Vec<&str> = words.collect();
    Some(match rest[..] {
        [program] => Ok((PathBuf::from(program), None)),
        [program, entries] => Ok((PathBuf::from(program), Some(PathBuf::from(entries)))),
        _ => Err("swap PROG [ENTRIES]: a program (P4 source) and optionally a runtime-CLI entries file to load into it".to_string()),
    })
}

/// A swap on its way: the new switch being built, and who asked.
struct Pending<T> {
    program: PathBuf,
    at: String,
    reply: Option<mpsc::Sender<String>>,
    ready: mpsc::Receiver<CliResult<T>>,
}

/// The swaps of one switch: at most one in progress.
pub struct Swaps<T> {
    builder: Option<Builder<T>>,
    pending: Option<Pending<T>>,
}

/// A finished swap: the new switch, or why there is none.
pub struct Finished<T> {
    pub program: PathBuf,
    pub result: CliResult<T>,
    pub asker: Asker,
}

/// Where the line that asked for a swap came from.
pub struct Asker {
    at: String,
    reply: Option<mpsc::Sender<String>>,
}

impl Asker {
    /// Answers the line.
    pub fn answer(self, text: String) {
        answer(&self.reply, &self.at, text);
    }
}

/// Sends `text` to the connection `reply` leads to, or prints it (a line from standard input).
fn answer(reply: &Option<mpsc::Sender<String>>, at: &str, text: String) {
    match reply {
        Some(reply) => {
            let _ = reply.send(text);
        }
        None => p4_io::eprintln_safe!("{at}: {text}"),
    }
}

impl<T: Send + 'static> Swaps<T> {
    /// `builder`: `None` where swaps are refused (a P4Runtime device).
    pub fn new(builder: Option<Builder<T>>) -> Swaps<T> {
        Swaps { builder, pending: None }
    }

    /// Starts the swap `line` asks for, or answers why not.
    pub fn start(&mut self, line: &str, at: String, reply: Option<mpsc::Sender<String>>) {
        let refuse = |why: String| answer(&reply, &at, format!("refused: {why}"));
        let (program, entries) = match parse(line) {
            Some(Ok(args)) => args,
            Some(Err(why)) => return refuse(why),
            None => return refuse(format!("not a swap line: {line}")),
        };
        let Some(builder) = self.builder.clone() else {
            return refuse("a P4Runtime device changes programs with SetForwardingPipelineConfig".into());
        };
        if let Some(p) = &self.pending {
            return refuse(format!("a swap to {} is in progress", p.program.display()));
        }
        let (done, ready) = mpsc::channel();
        let (p, e) = (program.clone(), entries.clone());
        // On a thread with the parser's stack, as every command compiles (a deeply nested program
        // is an error, not an overflow that takes the switch down).
        std::thread::spawn(move || {
            let _ = done.send(p4_syntax::with_parser_stack(|| builder(&p, e.as_deref())));
        });
        self.pending = Some(Pending { program, at, reply, ready });
    }

    /// The swap in progress, once its switch is built (or refused).
    pub fn finished(&mut self) -> Option<Finished<T>> {
        let result = match self.pending.as_ref()?.ready.try_recv() {
            Ok(result) => result,
            Err(mpsc::TryRecvError::Empty) => return None,
            Err(mpsc::TryRecvError::Disconnected) => Err(crate::error::CliError::failed("the thread building the new switch ended without one")),
        };
        let Pending { program, at, reply, .. } = self.pending.take()?;
        Some(Finished { program, result, asker: Asker { at, reply } })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn swap_lines_name_a_program_and_maybe_entries() {
        assert_eq!(parse("swap a.p4"), Some(Ok((PathBuf::from("a.p4"), None))));
        assert_eq!(parse("  swap a.p4  e.txt "), Some(Ok((PathBuf::from("a.p4"), Some(PathBuf::from("e.txt"))))));
        assert!(parse("swap").unwrap().unwrap_err().starts_with("swap PROG [ENTRIES]"));
        assert!(parse("swap a b c").unwrap().is_err());
        assert_eq!(parse("table_add t a 1 =>"), None);
        assert_eq!(parse("swapped a.p4"), None);
    }
}
