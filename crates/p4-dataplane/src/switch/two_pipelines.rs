//! The traffic manager of a package with two pipelines ([`p4_arch::TrafficManager::TwoPipelines`],
//! PSA's), after the PSA specification's packet paths. Each pipeline is parser, control and
//! deparser; between them the packet is deparsed and parsed again, and only the handoff storage
//! ([`p4_arch::SharedKind::Handoff`]: normal, clone, resubmit and recirculate metadata) carries
//! over, so every pass starts from a zeroed frame with that storage restored. After ingress: a
//! clone of the packet as it arrived for the clone session if asked; then drop (the output metadata's
//! default), resubmission of the packet as it arrived, a copy per member of a multicast group, or
//! one copy to a port. After egress: a clone if asked; then drop, recirculation of the deparsed
//! packet (a copy sent to the recirculation port), or out of its port.
//!
//! The intrinsic fields are found per block ([`crate::fast::exec::TwoPipelineMeta::blocks`]) by
//! the role the architecture gives them, so nothing here names a PSA struct or field.

use p4_arch::{MetaRole, PacketInstance, SideEffect};

use super::{Switch, MAX_JOBS, MAX_LOOPS};
use crate::batch::{BatchOut, DropReason, PacketIn};
use crate::trace::Event;

/// The blocks of [`crate::fast::exec::TwoPipelineMeta::at`], by position there.
const INGRESS_PARSER: usize = 0;
const INGRESS: usize = 1;
const EGRESS_PARSER: usize = 3;
const EGRESS: usize = 4;
const EGRESS_DEPARSER: usize = 5;

/// Work one packet causes, done in FIFO order.
pub(super) enum Job {
    /// `data` enters the first pipeline from `port` on the path of `kind`, with the handoff
    /// storage `handoff` (a resubmission's or a recirculation's metadata; empty: none).
    Ingress { data: Vec<u8>, port: u32, kind: PacketInstance, handoff: Vec<u128>, depth: u32 },
    /// `data` enters the second pipeline for `port` as copy `rid` on the path of `kind`; `cut`:
    /// the bytes a truncating clone session cuts it to.
    Egress { data: Vec<u8>, port: u32, kind: PacketInstance, rid: u32, class: u128, handoff: Vec<u128>, depth: u32, cut: Option<u32> },
}

impl Switch {
    /// One packet arriving on `packet.port` (which fits the port fields) and everything it
    /// causes, to completion.
    pub(super) fn two_pipelines<const T: bool>(&mut self, packet: &PacketIn<'_>, res: &mut BatchOut) {
        let mut jobs = std::mem::take(&mut self.two_jobs);
        // The packet itself first, read where it lies; then the copies it caused, in order.
        self.first_pipeline::<T>(packet.data, packet.port, PacketInstance::Normal, &[], 0, res, &mut jobs);
        let mut done = 1;
        while let Some(job) = jobs.pop_front() {
            done += 1;
            if done > MAX_JOBS {
                self.dropped::<T>(res, DropReason::TooManyCopies(MAX_JOBS));
                break;
            }
            match job {
                Job::Ingress { data, port, kind, handoff, depth } => {
                    self.first_pipeline::<T>(&data, port, kind, &handoff, depth, res, &mut jobs);
                    self.spare.give_bytes(data);
                }
                Job::Egress { data, port, kind, rid, class, handoff, depth, cut } => {
                    self.second_pipeline::<T>(&data, port, kind, rid, class, &handoff, depth, cut, res, &mut jobs);
                    self.spare.give_bytes(data);
                }
            }
        }
        jobs.clear();
        self.two_jobs = jobs;
        self.hand_out_log(res);
    }

