//! Digests to the controller: each digest the p4info lists is sent once a controller configures it
//! (a `DigestEntry`), gathered into `DigestList`s of at most `max_list_size` entries that leave when
//! full or when their oldest entry has waited `max_timeout_ns`. Data already in a list the controller
//! has not acknowledged (a `DigestListAck`, or `ack_timeout_ns` passing) is not sent again, as the
//! P4Runtime specification asks, so a flood of equal digests (a MAC learning loop) reaches the
//! controller once.

use std::collections::{BTreeMap, HashSet};
use std::time::{Duration, Instant, SystemTime};

use p4_control::Digest;
use prost::Message;
use tonic::Code;

use super::tables::{refuse, Refusal};
use crate::proto::p4::config::v1 as p4info;
use crate::proto::p4::v1::{digest_entry, update, DigestEntry, DigestList, P4Data};
use crate::types::Reader;

/// Digest data waiting for the controller's acknowledgement, at most; beyond that, new digests
/// are dropped (and counted) until lists are acknowledged or their ack timeout passes.
pub const MAX_OUTSTANDING: usize = 65_536;

struct Config {
    max_timeout: Duration,
    max_list_size: usize,
    ack_timeout: Duration,
    /// As written, for reads.
    written: digest_entry::Config,
}

/// One digest's state.
struct Stream {
    config: Config,
    /// Data gathered for the next list, and when the first of it came.
    pending: Vec<P4Data>,
    since: Option<Instant>,
    /// The encoded data of every entry pending or sent and not acknowledged.
    in_flight: HashSet<Vec<u8>>,
}

/// A list sent and not acknowledged.
struct Sent {
    digest_id: u32,
    keys: Vec<Vec<u8>>,
    at: Instant,
}

/// The digests of one pipeline.
pub struct Digests {
    /// Digest id → its type, from the program's p4info.
    types: BTreeMap<u32, p4info::P4DataTypeSpec>,
    type_info: p4info::P4TypeInfo,
    streams: BTreeMap<u32, Stream>,
    sent: BTreeMap<u64, Sent>,
    outstanding: usize,
    next_list: u64,
    /// Digests not sent: not decodable, or over [`MAX_OUTSTANDING`].
    pub dropped: u64,
}


fn nanos(v: i64, what: &str) -> Result<Duration, Refusal> {
    u64::try_from(v).map(Duration::from_nanos).or_else(|_| refuse(Code::InvalidArgument, format!("{what} {v} is negative")))
}

impl Digests {
    /// The digests `info` lists, none configured.
    pub fn new(info: &p4info::P4Info) -> Digests {
        let types = info
            .digests
            .iter()
            .filter_map(|d| Some((d.preamble.as_ref()?.id, d.type_spec.clone()?)))
            .collect();
        Digests {
            types,
            type_info: info.type_info.clone().unwrap_or_default(),
            streams: BTreeMap::new(),
            sent: BTreeMap::new(),
            outstanding: 0,
            next_list: 1,
            dropped: 0,
        }
    }

    /// A `DigestEntry` update.
    pub fn write(&mut self, kind: update::Type, entry: &DigestEntry) -> Result<(), Refusal> {
        let id = entry.digest_id;
        if !self.types.contains_key(&id) {
            return refuse(Code::NotFound, format!("no digest with id {id:#x} in the program"));
        }
        if kind == update::Type::Delete {
            let Some(stream) = self.streams.remove(&id) else { return refuse(Code::NotFound, format!("digest {id:#x} is not configured")) };
            self.outstanding -= stream.in_flight.len().min(self.outstanding);
            self.sent.retain(|_, s| s.digest_id != id);
            return Ok(());
        }
        let Some(written) = entry.config.as_ref() else { return refuse(Code::InvalidArgument, "a digest entry without a config") };
        let config = Config {
            max_timeout: nanos(written.max_timeout_ns, "max_timeout_ns")?,
            max_list_size: usize::try_from(written.max_list_size)
                .or_else(|_| refuse(Code::InvalidArgument, format!("max_list_size {} is negative", written.max_list_size)))?,
            ack_timeout: nanos(written.ack_timeout_ns, "ack_timeout_ns")?,
            written: *written,
        };
        match (kind, self.streams.get_mut(&id)) {
            (update::Type::Insert, Some(_)) => refuse(Code::AlreadyExists, format!("digest {id:#x} is already configured (MODIFY changes it)")),
            (update::Type::Insert, None) => {
                self.streams.insert(id, Stream { config, pending: Vec::new(), since: None, in_flight: HashSet::new() });
                Ok(())
            }
            (update::Type::Modify, Some(stream)) => {
                stream.config = config;
                Ok(())
            }
            (update::Type::Modify, None) => refuse(Code::NotFound, format!("digest {id:#x} is not configured (INSERT it first)")),
            _ => refuse(Code::InvalidArgument, "an update of no type"),
        }
    }

