"""A PTF base class for tests of a p4forge switch through P4Runtime.

Test parameters (ptf --test-params): grpc_addr (HOST:PORT), p4info (a p4info text file), config (the
program the switch is to run: P4 source or p4forge IR text), device_id (default 0).
"""

import queue
import threading

import grpc
import ptf
import ptf.testutils as testutils
from google.protobuf import text_format
from p4.config.v1 import p4info_pb2
from p4.v1 import p4runtime_pb2, p4runtime_pb2_grpc
from ptf.base_tests import BaseTest


class P4ForgeTest(BaseTest):
    """Connects as the primary controller (election id 1), pushes the program, and offers
    `insert` and the p4info's ids by name."""

    election_id = 1

    def setUp(self):
        BaseTest.setUp(self)
        self.dataplane = ptf.dataplane_instance
        self.dataplane.flush()
        self.device_id = int(testutils.test_param_get("device_id", 0))
        self.channel = grpc.insecure_channel(testutils.test_param_get("grpc_addr"))
        self.stub = p4runtime_pb2_grpc.P4RuntimeStub(self.channel)
        self.p4info = p4info_pb2.P4Info()
        with open(testutils.test_param_get("p4info")) as f:
            text_format.Merge(f.read(), self.p4info)
        self.requests = queue.Queue()
        self.stream = self.stub.StreamChannel(iter(self.requests.get, None))
        self.replies = queue.Queue()
        threading.Thread(target=self._receive, daemon=True).start()
        arbitration = p4runtime_pb2.StreamMessageRequest()
        arbitration.arbitration.device_id = self.device_id
        arbitration.arbitration.election_id.low = self.election_id
        self.requests.put(arbitration)
        reply = self.replies.get(timeout=5)
        assert reply.arbitration.status.code == 0, "not the primary controller"
        request = p4runtime_pb2.SetForwardingPipelineConfigRequest(
            device_id=self.device_id,
            action=p4runtime_pb2.SetForwardingPipelineConfigRequest.VERIFY_AND_COMMIT,
        )
        request.election_id.low = self.election_id
        request.config.p4info.CopyFrom(self.p4info)
        with open(testutils.test_param_get("config"), "rb") as f:
            request.config.p4_device_config = f.read()
        self.stub.SetForwardingPipelineConfig(request)

    def _receive(self):
        try:
            for reply in self.stream:
                self.replies.put(reply)
        except grpc.RpcError:
            pass

    def tearDown(self):
        self.requests.put(None)
        self.channel.close()
        BaseTest.tearDown(self)

    def id_of(self, kind, name):
        for entity in getattr(self.p4info, kind):
            if entity.preamble.name == name:
                return entity.preamble.id
        raise KeyError("no %s named %s" % (kind, name))

    def insert(self, table, matches, action, params, priority=0):
        """Inserts an entry: `matches` are (field id, exact value bytes), `params` bytes in order."""
        request = p4runtime_pb2.WriteRequest(device_id=self.device_id)
        request.election_id.low = self.election_id
        update = request.updates.add(type=p4runtime_pb2.Update.INSERT)
        entry = update.entity.table_entry
        entry.table_id = self.id_of("tables", table)
        entry.priority = priority
        for field_id, value in matches:
            entry.match.add(field_id=field_id).exact.value = value
        entry.action.action.action_id = self.id_of("actions", action)
        for i, value in enumerate(params):
            entry.action.action.params.add(param_id=i + 1, value=value)
        self.stub.Write(request)
