# edgeauth — build, run and test. Read top to bottom.

CC       ?= cc
# A cross build names the target's: make CC=aarch64-linux-gnu-gcc PKG_CONFIG=aarch64-linux-gnu-pkg-config
PKG_CONFIG ?= pkg-config
PKGS     := libevent libevent_openssl sqlite3 libargon2 libssl libcrypto jansson inih libqrencode libcbor
# libpq's headers only: src/store/pg/pq_lib.c loads the library when the PostgreSQL
# store is asked for, so a server on SQLite never maps it (docs/development.md "Libraries").
HDR_PKGS := libpq
# No -DNDEBUG, in any build: asserts guard only our own invariants (never
# data from the network, the store, the clock or the config), cost nothing
# measurable, and a broken one had better stop the server than let it go on
# in a state no code expects. docs/development.md "Asserts" says why.
OPT      ?= -O2 -g
# The folders of include/ mirror src/'s layers (docs/development.md); a file
# includes a header by its name, and make layers holds who may include whom.
INC_DIRS := $(shell find include -type d | sort)
INCLUDES := $(addprefix -I,$(INC_DIRS))
SAN      ?=
CFLAGS   := $(OPT) $(SAN) -std=c11 -D_GNU_SOURCE -Wall -Wextra -Werror -Wshadow -Wstrict-prototypes \
            $(INCLUDES) $(shell $(PKG_CONFIG) --cflags $(PKGS) $(HDR_PKGS) 2>/dev/null)
LDFLAGS  := $(SAN)
LDLIBS   := $(shell $(PKG_CONFIG) --libs $(PKGS) 2>/dev/null) -lpthread -ldl
CHECK_LIBS := $(shell $(PKG_CONFIG) --libs check 2>/dev/null)

