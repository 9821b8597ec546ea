/*
 * core.p4 -- the P4_16 core library, as shipped with p4forge.
 *
 * Written for p4forge from the "core library" section of the P4_16
 * language specification (v1.2.5).  Every P4_16 program includes it,
 * directly or through an architecture file such as v1model.p4.
 *
 * What lives here is exactly what the specification says every target
 * offers: the built-in error codes, the packet cursor externs used by
 * parsers and deparsers, the empty action, the three standard match
 * kinds and the compile-time assertion helper.
 */

#ifndef _CORE_P4_
#define _CORE_P4_

/* Error codes the language itself may raise.  Programs and architectures
 * may add more codes with further `error { ... }` declarations; the
 * members of all such declarations are merged into one namespace. */
error {
    NoError,               // nothing went wrong
    PacketTooShort,        // an extract or lookahead ran past the end of the packet
    NoMatch,               // no case of a select expression matched
    StackOutOfBounds,      // a header stack index (or next/last) left the stack
    HeaderTooShort,        // a varbit extract asked for more bits than the field holds
    ParserTimeout,         // the parser ran for longer than the target allows
    ParserInvalidArgument  // a parser primitive got an argument the target cannot honour
}

/* The input side of a parser: a read cursor over the received bytes. */
extern packet_in {
    /* Copy sizeof(T) bits from the cursor into `hdr`, mark it valid and
     * move the cursor past them.  T is a fixed-width header (or the next
     * element of a header stack). */
    void extract<T>(out T hdr);
    /* Same for a header holding exactly one varbit field; the second
     * argument says how many bits that field takes in this packet. */
    void extract<T>(out T variableSizeHeader, in bit<32> variableFieldSizeInBits);
    /* Read sizeof(T) bits at the cursor without moving it. */
    T lookahead<T>();
    /* Move the cursor forward by the given number of bits. */
    void advance(in bit<32> sizeInBits);
    /* Total length of the packet in bytes. */
    bit<32> length();
}

/* The output side of a deparser: an append-only byte stream. */
extern packet_out {
    /* Append `hdr` if it is a valid header; headers that are invalid are
     * skipped.  Stacks, unions and structs are emitted member by member in
     * declaration order. */
    void emit<T>(in T hdr);
}

/* Check `condition` in a parser; when it is false the parser stops and
 * moves to `reject` with `err` as the parser error. */
extern void verify(in bool condition, in error err);

/* An action that does nothing; the usual default action of a table. */
action NoAction() {}

/* The match kinds every target understands.  Architectures add their own. */
match_kind {
    exact,    // the key equals the entry's value
    ternary,  // the key equals the value in the bits selected by a mask
    lpm       // longest matching prefix wins
}

/* Compile-time assertion: compilation fails with `message` when `check`
 * is false.  It returns its argument so it can initialise a constant. */
extern bool static_assert(bool check, string message);
/* The same, with a message chosen by the compiler. */
extern bool static_assert(bool check);

#endif  /* _CORE_P4_ */
