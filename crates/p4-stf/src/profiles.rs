//! BMv2's action profile commands (`act_prof_*`, `table_indirect_*`) over the control-plane API,
//! which knows no members or groups: an entry naming a member is added with the member's action,
//! one naming a group is made to choose among the group's members (`ControlPlane::table_select`),
//! and when a member or group changes every entry and default using it is written again.
//!
//! Member and group handles are numbered per action profile from 0, in creation order, as BMv2
//! prints them (a deleted handle is not reused). An entry may not name an empty group, and a group
//! an entry names may not lose its last member: BMv2 would have no action for its packets.

use std::collections::BTreeMap;

use num_bigint::BigUint;
use p4_control::catalog::Catalog;
use p4_ir::layout::ObjectKind;
use p4_control::{ActionArgs, ControlError, ControlPlane, Handle, KeyValue, Keys};

/// What an indirect entry or default names.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Ref {
    Member(u64),
    Group(u64),
}

/// One action profile command.
#[derive(Clone, Debug, PartialEq)]
pub enum ProfileCommand {
    CreateMember { profile: String, action: String, args: Vec<BigUint> },
    DeleteMember { profile: String, member: u64 },
    ModifyMember { profile: String, action: String, member: u64, args: Vec<BigUint> },
    CreateGroup { profile: String },
    DeleteGroup { profile: String, group: u64 },
    AddMemberToGroup { profile: String, member: u64, group: u64 },
    RemoveMemberFromGroup { profile: String, member: u64, group: u64 },
    IndirectAdd { table: String, keys: Vec<KeyValue>, to: Ref, priority: Option<i64> },
    IndirectDelete { table: String, entry: u64 },
    IndirectSetDefault { table: String, member: u64 },
}

#[derive(Clone, Debug, Default)]
struct Profile {
    /// By handle: the action and its arguments (`None`: deleted).
    members: Vec<Option<(String, Vec<BigUint>)>>,
    /// By handle: the member handles, in the order added (`None`: deleted).
    groups: Vec<Option<Vec<u64>>>,
}

/// The members and groups a command file created, and which entries name them.
#[derive(Clone, Debug, Default)]
pub struct Profiles {
    /// By action profile (extern index).
    profiles: BTreeMap<usize, Profile>,
    /// (table index, entry handle) → what the entry names.
    entries: BTreeMap<(usize, Handle), Ref>,
    /// Table index → the member its default names.
    defaults: BTreeMap<usize, u64>,
}

fn invalid<T>(message: String) -> Result<T, ControlError> {
    Err(ControlError::Invalid(message))
}

fn catalog<C: ControlPlane + ?Sized>(cp: &C) -> Result<Catalog, ControlError> {
    cp.control_catalog().cloned().ok_or_else(|| ControlError::Invalid("this dataplane cannot list its action profiles".to_string()))
}

/// The action profile `name` means, and a table using it (whose actions its members take).
fn profile_of(catalog: &Catalog, name: &str) -> Result<(usize, usize), ControlError> {
    let profile = catalog.extern_index(&[ObjectKind::ActionProfile], name)?;
    match catalog.tables.iter().position(|t| t.implementation == Some(profile)) {
        Some(table) => Ok((profile, table)),
        None => invalid(format!("action profile {} is the implementation of no table", catalog.externs[profile].name)),
    }
}

