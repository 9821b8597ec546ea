//! Controller headers: the header types a program annotates `@controller_header("packet_in")` or
//! `@controller_header("packet_out")`, through which it exchanges packets and their metadata with
//! its controller (P4Runtime's PacketIn and PacketOut). A packet-out becomes a frame entering on the
//! CPU port with the packet_out header in front; a frame the program sends to the CPU port starts
//! with the packet_in header, which becomes the PacketIn's metadata.

use p4_ir::layout::{Layouts, Target};
use p4_ir::{Program, TypeDef, TypeId, Value};

use crate::proto::p4::v1::PacketMetadata;

/// One metadata field of a controller header.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MetadataField {
    /// `@id` on the field, else counted from 1 skipping the ids given.
    pub id: u32,
    pub name: String,
    pub width: u32,
    /// From the header's first bit (the first on the wire).
    pub bit_offset: u32,
}

/// A controller header type.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ControllerHeader {
    pub id: u32,
    /// What the annotation names it: `packet_in` or `packet_out`.
    pub name: String,
    pub ty: TypeId,
    pub fields: Vec<MetadataField>,
    /// Bytes the header takes on the wire.
    pub bytes: usize,
}

/// The program's controller headers, in id order.
pub fn of(program: &Program, layouts: &Layouts) -> Vec<ControllerHeader> {
    let mut out = Vec::new();
    for (i, t) in program.types.iter().enumerate() {
        let TypeDef::Header { annotations, fields, .. } = t else { continue };
        let Some(a) = annotations.iter().find(|a| a.name == "controller_header") else { continue };
        let ty = TypeId(i as u32);
        let Some(id) = layouts.ids.id(Target::ControllerHeader(ty)) else { continue };
        let Some(Some(layout)) = layouts.headers.get(i) else { continue };
        let name = match a.args.first() {
            Some(Value::String(s)) => s.clone(),
            _ => layout.name.clone(),
        };
        let top: Vec<_> = layout.fields.iter().filter(|f| f.path.len() == 1).collect();
        let given = top.iter().map(|f| fields.get(f.path[0] as usize).and_then(|x| p4_ir::layout::id_annotation(&x.annotations)));
        let ids = p4_ir::layout::local_ids(given);
        let metadata = top
            .iter()
            .zip(ids)
            .map(|(f, id)| MetadataField { id, name: f.name.clone(), width: f.width, bit_offset: f.bit_offset })
            .collect();
        out.push(ControllerHeader { id, name, ty, fields: metadata, bytes: layout.fixed_bits.div_ceil(8) as usize });
    }
    out.sort_by_key(|h| h.id);
    out
}

impl ControllerHeader {
    /// The header's bytes carrying `metadata` (fields not given are 0); `Err` names a metadata id
    /// the header does not have or a value that does not fit its field.
    pub fn encode(&self, metadata: &[PacketMetadata]) -> Result<Vec<u8>, String> {
        let mut bytes = vec![0u8; self.bytes];
        for m in metadata {
            let Some(f) = self.fields.iter().find(|f| f.id == m.metadata_id) else {
                return Err(format!("{} has no metadata id {}", self.name, m.metadata_id));
            };
            let value = num_bigint::BigUint::from_bytes_be(&m.value);
            if value.bits() > u64::from(f.width) {
                return Err(format!("{} metadata {}: {value:#x} does not fit {} bits", self.name, f.name, f.width));
            }
            for k in 0..f.width {
                if value.bit(u64::from(f.width - 1 - k)) {
                    let at = (f.bit_offset + k) as usize;
                    bytes[at / 8] |= 0x80 >> (at % 8);
                }
            }
        }
        Ok(bytes)
    }

    /// Splits a frame that starts with this header into its metadata (values canonical) and the
    /// rest; `None` when the frame is shorter than the header.
    pub fn decode<'a>(&self, frame: &'a [u8]) -> Option<(Vec<PacketMetadata>, &'a [u8])> {
        let header = frame.get(..self.bytes)?;
        let metadata = self
            .fields
            .iter()
            .map(|f| {
                let mut value = num_bigint::BigUint::default();
                for k in 0..f.width {
                    let at = (f.bit_offset + k) as usize;
                    value <<= 1u8;
                    if header[at / 8] & (0x80 >> (at % 8)) != 0 {
                        value |= num_bigint::BigUint::from(1u8);
                    }
                }
                // Big-endian without leading zeros; zero is one zero byte: P4Runtime's canonical form.
                PacketMetadata { metadata_id: f.id, value: value.to_bytes_be() }
            })
            .collect();
        Some((metadata, &frame[self.bytes..]))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn header() -> ControllerHeader {
        // bit<9> port; bit<7> pad; bit<16> reason
        let f = |id, name: &str, width, bit_offset| MetadataField { id, name: name.into(), width, bit_offset };
        ControllerHeader {
            id: 0x0400_0001,
            name: "packet_in".into(),
            ty: TypeId(0),
            fields: vec![f(1, "port", 9, 0), f(2, "pad", 7, 9), f(3, "reason", 16, 16)],
            bytes: 4,
        }
    }

    #[test]
    fn metadata_packs_most_significant_bit_first_and_reads_back() {
        let h = header();
        let m = |id, value: &[u8]| PacketMetadata { metadata_id: id, value: value.to_vec() };
        let bytes = h.encode(&[m(1, &[0x01, 0x2c]), m(3, &[0xbe, 0xef])]).expect("fits");
        // port 300 = 1_0010_1100 in the first 9 bits, then 7 zero bits, then 0xbeef.
        assert_eq!(bytes, [0x96, 0x00, 0xbe, 0xef]);
        let frame = [&bytes[..], b"payload"].concat();
        let (meta, rest) = h.decode(&frame).expect("long enough");
        assert_eq!(meta, [m(1, &[0x01, 0x2c]), m(2, &[0]), m(3, &[0xbe, 0xef])]);
        assert_eq!(rest, b"payload");
        assert!(h.decode(&bytes[..3]).is_none());
        assert_eq!(h.encode(&[m(1, &[0x02, 0x00])]), Err("packet_in metadata port: 0x200 does not fit 9 bits".to_string()));
        assert_eq!(h.encode(&[m(9, &[1])]), Err("packet_in has no metadata id 9".to_string()));
    }
}
