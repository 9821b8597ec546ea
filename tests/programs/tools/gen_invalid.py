"""Writes tests/programs/invalid/*.p4: complete v1model programs with exactly one
error each.  Line 1 of every file is `// error: <fragment>`, a piece of the
message a checker is expected to print.

    python3 tests/programs/tools/gen_invalid.py
"""
import os

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'invalid')

SKELETON = """// error: {fragment}
// {why}
#include <core.p4>
#include <v1model.p4>

header h_t {{
    bit<8>  a;
    bit<8>  b;
    bit<16> w;
}}
struct headers_t {{
    h_t h;
}}
struct meta_t {{
    bit<8> m;
}}
{decls}
parser P(packet_in pkt, out headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {{
{parser}
}}

control VC(inout headers_t hdr, inout meta_t meta) {{
    apply {{ }}
}}

control I(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {{
{ingress_locals}
    apply {{
{ingress}
    }}
}}

control E(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {{
    apply {{ }}
}}

control CC(inout headers_t hdr, inout meta_t meta) {{
    apply {{ }}
}}

control D(packet_out pkt, in headers_t hdr) {{
    apply {{
        pkt.emit(hdr.h);
    }}
}}

{main}
"""

PARSER = """    state start {
        pkt.extract(hdr.h);
        transition accept;
    }"""
MAIN = 'V1Switch(P(), VC(), I(), E(), CC(), D()) main;'


def write(name, fragment, why, decls='', parser=PARSER, ingress_locals='', ingress='        sm.egress_spec = 1;',
          main=MAIN):
    text = SKELETON.format(fragment=fragment, why=why, decls=decls, parser=parser,
                           ingress_locals=ingress_locals, ingress=ingress, main=main)
    with open(os.path.join(OUT, name + '.p4'), 'w') as f:
        f.write(text)


write('undeclared_name', 'undeclared', 'A name that is never declared.',
      ingress='        hdr.h.a = nowhere;')
write('unknown_field', 'no field', 'A header has no such field.',
      ingress='        hdr.h.c = 1;')
write('width_mismatch_assign', 'bit<16>', 'bit<16> cannot be assigned to bit<8> without a cast.',
      ingress='        hdr.h.a = hdr.h.w;')
write('width_mismatch_binop', 'bit<8>', 'Operands of + must have the same width.',
      ingress='        hdr.h.w = hdr.h.a + hdr.h.w;')
write('assign_to_in_param', 'in', 'An `in` parameter is read-only.',
      decls='''
control Inc(in bit<8> x) {
    apply {
        x = x + 1;
    }
}
''', ingress_locals='    Inc() inc;', ingress='        inc.apply(hdr.h.a);')
write('assign_to_const', 'l-value', 'Constants cannot be assigned.',
      decls='const bit<8> LIMIT = 10;\n', ingress='        LIMIT = 11;')
write('out_arg_not_lvalue', 'l-value', 'An `out` argument must be something assignable.',
      decls='''
void set1(out bit<8> x) {
    x = 1;
}
''', ingress='        set1(hdr.h.a + 1);')
write('bool_arithmetic', 'bool', 'Arithmetic on bool is not defined.',
      ingress='        bool x = true + false;')
write('signed_shift_amount', 'shift', 'A shift amount must be unsigned.',
      ingress='        int<8> n = 2;\n        hdr.h.a = hdr.h.a << n;')
write('slice_out_of_range', 'slice', 'Bits 8..0 do not exist in a bit<8>.',
      ingress='        hdr.h.b = (bit<8>)hdr.h.a[8:1];')
write('if_not_bool', 'bool', 'An if condition must be bool, not bit<8>.',
      ingress='        if (hdr.h.a) {\n            sm.egress_spec = 2;\n        }')
write('set_valid_on_struct', 'setValid', 'Only headers (and header union members) have setValid.',
      ingress='        meta.setValid();')
write('stack_index_out_of_range', 'out of bounds', 'A constant index past the end of a header stack.',
      decls='''
struct stacked_t {
    h_t[2] hs;
}
''', ingress='        stacked_t s;\n        s.hs[2].a = 1;')
write('unknown_state', 'nowhere', 'A transition to a state that does not exist.',
      parser='''    state start {
        pkt.extract(hdr.h);
        transition nowhere;
    }''')
write('duplicate_state', 'start', 'Two parser states with the same name.',
      parser='''    state start {
        transition accept;
    }
    state start {
        transition accept;
    }''')
write('exit_in_parser', 'exit', '`exit` is not allowed in a parser.',
      parser='''    state start {
        exit;
        transition accept;
    }''')
write('extract_no_args', 'extract', 'packet_in.extract needs a header argument.',
      parser='''    state start {
        pkt.extract();
        transition accept;
    }''')
write('select_arity', 'keyset has 3 components', 'A keyset with 3 elements for a 2-element select.',
      parser='''    state start {
        pkt.extract(hdr.h);
        transition select(hdr.h.a, hdr.h.b) {
            (1, 2, 3): accept;
            default: accept;
        }
    }''')
