//! `p4forge rtl PROGRAM.p4 --out DIR`: the hardware target. Compiles, lowers (the mid-end), and
//! generates SystemVerilog (`p4_rtl::generate`) into a self-contained directory: the generated
//! modules, copies of the `hw/` modules they use, `files.f` (compile order, relative paths) and
//! `manifest.json`. Each file is written under a temporary name and renamed into place.

use std::path::{Path, PathBuf};

use crate::error::{CliError, CliResult};
use crate::frontend;

/// Options of the generator the CLI exposes.
#[derive(Clone, Debug, clap::Args)]
pub struct RtlOptions {
    /// Stream width in bits (multiple of 64).
    #[arg(long, default_value_t = 512)]
    pub width: u32,
    /// Pipeline clock in MHz (for reports).
    #[arg(long, default_value_t = 250.0)]
    pub clock: f64,
    /// Build exact-match tables as BCAMs (parallel compare) instead of hash tables.
    #[arg(long)]
    pub exact_bcam: bool,
    /// Ternary, LPM and BCAM tables in flip-flops (p4f_table_tcam) whatever their size; by default
    /// those of 64 entries or more go on block RAM (p4f_table_tcam_bram). With synth --table-sweep:
    /// the sweep's exact-bcam, ternary and lpm rows in flip-flops.
    #[arg(long)]
    pub tcam_flops: bool,
    /// What to build around the pipeline: `top`, the pipeline alone (`<prog>_top`: one stream in,
    /// tuser = ingress port; one out, tdest = egress port); `switch`, `<prog>_switch`: --ports
    /// ports, each with RX/TX queues in its own MAC clock, a round-robin arbiter in and a shared
    /// packet buffer out (a queue per port, no head-of-line blocking); `bump`, `<prog>_bump`: bump-in-the-wire, 2 ports and a direct path out;
    /// `op4t`, `<prog>_op4t`: the OP4T shell, a switch of 4 network ports and the host port (4)
    /// whose packet processor is two copies of the program behind p4f_decoupler, swapped live
    /// (pp_swap_req; docs/HARDWARE.md).
    #[arg(long, value_enum, default_value_t = Arch::Top)]
    pub arch: Arch,
    /// Ports of the wrapper: 2 to 64 for --arch switch (default 4); exactly 2 for --arch bump.
    #[arg(long, value_name = "N")]
    pub ports: Option<u32>,
    /// With --arch switch: one more port, number N (after the front-panel ports 0 to N-1), the
    /// host's DMA queue pair (p4f_host_dma) over descriptor rings in host memory; its memory and
    /// control ports are the wrapper's host_* ports (not in the AXI4-Lite map yet). rtl-sim sends
    /// --in host=FILE from the host and writes what reaches it to DIR/porthost.pcap.
    #[arg(long)]
    pub host_port: bool,
    /// With --host-port: the host port's DMA queue pairs, 1, 2, 4, 8 or 16 (p4f_host_dma_mq
    /// above 1: a descriptor ring pair each, sharing the memory channel; a packet to the host goes
    /// to the queue a field of it names, --host-queue-at; the queues' packets to the switch are
    /// merged round robin). The control ports then hold a field per queue.
    #[arg(long, value_name = "N", default_value_t = 1)]
    pub host_queues: u32,
    /// With --host-queues: where a packet to the host names its queue, in bits from its first bit
    /// in P4's order (a header's first field is its first byte's most significant bits); the
    /// queue number is the log2(N) bits from there, inside one byte. Example: 0 for a header in
    /// front whose first field is a bit<2> channel.
    #[arg(long, value_name = "BIT", default_value_t = 0)]
    pub host_queue_at: u32,
    /// With --arch switch or bump: on-chip traffic units per port (p4f_port_traffic in the port's
    /// MAC clock): a packet generator muxed into the port's RX stream before its timestamp unit,
    /// paced at a fixed-point period, and a capturer counting what the port sends (packets,
    /// bytes, first and last time); controlled and read through the wrapper's gen_*, traffic_*
    /// and cap_* ports (clk). rtl-sim --gen builds the model with it and runs on them.
    #[arg(long)]
    pub traffic: bool,
    /// With --arch op4t: another OP4T program for the second packet processor (u_pp1, its own
    /// modules and register map at manifest processor_stride), so that a swap hands the traffic
    /// to a different program; by default both run PROGRAM.
    #[arg(long, value_name = "PROG")]
    pub second: Option<PathBuf>,
}

/// `--arch`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Arch {
    Top,
    Switch,
    Bump,
    Op4t,
}

