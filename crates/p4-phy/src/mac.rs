//! The 10 Gb/s Ethernet MAC framing: preamble and SFD, minimum-size padding, the CRC-32 frame
//! check sequence (computed with `crc32fast`, which uses carry-less multiplication where the
//! CPU has it, as SoNIC's MAC did with PCLMULQDQ).
//!
//! A "frame" in this crate is the MAC frame from destination address through FCS; the
//! preamble and SFD are added and removed by the PCS fast paths.

/// Preamble and SFD as sent after /S/: octets D1..D7 of the start block (six 0x55 then 0xD5).
pub const PREAMBLE_AFTER_START: [u8; 7] = [0x55, 0x55, 0x55, 0x55, 0x55, 0x55, 0xd5];
/// Start frame delimiter.
pub const SFD: u8 = 0xd5;
/// Minimum frame size including FCS.
pub const MIN_FRAME: usize = 64;
/// Maximum untagged frame size including FCS.
pub const MAX_FRAME: usize = 1518;
/// Largest jumbo frame accepted by default (9000-byte payload plus header, VLAN tag and FCS).
pub const MAX_JUMBO_FRAME: usize = 9022;
/// Bytes of FCS.
pub const FCS_LEN: usize = 4;
/// Characters of preamble (including /S/) in front of every frame.
pub const PREAMBLE_LEN: usize = 8;
/// CRC-32 of a frame followed by its own FCS (the constant residue a receiver can check).
pub const FCS_RESIDUE: u32 = 0x2144_df1c;

/// CRC-32 (IEEE 802.3) of `bytes`.
pub fn crc32(bytes: &[u8]) -> u32 {
    crc32fast::hash(bytes)
}

/// Pad `frame_without_fcs` with zeros to 60 octets and append the FCS (least significant
/// octet first, which puts the CRC's x^31 coefficient first on the line as 802.3 requires).
pub fn seal(frame_without_fcs: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(frame_without_fcs.len().max(MIN_FRAME - FCS_LEN) + FCS_LEN);
    out.extend_from_slice(frame_without_fcs);
    seal_in_place(&mut out);
    out
}

/// [`seal`] on a buffer that already holds the frame without FCS.
pub fn seal_in_place(frame: &mut Vec<u8>) {
    seal_tail(frame, 0);
}

/// Append `frame_without_fcs`, sealed, to `out` (which may hold other frames before it).
pub fn seal_append(frame_without_fcs: &[u8], out: &mut Vec<u8>) {
    let from = out.len();
    out.extend_from_slice(frame_without_fcs);
    seal_tail(out, from);
}

/// Seal the frame that occupies `buf[from..]`.
fn seal_tail(buf: &mut Vec<u8>, from: usize) {
    if buf.len() - from < MIN_FRAME - FCS_LEN {
        buf.resize(from + MIN_FRAME - FCS_LEN, 0);
    }
    let fcs = crc32(&buf[from..]);
    buf.extend_from_slice(&fcs.to_le_bytes());
}

/// True if the last four octets of `frame` are the FCS of the rest.
pub fn fcs_ok(frame: &[u8]) -> bool {
    fcs_ok_parts(frame, &[])
}

/// True if the frame whose octets are `head` followed by `tail` ends with the FCS of the
/// rest, the way [`fcs_ok`] on the joined octets would say. The CRC runs over the body in as
/// few pieces as the split allows: for the frames a receiver decodes in one step, the body is
/// all in `head` and the CRC is one call.
pub fn fcs_ok_parts(head: &[u8], tail: &[u8]) -> bool {
    let Some(body) = (head.len() + tail.len()).checked_sub(FCS_LEN) else { return false };
    let mut fcs = [0u8; FCS_LEN];
    if let Some(from_head) = head.get(body..) {
        // The body is all in `head`; the FCS is the rest of `head`, then `tail`.
        for (f, b) in fcs.iter_mut().zip(from_head.iter().chain(tail)) {
            *f = *b;
        }
        crc32(&head[..body]) == u32::from_le_bytes(fcs)
    } else {
        let (rest, last) = tail.split_at(tail.len() - FCS_LEN);
        fcs.copy_from_slice(last);
        let mut h = crc32fast::Hasher::new();
        h.update(head);
        h.update(rest);
        h.finalize() == u32::from_le_bytes(fcs)
    }
}

/// Build an Ethernet II frame (with padding and FCS) from addresses, EtherType and payload.
pub fn ethernet_frame(dst: [u8; 6], src: [u8; 6], ethertype: u16, payload: &[u8]) -> Vec<u8> {
    let mut f = Vec::with_capacity(14 + payload.len() + FCS_LEN + 46);
    f.extend_from_slice(&dst);
    f.extend_from_slice(&src);
    f.extend_from_slice(&ethertype.to_be_bytes());
    f.extend_from_slice(payload);
    seal_in_place(&mut f);
    f
}

/// Characters one frame of `frame_len` octets (including FCS) occupies on XGMII, including
/// its preamble.
pub const fn wire_chars(frame_len: usize) -> u64 {
    (frame_len + PREAMBLE_LEN) as u64
}
