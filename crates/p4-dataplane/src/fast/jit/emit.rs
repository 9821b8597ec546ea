//! Generates the machine code of [`super`]: Cranelift IR from the program's one translation
//! ([`Code`], [`Scalar`]), whose places, slots and constants the wire-format build resolved.

use std::collections::BTreeSet;
use std::mem::offset_of;

use cranelift_codegen::ir::condcodes::IntCC;
use cranelift_codegen::ir::types::{I64, I8};
use cranelift_codegen::ir::{AbiParam, AliasRegionData, Block, BlockArg, InstBuilder, MemFlagsData, SigRef, Signature, Type as ClType, Value};
use cranelift_codegen::settings::{self, Configurable};
use cranelift_frontend::{FunctionBuilder, FunctionBuilderContext, Variable};
use cranelift_jit::{JITBuilder, JITModule};
use cranelift_module::{FuncId, Module};
use p4_ir::{ApplyResult, BinOp, UnOp};

use super::{JitCode, JitFn, JitFrame, JitProg, PacketFn, ABORT, DROPPED, EXIT, NEXT, NO_ACTION, REJECT, RETURN};
use crate::bits::mask;
use crate::fast::compile::{unsupported, R};
use crate::fast::exec::{Ctx, Effects, Ev, KeyMatch, MetaValue, PipelineMeta, Run, Target};
use crate::fast::{PacketPlan, Val};
use crate::fast::build::{FastCompiler, Leaf};
use crate::table::{Count, FlatProbe, FlatSlot, Hit, TableState, FLAT_EMPTY, FLAT_MIX};
use p4_arch::{MetaRole, StateKind};
use crate::fast::places::Region;
use crate::fast::scalar::{Cast, Scalar, ScalarKind};
use crate::fast::code::{Checksum, ChecksumTarget, Code, ParserCode, TransitionCode};
use crate::fast::Dest;
use std::sync::Arc;

/// The largest function handed to Cranelift, in its instructions: its register allocator and
/// optimiser take time and memory that grow faster than the function (a control of 10,000 table
/// applications took 19 s and 800 MB), so a larger block runs on closures instead. The largest
/// function of `examples/l2l3` has about a thousand.
const MAX_FUNCTION_INSTRUCTIONS: usize = 1 << 16;

/// Refuses a function of `size` instructions beyond [`MAX_FUNCTION_INSTRUCTIONS`].
fn too_large(size: usize) -> R<()> {
    if size > MAX_FUNCTION_INSTRUCTIONS {
        return unsupported(format!("more than the {MAX_FUNCTION_INSTRUCTIONS} instructions given to the code generator in one function"));
    }
    Ok(())
}

fn jit_error(e: impl std::fmt::Display) -> crate::DataplaneError {
    crate::DataplaneError::unsupported(format!("native code generation: {e}"))
}

/// Compiles the parser and the controls `controls` of the program `fc` translated (`parser_code`,
/// `control_code`); `None` when the
/// machine cannot take generated code (the closures run then). A block the generator cannot take
/// stays on closures alone.
/// `pipeline`: the per-packet plan and metadata of a program that does not hand over, for the
/// whole-packet function ([`JitProg::packet`]).
pub(crate) fn compile(fc: &mut FastCompiler<'_, '_>, parser_code: &ParserCode, control_code: &[Option<Vec<Code>>], parser: usize, controls: &[usize], pipeline: Option<(&PacketPlan, &PipelineMeta)>) -> Option<JitProg> {
    let mut flags = settings::builder();
    flags.set("opt_level", "speed").ok()?;
    let isa = cranelift_native::builder().ok()?.finish(settings::Flags::new(flags)).ok()?;
    let module = JITModule::new(JITBuilder::with_isa(isa, cranelift_module::default_libcall_names()));
    let mut g = Gen { fc, parser_code, control_code, module, runs: Vec::new(), evals: Vec::new(), fbc: FunctionBuilderContext::new(), emits: 0, written: BTreeSet::new(), opaque: false, read: BTreeSet::new(), read_unknown: false };
    let mut skipped = Vec::new();
    let parser_id = g.parser(parser).map_err(|e| skipped.push(format!("parser: {}", e.message))).ok();
    let mut ids: Vec<(usize, Option<(FuncId, usize)>)> = Vec::new();
    for &i in controls {
        g.emits = 0;
        let id = g.control(i).map_err(|e| skipped.push(format!("control {}: {}", g.fc.cx.ir.controls[i].block.name, e.message))).ok();
        ids.push((i, id.map(|id| (id, g.emits))));
    }
    let packet = match pipeline {
        Some((plan, meta)) => g.packet(plan, meta, parser, parser_id, &ids).map_err(|e| skipped.push(format!("whole packet: {}", e.message))).ok(),
        None => None,
    };
    let Gen { mut module, runs, evals, .. } = g;
    module.finalize_definitions().ok()?;
    let ptr = |id: FuncId| -> JitFn {
        // SAFETY: every function defined here has the signature `(pointer) -> i64` of `JitFn`
        // and the extern "C" (system) calling convention of the host.
        unsafe { std::mem::transmute::<*const u8, JitFn>(module.get_finalized_function(id)) }
    };
    let mut by_control: Vec<Option<(JitFn, usize)>> = Vec::new();
    for (i, id) in ids {
        if by_control.len() <= i {
            by_control.resize(i + 1, None);
        }
        by_control[i] = id.map(|(id, emits)| (ptr(id), emits));
    }
    let done = by_control.iter().filter(|c| c.is_some()).count();
    let mut summary = format!("{}{done} of {} controls", if parser_id.is_some() { "parser, " } else { "" }, controls.len());
    match packet {
        Some((_, _, true)) => summary += ", whole packet, self-contained",
        Some(_) => summary += ", whole packet",
        None => {}
    }
    if !skipped.is_empty() {
        summary += &format!(" ({})", skipped.join("; "));
    }
    Some(JitProg { parser: parser_id.map(ptr), controls: by_control, packet: packet.map(|(id, emits, self_contained)| PacketFn { code: ptr(id), emits, self_contained }), runs, evals, summary, _code: JitCode(Some(module)) })
}

struct Gen<'g, 'c, 'a> {
    fc: &'g mut FastCompiler<'c, 'a>,
    /// The program's one translation, which the code is generated from.
    parser_code: &'g ParserCode,
    control_code: &'g [Option<Vec<Code>>],
    module: JITModule,
    runs: Vec<Run>,
    evals: Vec<Ev>,
    fbc: FunctionBuilderContext,
    /// The bytes the function being generated emits when each of its `emit`s runs once: what is
    /// reserved in the output before it runs, so that it rarely has to grow it (`Fun::room` checks).
    emits: usize,
    /// Every frame slot generated code, or Rust on its behalf (a table's action data), writes.
    written: BTreeSet<usize>,
    /// Some generated code calls back into closures, which may write any slot and read the
    /// packet from `Ctx::pkt`.
    opaque: bool,
    /// Every frame slot generated code, or Rust on its behalf (a table's key), reads; unless
    /// `read_unknown`: Rust reads slots no one listed (a key computed by a closure, a direct
    /// counter's packet length).
    read: BTreeSet<usize>,
    read_unknown: bool,
}

/// Where generated code is, for what a statement's non-`Next` flow does.
#[derive(Clone, Copy)]
enum Scope {
    /// A parser's declarations: only a reject ends the parser.
    ParserInit,
    /// A parser state: a reject or an abort ends the parser (an abort as reject 0).
    ParserState,
    /// A control body (`ret: None`) or an action inlined in it (`ret`: the action's end).
    Control { ret: Option<Block> },
}

/// One function being generated.
struct Fun<'f> {
    b: FunctionBuilder<'f>,
    frame: Value,
    /// `(frame, u64) -> u64` and `(frame, u64, u64) -> u64`: the calls back into Rust.
    helper: SigRef,
    helper2: SigRef,
    /// Accesses to the [`JitFrame`] itself, and to the packet state its pointers lead to: two
    /// alias regions, so a frame pointer loaded once is reused across stores to packet state
    /// (only a call, or a store to the frame, makes Cranelift load it again).
    frame_mem: MemFlagsData,
    mem: MemFlagsData,
    /// The frame slots this function writes and reads.
    written: Vec<usize>,
    read: Vec<usize>,
    /// Where the block being generated ends when it is inlined into the whole-packet function
    /// (a block with the flow code as its parameter); `None`: its end returns.
    exit_to: Option<Block>,
}

/// What a table keeps per entry, for generated code.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum PerEntry {
    Nothing,
    /// A direct counter alone, which reads the packet length (this slot).
    Counter(usize),
    /// A direct meter, or several per-entry externs, or a counter without a packet length: the
    /// full lookup in Rust.
    More,
}

/// Every access of generated code is to memory the frame's pointers make valid.
const TRUSTED: MemFlagsData = MemFlagsData::new().with_notrap();

