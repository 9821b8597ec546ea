//! Output files that are complete on disk or not there at all.
//!
//! [`AtomicFile`] writes to a temporary file beside the final path (`.NAME.p4forge-tmp-PID`) and
//! renames it over the final path in [`AtomicFile::commit`]: a reader, a crash, a full disk or a
//! Ctrl-C never sees a half-written file under the final name, and the previous file stays until
//! the new one is whole. Dropping an uncommitted `AtomicFile` removes its temporary file.
//!
//! A device or FIFO named as an output (`/dev/null`, `/dev/stdout`, a named pipe to another
//! program) is written in place instead: renaming a file over it would replace the device node
//! itself (as root, an output of `/dev/full` once turned `/dev/full` into a regular file).
//!
//! A regular file can also be written out of order: [`AtomicFile::reserve`] sets aside the next
//! bytes for another thread to write ([`Reserved::write`]) while this one goes on after them, and
//! [`AtomicFile::commit`] refuses to rename a file with room set aside that was never written.

use crate::describe_io_error;
use std::fs::File;
use std::io::{BufWriter, Seek, SeekFrom, Write};
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

/// Why an output could not be written. Displays as `cannot write <path>: <why>`.
#[derive(Debug)]
pub struct OutputError {
    pub path: PathBuf,
    pub why: String,
}

impl std::fmt::Display for OutputError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "cannot write {}: {}", self.path.display(), self.why)
    }
}

impl std::error::Error for OutputError {}

impl OutputError {
    pub fn new(path: &Path, error: &std::io::Error) -> OutputError {
        OutputError { path: path.to_path_buf(), why: describe_io_error(error) }
    }
}

impl From<OutputError> for std::io::Error {
    fn from(error: OutputError) -> std::io::Error {
        std::io::Error::other(error.to_string())
    }
}

/// A file being written under a temporary name (or a device written in place); see the module
/// documentation.
pub struct AtomicFile {
    path: PathBuf,
    /// `None`: a device or FIFO, written in place.
    temporary: Option<PathBuf>,
    /// `None` once committed.
    writer: Option<BufWriter<File>>,
    /// The file as [`Reserved`] room writes it, once room was set aside.
    positional: Option<Arc<Positional>>,
}

/// The file shared with the [`Reserved`] room set aside in it.
struct Positional {
    file: File,
    path: PathBuf,
    /// Bytes set aside and not yet written.
    unwritten: AtomicU64,
}

/// Bytes of an [`AtomicFile`] set aside by [`AtomicFile::reserve`], to be written once, from any
/// thread, before the file is committed.
pub struct Reserved {
    to: Arc<Positional>,
    offset: u64,
    len: u64,
}

impl Reserved {
    /// Writes `bytes` (exactly as many as were set aside) in their place.
    pub fn write(self, bytes: &[u8]) -> Result<(), OutputError> {
        let to = &self.to;
        if bytes.len() as u64 != self.len {
            return Err(OutputError {
                path: to.path.clone(),
                why: format!("{} bytes were set aside at offset {} but {} came", self.len, self.offset, bytes.len()),
            });
        }
        to.file.write_all_at(bytes, self.offset).map_err(|e| OutputError::new(&to.path, &e))?;
        to.unwritten.fetch_sub(self.len, Ordering::Release);
        Ok(())
    }
}

/// Whether `path` exists and is neither a regular file nor a directory (a device, FIFO, socket).
fn is_special(path: &Path) -> bool {
    std::fs::metadata(path).is_ok_and(|m| !m.is_file() && !m.is_dir())
}

/// The temporary name used for `path` while it is written.
pub fn temporary_path(path: &Path) -> PathBuf {
    let name = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    path.with_file_name(format!(".{name}.p4forge-tmp-{}", std::process::id()))
}

impl AtomicFile {
    /// Starts writing `path` (its directory must exist).
    pub fn create(path: &Path) -> Result<AtomicFile, OutputError> {
        if path.is_dir() {
            return Err(OutputError { path: path.to_path_buf(), why: "it is a directory".to_string() });
        }
        let (file, temporary) = if is_special(path) {
            (File::options().write(true).open(path), None)
        } else {
            let temporary = temporary_path(path);
            (File::create(&temporary), Some(temporary))
        };
        let file = file.map_err(|e| OutputError::new(path, &e))?;
        let writer = Some(BufWriter::with_capacity(1 << 16, file));
        Ok(AtomicFile { path: path.to_path_buf(), temporary, writer, positional: None })
    }

