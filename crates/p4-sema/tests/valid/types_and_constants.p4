#include <core.p4>

typedef bit<48> mac_t;
type bit<32> ip_t;
const bit<16> ETH_IPV4 = 0x0800;
const int BIG = 1 << 70;
const bit<8> WRAP = 8w255 + 8w1;
const int<8> NEG = -8s1;
const bit<4> SLICE = (8w0xAB)[7:4];
const bool B = (BIG >> 69) == 2;
enum bit<8> Proto { TCP = 6, UDP = 17 }
enum Color { Red, Green }
header eth_t { mac_t dst; mac_t src; bit<16> type; }
header opt_t { varbit<40> data; }
header p_t { Proto p; bool flag; bit<7> pad; }
struct pair_t { bit<8> a; bit<8> b; }
struct S<T> { T x; bit<8> y; }
header_union u_t { eth_t e; p_t p; }
const pair_t P = { 1, 2 };
const pair_t Q = { b = 3, a = 4 };
const bit<8> PB = P.b;

const bool ok1 = static_assert(eth_t.minSizeInBits() == 112);
const bool ok2 = static_assert(opt_t.maxSizeInBytes() == 5 && opt_t.minSizeInBits() == 0);
const bool ok3 = static_assert(WRAP == 0 && NEG == -1 && SLICE == 0xA && B);
const bool ok4 = static_assert((bit<8>) Proto.UDP == 17);
const bool ok5 = static_assert(PB == 2 && Q.a == 4);

bit<8> twice(in bit<8> x) { return x << 1; }
bit<8> pick(in bool c, in bit<8> a, in bit<8> b) { if (c) { return a; } else { return b; } }
T ident<T>(in T x) { return x; }
bit<8> over(in bit<8> a) { return a; }
bit<8> over(in bit<8> a, in bit<8> b) { return a + b; }

control C(inout eth_t e, inout p_t p, inout pair_t pr, inout u_t u, inout eth_t[4] stack, in ip_t ip) {
    S<bit<16>> s;
    action set(bit<8> v) { pr.a = v; }
    apply {
        bit<32> raw = (bit<32>) ip;
        ip_t back = (ip_t) raw;
        pr.a = twice(pr.a) + pick(true, 1, 2) + ident(pr.b) + over(1) + over(1, 2);
        pr.b = pr.b |+| 250;
        pr.b = pr.b |-| 3;
        pr.a = (bit<8>) ((int<8>) pr.a >> 1);
        e.type = pr.a ++ pr.b;
        bit<1> bit1 = (bit<1>) true;
        bool bb = (bool) bit1;
        p.p = Proto.TCP;
        if (p.p == Proto.UDP || !bb) { p.flag = false; }
        s.x = 16w1;
        s = { 1, 2 };
        pr = { a = 1, b = 2 };
        Color c = Color.Green;
        if (c != Color.Red) { set(3); }
        stack[0].dst = 1;
        stack.push_front(1);
        stack.pop_front(2);
        u.e.setValid();
        if (u.isValid() && stack[1].isValid()) { e = stack[1]; }
        e = {#};
        tuple<bit<8>, bool> t = { 1, true };
        pr.a = pr.a[7:4] ++ pr.b[3:0];
        pr.b[0:0] = 1;
        pr.a = -pr.a;
        pr.a = ~pr.a & 0xF0 ^ 0x0F | 1;
        pr.a = pr.a * 3 - 1 + pr.a % 4 + pr.a / 2;
        bool cmp = pr.a < pr.b && pr.a >= 1 && pr == pr;
        pr.a = cmp ? 8w1 : 2;
        pr.a = pr.a << 3w2;
        e.dst = (bit<48>) stack.size;
        pr.a = (bit<8>) stack.size;
        switch (pr.a) {
            1:
            2: { pr.b = 1; }
            3: { pr.b = 3; }
            default: { }
        }
        switch (c) { Color.Red: { } Color.Green: { } }
        for (bit<8> i = 0; i < 4; i = i + 1) { if (i == 2) { break; } pr.b = pr.b + i; }
        for (bit<8> i in 1 .. 3) { pr.b = pr.b + i; }
        pr.b += 1;
        pr.b <<= 1;
    }
}
