"""finsy against a p4forge P4Runtime server: the version it sees, the pipeline it installs, an
entry written and read back, and a second session that finds the pipeline's cookie unchanged (a
COOKIE_ONLY read), so it keeps the pipeline and its entries instead of installing it again.

Usage: python finsy_session.py ADDR P4INFO PROGRAM. Prints one JSON line; exits 1 on a failed check.
"""

import asyncio
import json
import sys
from pathlib import Path

import finsy as fy


def check(condition, what):
    if not condition:
        print("FAILED: " + what, file=sys.stderr)
        sys.exit(1)


async def session(addr, options, write):
    async with fy.Switch("p4forge", addr, options) as sw:
        version = str(sw.p4info.p4runtime_version)
        if write:
            entry = fy.P4TableEntry(
                "I.mac",
                match=fy.P4TableMatch(**{"h.eth.dst": 0x00005E000001}),
                action=fy.P4TableAction("I.set_port", port=3),
            )
            await sw.write([+entry])
        entries = [e async for e in sw.read(fy.P4TableEntry("I.mac"))]
        return version, sw.is_primary, entries


async def main():
    addr, p4info, program = sys.argv[1:4]
    options = fy.SwitchOptions(p4info=Path(p4info), p4blob=Path(program), device_id=0)
    version, primary, entries = await session(addr, options, write=True)
    check(version == "1.5.0", "finsy sees P4Runtime 1.5.0, not %s" % version)
    check(primary, "the only controller is primary")
    check(len(entries) == 1, "one entry read back, got %d" % len(entries))
    check(entries[0].action.args == {"port": 3}, "its action: set_port(3), got %r" % (entries[0].action,))
    _, _, again = await session(addr, options, write=False)
    check(len(again) == 1, "the second session kept the pipeline (cookie unchanged) and its entry")
    print(json.dumps({"version": version, "entries": len(entries), "kept": len(again)}))


if __name__ == "__main__":
    asyncio.run(main())
