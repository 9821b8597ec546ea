"""p4runtime-shell against a p4forge P4Runtime server, as a user scripts it.

Pushes the program and its p4info, inserts COUNT (default 1,000) exact and COUNT ternary entries,
reads them back (they must be the messages written, byte for byte, once the values the shell pads
to their field's width are in P4Runtime's canonical form, which is how a server returns them),
modifies and deletes half of the exact ones each, sets and resets the
default action, checks that a duplicate insert gets ALREADY_EXISTS, that a controller with a lower
election id may not write and that a higher one takes over. Prints one JSON line of counts; any
failed check exits 1 with the reason.

Usage: python shell_tables.py ADDR P4INFO PROGRAM [COUNT]
"""

import json
import sys

import grpc
import p4runtime_sh.shell as sh
from p4.v1 import p4runtime_pb2
from p4runtime_sh.p4runtime import P4RuntimeClient, P4RuntimeWriteException

ALREADY_EXISTS = 6


def check(condition, what):
    if not condition:
        print("FAILED: " + what, file=sys.stderr)
        sys.exit(1)


def exact_entry(i):
    te = sh.TableEntry("I.mac")(action="I.set_port")
    te.match["h.eth.dst"] = "0x00005e%06x" % i
    te.action["port"] = str(i % 8 + 1)
    return te


def ternary_entry(i):
    te = sh.TableEntry("I.acl")(action="I.set_port")
    te.match["h.ipv4.dst"] = "0x%08x&&&0xffffff00" % (0x0A000000 + (i << 8))
    te.priority = i + 1
    te.action["port"] = str(i % 4 + 10)
    return te


def canonical(value):
    """A byte string in P4Runtime's canonical form: no leading zero bytes, at least one byte."""
    return value.lstrip(b"\0") or b"\0"


def written(te):
    """The serialized entry `te` sends, with its values canonical."""
    msg = te.msg().__class__()
    msg.CopyFrom(te.msg())
    for m in msg.match:
        kind = m.WhichOneof("field_match_type")
        if kind in ("exact", "optional"):
            getattr(m, kind).value = canonical(getattr(m, kind).value)
        elif kind == "lpm":
            m.lpm.value = canonical(m.lpm.value)
        elif kind == "ternary":
            m.ternary.value = canonical(m.ternary.value)
            m.ternary.mask = canonical(m.ternary.mask)
        elif kind == "range":
            m.range.low = canonical(m.range.low)
            m.range.high = canonical(m.range.high)
    for p in msg.action.action.params:
        p.value = canonical(p.value)
    return msg.SerializeToString()


def read_all(table):
    return sorted(e.msg().SerializeToString() for e in sh.TableEntry(table).read())


def main():
    addr, p4info, program = sys.argv[1:4]
    count = int(sys.argv[4]) if len(sys.argv) > 4 else 1000
    half = count // 2
    sh.setup(device_id=0, grpc_addr=addr, election_id=(0, 1), config=sh.FwdPipeConfig(p4info, program), verbose=False)

    exact = [exact_entry(i) for i in range(count)]
    ternary = [ternary_entry(i) for i in range(count)]
    for te in exact + ternary:
        te.insert()
    check(read_all("I.mac") == sorted(written(te) for te in exact), "exact entries read back as written")
    check(read_all("I.acl") == sorted(written(te) for te in ternary), "ternary entries read back as written")

    try:
        exact[0].insert()
        check(False, "a duplicate insert was accepted")
    except P4RuntimeWriteException as e:
        check([err.canonical_code for _, err in e.errors] == [ALREADY_EXISTS], "duplicate insert: ALREADY_EXISTS, got %s" % e)

    for te in exact[:half]:
        te.action["port"] = "99"
        te.modify()
    for te in exact[half:]:
        te.delete()
    check(read_all("I.mac") == sorted(written(te) for te in exact[:half]), "modified entries read back, deleted ones gone")

    default = sh.TableEntry("I.mac")(action="I.set_port")
    default.is_default = True
    default.action["port"] = "5"
    default.modify()
    got = [e.msg() for e in sh.TableEntry("I.mac")(is_default=True).read()]
    check(len(got) == 1 and got[0].action.action.params[0].value == b"\x05", "default entry set to set_port(5)")
    reset = sh.TableEntry("I.mac")
    reset.is_default = True
    reset.modify()
    got = [e.msg() for e in sh.TableEntry("I.mac")(is_default=True).read()]
    check(len(got) == 1 and not got[0].action.action.params, "default entry reset to the program's drop()")

    # A backup controller (lower election id) may not write; a higher one becomes primary.
    backup = P4RuntimeClient(0, addr, (0, 0))
    update = p4runtime_pb2.Update(type=p4runtime_pb2.Update.INSERT)
    update.entity.table_entry.CopyFrom(exact[half + half // 2].msg())
    try:
        backup.write_update(update)
        check(False, "a backup controller wrote")
    except grpc.RpcError as e:
        check(e.code() == grpc.StatusCode.PERMISSION_DENIED, "backup write: PERMISSION_DENIED, got %s" % e.code())
    primary = P4RuntimeClient(0, addr, (0, 2))
    primary.write_update(update)
    try:
        exact[half + half // 2 + 1].insert()
        check(False, "the old primary still wrote")
    except grpc.RpcError as e:
        check(e.code() == grpc.StatusCode.PERMISSION_DENIED, "old primary write: PERMISSION_DENIED, got %s" % e.code())
    entries = len(read_all("I.mac")) + len(read_all("I.acl"))
    for c in (backup, primary):
        c.tear_down()
    sh.teardown()
    print(json.dumps({"inserted": 2 * count, "modified": half, "deleted": count - half, "entries_after": entries}))


if __name__ == "__main__":
    main()
