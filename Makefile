# edgeauth — build, run and test. Read top to bottom.

CC       ?= cc
PKGS     := libevent sqlite3 libargon2 libcrypto jansson inih
OPT      ?= -O2
CFLAGS   ?= $(OPT) -g
CFLAGS   += -std=c11 -D_GNU_SOURCE -Wall -Wextra -Werror -Wshadow -Wstrict-prototypes \
            -Iinclude $(shell pkg-config --cflags $(PKGS) 2>/dev/null)
LDLIBS   := $(shell pkg-config --libs $(PKGS) 2>/dev/null) -lpthread
CHECK_LIBS := $(shell pkg-config --libs check 2>/dev/null)

BUILD    ?= build
BIN      ?= edgeauth
SRCS     := $(wildcard src/*.c)
OBJS     := $(SRCS:src/%.c=$(BUILD)/%.o)
LIB_OBJS := $(filter-out $(BUILD)/main.o,$(OBJS)) $(BUILD)/schema.o
SCHEMA   := $(sort $(wildcard schema/*.sql))
UNIT_SRCS := $(wildcard test/unit/check_*.c)
UNIT_BINS := $(UNIT_SRCS:test/unit/%.c=$(BUILD)/test/%)
CONF     ?= etc/edgeauth.conf

.PHONY: all deps run test unit blackbox clean install
all: $(BIN)

deps:
	@scripts/install-deps

$(BIN): $(BUILD)/libedgeauth.a $(BUILD)/main.o
	$(CC) $(CFLAGS) -o $@ $(BUILD)/main.o $(BUILD)/libedgeauth.a $(LDLIBS)

$(BUILD)/libedgeauth.a: $(LIB_OBJS)
	@rm -f $@
	ar rcs $@ $^

$(BUILD)/%.o: src/%.c | $(BUILD)
	$(CC) $(CFLAGS) -MMD -MP -c -o $@ $<

$(BUILD)/test/%: test/unit/%.c $(BUILD)/libedgeauth.a | $(BUILD)
	@mkdir -p $(BUILD)/test
	$(CC) $(CFLAGS) -Itest/unit -MMD -MP -o $@ $< $(BUILD)/libedgeauth.a $(CHECK_LIBS) $(LDLIBS)

# The migrations are compiled into the binary.
$(BUILD)/schema.c: $(SCHEMA) scripts/embed-schema | $(BUILD)
	scripts/embed-schema $@ $(SCHEMA)

$(BUILD)/schema.o: $(BUILD)/schema.c
	$(CC) $(CFLAGS) -c -o $@ $<

$(BUILD):
	@mkdir -p $(BUILD)

run: deps $(BIN)
	./$(BIN) -c $(CONF) serve

# Every unit suite, then the black-box suite against the real binary.
test: deps $(BIN) $(UNIT_BINS)
	@EDGEAUTH=$(abspath $(BIN)) scripts/run-tests $(UNIT_BINS)

unit: $(BIN) $(UNIT_BINS)
	@set -e; for t in $(UNIT_BINS); do $$t; done

blackbox: $(BIN)
	@EDGEAUTH=$(abspath $(BIN)) test/blackbox/run.sh

install: $(BIN)
	install -D -m 0755 $(BIN) $(DESTDIR)/usr/local/bin/edgeauth

clean:
	rm -rf $(BUILD) $(BIN)

-include $(OBJS:.o=.d) $(UNIT_BINS:=.d)