impl Fun<'_> {
    fn frame_ptr(&mut self, offset: usize) -> Value {
        self.b.ins().load(I64, self.frame_mem, self.frame, offset as i32)
    }

    fn konst(&mut self, v: u64) -> Value {
        self.b.ins().iconst(I64, v as i64)
    }

    /// Calls `helper(frame, arg)`.
    fn call(&mut self, helper: extern "C" fn(*mut JitFrame, u64) -> u64, arg: u64) -> Value {
        let callee = self.konst(helper as usize as u64);
        let arg = self.konst(arg);
        let frame = self.frame;
        let call = self.b.ins().call_indirect(self.helper, callee, &[frame, arg]);
        self.b.inst_results(call)[0]
    }

    /// Calls `helper(frame, arg, value)`.
    fn call2(&mut self, helper: extern "C" fn(*mut JitFrame, u64, u64) -> u64, arg: u64, value: Value) -> Value {
        let callee = self.konst(helper as usize as u64);
        let arg = self.konst(arg);
        let frame = self.frame;
        let call = self.b.ins().call_indirect(self.helper2, callee, &[frame, arg, value]);
        self.b.inst_results(call)[0]
    }

    /// Makes room for `n` more bytes in the output (`JitFrame::out_at`), growing it through
    /// [`super::jit_out_room`] when they do not fit its capacity; returns where they go. Every
    /// write to the output comes after this check: it keeps the frame's invariant (`out_at <=
    /// out_end`) whatever order or number of times emits run in. The caller moves `out_at` past
    /// what it wrote.
    fn room(&mut self, n: Value) -> Value {
        let at = self.frame_ptr(offset_of!(JitFrame, out_at));
        let end = self.frame_ptr(offset_of!(JitFrame, out_end));
        let need = self.b.ins().iadd(at, n);
        let fits = self.b.ins().icmp(IntCC::UnsignedLessThanOrEqual, need, end);
        let (grow, go) = (self.b.create_block(), self.b.create_block());
        self.b.append_block_param(go, I64);
        self.b.ins().brif(fits, go, &[BlockArg::Value(at)], grow, &[]);
        self.b.set_cold_block(grow);
        self.b.switch_to_block(grow);
        self.call2(super::jit_out_room, 0, n);
        let moved = self.frame_ptr(offset_of!(JitFrame, out_at));
        self.b.ins().jump(go, &[BlockArg::Value(moved)]);
        self.b.switch_to_block(go);
        self.b.block_params(go)[0]
    }

    /// Ends the block being generated with flow code `code` ([`Fun::exit_to`]).
    fn ret(&mut self, code: u64) {
        let v = self.konst(code);
        self.ret_value(v);
    }

    fn ret_value(&mut self, v: Value) {
        match self.exit_to {
            Some(end) => {
                self.b.ins().jump(end, &[BlockArg::Value(v)]);
            }
            None => {
                self.b.ins().return_(&[v]);
            }
        }
    }

    /// Continues in a fresh block (after a jump or return, for the code that follows it).
    fn fresh(&mut self) {
        let b = self.b.create_block();
        self.b.switch_to_block(b);
    }

    fn slot_read(&mut self, slot: usize) -> Value {
        self.read.push(slot);
        let base = self.frame_ptr(offset_of!(JitFrame, slots));
        self.b.ins().load(I64, self.mem, base, (slot * 16) as i32)
    }

    /// Writes `v` into the low half of a slot of at most 64 bits. The high half is zero already:
    /// every writer keeps the bits above a value's width zero (the module's contract), and the
    /// frame starts zeroed.
    fn slot_write(&mut self, slot: usize, v: Value) {
        self.written.push(slot);
        let base = self.frame_ptr(offset_of!(JitFrame, slots));
        self.b.ins().store(self.mem, v, base, (slot * 16) as i32);
    }

    /// The `size` bytes (1, 2, 4 or 8) at `base + at`, as a big-endian number.
    fn load_be(&mut self, base: Value, at: usize, size: usize) -> Value {
        let ty = int_type(size);
        let raw = self.b.ins().load(ty, self.mem, base, at as i32);
        if size == 1 {
            return self.b.ins().uextend(I64, raw);
        }
        let v = self.b.ins().bswap(raw);
        if size == 8 { v } else { self.b.ins().uextend(I64, v) }
    }

    /// Stores the low `size` bytes (1, 2, 4 or 8) of `v` big-endian at `base + at`.
    /// Zeroes `len` bytes of the wire buffer from byte `at` (8-byte stores, then the rest in 4-,
    /// 2- and 1-byte ones: nothing past them is touched).
    fn zero_wire(&mut self, at: usize, len: usize) {
        let base = self.frame_ptr(offset_of!(JitFrame, wire));
        let zero = self.konst(0);
        let whole = len / 8 * 8;
        for off in (0..whole).step_by(8) {
            self.b.ins().store(self.mem, zero, base, (at + off) as i32);
        }
        for (off, size) in pieces(len - whole) {
            self.store_be(base, at + whole + off, size, zero);
        }
    }

    fn store_be(&mut self, base: Value, at: usize, size: usize, v: Value) {
        let v = if size == 8 { v } else { self.b.ins().ireduce(int_type(size), v) };
        let raw = if size == 1 { v } else { self.b.ins().bswap(v) };
        self.b.ins().store(self.mem, raw, base, at as i32);
    }

    /// A field of `width` bits at bit `bit` of the wire buffer (`bit % 8 + width <= 64`), read
    /// with the narrowest load that covers it: a load that fits inside the store that last wrote
    /// those bytes (an `extract`'s copy, [`Fun::copy`]) is forwarded from it, one that straddles
    /// two stores waits for both to reach the cache (a store-forwarding stall, 16 % of an L2
    /// forwarder's time when the key was read with an 8-byte load across the copy's two moves).
    fn field_read(&mut self, bit: usize, width: u32) -> Value {
        let span = bit % 8 + width as usize;
        let size = span.div_ceil(8).next_power_of_two();
        let base = self.frame_ptr(offset_of!(JitFrame, wire));
        let w = self.load_be(base, bit / 8, size);
        let shifted = self.b.ins().ishl_imm_s(w, (64 - size * 8 + bit % 8) as i64);
        self.b.ins().ushr_imm_s(shifted, i64::from(64 - width))
    }

    /// Writes the field of `width` bits at bit `bit` of the wire buffer (`bit % 8 + width <= 64`):
    /// a field of whole bytes on a byte is stored alone, big-endian, in 4-, 2- and 1-byte pieces;
    /// any other is merged into the narrowest word that covers it (see [`Fun::field_read`]).
    fn field_write(&mut self, bit: usize, width: u32, v: Value) {
        let base = self.frame_ptr(offset_of!(JitFrame, wire));
        let (at, span) = (bit / 8, bit % 8 + width as usize);
        if bit % 8 == 0 && width % 8 == 0 {
            for (off, size) in pieces(span / 8) {
                let shifted = self.b.ins().ushr_imm_s(v, ((span / 8 - off - size) * 8) as i64);
                self.store_be(base, at + off, size, shifted);
            }
            return;
        }
        let size = span.div_ceil(8).next_power_of_two();
        let bits = (size * 8) as u32;
        let m = mask(width) << (bits as usize - span);
        let w = self.load_be(base, at, size);
        let kept = self.b.ins().band_imm_s(w, !(m as u64) as i64);
        let moved = self.b.ins().ishl_imm_s(v, (bits as usize - span) as i64);
        let x = self.b.ins().band_imm_s(moved, m as i64);
        let new = self.b.ins().bor(kept, x);
        self.store_be(base, at, size, new);
    }

    /// The state a packet of a self-contained program starts from ([`JitProg::packet`]): the
    /// frame slots `slots` and the first `header_bytes` of the wire buffer zeroed, no header
    /// valid (the first `validity_words` words of `Ctx::wire_valid` zeroed), the cursor at 0, no drop mark.
    fn reset(&mut self, slots: &BTreeSet<usize>, header_bytes: usize, validity_words: usize) {
        let zero = self.konst(0);
        let base = self.frame_ptr(offset_of!(JitFrame, slots));
        for &slot in slots {
            self.b.ins().store(self.mem, zero, base, (slot * 16) as i32);
            self.b.ins().store(self.mem, zero, base, (slot * 16 + 8) as i32);
        }
        let wire = self.frame_ptr(offset_of!(JitFrame, wire));
        // 8-byte stores; the last may reach into the slack past the headers.
        for at in (0..header_bytes).step_by(8) {
            self.b.ins().store(self.mem, zero, wire, at as i32);
        }
        let valid = self.frame_ptr(offset_of!(JitFrame, valid));
        for word in 0..validity_words {
            self.b.ins().store(self.mem, zero, valid, (word * 8) as i32);
        }
        let cursor = self.frame_ptr(offset_of!(JitFrame, cursor));
        self.b.ins().store(self.mem, zero, cursor, 0);
        let c = self.frame_ptr(offset_of!(JitFrame, c));
        self.b.ins().store(self.mem, zero, c, offset_of!(Ctx, fx.marked) as i32);
    }

    /// What the pipeline writes into a metadata field ([`MetaValue`]): `port` for the port.
    fn meta_value(&mut self, v: MetaValue, port: Value, instance: u64, now: Value) -> Value {
        match v {
            MetaValue::Port => port,
            MetaValue::Length => self.frame_ptr(offset_of!(JitFrame, pkt_len)),
            MetaValue::Instance => self.konst(instance),
            MetaValue::Now { bits } => self.b.ins().band_imm_s(now, mask(bits) as i64),
            MetaValue::Stamp => self.frame_ptr(offset_of!(JitFrame, now_stamp)),
            MetaValue::Rid | MetaValue::Zero => self.konst(0),
        }
    }

    /// Returns [`DROPPED`] when the drop marker holds its drop value.
    fn drop_check(&mut self, marker: Option<(usize, u64)>) {
        let Some((slot, value)) = marker else { return };
        let v = self.slot_read(slot);
        let dropped = self.b.ins().icmp_imm_s(IntCC::Equal, v, value as i64);
        let (stop, go) = (self.b.create_block(), self.b.create_block());
        self.b.ins().brif(dropped, stop, &[], go, &[]);
        self.b.switch_to_block(stop);
        self.ret(DROPPED);
        self.b.switch_to_block(go);
    }

    /// The address and value of the word of `Ctx::wire_valid` holding header `index`'s bit, and
    /// that bit's mask in it.
    fn valid_bits(&mut self, index: usize) -> (Value, Value, i64) {
        let base = self.frame_ptr(offset_of!(JitFrame, valid));
        let at = self.b.ins().iadd_imm_s(base, (index / 64 * 8) as i64);
        (at, self.b.ins().load(I64, self.mem, at, 0), 1i64 << (index % 64))
    }

    fn bool_of(&mut self, cc: IntCC, a: Value, b: Value) -> Value {
        let c = self.b.ins().icmp(cc, a, b);
        self.b.ins().uextend(I64, c)
    }

    /// Copies `len` bytes from `src` to `dst` (not overlapping) with 8-, 4-, 2- and 1-byte moves
    /// that do not overlap either, so a later narrow read of a field ([`Fun::field_read`])
    /// usually fits inside one of the stores.
    fn copy(&mut self, dst: Value, dst_off: usize, src: Value, len: usize) {
        let mut at = 0;
        while at + 8 <= len {
            self.copy_piece(dst, dst_off, src, at, 8);
            at += 8;
        }
        for (off, size) in pieces(len - at) {
            self.copy_piece(dst, dst_off, src, at + off, size);
        }
    }

    fn copy_piece(&mut self, dst: Value, dst_off: usize, src: Value, off: usize, size: usize) {
        let v = self.b.ins().load(int_type(size), self.mem, src, off as i32);
        self.b.ins().store(self.mem, v, dst, (dst_off + off) as i32);
    }
}

