//! Client arbitration on the StreamChannel: every open stream that has sent a
//! `MasterArbitrationUpdate` is a controller of one role with an election id; per role, the highest
//! election id is the primary. Every controller of a role hears who the primary is whenever that
//! changes (its own update's status: OK for the primary, ALREADY_EXISTS for a backup, NOT_FOUND when
//! the role has no primary). A role's scope is its primary's role config ([`roles::Scope`]).

use std::collections::BTreeMap;

use tokio::sync::mpsc;
use tonic::{Code, Status};

use super::roles::{self, Scope};
use crate::proto::google::rpc;
use crate::proto::p4::v1::{entity::Entity as E, stream_message_response, MasterArbitrationUpdate, PacketMetadata, Role, StreamMessageResponse, Uint128};

/// Where a stream's messages go.
pub type StreamTx = mpsc::Sender<Result<StreamMessageResponse, Status>>;

struct Controller {
    role: String,
    election_id: u128,
    /// Its role config (`None`: the whole pipeline).
    scope: Option<Scope>,
    tx: StreamTx,
}

/// The controllers of a device, by stream.
#[derive(Default)]
pub struct Arbitration {
    controllers: BTreeMap<u64, Controller>,
}

pub fn election(id: Option<&Uint128>) -> Option<u128> {
    id.map(|u| u128::from(u.high) << 64 | u128::from(u.low))
}

fn uint128(v: u128) -> Uint128 {
    Uint128 { high: (v >> 64) as u64, low: v as u64 }
}

impl Arbitration {
    /// Stream `stream` sent `update`; `Err` ends that stream with the status.
    pub fn update(&mut self, device_id: u64, stream: u64, update: &MasterArbitrationUpdate, tx: &StreamTx) -> Result<(), Status> {
        if update.device_id != device_id {
            return Err(Status::not_found(format!("no device {} here (this is device {device_id})", update.device_id)));
        }
        let role = update.role.as_ref().map_or(String::new(), |r| r.name.clone());
        let Some(election_id) = election(update.election_id.as_ref()) else {
            return Err(Status::invalid_argument("an arbitration update needs an election id"));
        };
        if self.controllers.iter().any(|(s, c)| *s != stream && c.role == role && c.election_id == election_id) {
            return Err(Status::invalid_argument(format!("election id {election_id} is already taken by another controller of this role")));
        }
        if let Some(c) = self.controllers.get(&stream) {
            if c.role != role {
                return Err(Status::failed_precondition("a stream's role cannot change"));
            }
        }
        let scope = match update.role.as_ref().and_then(|r| r.config.as_ref()) {
            None => None,
            Some(_) if role.is_empty() => return Err(Status::invalid_argument("the default role has the whole pipeline: it takes no role config")),
            Some(config) => Some(Scope::decode(config).map_err(Status::invalid_argument)?),
        };
        if let Some(scope) = &scope {
            self.check_exclusive(&role, scope)?;
        }
        let before = self.primary(&role);
        self.controllers.insert(stream, Controller { role: role.clone(), election_id, scope, tx: tx.clone() });
        // Everyone hears of a new primary; otherwise only the controller that asked.
        let only = (self.primary(&role) == before).then_some(stream);
        self.tell(device_id, &role, only);
        Ok(())
    }

    /// Stream `stream` ended.
    pub fn remove(&mut self, device_id: u64, stream: u64) {
        if let Some(c) = self.controllers.remove(&stream) {
            if self.primary(&c.role) < Some(c.election_id) {
                // It was the primary: the next highest takes over, and everyone hears.
                self.tell(device_id, &c.role, None);
            }
        }
    }

    /// The primary's election id of `role`, if it has one.
    pub fn primary(&self, role: &str) -> Option<u128> {
        self.controllers.values().filter(|c| c.role == role).map(|c| c.election_id).max()
    }

    /// `Ok` when `election_id` is the primary's of `role` (what every write must carry).
    pub fn check_primary(&self, role: &str, election_id: Option<&Uint128>) -> Result<(), Status> {
        match (self.primary(role), election(election_id)) {
            (Some(p), Some(e)) if p == e => Ok(()),
            (None, _) => Err(Status::permission_denied("no primary controller: open a StreamChannel and arbitrate first")),
            (Some(p), e) => Err(Status::permission_denied(format!(
                "only the primary controller (election id {p}) may write; this request carries {}",
                e.map_or("none".to_string(), |e| e.to_string())
            ))),
        }
    }

