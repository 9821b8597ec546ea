//! The v1model traffic manager and the order the package's blocks run in, following BMv2
//! simple_switch's after-ingress and after-egress steps: after ingress, an ingress-to-egress
//! clone is queued, then a resubmission (which ends the packet's path), else a multicast, a drop
//! or one unicast copy; after egress, an egress-to-egress clone is queued, then a drop, else the
//! deparser runs and the packet leaves (or is recirculated). Queued copies run in order after
//! the packet, each to completion.

use std::collections::VecDeque;

use p4_arch::{MetaRole, PacketInstance, Role, SharedKind, MAX_LOOPS};
use p4_control::{Injected, Mirror, OutputPacket, PacketIo};
use p4_ir::BlockRef;

use crate::{Effects, Flow, Interpreter, PacketState, Preserve, MAX_COPIES};

/// A copy waiting for its turn.
enum Job {
    /// A packet entering the parser again (resubmitted or recirculated), with the fields it keeps
    /// and the state they are taken from.
    Ingress { data: Vec<u8>, port: u32, instance: u32, keep: (Preserve, PacketState), depth: u32 },
    /// An ingress-to-egress clone: the packet as it arrived, parsed again; `cut`: the bytes a
    /// truncating clone session cuts it to.
    CloneI2E { data: Vec<u8>, in_port: u32, out_port: u32, rid: u32, keep: (Preserve, PacketState), depth: u32, cut: Option<u32> },
    /// A copy entering egress with the state it was made with.
    Egress { state: PacketState, port: u32, instance: u32, rid: u32, depth: u32, cut: Option<u32> },
}

/// What came of one injected packet so far.
#[derive(Default)]
struct Outcome {
    outputs: Vec<OutputPacket>,
    drops: Vec<String>,
}

/// Why a copy is dropped.
enum Drop {
    /// The drop marker holds the drop value; `marked_in`: the control whose drop call set it.
    Marked { marked_in: Option<usize> },
}

impl Interpreter {
    /// Runs one packet and everything it causes to completion.
    pub(crate) fn process(&mut self, port: u32, data: &[u8], now_ns: u64) -> Injected {
        let mut out = Outcome::default();
        self.log.clear();
        self.digests.clear();
        if let Err(e) = self.check_port(port) {
            out.drops.push(e.to_string());
            return Injected { outputs: out.outputs, drops: out.drops, ..Injected::default() };
        }
        self.now_us = now_ns / 1000;
        self.now_ns = now_ns;
        let mut jobs = VecDeque::new();
        let normal = self.arch.instance_value(PacketInstance::Normal);
        self.ingress(data, port, normal, None, 0, &mut out, &mut jobs);
        let mut done = 0;
        while let Some(job) = jobs.pop_front() {
            done += 1;
            if done > MAX_COPIES {
                out.drops.push(format!("more than {MAX_COPIES} copies of one packet; the rest were dropped"));
                break;
            }
            self.run_job(job, &mut out, &mut jobs);
        }
        let (log, digests) = (std::mem::take(&mut self.log), std::mem::take(&mut self.digests));
        Injected { outputs: out.outputs, drops: out.drops, log, digests, ..Injected::default() }
    }

    fn run_job(&mut self, job: Job, out: &mut Outcome, jobs: &mut VecDeque<Job>) {
        match job {
            Job::Ingress { data, port, instance, keep, depth } => {
                self.ingress(&data, port, instance, Some(keep), depth, out, jobs)
            }
            Job::CloneI2E { data, in_port, out_port, rid, keep, depth, cut } => {
                let instance = self.arch.instance_value(PacketInstance::IngressClone);
                // A failed assert in the clone's parser stops nothing: the copy goes to egress.
                let _ = self.parse(&data, in_port, instance);
                self.restore(&keep.0, &keep.1);
                self.egress(out_port, Some(instance), rid, depth, cut, out, jobs);
            }
            Job::Egress { state, port, instance, rid, depth, cut } => {
                self.state = state;
                self.fx = Effects::default();
                self.egress(port, Some(instance), rid, depth, cut, out, jobs);
            }
        }
    }