/// For `P4F_JIT_DUMP=DIR` (a developer's aid, see ARCHITECTURE on the generated code): writes a
/// function's Cranelift IR (`jit-N.clif`), its machine code as Cranelift lists it (`jit-N.vcode`)
/// and its bytes (`jit-N.bin`, for `objdump -D -b binary -mi386:x86-64`), in `dir`; `N` counts the
/// functions the process generated, in order (a whole-packet function comes after its blocks').
fn dump_function(dir: &std::path::Path, clif: &str, code: &cranelift_codegen::CompiledCode) {
    static GENERATED: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    let id = GENERATED.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    // Said once: a directory that cannot be written fails for every file alike.
    static REPORTED: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);
    let files = [("clif", clif.as_bytes()), ("vcode", code.vcode.as_deref().unwrap_or("").as_bytes()), ("bin", code.code_buffer())];
    let written = std::fs::create_dir_all(dir).map_err(|e| (dir.to_path_buf(), e)).and_then(|()| {
        files.into_iter().try_for_each(|(ext, bytes)| {
            let path = dir.join(format!("jit-{id}.{ext}"));
            std::fs::write(&path, bytes).map_err(|e| (path, e))
        })
    });
    if let Err((path, e)) = written {
        if !REPORTED.swap(true, std::sync::atomic::Ordering::Relaxed) {
            eprintln!("P4F_JIT_DUMP: cannot write {}: {e} (no more generated code is written)", path.display());
        }
    }
}

/// The integer type of `size` bytes (1, 2, 4 or 8).
fn int_type(size: usize) -> ClType {
    use cranelift_codegen::ir::types::{I16, I32};
    match size {
        1 => I8,
        2 => I16,
        4 => I32,
        _ => I64,
    }
}

/// `n` bytes (at most 8) as pieces of 8, 4, 2 and 1 bytes, largest first: `(offset, size)`.
fn pieces(n: usize) -> impl Iterator<Item = (usize, usize)> {
    let mut at = 0;
    [8, 4, 2, 1].into_iter().filter_map(move |size| {
        (n - at >= size).then(|| {
            at += size;
            (at - size, size)
        })
    })
}

impl<'g> Gen<'g, '_, '_> {
    /// Generates one function: `body` fills it from its entry block; falling off the end returns
    /// `Next`.
    fn function(&mut self, body: impl FnOnce(&mut Self, &mut Fun<'_>) -> R<()>) -> R<FuncId> {
        let mut ctx = self.module.make_context();
        let ptr = self.module.target_config().pointer_type();
        ctx.func.signature.params.push(AbiParam::new(ptr));
        ctx.func.signature.returns.push(AbiParam::new(I64));
        let mut helper = Signature::new(ctx.func.signature.call_conv);
        helper.params.extend([AbiParam::new(ptr), AbiParam::new(I64)]);
        helper.returns.push(AbiParam::new(I64));
        let mut helper2 = helper.clone();
        helper2.params.push(AbiParam::new(I64));
        let config = self.module.target_config();
        let mut fbc = std::mem::take(&mut self.fbc);
        let result = {
            let mut b = FunctionBuilder::new(&mut ctx.func, &mut fbc);
            let entry = b.create_block();
            b.append_block_params_for_function_params(entry);
            b.switch_to_block(entry);
            let frame = b.block_params(entry)[0];
            let helper = b.import_signature(helper);
            let helper2 = b.import_signature(helper2);
            let mut region = |user_id: u32, description: &'static str| Some(b.func.dfg.alias_regions.insert(AliasRegionData { user_id, description: description.into() }));
            let frame_mem = TRUSTED.with_alias_region(region(1, "frame"));
            let mem = TRUSTED.with_alias_region(region(2, "packet state"));
            let mut f = Fun { b, frame, helper, helper2, frame_mem, mem, written: Vec::new(), read: Vec::new(), exit_to: None };
            let r = body(self, &mut f);
            self.written.extend(f.written.drain(..));
            self.read.extend(f.read.drain(..));
            if r.is_ok() {
                f.ret(NEXT);
                f.b.seal_all_blocks();
                f.b.finalize(config);
            }
            r
        };
        // A function given up leaves the builder context mid-way: start the next from a new one.
        self.fbc = if result.is_ok() { fbc } else { FunctionBuilderContext::new() };
        result?;
        too_large(ctx.func.dfg.num_insts())?;
        let sig = ctx.func.signature.clone();
        let id = self.module.declare_anonymous_function(&sig).map_err(jit_error)?;
        let dump = std::env::var_os("P4F_JIT_DUMP");
        if dump.is_some() {
            ctx.set_disasm(true);
        }
        let clif = dump.as_ref().map(|_| ctx.func.display().to_string());
        self.module.define_function(id, &mut ctx).map_err(jit_error)?;
        if let (Some(dir), Some(clif), Some(code)) = (dump, clif, ctx.compiled_code()) {
            dump_function(std::path::Path::new(&dir), &clif, code);
        }
        self.module.clear_context(&mut ctx);
        Ok(id)
    }

    fn control(&mut self, i: usize) -> R<FuncId> {
        self.function(|g, f| g.control_code(f, i))
    }

    fn control_code(&mut self, f: &mut Fun<'_>, i: usize) -> R<()> {
        let code: &'g [Code] = self.control_code.get(i).and_then(Option::as_deref).unwrap_or(&[]);
        self.block(f, code, Scope::Control { ret: None })
    }

    fn parser(&mut self, i: usize) -> R<FuncId> {
        self.function(|g, f| g.parser_code(f, i))
    }

    fn parser_code(&mut self, f: &mut Fun<'_>, _: usize) -> R<()> {
        let parser: &'g ParserCode = self.parser_code;
        let (timeout, no_match) = (self.fc.cx.errors.parser_timeout, self.fc.cx.errors.no_match);
        self.block(f, &parser.init, Scope::ParserInit)?;
        if parser.states.is_empty() {
            return Ok(());
        }
        let steps = f.b.declare_var(I64);
        let zero = f.konst(0);
        f.b.def_var(steps, zero);
        let blocks: Vec<Block> = parser.states.iter().map(|_| f.b.create_block()).collect();
        f.b.ins().jump(blocks[0], &[]);
        for (st, &blk) in parser.states.iter().zip(&blocks) {
            f.b.switch_to_block(blk);
            self.count_step(f, steps, timeout);
            self.block(f, &st.body, Scope::ParserState)?;
            self.transition(f, &st.transition, st.reads_ahead, &blocks, no_match)?;
            f.fresh();
        }
        // Every state ends in a transition: nothing reaches the block left open (the caller's
        // end of the block follows it).
        Ok(())
    }

    /// Generates a block (`code`) inline in the function being generated: its ends jump to the
    /// code after it instead of returning; the block's flow code.
    fn inline(&mut self, f: &mut Fun<'_>, code: impl FnOnce(&mut Self, &mut Fun<'_>) -> R<()>) -> R<Value> {
        let after = f.b.create_block();
        f.b.append_block_param(after, I64);
        let outer = f.exit_to.replace(after);
        let r = code(self, f);
        f.ret(NEXT);
        f.exit_to = outer;
        r?;
        f.b.switch_to_block(after);
        Ok(f.b.block_params(after)[0])
    }

    /// The whole-packet function ([`JitProg::packet`]): what `fast::pipeline::process` does
    /// around the blocks, with the parser (`parser`, whose function is `parser_id`) and the
    /// stages' controls inlined. `blocks`: the control functions [`Gen::control`] made (a block
    /// that did not compile is not tried again).
    fn packet(&mut self, plan: &PacketPlan, meta: &PipelineMeta, parser: usize, parser_id: Option<FuncId>, blocks: &[(usize, Option<(FuncId, usize)>)]) -> R<(FuncId, usize, bool)> {
        if parser_id.is_none() {
            return unsupported("the parser is not machine code");
        }
        for i in plan.ingress.iter().chain(&plan.egress).chain(&plan.deparse) {
            if !matches!(blocks.iter().find(|(c, _)| c == i), Some((_, Some(_)))) {
                let name = self.fc.cx.ir.controls.get(*i).map_or("?", |c| c.block.name.as_str());
                return unsupported(format!("control {name} is not machine code"));
            }
        }
        let instance = u64::try_from(plan.normal_instance).or_else(|_| unsupported("an instance type wider than 64 bits"))?;
        let marker = match plan.drop_marker {
            Some((slot, value)) => Some((slot, u64::try_from(value).or_else(|_| unsupported("a drop value wider than 64 bits"))?)),
            None => None,
        };
        // A program whose code never calls back into closures is self-contained: the slots it
        // can write, its headers and the packet state are all the function must reset (the rest
        // of the frame stays zero), and it reads the packet where it lies.
        let self_contained = !self.opaque;
        // Of such a program, only the slots something reads need values: the ones its code or
        // Rust on its behalf reads, the pipeline's own (drop marker, output port) and the
        // parser error (a drop's reason reads it). The others are neither reset nor set.
        let needed = |slot: usize| -> bool {
            !self_contained
                || self.read_unknown
                || self.read.contains(&slot)
                || [plan.error_field, plan.out_port_field, plan.drop_marker.map(|(s, _)| s)].contains(&Some(slot))
                || plan.tx_stamp_fields.contains(&Some(slot))
        };
        let arrival: Vec<(usize, MetaValue)> = meta.arrival_writes().filter(|(s, _)| needed(*s)).collect();
        let departure: Vec<(usize, MetaValue)> = meta.departure_writes().filter(|(s, _)| needed(*s)).collect();
        // Slots to reset: the written ones, less those the arrival sets first thing.
        let mut reset: BTreeSet<usize> = self.written.iter().copied().chain(departure.iter().map(|(s, _)| *s)).chain(plan.error_field).collect();
        reset.retain(|&s| needed(s) && !arrival.iter().any(|(a, _)| *a == s) && plan.zero.iter().any(|&(start, end)| (start..end).contains(&s)));
        let (header_bytes, validity_words) = (self.fc.header_bytes(), self.fc.places.validity_words());
        self.emits = 0;
        let id = self.function(|g, f| {
            if self_contained {
                f.reset(&reset, header_bytes, validity_words);
            }
            let now = f.frame_ptr(offset_of!(JitFrame, now_us));
            let in_port = f.frame_ptr(offset_of!(JitFrame, in_port));
            for &(slot, v) in &arrival {
                let x = f.meta_value(v, in_port, instance, now);
                f.slot_write(slot, x);
            }
            let r = g.inline(f, |g, f| g.parser_code(f, parser))?;
            if g.opaque {
                // Code the parser called may have stopped the packet (a loop that did not end).
                let stopped = f.call(super::jit_aborted, 0);
                aborted_if(f, stopped);
            }
            if let Some(slot) = plan.error_field {
                // A parser error goes to its field (`Err(code)` of `fast::run_parser`).
                let (set, go) = (f.b.create_block(), f.b.create_block());
                f.b.ins().brif(r, set, &[], go, &[]);
                f.b.switch_to_block(set);
                let code = f.b.ins().band_imm_s(r, 0xffff_ffff);
                f.slot_write(slot, code);
                f.b.ins().jump(go, &[]);
                f.b.switch_to_block(go);
            }
            for &i in &plan.ingress {
                g.stage_control(f, i)?;
            }
            f.drop_check(marker);
            let port = match plan.out_port_field {
                Some(s) => f.slot_read(s),
                None => f.konst(0),
            };
            f.b.ins().store(f.frame_mem, port, f.frame, offset_of!(JitFrame, out_port) as i32);
            // The effects of ingress end with it (what `Ctx::fx` can hold in a program that does
            // not hand over is the drop call's mark).
            let c = f.frame_ptr(offset_of!(JitFrame, c));
            let zero = f.konst(0);
            f.b.ins().store(f.mem, zero, c, offset_of!(Ctx, fx.marked) as i32);
            let now = f.frame_ptr(offset_of!(JitFrame, now_us));
            for &(slot, v) in &departure {
                let x = f.meta_value(v, port, instance, now);
                f.slot_write(slot, x);
            }
            for &i in &plan.egress {
                g.stage_control(f, i)?;
            }
            f.drop_check(marker);
            for &i in &plan.deparse {
                g.stage_control(f, i)?;
            }
            g.payload(f);
            Ok(())
        })?;
        Ok((id, self.emits, self_contained))
    }

