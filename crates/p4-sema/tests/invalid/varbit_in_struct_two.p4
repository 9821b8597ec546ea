#include <core.p4>
header H {
varbit<8> a;
varbit<8> b;
}
