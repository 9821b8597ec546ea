//! Match tables in hardware: which `hw/` table module implements each P4 table, how wide its key
//! and result are, and where its control registers sit. The key and action-data layouts are the
//! IR's ([`p4_ir::layout`]); this module only decides the hardware around them.
//!
//! Control registers of one table (32-bit words from `regs.base`, little-endian word order: word
//! `j` holds bits `[32j +: 32]` of a packed value):
//! - `key` (`key_words`): the key, packed as the key layout packs it (first field most significant);
//! - `mask` (`key_words`, TCAM kinds only): which key bits an entry compares;
//! - `data` (`data_words`): `{action index, action data}`, the action index (position in the table's
//!   `actions` list) in the top `action_bits`, the action's data (its layout, most significant
//!   first) right below it;
//! - `index`: the entry slot (TCAM: the entry's position, lower wins; hash: `bucket * ways + way`);
//! - `cmd`: writing it commits: bit 0 = the entry is valid (0 deletes the slot), bit 1 = write
//!   `data` as the default action instead of an entry.

use serde::Serialize;

use p4_ir::layout::Layouts;
use p4_ir::{MatchKind, Program, Span, Table, TableId};

use crate::error::{unsupported, Result};
use crate::names::ident;

/// Latency of `p4f_table_tcam` and `p4f_table_exact_hash` in enabled cycles (their `LATENCY`).
pub const LOOKUP_LATENCY: u32 = 2;
/// Latency of `p4f_table_tcam_bram` in enabled cycles (its `LATENCY`).
pub const TCAM_BRAM_LATENCY: u32 = 4;
/// A ternary, LPM or BCAM table of at least this many entries is built on block RAM
/// (`p4f_table_tcam_bram`); a smaller one in flip-flops (`p4f_table_tcam`): it takes no block RAM
/// (the block-RAM table takes a RAM per 9-bit key slice whatever its size) and an entry is written
/// in one cycle instead of a thousand, while its LUTs are still few (32 entries of 32 bits: 1,526
/// LUTs in flip-flops, 528 LUTs and 4 BRAM36 on block RAM; 64 entries: 3,008 against 629 and 6).
pub const TCAM_BRAM_MIN_ENTRIES: u32 = 64;

/// The `hw/` module that implements a table.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub enum TableModule {
    #[serde(rename = "p4f_table_exact_hash")]
    ExactHash,
    #[serde(rename = "p4f_table_tcam")]
    TcamFlops,
    #[serde(rename = "p4f_table_tcam_bram")]
    TcamBram,
    /// A keyless table has no lookup memory.
    #[serde(rename = "none")]
    None,
}

