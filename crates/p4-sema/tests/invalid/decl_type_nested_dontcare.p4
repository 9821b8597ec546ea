struct Pair<T> { T first; T second; }
const Pair<_> p = { first = 8w1, second = 8w2 };
control c() {
    apply {
        tuple<bit<8>, _> t = { 1, 2 };
    }
}