    /// Control `i` inlined into the whole-packet function; when it calls closures, which may stop
    /// the packet (`ABORT`: a loop that did not end, an assert), the function then returns
    /// [`super::ABORTED`].
    fn stage_control(&mut self, f: &mut Fun<'_>, i: usize) -> R<()> {
        let flow = self.inline(f, |g, f| g.control_code(f, i))?;
        if self.opaque {
            let stopped = f.b.ins().icmp_imm_s(IntCC::Equal, flow, ABORT as i64);
            let stopped = f.b.ins().uextend(I64, stopped);
            aborted_if(f, stopped);
        }
        Ok(())
    }

    /// The packet's bytes after the parser's cursor, appended after the deparsed headers.
    fn payload(&mut self, f: &mut Fun<'_>) {
        let cursor_at = f.frame_ptr(offset_of!(JitFrame, cursor));
        let cursor = f.b.ins().load(I64, f.mem, cursor_at, 0);
        let bytes = f.b.ins().iadd_imm_s(cursor, 7);
        let from = f.b.ins().ushr_imm_s(bytes, 3);
        let len = f.frame_ptr(offset_of!(JitFrame, pkt_len));
        let from = f.b.ins().umin(from, len);
        let n = f.b.ins().isub(len, from);
        let pkt = f.frame_ptr(offset_of!(JitFrame, pkt));
        let src = f.b.ins().iadd(pkt, from);
        let dst = f.room(n);
        let config = self.module.target_config();
        f.b.call_memcpy(config, dst, src, n);
        let moved = f.b.ins().iadd(dst, n);
        f.b.ins().store(f.frame_mem, moved, f.frame, offset_of!(JitFrame, out_at) as i32);
    }

    /// The parser's step bound: after as many states as the closures allow, a timeout.
    fn count_step(&mut self, f: &mut Fun<'_>, steps: Variable, timeout: u32) {
        let n = f.b.use_var(steps);
        let over = f.b.ins().icmp_imm_s(IntCC::UnsignedGreaterThanOrEqual, n, crate::fast::runtime::MAX_PARSER_STEPS as i64);
        let (stop, go) = (f.b.create_block(), f.b.create_block());
        f.b.ins().brif(over, stop, &[], go, &[]);
        f.b.switch_to_block(stop);
        f.ret(REJECT | u64::from(timeout));
        f.b.switch_to_block(go);
        let n1 = f.b.ins().iadd_imm_s(n, 1);
        f.b.def_var(steps, n1);
    }

    fn goto(&mut self, f: &mut Fun<'_>, t: Target, blocks: &[Block]) {
        match t {
            Target::Accept => f.ret(NEXT),
            Target::Reject => f.ret(REJECT),
            Target::State(s) => match blocks.get(s) {
                Some(&b) => {
                    f.b.ins().jump(b, &[]);
                }
                // The closures accept when they run out of states.
                None => f.ret(NEXT),
            },
        }
    }

    fn transition(&mut self, f: &mut Fun<'_>, t: &TransitionCode, reads_ahead: bool, blocks: &[Block], no_match: u32) -> R<()> {
        match t {
            TransitionCode::Goto(t) => self.goto(f, *t, blocks),
            TransitionCode::Select { keys, cases } => {
                if keys.iter().any(|(k, _)| k.width > 64) {
                    return unsupported("a select key wider than 64 bits");
                }
                // Each case: per key, the value and mask it matches (`default` and `_`: mask 0),
                // the range it falls in, or the value set it is in (asked of Rust:
                // `jit_value_set`); or one value set for all the keys, which matches their
                // concatenation.
                let widths: Vec<u32> = keys.iter().map(|(k, _)| k.width).collect();
                let mut arms = Vec::new();
                for (ms, target) in cases {
                    if let ([KeyMatch::ValueSet(vs)], [_, _, ..]) = (ms.as_slice(), keys.as_slice()) {
                        if widths.iter().sum::<u32>() > 64 {
                            return unsupported("a value set matching keys wider than 64 bits together");
                        }
                        arms.push((Vec::new(), Some(*vs), *target));
                        continue;
                    }
                    let mut per_key = Vec::new();
                    for (m, (_, signed)) in ms.iter().zip(keys) {
                        per_key.push(match m {
                            KeyMatch::Any => KeyMatch::Mask(0, 0),
                            KeyMatch::Range(_, _) if *signed => return unsupported("a select range on a signed key"),
                            m => *m,
                        });
                    }
                    arms.push((per_key, None, *target));
                }
                let mut values = Vec::new();
                for (k, _) in keys {
                    values.push(self.scalar(f, k)?);
                }
                if reads_ahead {
                    reject_if_pending(f);
                }
                for (per_key, concatenated, t) in arms {
                    let (yes, no) = (f.b.create_block(), f.b.create_block());
                    let mut all = f.konst(1);
                    if let Some(vs) = concatenated {
                        let mut cat = f.konst(0);
                        for (&v, &w) in values.iter().zip(&widths) {
                            let shifted = f.b.ins().ishl_imm_s(cat, i64::from(w));
                            cat = f.b.ins().bor(shifted, v);
                        }
                        all = f.call2(super::jit_value_set, vs as u64, cat);
                    }
                    for (&v, m) in values.iter().zip(per_key) {
                        let hit = match m {
                            KeyMatch::Mask(_, 0) => continue,
                            KeyMatch::Mask(x, m) => {
                                let masked = f.b.ins().band_imm_s(v, m as u64 as i64);
                                let hit = f.b.ins().icmp_imm_s(IntCC::Equal, masked, x as u64 as i64);
                                f.b.ins().uextend(I64, hit)
                            }
                            // Keys are unsigned and at most 64 bits wide (checked above).
                            KeyMatch::Range(lo, hi) => {
                                let above = f.b.ins().icmp_imm_s(IntCC::UnsignedGreaterThanOrEqual, v, lo as u64 as i64);
                                let below = f.b.ins().icmp_imm_s(IntCC::UnsignedLessThanOrEqual, v, hi as u64 as i64);
                                let hit = f.b.ins().band(above, below);
                                f.b.ins().uextend(I64, hit)
                            }
                            KeyMatch::ValueSet(vs) => f.call2(super::jit_value_set, vs as u64, v),
                            KeyMatch::Any => continue,
                        };
                        all = f.b.ins().band(all, hit);
                    }
                    f.b.ins().brif(all, yes, &[], no, &[]);
                    f.b.switch_to_block(yes);
                    self.goto(f, t, blocks);
                    f.b.switch_to_block(no);
                }
                f.ret(REJECT | u64::from(no_match));
            }
        }
        Ok(())
    }

    // ------------------------------------------------------------------ statements

    fn block(&mut self, f: &mut Fun<'_>, code: &[Code], scope: Scope) -> R<()> {
        for c in code {
            self.stmt(f, c, scope)?;
            // Given up as soon as it is too large, before its instructions take the memory.
            too_large(f.b.func.dfg.num_insts())?;
        }
        Ok(())
    }

