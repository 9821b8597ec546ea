"""PTF tests of the P4Runtime tables fixture (crates/p4forge/tests/fixtures/p4runtime_tables.p4)."""

import ptf.testutils as testutils
from p4forge_base import P4ForgeTest


class ExactEntryForwards(P4ForgeTest):
    """An exact entry on the destination MAC sends the packet to its port, and nowhere else."""

    def runTest(self):
        self.insert("I.mac", [(1, bytes.fromhex("00005e000001"))], "I.set_port", [b"\x04"])
        pkt = testutils.simple_tcp_packet(eth_dst="00:00:5e:00:00:01", ip_dst="11.0.0.1")
        testutils.send_packet(self, 1, pkt)
        testutils.verify_packet(self, pkt, 4)
        testutils.verify_no_other_packets(self)


class MissDrops(P4ForgeTest):
    """Without an entry the table's default action (drop) applies: nothing comes out."""

    def runTest(self):
        pkt = testutils.simple_tcp_packet(eth_dst="00:00:5e:00:00:02")
        testutils.send_packet(self, 2, pkt)
        testutils.verify_no_other_packets(self)
