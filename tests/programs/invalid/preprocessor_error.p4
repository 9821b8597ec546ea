// error: unsupported target
// An #error directive stops compilation with its message.
#include <v1model.p4>

#ifndef TARGET_OK
#error "unsupported target"
#endif
