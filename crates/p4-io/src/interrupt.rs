//! Stop signals as a flag: long-running loops poll [`interrupted`] and stop cleanly (complete
//! outputs, a summary that says it is partial). Ctrl-C (SIGINT), SIGTERM (what `timeout`, systemd,
//! docker and CI send) and SIGHUP (a closed terminal) are treated alike; the command then exits with
//! 128 + the signal's number (130, 143, 129: [`exit_status`]). A second stop signal exits at once.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, OnceLock};

use signal_hook::consts::{SIGHUP, SIGINT, SIGTERM};

/// The signals that stop a command, in the order [`Interrupted`] names them.
const STOP_SIGNALS: [i32; 3] = [SIGINT, SIGTERM, SIGHUP];

struct Flags {
    /// Set by any stop signal.
    any: Arc<AtomicBool>,
    /// Set by each signal of [`STOP_SIGNALS`], in that order.
    each: [Arc<AtomicBool>; 3],
}

static FLAGS: OnceLock<Flags> = OnceLock::new();

/// Installs the handlers (idempotent). Until it is called, the signals kill the process as usual.
pub fn install() {
    FLAGS.get_or_init(|| {
        let flags = Flags { any: Arc::new(AtomicBool::new(false)), each: Default::default() };
        for (signal, own) in STOP_SIGNALS.iter().zip(&flags.each) {
            // Order matters: the conditional exit sees the flag as it was *before* this signal, so
            // the first stop signal only sets the flags and a second one exits.
            let _ = signal_hook::flag::register_conditional_shutdown(*signal, 128 + *signal, flags.any.clone());
            let _ = signal_hook::flag::register(*signal, flags.any.clone());
            let _ = signal_hook::flag::register(*signal, own.clone());
            // Inputs waiting for bytes (a FIFO whose writer stalls) end, so the command stops.
            let _ = signal_hook::flag::register(*signal, crate::input::stop_flag());
        }
        flags
    });
}

/// Whether a stop signal arrived since [`install`].
pub fn interrupted() -> bool {
    FLAGS.get().is_some_and(|flags| flags.any.load(Ordering::Relaxed))
}

/// The stop signal that arrived (the first of SIGINT, SIGTERM, SIGHUP that did), if any.
pub fn signal() -> Option<i32> {
    let flags = FLAGS.get()?;
    STOP_SIGNALS.iter().zip(&flags.each).find(|(_, flag)| flag.load(Ordering::Relaxed)).map(|(s, _)| *s)
}

/// The exit status of a command stopped by a signal: 128 + its number (130 for Ctrl-C, also when
/// none is known).
pub fn exit_status() -> u8 {
    128 + signal().unwrap_or(SIGINT) as u8
}

/// How the stop signal that arrived is named in messages ("Ctrl-C", "SIGTERM", "SIGHUP").
pub fn stopped_by() -> &'static str {
    match signal() {
        Some(SIGTERM) => "SIGTERM",
        Some(SIGHUP) => "SIGHUP",
        _ => "Ctrl-C",
    }
}

/// The error a command returns after it stopped for a stop signal and printed its partial results;
/// the binary turns it into exit status [`exit_status`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Interrupted;

impl std::fmt::Display for Interrupted {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "interrupted by {}: the results above are partial", stopped_by())
    }
}

impl std::error::Error for Interrupted {}

/// Sends SIGINT to this process, as a user's Ctrl-C would, and returns once [`interrupted`] sees it
/// (installing the handler first). For tests of interruptible loops; the flag stays set for the
/// rest of the process, so such a test belongs in a test binary of its own.
pub fn simulate_ctrl_c() {
    simulate_signal(SIGINT);
}

/// [`simulate_ctrl_c`] for any of the stop signals.
pub fn simulate_signal(signal: i32) {
    install();
    let _ = signal_hook::low_level::raise(signal);
    let waited = std::time::Instant::now();
    while !interrupted() && waited.elapsed() < std::time::Duration::from_secs(10) {
        std::thread::sleep(std::time::Duration::from_millis(1));
    }
}
