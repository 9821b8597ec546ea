#include <core.p4>
const bool b = { 1, 2 } == { 1, 2 };