impl RtlOptions {
    pub fn options(&self) -> CliResult<p4_rtl::Options> {
        if self.width < 64 || self.width % 64 != 0 || self.width > 4096 {
            return Err(CliError::input(format!("--width {}: a multiple of 64 from 64 to 4096", self.width)));
        }
        if !(self.clock > 0.0 && self.clock < 2000.0) {
            return Err(CliError::input(format!("--clock {}: MHz, above 0 and below 2000", self.clock)));
        }
        let mut o = p4_rtl::Options { data_width: self.width, clock_mhz: self.clock, ..Default::default() };
        o.tables.exact_bcam = self.exact_bcam;
        o.tables.tcam_flops = self.tcam_flops;
        o.arch = match self.arch {
            Arch::Top => p4_rtl::wrapper::Arch::Top,
            Arch::Switch | Arch::Op4t => p4_rtl::wrapper::Arch::Switch,
            Arch::Bump => p4_rtl::wrapper::Arch::Bump,
        };
        let op4t_ports = p4_ir::arch::op4t::NETWORK_PORTS.len() as u32;
        o.ports = match (self.arch, self.ports) {
            (Arch::Top, Some(_)) => return Err(CliError::input("--ports goes with --arch switch or --arch bump")),
            (Arch::Op4t, Some(n)) if n != op4t_ports => {
                return Err(CliError::input(format!("--ports {n}: the OP4T shell has {op4t_ports} network ports and the host port")))
            }
            (Arch::Op4t, _) => op4t_ports,
            (Arch::Top | Arch::Switch, None) => 4,
            (Arch::Bump, None) => p4_rtl::wrapper::BUMP_PORTS,
            (_, Some(n)) => n,
        };
        p4_rtl::wrapper::check_ports(o.arch, o.ports).map_err(CliError::input)?;
        if self.host_port && !matches!(self.arch, Arch::Switch | Arch::Op4t) {
            return Err(CliError::input("--host-port goes with --arch switch"));
        }
        // The OP4T shell: its host port, and two processors behind the decoupler.
        o.host_port = self.host_port || self.arch == Arch::Op4t;
        if (self.host_queues != 1 || self.host_queue_at != 0) && !self.host_port {
            return Err(CliError::input("--host-queues and --host-queue-at go with --host-port"));
        }
        o.host_queues = p4_rtl::wrapper::HostQueues { count: self.host_queues, at_bit: self.host_queue_at };
        o.host_queues.select(self.width).map_err(CliError::input)?;
        o.processors = if self.arch == Arch::Op4t { 2 } else { 1 };
        if self.traffic && self.arch == Arch::Top {
            return Err(CliError::input("--traffic goes with --arch switch or --arch bump"));
        }
        o.traffic = self.traffic;
        if self.second.is_some() && self.arch != Arch::Op4t {
            return Err(CliError::input("--second goes with --arch op4t (a program for the second packet processor)"));
        }
        Ok(o)
    }

    /// [`RtlOptions::options`] with `--second`'s program compiled and lowered (searching
    /// `includes`), refused unless it is an OP4T program.
    pub fn options_with(&self, includes: &[PathBuf]) -> CliResult<p4_rtl::Options> {
        let mut o = self.options()?;
        if let Some(path) = &self.second {
            o.second = Some(second_program(path, includes)?);
        }
        Ok(o)
    }
}

/// The program of the OP4T shell's second packet processor.
pub fn second_program(path: &Path, includes: &[PathBuf]) -> CliResult<p4_rtl::SecondProgram> {
    let compiled = frontend::compile(path, includes)?;
    p4_io::eprint_safe!("{}", compiled.warnings);
    crate::cmd::op4t::check_op4t(&compiled, path)?;
    let compiled = compiled.lowered(path)?;
    let name = path.file_stem().map(|s| s.to_string_lossy().to_string()).unwrap_or_else(|| "p4".into());
    Ok(p4_rtl::SecondProgram { program: std::sync::Arc::new(compiled.program), name })
}

/// Compiles `program` to a design (the located refusal of anything outside the hardware subset is
/// an exit-1 error).
pub fn design(program: &Path, includes: &[PathBuf], opts: &p4_rtl::Options) -> CliResult<(p4_rtl::Design, frontend::Compiled)> {
    let compiled = frontend::compile(program, includes)?;
    p4_io::eprint_safe!("{}", compiled.warnings);
    design_of(compiled, program, opts)
}

