#!/usr/bin/env python3
"""Compares p4forge's p4info with another compiler's on a set of programs.

    compare_p4info.py P4FORGE DIR [--show N]

DIR holds pairs `NAME.p4` and `NAME.p4info.txtpb` (the other compiler's p4info in text form, e.g.
`p4c --p4runtime-files NAME.p4info.txtpb`). For each pair, `P4FORGE compile NAME.p4
--p4runtime-files` writes ours, and the two are compared on what controllers depend on: every
object's kind, id and name; each table's match fields (id, name, bit width, match type); each
action's parameters (id, name, bit width). A program p4forge does not compile is counted apart.
Prints one line per program that differs (the first difference) and the totals; exits 0.

Needs the `p4runtime` Python package (the P4Runtime protobuf messages), as in `.venv-p4rt-shell`.
"""

import argparse
import os
import subprocess
import sys
import tempfile

from google.protobuf import text_format
from p4.config.v1 import p4info_pb2

KINDS = [
    "tables", "actions", "action_profiles", "counters", "direct_counters", "meters",
    "direct_meters", "controller_packet_metadata", "value_sets", "registers", "digests",
]


def load(path):
    info = p4info_pb2.P4Info()
    with open(path, encoding="utf-8") as f:
        text_format.Parse(f.read(), info, allow_unknown_field=True)
    return info


def summary(info):
    """What controllers depend on, as comparable values."""
    objects = sorted((kind, o.preamble.id, o.preamble.name) for kind in KINDS for o in getattr(info, kind))
    fields = {
        t.preamble.name: [(m.id, m.name, m.bitwidth, m.WhichOneof("match") and (m.match_type or m.other_match_type)) for m in t.match_fields]
        for t in info.tables
    }
    params = {a.preamble.name: [(p.id, p.name, p.bitwidth) for p in a.params] for a in info.actions}
    return objects, fields, params


def first_difference(ours, theirs):
    (o_obj, o_fields, o_params), (t_obj, t_fields, t_params) = ours, theirs
    if o_obj != t_obj:
        only_ours = sorted(set(o_obj) - set(t_obj))[:3]
        only_theirs = sorted(set(t_obj) - set(o_obj))[:3]
        return f"objects differ: only ours {only_ours}, only theirs {only_theirs}"
    for name in sorted(t_fields):
        if o_fields.get(name) != t_fields[name]:
            return f"table {name}: match fields ours {o_fields.get(name)}, theirs {t_fields[name]}"
    for name in sorted(t_params):
        if o_params.get(name) != t_params[name]:
            return f"action {name}: parameters ours {o_params.get(name)}, theirs {t_params[name]}"
    return None


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("p4forge")
    parser.add_argument("dir")
    args = parser.parse_args()
    names = sorted(n[: -len(".p4info.txtpb")] for n in os.listdir(args.dir) if n.endswith(".p4info.txtpb"))
    same = differ = refused = 0
    with tempfile.TemporaryDirectory() as tmp:
        for name in names:
            source = os.path.join(args.dir, name)
            if not os.path.exists(source):
                continue
            out = os.path.join(tmp, name + ".txtpb")
            run = subprocess.run([args.p4forge, "compile", source, "--p4runtime-files", out], capture_output=True, text=True)
            if run.returncode != 0:
                refused += 1
                first = (run.stderr.strip().splitlines() or ["(no message)"])[0]
                print(f"{name}: p4forge does not compile it: {first}")
                continue
            difference = first_difference(summary(load(out)), summary(load(source + ".p4info.txtpb")))
            if difference is None:
                same += 1
            else:
                differ += 1
                print(f"{name}: {difference}")
    compared = same + differ
    share = 100.0 * same / compared if compared else 0.0
    print(f"{compared} programs compared: {same} equal ({share:.1f}%), {differ} differ; {refused} not compiled by p4forge")
    return 0


if __name__ == "__main__":
    sys.exit(main())
