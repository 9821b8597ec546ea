//! Action profile members and groups, and what a table entry's indirect action means.
//!
//! The target knows no members or groups: an entry of a table with an action profile is written
//! with its member's action (`table_add`), and an entry pointing to a group (or carrying a
//! one-shot action set) of an action selector is made to choose among the group's members
//! (`table_select`), each member repeated `weight` times. When a member or group changes, every
//! entry pointing to it is written again.

use std::collections::BTreeMap;

use p4_control::catalog::Catalog;
use p4_control::ActionArgs;
use p4_ir::layout::{ControlPlaneIds, ObjectKind, Target};
use tonic::Code;

use super::tables::{action_call, canonical_call, check_presence, refuse, Refusal};
use crate::proto::p4::v1::{table_action, update, ActionProfileGroup, ActionProfileMember, TableAction};

/// The most member slots (members times their weights) one group or action set may give an entry.
pub const MAX_GROUP_SLOTS: usize = 4096;


/// What an entry's action makes the target run.
pub enum Resolved {
    /// One action and its arguments (`table_add`, `table_modify`).
    One(String, ActionArgs),
    /// An action selector's choice among these, in order (`table_select`); at least two.
    Select(Vec<(String, ActionArgs)>),
}

impl Resolved {
    /// The action an entry is added with (a selection's first).
    pub fn first(&self) -> (String, ActionArgs) {
        match self {
            Resolved::One(a, args) => (a.clone(), args.clone()),
            Resolved::Select(members) => members[0].clone(),
        }
    }

    fn of(mut members: Vec<(String, ActionArgs)>) -> Resolved {
        match members.len() {
            1 => {
                let (a, args) = members.remove(0);
                Resolved::One(a, args)
            }
            _ => Resolved::Select(members),
        }
    }
}

/// A member or a group of one action profile (by P4Runtime ids).
pub struct Named {
    pub profile: u32,
    pub member: Option<u32>,
    pub group: Option<u32>,
}

/// Every action profile's members and groups, as written (canonical), by (profile id, id).
#[derive(Default)]
pub struct Profiles {
    members: BTreeMap<(u32, u32), ActionProfileMember>,
    groups: BTreeMap<(u32, u32), ActionProfileGroup>,
}

/// The extern index of the action profile with id `id`.
fn profile_index(ids: &ControlPlaneIds, id: u32) -> Result<usize, Refusal> {
    match ids.by_id(id) {
        Some(o) if o.kind == ObjectKind::ActionProfile => match o.targets.first() {
            Some(Target::Extern(e)) => Ok(e.index()),
            _ => refuse(Code::NotFound, format!("no action profile has id {id:#x}")),
        },
        _ => refuse(Code::NotFound, format!("no action profile has id {id:#x}")),
    }
}

/// A table using profile `profile` (extern index): whose actions a member may name.
fn table_of(catalog: &Catalog, profile: usize) -> Result<usize, Refusal> {
    catalog
        .tables
        .iter()
        .position(|t| t.implementation == Some(profile))
        .ok_or((Code::FailedPrecondition, format!("action profile {} is the implementation of no table", catalog.externs[profile].name)))
}

