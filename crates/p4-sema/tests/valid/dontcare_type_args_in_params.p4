// `_` may stand for a type argument in parameter types of generic blocks.
control Stage<A, B>(inout A a, inout B b);
package Pipe<T>(Stage<T, _> first, Stage<_, T> second);
