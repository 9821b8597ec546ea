//! Child processes (Yosys, a Verilator model) that must not outlive the command that started them,
//! however it ends: SIGKILL included, which no handler sees.

use std::os::unix::process::CommandExt;
use std::process::Command;

/// Makes the kernel kill `command`'s process with SIGKILL when the process that spawned it
/// dies (`PR_SET_PDEATHSIG`), and the spawn fail if that process is already gone by then.
///
/// The death signal belongs to the spawning thread: spawn from a thread that lives as long as the
/// child should (the thread that runs the command).
pub fn dies_with_parent(command: &mut Command) -> &mut Command {
    let parent = rustix::process::getpid();
    let hook = move || -> std::io::Result<()> {
        rustix::process::set_parent_process_death_signal(Some(rustix::process::Signal::KILL))?;
        // The parent may have died between fork and the line above: then no signal will come.
        if rustix::process::getppid() != Some(parent) {
            return Err(rustix::io::Errno::SRCH.into());
        }
        Ok(())
    };
    // SAFETY: the hook runs in the child between fork and exec, where only async-signal-safe
    // operations are allowed. It makes two system calls (prctl, getppid) through rustix's raw
    // system-call backend, which takes no lock and allocates nothing; its errors are OS error
    // codes (`io::Error::from_raw_os_error`, no allocation either), and it touches no memory the
    // parent's other threads could have left locked.
    unsafe { command.pre_exec(hook) }
}
