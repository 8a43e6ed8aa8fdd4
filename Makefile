# Makefile - builds the C core on its own: build/libsdui.a, build/sdui.pc,
# and the C tests (`make test`).  Used by C/JNI users and the fuzzers; the
# Swift package compiles the same csrc/ files itself.
CC      ?= cc
CFLAGS  ?= -O2 -g
CFLAGS  += -std=c11 -Wall -Wextra -Wshadow -Wstrict-prototypes -D_POSIX_C_SOURCE=200809L
CPPFLAGS += -Iinclude
LIBS    = -ljansson -ldeflate -lsqlite3 -lpthread
PREFIX  ?= /usr/local
BUILD   ?= build

SRCS = $(wildcard csrc/*.c)
OBJS = $(SRCS:csrc/%.c=$(BUILD)/obj/%.o)
TESTS = $(patsubst Tests/C/%.c,$(BUILD)/%,$(filter-out Tests/C/check.c,$(wildcard Tests/C/test_*.c)))

all: $(BUILD)/libsdui.a $(BUILD)/sdui.pc

$(BUILD)/obj/%.o: csrc/%.c $(wildcard include/sdui/*.h) $(wildcard csrc/*.h)
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(CFLAGS) -c $< -o $@

$(BUILD)/libsdui.a: $(OBJS)
	rm -f $@
	ar rcs $@ $^

# The .pc file for the default prefix; `make install` writes its own.
$(BUILD)/sdui.pc: sdui.pc.in
	@mkdir -p $(BUILD)
	sed -e 's|@PREFIX@|$(PREFIX)|' $< > $@

$(BUILD)/test_%: Tests/C/test_%.c $(wildcard Tests/C/*.h) $(BUILD)/libsdui.a
	$(CC) $(CPPFLAGS) -ITests/C $(CFLAGS) $< $(BUILD)/libsdui.a $(LIBS) -lz -o $@

test: $(TESTS)
	@set -e; for t in $(TESTS); do echo "== $$t"; $$t; done
	@echo "== file graph (make graph)"; bash Tests/C/graph.sh $(BUILD) >/dev/null || { bash Tests/C/graph.sh $(BUILD); exit 1; }; echo "no circle"
	@echo "== a comment above every function"; bash Tests/C/comments.sh && echo "all commented"

# The files of the core and what each calls and includes; fails on a circle.
graph: $(BUILD)/libsdui.a
	@bash Tests/C/graph.sh $(BUILD)

install: all
	install -d $(DESTDIR)$(PREFIX)/lib/pkgconfig $(DESTDIR)$(PREFIX)/include/sdui
	install -m 644 $(BUILD)/libsdui.a $(DESTDIR)$(PREFIX)/lib/
	sed -e 's|@PREFIX@|$(PREFIX)|' sdui.pc.in > $(DESTDIR)$(PREFIX)/lib/pkgconfig/sdui.pc
	install -m 644 include/sdui/*.h $(DESTDIR)$(PREFIX)/include/sdui/

clean:
	rm -rf $(BUILD)

.PHONY: all test graph install clean
