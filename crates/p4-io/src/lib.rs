//! Files and streams as every p4forge command uses them.
//!
//! The rules this crate enforces, so that each command does not have to remember them:
//! - **inputs** ([`input`]): a path that cannot be read says what it is and why (a directory, a FIFO,
//!   permission denied, missing) and every read has a size bound, so `/dev/zero` or an endless FIFO
//!   is an error, not an out-of-memory abort;
//! - **outputs** ([`output`]): a file is written under a temporary name beside its final name and
//!   renamed when complete, so what is on disk under the final name is always a whole file (or the
//!   previous one); a failed or interrupted write leaves nothing behind;
//! - **standard streams** ([`stdio`]): a closed pipe or a full disk on stdout is an error naming
//!   standard output, never a panic; stderr writes that fail are dropped (there is nowhere to report them);
//! - **progress** (`progress`, feature `cli`): one `--progress`/`--no-progress` pair, automatic on a
//!   terminal;
//! - **Ctrl-C** (`interrupt`, feature `cli`): the first SIGINT sets a flag long-running loops poll, so
//!   they can stop with complete outputs and a partial summary; a second one exits at once;
//! - **child processes** ([`child`]): a tool the command runs dies with it, even when it is killed.
#![deny(unsafe_op_in_unsafe_fn)]

pub mod child;
pub mod input;
#[cfg(feature = "cli")]
pub mod interrupt;
pub mod output;
#[cfg(feature = "cli")]
pub mod progress;
pub mod stdio;
pub mod testing;

/// What went wrong in an I/O call, in words a user can act on.
pub fn describe_io_error(error: &std::io::Error) -> String {
    use std::io::ErrorKind;
    match error.kind() {
        ErrorKind::BrokenPipe => "the reading end was closed (broken pipe)".to_string(),
        ErrorKind::StorageFull => "no space left on the device (disk full)".to_string(),
        ErrorKind::PermissionDenied => "permission denied".to_string(),
        ErrorKind::NotFound => "no such file or directory".to_string(),
        ErrorKind::IsADirectory => "it is a directory".to_string(),
        ErrorKind::NotADirectory => "a component of the path is not a directory".to_string(),
        ErrorKind::ReadOnlyFilesystem => "the file system is read-only".to_string(),
        ErrorKind::QuotaExceeded => "the disk quota is exceeded".to_string(),
        _ => error.to_string(),
    }
}
