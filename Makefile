# vnetd - a plain Makefile: C11, three libraries and three programs:
#   libvnet         everything vnetd runs, one folder per layer (LIB_DIRS, from
#                   the bottom: base, ring, proto, host, vhost-net, datapath, device);
#                   every program links it
#   libvnet-plan    src/plan, the planner and provisioning: vnetctl and the
#                   tests link it, never vnetd
#   libvnet-driver  src/driver, the driver side: our own rings and the
#                   vhost-user frontend; only vnet-bench, the tests, fuzzers
#                   and guest tools link it, never vnetd
# tests/lint-includes.sh checks that no folder reaches one above it.
#
#   make            release build: build/libvnet.a, build/libvnet-driver.a,
#                   build/vnetd, build/vnetctl, build/vnet-bench
#   make check      everything: unit tests, the same under ASan+UBSan, static analysis,
#                   integration and real-peer tests (skipping, with a reason, what cannot run)
#   make check-fast unit + ASan/UBSan unit + local integration (seconds)
#   make deps       apt-get install what the tests need (make check does it as root)
#   make vnetd-asan build-asan/vnetd, for VNET_VNETD= of the peer and guest tests
#   make test-hooks build/test-hooks/vnetd: fault injection for the migration test
#   make guest-tools build/guest/*: static helpers the guest tests run in the guest
#   make fuzz       libFuzzer harnesses, each for FUZZ_SECONDS (clang)
#   make bench      ring micro-benchmark
#   make lint       cppcheck
#   WERROR=1 (set by CI) turns warnings into errors.

CC       ?= gcc
BUILD    ?= build
ASAN_DIR ?= build-asan
FUZZ_DIR ?= build-fuzz
FUZZ_SECONDS ?= 20

WARN     := -Wall -Wextra -Wshadow -Wstrict-prototypes -Wmissing-prototypes \
            -Wpointer-arith -Wvla -Wformat=2 -Wno-format-nonliteral
ifeq ($(CI),true)
WERROR   ?= 1
endif
ifeq ($(WERROR),1)
WARN     += -Werror
endif
HARDEN   := -fstack-protector-strong -fstack-clash-protection -fPIE -D_FORTIFY_SOURCE=2
LIB_DIRS := base ring proto host vhost-net datapath device
LIB_INC  := $(addprefix -Isrc/,$(LIB_DIRS))
BASE     := -std=c11 -D_GNU_SOURCE -g -pthread $(LIB_INC) -I$(BUILD)/gen
CFLAGS   ?= -O2
# liburing (Debian: liburing-dev) for batched TAP TX (src/host/tap_uring.c);
# without it, or with URING=0, TAP TX is one writev() per frame as before
URING    ?= $(shell pkg-config --exists liburing 2>/dev/null && echo 1)
ifeq ($(URING),1)
BASE        += -DVNET_HAVE_LIBURING $(shell pkg-config --cflags liburing)
URING_LIBS  := $(shell pkg-config --libs liburing)
endif
# libxdp + libbpf (Debian: libxdp-dev, libbpf-dev) for the af_xdp host side
# (src/host/host_afxdp.c); without them, or with XDP=0, --backend af_xdp is
# absent and its tests skip saying so
XDP      ?= $(shell pkg-config --exists libxdp libbpf 2>/dev/null && echo 1)
ifeq ($(XDP),1)
BASE        += -DVNET_HAVE_LIBXDP $(shell pkg-config --cflags libxdp libbpf)
XDP_LIBS    := $(shell pkg-config --libs libxdp libbpf)
endif
ALL_CFLAGS := $(BASE) $(CFLAGS) $(WARN) $(HARDEN)
LDFLAGS_ALL := -pie -Wl,-z,relro,-z,now -pthread $(LDFLAGS) $(URING_LIBS) $(XDP_LIBS)
SAN      := -fsanitize=address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer
ASAN_CFLAGS := $(BASE) -O1 $(WARN) $(SAN)

