#include <core.p4>
control D() {
apply {} } control C() {
action a() {
D() d;
} apply {} }
