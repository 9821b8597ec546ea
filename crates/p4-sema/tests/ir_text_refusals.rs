//! The IR text reader (`p4_ir::text`) is a reader of user input: a file edited by hand, cut short
//! or made hostile gets a located error, never a crash, an allocation the size of an id, or a
//! program the verifier should have refused. Each case edits one line of a printed program and
//! names the exact error, with its line and column.

use std::path::Path;

const PROGRAM: &str = r#"
#include <v1model.p4>
header h_t { bit<8> k; bit<8> acc; }
struct headers_t { h_t h; }
struct meta_t { bit<8> m; }
parser P(packet_in pkt, out headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    state start { pkt.extract(hdr.h); transition accept; }
}
control VC(inout headers_t hdr, inout meta_t meta) { apply {} }
control I(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    action add(bit<8> amount) { hdr.h.acc = hdr.h.acc + amount; }
    action copy() { hdr.h.acc = hdr.h.k; }
    table t_add { key = { hdr.h.k: exact; } actions = { add; NoAction; } default_action = NoAction(); }
    table t_copy { key = { hdr.h.k: exact; } actions = { copy; NoAction; } default_action = NoAction(); }
    apply { t_add.apply(); t_copy.apply(); }
}
control E(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) { apply {} }
control CC(inout headers_t hdr, inout meta_t meta) { apply {} }
control D(packet_out pkt, in headers_t hdr) { apply { pkt.emit(hdr.h); } }
V1Switch(P(), VC(), I(), E(), CC(), D()) main;
"#;

/// The program in the IR text form.
fn printed() -> String {
    let include = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../p4include");
    let c = p4_sema::compile_str("t.p4", PROGRAM, &[include]);
    let d = c.render_diagnostics();
    p4_ir::printer::print_program(&c.program.unwrap_or_else(|| panic!("{d}")))
}

/// `printed()` with the first `old` replaced by `new`.
fn edited(old: &str, new: &str) -> String {
    let text = printed();
    assert!(text.contains(old), "`{old}` is not in the printed program:\n{text}");
    text.replacen(old, new, 1)
}

/// The reader's error for `text`: `file:line:col: message`.
fn refusal(text: &str) -> String {
    match p4_ir::text::parse_program("t.p4ir", text) {
        Ok(_) => panic!("accepted:\n{text}"),
        Err(e) => e.to_string(),
    }
}

/// Line (1-based) of the first line of `text` containing `needle`.
fn line_of(text: &str, needle: &str) -> usize {
    text.lines().position(|l| l.contains(needle)).unwrap_or_else(|| panic!("no line with `{needle}`")) + 1
}

#[test]
fn the_unedited_program_reads_back() {
    let text = printed();
    let p = p4_ir::text::parse_program("t.p4ir", &text).expect("reads back");
    assert_eq!(p4_ir::printer::print_program(&p), text);
}

#[test]
fn nesting_deeper_than_the_bound_is_an_error_not_a_stack_overflow() {
    let bound = p4_ir::text::MAX_NESTING as usize;
    assert_eq!(bound, 250);
    let rhs = "hdr.h.acc + add.amount";
    for deep in ["~".repeat(20_000) + "add.amount", "(".repeat(10_000) + "add.amount" + &")".repeat(10_000)] {
        let text = edited(rhs, &deep);
        let line = line_of(&text, &deep[..50]);
        // The statement is one level and each operand one more: the 250th operand is refused.
        let first = text.lines().nth(line - 1).unwrap().find(&deep[..1]).unwrap() + 1;
        let col = first + bound - 1;
        assert_eq!(
            refusal(&text),
            format!("t.p4ir:{line}:{col}: nested too deeply (more than 250 levels of expressions, types or statements)")
        );
    }
    // Statements: `if` inside `if`.
    let ifs = "if (true) { ".repeat(300) + &"}".repeat(300);
    let text = edited("hdr.h.acc = hdr.h.acc + add.amount;", &ifs);
    assert!(refusal(&text).ends_with("nested too deeply (more than 250 levels of expressions, types or statements)"));
    // Just under the bound reads (what the front end lets through must read back).
    let text = edited(rhs, &("~".repeat(bound - 10) + "add.amount"));
    p4_ir::text::parse_program("t.p4ir", &text).expect("240 levels read");
}

#[test]
fn ids_are_bounded_by_the_declarations_and_declared_once() {
    let text = edited("table #1 I.t_copy", "table #4000000000 I.t_copy");
    let line = line_of(&text, "table #4000000000");
    assert_eq!(refusal(&text), format!("t.p4ir:{line}:10: table #4000000000 is out of range: the file declares 2 tables, numbered from #0"));

    let text = edited("table #1 I.t_copy", "table #0 I.t_copy");
    let (first, second) = (line_of(&text, "table #0 I.t_add"), line_of(&text, "table #0 I.t_copy"));
    assert_eq!(refusal(&text), format!("t.p4ir:{second}:10: table #0 is declared twice (first at {first}:10)"));

    let text = edited("action #1 I.copy", "action #0 I.copy");
    let (first, second) = (line_of(&text, "action #0 I.add"), line_of(&text, "action #0 I.copy"));
    assert_eq!(refusal(&text), format!("t.p4ir:{second}:11: action #0 is declared twice (first at {first}:11)"));
}

#[test]
fn a_file_cut_after_a_complete_block_is_refused() {
    let text = printed();
    let cut = &text[..text.find("control D").expect("the deparser")];
    let lines = cut.lines().count() + 1;
    assert_eq!(
        refusal(cut),
        format!("t.p4ir:{lines}:1: the file ends before its `package` line (the last line the IR printer writes): is it truncated?")
    );
}

#[test]
fn the_verifier_refuses_what_no_back_end_can_take_and_points_at_its_declaration() {
    // A struct that contains itself.
    let text = edited("struct meta_t { bit<8> m; }", "struct meta_t { bit<8> m; meta_t inner; }");
    let line = line_of(&text, "struct meta_t");
    assert_eq!(refusal(&text), format!("t.p4ir:{line}:1: invalid IR: type meta_t: contains itself (through inner): a value of it would be infinite"));

    // Two fields of one name.
    let text = edited("header h_t { bit<8> k;", "header h_t { bit<8> k; bit<8> k;");
    let line = line_of(&text, "header h_t");
    assert_eq!(refusal(&text), format!("t.p4ir:{line}:1: invalid IR: type h_t: has two members named k"));

    // A 48-bit value into an 8-bit field, and a literal wider than its type: at the action.
    let at_add = |text: &str| line_of(text, "action #0 I.add");
    let text = edited("hdr.h.acc = hdr.h.acc + add.amount;", "hdr.h.acc = 48w5;");
    assert_eq!(
        refusal(&text),
        format!("t.p4ir:{}:3: invalid IR: control I, action I.add: `48w5` has type bit<48> but the assignment target's type is bit<8>", at_add(&text))
    );
    let text = edited("hdr.h.acc = hdr.h.acc + add.amount;", "hdr.h.acc = 8w300;");
    assert_eq!(refusal(&text), format!("t.p4ir:{}:3: invalid IR: control I, action I.add: constant 300 does not fit its type bit<8>", at_add(&text)));

    // `extract` into a header of another type than it reads.
    let text = edited("pkt.extract<h_t>(out hdr.h);", "pkt.extract<meta_t>(out hdr.h);");
    let line = line_of(&text, "parser P");
    assert_eq!(
        refusal(&text),
        format!("t.p4ir:{line}:1: invalid IR: parser P, state start: `hdr.h` has type h_t but packet_in.extract's type argument is meta_t")
    );
}
