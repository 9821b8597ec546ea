//! `p4forge vdp migrate`: one VDP moved to the software path and back while every VDP carries
//! line-rate traffic, in the RTL simulation of the 4-port switch with its host port.
//!
//! The VDPs are those of `vdp throughput` ([`super::throughput::tenants`]). The supervisor plans
//! the move to software and the move back; the software path (the pipeline on the software
//! target) gets the VDP's entries first, and the hardware's table writes of each move go out on
//! the switch's AXI4-Lite port during the run, at a third and at two thirds of it, while every
//! port takes frames at line rate. The hardware sends the moving VDP's frames to the host (a
//! `dma_t` in front) while the move lasts, into the RX ring of the VDP's DMA channel (the host
//! port has [`super::HOST_QUEUES`]' four queue pairs); the host polls the rings in turn, takes up
//! to [`BATCH`] frames from one at a time, hands them to the software path, entered on their
//! ingress port, and sends what it makes back on the same channel's TX ring with the port it
//! chose in front, which the hardware sends out of that port (a second run).
//!
//! Checked against the software target with the VDPs in hardware (the golden model): the other
//! VDPs' frames come out of each port as it makes them, all of them and in order; each of the
//! moving VDP's frames comes out exactly once, as it makes it, by the hardware path or by the
//! software path.

use std::collections::{BTreeMap, BTreeSet};
use std::path::PathBuf;

use serde::Serialize;

use super::supervisor::{Place, Supervisor};
use super::throughput::{compare, frames, tenants, PORTS};
use super::{names_of, Loaded};
use crate::error::{CliError, CliResult};
use p4_dataplane::control::{ControlPlane, PacketIo};

/// The host port of the switch (after the four network ports; `HOST_PORT` in vdp.p4).
const HOST: u32 = PORTS;
/// Frames the host takes from one RX ring per poll.
pub const BATCH: usize = 32;

/// What `vdp migrate` runs.
pub struct MigrateOptions {
    pub program: PathBuf,
    pub includes: Vec<PathBuf>,
    pub vdps: u32,
    /// The VDP that moves.
    pub vdp: u16,
    pub size: usize,
    /// Frames per port.
    pub packets: u32,
    pub rtl: p4_rtl::Options,
    pub speed: p4_rtl::sim::CxxSpeed,
}

/// The frames of one group of VDPs.
#[derive(Clone, Debug, Default, Serialize)]
pub struct Frames {
    pub frames_in: u64,
    pub frames_out: u64,
    /// Frames in that never came out as the golden model makes them (for the others: missing
    /// from their port's sequence, so a frame out of order counts here too).
    pub lost: u64,
    /// Frames out that are not what the golden model makes of any frame in (or come again).
    pub wrong: u64,
}

/// The report.
#[derive(Clone, Debug, Serialize)]
pub struct MigrateReport {
    pub program: String,
    pub vdps: u32,
    pub vdp: u16,
    pub frame_bytes: usize,
    pub packets_per_port: u32,
    /// When the hardware's writes of each move started, ns after the traffic's start.
    pub to_software_at_ns: u64,
    pub back_at_ns: u64,
    /// Table writes (register writes) of each move in the hardware.
    pub entries_to_software: usize,
    pub entries_back: usize,
    pub others: Frames,
    pub moved: Frames,
    /// The moving VDP's frames out of the hardware path, and of the software path.
    pub by_hardware: u64,
    pub by_software: u64,
    /// Frames the hardware sent to the host that no VDP in software took, or that came on a
    /// ring other than their VDP's channel's (0 when all is well).
    pub host_unclaimed: u64,
    /// Frames the host took from each DMA channel's RX ring (all on the moving VDP's), and the
    /// polls that found frames.
    pub host_rx_by_channel: Vec<u64>,
    pub host_polls: u64,
    /// Nothing lost or wrong, and the moving VDP's frames went both ways.
    pub clean: bool,
}

impl MigrateReport {
    pub fn render(&self) -> String {
        let mut o = format!(
            "{}: VDP {} of {} moved to the software path at {} ns and back at {} ns under line-rate traffic ({} frames of {} bytes per port)\n",
            self.program, self.vdp, self.vdps, self.to_software_at_ns, self.back_at_ns, self.packets_per_port, self.frame_bytes
        );
        for (what, f) in [("other VDPs", &self.others), (&*format!("VDP {}", self.vdp), &self.moved)] {
            o += &format!("{what:>12}: {} in, {} out, {} lost, {} wrong\n", f.frames_in, f.frames_out, f.lost, f.wrong);
        }
        o += &format!(
            "VDP {}: {} frames by the hardware path, {} by the software path; {} hardware table operations to move it, {} back; {} frames at the host unclaimed\n",
            self.vdp, self.by_hardware, self.by_software, self.entries_to_software, self.entries_back, self.host_unclaimed
        );
        o += &format!(
            "host: frames per DMA channel's RX ring {:?} (VDP {} on channel {}), {} polls of up to {BATCH}\n",
            self.host_rx_by_channel,
            self.vdp,
            super::channel_of(self.vdp),
            self.host_polls
        );
        o += if self.clean { "clean: nothing lost, nothing wrong, the other VDPs in order\n" } else { "NOT clean (see above)\n" };
        o
    }
}

