//! Helpers for tests of code that reads and writes files: scratch directories, what a directory
//! holds, and a writer that behaves like a standard output whose reader has gone.

use std::ops::Deref;
use std::path::{Path, PathBuf};

/// A fresh, empty directory under the system's temporary directory, unique to this process,
/// `tag` (the test file or crate) and `name` (the test). Keep the guard for the whole test.
pub fn scratch_dir(tag: &str, name: &str) -> Scratch {
    let dir = std::env::temp_dir().join(format!("{tag}-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("a scratch directory can be created");
    Scratch { dir }
}

/// A scratch directory that is removed with its contents when dropped, so `make test` does not
/// fill /tmp; a failing (panicking) test leaves it in place for inspection.
#[derive(Debug)]
pub struct Scratch {
    dir: PathBuf,
}

impl Scratch {
    /// The directory.
    pub fn path(&self) -> &Path {
        &self.dir
    }
}

impl Deref for Scratch {
    type Target = Path;
    fn deref(&self) -> &Path {
        &self.dir
    }
}

impl AsRef<Path> for Scratch {
    fn as_ref(&self) -> &Path {
        &self.dir
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        if !std::thread::panicking() {
            let _ = std::fs::remove_dir_all(&self.dir);
        }
    }
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

/// A small deterministic generator for tests (SplitMix64): the same seed gives the same cases
/// everywhere, so a failure repeats.
pub struct Rng(pub u64);

impl Rng {
    pub fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// A number below `n` (0 when `n` is 0).
    pub fn below(&mut self, n: u64) -> u64 {
        if n == 0 {
            0
        } else {
            self.next() % n
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_scratch_directory_is_removed_when_its_test_passes_and_kept_when_it_fails() {
        let scratch = scratch_dir("p4-io-testing", "passes");
        let dir = scratch.to_path_buf();
        std::fs::create_dir_all(scratch.join("sub")).unwrap();
        std::fs::write(scratch.path().join("sub/f"), "x").unwrap();
        drop(scratch);
        assert!(!dir.exists());

        let mut kept = PathBuf::new();
        let failed = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            let scratch = scratch_dir("p4-io-testing", "fails");
            kept = scratch.to_path_buf();
            panic!("a failing test");
        }));
        assert!(failed.is_err());
        assert!(kept.is_dir(), "left for inspection");
        std::fs::remove_dir_all(&kept).unwrap();
    }
}

/// What a test does when a tool it needs (Verilator, Yosys, iperf3) is missing: under `CI=true`
/// it fails, so that a CI run never passes by skipping; elsewhere it prints `SKIP: why` and the
/// test returns early (`false`). `P4F_SKIP_RTL=1` (`make test-fast`) skips the tests of the
/// hardware target on purpose, even in CI; [`rtl_skipped`] asks for it.
pub fn tool_missing(why: &str) -> bool {
    if std::env::var("CI").is_ok_and(|v| v == "true") {
        panic!("{why} (CI=true: a test whose tool is missing fails rather than skips)");
    }
    println!("SKIP: {why}");
    false
}

/// Whether the tests of the hardware target are skipped on purpose (`P4F_SKIP_RTL=1`, as `make
/// test-fast` sets it); prints `SKIP` when they are.
pub fn rtl_skipped() -> bool {
    let skipped = std::env::var("P4F_SKIP_RTL").is_ok_and(|v| v == "1");
    if skipped {
        println!("SKIP: P4F_SKIP_RTL=1");
    }
    skipped
}

/// Compares `text` with the golden file `golden` (`BLESS=1` rewrites the file first), and panics
/// on a difference with the lines gone and the lines new, saying `what` changed.
pub fn check_golden(golden: &Path, text: &str, what: &str) {
    if std::env::var_os("BLESS").is_some() {
        std::fs::write(golden, text).unwrap_or_else(|e| panic!("cannot write {}: {e}", golden.display()));
    }
    let expected = std::fs::read_to_string(golden).unwrap_or_default();
    if text != expected {
        let (now, was): (Vec<&str>, Vec<&str>) = (text.lines().collect(), expected.lines().collect());
        let gone: Vec<&str> = was.iter().filter(|l| !now.contains(l)).copied().collect();
        let new: Vec<&str> = now.iter().filter(|l| !was.contains(l)).copied().collect();
        panic!("{what} changed (BLESS=1 rewrites {}):\nexpected:\n  {}\nnow:\n  {}", golden.display(), gone.join("\n  "), new.join("\n  "));
    }
}

/// Waits up to `limit` for `child` to exit (a test of a command that must stop may not hang
/// instead); kills it if it has not. Returns its output (stdout and stderr as far as piped) and
/// whether it had to be killed.
pub fn wait_or_kill(mut child: std::process::Child, limit: std::time::Duration) -> (std::process::Output, bool) {
    let start = std::time::Instant::now();
    while matches!(child.try_wait(), Ok(None)) && start.elapsed() < limit {
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    let hung = matches!(child.try_wait(), Ok(None));
    if hung {
        let _ = child.kill();
    }
    let output = child.wait_with_output().unwrap_or_else(|e| panic!("waiting for the child: {e}"));
    (output, hung)
}
