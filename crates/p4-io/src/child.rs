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

/// Spawns `command` with [`dies_with_parent`] from a thread that lives as long as the process, so
/// that the child lives until the process ends whichever thread asks for it (a worker thread that
/// ends right after, such as one compiling a program a controller pushed).
pub fn spawn_for_process(command: Command) -> std::io::Result<std::process::Child> {
    use std::sync::mpsc;
    type Job = (Command, mpsc::Sender<std::io::Result<std::process::Child>>);
    static SPAWNER: std::sync::OnceLock<std::sync::Mutex<mpsc::Sender<Job>>> = std::sync::OnceLock::new();
    let spawner = SPAWNER.get_or_init(|| {
        let (jobs, waiting) = mpsc::channel::<Job>();
        // Never joined: it ends with the process (its channel's sender is in a static).
        let _ = std::thread::Builder::new().name("child-spawner".to_string()).spawn(move || {
            for (mut command, answer) in waiting {
                let _ = answer.send(dies_with_parent(&mut command).spawn());
            }
        });
        std::sync::Mutex::new(jobs)
    });
    let (answer, result) = mpsc::channel();
    let sent = spawner.lock().unwrap_or_else(|poisoned| poisoned.into_inner()).send((command, answer));
    if sent.is_err() {
        return Err(std::io::Error::other("the thread that starts child processes is gone"));
    }
    result.recv().map_err(|_| std::io::Error::other("the thread that starts child processes is gone"))?
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_child_spawned_for_the_process_outlives_the_thread_that_asked() {
        let child = std::thread::spawn(|| {
            let mut command = Command::new("sleep");
            command.arg("5");
            spawn_for_process(command).expect("sleep starts")
        })
        .join()
        .expect("thread ends");
        let mut child = child;
        // The asking thread is gone; with the death signal tied to it the child would be dead now.
        std::thread::sleep(std::time::Duration::from_millis(200));
        assert!(child.try_wait().expect("waitable").is_none(), "the child still runs");
        child.kill().expect("killed");
        let _ = child.wait();
    }
}
