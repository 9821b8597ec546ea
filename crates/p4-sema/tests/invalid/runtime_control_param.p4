#include <core.p4>
control inner(); control c(inner i) { apply { } }