    /// Sets aside the next `len` bytes for a [`Reserved::write`] (on any thread); what is written
    /// here afterwards goes after them. `None` for a device or FIFO, which is written in order only.
    pub fn reserve(&mut self, len: u64) -> Result<Option<Reserved>, OutputError> {
        if self.temporary.is_none() {
            return Ok(None);
        }
        let path = &self.path;
        let fail = |e: std::io::Error| OutputError::new(path, &e);
        let writer = self.writer.as_mut().ok_or_else(|| fail(std::io::Error::other("the file was already committed")))?;
        let to = match &self.positional {
            Some(to) => Arc::clone(to),
            None => {
                let file = writer.get_ref().try_clone().map_err(fail)?;
                let to = Arc::new(Positional { file, path: path.clone(), unwritten: AtomicU64::new(0) });
                self.positional = Some(Arc::clone(&to));
                to
            }
        };
        let skip = i64::try_from(len).map_err(|_| fail(std::io::Error::other(format!("cannot set aside {len} bytes"))))?;
        // Seeking writes out what is buffered first.
        let end = writer.seek(SeekFrom::Current(skip)).map_err(fail)?;
        to.unwritten.fetch_add(len, Ordering::Relaxed);
        Ok(Some(Reserved { to, offset: end - len, len }))
    }

    /// The final path.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Flushes and renames the file to its final name.
    pub fn commit(mut self) -> Result<(), OutputError> {
        let unwritten = self.positional.as_ref().map_or(0, |to| to.unwritten.load(Ordering::Acquire));
        if unwritten > 0 {
            // Not renamed: dropping `self` removes the temporary file.
            return Err(OutputError {
                path: self.path.clone(),
                why: format!("{unwritten} bytes set aside in it were never written"),
            });
        }
        let Some(writer) = self.writer.take() else { return Ok(()) };
        let file = writer.into_inner().map_err(|e| OutputError::new(&self.path, e.error()))?;
        drop(file);
        match &self.temporary {
            Some(temporary) => std::fs::rename(temporary, &self.path).map_err(|e| OutputError::new(&self.path, &e)),
            None => Ok(()),
        }
    }

    fn writer(&mut self) -> std::io::Result<&mut BufWriter<File>> {
        self.writer.as_mut().ok_or_else(|| std::io::Error::other("the file was already committed"))
    }
}

impl Write for AtomicFile {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.writer()?.write(buf)
    }
    fn write_all(&mut self, buf: &[u8]) -> std::io::Result<()> {
        self.writer()?.write_all(buf)
    }
    fn flush(&mut self) -> std::io::Result<()> {
        self.writer()?.flush()
    }
}

impl Drop for AtomicFile {
    fn drop(&mut self) {
        if let (Some(_), Some(temporary)) = (self.writer.take(), &self.temporary) {
            let _ = std::fs::remove_file(temporary);
        }
    }
}

/// Writes `bytes` to `path` atomically.
pub fn write(path: &Path, bytes: &[u8]) -> Result<(), OutputError> {
    let mut file = AtomicFile::create(path)?;
    file.write_all(bytes).map_err(|e| OutputError::new(path, &e))?;
    file.commit()
}

/// Checks, before any work, that `path` can be written: its directory exists and accepts a new
/// file, and `path` itself is not a directory. Leaves nothing behind. A FIFO is not opened (that
/// would wait for its reader); a device is opened for writing and closed.
pub fn check_writable(path: &Path) -> Result<(), OutputError> {
    use std::os::unix::fs::FileTypeExt;
    if std::fs::metadata(path).is_ok_and(|m| m.file_type().is_fifo()) {
        return Ok(());
    }
    // Dropped uncommitted: the temporary file goes; a device was only opened.
    drop(AtomicFile::create(path)?);
    Ok(())
}

