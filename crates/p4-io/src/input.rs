//! Reading input files: clear errors for paths that are not readable files, and a bound on every read.

use crate::describe_io_error;
use rustix::event::{poll, PollFd, PollFlags, Timespec};
use std::fs::{File, Metadata};
use std::io::Read;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, OnceLock};

/// Default bound for text inputs (programs, STF, entries, topology files): far above any real one,
/// far below what would exhaust memory.
pub const TEXT_LIMIT: u64 = 64 << 20;

/// Why an input could not be read. Displays as `cannot read <what> <path>: <why>`.
#[derive(Debug)]
pub struct InputError {
    /// What the file is for, e.g. "P4 program", "entries file".
    pub what: String,
    pub path: PathBuf,
    pub why: String,
}

impl std::fmt::Display for InputError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "cannot read {} {}: {}", self.what, self.path.display(), self.why)
    }
}

impl std::error::Error for InputError {}

/// What kind of file system object `meta` describes, as a noun phrase ("a directory").
pub fn kind_of(meta: &Metadata) -> &'static str {
    use std::os::unix::fs::FileTypeExt;
    let t = meta.file_type();
    if t.is_dir() {
        "a directory"
    } else if t.is_fifo() {
        "a FIFO (named pipe)"
    } else if t.is_char_device() {
        "a character device"
    } else if t.is_block_device() {
        "a block device"
    } else if t.is_socket() {
        "a socket"
    } else if t.is_file() {
        "a regular file"
    } else {
        "not a regular file"
    }
}

/// Opens `path` for reading. A directory is refused (it cannot be read as a file); FIFOs and devices
/// are allowed (`<(cmd)`, `/dev/stdin`) and every reader built on this one has a size bound.
pub fn open(path: &Path, what: &str) -> Result<Input, InputError> {
    let error = |why: String| InputError { what: what.to_string(), path: path.to_path_buf(), why };
    let meta = std::fs::metadata(path).map_err(|e| error(describe_io_error(&e)))?;
    if meta.is_dir() {
        return Err(error("it is a directory, not a file".to_string()));
    }
    let file = File::open(path).map_err(|e| error(describe_io_error(&e)))?;
    Ok(Input { file, waits: !meta.is_file() })
}

/// An input [`open`] opened. A FIFO, pipe or device may wait forever for bytes that never come (a
/// writer that stalls), and a stop signal does not interrupt such a read (the kernel restarts it).
/// So such an input is waited on in slices of [`STOP_LOOK_MS`], and once a stop was asked for
/// ([`stop_flag`], which Ctrl-C, SIGTERM and SIGHUP set once a command installs its handlers) it
/// ends as its end would: the command then stops as it does when asked to, its outputs complete.
pub struct Input {
    file: File,
    /// Not a regular file: a read may wait.
    waits: bool,
}

/// How often an input that is waiting looks whether a stop was asked for, in milliseconds.
pub const STOP_LOOK_MS: i64 = 100;

static STOP: OnceLock<Arc<AtomicBool>> = OnceLock::new();

/// The flag that ends waiting inputs: set it (as the stop-signal handlers do) and every [`Input`]
/// that waits reads as ended.
pub fn stop_flag() -> Arc<AtomicBool> {
    STOP.get_or_init(Default::default).clone()
}

fn stop_requested() -> bool {
    STOP.get().is_some_and(|flag| flag.load(Ordering::Relaxed))
}

impl Read for Input {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        if self.waits {
            let slice = Timespec { tv_sec: 0, tv_nsec: (STOP_LOOK_MS * 1_000_000) as _ };
            loop {
                if stop_requested() {
                    return Ok(0);
                }
                let mut fds = [PollFd::new(&self.file, PollFlags::IN)];
                match poll(&mut fds, Some(&slice)) {
                    Ok(0) | Err(rustix::io::Errno::INTR) => continue,
                    Ok(_) => break,
                    Err(error) => return Err(error.into()),
                }
            }
        }
        self.file.read(buf)
    }
}

/// Like [`open`], but only a regular file is accepted: for inputs that are read more than once or
/// whose size is needed up front (e.g. a P4 program and its includes).
pub fn open_regular(path: &Path, what: &str) -> Result<File, InputError> {
    let error = |why: String| InputError { what: what.to_string(), path: path.to_path_buf(), why };
    let meta = std::fs::metadata(path).map_err(|e| error(describe_io_error(&e)))?;
    if !meta.is_file() {
        return Err(error(format!("it is {}, not a regular file", kind_of(&meta))));
    }
    File::open(path).map_err(|e| error(describe_io_error(&e)))
}

/// Reads at most `limit` bytes of `path`; a longer input is an error that states the limit.
pub fn read_bytes(path: &Path, what: &str, limit: u64) -> Result<Vec<u8>, InputError> {
    let file = open(path, what)?;
    read_bounded(file, limit).map_err(|why| InputError { what: what.to_string(), path: path.to_path_buf(), why })
}

/// [`read_bytes`] for UTF-8 text.
pub fn read_text(path: &Path, what: &str, limit: u64) -> Result<String, InputError> {
    let bytes = read_bytes(path, what, limit)?;
    String::from_utf8(bytes).map_err(|e| InputError {
        what: what.to_string(),
        path: path.to_path_buf(),
        why: format!("it is not UTF-8 text (invalid byte at offset {})", e.utf8_error().valid_up_to()),
    })
}

/// Reads all of `reader`, but no more than `limit` bytes; `Err` says why in words.
pub fn read_bounded(reader: impl Read, limit: u64) -> Result<Vec<u8>, String> {
    let mut bytes = Vec::new();
    reader.take(limit.saturating_add(1)).read_to_end(&mut bytes).map_err(|e| describe_io_error(&e))?;
    if bytes.len() as u64 > limit {
        return Err(format!("it is larger than the limit of {} (an endless input such as /dev/zero?)", size_text(limit)));
    }
    Ok(bytes)
}

