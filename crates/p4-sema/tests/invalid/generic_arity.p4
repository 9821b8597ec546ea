#include <core.p4>
extern E<T> {
E();
} control C() {
E<bit<8>, bit<8>>() e;
apply {} }
