/*
 * paxos.p4 -- Paxos consensus roles in the switch: coordinator, acceptor and
 * (optionally) learner, chosen by table entries.
 *
 * The third application of the P4FPGA chapter of the source dissertation
 * (section 3.5, Figures 3.13-3.15), written for P4_16 and v1model.  Every
 * Paxos message carries the union of the fields any role needs (a switch can
 * only rewrite the packet it holds, not craft new ones):
 *
 *   Ethernet / IPv4 / UDP (destination port 0x8888) /
 *   paxos: msgtype:8 inst:32 rnd:8 vrnd:8 swid:64 value:64
 *
 * Roles (table paxos_role, exact on msgtype; install only the entries of the
 * roles this switch plays -- see entries.txt and README.md):
 *   coordinator  REQUEST -> handle_request: stamp the next instance number
 *                (register reg_inst), round 0, turn it into a Phase 2A and
 *                multicast it to the acceptors.
 *   acceptor     1A -> handle_1a: if the round is newer than the one promised
 *                for that instance, promise it and answer with a 1B carrying
 *                the last vote (vrnd, value) and this switch's id.
 *                2A -> handle_2a: if the round is not older than the promise,
 *                vote: remember round and value, answer with a 2B to the
 *                learners.  Older rounds are dropped.
 *   learner      2B -> handle_2b: count the votes of distinct acceptors for
 *                the instance's newest round; when `quorum` of them agree,
 *                deliver the 2B once to the application port.
 * Anything that is not Paxos is passed through (table wire: bump in the wire).
 *
 * Per-instance state lives in registers indexed by inst modulo NUM_INST: the
 * history is bounded, as the dissertation discusses; instances more than
 * NUM_INST apart share a slot.
 *
 * Deviation from Figure 3.15: the figure drops a message unless its round is
 * strictly greater than the stored one, for 1A and 2A alike; Paxos lets an
 * acceptor vote in the round it promised, so here a 2A needs rnd >= stored
 * (a 1A still needs rnd > stored).
 */

#include <core.p4>
#include <v1model.p4>

#define NUM_INST 1024
#define NUM_ACCEPTORS_MAX 8

const bit<16> ETHERTYPE_IPV4 = 0x0800;
const bit<8>  IPPROTO_UDP = 17;
const bit<16> PAXOS_UDP_PORT = 0x8888;

const bit<8> MSG_REQUEST = 0;
const bit<8> MSG_1A = 1;
const bit<8> MSG_1B = 2;
const bit<8> MSG_2A = 3;
const bit<8> MSG_2B = 4;

typedef bit<32> inst_t;
typedef bit<8>  rnd_t;
typedef bit<64> value_t;

header ethernet_t {
    bit<48> dst_addr;
    bit<48> src_addr;
    bit<16> ether_type;
}

header ipv4_t {
    bit<4>  version;
    bit<4>  ihl;
    bit<8>  diffserv;
    bit<16> total_len;
    bit<16> identification;
    bit<3>  flags;
    bit<13> frag_offset;
    bit<8>  ttl;
    bit<8>  protocol;
    bit<16> hdr_checksum;
    bit<32> src_addr;
    bit<32> dst_addr;
}

header udp_t {
    bit<16> src_port;
    bit<16> dst_port;
    bit<16> length;
    bit<16> checksum;
}

header paxos_t {
    bit<8>  msgtype;
    inst_t  inst;
    rnd_t   rnd;      // proposer's round, or the round an acceptor promised
    rnd_t   vrnd;     // the round in which the acceptor last voted
    bit<64> swid;     // which acceptor sent this
    value_t value;
}

struct headers_t {
    ethernet_t ethernet;
    ipv4_t     ipv4;
    udp_t      udp;
    paxos_t    paxos;
}

struct metadata_t {
    bit<32> slot;        // register index of this instance
    rnd_t   promised;    // acceptor: round promised for this instance
    bit<1>  learn;       // handle_2b ran
    bit<8>  quorum;
}

parser PaxosParser(packet_in pkt,
                   out headers_t hdr,
                   inout metadata_t meta,
                   inout standard_metadata_t standard_metadata) {
    state start {
        pkt.extract(hdr.ethernet);
        transition select(hdr.ethernet.ether_type) {
            ETHERTYPE_IPV4: parse_ipv4;
            default: accept;
        }
    }

    state parse_ipv4 {
        pkt.extract(hdr.ipv4);
        transition select(hdr.ipv4.ihl, hdr.ipv4.protocol) {
            (5, IPPROTO_UDP): parse_udp;
            default: accept;
        }
    }

    state parse_udp {
        pkt.extract(hdr.udp);
        transition select(hdr.udp.dst_port) {
            PAXOS_UDP_PORT: parse_paxos;
            default: accept;
        }
    }

    state parse_paxos {
        pkt.extract(hdr.paxos);
        transition accept;
    }
}

control PaxosVerifyChecksum(inout headers_t hdr, inout metadata_t meta) {
    apply { }
}

/* Number of set bits. */
bit<8> popcount8(in bit<8> x) {
    return (bit<8>)x[0:0] + (bit<8>)x[1:1] + (bit<8>)x[2:2] + (bit<8>)x[3:3]
         + (bit<8>)x[4:4] + (bit<8>)x[5:5] + (bit<8>)x[6:6] + (bit<8>)x[7:7];
}