    /// The blocks playing the roles from `after` (exclusive) to `upto` (inclusive), in package
    /// order.
    fn blocks_between(&self, after: Option<Role>, upto: Option<Role>) -> Vec<BlockRef> {
        let start = after.and_then(|r| self.arch.block_index(r)).map_or(0, |i| i + 1);
        let end = upto.and_then(|r| self.arch.block_index(r)).map_or(self.arch.blocks.len(), |i| i + 1);
        (start..end)
            .filter_map(|i| self.binding.blocks.get(i).cloned())
            .filter(|b| matches!(b, BlockRef::Control(_)))
            .collect()
    }

    /// Runs top-level controls in order; `Err`: a copy-ending abort, with its reason.
    fn run_controls(&mut self, controls: &[BlockRef]) -> Result<(), String> {
        for c in controls {
            let BlockRef::Control(id) = c else { continue };
            // `exit` ends the block; the architecture goes on with the next one.
            if let Err(Flow::Abort(why)) = self.run_control_body(*id) {
                return Err(why);
            }
        }
        Ok(())
    }

    /// Resets the packet state for a packet arriving (the metadata the architecture sets on
    /// arrival) and runs the parser; `Err`: an assert in the parser failed.
    fn parse(&mut self, data: &[u8], port: u32, instance: u32) -> Result<(), String> {
        self.state = self.fresh_state(data);
        self.fx = Effects::default();
        self.meta_set(MetaRole::IngressPort, u128::from(port));
        self.meta_set(MetaRole::PacketLength, data.len() as u128);
        self.meta_set(MetaRole::InstanceType, u128::from(instance));
        self.meta_set(MetaRole::IngressTimestamp, u128::from(self.now_us) & ((1 << 48) - 1));
        self.meta_set(MetaRole::RxTimestamp, u128::from(p4_ir::time::stamp(self.now_ns)));
        let Some(pid) = self.binding.parser(Role::Parser) else { return Ok(()) };
        let program = self.program.clone();
        let parser = &program.parsers[pid.index()];
        match self.run_parser_states(parser) {
            Ok(()) => Ok(()),
            Err(Flow::Reject(e)) => {
                self.meta_set(MetaRole::ParserError, u128::from(e));
                Ok(())
            }
            Err(Flow::Abort(why)) => {
                self.meta_set(MetaRole::ParserError, 0);
                Err(why)
            }
            Err(_) => Ok(()),
        }
    }

    /// Copies the preserved fields from `from` into the current packet state.
    fn restore(&mut self, keep: &Preserve, from: &PacketState) {
        for (si, path) in keep {
            let Some(v) = from.shared.get(*si).and_then(|s| crate::place::at(s, path)).cloned() else { continue };
            if let Some(dst) = self.state.shared.get_mut(*si).and_then(|s| crate::place::at_mut(s, path)) {
                *dst = v;
            }
        }
    }

    #[allow(clippy::too_many_arguments)]
    fn ingress(
        &mut self,
        data: &[u8],
        port: u32,
        instance: u32,
        keep: Option<(Preserve, PacketState)>,
        depth: u32,
        out: &mut Outcome,
        jobs: &mut VecDeque<Job>,
    ) {
        let parsed = self.parse(data, port, instance);
        if let Some((fields, from)) = &keep {
            self.restore(fields, from);
        }
        let ingress = self.blocks_between(Some(Role::Parser), Some(Role::Ingress));
        let result = parsed.and_then(|()| self.run_controls(&ingress));
        if let Err(why) = result {
            self.abort(why, out);
            return;
        }
        if let Some((session, fields)) = self.fx.clone.clone() {
            let cut = self.control.mirror_truncation(session);
            for (rid, out_port) in self.mirror_targets(session) {
                let keep = (fields.clone(), self.state.clone());
                jobs.push_back(Job::CloneI2E { data: data.to_vec(), in_port: port, out_port, rid, keep, depth, cut });
            }
        }
        if let Some(fields) = self.fx.resubmit.clone() {
            if depth >= MAX_LOOPS {
                out.drops
                    .push(format!("{}: more than {MAX_LOOPS} loops", self.effect_name(p4_arch::SideEffect::Resubmit)));
                return;
            }
            let instance = self.arch.instance_value(PacketInstance::Resubmitted);
            jobs.push_back(Job::Ingress {
                data: data.to_vec(),
                port,
                instance,
                keep: (fields, self.state.clone()),
                depth: depth + 1,
            });
            return;
        }
        let group = self.meta_get(MetaRole::MulticastGroup).unwrap_or(0) as u32;
        if group != 0 {
            let members = self.group_members(group);
            if members.is_empty() {
                out.drops.push(format!("multicast group {group} has no members"));
            }
            let instance = self.arch.instance_value(PacketInstance::Replica);
            for (rid, out_port) in members {
                jobs.push_back(Job::Egress { state: self.state.clone(), port: out_port, instance, rid, depth, cut: None });
            }
            return;
        }
        if self.marked_to_drop() {
            let line = self.drop_line(Drop::Marked { marked_in: self.fx.marked_in });
            out.drops.push(line);
            return;
        }
        let out_port = self.meta_get(MetaRole::EgressSpec).unwrap_or(0) as u32;
        self.egress(out_port, None, 0, depth, None, out, jobs);
    }

