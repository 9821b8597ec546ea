//! Output files as the commands open them. A regular file (or a new one) is written atomically
//! through `p4_io::output::AtomicFile`: complete under its name or not there. A device or FIFO
//! named as an output (`--out /dev/null`, `/dev/stdout`, a named pipe to another program) is
//! written in place instead: renaming a temporary file over it would replace the device node
//! itself (as root, `--out /dev/full` turned /dev/full into a regular file).

use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};

use p4_io::output::{AtomicFile, OutputError};

/// An output being written.
pub enum OutFile {
    /// A regular file, renamed into place on commit.
    Atomic(AtomicFile),
    /// A device or FIFO, written directly.
    Direct {
        /// Where.
        path: PathBuf,
        /// The open device or FIFO.
        file: BufWriter<File>,
    },
}

/// Whether `path` exists and is neither a regular file nor a directory (a device, FIFO, socket).
fn is_special(path: &Path) -> bool {
    std::fs::metadata(path).is_ok_and(|m| !m.is_file() && !m.is_dir())
}

impl OutFile {
    /// Starts writing `path`.
    pub fn create(path: &Path) -> Result<OutFile, OutputError> {
        if is_special(path) {
            let file = File::options().write(true).open(path).map_err(|e| OutputError::new(path, &e))?;
            return Ok(OutFile::Direct { path: path.to_path_buf(), file: BufWriter::with_capacity(1 << 16, file) });
        }
        Ok(OutFile::Atomic(AtomicFile::create(path)?))
    }

    /// Finishes the output: renamed into place, or flushed to the device.
    pub fn commit(self) -> Result<(), OutputError> {
        match self {
            OutFile::Atomic(f) => f.commit(),
            OutFile::Direct { path, mut file } => file.flush().map_err(|e| OutputError::new(&path, &e)),
        }
    }
}

impl Write for OutFile {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        match self {
            OutFile::Atomic(f) => f.write(buf),
            OutFile::Direct { file, .. } => file.write(buf),
        }
    }
    fn write_all(&mut self, buf: &[u8]) -> std::io::Result<()> {
        match self {
            OutFile::Atomic(f) => f.write_all(buf),
            OutFile::Direct { file, .. } => file.write_all(buf),
        }
    }
    fn flush(&mut self) -> std::io::Result<()> {
        match self {
            OutFile::Atomic(f) => f.flush(),
            OutFile::Direct { file, .. } => file.flush(),
        }
    }
}

/// Checks before any work that `path` can be written. A FIFO is not opened (that would wait
/// for its reader); a device is opened for writing and closed.
pub fn check_writable(path: &Path) -> Result<(), OutputError> {
    match std::fs::metadata(path) {
        Ok(m) if !m.is_file() && !m.is_dir() => {
            use std::os::unix::fs::FileTypeExt;
            if m.file_type().is_fifo() {
                return Ok(());
            }
            File::options().write(true).open(path).map(drop).map_err(|e| OutputError::new(path, &e))
        }
        _ => p4_io::output::check_writable(path),
    }
}

/// Writes `bytes` to `path` (atomically for a regular file).
pub fn write(path: &Path, bytes: &[u8]) -> Result<(), OutputError> {
    let mut f = OutFile::create(path)?;
    f.write_all(bytes).map_err(|e| OutputError::new(path, &e))?;
    f.commit()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_fifo_output_is_written_through_not_replaced() {
        let dir = std::env::temp_dir().join(format!("p4-outfile-{}-{}", env!("CARGO_PKG_NAME"), std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let fifo = dir.join("out.fifo");
        let _ = std::fs::remove_file(&fifo);
        assert!(std::process::Command::new("mkfifo").arg(&fifo).status().unwrap().success());
        let reader = {
            let fifo = fifo.clone();
            std::thread::spawn(move || std::fs::read(&fifo).unwrap())
        };
        check_writable(&fifo).unwrap();
        write(&fifo, b"through the pipe").unwrap();
        assert_eq!(reader.join().unwrap(), b"through the pipe");
        // Still a FIFO: a rename over it would have left a regular file.
        use std::os::unix::fs::FileTypeExt;
        assert!(std::fs::metadata(&fifo).unwrap().file_type().is_fifo());
        // /dev/null is written in place too (and stays a device).
        write(Path::new("/dev/null"), b"discarded").unwrap();
        assert!(std::fs::metadata("/dev/null").unwrap().file_type().is_char_device());
        std::fs::remove_dir_all(&dir).ok();
    }
}