    /// Ingress parser, ingress and ingress deparser, then the decisions after ingress.
    #[allow(clippy::too_many_arguments)]
    fn first_pipeline<const T: bool>(&mut self, data: &[u8], port: u32, kind: PacketInstance, handoff: &[u128], depth: u32, res: &mut BatchOut, jobs: &mut std::collections::VecDeque<Job>) {
        let path = self.path(kind);
        if T && self.ctx.trace.is_some() {
            self.trace::<T>(|| Event::Ingress { port, length: data.len(), instance: kind_name(kind) });
        }
        self.start_pass(0, data, port, path, handoff);
        self.set_meta(INGRESS_PARSER, MetaRole::IngressPort, u128::from(port));
        self.set_meta(INGRESS_PARSER, MetaRole::InstanceType, path);
        let error = self.run_parser::<T>(false, None);
        self.set_meta(INGRESS, MetaRole::IngressPort, u128::from(port));
        self.set_meta(INGRESS, MetaRole::InstanceType, path);
        self.set_meta(INGRESS, MetaRole::IngressTimestamp, u128::from(self.ctx.now_us));
        self.set_meta(INGRESS, MetaRole::ParserError, u128::from(error));
        // Ingress drops the packet unless it sends it somewhere.
        self.set_meta(INGRESS, MetaRole::Drop, 1);
        self.trace_snapshot::<T>();
        if crate::fast::ingress::<T>(&self.prog, &mut self.ctx) || crate::fast::ingress_deparse::<T>(&self.prog, &mut self.ctx) {
            self.abort::<T>(res);
            return;
        }
        let deparsed = self.deparsed();
        let handoff = self.save_handoff();
        let class = self.meta(INGRESS, MetaRole::ClassOfService);
        if self.meta(INGRESS, MetaRole::Clone) != 0 {
            let session = self.meta(INGRESS, MetaRole::CloneSession) as u32;
            self.trace::<T>(|| Event::Decision { decision: format!("clone session {session}") });
            let cut = self.replication.truncation(session);
            // PSA: an ingress-to-egress clone is the packet as it arrived, with no ingress changes.
            for (rid, out_port) in self.mirror_targets(session) {
                let data = self.spare.bytes(&[data]);
                jobs.push_back(Job::Egress { data, port: out_port, kind: PacketInstance::IngressClone, rid, class: 0, handoff: handoff.clone(), depth, cut });
            }
        }
        if self.meta(INGRESS, MetaRole::Drop) != 0 {
            self.trace::<T>(|| Event::Decision { decision: "drop".into() });
            let control = self.prog.pipeline.ingress.last().copied().unwrap_or(0) as u32;
            self.dropped::<T>(res, DropReason::DropFlag { control, error });
            self.spare.give_bytes(deparsed);
            return;
        }
        if self.meta(INGRESS, MetaRole::Resubmit) != 0 {
            self.spare.give_bytes(deparsed);
            if depth >= MAX_LOOPS {
                self.dropped::<T>(res, DropReason::TooManyLoops(SideEffect::Resubmit));
                return;
            }
            self.trace::<T>(|| Event::Decision { decision: kind_name(PacketInstance::Resubmitted) });
            let data = self.spare.bytes(&[data]);
            jobs.push_back(Job::Ingress { data, port, kind: PacketInstance::Resubmitted, handoff, depth: depth + 1 });
            return;
        }
        let group = self.meta(INGRESS, MetaRole::MulticastGroup) as u32;
        if group != 0 {
            let members = self.group_members(group);
            self.trace::<T>(|| Event::Decision { decision: format!("multicast group {group}: {} copies", members.len()) });
            if members.is_empty() {
                self.dropped::<T>(res, DropReason::EmptyGroup(group));
            }
            for (rid, out_port) in members {
                let data = self.spare.bytes(&[&deparsed]);
                jobs.push_back(Job::Egress { data, port: out_port, kind: PacketInstance::Replica, rid, class, handoff: handoff.clone(), depth, cut: None });
            }
            self.spare.give_bytes(deparsed);
            return;
        }
        let out_port = self.meta(INGRESS, MetaRole::EgressSpec) as u32;
        self.trace::<T>(|| Event::Decision { decision: format!("unicast to port {out_port}") });
        self.second_pipeline::<T>(&deparsed, out_port, PacketInstance::Unicast, 0, class, &handoff, depth, None, res, jobs);
        self.spare.give_bytes(deparsed);
    }