    /// The configured digests `entry` asks for (every one for digest id 0).
    pub fn read(&self, entry: &DigestEntry) -> Vec<DigestEntry> {
        self.streams
            .iter()
            .filter(|(id, _)| entry.digest_id == 0 || entry.digest_id == **id)
            .map(|(id, s)| DigestEntry { digest_id: *id, config: Some(s.config.written) })
            .collect()
    }

    /// A digest from the dataplane; the lists that are ready go to `send`.
    pub fn offer(&mut self, digest: &Digest, now: Instant, send: &mut dyn FnMut(DigestList)) {
        let (Some(stream), Some(spec)) = (self.streams.get_mut(&digest.id), self.types.get(&digest.id)) else { return };
        let mut reader = Reader::new(&digest.data, digest.bits, &digest.varbit_lengths);
        let data = match reader.read(&self.type_info, spec) {
            Ok(data) if reader.is_done() => data,
            _ => {
                self.dropped += 1;
                return;
            }
        };
        let key = data.encode_to_vec();
        if stream.in_flight.contains(&key) {
            return; // the controller has it, or will with a list not yet sent
        }
        if self.outstanding >= MAX_OUTSTANDING {
            self.dropped += 1;
            return;
        }
        stream.in_flight.insert(key);
        self.outstanding += 1;
        stream.pending.push(data);
        stream.since.get_or_insert(now);
        let full = stream.config.max_list_size > 0 && stream.pending.len() >= stream.config.max_list_size;
        if full || stream.config.max_timeout.is_zero() {
            let id = digest.id;
            self.flush(id, now, send);
        }
    }

    /// Sends the lists whose oldest entry waited long enough, and forgets lists whose ack timeout
    /// passed (their data may be sent again).
    pub fn tick(&mut self, now: Instant, send: &mut dyn FnMut(DigestList)) {
        let due: Vec<u32> = self
            .streams
            .iter()
            .filter(|(_, s)| s.since.is_some_and(|since| now.saturating_duration_since(since) >= s.config.max_timeout))
            .map(|(id, _)| *id)
            .collect();
        for id in due {
            self.flush(id, now, send);
        }
        let expired: Vec<u64> = self
            .sent
            .iter()
            .filter(|(_, s)| self.streams.get(&s.digest_id).is_none_or(|d| now.saturating_duration_since(s.at) >= d.config.ack_timeout))
            .map(|(list, _)| *list)
            .collect();
        for list in expired {
            self.release(list);
        }
    }

    /// The controller acknowledged list `list_id` of digest `digest_id`; `Err` says why the ack
    /// names no list waiting for one.
    pub fn ack(&mut self, digest_id: u32, list_id: u64) -> Result<(), String> {
        match self.sent.get(&list_id) {
            Some(s) if s.digest_id == digest_id => {
                self.release(list_id);
                Ok(())
            }
            _ => Err(format!("no list {list_id} of digest {digest_id:#x} waits for an acknowledgement")),
        }
    }

    fn release(&mut self, list_id: u64) {
        let Some(sent) = self.sent.remove(&list_id) else { return };
        if let Some(stream) = self.streams.get_mut(&sent.digest_id) {
            for key in &sent.keys {
                if stream.in_flight.remove(key) {
                    self.outstanding -= 1;
                }
            }
        }
    }

