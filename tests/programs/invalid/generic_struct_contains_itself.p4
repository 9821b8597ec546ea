// error: `pair` contains a specialization of itself as a type argument
// A generic struct specialized with (a typedef of) its own specialization.
#include <core.p4>
struct pair<T> { T first; T second; }
typedef pair<bit<8>> byte_pair;
typedef pair<byte_pair> nested;
control C(inout bit<8> x) { apply { } }
control Proto(inout bit<8> x);
package Top(Proto c);
Top(C()) main;