    /// Egress, the after-egress steps, the deparser, and the packet out (or back to the parser);
    /// `cut`: the bytes a truncating clone session cuts this copy to.
    #[allow(clippy::too_many_arguments)]
    fn egress(
        &mut self,
        port: u32,
        instance: Option<u32>,
        rid: u32,
        depth: u32,
        cut: Option<u32>,
        out: &mut Outcome,
        jobs: &mut VecDeque<Job>,
    ) {
        // What the traffic manager sets for a departing copy (no queueing delay is modelled).
        self.meta_set(MetaRole::EgressPort, u128::from(port));
        self.meta_set(MetaRole::EgressSpec, 0);
        self.meta_set(MetaRole::EgressRid, u128::from(rid));
        self.meta_set(MetaRole::EgressTimestamp, u128::from(self.now_us) & ((1 << 48) - 1));
        self.meta_set(MetaRole::EnqTimestamp, u128::from(self.now_us) & ((1 << 32) - 1));
        self.meta_set(MetaRole::DeqTimedelta, 0);
        if let Some(i) = instance {
            self.meta_set(MetaRole::InstanceType, u128::from(i));
        }
        // A truncation asked for in ingress holds for the unicast copy; a clone session's cut
        // holds for its copies (the shorter of the two wins).
        let truncate = match (self.fx.truncate, cut) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        };
        self.fx = Effects { truncate, ..Effects::default() };
        // Without an egress control (OP4T's one processor) nothing runs between the traffic
        // manager and the deparser.
        let has_egress = self.arch.block_index(Role::Egress).is_some();
        let egress = if has_egress { self.blocks_between(Some(Role::Ingress), Some(Role::Egress)) } else { Vec::new() };
        if let Err(why) = self.run_controls(&egress) {
            self.abort(why, out);
            return;
        }
        if let Some((session, fields)) = self.fx.clone.clone() {
            let instance = self.arch.instance_value(PacketInstance::EgressClone);
            let cut = self.control.mirror_truncation(session);
            for (crid, out_port) in self.mirror_targets(session) {
                let state = self.egress_clone_state(&fields);
                jobs.push_back(Job::Egress { state, port: out_port, instance, rid: crid, depth, cut });
            }
        }
        if self.marked_to_drop() {
            let line = self.drop_line(Drop::Marked { marked_in: self.fx.marked_in });
            out.drops.push(line);
            return;
        }
        self.emitted.clear();
        let deparse = self.blocks_between(Some(if has_egress { Role::Egress } else { Role::Ingress }), None);
        if let Err(why) = self.run_controls(&deparse) {
            self.abort(why, out);
            return;
        }
        let mut bytes = crate::hash::pack(&self.emitted);
        let start = self.state.cursor.div_ceil(8).min(self.state.data.len());
        bytes.extend_from_slice(&self.state.data[start..]);
        if let Some(n) = self.fx.truncate {
            bytes.truncate(n as usize);
        }
        if let Some(fields) = self.fx.recirculate.clone() {
            if depth >= MAX_LOOPS {
                out.drops.push(format!(
                    "{}: more than {MAX_LOOPS} loops",
                    self.effect_name(p4_arch::SideEffect::Recirculate)
                ));
                return;
            }
            let in_port = self.meta_get(MetaRole::IngressPort).unwrap_or(0) as u32;
            let instance = self.arch.instance_value(PacketInstance::Recirculated);
            jobs.push_back(Job::Ingress {
                data: bytes,
                port: in_port,
                instance,
                keep: (fields, self.state.clone()),
                depth: depth + 1,
            });
            return;
        }
        // A packet asking for its transmit time gets it as it leaves: with no queueing modelled,
        // its arrival time (as the software target writes it for files), 8 bytes big-endian from
        // the offset asked, none past its end.
        if self.meta_get(MetaRole::TxTimestamp).unwrap_or(0) & 1 != 0 {
            let at = self.meta_get(MetaRole::TxTimestampOffset).unwrap_or(0) as usize;
            for (i, b) in p4_ir::time::stamp(self.now_ns).to_be_bytes().into_iter().enumerate() {
                if let Some(byte) = bytes.get_mut(at + i) {
                    *byte = b;
                }
            }
        }
        out.outputs.push(OutputPacket { port, data: bytes });
    }

    /// The state an egress-to-egress clone starts from: the headers as egress left them, the
    /// user and intrinsic metadata reset but for the preserved fields and the port and length
    /// the packet came with.
    fn egress_clone_state(&self, keep: &Preserve) -> PacketState {
        let mut state = self.state.clone();
        for kind in [SharedKind::UserMetadata, SharedKind::Intrinsic] {
            if let Some(si) = self.shared_index(kind) {
                state.shared[si] = self.shared_default(si);
            }
        }
        let mut keep = keep.clone();
        for role in [MetaRole::IngressPort, MetaRole::PacketLength] {
            if let Some((si, fi, _)) = self.intrinsic_field(role) {
                keep.push((si, vec![crate::place::Step::Field(fi)]));
            }
        }
        for (si, path) in &keep {
            let Some(v) = self.state.shared.get(*si).and_then(|s| crate::place::at(s, path)).cloned() else { continue };
            if let Some(dst) = state.shared.get_mut(*si).and_then(|s| crate::place::at_mut(s, path)) {
                *dst = v;
            }
        }
        state
    }

    fn abort(&mut self, why: String, out: &mut Outcome) {
        self.log.push(why.clone());
        out.drops.push(why);
    }

    fn marked_to_drop(&self) -> bool {
        let p4_arch::DropMarker::AllOnes(role) = self.arch.drop;
        self.meta_get(role) == Some(self.drop_value())
    }

    /// The drop line: `mark_to_drop in <control>` or `egress_spec 511`, with the parser error
    /// when there was one.
    fn drop_line(&self, why: Drop) -> String {
        let Drop::Marked { marked_in } = why;
        let mut line = match marked_in {
            Some(c) => {
                let f = self.arch.function_for(p4_arch::ExternOp::MarkToDrop).map_or("drop", |f| f.name);
                format!("{f} in {}", self.program.controls[c].block.name)
            }
            None => {
                let p4_arch::DropMarker::AllOnes(role) = self.arch.drop;
                format!("{} {}", self.arch.field(role).unwrap_or("drop marker"), self.drop_value())
            }
        };
        let error = self.meta_get(MetaRole::ParserError).unwrap_or(0) as u32;
        if error != 0 {
            let name = self.program.errors.get(error as usize).cloned().unwrap_or_else(|| error.to_string());
            line.push_str(&format!(" (parser error {name})"));
        }
        line
    }

    fn effect_name(&self, effect: p4_arch::SideEffect) -> &'static str {
        self.arch.function_with_effect(effect).map_or("re-parse", |f| f.name)
    }

    /// The (replication id, port) copies of multicast group `group`, in replication order.
    fn group_members(&self, group: u32) -> Vec<(u32, u32)> {
        self.control.multicast_groups().into_iter().find(|(g, _)| *g == group).map(|(_, m)| m).unwrap_or_default()
    }

    /// The copies clone session `session` makes (none, logged, for a session not configured).
    fn mirror_targets(&mut self, session: u32) -> Vec<(u32, u32)> {
        match self.control.mirror_sessions().into_iter().find(|(s, _)| *s == session).map(|(_, m)| m) {
            Some(Mirror::Port(p)) => vec![(0, p)],
            Some(Mirror::Group(g)) => self.group_members(g),
            None => {
                self.log.push(format!("clone to session {session}, which is not configured: no copy made"));
                Vec::new()
            }
        }
    }
}