    fn stmt(&mut self, f: &mut Fun<'_>, c: &Code, scope: Scope) -> R<()> {
        match c {
            Code::Assign { dest, value, .. } if value.width <= 64 => match dest {
                Dest::Slot(s) => {
                    let v = self.scalar(f, value)?;
                    f.slot_write(*s, v);
                    Ok(())
                }
                Dest::Field { bit, width } if (bit % 8) as u32 + width <= 64 => {
                    let v = self.scalar(f, value)?;
                    f.field_write(*bit, *width, v);
                    Ok(())
                }
                _ => self.trampoline(f, c, scope),
            },
            Code::If { cond, then, otherwise, .. } => {
                let cnd = self.scalar(f, cond)?;
                let (t, e, join) = (f.b.create_block(), f.b.create_block(), f.b.create_block());
                f.b.ins().brif(cnd, t, &[], e, &[]);
                f.b.switch_to_block(t);
                self.block(f, then, scope)?;
                f.b.ins().jump(join, &[]);
                f.b.switch_to_block(e);
                self.block(f, otherwise, scope)?;
                f.b.ins().jump(join, &[]);
                f.b.switch_to_block(join);
                Ok(())
            }
            Code::Switch { value, arms, default, .. } if value.width <= 64 => {
                let v = self.scalar(f, value)?;
                let join = f.b.create_block();
                for (label, body) in arms {
                    let (arm, next) = (f.b.create_block(), f.b.create_block());
                    let hit = f.b.ins().icmp_imm_s(IntCC::Equal, v, *label as u64 as i64);
                    f.b.ins().brif(hit, arm, &[], next, &[]);
                    f.b.switch_to_block(arm);
                    self.block(f, body, scope)?;
                    f.b.ins().jump(join, &[]);
                    f.b.switch_to_block(next);
                }
                if let Some(body) = default {
                    self.block(f, body, scope)?;
                }
                f.b.ins().jump(join, &[]);
                f.b.switch_to_block(join);
                Ok(())
            }
            Code::Exit => {
                f.ret(EXIT);
                f.fresh();
                Ok(())
            }
            Code::Return if matches!(scope, Scope::Control { .. }) => {
                self.on_return(f, scope);
                f.fresh();
                Ok(())
            }
            Code::Apply(t) if self.inlines(*t) => {
                self.apply(f, *t)?;
                Ok(())
            }
            Code::Extract(r) => {
                self.whole_bytes()?;
                self.extract(f, *r);
                Ok(())
            }
            Code::Emit(regions) => {
                self.whole_bytes()?;
                for r in regions {
                    self.emit(f, *r);
                }
                Ok(())
            }
            Code::SetValid(r) => {
                let (at, bits, bit) = f.valid_bits(r.index);
                let set = f.b.ins().bor_imm_s(bits, bit);
                f.b.ins().store(f.mem, set, at, 0);
                Ok(())
            }
            Code::SetInvalid(r) => {
                let (at, bits, bit) = f.valid_bits(r.index);
                let cleared = f.b.ins().band_imm_s(bits, !bit);
                f.b.ins().store(f.mem, cleared, at, 0);
                f.zero_wire(r.at, r.len);
                if let Some(v) = r.varbit {
                    let zero = f.konst(0);
                    f.slot_write(v.length_slot, zero);
                }
                Ok(())
            }
            Code::Verify { ok, error } if !matches!(scope, Scope::Control { .. }) && ok.width <= 64 && error.width <= 64 => {
                let ok = self.scalar(f, ok)?;
                let (fail, go) = (f.b.create_block(), f.b.create_block());
                f.b.ins().brif(ok, go, &[], fail, &[]);
                f.b.switch_to_block(fail);
                let e = self.scalar(f, error)?;
                let code = f.b.ins().bor_imm_s(e, REJECT as i64);
                f.ret_value(code);
                f.b.switch_to_block(go);
                Ok(())
            }
            Code::MarkToDrop { writes, site } if writes.iter().all(|&(_, v)| u64::try_from(v).is_ok()) => {
                for &(slot, v) in writes {
                    let k = f.konst(v as u64);
                    f.slot_write(slot, k);
                }
                let ctx = f.frame_ptr(offset_of!(JitFrame, c));
                let code = f.konst(Effects::mark_code(*site));
                f.b.ins().store(f.mem, code, ctx, offset_of!(Ctx, fx.marked) as i32);
                Ok(())
            }
            Code::Checksum(sum) if Self::generates(sum) => self.checksum(f, sum),
            Code::Action { action, args } if matches!(scope, Scope::Control { .. }) && args.iter().all(|(_, v)| v.as_ref().is_none_or(|v| v.width <= 64)) => {
                self.direct_action(f, *action, args)
            }
            Code::ReadsAhead(code) => {
                self.block(f, code, scope)?;
                reject_if_pending(f);
                Ok(())
            }
            _ => self.trampoline(f, c, scope),
        }
    }

    /// A direct call of action `a` (see [`Code::Action`]): the arguments written into the
    /// parameters' slots (in order, as the closures do), then the body inlined.
    fn direct_action(&mut self, f: &mut Fun<'_>, a: usize, args: &[(usize, Option<Scalar>)]) -> R<()> {
        for (slot, value) in args {
            if let Some(value) = value {
                let v = self.scalar(f, value)?;
                f.slot_write(*slot, v);
            }
        }
        let body = self.action_body(a)?;
        let end = f.b.create_block();
        self.block(f, &body, Scope::Control { ret: Some(end) })?;
        f.b.ins().jump(end, &[]);
        f.b.switch_to_block(end);
        Ok(())
    }

    /// Action `a`'s translation.
    fn action_body(&self, a: usize) -> R<Arc<Vec<Code>>> {
        match self.fc.action_code.get(a) {
            Some(Some(code)) => Ok(code.clone()),
            _ => unsupported(format!("action id {a} (not translated)")),
        }
    }

    /// Whether the checksum is generated here: a target, values and wire pieces of at most 64
    /// bits (the IPv4 header checksum).
    fn generates(sum: &Checksum) -> bool {
        let target = match &sum.target {
            ChecksumTarget::Verify { expected, .. } => expected.width <= 64,
            ChecksumTarget::Update(Dest::Slot(_)) => true,
            ChecksumTarget::Update(Dest::Field { bit, width }) => (bit % 8) as u32 + width <= 64,
            ChecksumTarget::Update(Dest::Other(_)) => false,
        };
        let pieces = sum.plan.iter().all(|(l, _)| match l {
            Leaf::Wire { bit, width } => bit % 8 + width <= 64,
            Leaf::Value(v, _) => v.width <= 64,
        });
        target && pieces && sum.width <= 64 && sum.cond.width <= 64
    }

    /// `verify_checksum`/`update_checksum` with csum16 ([`Code::Checksum`]): summed here.
    fn checksum(&mut self, f: &mut Fun<'_>, sum: &Checksum) -> R<()> {
        let c = self.scalar(f, &sum.cond)?;
        let (go, done) = (f.b.create_block(), f.b.create_block());
        f.b.ins().brif(c, go, &[], done, &[]);
        f.b.switch_to_block(go);
        // As the closures sum (`code::checksum_closure`): each piece's 32-bit halves shifted
        // into place, in one u64 (2^32 is 1 modulo 2^16 - 1), then folded.
        let mut acc = f.konst(0);
        for (leaf, shift) in &sum.plan {
            let v = match leaf {
                Leaf::Wire { bit, width } => f.field_read(*bit, *width as u32),
                Leaf::Value(v, _) => self.scalar(f, v)?,
            };
            let lo = f.b.ins().band_imm_s(v, 0xffff_ffff);
            let hi = f.b.ins().ushr_imm_s(v, 32);
            let lo = f.b.ins().ishl_imm_s(lo, i64::from(*shift));
            let hi = f.b.ins().ishl_imm_s(hi, i64::from(*shift));
            let piece = f.b.ins().iadd(lo, hi);
            acc = f.b.ins().iadd(acc, piece);
        }
        // Five end-around folds take any 64-bit sum below 2^16.
        for _ in 0..5 {
            let low = f.b.ins().band_imm_s(acc, 0xffff);
            let high = f.b.ins().ushr_imm_s(acc, 16);
            acc = f.b.ins().iadd(low, high);
        }
        let total = f.b.ins().bxor_imm_s(acc, 0xffff);
        let total = f.b.ins().band_imm_s(total, (0xffff & mask(sum.width)) as i64);
        match &sum.target {
            ChecksumTarget::Verify { expected, error_flag } => {
                let expected = self.scalar(f, expected)?;
                let bad = f.b.ins().icmp(IntCC::NotEqual, total, expected);
                let set = f.b.create_block();
                f.b.ins().brif(bad, set, &[], done, &[]);
                f.b.switch_to_block(set);
                if let Some(slot) = error_flag {
                    let one = f.konst(1);
                    f.slot_write(*slot, one);
                }
            }
            ChecksumTarget::Update(Dest::Slot(s)) => f.slot_write(*s, total),
            ChecksumTarget::Update(Dest::Field { bit, width }) => f.field_write(*bit, *width, total),
            ChecksumTarget::Update(Dest::Other(_)) => return unsupported("a checksum written through a computed place"),
        }
        f.b.ins().jump(done, &[]);
        f.b.switch_to_block(done);
        Ok(())
    }

    /// A node the closures run, called from here.
    fn trampoline(&mut self, f: &mut Fun<'_>, c: &Code, scope: Scope) -> R<()> {
        self.opaque = true;
        let run = self.fc.closure(c.clone());
        let idx = self.runs.len() as u64;
        self.runs.push(run);
        let code = f.call(super::jit_run, idx);
        let (other, next) = (f.b.create_block(), f.b.create_block());
        f.b.ins().brif(code, other, &[], next, &[]);
        f.b.switch_to_block(other);
        match scope {
            Scope::Control { .. } => {
                let is_return = f.b.ins().icmp_imm_s(IntCC::Equal, code, RETURN as i64);
                let (ret, out) = (f.b.create_block(), f.b.create_block());
                f.b.ins().brif(is_return, ret, &[], out, &[]);
                f.b.switch_to_block(ret);
                self.on_return(f, scope);
                f.b.switch_to_block(out);
                f.ret_value(code);
            }
            Scope::ParserInit | Scope::ParserState => {
                let rejected = f.b.ins().icmp_imm_s(IntCC::UnsignedGreaterThanOrEqual, code, REJECT as i64);
                let (stop, go_on) = (f.b.create_block(), f.b.create_block());
                f.b.ins().brif(rejected, stop, &[], go_on, &[]);
                f.b.switch_to_block(stop);
                f.ret_value(code);
                f.b.switch_to_block(go_on);
                if matches!(scope, Scope::ParserState) {
                    let aborted = f.b.ins().icmp_imm_s(IntCC::Equal, code, ABORT as i64);
                    let stop = f.b.create_block();
                    f.b.ins().brif(aborted, stop, &[], next, &[]);
                    f.b.switch_to_block(stop);
                    f.ret(REJECT);
                } else {
                    f.b.ins().jump(next, &[]);
                }
            }
        }
        f.b.switch_to_block(next);
        Ok(())
    }

    /// `return`: to the end of the inlined action, or out of the control (as `Next`).
    fn on_return(&mut self, f: &mut Fun<'_>, scope: Scope) {
        match scope {
            Scope::Control { ret: Some(end) } => {
                f.b.ins().jump(end, &[]);
            }
            _ => f.ret(NEXT),
        }
    }

    /// `extract` of a fixed-size header: its bytes copied, its validity bit set, the cursor moved;
    /// a packet too short rejects.
    fn extract(&mut self, f: &mut Fun<'_>, r: Region) {
        let short = self.fc.cx.errors.packet_too_short;
        let cursor_at = f.frame_ptr(offset_of!(JitFrame, cursor));
        let cursor = f.b.ins().load(I64, f.mem, cursor_at, 0);
        let from = f.b.ins().ushr_imm_s(cursor, 3);
        let end = f.b.ins().iadd_imm_s(from, r.len as i64);
        let len = f.frame_ptr(offset_of!(JitFrame, pkt_len));
        let fits = f.b.ins().icmp(IntCC::UnsignedLessThanOrEqual, end, len);
        let (copy, too_short) = (f.b.create_block(), f.b.create_block());
        f.b.ins().brif(fits, copy, &[], too_short, &[]);
        f.b.switch_to_block(too_short);
        f.ret(REJECT | u64::from(short));
        f.b.switch_to_block(copy);
        let pkt = f.frame_ptr(offset_of!(JitFrame, pkt));
        let src = f.b.ins().iadd(pkt, from);
        let wire = f.frame_ptr(offset_of!(JitFrame, wire));
        f.copy(wire, r.at, src, r.len);
        let (at, bits, bit) = f.valid_bits(r.index);
        let set = f.b.ins().bor_imm_s(bits, bit);
        f.b.ins().store(f.mem, set, at, 0);
        let moved = f.b.ins().iadd_imm_s(cursor, (r.len * 8) as i64);
        f.b.ins().store(f.mem, moved, cursor_at, 0);
    }

