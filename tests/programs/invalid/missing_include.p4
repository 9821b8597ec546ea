// error: nothere.p4
// An #include of a file that does not exist.
#include <v1model.p4>
#include "nothere.p4"
