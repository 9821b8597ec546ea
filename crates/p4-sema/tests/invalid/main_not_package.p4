#include <core.p4>
extern Thing { Thing(); } Thing() main;