    /// `emit` of one header: its bytes appended to the output if it is valid. A header with a
    /// varbit field: all its bytes are copied (the output has room for them), but the output
    /// grows by its fixed fields' and the varbit's current length only.
    fn emit(&mut self, f: &mut Fun<'_>, r: Region) {
        self.emits += r.len;
        let (_, bits, bit) = f.valid_bits(r.index);
        let bit = f.b.ins().band_imm_s(bits, bit);
        let (copy, skip) = (f.b.create_block(), f.b.create_block());
        f.b.ins().brif(bit, copy, &[], skip, &[]);
        f.b.switch_to_block(copy);
        let len = f.konst(r.len as u64);
        let dst = f.room(len);
        let wire = f.frame_ptr(offset_of!(JitFrame, wire));
        let src = f.b.ins().iadd_imm_s(wire, r.at as i64);
        f.copy(dst, 0, src, r.len);
        let n2 = match r.varbit {
            None => f.b.ins().iadd_imm_s(dst, r.len as i64),
            Some(v) => {
                // As `Region::wire_len`: the length in bits, rounded up to bytes, at most the
                // varbit's bytes.
                let length = f.slot_read(v.length_slot);
                let up = f.b.ins().iadd_imm_s(length, 7);
                let bytes = f.b.ins().ushr_imm_s(up, 3);
                let most = f.konst(v.max_len as u64);
                let bytes = f.b.ins().umin(bytes, most);
                let fixed = f.b.ins().iadd_imm_s(dst, r.fixed_len() as i64);
                f.b.ins().iadd(fixed, bytes)
            }
        };
        f.b.ins().store(f.frame_mem, n2, f.frame, offset_of!(JitFrame, out_at) as i32);
        f.b.ins().jump(skip, &[]);
        f.b.switch_to_block(skip);
    }

    /// The key expressions of table `t` with their widths when the generated code computes its key
    /// itself: one field of at most 64 bits, or exact fields of at most 64 bits in all, which the
    /// table keeps packed (`table::packed_widths`).
    fn computed_key(&self, t: usize) -> Option<Vec<(Scalar, u32)>> {
        let table = self.fc.cx.ir.tables.get(t)?;
        let keys = self.fc.key_code.get(t)?;
        if let ([k], [_]) = (keys.as_slice(), table.keys.as_slice()) {
            return (k.width <= 64).then(|| vec![(k.clone(), k.width)]);
        }
        let layout = self.fc.cx.layouts.key(p4_ir::TableId(t as u32));
        let widths = crate::table::packed_widths(layout)?;
        if widths.iter().sum::<u32>() > 64 || keys.len() != layout.fields.len() {
            return None;
        }
        let fields: Vec<(Scalar, u32)> = keys.iter().zip(&layout.fields).map(|(k, f)| (k.clone(), f.width)).collect();
        fields.iter().all(|(k, w)| k.width <= 64 && k.width == *w).then_some(fields)
    }

    /// Notes what Rust reads when it computes table `t`'s key itself (`fast::choose_entry`).
    fn keys_read_by_rust(&mut self, t: usize) {
        for k in self.fc.tables.get(t).and_then(Option::as_ref).map_or(&[][..], |ft| &ft.keys[..]) {
            match k {
                Val::Slot(s) => {
                    self.read.insert(*s);
                }
                Val::Eval(_) => self.read_unknown = true,
                Val::Const(_) | Val::Field { .. } | Val::Valid { .. } => {}
            }
        }
        self.per_entry_reads(t);
    }

    /// Notes what Rust reads to count or meter a hit in table `t`: a direct counter reads the
    /// packet length; a direct meter, more.
    fn per_entry_reads(&mut self, t: usize) {
        match self.per_entry(t) {
            PerEntry::Nothing => {}
            PerEntry::Counter(len) => {
                self.read.insert(len);
            }
            PerEntry::More => self.read_unknown = true,
        }
    }

    /// What table `t` keeps per entry, as the architecture describes its per-entry externs. A
    /// table with an action selector counts as `More` (its group entries are chosen by the full
    /// lookup, which also reads the selector keys), and so does one recording hits (the full
    /// lookup sets the hit bit).
    fn per_entry(&self, t: usize) -> PerEntry {
        let ir = self.fc.cx.ir;
        let selector = self.fc.tables.get(t).and_then(Option::as_ref).is_some_and(|ft| ft.selector.is_some());
        if selector || ir.tables[t].supports_timeout() {
            return PerEntry::More;
        }
        let mut kinds = p4_arch::per_entry_externs(&ir.tables[t]).map(|e| {
            let arch = p4_arch::of(ir)?;
            Some(arch.extern_type(&ir.externs.get(e.index())?.type_name)?.state)
        });
        match (kinds.next(), kinds.next(), self.fc.cx.intrinsic.slot(MetaRole::PacketLength)) {
            (None, _, _) => PerEntry::Nothing,
            (Some(Some(StateKind::DirectCounter)), None, Some(len)) => PerEntry::Counter(len),
            _ => PerEntry::More,
        }
    }

    /// Whether a hit in table `t` is counted by generated code itself: a direct counter alone.
    fn counts_itself(&self, t: usize) -> bool {
        matches!(self.per_entry(t), PerEntry::Counter(_))
    }

    /// Adds a packet, of the length in slot `len_slot`, to the direct counts of the entry whose
    /// record (in a flat-map slot or a trie leaf, where its handle is just before it) is at
    /// `record`, as `TableState::add_count`.
    fn count_hit(f: &mut Fun<'_>, t: usize, record: Value, len_slot: usize) {
        let tables = f.frame_ptr(offset_of!(JitFrame, tables));
        let at = t * std::mem::size_of::<TableState>() + TableState::FLAT_PROBE_OFFSET + offset_of!(FlatProbe, counts);
        let counts = f.b.ins().load(I64, TRUSTED, tables, at as i32);
        let handle = f.b.ins().load(I64, TRUSTED, record, -(crate::table::HANDLE_BEFORE_HIT as i32));
        let offset = f.b.ins().imul_imm_s(handle, std::mem::size_of::<Count>() as i64);
        let count = f.b.ins().iadd(counts, offset);
        let packets = f.b.ins().load(I64, TRUSTED, count, offset_of!(Count, packets) as i32);
        let packets = f.b.ins().iadd_imm_s(packets, 1);
        f.b.ins().store(TRUSTED, packets, count, offset_of!(Count, packets) as i32);
        let len = f.slot_read(len_slot);
        let bytes = f.b.ins().load(I64, TRUSTED, count, offset_of!(Count, bytes) as i32);
        let bytes = f.b.ins().iadd(bytes, len);
        f.b.ins().store(TRUSTED, bytes, count, offset_of!(Count, bytes) as i32);
    }

    /// The record a packet with `key` (one field's value, or the packed fields) runs in table `t`, as [`super::jit_record`]
    /// returns it (its address, bit 0 set on a hit; 0 when it does not hold its data): found here
    /// in the table's flat map or trie ([`crate::table::FlatProbe`]) when it has one, else asked
    /// of Rust; for a table that `counts_itself`, not asked (0: the full lookup, which counts).
    fn record(&mut self, f: &mut Fun<'_>, t: usize, key: Value) -> Value {
        let tables = f.frame_ptr(offset_of!(JitFrame, tables));
        let at = t * std::mem::size_of::<TableState>() + TableState::FLAT_PROBE_OFFSET;
        let probe = f.b.ins().iadd_imm_s(tables, at as i64);
        let (ask, result, hit, miss, chosen) = (f.b.create_block(), f.b.create_block(), f.b.create_block(), f.b.create_block(), f.b.create_block());
        f.b.append_block_param(result, I64);
        f.b.append_block_param(hit, I64);
        f.b.append_block_param(chosen, I64);
        f.b.append_block_param(chosen, I64);
        let trie = crate::table::trie_width(self.fc.cx.layouts.key(p4_ir::TableId(t as u32))).and_then(crate::table::trie_strides);
        match trie {
            Some(strides) => Self::trie_walk(f, probe, key, &strides, ask, hit, miss),
            None => Self::flat_probe(f, probe, key, ask, hit, miss),
        }

        f.b.switch_to_block(ask);
        let rec = if self.counts_itself(t) { f.konst(0) } else { f.call2(super::jit_record, t as u64, key) };
        f.b.ins().jump(result, &[BlockArg::Value(rec)]);

        f.b.switch_to_block(hit);
        let record = f.b.block_params(hit)[0];
        let one = f.konst(1);
        f.b.ins().jump(chosen, &[BlockArg::Value(record), BlockArg::Value(one)]);

        f.b.switch_to_block(miss);
        let default = f.b.ins().iadd_imm_s(probe, offset_of!(FlatProbe, default) as i64);
        let zero = f.konst(0);
        f.b.ins().jump(chosen, &[BlockArg::Value(default), BlockArg::Value(zero)]);

        // A record without its data: 0, the full lookup.
        f.b.switch_to_block(chosen);
        let (record, found) = (f.b.block_params(chosen)[0], f.b.block_params(chosen)[1]);
        let len = f.b.ins().uload32(TRUSTED, record, Hit::LEN_OFFSET as i32);
        let in_entry = f.b.ins().icmp_imm_s(IntCC::Equal, len, i64::from(Hit::IN_ENTRY));
        let tagged = f.b.ins().bor(record, found);
        let zero = f.konst(0);
        let rec = f.b.ins().select(in_entry, zero, tagged);
        f.b.ins().jump(result, &[BlockArg::Value(rec)]);

        f.b.switch_to_block(result);
        f.b.block_params(result)[0]
    }