    /// Refuses a config that claims exclusively an id another role's scope covers, or covers one
    /// another role holds exclusively.
    fn check_exclusive(&self, role: &str, scope: &Scope) -> Result<(), Status> {
        for (other, theirs) in self.scopes().filter(|(r, _)| *r != role) {
            let clash = scope.exclusive.iter().find(|id| theirs.covers(**id)).or_else(|| theirs.exclusive.iter().find(|id| scope.covers(**id)));
            if let Some(id) = clash {
                return Err(Status::invalid_argument(format!("P4 id {id:#x} is exclusive to one role and in role {other:?}'s scope too")));
            }
        }
        Ok(())
    }

    /// Every role's scope: its primary's config, for the roles that have one.
    fn scopes(&self) -> impl Iterator<Item = (&str, &Scope)> {
        self.controllers
            .values()
            .filter(|c| self.primary(&c.role) == Some(c.election_id))
            .filter_map(|c| Some((c.role.as_str(), c.scope.as_ref()?)))
    }

    /// The scope of `role` (`None`: the whole pipeline).
    fn scope(&self, role: &str) -> Option<&Scope> {
        self.scopes().find(|(r, _)| *r == role).map(|(_, s)| s)
    }

    /// `Ok` when `role` may write `entity`: its scope covers the entity's id, and no other role
    /// holds that id exclusively.
    pub fn may_write(&self, role: &str, entity: &E) -> Result<(), String> {
        let id = roles::entity_id(entity);
        match (self.scope(role), id) {
            (Some(_), None) => return Err(format!("role {role:?} has a role config: entities without a P4 id are out of its scope")),
            (Some(scope), Some(id)) if !scope.covers(id) => return Err(format!("P4 id {id:#x} is not in role {role:?}'s scope")),
            _ => {}
        }
        match self.scopes().find(|(r, s)| *r != role && id.is_some_and(|id| s.exclusive.contains(&id))) {
            Some((other, _)) => Err(format!("P4 id {:#x} is exclusive to role {other:?}", id.unwrap_or_default())),
            None => Ok(()),
        }
    }

    /// Whether a read by `role` returns `entity`.
    pub fn may_read(&self, role: &str, entity: &E) -> bool {
        match (self.scope(role), roles::entity_id(entity)) {
            (None, _) => true,
            (Some(scope), id) => id.is_some_and(|id| scope.covers(id)),
        }
    }

    /// Whether `role` may push a pipeline.
    pub fn may_push(&self, role: &str) -> bool {
        self.scope(role).is_none_or(|s| s.can_push_pipeline)
    }

    /// The streams of the primaries a packet-in with `metadata` goes to: every role's that
    /// receives it (a role without a config receives all).
    pub fn packet_in_txs(&self, metadata: &[PacketMetadata]) -> Vec<&StreamTx> {
        self.controllers
            .values()
            .filter(|c| self.primary(&c.role) == Some(c.election_id))
            .filter(|c| c.scope.as_ref().is_none_or(|s| s.wants_packet_in(metadata)))
            .map(|c| &c.tx)
            .collect()
    }

    /// Whether stream `stream` is its role's primary.
    pub fn is_primary(&self, stream: u64) -> bool {
        self.controllers.get(&stream).is_some_and(|c| self.primary(&c.role) == Some(c.election_id))
    }

    /// The primary's stream of the default role (where digest lists go).
    pub fn primary_tx(&self) -> Option<&StreamTx> {
        let p = self.primary("")?;
        self.controllers.values().find(|c| c.role.is_empty() && c.election_id == p).map(|c| &c.tx)
    }

    /// Tells every controller of `role` (or only stream `only`) who its primary is.
    fn tell(&self, device_id: u64, role: &str, only: Option<u64>) {
        let primary = self.primary(role);
        for (_, c) in self.controllers.iter().filter(|(s, c)| c.role == role && only.is_none_or(|o| o == **s)) {
            let (code, message) = match primary {
                Some(p) if p == c.election_id => (Code::Ok, "this controller is the primary"),
                Some(_) => (Code::AlreadyExists, "another controller is the primary"),
                None => (Code::NotFound, "no primary"),
            };
            let update = MasterArbitrationUpdate {
                device_id,
                role: (!role.is_empty()).then(|| Role { name: role.to_string(), ..Default::default() }),
                election_id: primary.map(uint128),
                status: Some(rpc::Status { code: code as i32, message: message.to_string(), details: Vec::new() }),
            };
            let message = StreamMessageResponse { update: Some(stream_message_response::Update::Arbitration(update)) };
            // A controller that does not read its stream loses updates rather than stalling others.
            let _ = c.tx.try_send(Ok(message));
        }
    }
}