BUILD    ?= build
BIN      ?= edgeauth
SRCS     := $(shell find src -name '*.c' | sort)
OBJS     := $(SRCS:src/%.c=$(BUILD)/%.o)
LIB_OBJS := $(filter-out $(BUILD)/main.o,$(OBJS)) $(BUILD)/schema.o $(BUILD)/pg_schema.o
SCHEMA   := $(sort $(wildcard schema/*.sql))
PG_SCHEMA := $(sort $(wildcard schema/postgres/*.sql))
UNIT_SRCS := $(wildcard test/unit/check_*.c)
UNIT_BINS := $(UNIT_SRCS:test/unit/%.c=$(BUILD)/test/%)
CONF     ?= etc/edgeauth.conf

.PHONY: FORCE all deps deps-run deps-test deps-fuzz deps-bench run test test-full unit headers layers \
        blackbox check fuzz bench clean install deps-deb deb deps-arm test-arm64
all: $(BIN)

# The Debian packages each target needs, installed when missing (as root):
# make run only what builds and runs the server, the tests and benchmarks
# their own tools (scripts/install-deps says which). make deps: all of them.
deps:
	@scripts/install-deps run test fuzz bench deb arm

deps-run deps-test deps-fuzz deps-bench deps-deb deps-arm:
	@scripts/install-deps $(@:deps-%=%)

# What edgeauth --version names: the source's commit (git describe; "unknown"
# outside a git tree). CONFIG_PATH: the config file when neither -c nor
# $EDGEAUTH_CONFIG names one. A change of either rebuilds main.o alone,
# through the stamp.
COMMIT := $(shell [ "$$(git rev-parse --show-toplevel 2>/dev/null)" = "$(CURDIR)" ] && \
            git describe --always --dirty 2>/dev/null || echo unknown)
CONFIG_PATH ?= etc/edgeauth.conf
MAIN_DEFS = -DEDGEAUTH_COMMIT='"$(COMMIT)"' -DEDGEAUTH_DEFAULT_CONFIG='"$(1)"'
# stamp_if_changed TEXT: write the target only when TEXT differs from what it holds
stamp_if_changed = @mkdir -p $(@D); echo '$(1)' | cmp -s - $@ || echo '$(1)' > $@
$(BUILD)/main.o: CFLAGS += $(call MAIN_DEFS,$(CONFIG_PATH))
$(BUILD)/main.o: $(BUILD)/main.stamp
$(BUILD)/main.stamp: FORCE | $(BUILD)
	$(call stamp_if_changed,$(COMMIT) $(CONFIG_PATH))
FORCE:

$(BIN): $(BUILD)/libedgeauth.a $(BUILD)/main.o
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $(BUILD)/main.o $(BUILD)/libedgeauth.a $(LDLIBS)

$(BUILD)/libedgeauth.a: $(LIB_OBJS)
	@rm -f $@
	ar rcs $@ $^

$(BUILD)/%.o: src/%.c | $(BUILD)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -MMD -MP -c -o $@ $<

$(BUILD)/test/%: test/unit/%.c $(BUILD)/libedgeauth.a | $(BUILD)
	@mkdir -p $(BUILD)/test
	$(CC) $(CFLAGS) $(LDFLAGS) -Itest/unit -DSOURCE_DIR='"$(CURDIR)"' -MMD -MP -o $@ $< \
	      $(BUILD)/libedgeauth.a $(CHECK_LIBS) $(LDLIBS)

# Every header compiles on its own: a file that includes it and nothing else
# builds, so no header leans on what its includers happened to include first.
HEADER_CHECKS := $(patsubst include/%.h,$(BUILD)/headers/%.ok,$(shell find include -name '*.h'))

headers: $(HEADER_CHECKS)

$(BUILD)/headers/%.ok: include/%.h | $(BUILD)
	@mkdir -p $(@D)
	@printf '#include "%s"\n' $(<F) > $(@:.ok=.c)
	$(CC) $(CFLAGS) -fsyntax-only -MMD -MP -MF $(@:.ok=.d) -MT $@ $(@:.ok=.c)
	@touch $@

# The migrations are compiled into the binary.
$(BUILD)/schema.c: $(SCHEMA) scripts/embed-schema | $(BUILD)
	scripts/embed-schema $@ $(SCHEMA)

$(BUILD)/schema.o: $(BUILD)/schema.c
	$(CC) $(CFLAGS) -c -o $@ $<

# ... and PostgreSQL's (docs/operations.md §"A fleet on PostgreSQL"), the same for the other backend.
$(BUILD)/pg_schema.c: $(PG_SCHEMA) scripts/embed-schema | $(BUILD)
	scripts/embed-schema --name pg_schema_migrations $@ $(PG_SCHEMA)

$(BUILD)/pg_schema.o: $(BUILD)/pg_schema.c
	$(CC) $(CFLAGS) -c -o $@ $<

$(BUILD):
	@mkdir -p $(BUILD)

# run and test build in a second make, started after deps: the flags above
# come from pkg-config when make reads this file, which on a fresh machine is
# before deps has installed the libraries.
run: deps-run
	@$(MAKE) --no-print-directory $(BIN)
	./$(BIN) -c $(CONF) serve

# Every unit suite, then the black-box suite against the real binary: on
# SQLite, and on PostgreSQL the files where it differs and a cross-section
# (scripts/run-tests says which). test-full: every file on both. JOBS=N
# suites and files at once (default: twice the CPUs).
RUN_TESTS = EDGEAUTH=$(abspath $(BIN)) scripts/run-tests $(if $(JOBS),--jobs $(JOBS))
test: deps-test
	@scripts/layers
	@scripts/check-citations
	@python3 test/bench/test_compare.py
	@$(MAKE) --no-print-directory headers $(BIN) $(UNIT_BINS)
	@$(RUN_TESTS) $(UNIT_BINS)

test-full: deps-test
	@scripts/layers
	@scripts/check-citations
	@python3 test/bench/test_compare.py
	@$(MAKE) --no-print-directory headers $(BIN) $(UNIT_BINS)
	@$(RUN_TESTS) --full $(UNIT_BINS)

# Who may include whom: docs/development.md, "Layout".
layers:
	@scripts/layers

unit: headers $(BIN) $(UNIT_BINS)
	@set -e; for t in $(UNIT_BINS); do $$t; done

blackbox: $(BIN)
	@EDGEAUTH=$(abspath $(BIN)) test/blackbox/run.sh $(if $(JOBS),--jobs $(JOBS))

# make test again, built with AddressSanitizer and UBSan; any report fails.
# (test, not test-full: CI runs test-full too, within its 90 minutes.)
SAN_FLAGS := -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all
check: deps-test
	$(MAKE) BUILD=build/asan BIN=build/asan/edgeauth OPT="-O1 -g" SAN="$(SAN_FLAGS)" test

# libFuzzer harnesses (clang), each run FUZZ_SECONDS.
FUZZ_SECONDS ?= 20
fuzz: deps-fuzz
	@scripts/fuzz $(FUZZ_SECONDS)

# Throughput and latency of the hot paths on loopback (see docs/BENCHMARKS.md).
# make bench BACKEND=postgres: the PostgreSQL rows against SQLite's.
# make bench BENCH_BASE=DIR (a source tree, built there) or =BINARY: each row of
# this build against that one's, in turn in one run ("Comparisons");
# BENCH_ARGS: more options of scripts/bench/run (--rows, --rounds ...).
BACKEND ?= sqlite
bench: deps-bench
	@BACKEND=$(BACKEND) scripts/bench/run $(if $(BENCH_BASE),--compare $(BENCH_BASE)) $(BENCH_ARGS)

# The binary, the systemd unit and its user, and the config (only when there
# is none yet: an operator's edits are kept), its relative paths made the
# service's state directory. docs/operations.md "Installing as a service" has the steps after.
PREFIX     ?= /usr/local
SYSCONFDIR ?= /etc
UNITDIR    ?= $(SYSCONFDIR)/systemd/system
SYSUSERSDIR ?= $(SYSCONFDIR)/sysusers.d
STATEDIR   ?= /var/lib/edgeauth
# The installed binary reads $(SYSCONFDIR)/edgeauth/edgeauth.conf by default: the
# tree's objects linked with a main.o of its own, in $(INSTALL_BUILD), so the
# tree's $(BIN) keeps its etc/edgeauth.conf.
INSTALL_BUILD  := $(BUILD)/install
INSTALL_CONFIG  = $(SYSCONFDIR)/edgeauth/edgeauth.conf
$(INSTALL_BUILD)/main.stamp: FORCE
	$(call stamp_if_changed,$(COMMIT) $(INSTALL_CONFIG))

$(INSTALL_BUILD)/main.o: src/main.c $(INSTALL_BUILD)/main.stamp
	$(CC) $(CFLAGS) $(call MAIN_DEFS,$(INSTALL_CONFIG)) -MMD -MP -c -o $@ $<

$(INSTALL_BUILD)/edgeauth: $(BUILD)/libedgeauth.a $(INSTALL_BUILD)/main.o
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $(INSTALL_BUILD)/main.o $(BUILD)/libedgeauth.a $(LDLIBS)

install: $(INSTALL_BUILD)/edgeauth
	install -D -m 0755 $(INSTALL_BUILD)/edgeauth $(DESTDIR)$(PREFIX)/bin/edgeauth
	@mkdir -p $(DESTDIR)$(UNITDIR)
	sed -e 's|/usr/local/bin/edgeauth|$(PREFIX)/bin/edgeauth|' \
	    -e 's|/etc/edgeauth/|$(SYSCONFDIR)/edgeauth/|' \
	    -e 's|/usr/local/share/doc/|$(PREFIX)/share/doc/|g' \
	    -e 's|/var/lib/edgeauth|$(STATEDIR)|' etc/edgeauth.service > $(DESTDIR)$(UNITDIR)/edgeauth.service
	chmod 0644 $(DESTDIR)$(UNITDIR)/edgeauth.service
	install -D -m 0644 etc/edgeauth.sysusers $(DESTDIR)$(SYSUSERSDIR)/edgeauth.conf
	install -D -m 0644 README.md $(DESTDIR)$(PREFIX)/share/doc/edgeauth/README.md
	install -d $(DESTDIR)$(PREFIX)/share/doc/edgeauth/docs
	install -m 0644 docs/*.md $(DESTDIR)$(PREFIX)/share/doc/edgeauth/docs/
	@if [ -e $(DESTDIR)$(SYSCONFDIR)/edgeauth/edgeauth.conf ]; then \
		echo "kept $(DESTDIR)$(SYSCONFDIR)/edgeauth/edgeauth.conf"; \
	else \
		mkdir -p $(DESTDIR)$(SYSCONFDIR)/edgeauth && \
		sed 's|= \.\./var/|= $(STATEDIR)/|' $(CONF) > $(DESTDIR)$(SYSCONFDIR)/edgeauth/edgeauth.conf && \
		chmod 0644 $(DESTDIR)$(SYSCONFDIR)/edgeauth/edgeauth.conf && \
		echo "wrote $(DESTDIR)$(SYSCONFDIR)/edgeauth/edgeauth.conf"; \
	fi

# The Debian package, edgeauth_<version>_<arch>.deb in $(DEB_OUT), built with
# debhelper from etc/debian/ in a copy of the tree there (never a debian/ in
# the tree), then checked by lintian: docs/operations.md "The Debian package".
# ARCH=arm64 or armhf (on the command line only: an ARCH in the environment
# belongs to other builds) cross-builds it in a build root of its own,
# scripts/cross-root: docs/operations.md "Building for ARM".
DEB_OUT ?= $(BUILD)/deb
DEB_ARCH := $(if $(filter command line,$(origin ARCH)),$(ARCH))
deb: deps-deb $(if $(DEB_ARCH),deps-arm)
	@scripts/deb $(DEB_OUT) $(COMMIT) $(DEB_ARCH)

# The arm64 and armhf packages cross-built, the box's own build still whole
# after them, and the arm64 binary and unit suites run under qemu-user:
# minutes of downloads (once, then cached in build/cross/) and emulation, so
# neither make test nor test-full; CI runs it (.ci/run).
test-arm64: deps-arm
	@test/blackbox/run.sh arm/t_arm.sh

clean:
	rm -rf $(BUILD) $(BIN)

-include $(OBJS:.o=.d) $(INSTALL_BUILD)/main.d $(UNIT_BINS:=.d) $(HEADER_CHECKS:.ok=.d)
