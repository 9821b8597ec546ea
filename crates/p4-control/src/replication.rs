//! Multicast groups and clone sessions as BMv2's pre (packet replication engine) keeps them:
//! nodes of (replication id, ports), groups of nodes, sessions to a port or a group. The software
//! switch's traffic manager reads this state per packet; the hardware target's driver writes it
//! into the design's group, copy and mirror tables.

use std::collections::{BTreeMap, HashMap};

use crate::catalog::Catalog;
use crate::convert::invalid;
use crate::{ControlError, Handle, Mirror};

/// Multicast and mirroring state.
#[derive(Clone, Debug, Default)]
pub struct Replication {
    /// Group id → its nodes, in the order they were associated.
    pub groups: BTreeMap<u32, Vec<Handle>>,
    /// By handle: (replication id, ports sorted and without repeats); `None` once destroyed.
    pub nodes: Vec<Option<(u32, Vec<u32>)>>,
    pub sessions: HashMap<u32, Mirror>,
    /// Session id → the bytes its copies are cut to (sessions that truncate only).
    pub truncation: HashMap<u32, u32>,
}

fn port_set(ports: &[u32]) -> Vec<u32> {
    let mut ports = ports.to_vec();
    ports.sort_unstable();
    ports.dedup();
    ports
}

impl Replication {
    pub fn mc_mgrp_create(&mut self, group: u32) -> Result<(), ControlError> {
        if self.groups.contains_key(&group) {
            return invalid(format!("multicast group {group} already exists"));
        }
        self.groups.insert(group, Vec::new());
        Ok(())
    }

    pub fn mc_mgrp_destroy(&mut self, group: u32) -> Result<(), ControlError> {
        self.groups
            .remove(&group)
            .map(|_| ())
            .ok_or_else(|| ControlError::Invalid(format!("no multicast group {group}")))
    }

    /// A new node (the caller has checked the ports); its handle counts up from 0.
    pub fn mc_node_create(&mut self, rid: u32, ports: &[u32]) -> Handle {
        self.nodes.push(Some((rid, port_set(ports))));
        self.nodes.len() as Handle - 1
    }

    pub fn mc_node_update(&mut self, node: Handle, ports: &[u32]) -> Result<(), ControlError> {
        match self.nodes.get_mut(node as usize) {
            Some(Some((_, p))) => {
                *p = port_set(ports);
                Ok(())
            }
            _ => invalid(format!("no multicast node {node}")),
        }
    }

    pub fn mc_node_associate(&mut self, group: u32, node: Handle) -> Result<(), ControlError> {
        if !matches!(self.nodes.get(node as usize), Some(Some(_))) {
            return invalid(format!("no multicast node {node}"));
        }
        let Some(g) = self.groups.get_mut(&group) else { return invalid(format!("no multicast group {group}")) };
        if !g.contains(&node) {
            g.push(node);
        }
        Ok(())
    }

    pub fn mc_node_dissociate(&mut self, group: u32, node: Handle) -> Result<(), ControlError> {
        let Some(g) = self.groups.get_mut(&group) else { return invalid(format!("no multicast group {group}")) };
        let before = g.len();
        g.retain(|n| *n != node);
        if g.len() == before {
            return invalid(format!("node {node} is not in multicast group {group}"));
        }
        Ok(())
    }

    pub fn mc_node_destroy(&mut self, node: Handle) -> Result<(), ControlError> {
        match self.nodes.get_mut(node as usize) {
            Some(n @ Some(_)) => {
                *n = None;
                for g in self.groups.values_mut() {
                    g.retain(|x| *x != node);
                }
                Ok(())
            }
            _ => invalid(format!("no multicast node {node}")),
        }
    }

    /// A clone session to `mirror` (the caller has checked a port).
    /// A clone session to `mirror` (the caller has checked a port); a session added again is a
    /// new one (its copies no longer cut).
    pub fn mirroring_add(&mut self, session: u32, mirror: Mirror) {
        self.sessions.insert(session, mirror);
        self.truncation.remove(&session);
    }

    /// Cuts the copies of clone session `session` to `bytes` (`None`: whole).
    pub fn mirroring_truncate(&mut self, session: u32, bytes: Option<u32>) -> Result<(), ControlError> {
        if !self.sessions.contains_key(&session) {
            return invalid(format!("no clone session {session}"));
        }
        match bytes {
            Some(n) => self.truncation.insert(session, n),
            None => self.truncation.remove(&session),
        };
        Ok(())
    }