/// The design of a compiled program (named `program` in messages), and the program lowered.
fn design_of(compiled: frontend::Compiled, program: &Path, opts: &p4_rtl::Options) -> CliResult<(p4_rtl::Design, frontend::Compiled)> {
    let compiled = compiled.lowered(program)?;
    if compiled.program.main.type_name.is_empty() {
        return Err(CliError::failed(format!("{}: {}, so there is nothing to build", program.display(), p4_sema::NO_MAIN_MESSAGE)));
    }
    let name = program.file_stem().map(|s| s.to_string_lossy().to_string()).unwrap_or_else(|| "p4".into());
    match p4_rtl::generate(&compiled.program, &name, opts) {
        Ok(d) => Ok((d, compiled)),
        Err(e) => Err(CliError::failed(format!("{} cannot be built for the hardware target", program.display()))
            .with_detail(frontend::render_error_at(Some(e.span), e.to_string(), &compiled.sources))),
    }
}

/// Writes `design` into `out` (created if missing).
pub fn write_design(design: &p4_rtl::Design, out: &Path) -> CliResult<()> {
    p4_io::output::create_dir(out).map_err(|e| CliError::output(e.to_string()))?;
    let hw_dir = out.join("hw");
    p4_io::output::create_dir(&hw_dir).map_err(|e| CliError::output(e.to_string()))?;
    let mut missing = Vec::new();
    for m in &design.hw_modules {
        match p4_rtl::hw::module(m) {
            Some(text) => write(&hw_dir.join(format!("{m}.sv")), text.as_bytes())?,
            None => missing.push(m.as_str()),
        }
    }
    for (name, text) in &design.generated {
        write(&out.join(name), text.as_bytes())?;
    }
    let files = design.manifest.files.join("\n") + "\n";
    write(&out.join("files.f"), files.as_bytes())?;
    let manifest = serde_json::to_string_pretty(&design.manifest).map_err(|e| CliError::failed(e.to_string()))? + "\n";
    write(&out.join("manifest.json"), manifest.as_bytes())?;
    if !missing.is_empty() {
        return Err(CliError::failed(format!("this p4forge was built without the hw modules {} (the design in {} is incomplete)", missing.join(", "), out.display())));
    }
    Ok(())
}

fn write(path: &Path, bytes: &[u8]) -> CliResult<()> {
    p4_io::output::write(path, bytes).map_err(|e| CliError::output(e.to_string()))
}

/// `p4forge rtl`.
pub fn rtl(program: &Path, includes: &[PathBuf], out: &Path, opts: &RtlOptions) -> CliResult<String> {
    let (design, _) = design(program, includes, &opts.options_with(includes)?)?;
    write_design(&design, out)?;
    let m = &design.manifest;
    Ok(format!(
        "{}: {} files in {} (top {}, {} tables, pipeline {} cycles, parser window {} bytes)\n",
        program.display(),
        m.files.len(),
        out.display(),
        m.top,
        m.tables.len(),
        m.pipeline_latency_cycles,
        m.parser_window_bytes
    ))
}

/// Where built models are kept between runs: `$P4FORGE_RTL_CACHE`, else
/// `$XDG_CACHE_HOME/p4forge/rtl`, else `~/.cache/p4forge/rtl`; one directory per program path and
/// design options (stream width, table kind), so that runs alternating between options each find
/// their own model instead of rebuilding one directory over and over.
pub fn model_dir(program: &Path, opts: &p4_rtl::Options) -> PathBuf {
    let base = std::env::var_os("P4FORGE_RTL_CACHE")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("XDG_CACHE_HOME").map(|d| PathBuf::from(d).join("p4forge/rtl")))
        .or_else(|| std::env::var_os("HOME").map(|d| PathBuf::from(d).join(".cache/p4forge/rtl")))
        .unwrap_or_else(|| std::env::temp_dir().join("p4forge-rtl"));
    let abs = std::fs::canonicalize(program).unwrap_or_else(|_| program.to_path_buf());
    let h = p4_rtl::sim::fnv64([abs.to_string_lossy().as_bytes()]);
    let stem = program.file_stem().map(|s| s.to_string_lossy().to_string()).unwrap_or_default();
    let bcam = if opts.tables.exact_bcam { "-bcam" } else { "" };
    let flops = if opts.tables.tcam_flops { "-flops" } else { "" };
    // A wrapped design is another model (its own harness too).
    let arch = match opts.arch {
        p4_rtl::wrapper::Arch::Top => String::new(),
        a => format!(
            "-{}{}{}{}{}",
            a.name(),
            opts.ports,
            match (opts.host_port, opts.host_queues.count) {
                (false, _) => String::new(),
                (true, 1) => "h".to_string(),
                (true, n) => format!("h{n}q{}", opts.host_queues.at_bit),
            },
            if opts.traffic { "t" } else { "" },
            if opts.processors == 2 { "pp2" } else { "" }
        ),
    };
    // A second program is another design (its name here; the build's key tells apart two of one name).
    let arch = match &opts.second {
        Some(s) => format!("{arch}-{}", s.name),
        None => arch,
    };
    base.join(format!("{stem}-{:08x}-{}b{bcam}{flops}{arch}", h as u32, opts.data_width))
}