LIB_SRC  := $(sort $(foreach d,$(LIB_DIRS),$(wildcard src/$(d)/*.c)))
ifneq ($(XDP),1)
LIB_SRC  := $(filter-out src/host/host_afxdp.c,$(LIB_SRC))
endif
SECCOMP_H := $(BUILD)/gen/seccomp_gen.h
LIB_HDR  := $(foreach d,$(LIB_DIRS),$(wildcard src/$(d)/*.h)) $(SECCOMP_H)
# the planner: its own archive and include path, for vnetctl and the tests
PLAN_SRC := $(sort $(wildcard src/plan/*.c))
PLAN_HDR := $(wildcard src/plan/*.h)
PLAN_INC := -Isrc/plan
# the driver side: its own archive and include path, which libvnet and
# vnetd never get (tests/lint-includes.sh checks every folder's includes)
DRV_SRC  := $(sort $(wildcard src/driver/*.c))
DRV_HDR  := $(wildcard src/driver/*.h)
DRV_INC  := -Isrc/driver
PROGS    := vnetd vnetctl vnet-bench
# programs that link the driver archive too, and the planner's
DRV_PROGS := vnet-bench
PLAN_PROGS := vnetctl
# tests (docs/testing.md): unit tests are pure (no root, TAP or timing);
# system tests are C programs that need root, a namespace, a TAP or a running
# vnetd (their /* needs: */ line goes to build/tests/system/NAME.needs, which
# tests/run.sh reads); bench/test_*.c hold the rate assertions
TEST_SRC := $(sort $(wildcard tests/unit/test_*.c))
TESTS    := $(patsubst tests/unit/%.c,%,$(TEST_SRC))
SYS_SRC  := $(sort $(wildcard tests/system/test_*.c))
SYS_TESTS := $(patsubst tests/%.c,%,$(SYS_SRC))
BENCH_C_SRC := $(sort $(wildcard bench/test_*.c))
BENCH_C  := $(patsubst %.c,%,$(BENCH_C_SRC))
# the test library: the helpers' bodies, built once (build/libvnet-test.a);
# the headers that stay templates (dp_testutil.h, corpus_util.h,
# test_vring_common.h: sized or typed per includer) are not in it
TLIB_SRC := $(filter-out tests/unit/test_%.c,$(wildcard tests/unit/*.c))
TLIB_HDR := $(wildcard tests/unit/*.h)
FUZZ_SRC := $(sort $(wildcard fuzz/fuzz_*.c))
FUZZERS  := $(patsubst fuzz/%.c,%,$(FUZZ_SRC))

LIB_OBJ      := $(patsubst src/%.c,$(BUILD)/obj/%.o,$(LIB_SRC))
ASAN_LIB_OBJ := $(patsubst src/%.c,$(ASAN_DIR)/obj/%.o,$(LIB_SRC))
PLAN_OBJ      := $(patsubst src/%.c,$(BUILD)/obj/%.o,$(PLAN_SRC))
ASAN_PLAN_OBJ := $(patsubst src/%.c,$(ASAN_DIR)/obj/%.o,$(PLAN_SRC))
DRV_OBJ      := $(patsubst src/driver/%.c,$(BUILD)/obj/driver/%.o,$(DRV_SRC))
ASAN_DRV_OBJ := $(patsubst src/driver/%.c,$(ASAN_DIR)/obj/driver/%.o,$(DRV_SRC))

.PHONY: all check check-fast unit unit-asan system-asan bench-asan lint fuzz fuzz-build bench clean install \
	vnetd-asan guest-tools test-hooks deps uninstall man FORCE
.DELETE_ON_ERROR:

all: $(BUILD)/libvnet.a $(BUILD)/libvnet-plan.a $(BUILD)/libvnet-driver.a $(addprefix $(BUILD)/,$(PROGS)) \
     $(addprefix $(BUILD)/tests/,$(TESTS)) $(addprefix $(BUILD)/tests/,$(SYS_TESTS)) \
     $(addprefix $(BUILD)/,$(BENCH_C))

# ---- release build -------------------------------------------------------
# vnetd's seccomp filter, from the #syscalls: tags of the files it runs:
# libvnet and src/vnetd, not the planner or the driver side (tap_uring.c's
# io_uring_* only when it is built with liburing)
SECCOMP_LIB_SRC := $(if $(filter 1,$(URING)),$(LIB_SRC),$(filter-out src/host/tap_uring.c,$(LIB_SRC)))
$(SECCOMP_H): scripts/seccomp-gen.sh $(LIB_SRC) $(wildcard src/vnetd/*.c)
	@mkdir -p $(dir $@)
	scripts/seccomp-gen.sh "$(CC)" $@ $(SECCOMP_LIB_SRC) $(wildcard src/vnetd/*.c)

$(BUILD)/obj/%.o: src/%.c $(LIB_HDR) $(PLAN_HDR)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -c $< -o $@

$(BUILD)/libvnet.a: $(LIB_OBJ)
	@rm -f $@
	ar rcs $@ $^

$(BUILD)/libvnet-plan.a: $(PLAN_OBJ)
	@rm -f $@
	ar rcs $@ $^

$(BUILD)/obj/driver/%.o: src/driver/%.c $(DRV_HDR) $(LIB_HDR)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) $(DRV_INC) -c $< -o $@

$(BUILD)/libvnet-driver.a: $(DRV_OBJ)
	@rm -f $@
	ar rcs $@ $^

# $(2): the driver archive for DRV_PROGS, $(3): the planner's for PLAN_PROGS
define prog_rule
$(1)_SRC := $$(sort $$(wildcard src/$(1)/*.c))
$(BUILD)/$(1): $$($(1)_SRC) $$(wildcard src/$(1)/*.h) $(2) $(3) $(BUILD)/libvnet.a $(LIB_HDR) $(if $(2),$(DRV_HDR)) $(if $(3),$(PLAN_HDR))
	@mkdir -p $$(dir $$@)
	$$(CC) $$(ALL_CFLAGS) -Isrc/$(1) $(if $(2),$(DRV_INC)) $(if $(3),$(PLAN_INC)) $$($(1)_SRC) $(2) $(3) $(BUILD)/libvnet.a -o $$@ $$(LDFLAGS_ALL)
endef
$(foreach p,$(PROGS),$(eval $(call prog_rule,$(p),$(if $(filter $(p),$(DRV_PROGS)),$(BUILD)/libvnet-driver.a),$(if $(filter $(p),$(PLAN_PROGS)),$(BUILD)/libvnet-plan.a))))

# ---- version: `PROG --version` ----------------------------------------------
# git describe in a checkout; else debian/changelog's version (an unpacked
# source package), else a VERSION file (a release tarball). VERSION=... on
# the command line wins (debian/rules passes the package version).
ifeq ($(origin VERSION),undefined)
VERSION := $(shell { [ -e .git ] && git describe --always --dirty 2>/dev/null; } || \
	sed -n '1s/^[^(]*(\([^)]*\)).*/\1/p' debian/changelog 2>/dev/null | grep . || \
	cat VERSION 2>/dev/null || echo unknown)
endif
ALL_CFLAGS += -I$(BUILD)/gen
$(addprefix $(BUILD)/,$(PROGS)): $(BUILD)/gen/version.h

# Rewritten only when the version changes, so an unchanged tree relinks nothing
$(BUILD)/gen/version.h: FORCE
	@mkdir -p $(dir $@)
	@printf '/* generated by the Makefile: the version PROG --version prints */\n#define VNET_VERSION "%s"\n' '$(VERSION)' >$@.tmp
	@if cmp -s $@.tmp $@; then rm -f $@.tmp; else mv $@.tmp $@; fi
FORCE:

# ---- test programs: unit, system and bench checks, on the test library ----
# $(1): build dir, $(2): its compile flags, $(3): link flags. A program's
# "/* needs: WORD... */" line is copied next to it as NAME.needs
# ("# needs: WORD...") for tests/run.sh; unit tests have none.
define test_prog_rules
$(1)/tobj/%.o: tests/unit/%.c $(TLIB_HDR) $(LIB_HDR) $(PLAN_HDR) $(DRV_HDR)
	@mkdir -p $$(dir $$@)
	$$(CC) $(2) -Itests/unit $(PLAN_INC) $(DRV_INC) -c $$< -o $$@

$(1)/libvnet-test.a: $(patsubst tests/unit/%.c,$(1)/tobj/%.o,$(TLIB_SRC))
	@rm -f $$@
	ar rcs $$@ $$^

$(1)/tests/%: tests/unit/%.c $(1)/libvnet-test.a $(TLIB_HDR) $(1)/libvnet-plan.a $(1)/libvnet-driver.a $(1)/libvnet.a $(LIB_HDR) $(PLAN_HDR) $(DRV_HDR)
	@mkdir -p $$(dir $$@)
	$$(CC) $(2) -Itests/unit -Ifuzz $(PLAN_INC) $(DRV_INC) $$(TEST_INC) $$< $$(TEST_LINK) $(1)/libvnet-test.a $(1)/libvnet-plan.a $(1)/libvnet-driver.a $(1)/libvnet.a -o $$@ $(3)

$(1)/tests/system/%: tests/system/%.c $(1)/libvnet-test.a $(TLIB_HDR) $(1)/libvnet-plan.a $(1)/libvnet-driver.a $(1)/libvnet.a $(LIB_HDR) $(PLAN_HDR) $(DRV_HDR)
	@mkdir -p $$(dir $$@)
	$$(CC) $(2) -Itests/unit $(PLAN_INC) $(DRV_INC) $$< $(1)/libvnet-test.a $(1)/libvnet-plan.a $(1)/libvnet-driver.a $(1)/libvnet.a -o $$@ $(3)
	sed -n 's|^/\* needs:\(.*\) \*/$$$$|# needs:\1|p' $$< > $$@.needs

$(1)/bench/%: bench/%.c $(1)/libvnet-test.a $(TLIB_HDR) $(1)/libvnet-driver.a $(1)/libvnet.a $(LIB_HDR) $(DRV_HDR)
	@mkdir -p $$(dir $$@)
	$$(CC) $(2) -Itests/unit $(DRV_INC) $$< $(1)/libvnet-test.a $(1)/libvnet-driver.a $(1)/libvnet.a -o $$@ $(3)
	sed -n 's|^/\* needs:\(.*\) \*/$$$$|# needs:\1|p' $$< > $$@.needs
endef
$(eval $(call test_prog_rules,$(BUILD),$(ALL_CFLAGS),$(LDFLAGS_ALL)))
$(eval $(call test_prog_rules,$(ASAN_DIR),$(ASAN_CFLAGS) -DVNET_SANITIZED,-pthread $(SAN) $(URING_LIBS) $(XDP_LIBS)))

# ---- ASan + UBSan build of the unit tests ----------------------------------
$(ASAN_DIR)/obj/%.o: src/%.c $(LIB_HDR) $(PLAN_HDR)
	@mkdir -p $(dir $@)
	$(CC) $(ASAN_CFLAGS) -c $< -o $@

$(ASAN_DIR)/libvnet.a: $(ASAN_LIB_OBJ)
	@rm -f $@
	ar rcs $@ $^

$(ASAN_DIR)/libvnet-plan.a: $(ASAN_PLAN_OBJ)
	@rm -f $@
	ar rcs $@ $^

$(ASAN_DIR)/obj/driver/%.o: src/driver/%.c $(DRV_HDR) $(LIB_HDR)
	@mkdir -p $(dir $@)
	$(CC) $(ASAN_CFLAGS) $(DRV_INC) -c $< -o $@

$(ASAN_DIR)/libvnet-driver.a: $(ASAN_DRV_OBJ)
	@rm -f $@
	ar rcs $@ $^

# Unit tests that link more than the archives: TEST_LINK (sources compiled
# with the test: a fuzz harness it replays, a file of vnetd), TEST_INC
# (their headers' folders). Tests and fuzzers include headers, never a .c.
# The port-spec parser: vnetd's own file, linked by its fuzzer and test
PORT_SPEC_SRC := src/vnetd/port_spec.c
PORT_SPEC_DEP := $(PORT_SPEC_SRC) $(wildcard src/vnetd/*.h)
test_port_spec_corpus_LINK := fuzz/fuzz_port_spec.c $(PORT_SPEC_SRC)
test_port_spec_same_LINK := $(PORT_SPEC_SRC)
test_vu_conn_corpus_LINK := fuzz/fuzz_vu_conn.c
test_vu_dispatch_corpus_LINK := fuzz/fuzz_vu_dispatch.c
test_sandbox_LINK := src/vnetd/sandbox.c
define test_link_rule
$(BUILD)/tests/$(1) $(ASAN_DIR)/tests/$(1): TEST_LINK := $$($(1)_LINK)
$(BUILD)/tests/$(1) $(ASAN_DIR)/tests/$(1): TEST_INC := -Isrc/vnetd
$(BUILD)/tests/$(1) $(ASAN_DIR)/tests/$(1): $$($(1)_LINK) $(wildcard fuzz/*.h) $(wildcard src/vnetd/*.h) $(SECCOMP_H)
endef
$(foreach t,test_port_spec_corpus test_port_spec_same test_vu_conn_corpus test_vu_dispatch_corpus test_sandbox,$(eval $(call test_link_rule,$(t))))
# test_switch runs a hook inside switch_tx_fast()'s hold (a leave racing it)
$(BUILD)/tests/test_switch $(ASAN_DIR)/tests/test_switch: TEST_LINK := -Wl,--wrap=switch_hold
$(FUZZ_DIR)/fuzz_port_spec: FUZZ_LINK := $(PORT_SPEC_SRC) -Isrc/vnetd
$(FUZZ_DIR)/fuzz_port_spec: $(PORT_SPEC_DEP)

unit: $(addprefix $(BUILD)/tests/,$(TESTS))
unit-asan: $(addprefix $(ASAN_DIR)/tests/,$(TESTS))
system-asan: $(addprefix $(ASAN_DIR)/tests/,$(SYS_TESTS))
bench-asan: $(addprefix $(ASAN_DIR)/,$(BENCH_C))

# vnetd under ASan+UBSan, for the real-peer and guest suites:
#   VNET_VNETD=build-asan/vnetd tests/run.sh tests/peers/dpdk-virtio-user.sh
vnetd-asan: $(ASAN_DIR)/vnetd
$(ASAN_DIR)/vnetd: $(vnetd_SRC) $(wildcard src/vnetd/*.h) $(ASAN_DIR)/libvnet.a $(LIB_HDR)
	@mkdir -p $(dir $@)
	$(CC) $(ASAN_CFLAGS) -Isrc/vnetd $(vnetd_SRC) $(ASAN_DIR)/libvnet.a -o $@ -pthread $(SAN) $(URING_LIBS) $(XDP_LIBS)

# ---- test-hooks build: vnetd with fault injection, for tests only -----------
# build/test-hooks/vnetd: VNET_TEST_HOOKS compiled in (VNET_TEST_DROP_DIRTY_LOG=1
# drops dirty-log writes: the negative control of tests/guest/test-migrate.sh).
# The release build never has them.
HOOK_DIR := $(BUILD)/test-hooks
HOOK_LIB_OBJ := $(patsubst src/%.c,$(HOOK_DIR)/obj/%.o,$(LIB_SRC))
test-hooks: $(HOOK_DIR)/vnetd
$(HOOK_DIR)/obj/%.o: src/%.c $(LIB_HDR)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -DVNET_TEST_HOOKS -c $< -o $@
$(HOOK_DIR)/libvnet.a: $(HOOK_LIB_OBJ)
	@rm -f $@
	ar rcs $@ $^
$(HOOK_DIR)/vnetd: $(vnetd_SRC) $(wildcard src/vnetd/*.h) $(HOOK_DIR)/libvnet.a $(LIB_HDR) $(BUILD)/gen/version.h
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -DVNET_TEST_HOOKS -Isrc/vnetd $(vnetd_SRC) $(HOOK_DIR)/libvnet.a -o $@ $(LDFLAGS_ALL)

# ---- guest tools: static helpers the guest tests put into the test guest ----
GUEST_CFLAGS := -std=c11 -D_GNU_SOURCE -O2 $(WARN) $(LIB_INC)
guest-tools: $(BUILD)/guest/vhost-net-dp $(BUILD)/guest/vhost-net-txgen $(BUILD)/guest/mig-udp
$(BUILD)/guest/mig-udp: tests/guest/mig-udp.c
	@mkdir -p $(dir $@)
	$(CC) $(GUEST_CFLAGS) -static $< -o $@
$(BUILD)/guest/vhost-net-dp: tests/guest/vhost-net-dp.c $(BUILD)/libvnet-driver.a $(BUILD)/libvnet.a $(LIB_HDR) $(DRV_HDR)
	@mkdir -p $(dir $@)
	$(CC) $(GUEST_CFLAGS) $(DRV_INC) -static $< $(BUILD)/libvnet-driver.a $(BUILD)/libvnet.a -o $@ $(URING_LIBS)
$(BUILD)/guest/vhost-net-txgen: tests/guest/vhost-net-txgen.c
	@mkdir -p $(dir $@)
	$(CC) $(GUEST_CFLAGS) -static $< -o $@

# ---- tests -----------------------------------------------------------------
# tests/run.sh runs every program/script it is given (exit 0 pass, 77 skip,
# anything else fail) and ends with "N passed, N failed, N skipped".
# system tests are local too (root, a namespace, a TAP), so check-fast runs
# them; the bench checks (rates) only make check
check-fast: all unit-asan system-asan
	tests/run.sh --lint $(addprefix $(BUILD)/tests/,$(TESTS)) \
		$(addprefix $(ASAN_DIR)/tests/,$(TESTS)) \
		$(addprefix $(BUILD)/tests/,$(SYS_TESTS)) \
		$(addprefix $(ASAN_DIR)/tests/,$(SYS_TESTS)) \
		$(sort $(wildcard tests/integration/*.sh))

# deps: apt-get install what the tests need (tests/deps.sh, the list CI uses); check runs
# it first as root, so a fresh Debian 12 skips nothing CI runs (VNET_NO_DEPS=1: don't)
deps:
	tests/deps.sh

check: all unit-asan system-asan bench-asan
	@if [ "$(VNET_NO_DEPS)" != 1 ] && [ "$$(id -u)" = 0 ]; then tests/deps.sh; fi
	tests/run.sh --lint $(addprefix $(BUILD)/tests/,$(TESTS)) \
		$(addprefix $(ASAN_DIR)/tests/,$(TESTS)) \
		$(addprefix $(BUILD)/tests/,$(SYS_TESTS)) \
		$(addprefix $(ASAN_DIR)/tests/,$(SYS_TESTS)) \
		$(addprefix $(BUILD)/,$(BENCH_C)) $(addprefix $(ASAN_DIR)/,$(BENCH_C)) \
		$(sort $(wildcard tests/integration/*.sh)) \
		$(sort $(wildcard tests/peers/*.sh)) \
		$(sort $(wildcard tests/guest/test-*.sh))

lint:
	tests/lint.sh

# ---- fuzzing (clang + libFuzzer) ---------------------------------------------
FUZZ_CFLAGS := $(BASE) -O1 -g -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer
fuzz-build: $(addprefix $(FUZZ_DIR)/,$(FUZZERS))
$(FUZZ_DIR)/%: fuzz/%.c $(wildcard fuzz/*.h) $(LIB_SRC) $(LIB_HDR) $(DRV_SRC) $(DRV_HDR)
	@mkdir -p $(dir $@)
	clang $(FUZZ_CFLAGS) $(DRV_INC) -Wall -Wextra $< $(FUZZ_LINK) $(LIB_SRC) $(DRV_SRC) -o $@ $(URING_LIBS) $(XDP_LIBS)

fuzz: fuzz-build
	@set -e; for f in $(FUZZERS); do \
		mkdir -p $(FUZZ_DIR)/corpus-$$f; \
		echo "== $$f ($(FUZZ_SECONDS) s)"; \
		$(FUZZ_DIR)/$$f -max_total_time=$(FUZZ_SECONDS) -print_final_stats=0 \
			$(FUZZ_DIR)/corpus-$$f fuzz/corpus/$$f 2>&1 | tail -n 3; \
	done

# ---- benchmarks ---------------------------------------------------------------
bench: all
	$(BUILD)/vnet-bench ring

clean:
	rm -rf $(BUILD) $(ASAN_DIR) $(FUZZ_DIR)

include mk/install.mk