/// Creates `dir` (and its parents) for outputs, naming it in the error.
pub fn create_dir(dir: &Path) -> Result<(), OutputError> {
    if dir.exists() && !dir.is_dir() {
        return Err(OutputError { path: dir.to_path_buf(), why: "it exists and is not a directory".to_string() });
    }
    std::fs::create_dir_all(dir).map_err(|e| OutputError::new(dir, &e))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::file_names as names;

    fn scratch(name: &str) -> crate::testing::Scratch {
        crate::testing::scratch_dir("p4-io-output", name)
    }

    #[test]
    fn the_final_name_appears_only_on_commit() {
        let dir = scratch("commit");
        let path = dir.join("out.pcap");
        std::fs::write(&path, "old").unwrap();
        let mut file = AtomicFile::create(&path).unwrap();
        file.write_all(b"new contents").unwrap();
        file.flush().unwrap();
        assert_eq!(std::fs::read(&path).unwrap(), b"old");
        file.commit().unwrap();
        assert_eq!(std::fs::read(&path).unwrap(), b"new contents");
        assert_eq!(names(&dir), ["out.pcap"]);
    }

    #[test]
    fn an_abandoned_file_leaves_nothing_and_keeps_the_old_one() {
        let dir = scratch("abandon");
        let path = dir.join("out.pcap");
        std::fs::write(&path, "old").unwrap();
        let mut file = AtomicFile::create(&path).unwrap();
        file.write_all(b"partial").unwrap();
        drop(file);
        assert_eq!(std::fs::read(&path).unwrap(), b"old");
        assert_eq!(names(&dir), ["out.pcap"]);
    }

    #[test]
    fn a_full_disk_is_reported_with_the_file_name() {
        // /dev/full fails every write with ENOSPC; write through it directly to see the wording.
        let mut full = File::options().write(true).open("/dev/full").unwrap();
        let error = full.write_all(b"x").unwrap_err();
        let error = OutputError::new(Path::new("out/port1.pcap"), &error);
        assert_eq!(error.to_string(), "cannot write out/port1.pcap: no space left on the device (disk full)");
    }

    #[test]
    fn room_set_aside_is_written_in_its_place_from_another_thread() {
        let dir = scratch("reserve");
        let path = dir.join("out.pcap");
        let mut file = AtomicFile::create(&path).unwrap();
        file.write_all(b"head ").unwrap();
        let first = file.reserve(6).unwrap().unwrap();
        file.write_all(b"middle ").unwrap();
        let second = file.reserve(4).unwrap().unwrap();
        std::thread::spawn(move || {
            second.write(b"tail").unwrap();
            first.write(b"first ").unwrap();
        })
        .join()
        .unwrap();
        file.commit().unwrap();
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "head first middle tail");
    }

    #[test]
    fn room_never_written_keeps_the_file_from_being_committed() {
        let dir = scratch("reserve-unwritten");
        let path = dir.join("out.pcap");
        std::fs::write(&path, "old").unwrap();
        let mut file = AtomicFile::create(&path).unwrap();
        let _written = file.reserve(3).unwrap().unwrap().write(b"abc");
        let unwritten = file.reserve(5).unwrap().unwrap();
        let error = file.commit().unwrap_err();
        assert_eq!(error.why, "5 bytes set aside in it were never written");
        assert_eq!(std::fs::read(&path).unwrap(), b"old");
        assert_eq!(names(&dir), ["out.pcap"]);
        let error = unwritten.write(b"toolong").unwrap_err();
        assert_eq!(error.why, "5 bytes were set aside at offset 3 but 7 came");
    }

    #[test]
    fn a_device_has_no_room_to_set_aside() {
        let mut null = AtomicFile::create(Path::new("/dev/null")).unwrap();
        assert!(null.reserve(10).unwrap().is_none());
        null.commit().unwrap();
    }

    #[test]
    fn writability_is_checked_without_leaving_files() {
        let dir = scratch("check");
        check_writable(&dir.join("plot.svg")).unwrap();
        assert!(names(&dir).is_empty());
        let error = check_writable(&dir.join("no/such/dir/plot.svg")).unwrap_err();
        assert_eq!(error.why, "no such file or directory");
        let error = check_writable(&dir).unwrap_err();
        assert_eq!(error.why, "it is a directory");
    }

    #[test]
    fn a_fifo_or_device_output_is_written_through_not_replaced() {
        use std::os::unix::fs::FileTypeExt;
        let dir = scratch("fifo");
        let fifo = dir.join("out.fifo");
        assert!(std::process::Command::new("mkfifo").arg(&fifo).status().unwrap().success());
        let reader = {
            let fifo = fifo.clone();
            std::thread::spawn(move || std::fs::read(&fifo).unwrap())
        };
        check_writable(&fifo).unwrap();
        write(&fifo, b"through the pipe").unwrap();
        assert_eq!(reader.join().unwrap(), b"through the pipe");
        // Still a FIFO: a rename over it would have left a regular file.
        assert!(std::fs::metadata(&fifo).unwrap().file_type().is_fifo());
        assert_eq!(names(&dir), ["out.fifo"]);
        // /dev/null is written in place too, and stays a device.
        check_writable(Path::new("/dev/null")).unwrap();
        write(Path::new("/dev/null"), b"discarded").unwrap();
        assert!(std::fs::metadata("/dev/null").unwrap().file_type().is_char_device());
    }

    #[test]
    fn an_output_directory_over_a_file_is_refused() {
        let dir = scratch("dir-over-file");
        let file = dir.join("f");
        std::fs::write(&file, "x").unwrap();
        assert_eq!(create_dir(&file).unwrap_err().why, "it exists and is not a directory");
        create_dir(&dir.join("a/b")).unwrap();
        assert!(dir.join("a/b").is_dir());
    }
}
