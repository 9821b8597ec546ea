#include <core.p4>
control c(in bit<8> k) { action a() { } table t { key = { k: exact; } actions = { a; } } apply { switch (t.apply().action_run) { 1: { } } } }