    /// Egress parser, egress and egress deparser for one copy, then the decisions after egress.
    #[allow(clippy::too_many_arguments)]
    fn second_pipeline<const T: bool>(&mut self, data: &[u8], port: u32, kind: PacketInstance, rid: u32, class: u128, handoff: &[u128], depth: u32, cut: Option<u32>, res: &mut BatchOut, jobs: &mut std::collections::VecDeque<Job>) {
        let path = self.path(kind);
        if T && self.ctx.trace.is_some() {
            self.trace::<T>(|| Event::Egress { port, instance: kind_name(kind), rid });
        }
        self.start_pass(1, data, port, path, handoff);
        self.set_meta(EGRESS_PARSER, MetaRole::EgressPort, u128::from(port));
        self.set_meta(EGRESS_PARSER, MetaRole::InstanceType, path);
        let error = self.run_parser::<T>(true, None);
        self.set_meta(EGRESS, MetaRole::ClassOfService, class);
        self.set_meta(EGRESS, MetaRole::EgressPort, u128::from(port));
        self.set_meta(EGRESS, MetaRole::InstanceType, path);
        self.set_meta(EGRESS, MetaRole::EgressRid, u128::from(rid));
        self.set_meta(EGRESS, MetaRole::EgressTimestamp, u128::from(self.ctx.now_us));
        self.set_meta(EGRESS, MetaRole::ParserError, u128::from(error));
        self.set_meta(EGRESS_DEPARSER, MetaRole::EgressPort, u128::from(port));
        self.trace_snapshot::<T>();
        if crate::fast::egress::<T>(&self.prog, &mut self.ctx) || crate::fast::deparse::<T>(&self.prog, &mut self.ctx) {
            self.abort::<T>(res);
            return;
        }
        let clone = self.meta(EGRESS, MetaRole::Clone) != 0;
        let drop = self.meta(EGRESS, MetaRole::Drop) != 0;
        let looped = Some(port) == self.prog.two_pipelines.as_ref().map(|t| t.loop_port);
        // The common case, one copy out of its port, goes out from where the deparser left it.
        if !clone && !drop && !looped {
            let c = &self.ctx;
            let start = c.cursor.div_ceil(8).min(c.pkt.len());
            res.push_packet(port, [&c.wire_out[..], c.pkt.get(start..).unwrap_or(&[])], cut);
            if let (true, Some(trace), Some(out)) = (T, self.ctx.trace.as_mut(), res.packets.last()) {
                trace.push(Event::Output { port, length: out.len });
            }
            return;
        }
        let mut deparsed = self.deparsed();
        if let Some(n) = cut {
            deparsed.truncate(n as usize);
        }
        if clone {
            let session = self.meta(EGRESS, MetaRole::CloneSession) as u32;
            self.trace::<T>(|| Event::Decision { decision: format!("clone session {session}") });
            let cut = self.replication.truncation(session);
            let handoff = self.save_handoff();
            for (rid, out_port) in self.mirror_targets(session) {
                let data = self.spare.bytes(&[&deparsed]);
                jobs.push_back(Job::Egress { data, port: out_port, kind: PacketInstance::EgressClone, rid, class: 0, handoff: handoff.clone(), depth, cut });
            }
        }
        if drop {
            self.trace::<T>(|| Event::Decision { decision: "drop".into() });
            let control = self.prog.pipeline.egress.last().copied().unwrap_or(0) as u32;
            self.dropped::<T>(res, DropReason::DropFlag { control, error });
            self.spare.give_bytes(deparsed);
            return;
        }
        if looped {
            if depth >= MAX_LOOPS {
                self.spare.give_bytes(deparsed);
                self.dropped::<T>(res, DropReason::TooManyLoops(SideEffect::Recirculate));
                return;
            }
            self.trace::<T>(|| Event::Decision { decision: kind_name(PacketInstance::Recirculated) });
            let handoff = self.save_handoff();
            jobs.push_back(Job::Ingress { data: deparsed, port, kind: PacketInstance::Recirculated, handoff, depth: depth + 1 });
            return;
        }
        res.push_packet(port, [&deparsed[..], &[]], None);
        if let (true, Some(trace), Some(out)) = (T, self.ctx.trace.as_mut(), res.packets.last()) {
            trace.push(Event::Output { port, length: out.len });
        }
        self.spare.give_bytes(deparsed);
    }

    /// The value of the packet-path metadata for `kind`.
    fn path(&self, kind: PacketInstance) -> u128 {
        self.prog.two_pipelines.as_ref().map_or(0, |t| t.paths.value(kind))
    }

    /// A pass through pipeline `pipeline` (0 or 1) starts: its slots zeroed, `data` the packet,
    /// the packet length written, and the handoff storage restored from `handoff` (empty: left
    /// zero).
    fn start_pass(&mut self, pipeline: usize, data: &[u8], port: u32, path: u128, handoff: &[u128]) {
        crate::fast::enter_pipeline(&self.prog, &mut self.ctx, pipeline, data, port, path);
        self.ctx.clear_checksums();
        let Some(tp) = &self.prog.two_pipelines else { return };
        let mut from = handoff.iter();
        for &(base, len) in &tp.handoff {
            for slot in base..base + len {
                let Some(v) = from.next() else { return };
                self.ctx.set(slot, *v);
            }
        }
    }

    /// The handoff storage as it is now, range after range.
    fn save_handoff(&self) -> Vec<u128> {
        let Some(tp) = &self.prog.two_pipelines else { return Vec::new() };
        tp.handoff.iter().flat_map(|&(base, len)| self.ctx.f.get(base..base + len).unwrap_or(&[])).copied().collect()
    }

    /// The packet as the deparser just wrote it: the emitted headers, then the payload the parser
    /// did not take.
    fn deparsed(&mut self) -> Vec<u8> {
        let (c, spare) = (&self.ctx, &mut self.spare);
        let start = c.cursor.div_ceil(8).min(c.pkt.len());
        spare.bytes(&[&c.wire_out, c.pkt.get(start..).unwrap_or(&[])])
    }

    /// Writes `value` to every field playing `role` in block `which` (a position of
    /// [`crate::fast::exec::TwoPipelineMeta::at`]).
    #[inline]
    fn set_meta(&mut self, which: usize, role: MetaRole, value: u128) {
        if let Some(slot) = self.meta_slot(which, role) {
            self.ctx.set(slot, value);
        }
    }

    /// The field playing `role` in block `which` (0 when the block has none).
    #[inline]
    fn meta(&self, which: usize, role: MetaRole) -> u128 {
        self.meta_slot(which, role).map_or(0, |slot| self.ctx.get(slot))
    }

    /// The slot of the field playing `role` in block `which`.
    #[inline]
    fn meta_slot(&self, which: usize, role: MetaRole) -> Option<usize> {
        let tp = self.prog.two_pipelines.as_ref()?;
        tp.blocks.get(*tp.at.get(which)?)?[role as usize]
    }
}

/// How a trace names the path of `kind`.
fn kind_name(kind: PacketInstance) -> String {
    format!("{kind:?}").to_lowercase()
}
