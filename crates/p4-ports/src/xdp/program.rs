//! The XDP program that hands every frame of the interface to the port's AF_XDP socket, written
//! directly as eBPF instructions: five instructions do not justify an eBPF compiler or an object
//! file loader.
//!
//! In C it would read `return bpf_redirect_map(&xsks_map, ctx->rx_queue_index, XDP_PASS);`: the
//! frame goes to the socket stored in the XSKMAP under its receive queue, and when there is none
//! (another queue, or the socket is not inserted yet) it goes on to the kernel's network stack as
//! if no program were attached.

/// One eBPF instruction (`struct bpf_insn`): opcode, destination and source registers packed into
/// one byte (destination in the low nibble on little-endian machines, which is the only layout
/// this encoder writes: x86-64 and arm64 are both little-endian), signed offset, signed immediate.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(C)]
pub struct Instruction {
    pub opcode: u8,
    pub registers: u8,
    pub offset: i16,
    pub immediate: i32,
}

// Opcode parts (linux/bpf_common.h, linux/bpf.h).
const CLASS_LD: u8 = 0x00;
const CLASS_LDX: u8 = 0x01;
const CLASS_JMP: u8 = 0x05;
const CLASS_ALU64: u8 = 0x07;
const SIZE_W: u8 = 0x00; // 32 bits
const SIZE_DW: u8 = 0x18; // 64 bits
const MODE_IMM: u8 = 0x00;
const MODE_MEM: u8 = 0x60;
const OP_MOV: u8 = 0xb0;
const OP_CALL: u8 = 0x80;
const OP_EXIT: u8 = 0x90;
const SOURCE_K: u8 = 0x00; // the operand is the immediate

/// `src_reg` of a 64-bit immediate load that tells the verifier the immediate is a map's file
/// descriptor, to be replaced by the map's address (`BPF_PSEUDO_MAP_FD`).
const PSEUDO_MAP_FD: u8 = 1;
/// `BPF_FUNC_redirect_map` in the kernel's helper table.
const HELPER_REDIRECT_MAP: i32 = 51;
/// `XDP_PASS`: what the program returns for a frame no socket takes.
pub const XDP_PASS: i32 = 2;
/// Offset of `rx_queue_index` in `struct xdp_md` (after data, data_end, data_meta and
/// ingress_ifindex, four bytes each).
const XDP_MD_RX_QUEUE_INDEX: i16 = 16;

// Registers: r0 return value, r1-r5 helper arguments (r1 holds the context on entry).
const R1: u8 = 1;
const R2: u8 = 2;
const R3: u8 = 3;

impl Instruction {
    fn new(opcode: u8, destination: u8, source: u8, offset: i16, immediate: i32) -> Instruction {
        debug_assert!(destination < 16 && source < 16);
        Instruction { opcode, registers: (source << 4) | destination, offset, immediate }
    }

    /// The instruction as the kernel reads it: 8 bytes, little-endian fields.
    pub fn to_bytes(self) -> [u8; 8] {
        let mut bytes = [0u8; 8];
        bytes[0] = self.opcode;
        bytes[1] = self.registers;
        bytes[2..4].copy_from_slice(&self.offset.to_le_bytes());
        bytes[4..8].copy_from_slice(&self.immediate.to_le_bytes());
        bytes
    }
}

/// `destination = *(u32 *)(source + offset)`.
fn load_word(destination: u8, source: u8, offset: i16) -> Instruction {
    Instruction::new(CLASS_LDX | MODE_MEM | SIZE_W, destination, source, offset, 0)
}

/// `destination = the map whose file descriptor is map_fd`: a 64-bit immediate load takes two
/// instruction slots, the second one holding the upper 32 bits (zero here).
fn load_map(destination: u8, map_fd: i32) -> [Instruction; 2] {
    [
        Instruction::new(CLASS_LD | MODE_IMM | SIZE_DW, destination, PSEUDO_MAP_FD, 0, map_fd),
        Instruction::new(0, 0, 0, 0, 0),
    ]
}

/// `destination = immediate` (64-bit move, sign-extended).
fn move_immediate(destination: u8, immediate: i32) -> Instruction {
    Instruction::new(CLASS_ALU64 | OP_MOV | SOURCE_K, destination, 0, 0, immediate)
}

/// `r0 = helper(r1, ..., r5)`.
fn call(helper: i32) -> Instruction {
    Instruction::new(CLASS_JMP | OP_CALL, 0, 0, 0, helper)
}

/// `return r0`.
fn exit() -> Instruction {
    Instruction::new(CLASS_JMP | OP_EXIT, 0, 0, 0, 0)
}

/// The redirect program for the XSKMAP with file descriptor `map_fd`.
pub fn redirect_to_sockets(map_fd: i32) -> Vec<Instruction> {
    let [map_low, map_high] = load_map(R1, map_fd);
    vec![
        // r2 = ctx->rx_queue_index: the map key (read before r1 is overwritten).
        load_word(R2, R1, XDP_MD_RX_QUEUE_INDEX),
        // r1 = &xsks_map (two slots).
        map_low,
        map_high,
        // r3 = XDP_PASS: the action when the map has no socket at that key.
        move_immediate(R3, XDP_PASS),
        // r0 = bpf_redirect_map(r1, r2, r3): XDP_REDIRECT, or XDP_PASS from r3.
        call(HELPER_REDIRECT_MAP),
        // return r0.
        exit(),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_redirect_program_encodes_to_the_bytes_the_kernel_expects() {
        let bytes: Vec<[u8; 8]> = redirect_to_sockets(7).into_iter().map(Instruction::to_bytes).collect();
        assert_eq!(
            bytes,
            [
                [0x61, 0x12, 16, 0, 0, 0, 0, 0], // ldxw r2, [r1 + 16]
                [0x18, 0x11, 0, 0, 7, 0, 0, 0],  // lddw r1, map fd 7 (src_reg 1 = pseudo map fd)
                [0, 0, 0, 0, 0, 0, 0, 0],        // upper half of the 64-bit immediate
                [0xb7, 0x03, 0, 0, 2, 0, 0, 0],  // mov r3, 2 (XDP_PASS)
                [0x85, 0x00, 0, 0, 51, 0, 0, 0], // call bpf_redirect_map
                [0x95, 0, 0, 0, 0, 0, 0, 0],     // exit
            ]
        );
    }

    #[test]
    fn negative_offsets_and_immediates_are_twos_complement_little_endian() {
        let bytes = Instruction::new(CLASS_LDX | MODE_MEM | SIZE_W, 10, 9, -4, -2).to_bytes();
        assert_eq!(bytes, [0x61, 0x9a, 0xfc, 0xff, 0xfe, 0xff, 0xff, 0xff]);
    }

    #[test]
    fn an_instruction_is_eight_bytes_like_struct_bpf_insn() {
        assert_eq!(std::mem::size_of::<Instruction>(), 8);
    }
}
