#include <core.p4>
// An extern object factory makes its object at compile time: its arguments must be constants.
extern widget<T> { }
extern widget<T> make_widget<T>(T size);
header h_t { bit<16> f; }
control inner(inout h_t h)(widget<bit<16>> w) { apply { } }
control outer(inout h_t h) {
    inner(make_widget(h.f)) i;
    apply { i.apply(h); }
}
control ctl(inout h_t h);
package top(ctl c);
top(outer()) main;