impl TableModule {
    pub fn name(self) -> Option<&'static str> {
        match self {
            TableModule::ExactHash => Some("p4f_table_exact_hash"),
            TableModule::TcamFlops => Some("p4f_table_tcam"),
            TableModule::TcamBram => Some("p4f_table_tcam_bram"),
            TableModule::None => None,
        }
    }

    /// Lookup latency in enabled cycles.
    pub fn latency(self) -> u32 {
        match self {
            TableModule::ExactHash | TableModule::TcamFlops => LOOKUP_LATENCY,
            TableModule::TcamBram => TCAM_BRAM_LATENCY,
            TableModule::None => 0,
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum TableKind {
    /// All keys exact: hashed, set-associative, in block RAM.
    ExactHash,
    /// All keys exact, parallel compare (by option).
    ExactBcam,
    /// Any ternary/optional/range key: TCAM emulation (a range entry takes one slot per prefix
    /// of its expansion).
    Ternary,
    /// One LPM key (others exact): TCAM emulation, entries sorted by prefix length.
    Lpm,
    /// No key: every apply misses and runs the default action.
    Keyless,
}

/// Where a table's control registers are (word offsets from `base`, a byte address).
#[derive(Clone, Debug, Serialize)]
pub struct RegBlock {
    pub base: u32,
    pub key: u32,
    pub key_words: u32,
    pub mask: u32,
    pub data: u32,
    pub data_words: u32,
    pub index: u32,
    pub cmd: u32,
    pub words: u32,
}

/// One table as built.
#[derive(Clone, Debug, Serialize)]
pub struct TableHw {
    /// Control-plane name.
    pub name: String,
    #[serde(skip)]
    pub id: TableId,
    /// Signal prefix in the generated code.
    pub sv_name: String,
    pub kind: TableKind,
    /// The `hw/` module that holds its entries.
    pub module: TableModule,
    /// Capacity in entries.
    pub entries: u32,
    /// Hash tables: buckets and ways (`entries = buckets * ways`).
    pub buckets: u32,
    pub ways: u32,
    pub key_bits: u32,
    pub action_bits: u32,
    /// Action data bits, and below them `slot_bits` bits of the entry's slot (tables with a
    /// direct counter; 0 otherwise).
    pub data_bits: u32,
    pub slot_bits: u32,
    pub latency: u32,
    pub regs: RegBlock,
    /// Action names by action index.
    pub actions: Vec<String>,
}

impl TableHw {
    /// Width of the result word `{action index, data}`.
    pub fn result_bits(&self) -> u32 {
        self.action_bits + self.data_bits
    }
}

/// Options that choose table implementations.
#[derive(Clone, Copy, Debug)]
pub struct TableOptions {
    /// Exact tables as BCAM instead of hash.
    pub exact_bcam: bool,
    /// Largest TCAM built (entries beyond are refused).
    pub max_tcam_entries: u32,
    /// Ternary, LPM and BCAM tables in flip-flops whatever their size (by default those of
    /// [`TCAM_BRAM_MIN_ENTRIES`] or more go on block RAM).
    pub tcam_flops: bool,
    /// Most memory one table may take, in bits (entries times key, mask, result and valid
    /// bits): a table beyond it could not be placed in the block RAM of the devices the target
    /// is sized for, nor simulated in reasonable memory.
    pub max_table_bits: u64,
}

/// The most entries a table of the hardware target has (its `size` beyond is refused).
pub const MAX_TABLE_ENTRIES: u32 = 1 << 20;

impl Default for TableOptions {
    fn default() -> Self {
        TableOptions { exact_bcam: false, max_tcam_entries: 4096, tcam_flops: false, max_table_bits: 1 << 24 }
    }
}

fn bits_for(n: u32) -> u32 {
    if n <= 1 {
        1
    } else {
        32 - (n - 1).leading_zeros()
    }
}

/// Plans table `id`; `next_word` is the first free control word (advanced past this table).
pub fn plan(
    p: &Program,
    layouts: &Layouts,
    id: TableId,
    opts: &TableOptions,
    next_word: &mut u32,
    span: Span,
) -> Result<TableHw> {
    let t: &Table = &p.tables[id.index()];
    let key = &layouts.keys[id.index()];
    if !key.selector_keys.is_empty() || t.implementation.is_some() {
        return unsupported(span, format!("table `{}` uses an action profile or selector", t.name));
    }
    if t.direct_meter.is_some() {
        return unsupported(span, format!("table `{}` has a direct meter", t.name));
    }
    let mut kinds = key.fields.iter().map(|f| &f.match_kind);
    let kind = if key.fields.is_empty() {
        TableKind::Keyless
    } else if let Some(k) = kinds.find(|k| {
        !matches!(k, MatchKind::Exact | MatchKind::Ternary | MatchKind::Lpm | MatchKind::Optional | MatchKind::Range)
    }) {
        return unsupported(span, format!("table `{}` has a `{k:?}` key", t.name));
    } else if key
        .fields
        .iter()
        .any(|f| matches!(f.match_kind, MatchKind::Ternary | MatchKind::Optional | MatchKind::Range))
    {
        // Range keys are ternary in hardware: the control plane writes each range entry as the
        // prefixes that cover it (`range_prefixes`), in consecutive slots.
        TableKind::Ternary
    } else if key.fields.iter().any(|f| matches!(f.match_kind, MatchKind::Lpm)) {
        TableKind::Lpm
    } else if opts.exact_bcam {
        TableKind::ExactBcam
    } else {
        TableKind::ExactHash
    };
    if let Some(f) = key.fields.iter().find(|f| f.width > p4_control::MAX_KEY_FIELD_BITS) {
        let most = p4_control::MAX_KEY_FIELD_BITS;
        return unsupported(
            span,
            format!("table `{}`: key field `{}` is {} bits wide; entries hold at most {most} bits per key field (on every target)", t.name, f.name, f.width),
        );
    }
    let size = match t.size.unwrap_or(1024) {
        0 => 1,
        n if n > u64::from(MAX_TABLE_ENTRIES) => {
            return unsupported(span, format!("table `{}` declares {n} entries; the hardware target builds tables of at most {MAX_TABLE_ENTRIES}", t.name));
        }
        n => n as u32,
    };
    let (entries, buckets, ways) = match kind {
        TableKind::ExactHash => {
            let ways = 4;
            let buckets = size.div_ceil(ways).next_power_of_two().max(2);
            (buckets * ways, buckets, ways)
        }
        TableKind::Keyless => (0, 0, 0),
        _ => {
            if size > opts.max_tcam_entries {
                return unsupported(
                    span,
                    format!(
                        "table `{}` of {size} entries needs a TCAM larger than {} entries",
                        t.name, opts.max_tcam_entries
                    ),
                );
            }
            (size, 0, 0)
        }
    };
    let actions = t.effective_actions();
    // A table with a direct counter carries each entry's slot in the low bits of its data, so the
    // hit can count in the slot's cell (the action data stays aligned to the top).
    let slot_bits = if t.direct_counter.is_some() && kind != TableKind::Keyless { bits_for(entries.max(2)) } else { 0 };
    let data_bits =
        actions.iter().map(|a| layouts.actions[a.action.index()].total_bits).max().unwrap_or(0).max(1) + slot_bits;
    let action_bits = bits_for(actions.len() as u32);
    let key_bits = key.total_bits.max(1);
    let tcam = matches!(kind, TableKind::Ternary | TableKind::Lpm | TableKind::ExactBcam);
    let module = match kind {
        TableKind::Keyless => TableModule::None,
        TableKind::ExactHash => TableModule::ExactHash,
        _ if opts.tcam_flops || entries < TCAM_BRAM_MIN_ENTRIES => TableModule::TcamFlops,
        _ => TableModule::TcamBram,
    };
    // A TCAM slot holds a mask next to its key.
    let entry_bits = u64::from(key_bits) * if tcam { 2 } else { 1 } + u64::from(action_bits + data_bits) + 1;
    let memory = u64::from(entries) * entry_bits;
    if memory > opts.max_table_bits {
        let mbit = |b: u64| b as f64 / f64::from(1u32 << 20);
        return unsupported(
            span,
            format!(
                "table `{}` of {size} entries needs {entries} slots of {entry_bits} bits, {:.1} Mibit of memory: more than the {:.1} Mibit one table may take",
                t.name,
                mbit(memory),
                mbit(opts.max_table_bits)
            ),
        );
    }
    let key_words = key_bits.div_ceil(32);
    let data_words = (action_bits + data_bits).div_ceil(32);
    let mask = key_words;
    let data = mask + if tcam { key_words } else { 0 };
    let index = data + data_words;
    let cmd = index + 1;
    let words = cmd + 1;
    let regs = RegBlock { base: *next_word * 4, key: 0, key_words, mask, data, data_words, index, cmd, words };
    *next_word += words;
    Ok(TableHw {
        name: t.name.clone(),
        id,
        sv_name: ident(&t.name),
        kind,
        module,
        entries,
        buckets,
        ways,
        key_bits,
        action_bits,
        data_bits,
        slot_bits,
        latency: module.latency(),
        regs,
        actions: actions.iter().map(|a| p.actions[a.action.index()].name.clone()).collect(),
    })
}

/// The CRC-32 bucket of `p4f_table_exact_hash` for a key of `key_bits` bits (the key given as
/// big-endian bytes, right-aligned), exactly as the hardware computes it.
pub fn hash_bucket(key: &[u8], key_bits: u32, buckets: u32) -> u32 {
    let mut crc: u32 = 0;
    let total = key.len() as u32 * 8;
    for i in (0..key_bits).rev() {
        // bit i of the key counts from the least significant end.
        let pos = total - 1 - i;
        let bit = (key[(pos / 8) as usize] >> (7 - pos % 8)) & 1;
        let fb = ((crc >> 31) as u8 & 1) ^ bit;
        crc = (crc << 1) ^ if fb == 1 { 0x04C1_1DB7 } else { 0 };
    }
    crc & (buckets - 1)
}

/// The (value, mask) prefixes that together match exactly `lo..=hi` of a `width`-bit key, fewest
/// first-to-last: the largest aligned block that starts at `lo` and stays within `hi`, repeatedly.
pub fn range_prefixes(lo: u128, hi: u128, width: u32) -> Vec<(u128, u128)> {
    let full = if width >= 128 { u128::MAX } else { (1u128 << width) - 1 };
    let (mut lo, hi) = (lo & full, hi & full);
    let mut out = Vec::new();
    while lo <= hi {
        // The block size: limited by lo's alignment and by what is left of the range.
        let mut k = if lo == 0 { width } else { lo.trailing_zeros().min(width) };
        while k > 0 && (k >= 128 || lo.checked_add((1u128 << k) - 1).is_none_or(|end| end > hi)) {
            k -= 1;
        }
        let size_mask = if k >= 128 { u128::MAX } else { (1u128 << k) - 1 };
        out.push((lo, full & !size_mask));
        match lo.checked_add(size_mask).and_then(|e| e.checked_add(1)) {
            Some(next) if next <= full && next != 0 => lo = next,
            _ => break,
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::range_prefixes;

    /// A program with one table `fwd` keyed by `key` (over a header with a `bit<W> big` field)
    /// with `size` entries, lowered as the hardware target takes it.
    fn program(key: &str, width: u32, size: u64) -> p4_ir::Program {
        let src = format!(
            r#"
#include <v1model.p4>
header h_t {{ bit<8> k; bit<{width}> big; }}
struct headers {{ h_t h; }}
struct meta_t {{ }}
parser P(packet_in pkt, out headers hdr, inout meta_t meta, inout standard_metadata_t sm) {{
    state start {{ pkt.extract(hdr.h); transition accept; }}
}}
control VC(inout headers hdr, inout meta_t meta) {{ apply {{}} }}
control I(inout headers hdr, inout meta_t meta, inout standard_metadata_t sm) {{
    action send(bit<9> port) {{ sm.egress_spec = port; }}
    table fwd {{ key = {{ {key} }} actions = {{ send; NoAction; }} size = {size}; }}
    apply {{ fwd.apply(); }}
}}
control E(inout headers hdr, inout meta_t meta, inout standard_metadata_t sm) {{ apply {{}} }}
control CC(inout headers hdr, inout meta_t meta) {{ apply {{}} }}
control D(packet_out pkt, in headers hdr) {{ apply {{ pkt.emit(hdr.h); }} }}
V1Switch(P(), VC(), I(), E(), CC(), D()) main;
"#
        );
        let include = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../p4include");
        let c = p4_sema::compile_str("t.p4", &src, &[include]);
        let d = c.render_diagnostics();
        p4_midend::lower(c.program.unwrap_or_else(|| panic!("{d}"))).expect("lowers")
    }

    /// Why the hardware target refuses the program, or `None`.
    fn refusal(key: &str, width: u32, size: u64) -> Option<String> {
        crate::generate(&program(key, width, size), "t", &crate::Options::default()).err().map(|e| e.to_string())
    }

    /// Keys no entry can hold, sizes beyond the largest table and tables beyond the memory bound
    /// are refused with the reason; what fits is built.
    #[test]
    fn tables_that_cannot_be_built_are_refused_with_the_reason() {
        assert_eq!(refusal("hdr.h.k: exact;", 16, 1024), None);
        assert_eq!(refusal("hdr.h.big: exact;", 128, 1024), None);
        let too_wide = refusal("hdr.h.big: exact;", 4096, 16).expect("refused");
        assert!(too_wide.contains("table `I.fwd`: key field `hdr.h.big` is 4096 bits wide; entries hold at most 128 bits per key field (on every target)"), "{too_wide}");
        let lpm = refusal("hdr.h.big: lpm;", 129, 16).expect("refused");
        assert!(lpm.contains("key field `hdr.h.big` is 129 bits wide"), "{lpm}");
        let huge = refusal("hdr.h.k: exact;", 16, 2_000_000).expect("refused");
        assert!(huge.contains("table `I.fwd` declares 2000000 entries; the hardware target builds tables of at most 1048576"), "{huge}");
        // Each slot: 8 key bits + 1 action bit + 9 data bits + valid = 19 bits; 2^19 of them fit
        // in 16 Mibit, 2^20 do not.
        assert_eq!(refusal("hdr.h.k: exact;", 16, 1 << 19), None);
        let million = refusal("hdr.h.k: exact;", 16, 1 << 20).expect("refused");
        assert!(million.contains("needs 1048576 slots of 19 bits, 19.0 Mibit of memory"), "{million}");
        let big_key = refusal("hdr.h.big: exact;", 96, 1 << 20).expect("refused");
        assert!(
            big_key.contains("table `I.fwd` of 1048576 entries needs 1048576 slots of 107 bits, 107.0 Mibit of memory: more than the 16.0 Mibit one table may take"),
            "{big_key}"
        );
    }

    /// Every key of a small width is matched by exactly one prefix iff it lies in the range.
    #[test]
    fn range_prefixes_cover_exactly_the_range() {
        for (lo, hi) in [(0u128, 255u128), (1, 254), (3, 3), (5, 9), (0, 0), (128, 255), (17, 200)] {
            let p = range_prefixes(lo, hi, 8);
            for key in 0u128..256 {
                let n = p.iter().filter(|(v, m)| key & m == *v).count();
                assert_eq!(n, usize::from(lo <= key && key <= hi), "{lo}..{hi} key {key}: {p:?}");
            }
        }
        assert_eq!(range_prefixes(0, 255, 8), vec![(0, 0)]);
        assert_eq!(range_prefixes(1, 6, 8), vec![(1, 0xff), (2, 0xfe), (4, 0xfe), (6, 0xff)]);
        assert_eq!(range_prefixes(9, 3, 8), vec![]);
    }
}
