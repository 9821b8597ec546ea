//! `p4forge switch`: the program as a software switch between Linux network interfaces.
//!
//! Each `--port N=IFNAME` is an AF_XDP or `AF_PACKET` socket (`--io`, see [`crate::ports`]); frames
//! arriving on IFNAME enter the program on ingress port N, and what the program sends to port N
//! leaves through IFNAME.
//! Lines on standard input, or on connections to the `--control` Unix socket, are runtime-CLI
//! commands (the entries-file syntax) applied between frames while traffic flows; Ctrl-C stops the
//! switch and prints the per-port summary.

use crate::cmd::run::RunSummary;
use crate::cmd::entries::Entries;
use crate::error::{CliError, CliResult};
use crate::frontend::{self, Dataplane};
use crate::ports::{wait_readable, IoMode, Port, MAX_FRAME};
use p4_stf::commands::{apply_commands, parse_commands};
use std::os::unix::net::{UnixListener, UnixStream};
use std::path::{Path, PathBuf};
use std::sync::mpsc;
use std::time::Instant;

/// What `switch` needs.
pub struct SwitchOptions {
    pub program: PathBuf,
    pub includes: Vec<PathBuf>,
    pub entries: Option<PathBuf>,
    /// `(port number, interface name)`.
    pub ports: Vec<(u32, String)>,
    /// AF_XDP or AF_PACKET sockets (`--io`).
    pub io: IoMode,
    /// A Unix socket to create for runtime-CLI commands while the switch runs.
    pub control: Option<PathBuf>,
    pub verbose: bool,
    pub trace: crate::cmd::trace::TraceArgs,
}

/// Parses `PORT=IFNAME`.
pub fn parse_port_arg(text: &str) -> Result<(u32, String), String> {
    let (port, name) = text.split_once('=').ok_or_else(|| format!("`{text}` must be written PORT=IFNAME, e.g. 1=veth0"))?;
    let port: u32 = port.trim().parse().map_err(|_| format!("`{port}` in `{text}` is not a port number"))?;
    if name.is_empty() || name.len() >= libc::IFNAMSIZ {
        return Err(format!("`{name}` in `{text}` is not an interface name (1 to {} characters)", libc::IFNAMSIZ - 1));
    }
    Ok((port, name.to_string()))
}

/// Applies one stdin line of runtime-CLI commands; returns what to print.
fn apply_line(switch: &mut dyn Dataplane, line: &str) -> String {
    let commands = match parse_commands(line) {
        Ok(commands) => commands,
        Err(errors) => return errors.render("stdin").trim_end().to_string(),
    };
    match apply_commands(switch, &commands) {
        Ok(printed) if printed.is_empty() => "ok".to_string(),
        // Each line is applied on its own, so the entries-file "line 1: " prefix says nothing here.
        Ok(printed) => printed.iter().map(|l| l.strip_prefix("line 1: ").unwrap_or(l)).collect::<Vec<_>>().join("\n"),
        Err(error) => format!("refused: {}", error.message),
    }
}

/// Runs until Ctrl-C; returns the per-port summary.
pub fn switch(options: &SwitchOptions) -> CliResult<RunSummary> {
    let entries = options.entries.as_deref().map(Entries::read).transpose()?;
    let compiled = frontend::compile(&options.program, &options.includes)?;
    p4_io::eprint_safe!("{}", compiled.warnings);
    let mut switch = frontend::new_switch_traced(compiled, &options.program, options.trace.enabled())?;
    if let Some(entries) = &entries {
        entries.apply(switch.as_mut())?;
    }
    for (index, (number, name)) in options.ports.iter().enumerate() {
        switch.check_port(*number).map_err(|e| CliError::input(format!("--port {number}={name}: {e}")))?;
        if options.ports[..index].iter().any(|(n, _)| n == number) {
            return Err(CliError::input(format!("--port {number} is given twice")));
        }
    }
    let mut ports = Vec::new();
    for (number, name) in &options.ports {
        ports.push((*number, Port::open(name, options.io).map_err(|e| CliError::input(e.to_string()))?));
    }
    let (requests, commands_in) = mpsc::channel();
    if let Some(path) = &options.control {
        control_socket(path, requests.clone())?;
    }
    let names: Vec<String> = ports.iter().map(|(n, p)| format!("{n}={} ({})", p.name(), p.kind())).collect();
    let control = options.control.as_ref().map(|p| format!(" or {}", p.display())).unwrap_or_default();
    p4_io::eprintln_safe!("switching {} (Ctrl-C stops; runtime-CLI commands on stdin{control})", names.join(" "));

    stdin_requests(requests);
    p4_io::interrupt::install();
    let fds: Vec<_> = ports.iter().map(|(_, p)| p.raw_fd()).collect();
    let start = Instant::now();
    // Frames in the order they arrived, from 1 (what `--trace-filter packet=N` counts).
    let mut frames_in = 0u64;
    let mut summary = RunSummary::default();
    let mut buffer = vec![0u8; MAX_FRAME];
    while !p4_io::interrupt::interrupted() {
        while let Ok(Request { line, reply }) = commands_in.try_recv() {
            let text = answer(switch.as_mut(), &line);
            match (reply, text) {
                (Some(reply), text) => {
                    let _ = reply.send(text.unwrap_or_default());
                }
                (None, Some(text)) => p4_io::eprintln_safe!("{text}"),
                (None, None) => {}
            }
        }
        let ready = wait_readable(&fds, 50).map_err(|e| CliError::input(format!("cannot wait for frames: {e}")))?;
        for (index, (port, interface)) in ports.iter().enumerate() {
            if !ready[index] {
                continue;
            }
            // Drain what is waiting, a bounded amount at a time so no port starves the others.
            interface
                .receive_each(&mut buffer, 64, |frame| {
                    summary.count_in(*port, frame.len());
                    let mut injected = switch.inject(*port, frame, start.elapsed().as_nanos() as u64);
                    frames_in += 1;
                    options.trace.print(frames_in, *port, &std::mem::take(&mut injected.trace));
                    for output in summary.outputs_of(injected, options.verbose) {
                        let Some((_, out)) = ports.iter().find(|(n, _)| *n == output.port) else {
                            *summary.drops.entry(format!("egress port {} has no interface", output.port)).or_default() += 1;
                            continue;
                        };
                        summary.count_out(output.port, output.data.len());
                        if let Err(error) = out.send(&output.data) {
                            *summary.drops.entry(format!("send failed: {}", error.kind())).or_default() += 1;
                        }
                    }
                })
                .map_err(|e| CliError::input(e.to_string()))?;
        }
        // Frames sent above may wait in a port's queue (AF_XDP kicks the kernel once per batch).
        for (_, port) in &ports {
            if let Err(error) = port.flush() {
                *summary.drops.entry(format!("send failed: {}", error.kind())).or_default() += 1;
            }
        }
    }
    if let Some(path) = &options.control {
        let _ = std::fs::remove_file(path);
    }
    Ok(summary)
}

