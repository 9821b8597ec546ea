control Apply<T>(inout bit<8> x)(bit<8> T) {
    apply { }
}
extern void g<U>(in U U);
bit<8> f<V>(in bit<8> V) { return V; }