/// A frame's VDP (its VLAN id) and sequence number, wherever it is in the frame (`at`: bytes
/// before its Ethernet header).
fn id(frame: &[u8], at: usize) -> Option<(u16, u64)> {
    let vlan = u16::from_be_bytes(frame.get(at + 14..at + 16)?.try_into().ok()?) & 0xfff;
    let seq = u64::from_be_bytes(frame.get(at + 46..at + 54)?.try_into().ok()?);
    Some((vlan, seq))
}

fn check(options: &MigrateOptions) -> CliResult<()> {
    if !(4..=1024).contains(&options.vdps) {
        return Err(CliError::input(format!("--vdps {}: 4 to 1024", options.vdps)));
    }
    if options.vdp == 0 || u32::from(options.vdp) > options.vdps {
        return Err(CliError::input(format!("--vdp {}: one of the VDPs, 1 to {}", options.vdp, options.vdps)));
    }
    if !(64..=1518).contains(&options.size) {
        return Err(CliError::input(format!("--size {}: frames are 64 to 1518 bytes", options.size)));
    }
    if !(30..=super::throughput::MAX_PACKETS).contains(&options.packets) {
        return Err(CliError::input(format!("--packets {}: 30 to {} per port", options.packets, super::throughput::MAX_PACKETS)));
    }
    Ok(())
}