write('verify_non_error', 'error', 'verify() takes an error as its second argument.',
      parser='''    state start {
        pkt.extract(hdr.h);
        verify(hdr.h.a == 1, 8w3);
        transition accept;
    }''')
write('duplicate_declaration', 'duplicate', 'Two top-level declarations with one name.',
      decls='const bit<8> X = 1;\nconst bit<8> X = 2;\n')
write('duplicate_field', 'duplicate', 'A header with two fields of one name.',
      decls='header twice_t {\n    bit<8> f;\n    bit<8> f;\n}\n')
write('header_with_header_field', 'header', 'A header cannot contain a header (structs of bit<W>/int<W>/bool/enum fields are fine).',
      decls='header inner_t {\n    bit<8> x;\n}\nheader bad_t {\n    inner_t i;\n}\n')
write('unknown_match_kind', 'fuzzy', 'A table key with a match kind nobody declared.',
      ingress_locals='''    table t {
        key = { hdr.h.a: fuzzy; }
        actions = { NoAction; }
    }''', ingress='        t.apply();')
write('default_action_not_listed', 'default', 'The default action must be one of the table\'s actions.',
      ingress_locals='''    action a1() { }
    action a2() { }
    table t {
        key = { hdr.h.a: exact; }
        actions = { a1; }
        default_action = a2();
    }''', ingress='        t.apply();')
write('directionless_before_directional', 'direction',
      'Directionless (control-plane) action parameters must come after directional ones.',
      ingress_locals='''    action a(bit<8> v, inout bit<8> x) {
        x = v;
    }''', ingress='        a(1, hdr.h.a);')
write('action_missing_argument', 'argument', 'A direct action call must supply every parameter.',
      ingress_locals='''    action set(bit<8> v) {
        hdr.h.a = v;
    }''', ingress='        set();')
write('hit_on_non_table', 'hit', '`.hit` exists only on the result of a table apply.',
      ingress='        if (hdr.h.isValid().hit) {\n            sm.egress_spec = 2;\n        }')
write('missing_return', 'return', 'A function returning bit<8> whose end can be reached.',
      decls='''
bit<8> pick(in bit<8> x) {
    if (x > 3) {
        return x;
    }
}
''', ingress='        hdr.h.a = pick(hdr.h.b);')
write('recursion', 'recurs', 'Functions may not call themselves.',
      decls='''
bit<8> forever(in bit<8> x) {
    return forever(x);
}
''', ingress='        hdr.h.a = forever(hdr.h.b);')
write('break_outside_loop', 'break', '`break` outside a loop.',
      ingress='        break;')
write('unknown_enum_member', 'Purple', 'An enum has no such member.',
      decls='enum Color { Red, Green }\n', ingress='        Color c = Color.Purple;')
write('division_by_zero', 'zero', 'A constant division by zero.',
      decls='const bit<8> BAD = 8w10 / 8w0;\n')
write('package_wrong_block', 'Parser', 'V1Switch expects a parser first, not a control.',
      main='V1Switch(I(), VC(), I(), E(), CC(), D()) main;')
write('package_missing_argument', 'argument', 'V1Switch takes six blocks.',
      main='V1Switch(P(), VC(), I(), E(), CC()) main;')
write('extern_in_action', 'instantiations are not allowed', 'Externs cannot be instantiated inside an action.',
      ingress_locals='''    action count_it() {
        counter(4, CounterType.packets) c;
    }''', ingress='        count_it();')
write('compare_struct_order', 'numeric operands', '< is not defined on structs.',
      ingress='        meta_t x = meta;\n        if (x < meta) {\n            sm.egress_spec = 2;\n        }')
write('error_unknown_member', 'NoSuchError', 'An error code nobody declared.',
      ingress='        if (sm.parser_error == error.NoSuchError) {\n            sm.egress_spec = 2;\n        }')
write('call_undefined_method', 'frobnicate', 'A header has no method of that name.',
      ingress='        hdr.h.frobnicate();')
write('negative_width', 'width', 'bit<W> needs a positive width.',
      ingress='        bit<(-1)> x = 0;')

# ---- second batch
write('assign_in_deparser', 'read-only', 'The deparser sees its headers as `in`.',
      main='''control D2(packet_out pkt, in headers_t hdr) {
    apply {
        hdr.h.a = 1;
        pkt.emit(hdr.h);
    }
}
V1Switch(P(), VC(), I(), E(), CC(), D2()) main;''')
write('verify_in_control', 'verify', '`verify` belongs to parsers.',
      ingress='        verify(hdr.h.a == 1, error.NoMatch);')
write('stack_next_in_control', 'next', '`next` of a header stack exists only in parsers.',
      decls='struct st_t {\n    h_t[2] hs;\n}\n', ingress='        st_t s;\n        s.hs.next.a = 1;')
write('push_front_not_constant', 'constant', 'push_front needs a compile-time count.',
      decls='struct st_t {\n    h_t[2] hs;\n}\n', ingress='        st_t s;\n        s.hs.push_front(hdr.h.a);')