/// The lines of an input one at a time as they arrive (a terminal, a pipe, a file), each at most
/// `max_line` bytes, so that a command reading commands answers each before the next is typed and
/// an endless line is an error rather than a process that grows without end.
pub struct Lines<R> {
    reader: std::io::BufReader<R>,
    max_line: usize,
    number: usize,
    buf: Vec<u8>,
}

impl Lines<Input> {
    /// The lines of `path` (see [`open`]).
    pub fn open(path: &Path, what: &str, max_line: usize) -> Result<Self, InputError> {
        Ok(Lines::new(open(path, what)?, max_line))
    }
}

impl<R: Read> Lines<R> {
    pub fn new(reader: R, max_line: usize) -> Self {
        Lines { reader: std::io::BufReader::new(reader), max_line, number: 0, buf: Vec::new() }
    }
}

impl<R: Read> Iterator for Lines<R> {
    /// The line's number (from 1) and its text without the line end; `Err`: the line's number
    /// and what is wrong with it (unreadable, longer than the bound, not UTF-8).
    type Item = Result<(usize, String), (usize, String)>;

    fn next(&mut self) -> Option<Self::Item> {
        use std::io::BufRead;
        self.buf.clear();
        self.number += 1;
        let number = self.number;
        match (&mut self.reader).take(self.max_line as u64 + 1).read_until(b'\n', &mut self.buf) {
            Err(e) => return Some(Err((number, describe_io_error(&e)))),
            Ok(0) => return None,
            Ok(_) => {}
        }
        if self.buf.len() > self.max_line && self.buf.last() != Some(&b'\n') {
            return Some(Err((number, format!("the line is longer than {} bytes", self.max_line))));
        }
        let Ok(text) = std::str::from_utf8(&self.buf) else {
            return Some(Err((number, "the line is not UTF-8 text".to_string())));
        };
        Some(Ok((number, text.trim_end_matches(['\n', '\r']).to_string())))
    }
}

/// `64 MiB`, `512 KiB`, `100 bytes`.
pub fn size_text(bytes: u64) -> String {
    if bytes >= 1 << 20 && bytes.is_multiple_of(1 << 20) {
        format!("{} MiB", bytes >> 20)
    } else if bytes >= 1 << 10 && bytes.is_multiple_of(1 << 10) {
        format!("{} KiB", bytes >> 10)
    } else {
        format!("{bytes} bytes")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scratch(name: &str) -> crate::testing::Scratch {
        crate::testing::scratch_dir("p4-io-input", name)
    }

    #[test]
    fn a_directory_is_named_as_such() {
        let dir = scratch("dir");
        let error = read_text(&dir, "STF file", TEXT_LIMIT).unwrap_err();
        assert_eq!(error.to_string(), format!("cannot read STF file {}: it is a directory, not a file", dir.display()));
    }

    #[test]
    fn lines_come_one_at_a_time_numbered_and_bounded() {
        let text = "a\r\nbb\n\nccccc\nd";
        let lines: Vec<_> = Lines::new(text.as_bytes(), 4).collect();
        let expected = vec![Ok((1, "a".to_string())), Ok((2, "bb".to_string())), Ok((3, String::new())), Err((4, "the line is longer than 4 bytes".to_string()))];
        assert_eq!(lines[..4], expected[..]);
        let bad: Vec<_> = Lines::new(&b"ok\n\xff\n"[..], 10).collect();
        assert_eq!(bad, vec![Ok((1, "ok".to_string())), Err((2, "the line is not UTF-8 text".to_string()))]);
    }

    #[test]
    fn a_missing_file_says_so() {
        let error = read_text(Path::new("/nonexistent/x.p4"), "P4 program", TEXT_LIMIT).unwrap_err();
        assert_eq!(error.to_string(), "cannot read P4 program /nonexistent/x.p4: no such file or directory");
    }

    #[test]
    fn endless_input_stops_at_the_limit() {
        let error = read_bytes(Path::new("/dev/zero"), "entries file", 1 << 20).unwrap_err();
        assert_eq!(
            error.to_string(),
            "cannot read entries file /dev/zero: it is larger than the limit of 1 MiB (an endless input such as /dev/zero?)"
        );
    }

    #[test]
    fn a_device_is_not_a_regular_file() {
        let error = open_regular(Path::new("/dev/null"), "P4 program").unwrap_err();
        assert_eq!(error.to_string(), "cannot read P4 program /dev/null: it is a character device, not a regular file");
    }

    #[test]
    fn input_exactly_at_the_limit_is_read() {
        let dir = scratch("limit");
        let path = dir.join("a.txt");
        std::fs::write(&path, "abcd").unwrap();
        assert_eq!(read_text(&path, "file", 4).unwrap(), "abcd");
        assert!(read_text(&path, "file", 3).is_err());
    }

    #[test]
    fn non_utf8_text_is_refused_with_the_offset() {
        let dir = scratch("utf8");
        let path = dir.join("a.txt");
        std::fs::write(&path, b"ab\xffcd").unwrap();
        let error = read_text(&path, "STF file", TEXT_LIMIT).unwrap_err();
        assert_eq!(error.why, "it is not UTF-8 text (invalid byte at offset 2)");
    }

    #[test]
    fn sizes_read_naturally() {
        assert_eq!(size_text(64 << 20), "64 MiB");
        assert_eq!(size_text(2048), "2 KiB");
        assert_eq!(size_text(1000), "1000 bytes");
    }
}