/// Builds (or reuses) the Verilator model of `program` and starts it behind the dataplane
/// interfaces.
pub fn rtl_switch(program: &Path, includes: &[PathBuf], opts: &p4_rtl::Options) -> CliResult<p4_rtl::sim::RtlSwitch> {
    if opts.arch != p4_rtl::wrapper::Arch::Top {
        // This harness drives the pipeline's single stream; a wrapped design runs on generated
        // traffic (`rtl-sim --gen`, [`wrapped_switch`]).
        return Err(CliError::input(format!(
            "--arch {}: pcap traffic drives the pipeline alone (--arch top); a whole switch runs on generated traffic (rtl-sim --gen PORT=SIZE@RATE)",
            opts.arch.name()
        )));
    }
    model_switch(program, includes, opts)
}

/// Builds (or reuses) the Verilator model of the wrapped design `opts.arch` asks for (`switch` or
/// `bump`), with the harness that models a MAC per port ([`p4_rtl::switch_sim`]).
pub fn wrapped_switch(program: &Path, includes: &[PathBuf], opts: &p4_rtl::Options) -> CliResult<p4_rtl::sim::RtlSwitch> {
    if opts.arch == p4_rtl::wrapper::Arch::Top {
        return Err(CliError::input("generated traffic (--gen) drives the ports of a switch: add --arch switch --ports N (or --arch bump)"));
    }
    model_switch(program, includes, opts)
}

fn model_switch(program: &Path, includes: &[PathBuf], opts: &p4_rtl::Options) -> CliResult<p4_rtl::sim::RtlSwitch> {
    let compiled = frontend::compile(program, includes)?;
    p4_io::eprint_safe!("{}", compiled.warnings);
    switch_of(compiled, program, opts)
}

/// Builds (or reuses) the Verilator model of a compiled program (named `program` in messages and
/// in the model's directory) and starts it behind the dataplane interfaces.
pub fn switch_of(compiled: frontend::Compiled, program: &Path, opts: &p4_rtl::Options) -> CliResult<p4_rtl::sim::RtlSwitch> {
    switch_built(compiled, program, opts, p4_rtl::sim::CxxSpeed::QuickBuild)
}

/// [`switch_of`], with the model's C++ compiled as `speed` says (in a directory of its own).
pub fn switch_built(compiled: frontend::Compiled, program: &Path, opts: &p4_rtl::Options, speed: p4_rtl::sim::CxxSpeed) -> CliResult<p4_rtl::sim::RtlSwitch> {
    let (design, compiled) = design_of(compiled, program, opts)?;
    let mut dir = model_dir(program, opts);
    if speed == p4_rtl::sim::CxxSpeed::FastRun {
        dir.as_mut_os_string().push("-O2");
    }
    let model = p4_rtl::sim::build_with(&design, &dir, speed, &mut |line| p4_io::eprintln_safe!("{line}"))
        .map_err(|e| CliError::failed(format!("{}: {e}", program.display())))?;
    let second = opts.second.as_ref().map(|s| s.program.clone());
    p4_rtl::sim::RtlSwitch::with_second(std::sync::Arc::new(compiled.program), second, &model).map_err(|e| CliError::failed(format!("{}: {e}", program.display())))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn models_of_other_widths_or_table_kinds_are_kept_apart() {
        let program = Path::new("examples/l2l3/l2l3.p4");
        let mut opts = p4_rtl::Options { data_width: 256, ..Default::default() };
        let narrow = model_dir(program, &opts);
        opts.data_width = 512;
        let wide = model_dir(program, &opts);
        opts.tables.exact_bcam = true;
        let bcam = model_dir(program, &opts);
        assert!(narrow.to_string_lossy().ends_with("-256b") && wide.to_string_lossy().ends_with("-512b"), "{narrow:?} {wide:?}");
        assert!(bcam.to_string_lossy().ends_with("-512b-bcam"), "{bcam:?}");
        opts.tables.tcam_flops = true;
        let flops = model_dir(program, &opts);
        assert!(flops.to_string_lossy().ends_with("-512b-bcam-flops"), "{flops:?}");
        assert_eq!(narrow.parent(), wide.parent());
        // A switch with traffic units is another model than one without.
        let switch = p4_rtl::Options { arch: p4_rtl::wrapper::Arch::Switch, ports: 2, ..Default::default() };
        let plain = model_dir(program, &switch);
        let traffic = model_dir(program, &p4_rtl::Options { traffic: true, ..switch.clone() });
        assert!(plain.to_string_lossy().ends_with("-switch2") && traffic.to_string_lossy().ends_with("-switch2t"), "{plain:?} {traffic:?}");
    }
}
