//! Idle timeouts. A table with `support_timeout = true` has its dataplane record hit bits
//! (`ControlPlane::take_hits`); every [`POLL`] the server takes them and notes when each entry was
//! last seen hit. An entry with an `idle_timeout_ns` that goes that long without a hit is reported
//! once in an `IdleTimeoutNotification` to the primary controller, and again only after a hit, a
//! modification or a re-insertion starts its timer anew. Reads asking for `time_since_last_hit`
//! get the time since the last hit (or since the entry was written), to within a poll.

use std::collections::HashMap;
use std::time::{Duration, Instant};

use p4_control::catalog::Catalog;
use p4_control::{ControlPlane, Handle};
use tonic::Code;

use super::tables::{Entries, Refusal};
use crate::proto::p4::v1::TableEntry;

/// How often hit bits are taken.
pub const POLL: Duration = Duration::from_millis(100);

/// When each entry (by table and handle) was last seen hit or written, and whether it has been
/// reported idle since.
#[derive(Default)]
pub struct Idle {
    seen: HashMap<(usize, Handle), (Instant, bool)>,
    last_poll: Option<Instant>,
}

impl Idle {
    /// Entry `before` (the handle an update found) became `after`, at `now`: its timer starts
    /// again.
    pub fn written(&mut self, before: Option<(usize, Handle)>, after: Option<(usize, Handle)>, now: Instant) {
        if let Some(key) = before {
            self.seen.remove(&key);
        }
        if let Some(key) = after {
            self.seen.insert(key, (now, false));
        }
    }

    /// Takes table `table`'s hit bits (a table that records hits): the entries hit are seen now.
    pub fn take(&mut self, target: &mut dyn ControlPlane, catalog: &Catalog, table: usize, now: Instant) -> Result<(), Refusal> {
        let hits = target.take_hits(&catalog.tables[table].name).map_err(|e| (Code::Unimplemented, format!("no idle timeouts: {e}")))?;
        for h in hits {
            self.seen.insert((table, h), (now, false));
        }
        Ok(())
    }

    /// Takes the hit bits of every table that records them (a target that cannot is skipped: it
    /// was refused idle timeouts when they were written).
    pub fn poll(&mut self, target: &mut dyn ControlPlane, catalog: &Catalog, now: Instant) {
        for t in (0..catalog.tables.len()).filter(|t| catalog.tables[*t].records_hits) {
            let _ = self.take(target, catalog, t, now);
        }
        self.last_poll = Some(now);
    }

    /// Whether a [`POLL`] has passed since the last poll.
    pub fn due(&self, now: Instant) -> bool {
        self.last_poll.is_none_or(|p| now.duration_since(p) >= POLL)
    }

    /// The entries whose idle timeout has passed since they were last seen hit and that were not
    /// reported yet; they are reported now.
    pub fn expired(&mut self, entries: &Entries, now: Instant) -> Vec<TableEntry> {
        let mut out = Vec::new();
        for (table, handle, entry) in entries.with_idle_timeouts() {
            let Some((seen, reported)) = self.seen.get_mut(&(table, handle)) else { continue };
            if !*reported && now.duration_since(*seen).as_nanos() >= entry.idle_timeout_ns as u128 {
                *reported = true;
                out.push(entry.clone());
            }
        }
        out
    }

    /// How long entry `handle` of `table` has gone without a hit (since it was written, if never).
    pub fn since_last_hit(&self, table: usize, handle: Handle, now: Instant) -> Option<Duration> {
        self.seen.get(&(table, handle)).map(|(seen, _)| now.duration_since(*seen))
    }
}
