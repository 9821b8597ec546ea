// placeholder: being written
#include <core.p4>