impl Profiles {
    /// What `action` means for an entry of table `table`, which has an action profile.
    pub fn resolve(&self, catalog: &Catalog, ids: &ControlPlaneIds, table: usize, action: Option<&TableAction>) -> Result<Resolved, Refusal> {
        let info = &catalog.tables[table];
        let Some(profile) = info.implementation else {
            return match action.and_then(|a| a.r#type.as_ref()) {
                Some(table_action::Type::Action(_)) | None => action_call(catalog, ids, table, action, false).map(|(a, args)| Resolved::One(a, args)),
                Some(_) => refuse(Code::InvalidArgument, format!("table {} has no action profile: its entries name an action", info.name)),
            };
        };
        let profile_id = ids.id(Target::Extern(p4_ir::ExternId(profile as u32))).unwrap_or(0);
        let selector = info.selector.is_some();
        let member = |id: u32| -> Result<(String, ActionArgs), Refusal> {
            let m = self.members.get(&(profile_id, id)).ok_or((Code::NotFound, format!("action profile {} has no member {id}", catalog.externs[profile].name)))?;
            action_call(catalog, ids, table, Some(&TableAction { r#type: Some(table_action::Type::Action(m.action.clone().unwrap_or_default())) }), false)
        };
        let weighted = |members: Vec<((String, ActionArgs), i32)>| -> Result<Resolved, Refusal> {
            if members.is_empty() {
                return refuse(Code::FailedPrecondition, format!("table {}: an entry cannot point to an empty group", info.name));
            }
            // Weight 0 (a client that leaves it unset) counts as 1.
            let slots: usize = members.iter().map(|(_, w)| (*w).max(1) as usize).sum();
            if slots > MAX_GROUP_SLOTS {
                return refuse(Code::ResourceExhausted, format!("{slots} member slots (members times weights): at most {MAX_GROUP_SLOTS}"));
            }
            Ok(Resolved::of(members.into_iter().flat_map(|(m, w)| std::iter::repeat_n(m, w.max(1) as usize)).collect()))
        };
        match action.and_then(|a| a.r#type.as_ref()) {
            Some(table_action::Type::ActionProfileMemberId(id)) => member(*id).map(|(a, args)| Resolved::One(a, args)),
            Some(table_action::Type::ActionProfileGroupId(id)) if selector => {
                let g = self.groups.get(&(profile_id, *id)).ok_or((Code::NotFound, format!("action profile {} has no group {id}", catalog.externs[profile].name)))?;
                weighted(g.members.iter().map(|m| Ok((member(m.member_id)?, m.weight))).collect::<Result<_, Refusal>>()?)
            }
            Some(table_action::Type::ActionProfileActionSet(set)) if selector => {
                use crate::proto::p4::v1::action_profile_action_set::ActionSelectionMode;
                if set.action_selection_mode == ActionSelectionMode::Random as i32 {
                    return refuse(Code::Unimplemented, "action sets choose by hash here; RANDOM selection is not supported");
                }
                let mut members = Vec::with_capacity(set.action_profile_actions.len());
                for a in &set.action_profile_actions {
                    check_weight(a.weight)?;
                    let call = TableAction { r#type: Some(table_action::Type::Action(a.action.clone().unwrap_or_default())) };
                    members.push((action_call(catalog, ids, table, Some(&call), false)?, a.weight));
                }
                weighted(members)
            }
            Some(table_action::Type::ActionProfileGroupId(_) | table_action::Type::ActionProfileActionSet(_)) => {
                refuse(Code::InvalidArgument, format!("table {}'s action profile has no selector: its entries name a member", info.name))
            }
            Some(table_action::Type::Action(_)) => {
                refuse(Code::InvalidArgument, format!("table {} has an action profile: its entries name a member or a group", info.name))
            }
            None => refuse(Code::InvalidArgument, "the entry has no action"),
        }
    }

    /// Applies one INSERT, MODIFY or DELETE of a member; the caller writes the entries pointing to
    /// it again ([`Profiles::uses`]).
    pub fn write_member(&mut self, catalog: &Catalog, ids: &ControlPlaneIds, kind: update::Type, m: &ActionProfileMember, in_use: bool) -> Result<(), Refusal> {
        let profile = profile_index(ids, m.action_profile_id)?;
        let key = (m.action_profile_id, m.member_id);
        let name = &catalog.externs[profile].name;
        check_presence(kind, self.members.contains_key(&key), format_args!("member {} of {name}", m.member_id))?;
        if kind == update::Type::Delete {
            let in_group = self.groups.iter().any(|((p, _), g)| *p == m.action_profile_id && g.members.iter().any(|x| x.member_id == m.member_id));
            if in_use || in_group {
                return refuse(Code::FailedPrecondition, format!("member {} of {name} is in use (by a group or a table entry)", m.member_id));
            }
            self.members.remove(&key);
            return Ok(());
        }
        let table = table_of(catalog, profile)?;
        let action = TableAction { r#type: Some(table_action::Type::Action(m.action.clone().unwrap_or_default())) };
        action_call(catalog, ids, table, Some(&action), false)?;
        let canonical = ActionProfileMember { action: Some(canonical_call(m.action.as_ref().ok_or((Code::InvalidArgument, "a member without an action".to_string()))?)), ..m.clone() };
        self.members.insert(key, canonical);
        Ok(())
    }

    /// Applies one INSERT, MODIFY or DELETE of a group (`limit`: the profile's `max_group_size`,
    /// 0 for none); the caller writes the entries pointing to it again.
    pub fn write_group(&mut self, catalog: &Catalog, ids: &ControlPlaneIds, kind: update::Type, g: &ActionProfileGroup, in_use: bool, limit: i32) -> Result<(), Refusal> {
        let profile = profile_index(ids, g.action_profile_id)?;
        let key = (g.action_profile_id, g.group_id);
        let name = &catalog.externs[profile].name;
        if catalog.tables.iter().all(|t| t.implementation != Some(profile) || t.selector.is_none()) {
            return refuse(Code::InvalidArgument, format!("action profile {name} has no selector: it has no groups"));
        }
        check_presence(kind, self.groups.contains_key(&key), format_args!("group {} of {name}", g.group_id))?;
        if kind == update::Type::Delete {
            if in_use {
                return refuse(Code::FailedPrecondition, format!("group {} of {name} is in use by a table entry", g.group_id));
            }
            self.groups.remove(&key);
            return Ok(());
        }
        let mut seen = std::collections::BTreeSet::new();
        for m in &g.members {
            check_weight(m.weight)?;
            if !self.members.contains_key(&(g.action_profile_id, m.member_id)) {
                return refuse(Code::NotFound, format!("action profile {name} has no member {}", m.member_id));
            }
            if !seen.insert(m.member_id) {
                return refuse(Code::InvalidArgument, format!("member {} is listed twice", m.member_id));
            }
        }
        if g.max_size < 0 || (g.max_size > 0 && g.members.len() > g.max_size as usize) {
            return refuse(Code::ResourceExhausted, format!("group {} has {} members, max_size {}", g.group_id, g.members.len(), g.max_size));
        }
        if limit > 0 && (g.max_size > limit || g.members.len() > limit as usize) {
            return refuse(Code::ResourceExhausted, format!("{name} takes groups of at most {limit} members (max_group_size)"));
        }
        if let Some(old) = self.groups.get(&key).filter(|old| old.max_size != g.max_size) {
            return refuse(Code::InvalidArgument, format!("a group's max_size cannot change ({} to {})", old.max_size, g.max_size));
        }
        if in_use && g.members.is_empty() {
            return refuse(Code::FailedPrecondition, format!("group {} is in use by a table entry: it cannot become empty", g.group_id));
        }
        self.groups.insert(key, g.clone());
        Ok(())
    }

    /// Whether `action` (a table entry's, of a table with profile `what.profile`) points to what
    /// `what` names, directly or (a member) through a group.
    pub fn uses(&self, action: Option<&TableAction>, what: &Named) -> bool {
        match action.and_then(|a| a.r#type.as_ref()) {
            Some(table_action::Type::ActionProfileMemberId(id)) => what.member == Some(*id),
            Some(table_action::Type::ActionProfileGroupId(id)) => {
                let in_group = |m: u32| self.groups.get(&(what.profile, *id)).is_some_and(|g| g.members.iter().any(|x| x.member_id == m));
                what.group == Some(*id) || what.member.is_some_and(in_group)
            }
            _ => false,
        }
    }

    /// The members a read names (every profile's for id 0, every member for member id 0).
    pub fn read_members(&self, pattern: &ActionProfileMember) -> Vec<ActionProfileMember> {
        let wanted = |(p, m): &(u32, u32)| (pattern.action_profile_id == 0 || pattern.action_profile_id == *p) && (pattern.member_id == 0 || pattern.member_id == *m);
        self.members.iter().filter(|(k, _)| wanted(k)).map(|(_, m)| m.clone()).collect()
    }

    /// The groups a read names.
    pub fn read_groups(&self, pattern: &ActionProfileGroup) -> Vec<ActionProfileGroup> {
        let wanted = |(p, g): &(u32, u32)| (pattern.action_profile_id == 0 || pattern.action_profile_id == *p) && (pattern.group_id == 0 || pattern.group_id == *g);
        self.groups.iter().filter(|(k, _)| wanted(k)).map(|(_, g)| g.clone()).collect()
    }
}

fn check_weight(weight: i32) -> Result<(), Refusal> {
    match weight {
        0.. if weight as usize <= MAX_GROUP_SLOTS => Ok(()),
        _ => refuse(Code::InvalidArgument, format!("weight {weight}: a member's weight is 0..={MAX_GROUP_SLOTS} (0 counts as 1)")),
    }
}
