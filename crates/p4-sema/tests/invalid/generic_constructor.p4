#include <core.p4>
extern Box { Box<T>(in T init); }
