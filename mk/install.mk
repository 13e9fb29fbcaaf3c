# mk/install.mk - make man, make install, make uninstall (included by the
# Makefile). Every directory can be overridden on the command line; DESTDIR
# is prepended to all of them (staged installs, packaging):
#
#   make install PREFIX=/usr SYSCONFDIR=/etc DESTDIR=/tmp/stage
#
# vnetd goes to SBINDIR (a daemon root starts), vnetctl and vnet-bench to
# BINDIR. The vhost-user backend descriptor (QEMU docs/interop/vhost-user.json)
# is written with SBINDIR's vnetd in it. The systemd units are whatever
# contrib/systemd/*.service and *.socket exist; /usr/sbin/vnetd and
# @SBINDIR@ / @BINDIR@ in them become the installed paths.

PREFIX         ?= /usr/local
EXEC_PREFIX    ?= $(PREFIX)
BINDIR         ?= $(EXEC_PREFIX)/bin
SBINDIR        ?= $(EXEC_PREFIX)/sbin
DATADIR        ?= $(PREFIX)/share
MANDIR         ?= $(DATADIR)/man
SYSCONFDIR     ?= $(PREFIX)/etc
SYSTEMDUNITDIR ?= $(PREFIX)/lib/systemd/system
BASHCOMPDIR    ?= $(DATADIR)/bash-completion/completions
QEMUVUDIR      ?= $(DATADIR)/qemu/vhost-user
INSTALL        ?= install
SCDOC          ?= scdoc

MAN_SRC   := $(sort $(wildcard docs/man/*.scd))
MAN_PAGES := $(patsubst docs/man/%.scd,$(BUILD)/man/%,$(MAN_SRC))
UNITS     := $(sort $(wildcard contrib/systemd/*.service contrib/systemd/*.socket))
COMPS     := $(sort $(wildcard contrib/bash-completion/*))
BIN_PROGS := vnetctl vnet-bench
SBIN_PROGS := vnetd

.PHONY: programs
programs: $(addprefix $(BUILD)/,$(PROGS))

man: $(MAN_PAGES)

$(BUILD)/man/%: docs/man/%.scd
	@mkdir -p $(dir $@)
	$(SCDOC) <$< >$@

$(BUILD)/50-vnetd.json: contrib/qemu/50-vnetd.json.in FORCE
	@mkdir -p $(dir $@)
	@sed 's|@SBINDIR@|$(SBINDIR)|g' $< >$@.tmp
	@if cmp -s $@.tmp $@; then rm -f $@.tmp; else mv $@.tmp $@; fi

# Paths the units name become the installed ones
UNIT_SED := -e 's|@SBINDIR@|$(SBINDIR)|g' -e 's|@BINDIR@|$(BINDIR)|g' \
	    -e 's|/usr/sbin/vnetd|$(SBINDIR)/vnetd|g' -e 's|/usr/bin/vnetctl|$(BINDIR)/vnetctl|g'

install: $(addprefix $(BUILD)/,$(PROGS)) man $(BUILD)/50-vnetd.json
	$(INSTALL) -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(SBINDIR) \
		$(DESTDIR)$(QEMUVUDIR) $(DESTDIR)$(BASHCOMPDIR)
	$(INSTALL) -m 755 $(addprefix $(BUILD)/,$(BIN_PROGS)) $(DESTDIR)$(BINDIR)/
	$(INSTALL) -m 755 $(addprefix $(BUILD)/,$(SBIN_PROGS)) $(DESTDIR)$(SBINDIR)/
	@set -e; for m in $(MAN_PAGES); do \
		s=$${m##*.}; \
		echo "$(INSTALL) -D -m 644 $$m $(DESTDIR)$(MANDIR)/man$$s/$${m##*/}"; \
		$(INSTALL) -D -m 644 $$m $(DESTDIR)$(MANDIR)/man$$s/$${m##*/}; \
	done
	$(INSTALL) -m 644 $(BUILD)/50-vnetd.json $(DESTDIR)$(QEMUVUDIR)/50-vnetd.json
	$(INSTALL) -m 644 $(COMPS) $(DESTDIR)$(BASHCOMPDIR)/
	@# The operator's file: never overwritten
	@if [ -e $(DESTDIR)$(SYSCONFDIR)/vnetd/ports.conf ]; then \
		echo "keeping $(DESTDIR)$(SYSCONFDIR)/vnetd/ports.conf"; \
	else \
		echo "$(INSTALL) -D -m 644 contrib/ports.conf $(DESTDIR)$(SYSCONFDIR)/vnetd/ports.conf"; \
		$(INSTALL) -D -m 644 contrib/ports.conf $(DESTDIR)$(SYSCONFDIR)/vnetd/ports.conf; \
	fi
	@set -e; for u in $(UNITS); do \
		echo "install $$u -> $(DESTDIR)$(SYSTEMDUNITDIR)/$${u##*/}"; \
		$(INSTALL) -d $(DESTDIR)$(SYSTEMDUNITDIR); \
		sed $(UNIT_SED) $$u >$(DESTDIR)$(SYSTEMDUNITDIR)/$${u##*/}; \
		chmod 644 $(DESTDIR)$(SYSTEMDUNITDIR)/$${u##*/}; \
	done

uninstall:
	rm -f $(addprefix $(DESTDIR)$(BINDIR)/,$(BIN_PROGS)) \
	      $(addprefix $(DESTDIR)$(SBINDIR)/,$(SBIN_PROGS)) \
	      $(DESTDIR)$(QEMUVUDIR)/50-vnetd.json \
	      $(addprefix $(DESTDIR)$(BASHCOMPDIR)/,$(notdir $(COMPS))) \
	      $(addprefix $(DESTDIR)$(SYSTEMDUNITDIR)/,$(notdir $(UNITS)))
	@set -e; for m in $(MAN_SRC); do \
		p=$${m##*/}; p=$${p%.scd}; \
		echo "rm -f $(DESTDIR)$(MANDIR)/man$${p##*.}/$$p"; \
		rm -f $(DESTDIR)$(MANDIR)/man$${p##*.}/$$p; \
	done
	@# The operator's file goes only if it is still the one we installed
	@if cmp -s contrib/ports.conf $(DESTDIR)$(SYSCONFDIR)/vnetd/ports.conf; then \
		echo "rm -f $(DESTDIR)$(SYSCONFDIR)/vnetd/ports.conf"; \
		rm -f $(DESTDIR)$(SYSCONFDIR)/vnetd/ports.conf; \
	fi
	@rmdir $(DESTDIR)$(SYSCONFDIR)/vnetd $(DESTDIR)$(QEMUVUDIR) 2>/dev/null || true
