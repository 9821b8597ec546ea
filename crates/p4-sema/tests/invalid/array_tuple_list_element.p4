#include <core.p4>
extern E<T> { E(list<tuple<list<bit<8>>, T>> data); }
