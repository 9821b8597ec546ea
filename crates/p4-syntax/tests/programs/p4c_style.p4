// Idioms common in p4c-style test programs (generic structs, abstract methods, value sets, ...).
#include <core.p4>
#define V1MODEL_VERSION 20200408
#include <v1model.p4>
struct Empty {};
enum E { A, B, C };
const int cst = ...;
struct S<T> { T b; }
struct H2<G> { S<G> g; bit<1> invalid; }
struct H4<T> { T x; }
struct H3<T> { H2<T> h2; H4<H2<T>> h3; }
header GH<T> { T data; }
typedef GH<bit<32>> GH32;
extern Virtual {
    Virtual();
    void run(in bit<16> ix);
    @synchronous(run) abstract bit<16> f(in bit<16> ix);
}
control c(inout bit<16> p) {
    Virtual() cntr = {
        bit<16> f(in bit<16> ix) {
            return (ix + 1);
        }
    };
    @name(".a") @noWarn("unused") action a(@name("x") bit<16> x_1) { p = x_1; }
    table t {
        key = { p : exact @name("p") ; }
        actions = { a(); @defaultonly NoAction(); }
        const default_action = NoAction();
        const entries = {
            16w1 : a(16w2);
            (16w2) : a(16w3);
        }
    }
    apply {
        cntr.run(6);
        if (!(p == 1)) { p = (bit<16>)-1; }
        H3<bit<8>> h3;
        h3.h3.x.g.b = 8w1;
        bool hasReturned = false;
        switch (t.apply().action_run) {
            a: NoAction: { }
        }
        p = p |+| 1 ;
        p = 16w0 - 1;
        p = (p > 3 ? p : 3) >> 1;
        p = p[15:8] ++ p[7:0];
        log_msg("p={}", {p});
        log_msg<bit<16>>("p={}", p);
    }
}
parser prs(packet_in b, out Empty e) {
    value_set<tuple<bit<8>, bit<16>>>(4) pvs;
    state start {
        transition select(b.lookahead<bit<8>>(), 16w0) {
            pvs: accept;
            (8w0 .. 8w7, 16w0 &&& 16w0xff): next;
            (_, _): reject;
        }
    }
    state next {
        verify(true, error.NoError);
        transition select(b.lookahead<bit<8>>()[3:0]) {
            4w0: accept;
            default: reject;
        }
    }
}
control ctype(inout bit<16> p);
package top(ctype c);
top(c()) main;