impl Profiles {
    /// Applies `command`; the text to print, if any.
    pub fn apply<C: ControlPlane + ?Sized>(&mut self, cp: &mut C, command: &ProfileCommand) -> Result<Option<String>, ControlError> {
        let catalog = catalog(cp)?;
        match command {
            ProfileCommand::CreateMember { profile, action, args } => {
                let (p, table) = profile_of(&catalog, profile)?;
                catalog.action_to_modify(&catalog.tables[table].name, action, &ActionArgs::Positional(args.clone()))?;
                let members = &mut self.profiles.entry(p).or_default().members;
                members.push(Some((action.clone(), args.clone())));
                Ok(Some(format!("member {} created in {}", members.len() - 1, catalog.externs[p].name)))
            }
            ProfileCommand::ModifyMember { profile, action, member, args } => {
                let (p, table) = profile_of(&catalog, profile)?;
                catalog.action_to_modify(&catalog.tables[table].name, action, &ActionArgs::Positional(args.clone()))?;
                *self.member_mut(&catalog, p, *member)? = (action.clone(), args.clone());
                self.refresh(cp, &catalog, p, |r, groups| match r {
                    Ref::Member(m) => m == *member,
                    Ref::Group(g) => groups.get(g as usize).and_then(Option::as_ref).is_some_and(|g| g.contains(member)),
                })?;
                Ok(None)
            }
            ProfileCommand::DeleteMember { profile, member } => {
                let (p, _) = profile_of(&catalog, profile)?;
                self.member_mut(&catalog, p, *member)?;
                let state = &self.profiles[&p];
                let in_group = state.groups.iter().flatten().any(|g| g.contains(member));
                if in_group || self.uses(&catalog, p, Ref::Member(*member)) || self.default_uses(&catalog, p, *member) {
                    return invalid(format!("member {member} of {} is in use (by a group, an entry or a default)", catalog.externs[p].name));
                }
                self.profiles.entry(p).or_default().members[*member as usize] = None;
                Ok(None)
            }
            ProfileCommand::CreateGroup { profile } => {
                let (p, table) = profile_of(&catalog, profile)?;
                if catalog.tables[table].selector.is_none() {
                    return invalid(format!("action profile {} has no selector: it has no groups", catalog.externs[p].name));
                }
                let groups = &mut self.profiles.entry(p).or_default().groups;
                groups.push(Some(Vec::new()));
                Ok(Some(format!("group {} created in {}", groups.len() - 1, catalog.externs[p].name)))
            }
            ProfileCommand::DeleteGroup { profile, group } => {
                let (p, _) = profile_of(&catalog, profile)?;
                self.group_mut(&catalog, p, *group)?;
                if self.uses(&catalog, p, Ref::Group(*group)) {
                    return invalid(format!("group {group} of {} is in use by an entry", catalog.externs[p].name));
                }
                self.profiles.entry(p).or_default().groups[*group as usize] = None;
                Ok(None)
            }
            ProfileCommand::AddMemberToGroup { profile, member, group } => {
                let (p, _) = profile_of(&catalog, profile)?;
                self.member_mut(&catalog, p, *member)?;
                let members = self.group_mut(&catalog, p, *group)?;
                if members.contains(member) {
                    return invalid(format!("member {member} is already in group {group}"));
                }
                members.push(*member);
                self.refresh(cp, &catalog, p, |r, _| r == Ref::Group(*group))?;
                Ok(None)
            }
            ProfileCommand::RemoveMemberFromGroup { profile, member, group } => {
                let (p, _) = profile_of(&catalog, profile)?;
                let in_use = self.uses(&catalog, p, Ref::Group(*group));
                let members = self.group_mut(&catalog, p, *group)?;
                let Some(at) = members.iter().position(|m| m == member) else { return invalid(format!("member {member} is not in group {group}")) };
                if in_use && members.len() == 1 {
                    return invalid(format!("group {group} is in use by an entry: it cannot lose its last member"));
                }
                members.remove(at);
                self.refresh(cp, &catalog, p, |r, _| r == Ref::Group(*group))?;
                Ok(None)
            }
            ProfileCommand::IndirectAdd { table, keys, to, priority } => {
                let t = catalog.table_index(table)?;
                let p = self.indirect(&catalog, t)?;
                let chosen = self.chosen(&catalog, p, *to)?;
                let name = &catalog.tables[t].name;
                let (action, args) = chosen[0].clone();
                let handle = cp.table_add(name, Keys::Positional(keys.clone()), &action, args, *priority)?;
                if let Ref::Group(_) = to {
                    if let Err(e) = cp.table_select(name, handle, chosen) {
                        // Not added after all.
                        let _ = cp.table_delete(name, handle);
                        return Err(e);
                    }
                }
                self.entries.insert((t, handle), *to);
                Ok(Some(format!("entry added to {name} with handle {handle}")))
            }
            ProfileCommand::IndirectDelete { table, entry } => {
                let t = catalog.table_index(table)?;
                self.indirect(&catalog, t)?;
                cp.table_delete(&catalog.tables[t].name, *entry)?;
                self.entries.remove(&(t, *entry));
                Ok(None)
            }
            ProfileCommand::IndirectSetDefault { table, member } => {
                let t = catalog.table_index(table)?;
                let p = self.indirect(&catalog, t)?;
                let (action, args) = self.chosen(&catalog, p, Ref::Member(*member))?.remove(0);
                cp.table_set_default(&catalog.tables[t].name, &action, args)?;
                self.defaults.insert(t, *member);
                Ok(None)
            }
        }
    }

