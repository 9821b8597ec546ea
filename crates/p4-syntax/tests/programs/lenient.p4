// Constructs outside the strict grammar that p4forge accepts anyway (common in real programs).
struct s { bit<8> a;; bit<8> out; };
extern E { E(); ; void f(); };
parser p() { bit<8> x; ; state start { transition accept; } }
control c() {
    action a() {};
    table t { actions = { a; } };
    apply {};
};
