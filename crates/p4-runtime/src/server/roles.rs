//! What a role may do. P4Runtime leaves the role config's format to the server; this one reads
//! Stratum's `stratum.P4RoleConfig` (the format existing controllers send), decoded from its wire
//! form: the P4 ids the role writes alone (`exclusive_p4_ids`, field 1) or with others
//! (`shared_p4_ids`, 2), a packet-in filter on one metadata value (3), whether it receives
//! packet-ins (4) and may push a pipeline (5).
//!
//! A role without a config (the default role always) has the whole pipeline, except ids another
//! role holds exclusively. A role with one writes only the ids it lists, reads only them, cannot
//! write entities without an id (multicast groups, clone sessions), and receives packet-ins and
//! pushes pipelines only if it says so.

use std::collections::BTreeSet;

use prost::Message;

use crate::proto::p4::v1::{entity::Entity as E, PacketMetadata, PacketReplicationEngineEntry};

/// The type URL of the one role config format taken.
pub const ROLE_CONFIG_TYPE: &str = "type.googleapis.com/stratum.P4RoleConfig";

/// The role config's wire form.
#[derive(Clone, PartialEq, Message)]
struct P4RoleConfig {
    #[prost(uint32, repeated, tag = "1")]
    exclusive_p4_ids: Vec<u32>,
    #[prost(uint32, repeated, tag = "2")]
    shared_p4_ids: Vec<u32>,
    #[prost(message, optional, tag = "3")]
    packet_in_filter: Option<PacketFilter>,
    #[prost(bool, tag = "4")]
    receives_packet_ins: bool,
    #[prost(bool, tag = "5")]
    can_push_pipeline: bool,
}

#[derive(Clone, PartialEq, Message)]
struct PacketFilter {
    #[prost(uint32, tag = "1")]
    metadata_id: u32,
    #[prost(bytes = "vec", tag = "2")]
    value: Vec<u8>,
}

/// A role's scope as its config gives it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Scope {
    pub exclusive: BTreeSet<u32>,
    pub shared: BTreeSet<u32>,
    /// Packet-ins whose metadata `id` has this value (leading zero bytes aside), if set.
    pub packet_in_filter: Option<(u32, Vec<u8>)>,
    pub receives_packet_ins: bool,
    pub can_push_pipeline: bool,
}

impl Scope {
    /// The scope a role config gives; `Err` says why it is refused.
    pub fn decode(config: &prost_types::Any) -> Result<Scope, String> {
        if config.type_url != ROLE_CONFIG_TYPE {
            return Err(format!("role config of type {:?}: this server takes {ROLE_CONFIG_TYPE}", config.type_url));
        }
        let c = P4RoleConfig::decode(config.value.as_slice()).map_err(|e| format!("role config does not decode: {e}"))?;
        Ok(Scope {
            exclusive: c.exclusive_p4_ids.into_iter().collect(),
            shared: c.shared_p4_ids.into_iter().collect(),
            packet_in_filter: c.packet_in_filter.map(|f| (f.metadata_id, f.value)),
            receives_packet_ins: c.receives_packet_ins,
            can_push_pipeline: c.can_push_pipeline,
        })
    }

    pub fn covers(&self, id: u32) -> bool {
        self.exclusive.contains(&id) || self.shared.contains(&id)
    }

    /// Whether a packet-in with `metadata` goes to this role.
    pub fn wants_packet_in(&self, metadata: &[PacketMetadata]) -> bool {
        let trimmed = |v: &[u8]| v.iter().position(|b| *b != 0).map_or(Vec::new(), |i| v[i..].to_vec());
        self.receives_packet_ins
            && self.packet_in_filter.as_ref().is_none_or(|(id, value)| {
                metadata.iter().any(|m| m.metadata_id == *id && trimmed(&m.value) == trimmed(value))
            })
    }
}

/// The P4 id an entity is written under: its table's, extern's, value set's or digest's; `None`
/// for the packet replication engine's entries, which have none.
pub fn entity_id(entity: &E) -> Option<u32> {
    let table_of = |t: &Option<crate::proto::p4::v1::TableEntry>| t.as_ref().map_or(0, |t| t.table_id);
    Some(match entity {
        E::TableEntry(e) => e.table_id,
        E::CounterEntry(e) => e.counter_id,
        E::DirectCounterEntry(e) => table_of(&e.table_entry),
        E::MeterEntry(e) => e.meter_id,
        E::DirectMeterEntry(e) => table_of(&e.table_entry),
        E::RegisterEntry(e) => e.register_id,
        E::ValueSetEntry(e) => e.value_set_id,
        E::DigestEntry(e) => e.digest_id,
        E::ActionProfileMember(e) => e.action_profile_id,
        E::ActionProfileGroup(e) => e.action_profile_id,
        E::ExternEntry(e) => e.extern_id,
        E::PacketReplicationEngineEntry(PacketReplicationEngineEntry { .. }) => return None,
    })
}