pub fn migrate(options: &MigrateOptions) -> CliResult<MigrateReport> {
    check(options)?;
    let compile = || super::compile(&options.program, &options.includes);
    let mut switches = crate::frontend::software_switches(compile()?, &options.program, 2, Default::default())?;
    let (mut golden, mut software) = (switches.remove(0), switches.remove(0));
    let catalog = golden.control_catalog().cloned().ok_or_else(|| CliError::failed("the software target has no control plane"))?;
    let (names, geometry) = names_of(&catalog, 1).map_err(|e| CliError::input(format!("{}: {e}", options.program.display())))?;
    let mut sup = Supervisor::new(geometry).map_err(CliError::input)?;
    let ops = tenants(&mut sup, options.vdps).map_err(CliError::input)?;
    let mut switch = crate::cmd::rtl::switch_built(compile()?, &options.program, &options.rtl, options.speed)?;
    switch.set_paced(true).map_err(CliError::input)?;
    let mut hardware = Loaded::default();
    let refused = |e: String| CliError::failed(format!("the entries were refused: {e}"));
    hardware.apply(&mut switch, &names, &ops).map_err(refused)?;
    Loaded::default().apply(&mut golden, &names, &ops).map_err(refused)?;

    // The frames and what the golden model makes of each.
    let rows = frames(options.vdps, options.size, options.packets);
    let mut want: BTreeMap<(u16, u64), (u32, Vec<u8>)> = BTreeMap::new();
    let mut others_want: BTreeMap<u32, Vec<Vec<u8>>> = BTreeMap::new();
    let (mut others, mut moved) = (Frames::default(), Frames::default());
    for (port, data) in rows.iter().flatten() {
        let key = id(data, 0).ok_or_else(|| CliError::failed("a frame without its id"))?;
        let out = golden.inject(*port, data, 0).outputs;
        let [o] = &out[..] else { return Err(CliError::failed(format!("the golden model sent {} frames for one", out.len()))) };
        if key.0 == options.vdp {
            moved.frames_in += 1;
            want.insert(key, (o.port, o.data.clone()));
        } else {
            others.frames_in += 1;
            others_want.entry(o.port).or_default().push(o.data.clone());
        }
    }

    // The moves: the software path first, then the hardware's writes during the run.
    let duration_ns = f64::from(options.packets) * crate::cmd::op4t::wire_ns(options.size);
    let (t1, t2) = ((duration_ns / 3.0) as u64, (duration_ns * 2.0 / 3.0) as u64);
    let away = sup.change(|s| s.migrate(options.vdp, Place::Software)).map_err(CliError::failed)?;
    let back = sup.change(|s| s.migrate(options.vdp, Place::Hardware)).map_err(CliError::failed)?;
    let software_ops: Vec<_> = away.software.clone();
    Loaded::default().apply(&mut software, &names, &software_ops).map_err(|e| CliError::failed(format!("the software path: {e}")))?;
    for (at, plan) in [(t1, &away), (t2, &back)] {
        switch.write_during_run(Some(at)).map_err(CliError::failed)?;
        hardware.apply(&mut switch, &names, &plan.hardware).map_err(refused)?;
    }
    switch.write_during_run(None).map_err(CliError::failed)?;

    let gap_ns = crate::cmd::op4t::wire_ns(options.size);
    for (k, row) in rows.iter().enumerate() {
        for (port, data) in row {
            switch.queue(*port, (k as f64 * gap_ns).round() as u64, data).map_err(CliError::input)?;
        }
    }
    let first = switch.run().map_err(CliError::failed)?.clone();

    // The host: the moving VDP's frames through the software path, and back into the hardware.
    let mut seen: BTreeSet<(u16, u64)> = BTreeSet::new();
    let mut report_moved = |moved: &mut Frames, data: &[u8], at_host: bool, by: &mut (u64, u64)| {
        moved.frames_out += 1;
        match id(data, 0) {
            Some(key) if want.get(&key).is_some_and(|(_, w)| w == data) && seen.insert(key) => {
                if at_host {
                    by.1 += 1;
                } else {
                    by.0 += 1;
                }
            }
            _ => moved.wrong += 1,
        }
    };
    let mut by = (0u64, 0u64);
    let mut others_got: BTreeMap<u32, Vec<Vec<u8>>> = BTreeMap::new();
    let mut host_unclaimed = 0;
    let queues = super::HOST_QUEUES.count as usize;
    let mut rings: Vec<std::collections::VecDeque<&[u8]>> = vec![Default::default(); queues];
    for o in &first.outputs {
        if o.port == HOST {
            rings[o.queue as usize % queues].push_back(&o.data);
        } else if id(&o.data, 0).is_some_and(|(vid, _)| vid == options.vdp) {
            report_moved(&mut moved, &o.data, false, &mut by);
        } else {
            others.frames_out += 1;
            others_got.entry(o.port).or_default().push(o.data.clone());
        }
    }
    let host_rx_by_channel: Vec<u64> = rings.iter().map(|r| r.len() as u64).collect();
    // The host polls the rings in turn, up to BATCH frames from one at a time, and answers each
    // frame on its channel's TX ring.
    let (mut queued_back, mut host_polls) = (0, 0);
    while rings.iter().any(|r| !r.is_empty()) {
        for (channel, ring) in rings.iter_mut().enumerate() {
            if ring.is_empty() {
                continue;
            }
            host_polls += 1;
            for data in ring.drain(..ring.len().min(BATCH)) {
                let header = data.get(..4).unwrap_or(&[]);
                let vid = header.get(..2).map_or(0, |b| u16::from_be_bytes([b[0], b[1]]) & 0xfff);
                let in_port = header.get(2..4).map_or(0, |b| u32::from(u16::from_be_bytes([b[0], b[1]]) & 0x1ff));
                if vid != options.vdp || data.len() < 4 || channel != usize::from(super::channel_of(vid)) {
                    host_unclaimed += 1;
                    continue;
                }
                for s in software.inject(in_port, &data[4..], 0).outputs {
                    if s.port >= PORTS {
                        host_unclaimed += 1;
                        continue;
                    }
                    let back = [(u16::from(super::channel_of(vid)) << 14 | vid).to_be_bytes(), (s.port as u16).to_be_bytes()].concat();
                    switch.queue_host(channel as u32, &[back, s.data].concat()).map_err(CliError::input)?;
                    queued_back += 1;
                }
            }
        }
    }
    if queued_back > 0 {
        switch.set_paced(false).map_err(CliError::input)?;
        let second = switch.run().map_err(CliError::failed)?.clone();
        for o in &second.outputs {
            if o.port < PORTS && want.get(&id(&o.data, 0).unwrap_or_default()).is_some_and(|(p, _)| *p == o.port) {
                report_moved(&mut moved, &o.data, true, &mut by);
            } else {
                moved.frames_out += 1;
                moved.wrong += 1;
            }
        }
    }
    let (matched, wrong) = compare(&others_want, &others_got);
    others.lost = others.frames_in - matched.min(others.frames_in);
    others.wrong = wrong;
    moved.lost = moved.frames_in - seen.len() as u64;
    let clean = others.lost == 0 && others.wrong == 0 && moved.lost == 0 && moved.wrong == 0 && host_unclaimed == 0 && by.0 > 0 && by.1 > 0;
    Ok(MigrateReport {
        program: options.program.display().to_string(),
        vdps: options.vdps,
        vdp: options.vdp,
        frame_bytes: options.size,
        packets_per_port: options.packets,
        to_software_at_ns: t1,
        back_at_ns: t2,
        entries_to_software: away.hardware.len(),
        entries_back: back.hardware.len(),
        others,
        moved,
        by_hardware: by.0,
        by_software: by.1,
        host_unclaimed,
        host_rx_by_channel,
        host_polls,
        clean,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_frame_is_known_by_its_vlan_and_sequence_number_behind_any_header() {
        let f = super::super::throughput::frame(9, 77, 7, 64);
        assert_eq!(id(&f, 0), Some((9, 77)));
        let with_dma = [vec![0, 9, 0, 0], f].concat();
        assert_eq!(id(&with_dma, 4), Some((9, 77)));
        assert_eq!(id(&with_dma[..40], 4), None);
    }
}
