// Extern constructors overloaded with the same number of parameters, told apart by the argument
// names; an extern instance (a nested instantiation or a named one) as a constructor argument.
#include <core.p4>
enum Algo { CRC16, CRC32 }
extern Poly<T> { Poly(T coeff); }
extern Digest<W> {
    Digest(Algo algo);
    Digest(Poly<_> poly);
    Digest(string formula);
    W get<D>(in D data);
}
control Pipe<H>(inout H h);
package Top<H>(Pipe<H> p);
header h_t { bit<8> a; bit<32> d; }
struct hdrs_t { h_t h; }
control MyPipe(inout hdrs_t hdr) {
    Poly(16w0x1021) ccitt;
    Digest<bit<32>>(algo = Algo.CRC32) by_algo;
    Digest<bit<32>>(poly = Poly(coeff = 32w0x04C11DB7)) by_nested;
    Digest<bit<32>>(poly = ccitt) by_name;
    Digest<bit<32>>(formula = "x + 1") by_formula;
    apply { hdr.h.d = by_algo.get(hdr.h.a); }
}
Top(MyPipe()) main;
