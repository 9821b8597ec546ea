//! Client arbitration on the StreamChannel: every open stream that has sent a
//! `MasterArbitrationUpdate` is a controller of one role with an election id; per role, the highest
//! election id is the primary. Every controller of a role hears who the primary is whenever that
//! changes (its own update's status: OK for the primary, ALREADY_EXISTS for a backup, NOT_FOUND when
//! the role has no primary).

use std::collections::BTreeMap;

use tokio::sync::mpsc;
use tonic::{Code, Status};

use crate::proto::google::rpc;
use crate::proto::p4::v1::{stream_message_response, MasterArbitrationUpdate, Role, StreamMessageResponse, Uint128};

/// Where a stream's messages go.
pub type StreamTx = mpsc::Sender<Result<StreamMessageResponse, Status>>;

struct Controller {
    role: String,
    election_id: u128,
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
        let before = self.primary(&role);
        self.controllers.insert(stream, Controller { role: role.clone(), election_id, tx: tx.clone() });
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

    /// Whether stream `stream` is its role's primary.
    pub fn is_primary(&self, stream: u64) -> bool {
        self.controllers.get(&stream).is_some_and(|c| self.primary(&c.role) == Some(c.election_id))
    }

    /// The primary's stream of the default role (where packet-ins go).
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
