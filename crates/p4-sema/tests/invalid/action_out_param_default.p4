control c() {
    action a(out bit<16> r = 16w3) { }
    apply { }
}
bit<8> f(inout bit<8> x = 1) { return x; }
