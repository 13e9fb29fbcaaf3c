# vnetd - a plain Makefile: C11, one library (libvnet) and three programs.
#
#   make            release build: build/libvnet.a, build/vnetd, build/vnetctl, build/vnet-bench
#   make check      everything: unit tests, the same under ASan+UBSan, static analysis,
#                   integration and real-peer tests (skipping, with a reason, what cannot run)
#   make check-fast unit + ASan/UBSan unit + local integration (seconds)
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
BASE     := -std=c11 -D_GNU_SOURCE -g -pthread -Isrc/lib -I$(BUILD)/gen
CFLAGS   ?= -O2
ALL_CFLAGS := $(BASE) $(CFLAGS) $(WARN) $(HARDEN)
LDFLAGS_ALL := -pie -Wl,-z,relro,-z,now -pthread $(LDFLAGS)
SAN      := -fsanitize=address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer
ASAN_CFLAGS := $(BASE) -O1 $(WARN) $(SAN)

LIB_SRC  := $(sort $(wildcard src/lib/*.c))
SECCOMP_H := $(BUILD)/gen/seccomp_gen.h
LIB_HDR  := $(wildcard src/lib/*.h) $(SECCOMP_H)
PROGS    := vnetd vnetctl vnet-bench
TEST_SRC := $(sort $(wildcard tests/unit/test_*.c))
TESTS    := $(patsubst tests/unit/%.c,%,$(TEST_SRC))
FUZZ_SRC := $(sort $(wildcard fuzz/fuzz_*.c))
FUZZERS  := $(patsubst fuzz/%.c,%,$(FUZZ_SRC))

LIB_OBJ      := $(patsubst src/lib/%.c,$(BUILD)/obj/lib/%.o,$(LIB_SRC))
ASAN_LIB_OBJ := $(patsubst src/lib/%.c,$(ASAN_DIR)/obj/lib/%.o,$(LIB_SRC))

.PHONY: all check check-fast unit unit-asan lint fuzz fuzz-build bench clean install
.DELETE_ON_ERROR:

all: $(BUILD)/libvnet.a $(addprefix $(BUILD)/,$(PROGS)) \
     $(addprefix $(BUILD)/tests/,$(TESTS))

# ---- release build -------------------------------------------------------
# vnetd's seccomp filter, from the #syscalls: tags of the files it runs
$(SECCOMP_H): scripts/seccomp-gen.sh $(LIB_SRC) $(wildcard src/vnetd/*.c)
	@mkdir -p $(dir $@)
	scripts/seccomp-gen.sh "$(CC)" $@ $(LIB_SRC) $(wildcard src/vnetd/*.c)

$(BUILD)/obj/lib/%.o: src/lib/%.c $(LIB_HDR)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -c $< -o $@

$(BUILD)/libvnet.a: $(LIB_OBJ)
	@rm -f $@
	ar rcs $@ $^

define prog_rule
$(1)_SRC := $$(sort $$(wildcard src/$(1)/*.c))
$(BUILD)/$(1): $$($(1)_SRC) $$(wildcard src/$(1)/*.h) $(BUILD)/libvnet.a $(LIB_HDR)
	@mkdir -p $$(dir $$@)
	$$(CC) $$(ALL_CFLAGS) -Isrc/$(1) $$($(1)_SRC) $(BUILD)/libvnet.a -o $$@ $$(LDFLAGS_ALL)
endef
$(foreach p,$(PROGS),$(eval $(call prog_rule,$(p))))

$(BUILD)/tests/%: tests/unit/%.c $(wildcard tests/unit/*.h) $(BUILD)/libvnet.a $(LIB_HDR)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -Itests/unit $< $(BUILD)/libvnet.a -o $@ $(LDFLAGS_ALL)

# ---- ASan + UBSan build of the unit tests ----------------------------------
$(ASAN_DIR)/obj/lib/%.o: src/lib/%.c $(LIB_HDR)
	@mkdir -p $(dir $@)
	$(CC) $(ASAN_CFLAGS) -c $< -o $@

$(ASAN_DIR)/libvnet.a: $(ASAN_LIB_OBJ)
	@rm -f $@
	ar rcs $@ $^

$(ASAN_DIR)/tests/%: tests/unit/%.c $(wildcard tests/unit/*.h) $(ASAN_DIR)/libvnet.a $(LIB_HDR)
	@mkdir -p $(dir $@)
	$(CC) $(ASAN_CFLAGS) -DVNET_SANITIZED -Itests/unit $< $(ASAN_DIR)/libvnet.a -o $@ -pthread $(SAN)

unit: $(addprefix $(BUILD)/tests/,$(TESTS))
unit-asan: $(addprefix $(ASAN_DIR)/tests/,$(TESTS))

# ---- tests -----------------------------------------------------------------
# tests/run.sh runs every program/script it is given (exit 0 pass, 77 skip,
# anything else fail) and ends with "N passed, N failed, N skipped".
check-fast: all unit-asan
	tests/run.sh --lint $(addprefix $(BUILD)/tests/,$(TESTS)) \
		$(addprefix $(ASAN_DIR)/tests/,$(TESTS)) \
		$(sort $(wildcard tests/integration/*.sh))

check: all unit-asan
	tests/run.sh --lint $(addprefix $(BUILD)/tests/,$(TESTS)) \
		$(addprefix $(ASAN_DIR)/tests/,$(TESTS)) \
		$(sort $(wildcard tests/integration/*.sh)) \
		$(sort $(wildcard tests/peers/*.sh)) \
		$(sort $(wildcard tests/guest/test-*.sh))

lint:
	tests/lint.sh

# ---- fuzzing (clang + libFuzzer) ---------------------------------------------
FUZZ_CFLAGS := $(BASE) -O1 -g -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer
fuzz-build: $(addprefix $(FUZZ_DIR)/,$(FUZZERS))
$(FUZZ_DIR)/%: fuzz/%.c $(LIB_SRC) $(LIB_HDR)
	@mkdir -p $(dir $@)
	clang $(FUZZ_CFLAGS) -Wall -Wextra $< $(LIB_SRC) -o $@

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

install: all
	install -D -m 755 $(BUILD)/vnetd $(DESTDIR)/usr/local/bin/vnetd
	install -D -m 755 $(BUILD)/vnetctl $(DESTDIR)/usr/local/bin/vnetctl
	install -D -m 755 $(BUILD)/vnet-bench $(DESTDIR)/usr/local/bin/vnet-bench

clean:
	rm -rf $(BUILD) $(ASAN_DIR) $(FUZZ_DIR)