control PaxosIngress(inout headers_t hdr,
                     inout metadata_t meta,
                     inout standard_metadata_t standard_metadata) {
    // coordinator
    register<inst_t>(1) reg_inst;
    // acceptor
    register<bit<64>>(1) switch_id;
    register<rnd_t>(NUM_INST) rnds;
    register<rnd_t>(NUM_INST) vrnds;
    register<value_t>(NUM_INST) values;
    // learner
    register<rnd_t>(NUM_INST) learner_rnd;
    register<bit<NUM_ACCEPTORS_MAX>>(NUM_INST) learner_votes;
    register<bit<1>>(NUM_INST) learner_done;

    action drop() {
        mark_to_drop(standard_metadata);
    }

    action forward(bit<9> port) {
        standard_metadata.egress_spec = port;
    }

    /* Non-Paxos traffic crosses the switch unchanged. */
    table wire {
        key = { standard_metadata.ingress_port: exact; }
        actions = { forward; drop; }
        default_action = drop();
    }

    action handle_request(bit<16> acceptors) {
        inst_t next;
        reg_inst.read(next, 0);
        hdr.paxos.inst = next;
        reg_inst.write(0, next + 1);
        hdr.paxos.msgtype = MSG_2A;
        hdr.paxos.rnd = 0;
        standard_metadata.mcast_grp = acceptors;
    }

    action handle_1a(bit<9> leader_port) {
        hdr.paxos.msgtype = MSG_1B;
        vrnds.read(hdr.paxos.vrnd, meta.slot);
        values.read(hdr.paxos.value, meta.slot);
        switch_id.read(hdr.paxos.swid, 0);
        rnds.write(meta.slot, hdr.paxos.rnd);
        standard_metadata.egress_spec = leader_port;
    }

    action handle_2a(bit<16> learners) {
        hdr.paxos.msgtype = MSG_2B;
        hdr.paxos.vrnd = hdr.paxos.rnd;
        switch_id.read(hdr.paxos.swid, 0);
        rnds.write(meta.slot, hdr.paxos.rnd);
        vrnds.write(meta.slot, hdr.paxos.rnd);
        values.write(meta.slot, hdr.paxos.value);
        standard_metadata.mcast_grp = learners;
    }

    action handle_2b(bit<8> quorum, bit<9> app_port) {
        meta.learn = 1;
        meta.quorum = quorum;
        standard_metadata.egress_spec = app_port;
    }

    table paxos_role {
        key = { hdr.paxos.msgtype: exact; }
        actions = { handle_request; handle_1a; handle_2a; handle_2b; drop; }
        default_action = drop();
        size = 8;
    }

    apply {
        if (!hdr.paxos.isValid()) {
            wire.apply();
            return;
        }
        meta.learn = 0;
        meta.slot = hdr.paxos.inst & (NUM_INST - 1);    // NUM_INST is a power of two
        rnds.read(meta.promised, meta.slot);
        if (hdr.paxos.msgtype == MSG_1A && hdr.paxos.rnd <= meta.promised) {
            drop();     // already promised this round or a newer one
            return;
        }
        if (hdr.paxos.msgtype == MSG_2A && hdr.paxos.rnd < meta.promised) {
            drop();     // promised a newer round: refuse to vote
            return;
        }
        paxos_role.apply();
        // Any rewritten Paxos message leaves without a UDP checksum (allowed over IPv4).
        hdr.udp.checksum = 0;

        // Learner: the 2B is delivered (egress_spec left at app_port) only by
        // the vote that completes the quorum; every other vote is absorbed.
        if (meta.learn == 1) {
            rnd_t newest;
            bit<NUM_ACCEPTORS_MAX> votes;
            bit<1> done;
            learner_rnd.read(newest, meta.slot);
            learner_votes.read(votes, meta.slot);
            learner_done.read(done, meta.slot);
            if (done == 1 || hdr.paxos.vrnd < newest) {
                drop();     // already delivered, or a vote from an old round
                return;
            }
            if (hdr.paxos.vrnd > newest) {
                newest = hdr.paxos.vrnd;    // a newer round: start counting afresh
                votes = 0;
            }
            votes = votes | ((bit<NUM_ACCEPTORS_MAX>)1 << hdr.paxos.swid[2:0]);
            if (popcount8(votes) >= meta.quorum) {
                done = 1;   // deliver this one copy
            } else {
                drop();
            }
            learner_rnd.write(meta.slot, newest);
            learner_votes.write(meta.slot, votes);
            learner_done.write(meta.slot, done);
        }
    }
}

control PaxosEgress(inout headers_t hdr,
                    inout metadata_t meta,
                    inout standard_metadata_t standard_metadata) {
    apply { }
}

/* The IPv4 header is never changed. */
control PaxosComputeChecksum(inout headers_t hdr, inout metadata_t meta) {
    apply { }
}

control PaxosDeparser(packet_out pkt, in headers_t hdr) {
    apply {
        pkt.emit(hdr.ethernet);
        pkt.emit(hdr.ipv4);
        pkt.emit(hdr.udp);
        pkt.emit(hdr.paxos);
    }
}

V1Switch(PaxosParser(),
         PaxosVerifyChecksum(),
         PaxosIngress(),
         PaxosEgress(),
         PaxosComputeChecksum(),
         PaxosDeparser()) main;
