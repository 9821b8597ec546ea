extern Counter2 {
    Counter2();
    int total();
    abstract int limit();
}
extern int magic();