    /// Linear probing of the table's flat map from the key's home slot (as `FlatMap::get`): to
    /// `hit(record)` (the copy kept in the slot) or `miss`; to `ask` when the table has no flat map.
    fn flat_probe(f: &mut Fun<'_>, probe: Value, key: Value, ask: Block, hit: Block, miss: Block) {
        let slots = f.b.ins().load(I64, TRUSTED, probe, offset_of!(FlatProbe, slots) as i32);
        let flat = f.b.create_block();
        f.b.ins().brif(slots, flat, &[], ask, &[]);
        f.b.switch_to_block(flat);
        let shift = f.b.ins().load(I64, TRUSTED, probe, offset_of!(FlatProbe, shift) as i32);
        let mask = f.b.ins().load(I64, TRUSTED, probe, offset_of!(FlatProbe, mask) as i32);
        let mixed = f.b.ins().imul_imm_s(key, FLAT_MIX as i64);
        let home = f.b.ins().ushr(mixed, shift);
        let (probe_slot, compare, next) = (f.b.create_block(), f.b.create_block(), f.b.create_block());
        f.b.append_block_param(probe_slot, I64);
        f.b.ins().jump(probe_slot, &[BlockArg::Value(home)]);

        f.b.switch_to_block(probe_slot);
        let i = f.b.block_params(probe_slot)[0];
        let offset = f.b.ins().imul_imm_s(i, std::mem::size_of::<FlatSlot>() as i64);
        let slot = f.b.ins().iadd(slots, offset);
        let handle = f.b.ins().load(I64, TRUSTED, slot, offset_of!(FlatSlot, handle) as i32);
        let empty = f.b.ins().icmp_imm_s(IntCC::Equal, handle, FLAT_EMPTY as i64);
        f.b.ins().brif(empty, miss, &[], compare, &[]);

        f.b.switch_to_block(compare);
        let slot_key = f.b.ins().load(I64, TRUSTED, slot, offset_of!(FlatSlot, key) as i32);
        let same = f.b.ins().icmp(IntCC::Equal, slot_key, key);
        let record = f.b.ins().iadd_imm_s(slot, offset_of!(FlatSlot, hit) as i64);
        f.b.ins().brif(same, hit, &[BlockArg::Value(record)], next, &[]);

        f.b.switch_to_block(next);
        let after = f.b.ins().iadd_imm_s(i, 1);
        let wrapped = f.b.ins().band(after, mask);
        f.b.ins().jump(probe_slot, &[BlockArg::Value(wrapped)]);
    }

    /// The walk down the table's LPM trie (as `LpmTrie::lookup`, strides `strides`): one slot
    /// per level while it holds a child, then the leaf: to `hit(record)` (the copy kept in the
    /// leaf), or `miss` on an empty slot; to `ask` when the trie has no root.
    fn trie_walk(f: &mut Fun<'_>, probe: Value, key: Value, strides: &[crate::table::Stride], ask: Block, hit: Block, miss: Block) {
        use cranelift_codegen::ir::types::I32;
        let level_at = |l: usize| (offset_of!(FlatProbe, trie) + l * std::mem::size_of::<*const u32>()) as i32;
        let root = f.b.ins().load(I64, TRUSTED, probe, level_at(0));
        let (walk, leaf) = (f.b.create_block(), f.b.create_block());
        f.b.append_block_param(leaf, I32);
        f.b.ins().brif(root, walk, &[], ask, &[]);
        f.b.switch_to_block(walk);
        let mut node: Option<Value> = None;
        for (l, stride) in strides.iter().enumerate() {
            let bits = f.b.ins().ushr_imm_s(key, i64::from(stride.shift));
            let mut index = f.b.ins().band_imm_s(bits, (1i64 << stride.bits) - 1);
            if let Some(n) = node {
                let first = f.b.ins().ishl_imm_s(n, i64::from(stride.bits));
                index = f.b.ins().bor(first, index);
            }
            let base = if l == 0 { root } else { f.b.ins().load(I64, TRUSTED, probe, level_at(l)) };
            let offset = f.b.ins().ishl_imm_s(index, 2);
            let at = f.b.ins().iadd(base, offset);
            let slot = f.b.ins().load(I32, TRUSTED, at, 0);
            if l + 1 == strides.len() {
                f.b.ins().jump(leaf, &[BlockArg::Value(slot)]);
                break;
            }
            let child = f.b.ins().band_imm_s(slot, i64::from(crate::table::CHILD));
            let down = f.b.create_block();
            f.b.ins().brif(child, down, &[], leaf, &[BlockArg::Value(slot)]);
            f.b.switch_to_block(down);
            let n = f.b.ins().band_imm_s(slot, i64::from(!crate::table::CHILD));
            node = Some(f.b.ins().uextend(I64, n));
        }

        // A leaf slot holds its leaf's id + 1; 0 is no prefix.
        f.b.switch_to_block(leaf);
        let slot = f.b.block_params(leaf)[0];
        let found = f.b.create_block();
        f.b.ins().brif(slot, found, &[], miss, &[]);
        f.b.switch_to_block(found);
        let id = f.b.ins().uextend(I64, slot);
        let leaves = f.b.ins().load(I64, TRUSTED, probe, offset_of!(FlatProbe, leaves) as i32);
        let offset = f.b.ins().imul_imm_s(id, std::mem::size_of::<crate::table::Leaf>() as i64);
        let at = f.b.ins().iadd(leaves, offset);
        let before = -(std::mem::size_of::<crate::table::Leaf>() as i64) + offset_of!(crate::table::Leaf, hit) as i64;
        let record = f.b.ins().iadd_imm_s(at, before);
        f.b.ins().jump(hit, &[BlockArg::Value(record)]);
    }

    /// Applies table `t`: the lookup in Rust, the chosen action's body inlined. Returns whether
    /// it hit and the IR id of the action run (0 when none), as `u64` values.
    /// Whether an application of table `t` is generated here, its actions' bodies inlined: not
    /// when an action has directional parameters, which the table binds and copies around the
    /// body (the closures' application does that, called from here).
    fn inlines(&self, t: usize) -> bool {
        self.fc.tables.get(t).and_then(Option::as_ref).is_some_and(|ft| ft.actions.iter().all(|a| a.bound.is_none()))
    }

    fn apply(&mut self, f: &mut Fun<'_>, t: usize) -> R<(Value, Value)> {
        self.fc.table(t)?;
        let ir = self.fc.cx.ir;
        let actions: Vec<(usize, Vec<usize>)> = match self.fc.tables.get(t).and_then(Option::as_ref) {
            // The bodies are inlined here without the copies around them.
            Some(ft) if ft.actions.iter().any(|a| a.bound.is_some()) => {
                return unsupported(format!("table {}: an action with directional parameters", ir.tables[t].name));
            }
            Some(ft) => ft.actions.iter().map(|a| (a.action, a.data.clone())).collect(),
            None => return unsupported(format!("table id {t}")),
        };
        // A key of one field of at most 64 bits, or of exact fields of at most 64 bits in all, is
        // computed here (packed as `table::pack` does) and passed along.
        let key_exprs = self.computed_key(t);
        // Rust writes the chosen action's data (on the full path).
        self.written.extend(actions.iter().flat_map(|(_, data)| data.iter().copied()));
        // `dispatch(hit, local action index, record)`: the record's address when the generated
        // code copies the action's data from it, 0 when Rust did.
        let dispatch = f.b.create_block();
        for _ in 0..3 {
            f.b.append_block_param(dispatch, I64);
        }
        let done = f.b.create_block();
        f.b.append_block_param(done, I64);
        f.b.append_block_param(done, I64);
        let zero = f.konst(0);
        let mut records = false;
        let r = match key_exprs {
            Some(fields) => {
                let mut key = None;
                for (k, width) in &fields {
                    let v = self.scalar(f, k)?;
                    key = Some(match key {
                        None => v,
                        Some(high) => {
                            let moved = f.b.ins().ishl_imm_s(high, i64::from(*width));
                            f.b.ins().bor(moved, v)
                        }
                    });
                }
                let Some(key) = key else { return unsupported("a computed key without fields") };
                // A table with no direct meter: the winning record's address (found here, or
                // from Rust: `jit_record`), its data copied here, a direct counter's counts added
                // here; the full path when the record does not hold its data (or, for a counted
                // table, is not in a flat map or trie).
                self.per_entry_reads(t);
                if self.per_entry(t) != PerEntry::More {
                    records = true;
                    let rec = self.record(f, t, key);
                    let (fast, slow) = (f.b.create_block(), f.b.create_block());
                    f.b.ins().brif(rec, fast, &[], slow, &[]);
                    f.b.switch_to_block(fast);
                    let hit = f.b.ins().band_imm_s(rec, 1);
                    let addr = f.b.ins().band_imm_s(rec, !1);
                    if let PerEntry::Counter(len_slot) = self.per_entry(t) {
                        let (counted, after) = (f.b.create_block(), f.b.create_block());
                        f.b.ins().brif(hit, counted, &[], after, &[]);
                        f.b.switch_to_block(counted);
                        Self::count_hit(f, t, addr, len_slot);
                        f.b.ins().jump(after, &[]);
                        f.b.switch_to_block(after);
                    }
                    let local = f.b.ins().uload32(f.mem, addr, 0);
                    f.b.ins().jump(dispatch, &[BlockArg::Value(hit), BlockArg::Value(local), BlockArg::Value(addr)]);
                    f.b.switch_to_block(slow);
                }
                if fields.len() == 1 {
                    f.call2(super::jit_table_by, t as u64, key)
                } else {
                    self.keys_read_by_rust(t);
                    f.call(super::jit_table, t as u64)
                }
            }
            None => {
                self.keys_read_by_rust(t);
                f.call(super::jit_table, t as u64)
            }
        };
        let none = f.b.ins().icmp_imm_s(IntCC::Equal, r, NO_ACTION as i64);
        let found = f.b.create_block();
        f.b.ins().brif(none, done, &[BlockArg::Value(zero), BlockArg::Value(zero)], found, &[]);
        f.b.switch_to_block(found);
        let hit = f.b.ins().ushr_imm_s(r, 32);
        let local = f.b.ins().band_imm_s(r, 0xffff_ffff);
        f.b.ins().jump(dispatch, &[BlockArg::Value(hit), BlockArg::Value(local), BlockArg::Value(zero)]);
        f.b.switch_to_block(dispatch);
        let (hit, local, addr) = (f.b.block_params(dispatch)[0], f.b.block_params(dispatch)[1], f.b.block_params(dispatch)[2]);
        for (k, (a, data)) in actions.iter().enumerate() {
            let a = *a;
            let body = self.action_body(a)?;
            let is_k = f.b.ins().icmp_imm_s(IntCC::Equal, local, k as i64);
            let (arm, next, end) = (f.b.create_block(), f.b.create_block(), f.b.create_block());
            f.b.ins().brif(is_k, arm, &[], next, &[]);
            f.b.switch_to_block(arm);
            if records && !data.is_empty() {
                let (copy, body) = (f.b.create_block(), f.b.create_block());
                f.b.ins().brif(addr, copy, &[], body, &[]);
                f.b.switch_to_block(copy);
                for (i, &slot) in data.iter().enumerate() {
                    let v = f.b.ins().load(I64, f.mem, addr, (Hit::DATA_OFFSET + 8 * i) as i32);
                    f.slot_write(slot, v);
                }
                f.b.ins().jump(body, &[]);
                f.b.switch_to_block(body);
            }
            self.block(f, &body, Scope::Control { ret: Some(end) })?;
            f.b.ins().jump(end, &[]);
            f.b.switch_to_block(end);
            let id = f.konst(a as u64);
            f.b.ins().jump(done, &[BlockArg::Value(hit), BlockArg::Value(id)]);
            f.b.switch_to_block(next);
        }
        let zero = f.konst(0);
        f.b.ins().jump(done, &[BlockArg::Value(hit), BlockArg::Value(zero)]);
        f.b.switch_to_block(done);
        let params = f.b.block_params(done);
        Ok((params[0], params[1]))
    }

