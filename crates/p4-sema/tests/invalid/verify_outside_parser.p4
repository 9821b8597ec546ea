#include <core.p4>
control C() {
apply {
verify(true, error.NoError);
} }
