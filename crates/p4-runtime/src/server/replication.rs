//! Multicast groups and clone sessions (P4Runtime's packet replication engine) on the control-plane
//! API's multicast nodes and mirroring sessions: a group's replicas become one node per instance
//! (the copies' `egress_rid`) with that instance's ports; a clone session to one port with instance
//! 0 is a port mirror, any other a mirror to a multicast group the server keeps for it, numbered
//! down from the largest group id the program's field holds (as BMv2's server does). Entries are kept
//! as written, values canonical, for reads.

use std::collections::BTreeMap;

use num_bigint::BigUint;
use num_traits::ToPrimitive;
use p4_control::catalog::Catalog;
use p4_control::{ControlPlane, Handle};
use tonic::Code;

use super::tables::{check_presence, refuse, Refusal};
use crate::proto::p4::v1::{packet_replication_engine_entry::Type as Pre, replica::PortKind, update, CloneSessionEntry, MulticastGroupEntry, Replica};


fn control(e: p4_control::ControlError) -> Refusal {
    (Code::InvalidArgument, e.to_string())
}

/// What the replication engine holds, as written.
#[derive(Default)]
pub struct Replication {
    /// Group id → the entry and its nodes.
    groups: BTreeMap<u32, (MulticastGroupEntry, Vec<Handle>)>,
    /// Session id → the entry, and the group kept for it with its nodes (a multi-replica session).
    sessions: BTreeMap<u32, (CloneSessionEntry, Option<(u32, Vec<Handle>)>)>,
}

/// Replicas checked: (port, instance) each, in the order given, and their canonical form.
// Clients of P4Runtime before 1.4 name the port by the deprecated `egress_port`: still accepted.
#[allow(deprecated)]
fn replicas(catalog: &Catalog, given: &[Replica]) -> Result<(Vec<(u32, u32)>, Vec<Replica>), Refusal> {
    let mut out = Vec::with_capacity(given.len());
    let mut canonical = Vec::with_capacity(given.len());
    for r in given {
        if !r.backup_replicas.is_empty() {
            return refuse(Code::Unimplemented, "backup replicas are not supported");
        }
        let port = match &r.port_kind {
            Some(PortKind::EgressPort(p)) => *p,
            Some(PortKind::Port(bytes)) => match BigUint::from_bytes_be(bytes).to_u32() {
                Some(p) if !bytes.is_empty() => p,
                _ => return refuse(Code::InvalidArgument, "a replica's port is not a port number"),
            },
            None => return refuse(Code::InvalidArgument, "a replica without a port"),
        };
        if port > catalog.max_port {
            return refuse(Code::OutOfRange, format!("replica port {port} does not fit the program's port fields (0..{})", catalog.max_port));
        }
        if out.contains(&(port, r.instance)) {
            return refuse(Code::InvalidArgument, format!("replica (port {port}, instance {}) given twice", r.instance));
        }
        out.push((port, r.instance));
        let mut c = r.clone();
        if let Some(PortKind::Port(bytes)) = &mut c.port_kind {
            *bytes = BigUint::from(port).to_bytes_be();
        }
        canonical.push(c);
    }
    Ok((out, canonical))
}

/// Creates group `group` with one node per instance; returns the nodes.
fn create_group(target: &mut dyn ControlPlane, group: u32, replicas: &[(u32, u32)]) -> Result<Vec<Handle>, Refusal> {
    target.mc_mgrp_create(group).map_err(control)?;
    let mut by_instance: BTreeMap<u32, Vec<u32>> = BTreeMap::new();
    for (port, instance) in replicas {
        by_instance.entry(*instance).or_default().push(*port);
    }
    let mut nodes = Vec::with_capacity(by_instance.len());
    for (instance, ports) in by_instance {
        let node = target.mc_node_create(instance, &ports).map_err(control)?;
        target.mc_node_associate(group, node).map_err(control)?;
        nodes.push(node);
    }
    Ok(nodes)
}

fn destroy_group(target: &mut dyn ControlPlane, group: u32, nodes: &[Handle]) -> Result<(), Refusal> {
    for node in nodes {
        target.mc_node_dissociate(group, *node).map_err(control)?;
        target.mc_node_destroy(*node).map_err(control)?;
    }
    target.mc_mgrp_destroy(group).map_err(control)
}

impl Replication {
    pub fn write(&mut self, target: &mut dyn ControlPlane, catalog: &Catalog, kind: update::Type, entry: &Pre) -> Result<(), Refusal> {
        match entry {
            Pre::MulticastGroupEntry(g) => self.write_group(target, catalog, kind, g),
            Pre::CloneSessionEntry(s) => self.write_session(target, catalog, kind, s),
        }
    }

