#include <core.p4>
struct S2 {
bit<8> a;
S3 b;
} header H {
error e;
}