    /// The bytes clone session `session`'s copies are cut to, if it truncates.
    pub fn truncation(&self, session: u32) -> Option<u32> {
        self.truncation.get(&session).copied()
    }

    pub fn mirroring_delete(&mut self, session: u32) -> Result<(), ControlError> {
        self.truncation.remove(&session);
        self.sessions
            .remove(&session)
            .map(|_| ())
            .ok_or_else(|| ControlError::Invalid(format!("no clone session {session}")))
    }

    /// `mc_mgrp_create`, the group id checked against the program's group field.
    pub fn create_group(&mut self, catalog: &Catalog, group: u32) -> Result<(), ControlError> {
        catalog.check_group(group)?;
        self.mc_mgrp_create(group)
    }

    /// `mc_node_create`, the ports checked against the program's port fields.
    pub fn create_node(&mut self, catalog: &Catalog, rid: u32, ports: &[u32]) -> Result<Handle, ControlError> {
        ports.iter().try_for_each(|p| catalog.check_port(*p))?;
        Ok(self.mc_node_create(rid, ports))
    }

    /// `mc_node_update`, the ports checked against the program's port fields.
    pub fn update_node(&mut self, catalog: &Catalog, node: Handle, ports: &[u32]) -> Result<(), ControlError> {
        ports.iter().try_for_each(|p| catalog.check_port(*p))?;
        self.mc_node_update(node, ports)
    }

    /// `mirroring_add`, the port checked against the program's port fields.
    pub fn mirror_to_port(&mut self, catalog: &Catalog, session: u32, port: u32) -> Result<(), ControlError> {
        catalog.check_port(port)?;
        self.mirroring_add(session, Mirror::Port(port));
        Ok(())
    }

    /// `mirroring_add_mc`, the group id checked against the program's group field.
    pub fn mirror_to_group(&mut self, catalog: &Catalog, session: u32, group: u32) -> Result<(), ControlError> {
        catalog.check_group(group)?;
        self.mirroring_add(session, Mirror::Group(group));
        Ok(())
    }

    /// The copies group `group` makes, (replication id, port) in order: each node's ports in the
    /// order the nodes were associated.
    pub fn members(&self, group: u32) -> impl Iterator<Item = (u32, u32)> + Clone + '_ {
        let handles = self.groups.get(&group).map(Vec::as_slice).unwrap_or(&[]);
        handles
            .iter()
            .filter_map(|h| self.nodes.get(*h as usize)?.as_ref())
            .flat_map(|(rid, ports)| ports.iter().map(move |p| (*rid, *p)))
    }

    /// Every group with its copies, by group id: what a hardware replication table has to hold.
    pub fn multicast_groups(&self) -> Vec<(u32, Vec<(u32, u32)>)> {
        self.groups.keys().map(|&g| (g, self.members(g).collect())).collect()
    }

    /// Every clone session and where it sends copies, by session id: what a hardware mirror
    /// table has to hold.
    pub fn mirror_sessions(&self) -> Vec<(u32, Mirror)> {
        let mut v: Vec<(u32, Mirror)> = self.sessions.iter().map(|(s, m)| (*s, *m)).collect();
        v.sort_unstable_by_key(|(s, _)| *s);
        v
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn groups_copy_each_node_s_ports_in_association_order() {
        let mut r = Replication::default();
        r.mc_mgrp_create(7).expect("create");
        let a = r.mc_node_create(1, &[4, 2, 4]);
        let b = r.mc_node_create(2, &[3]);
        r.mc_node_associate(7, b).expect("associate b");
        r.mc_node_associate(7, a).expect("associate a");
        assert_eq!(r.multicast_groups(), vec![(7, vec![(2, 3), (1, 2), (1, 4)])]);
        r.mc_node_destroy(b).expect("destroy");
        assert_eq!(r.multicast_groups(), vec![(7, vec![(1, 2), (1, 4)])]);
        assert_eq!(r.mc_node_dissociate(7, b), Err(ControlError::Invalid("node 1 is not in multicast group 7".into())));
        assert_eq!(r.mc_mgrp_create(7), Err(ControlError::Invalid("multicast group 7 already exists".into())));
    }

    #[test]
    fn sessions_are_listed_by_id() {
        let mut r = Replication::default();
        r.mirroring_add(9, Mirror::Group(3));
        r.mirroring_add(2, Mirror::Port(5));
        assert_eq!(r.mirror_sessions(), vec![(2, Mirror::Port(5)), (9, Mirror::Group(3))]);
        assert_eq!(r.mirroring_delete(4), Err(ControlError::Invalid("no clone session 4".into())));
    }
}
