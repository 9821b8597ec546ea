// Every construct of the P4_16 v1.2.5 grammar at least once (parser test input, not a valid
// program for sema).
#include <core.p4>

@pragma my_pragma a b c
const int<8> SIGNED = -8s5;
const bit<32> BIG = 32w0xFFFF_FFFF;
const bit<8> BIN = 8w0b1010_1010 | 8w0o17 ^ 8w0d9 & 0;
const int ARB = 1_000_000_000_000_000_000_000;
const string S = "escaped \" quote \\ and\nnewline";
const bool B = true || !false && (1 == 2 || 3 != 4);

typedef bit<8> byte_t;
type bit<16> port_t;
typedef tuple<bit<8>, tuple<bit<16>, bool>> nested_t;
typedef header hdr_in_typedef { bit<8> f; } hdr_alias_t;
typedef int<4> nibble_t;

enum Color { Red, Green, Blue, }
enum bit<8> Op { Add = 1, Sub = 2, Mul = 3 }
error { MyError, OtherError }
match_kind { range_kind, optional }

@controller_header("packet_in")
header H {
    @name("my_f") bit<8> f;
    varbit<(8 * 4)> v;
    bit<(BIG >> 24)> computed;
}
header_union U { H h1; H h2; }
struct Pair<T1, T2> { T1 first; T2 second; }
struct Meta { Pair<bit<8>, bool> p; H[4] stack; list<bit<8>> l; }

extern Checksum<W> {
    Checksum();
    Checksum(bit<32> seed);
    void add<T>(in T data);
    W get();
    @deprecated("use get") W finish();
    abstract void on_done(in W value);
}
extern Fwd;
extern T identity<T>(in T x);
extern void log_msg<T>(string fmt, in T data);
extern bit<32> plain_extern(in bit<32> a, @optional in bit<32> b);

bit<8> twice(in bit<8> x) {
    return x + x;
}
T pick<T>(in bool c, in T a, in T b) {
    if (c)
        return a;
    else
        return b;
}

parser P<HT>(packet_in pkt, out HT hdr);
control C<MT>(inout MT m);
package Top<HT, MT>(P<HT> p, C<MT> c = C2());

parser MyP(packet_in pkt, out H hdr)(bit<8> ctor_arg) {
    value_set<bit<16>>(4) vs;
    value_set<tuple<bit<8>, bit<8>>>(2) vs2;
    bit<8> local = 0;
    const bit<8> K = 2;
    Checksum<bit<16>>() ck;
    @name("start") state start {
        pkt.extract(hdr);
        pkt.extract<H>(hdr);
        bit<8> la = pkt.lookahead<bit<8>>();
        {
            local = la;
        }
        if (la == 0) {
            local = 1;
        }
        transition select(hdr.f, local) {
            (0x00 &&& 0xF0, 1 .. 5): next;
            (vs, _): accept;
            (default, 7): reject;
            default: .accept;
        }
    }
    state next {
        transition select(hdr.f) {
            vs: accept;
            0 &&& 1: accept;
            (0 &&& 1): accept;
            ((bit<8>)2): accept;
        }
    }
    state empty_state {
    }
}

control MyC(inout Meta m, inout H h) {
    Checksum<bit<16>>(32w1) ck = {
        void on_done(in bit<16> value) {
            this.get();
        }
    };
    action a0() {}
    action a1(bit<8> x, in bit<8> y) {
        h.f = x + y;
    }
    @name("t") table t {
        key = {
            h.f : exact @name("f");
            m.p.first & 0xF : ternary;
            h.computed : range_kind;
        }
        actions = {
            a0;
            .a1;
            @tableonly a1(1, 2);
        }
        default_action = a1(1, 2);
        const size = 32;
        largest_priority_wins = false;
        @annot entries = {
            const priority = 10: (1, _, 2 .. 3) : a1(1, 2);
            (_, 0x1 &&& 0xF, default) : a0() @entry_annot;
            priority = (5 + 5): (3, 4, 5) : a0;
        }
    }
    apply {
        bit<8> x;
        Checksum<bit<16>>() local_ck;
        @name("lc2") Checksum<bit<16>>(32w2) local_ck2;
        bit<8> y = 8w1;
        int<8> z = (int<8>)-1;
        x = y;
        x += 1;
        x -= 1;
        x *= 2;
        x /= 2;
        x %= 3;
        x &= 0xF;
        x |= 0x1;
        x ^= 0x2;
        x <<= 1;
        x >>= 1;
        x |+|= 1;
        x |-|= 1;
        x = y |+| 1 |-| 2;
        x = y[7:4] ++ y[3:0];
        x = (bit<8>)(y >> 2) + (bit<8>)z;
        x = y[0 +: 4] ++ 4w0;
        x = -x;
        x = ~x;
        x = +x;
        x = x > 1 ? (x < 3 ? 8w1 : 8w2) : 8w3;
        m.stack[0].setValid();
        m.stack.push_front(1);
        m.stack.next.f = 0;
        m.stack[1] = {#};
        h = {#};
        m.p = { first = 1, second = true };
        m.p = { 2, false };
        m.p = (Pair<bit<8>, bool>) { first = 3, second = false };
        m.l = { 1, 2, ... };
        Pair<bit<8>, bool> partial = { first = 1, ... };
        bool isv = h.isValid();
        x = (bit<8>)H.minSizeInBits();
        x = (bit<8>)h.minSizeInBytes();
        x = (bit<8>)bit<8>.minSizeInBits();
        error e = error.MyError;
        Color c = Color.Red;
        x = (bit<8>)Op.Add;
        x = identity<bit<8>>(x);
        x = identity(x);
        x = pick(true, x, y);
        x = plain_extern(b = 1, a = 2)[7:0];
        log_msg("x = {}", { x });
        t.apply();
        if (t.apply().hit) {
            a0();
        } else if (t.apply().miss) {
            a1(1, y);
        }
        switch (t.apply().action_run) {
            a0:
            a1: {
                x = 1;
            }
            default: {
            }
        }
        switch (x) {
            1: {
                x = 2;
            }
            2:
            default: {
            }
        }
        for (bit<8> i = 0, bit<8> j = 1; i < 8; i = i + 1, j = j << 1) {
            if (i == 3) {
                continue;
            }
            if (i == 5) {
                break;
            }
        }
        for (; ; ) {
            break;
        }
        for (bit<8> i in 0 .. 7) {
            x = x + i;
        }
        @unroll for (bit<8> v in m.l) {
            x = x + v;
        }
        ;
        @atomic {
            x = 0;
        }
        MyC2.apply(m);
        exit;
        return;
    }
}

control MyC2(inout Meta m) {
    apply {
    }
}

control C2<MT>(inout MT m) {
    apply {
    }
}

Top(MyP(8w1), MyC2()) main;