write('bool_from_wide_bits', 'cannot cast', 'Only bit<1> converts to bool.',
      ingress='        bool b = (bool)hdr.h.a;')
write('return_value_from_void', 'cannot return a value', 'A void function cannot return a value.',
      decls='\nvoid nothing(in bit<8> x) {\n    return x;\n}\n', ingress='        nothing(hdr.h.a);')
write('return_nothing_from_function', 'needs a value', 'A function returning bit<8> must return a value.',
      decls='\nbit<8> something(in bit<8> x) {\n    return;\n}\n', ingress='        hdr.h.a = something(hdr.h.b);')
write('action_arg_type', 'bit<16>', 'A bit<16> argument for a bit<8> parameter.',
      ingress_locals='''    action set(bit<8> v) {
        hdr.h.a = v;
    }''', ingress='        set(hdr.h.w);')
write('const_entry_missing_arg', 'argument', 'A const entry must give every control-plane argument.',
      ingress_locals='''    action set(bit<8> v) {
        hdr.h.a = v;
    }
    table t {
        key = { hdr.h.b: exact; }
        actions = { set; NoAction; }
        const entries = {
            1 : set();
        }
        default_action = NoAction();
    }''', ingress='        t.apply();')
write('const_entry_not_constant', 'compile-time constant', 'Keys of const entries must be compile-time constants.',
      ingress_locals='''    table t {
        key = { hdr.h.b: exact; }
        actions = { NoAction; }
        const entries = {
            hdr.h.a : NoAction();
        }
        default_action = NoAction();
    }''', ingress='        t.apply();')
write('duplicate_action_in_list', 'appears twice', 'An action listed twice in one table.',
      ingress_locals='''    table t {
        key = { hdr.h.b: exact; }
        actions = { NoAction; NoAction; }
        default_action = NoAction();
    }''', ingress='        t.apply();')
write('register_value_type', 'bit<16>', 'A register of bit<8> read into a bit<16> variable.',
      ingress_locals='    register<bit<8>>(4) r;', ingress='        r.read(hdr.h.w, 0);')
write('mark_to_drop_wrong_arg', 'standard_metadata_t', 'mark_to_drop takes the standard metadata.',
      ingress='        mark_to_drop(meta);')
write('enum_different_types', 'Color', 'Values of two different enum types cannot be compared.',
      decls='enum Color { Red, Green }\nenum Shape { Round, Square }\n',
      ingress='        Color c = Color.Red;\n        Shape s = Shape.Round;\n        if (c == s) {\n            sm.egress_spec = 2;\n        }')
write('header_equals_struct', 'meta_t', 'A header and a struct are not comparable.',
      ingress='        if (hdr.h == meta) {\n            sm.egress_spec = 2;\n        }')
write('type_used_as_value', 'not a value', 'A type name where a value is expected.',
      ingress='        hdr.h.a = h_t;')
write('transition_in_control', 'keyword `transition`', '`transition` exists only in parser states.',
      ingress='        transition accept;')
write('table_in_parser', 'tables cannot be declared', 'Tables belong to controls.',
      parser='''    table t {
        actions = { NoAction; }
    }
    state start {
        transition accept;
    }''')
write('redefine_accept', 'predefined', '`accept` and `reject` are built-in states.',
      parser='''    state start {
        transition accept;
    }
    state accept {
        transition reject;
    }''')
write('default_action_missing_args', 'argument', 'A default action must supply its control-plane arguments.',
      ingress_locals='''    action set(bit<8> v) {
        hdr.h.a = v;
    }
    table t {
        key = { hdr.h.b: exact; }
        actions = { set; }
        default_action = set();
    }''', ingress='        t.apply();')
write('conditional_int_branches', 'int', 'Both branches are arbitrary-precision ints and the condition is not '
      'known at compile time, so the width of the result cannot be inferred.',
      ingress='        hdr.h.a = hdr.h.b == 0 ? 1 : 2;')
write('int_variable', 'int', 'Variables cannot have the arbitrary-precision type int.',
      ingress='        int x = 3;\n        hdr.h.a = (bit<8>)x;')
write('varbit_in_arithmetic', 'varbit', 'varbit values support no arithmetic.',
      decls='header vb_t {\n    varbit<32> v;\n}\nstruct vbs_t {\n    vb_t x;\n}\n',
      ingress='        vbs_t s;\n        s.x.v = s.x.v + 1;')
write('string_variable', 'string', 'Strings exist only as compile-time arguments (log_msg).',
      ingress='        string s = "hello";')
write('switch_duplicate_label', 'duplicate', 'The same label twice in one switch.',
      ingress='        switch (hdr.h.a) {\n            1: { }\n            1: { }\n            default: { }\n        }')
write('table_apply_in_action', 'action', 'Tables cannot be applied from inside an action.',
      ingress_locals='''    table t {
        actions = { NoAction; }
        default_action = NoAction();
    }
    action run_t() {
        t.apply();
    }''', ingress='        run_t();')