    fn write_group(&mut self, target: &mut dyn ControlPlane, catalog: &Catalog, kind: update::Type, g: &MulticastGroupEntry) -> Result<(), Refusal> {
        let id = g.multicast_group_id;
        if id == 0 || id > catalog.max_group {
            return refuse(Code::InvalidArgument, format!("multicast group id {id} is not in 1..{}", catalog.max_group));
        }
        if self.sessions.values().any(|(_, kept)| kept.as_ref().is_some_and(|(k, _)| *k == id)) {
            return refuse(Code::ResourceExhausted, format!("multicast group {id} carries a clone session's copies"));
        }
        let (ports, canonical) = replicas(catalog, &g.replicas)?;
        let written = MulticastGroupEntry { multicast_group_id: id, replicas: canonical, metadata: g.metadata.clone() };
        match (kind, self.groups.contains_key(&id)) {
            (update::Type::Insert, true) => refuse(Code::AlreadyExists, format!("multicast group {id} exists")),
            (update::Type::Modify | update::Type::Delete, false) => refuse(Code::NotFound, format!("no multicast group {id}")),
            (update::Type::Insert, false) => {
                let nodes = create_group(target, id, &ports)?;
                self.groups.insert(id, (written, nodes));
                Ok(())
            }
            (update::Type::Modify, true) => {
                let (_, nodes) = self.groups.remove(&id).expect("checked above");
                destroy_group(target, id, &nodes)?;
                let nodes = create_group(target, id, &ports)?;
                self.groups.insert(id, (written, nodes));
                Ok(())
            }
            (update::Type::Delete, true) => {
                let (_, nodes) = self.groups.remove(&id).expect("checked above");
                destroy_group(target, id, &nodes)
            }
            (update::Type::Unspecified, _) => refuse(Code::InvalidArgument, "update type unspecified"),
        }
    }

    fn write_session(&mut self, target: &mut dyn ControlPlane, catalog: &Catalog, kind: update::Type, s: &CloneSessionEntry) -> Result<(), Refusal> {
        let id = s.session_id;
        if id == 0 {
            return refuse(Code::InvalidArgument, "clone session id 0 is not a session");
        }
        let cut = match s.packet_length_bytes {
            0 => None,
            n => Some(u32::try_from(n).map_err(|_| (Code::InvalidArgument, format!("packet_length_bytes {n} is negative")))?),
        };
        let (ports, canonical) = replicas(catalog, &s.replicas)?;
        let written = CloneSessionEntry { replicas: canonical, ..s.clone() };
        check_presence(kind, self.sessions.contains_key(&id), format_args!("clone session {id}"))?;
        let old = self.sessions.remove(&id);
        if let Some((_, kept)) = &old {
            target.mirroring_delete(id).map_err(control)?;
            if let Some((group, nodes)) = kept {
                destroy_group(target, *group, nodes)?;
            }
        }
        if kind == update::Type::Delete {
            return Ok(());
        }
        let kept = match ports[..] {
            [(port, 0)] => {
                target.mirroring_add(id, port).map_err(control)?;
                None
            }
            _ => {
                let group = catalog.max_group.checked_sub(id).filter(|g| *g > 0 && !self.groups.contains_key(g)).ok_or((
                    Code::ResourceExhausted,
                    format!("no free multicast group to carry clone session {id}'s copies"),
                ))?;
                let nodes = create_group(target, group, &ports)?;
                target.mirroring_add_mc(id, group).map_err(control)?;
                Some((group, nodes))
            }
        };
        self.sessions.insert(id, (written, kept));
        if let Err(e) = target.mirroring_truncate(id, cut) {
            // Not applied: the session as it was before.
            let (_, kept) = self.sessions.remove(&id).expect("just inserted");
            target.mirroring_delete(id).map_err(control)?;
            if let Some((group, nodes)) = kept {
                destroy_group(target, group, &nodes)?;
            }
            if let Some((entry, _)) = old {
                self.write_session(target, catalog, update::Type::Insert, &entry)?;
            }
            return refuse(Code::Unimplemented, e.to_string());
        }
        Ok(())
    }

    /// The entries a read asks for: one group or session, or all of them (id 0).
    pub fn read(&self, entry: &Pre) -> Vec<Pre> {
        match entry {
            Pre::MulticastGroupEntry(g) => self
                .groups
                .iter()
                .filter(|(id, _)| g.multicast_group_id == 0 || **id == g.multicast_group_id)
                .map(|(_, (e, _))| Pre::MulticastGroupEntry(e.clone()))
                .collect(),
            Pre::CloneSessionEntry(s) => self
                .sessions
                .iter()
                .filter(|(id, _)| s.session_id == 0 || **id == s.session_id)
                .map(|(_, (e, _))| Pre::CloneSessionEntry(e.clone()))
                .collect(),
        }
    }
}
