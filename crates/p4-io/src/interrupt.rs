//! Ctrl-C as a flag: long-running loops poll [`interrupted`] and stop cleanly (complete outputs,
//! a summary that says it is partial). A second Ctrl-C exits at once with status 130.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, OnceLock};

static FLAG: OnceLock<Arc<AtomicBool>> = OnceLock::new();

/// Installs the SIGINT handler (idempotent). Until it is called, Ctrl-C kills the process as usual.
pub fn install() {
    FLAG.get_or_init(|| {
        let flag = Arc::new(AtomicBool::new(false));
        // Order matters: the conditional exit sees the flag as it was *before* this signal, so the
        // first Ctrl-C only sets the flag and the second one exits.
        let _ = signal_hook::flag::register_conditional_shutdown(signal_hook::consts::SIGINT, 130, flag.clone());
        let _ = signal_hook::flag::register(signal_hook::consts::SIGINT, flag.clone());
        flag
    });
}

/// Whether SIGINT arrived since [`install`].
pub fn interrupted() -> bool {
    FLAG.get().is_some_and(|flag| flag.load(Ordering::Relaxed))
}

/// The error a command returns after it stopped for Ctrl-C and printed its partial results; the
/// binary turns it into exit status 130.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Interrupted;

impl std::fmt::Display for Interrupted {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("interrupted by Ctrl-C: the results above are partial")
    }
}

impl std::error::Error for Interrupted {}

/// Sends SIGINT to this process, as a user's Ctrl-C would, and returns once [`interrupted`] sees it
/// (installing the handler first). For tests of interruptible loops; the flag stays set for the
/// rest of the process, so such a test belongs in a test binary of its own.
pub fn simulate_ctrl_c() {
    install();
    let _ = signal_hook::low_level::raise(signal_hook::consts::SIGINT);
    let waited = std::time::Instant::now();
    while !interrupted() && waited.elapsed() < std::time::Duration::from_secs(10) {
        std::thread::sleep(std::time::Duration::from_millis(1));
    }
}