    /// Sends digest `id`'s pending data as one list.
    fn flush(&mut self, id: u32, now: Instant, send: &mut dyn FnMut(DigestList)) {
        let Some(stream) = self.streams.get_mut(&id) else { return };
        stream.since = None;
        if stream.pending.is_empty() {
            return;
        }
        let data = std::mem::take(&mut stream.pending);
        let list_id = self.next_list;
        self.next_list += 1;
        let keys = data.iter().map(Message::encode_to_vec).collect();
        self.sent.insert(list_id, Sent { digest_id: id, keys, at: now });
        let timestamp = SystemTime::now().duration_since(SystemTime::UNIX_EPOCH).map_or(0, |d| i64::try_from(d.as_nanos()).unwrap_or(i64::MAX));
        send(DigestList { digest_id: id, list_id, data, timestamp });
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use p4info::p4_data_type_spec::TypeSpec as Data;

    const ID: u32 = 0x1700_0001;

    fn digests() -> Digests {
        let bit8 = p4info::P4BitstringLikeTypeSpec {
            type_spec: Some(p4info::p4_bitstring_like_type_spec::TypeSpec::Bit(p4info::P4BitTypeSpec { bitwidth: 8 })),
            ..Default::default()
        };
        let info = p4info::P4Info {
            digests: vec![p4info::Digest {
                preamble: Some(p4info::Preamble { id: ID, name: "d_t".into(), ..Default::default() }),
                type_spec: Some(p4info::P4DataTypeSpec { type_spec: Some(Data::Bitstring(bit8)) }),
            }],
            ..Default::default()
        };
        Digests::new(&info)
    }

    fn config(max_timeout_ns: i64, max_list_size: i32, ack_timeout_ns: i64) -> DigestEntry {
        DigestEntry { digest_id: ID, config: Some(digest_entry::Config { max_timeout_ns, max_list_size, ack_timeout_ns }) }
    }

    fn byte(v: u8) -> Digest {
        Digest { id: ID, receiver: 1, data: vec![v], bits: 8, varbit_lengths: Vec::new() }
    }

    fn values(list: &DigestList) -> Vec<Vec<u8>> {
        list.data
            .iter()
            .map(|d| match &d.data {
                Some(crate::proto::p4::v1::p4_data::Data::Bitstring(b)) => b.clone(),
                other => panic!("not a bitstring: {other:?}"),
            })
            .collect()
    }

    #[test]
    fn nothing_is_sent_before_the_digest_is_configured() {
        let mut d = digests();
        let mut lists = Vec::new();
        d.offer(&byte(1), Instant::now(), &mut |l| lists.push(l));
        assert!(lists.is_empty());
    }

    #[test]
    fn lists_fill_to_their_size_and_equal_data_waits_for_the_ack() {
        let mut d = digests();
        d.write(update::Type::Insert, &config(1_000_000_000, 2, 1_000_000_000)).unwrap();
        let now = Instant::now();
        let mut lists = Vec::new();
        for v in [1, 1, 2, 3] {
            d.offer(&byte(v), now, &mut |l| lists.push(l));
        }
        // 1 twice is one entry; the list of 1 and 2 left when full; 3 waits.
        assert_eq!(lists.len(), 1);
        assert_eq!(values(&lists[0]), vec![vec![1], vec![2]]);
        assert_eq!(lists[0].list_id, 1);
        d.offer(&byte(1), now, &mut |l| lists.push(l));
        assert_eq!(lists.len(), 1, "1 is not sent again before the ack");
        d.ack(ID, 1).unwrap();
        assert_eq!(d.ack(ID, 1).unwrap_err(), "no list 1 of digest 0x17000001 waits for an acknowledgement");
        d.offer(&byte(1), now, &mut |l| lists.push(l));
        assert_eq!(lists.len(), 2);
        assert_eq!(values(&lists[1]), vec![vec![3], vec![1]]);
    }

    #[test]
    fn the_timeout_sends_a_partial_list_and_the_ack_timeout_releases_its_data() {
        let mut d = digests();
        d.write(update::Type::Insert, &config(1_000, 100, 5_000)).unwrap();
        let start = Instant::now();
        let mut lists = Vec::new();
        d.offer(&byte(7), start, &mut |l| lists.push(l));
        d.tick(start, &mut |l| lists.push(l));
        assert!(lists.is_empty());
        d.tick(start + Duration::from_nanos(1_000), &mut |l| lists.push(l));
        assert_eq!(lists.len(), 1);
        d.offer(&byte(7), start + Duration::from_nanos(2_000), &mut |l| lists.push(l));
        d.tick(start + Duration::from_nanos(4_000), &mut |l| lists.push(l));
        assert_eq!(lists.len(), 1, "7 waits for its ack");
        d.tick(start + Duration::from_nanos(6_000), &mut |l| lists.push(l));
        d.offer(&byte(7), start + Duration::from_nanos(6_000), &mut |l| lists.push(l));
        d.tick(start + Duration::from_nanos(7_000), &mut |l| lists.push(l));
        assert_eq!(lists.len(), 2, "the ack timeout passed: 7 is sent again");
    }

    #[test]
    fn configs_are_inserted_once_modified_read_and_deleted() {
        let mut d = digests();
        assert_eq!(d.write(update::Type::Modify, &config(0, 1, 0)).unwrap_err().0, Code::NotFound);
        d.write(update::Type::Insert, &config(0, 1, 0)).unwrap();
        assert_eq!(d.write(update::Type::Insert, &config(0, 1, 0)).unwrap_err().0, Code::AlreadyExists);
        d.write(update::Type::Modify, &config(5, 2, 7)).unwrap();
        assert_eq!(d.read(&DigestEntry::default()), vec![config(5, 2, 7)]);
        assert_eq!(d.write(update::Type::Insert, &DigestEntry { digest_id: 9, ..config(0, 1, 0) }).unwrap_err().0, Code::NotFound);
        assert_eq!(d.write(update::Type::Modify, &config(-1, 1, 0)).unwrap_err(), (Code::InvalidArgument, "max_timeout_ns -1 is negative".to_string()));
        d.write(update::Type::Delete, &config(0, 0, 0)).unwrap();
        assert!(d.read(&DigestEntry::default()).is_empty());
    }
}