    // ------------------------------------------------------------------ values

    /// Refuses an `extract` or `emit` in a program whose cursor or output may stop off a byte
    /// boundary: the code here moves whole bytes.
    fn whole_bytes(&self) -> R<()> {
        match &self.fc.places.unaligned {
            Some(why) => unsupported(format!("{why}, and machine code moves whole bytes")),
            None => Ok(()),
        }
    }

    /// The code of a value of at most 64 bits; a node it does not generate is its closure,
    /// called from here.
    fn scalar(&mut self, f: &mut Fun<'_>, v: &Scalar) -> R<Value> {
        let w = v.width;
        if w > 64 {
            return unsupported("a value wider than 64 bits");
        }
        match &v.kind {
            ScalarKind::Const(k) => Ok(f.konst(*k as u64)),
            ScalarKind::Slot(s) => Ok(f.slot_read(*s)),
            ScalarKind::Field { bit } if (bit % 8) as u32 + w <= 64 => Ok(f.field_read(*bit, w)),
            ScalarKind::Valid { word, mask } => {
                let (_, bits, _) = f.valid_bits(word * 64);
                if mask.count_ones() == 1 {
                    let shifted = f.b.ins().ushr_imm_s(bits, i64::from(mask.trailing_zeros()));
                    return Ok(f.b.ins().band_imm_s(shifted, 1));
                }
                // A header union: valid when one of its members is.
                let members = f.b.ins().band_imm_s(bits, *mask as i64);
                let zero = f.konst(0);
                Ok(f.bool_of(IntCC::NotEqual, members, zero))
            }
            ScalarKind::Slice { of, lo } if of.width <= 64 => {
                let x = self.scalar(f, of)?;
                let shifted = f.b.ins().ushr_imm_s(x, i64::from(*lo));
                Ok(f.b.ins().band_imm_s(shifted, mask(w) as i64))
            }
            ScalarKind::Unary { op, of } => {
                let x = self.scalar(f, of)?;
                Ok(match op {
                    UnOp::Not => f.b.ins().bxor_imm_s(x, 1),
                    UnOp::BitNot => f.b.ins().bxor_imm_s(x, mask(w) as i64),
                    UnOp::Neg => {
                        let n = f.b.ins().ineg(x);
                        f.b.ins().band_imm_s(n, mask(w) as i64)
                    }
                    UnOp::Plus => x,
                })
            }
            ScalarKind::Binary { op, signed, l, r } if l.width <= 64 && r.width <= 64 => self.binary(f, v, *op, *signed, l, r),
            ScalarKind::Mux { cond, yes, no } => {
                let c = self.scalar(f, cond)?;
                let (y, n, join) = (f.b.create_block(), f.b.create_block(), f.b.create_block());
                f.b.append_block_param(join, I64);
                f.b.ins().brif(c, y, &[], n, &[]);
                f.b.switch_to_block(y);
                let a = self.scalar(f, yes)?;
                f.b.ins().jump(join, &[BlockArg::Value(a)]);
                f.b.switch_to_block(n);
                let bb = self.scalar(f, no)?;
                f.b.ins().jump(join, &[BlockArg::Value(bb)]);
                f.b.switch_to_block(join);
                Ok(f.b.block_params(join)[0])
            }
            ScalarKind::Cast { of, how } if of.width <= 64 && *how != Cast::SignExtend => {
                let x = self.scalar(f, of)?;
                Ok(match how {
                    Cast::NonZero => {
                        let zero = f.konst(0);
                        f.bool_of(IntCC::NotEqual, x, zero)
                    }
                    Cast::Cut => f.b.ins().band_imm_s(x, mask(w) as i64),
                    Cast::Same | Cast::SignExtend => x,
                })
            }
            ScalarKind::Applied { table, result } if self.inlines(*table) => {
                let (hit, action) = self.apply(f, *table)?;
                Ok(match result {
                    ApplyResult::Hit => hit,
                    ApplyResult::Miss => f.b.ins().bxor_imm_s(hit, 1),
                    ApplyResult::ActionRun => action,
                })
            }
            _ => Ok(self.fallback(f, v)),
        }
    }

    /// A value the wire-format closures compute, called from here.
    fn fallback(&mut self, f: &mut Fun<'_>, v: &Scalar) -> Value {
        self.opaque = true;
        let ev = v.clone().closure(self.fc.cx.tracing).into_ev();
        let idx = self.evals.len() as u64;
        self.evals.push(ev);
        f.call(super::jit_eval, idx)
    }

    fn binary(&mut self, f: &mut Fun<'_>, v: &Scalar, op: BinOp, signed: bool, l: &Scalar, r: &Scalar) -> R<Value> {
        let (w, rw) = (l.width, v.width);
        let m = mask(rw) as i64;
        let unsigned_cc = |op: BinOp| match op {
            BinOp::Lt => Some(IntCC::UnsignedLessThan),
            BinOp::Le => Some(IntCC::UnsignedLessThanOrEqual),
            BinOp::Gt => Some(IntCC::UnsignedGreaterThan),
            BinOp::Ge => Some(IntCC::UnsignedGreaterThanOrEqual),
            _ => None,
        };
        match op {
            BinOp::And | BinOp::Or => {
                // Short-circuit: the right side (which may apply a table) only when it decides.
                let x = self.scalar(f, l)?;
                let (right, join) = (f.b.create_block(), f.b.create_block());
                f.b.append_block_param(join, I64);
                if op == BinOp::And {
                    f.b.ins().brif(x, right, &[], join, &[BlockArg::Value(x)]);
                } else {
                    f.b.ins().brif(x, join, &[BlockArg::Value(x)], right, &[]);
                }
                f.b.switch_to_block(right);
                let y = self.scalar(f, r)?;
                let zero = f.konst(0);
                let y = f.bool_of(IntCC::NotEqual, y, zero);
                f.b.ins().jump(join, &[BlockArg::Value(y)]);
                f.b.switch_to_block(join);
                let v = f.b.block_params(join)[0];
                let zero = f.konst(0);
                Ok(f.bool_of(IntCC::NotEqual, v, zero))
            }
            BinOp::Add | BinOp::Sub | BinOp::Mul | BinOp::BitAnd | BinOp::BitOr | BinOp::BitXor | BinOp::Eq | BinOp::Ne => {
                let x = self.scalar(f, l)?;
                let y = self.scalar(f, r)?;
                Ok(match op {
                    BinOp::Add => {
                        let s = f.b.ins().iadd(x, y);
                        f.b.ins().band_imm_s(s, m)
                    }
                    BinOp::Sub => {
                        let s = f.b.ins().isub(x, y);
                        f.b.ins().band_imm_s(s, m)
                    }
                    BinOp::Mul => {
                        let s = f.b.ins().imul(x, y);
                        f.b.ins().band_imm_s(s, m)
                    }
                    BinOp::BitAnd => f.b.ins().band(x, y),
                    BinOp::BitOr => f.b.ins().bor(x, y),
                    BinOp::BitXor => f.b.ins().bxor(x, y),
                    BinOp::Eq => f.bool_of(IntCC::Equal, x, y),
                    _ => f.bool_of(IntCC::NotEqual, x, y),
                })
            }
            _ if !signed && unsigned_cc(op).is_some() => {
                let x = self.scalar(f, l)?;
                let y = self.scalar(f, r)?;
                let cc = unsigned_cc(op).unwrap_or(IntCC::Equal);
                Ok(f.bool_of(cc, x, y))
            }
            BinOp::Shl | BinOp::Shr if !(signed && op == BinOp::Shr) => {
                let Some(k) = r.constant() else { return Ok(self.fallback(f, v)) };
                if k >= u128::from(w) {
                    return Ok(f.konst(0));
                }
                let x = self.scalar(f, l)?;
                Ok(if op == BinOp::Shl {
                    let s = f.b.ins().ishl_imm_s(x, k as i64);
                    f.b.ins().band_imm_s(s, mask(w) as i64)
                } else {
                    f.b.ins().ushr_imm_s(x, k as i64)
                })
            }
            BinOp::Concat => {
                let x = self.scalar(f, l)?;
                let y = self.scalar(f, r)?;
                let hi = if r.width >= 64 { f.konst(0) } else { f.b.ins().ishl_imm_s(x, i64::from(r.width)) };
                let v = f.b.ins().bor(hi, y);
                Ok(f.b.ins().band_imm_s(v, m))
            }
            _ => Ok(self.fallback(f, v)),
        }
    }
}

/// A rejection with the error a `lookahead` past the packet's end left pending, if it did (what
/// the closures do after a state's body and after its select keys).
fn reject_if_pending(f: &mut Fun<'_>) {
    let code = f.call(super::jit_pending, 0);
    let (stop, go_on) = (f.b.create_block(), f.b.create_block());
    f.b.ins().brif(code, stop, &[], go_on, &[]);
    f.b.switch_to_block(stop);
    f.ret_value(code);
    f.b.switch_to_block(go_on);
}

/// Returns [`super::ABORTED`] from the whole-packet function when `stopped` is not 0.
fn aborted_if(f: &mut Fun<'_>, stopped: Value) {
    let (stop, go_on) = (f.b.create_block(), f.b.create_block());
    f.b.ins().brif(stopped, stop, &[], go_on, &[]);
    f.b.switch_to_block(stop);
    f.ret(super::ABORTED);
    f.b.switch_to_block(go_on);
}