/// Longest command line accepted (on stdin or the control socket).
const MAX_COMMAND_LINE: u64 = 64 * 1024;

/// A command line for the packet loop, and where its answer goes (`None`: stderr).
struct Request {
    line: String,
    reply: Option<mpsc::Sender<String>>,
}

/// Calls `each` with every line of `reader` until it returns false or the input ends. A line
/// longer than [`MAX_COMMAND_LINE`] is not read without bound: it becomes a `# refused: ...` line.
fn command_lines(mut reader: impl std::io::BufRead, mut each: impl FnMut(String) -> bool) {
    use std::io::{BufRead, Read};
    let mut line = Vec::new();
    let mut skipping = false;
    loop {
        line.clear();
        match (&mut reader).take(MAX_COMMAND_LINE).read_until(b'\n', &mut line) {
            Ok(0) | Err(_) => break,
            Ok(_) => {}
        }
        let complete = line.ends_with(b"\n");
        let overlong = !complete && line.len() as u64 == MAX_COMMAND_LINE;
        // The rest of a line already refused: skip it, up to its end.
        if skipping {
            skipping = !complete;
            continue;
        }
        skipping = overlong;
        let text = if overlong {
            format!("# refused: a command line longer than {MAX_COMMAND_LINE} bytes")
        } else {
            String::from_utf8_lossy(&line).trim_end().to_string()
        };
        if !each(text) {
            break;
        }
    }
}

/// Lines typed on standard input, read on their own thread so the packet loop never blocks on them.
fn stdin_requests(requests: mpsc::Sender<Request>) {
    std::thread::spawn(move || command_lines(std::io::stdin().lock(), |line| requests.send(Request { line, reply: None }).is_ok()));
}

/// The control socket: each connection sends command lines and gets one answer line block per
/// command (the text `p4forge switch` would print for it, then an empty line).
fn control_socket(path: &Path, requests: mpsc::Sender<Request>) -> CliResult<()> {
    if path.exists() {
        return Err(CliError::input(format!("--control {}: the path exists; remove it or choose another", path.display())));
    }
    let listener = UnixListener::bind(path)
        .map_err(|e| CliError::output(format!("cannot create control socket {}: {}", path.display(), p4_io::describe_io_error(&e))))?;
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(stream) = stream else { continue };
            let requests = requests.clone();
            std::thread::spawn(move || serve_connection(stream, requests));
        }
    });
    Ok(())
}

fn serve_connection(stream: UnixStream, requests: mpsc::Sender<Request>) {
    use std::io::Write;
    let Ok(mut writer) = stream.try_clone() else { return };
    command_lines(std::io::BufReader::new(stream), |line| {
        let (reply, answer) = mpsc::channel();
        if requests.send(Request { line, reply: Some(reply) }).is_err() {
            return false;
        }
        let Ok(text) = answer.recv() else { return false };
        writer.write_all(format!("{text}\n\n").as_bytes()).is_ok()
    });
}

/// What to answer to one command line (empty lines and comments get nothing).
fn answer(switch: &mut dyn Dataplane, line: &str) -> Option<String> {
    match line.strip_prefix("# refused: ") {
        Some(why) => Some(format!("refused: {why}")),
        None if line.trim().is_empty() || line.trim_start().starts_with('#') => None,
        None => Some(apply_line(switch, line)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lines_of(input: &[u8]) -> Vec<String> {
        let mut lines = Vec::new();
        command_lines(input, |line| {
            lines.push(line);
            true
        });
        lines
    }

    #[test]
    fn an_overlong_command_line_is_refused_once_and_the_next_line_still_read() {
        let mut input = vec![b'a'; 200_000];
        input.extend_from_slice(b"\nmc_mgrp_create 1\nlast");
        assert_eq!(lines_of(&input), ["# refused: a command line longer than 65536 bytes", "mc_mgrp_create 1", "last"]);
    }

    #[test]
    fn a_line_of_exactly_the_limit_with_its_newline_after_is_refused() {
        let mut input = vec![b'b'; MAX_COMMAND_LINE as usize];
        input.extend_from_slice(b"\nok\n");
        assert_eq!(lines_of(&input), ["# refused: a command line longer than 65536 bytes", "ok"]);
    }
}
