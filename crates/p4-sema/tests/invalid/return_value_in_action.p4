#include <core.p4>
action a() {
return 1;
}
