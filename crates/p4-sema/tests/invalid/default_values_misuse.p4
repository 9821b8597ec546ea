// `{..., ...}` lists only initialize or assign.
struct Pt { bit<8> x; bit<8> y; bool on; }
Pt origin() { return { 8w0, ... }; }
extern void show(in Pt p);
control c(inout Pt p) {
    apply {
        Pt q = { x = 1, ... };
        p = { ... };
        if (q == { on = true, ... }) { p.x = 1; }
        if ({ ... } != q) { p.y = 2; }
        show({ y = 3, ... });
    }
}
