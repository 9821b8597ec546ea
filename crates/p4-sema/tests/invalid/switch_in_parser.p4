#include <core.p4>
parser p(in bit<8> x) { state start { switch (x) { 1: { } } transition accept; } }
