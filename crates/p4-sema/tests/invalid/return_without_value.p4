#include <core.p4>
bit<8> f() {
return;
}
