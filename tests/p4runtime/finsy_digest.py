"""finsy against a p4forge P4Runtime switch with a CPU port: it configures the program's digest,
sends a packet-out whose frame makes the program send a digest, receives the digest list and
acknowledges it. The same frame before the acknowledgement sends nothing (the data is in a list not
yet acknowledged); after it, the digest comes again.

Usage: python finsy_digest.py ADDR P4INFO PROGRAM, against `p4forge switch --p4runtime ADDR
--cpu-port 64` and the CPU fixture. Prints one JSON line; exits 1 on a failed check.
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


# Ethernet: destination, source 00:00:5e:00:01:01, IPv4.
FRAME = bytes.fromhex("00005e000009" "00005e000101" "0800")
SOURCE = 0x00005E000101


async def main():
    addr, p4info, program = sys.argv[1:4]
    options = fy.SwitchOptions(p4info=Path(p4info), p4blob=Path(program), device_id=0)
    async with fy.Switch("p4forge", addr, options) as sw:
        # One consumer of finsy's digest iterator, so that waiting with a timeout never cancels it.
        lists = asyncio.Queue()

        async def consume():
            async for digest_list in sw.read_digests("learn_t"):
                await lists.put(digest_list)

        consumer = asyncio.create_task(consume())
        await asyncio.sleep(0)
        await sw.write([+fy.P4DigestEntry("learn_t", max_list_size=1, max_timeout_ns=0, ack_timeout_ns=60 * 10**9)])
        packet_out = fy.P4PacketOut(FRAME, egress_port=3, _pad=0)

        await sw.write([packet_out])
        first = await asyncio.wait_for(lists.get(), 10)
        check(first.digest_id == "learn_t", "the list is of digest learn_t, not %r" % first.digest_id)
        check(list(first) == [{"src": SOURCE, "port": 3}], "its data: src and port, got %r" % list(first))

        await sw.write([packet_out])
        try:
            again = await asyncio.wait_for(lists.get(), 0.5)
        except asyncio.TimeoutError:
            again = None
        check(again is None, "nothing comes again before the acknowledgement, got %r" % (again,))

        await sw.write([first.ack()])
        await sw.write([packet_out])
        second = await asyncio.wait_for(lists.get(), 10)
        check(list(second) == list(first), "after the acknowledgement the same data comes again")
        check(second.list_id != first.list_id, "in a new list")
        consumer.cancel()
        print(json.dumps({"digest": first.digest_id, "data": list(first), "lists": [first.list_id, second.list_id]}))


if __name__ == "__main__":
    asyncio.run(main())
