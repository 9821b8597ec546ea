//! Helpers for tests of code that reads and writes files: scratch directories, what a directory
//! holds, and a writer that behaves like a standard output whose reader has gone.

use std::path::{Path, PathBuf};

/// A fresh, empty directory under the system's temporary directory, unique to this process,
/// `tag` (the test file or crate) and `name` (the test).
pub fn scratch_dir(tag: &str, name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("{tag}-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("a scratch directory can be created");
    dir
}

/// The names of the entries of `dir`, sorted (temporary files included, so a test sees leftovers).
pub fn file_names(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .expect("the directory can be listed")
        .map(|e| e.expect("a directory entry").file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

/// A standard output whose reader has gone (`p4forge ... | head -c1`): every write fails with
/// `BrokenPipe`.
pub struct ClosedPipe;

impl std::io::Write for ClosedPipe {
    fn write(&mut self, _: &[u8]) -> std::io::Result<usize> {
        Err(std::io::ErrorKind::BrokenPipe.into())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}