    /// Entries of table `table` (by index) are gone (`None`: all of them), deleted or cleared by
    /// the plain table commands.
    pub fn forget(&mut self, table: usize, entry: Option<Handle>) {
        self.entries.retain(|(t, h), _| *t != table || entry.is_some_and(|e| e != *h));
    }

    /// The action profile of table `t`, which must have one.
    fn indirect(&self, catalog: &Catalog, t: usize) -> Result<usize, ControlError> {
        catalog.tables[t].implementation.ok_or_else(|| ControlError::Invalid(format!("table {} has no action profile", catalog.tables[t].name)))
    }

    fn member_mut(&mut self, catalog: &Catalog, p: usize, member: u64) -> Result<&mut (String, Vec<BigUint>), ControlError> {
        let found = self.profiles.get_mut(&p).and_then(|s| s.members.get_mut(member as usize)?.as_mut());
        found.ok_or_else(|| ControlError::Invalid(format!("action profile {} has no member {member}", catalog.externs[p].name)))
    }

    fn group_mut(&mut self, catalog: &Catalog, p: usize, group: u64) -> Result<&mut Vec<u64>, ControlError> {
        let found = self.profiles.get_mut(&p).and_then(|s| s.groups.get_mut(group as usize)?.as_mut());
        found.ok_or_else(|| ControlError::Invalid(format!("action profile {} has no group {group}", catalog.externs[p].name)))
    }

    /// The actions `to` stands for: a member's, or each of a group's members' (at least one).
    fn chosen(&mut self, catalog: &Catalog, p: usize, to: Ref) -> Result<Vec<(String, ActionArgs)>, ControlError> {
        let members = match to {
            Ref::Member(m) => vec![m],
            Ref::Group(g) => self.group_mut(catalog, p, g)?.clone(),
        };
        if members.is_empty() {
            return invalid(format!("group of {} has no members: add members before an entry names it", catalog.externs[p].name));
        }
        members
            .into_iter()
            .map(|m| self.member_mut(catalog, p, m).map(|(a, args)| (a.clone(), ActionArgs::Positional(args.clone()))))
            .collect()
    }

    /// Whether an entry of a table with profile `p` names `what`.
    fn uses(&self, catalog: &Catalog, p: usize, what: Ref) -> bool {
        self.entries.iter().any(|((t, _), r)| catalog.tables[*t].implementation == Some(p) && *r == what)
    }

    fn default_uses(&self, catalog: &Catalog, p: usize, member: u64) -> bool {
        self.defaults.iter().any(|(t, m)| catalog.tables[*t].implementation == Some(p) && *m == member)
    }

    /// Writes again the entries (and defaults) of profile `p` for which `stale(ref, groups)` holds.
    fn refresh<C: ControlPlane + ?Sized>(&mut self, cp: &mut C, catalog: &Catalog, p: usize, stale: impl Fn(Ref, &[Option<Vec<u64>>]) -> bool) -> Result<(), ControlError> {
        let groups = self.profiles.get(&p).map(|s| s.groups.clone()).unwrap_or_default();
        let entries: Vec<((usize, Handle), Ref)> = self
            .entries
            .iter()
            .filter(|((t, _), r)| catalog.tables[*t].implementation == Some(p) && stale(**r, &groups))
            .map(|(k, r)| (*k, *r))
            .collect();
        for ((t, handle), r) in entries {
            let mut chosen = self.chosen(catalog, p, r)?;
            let name = &catalog.tables[t].name;
            match r {
                Ref::Member(_) => {
                    let (action, args) = chosen.remove(0);
                    cp.table_modify(name, handle, &action, args)?;
                }
                Ref::Group(_) => cp.table_select(name, handle, chosen)?,
            }
        }
        let defaults: Vec<(usize, u64)> = self.defaults.iter().filter(|(t, m)| catalog.tables[**t].implementation == Some(p) && stale(Ref::Member(**m), &groups)).map(|(t, m)| (*t, *m)).collect();
        for (t, m) in defaults {
            let (action, args) = self.chosen(catalog, p, Ref::Member(m))?.remove(0);
            cp.table_set_default(&catalog.tables[t].name, &action, args)?;
        }
        Ok(())
    }
}
