#include <core.p4>
extern Thing { void Thing(); }
