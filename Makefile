# Makefile - builds the C core on its own: build/libsdui.a (position-
# independent, so it can go into a shared object), build/libsdui.so with a
# soname, build/sdui.pc, and the C tests (`make test`).  Used by C, C++ and
# JNI users and the fuzzers; the Swift package compiles the same csrc/ files
# itself.
#
# GNU conventions: CFLAGS, CPPFLAGS and LDFLAGS are the user's and are added
# to the flags the core needs (never replace them); PREFIX (default
# /usr/local), LIBDIR, INCLUDEDIR and DESTDIR place `make install`, which
# `make uninstall` undoes.
CC      ?= cc
CFLAGS  ?= -O2 -g
# What the core needs, whatever the user passes.
SDUI_CFLAGS = -std=c11 -fPIC -Wall -Wextra -Wshadow -Wstrict-prototypes \
              -D_POSIX_C_SOURCE=200809L -Iinclude
LIBS    = -ljansson -ldeflate -lsqlite3 -lpthread -lm
PREFIX  ?= /usr/local
LIBDIR  ?= $(PREFIX)/lib
INCLUDEDIR ?= $(PREFIX)/include
BUILD   ?= build

# The version, read from its one place (include/sdui/version.h).
VERSION_H = include/sdui/version.h
VERSION := $(shell sed -n 's/^\#define SDUI_VERSION_STRING "\(.*\)"/\1/p' $(VERSION_H))
MAJOR   := $(shell sed -n 's/^\#define SDUI_VERSION_MAJOR \([0-9]*\)/\1/p' $(VERSION_H))
MINOR   := $(shell sed -n 's/^\#define SDUI_VERSION_MINOR \([0-9]*\)/\1/p' $(VERSION_H))
# Before 1.0 a minor version may break the ABI, so the soname carries it.
SONAME  = libsdui.so.$(MAJOR).$(MINOR)
SHLIB   = libsdui.so.$(VERSION)

SRCS = $(wildcard csrc/*.c)
OBJS = $(SRCS:csrc/%.c=$(BUILD)/obj/%.o)
TESTS = $(patsubst Tests/C/%.c,$(BUILD)/%,$(filter-out Tests/C/check.c,$(wildcard Tests/C/test_*.c)))

all: $(BUILD)/libsdui.a $(BUILD)/$(SHLIB) $(BUILD)/sdui.pc

$(BUILD)/obj/%.o: csrc/%.c $(wildcard include/sdui/*.h) $(wildcard csrc/*.h)
	@mkdir -p $(dir $@)
	$(CC) $(SDUI_CFLAGS) $(CPPFLAGS) $(CFLAGS) -c $< -o $@

$(BUILD)/libsdui.a: $(OBJS)
	rm -f $@
	ar rcs $@ $^

# The shared library exports the public API only (sdui_ followed by a
# letter: not the core's internal sdui__ functions).
$(BUILD)/$(SHLIB): $(OBJS) libsdui.map
	$(CC) -shared -Wl,-soname,$(SONAME) -Wl,--version-script=libsdui.map $(LDFLAGS) \
	    -o $@ $(OBJS) $(LIBS)
	ln -sf $(SHLIB) $(BUILD)/$(SONAME)
	ln -sf $(SONAME) $(BUILD)/libsdui.so

# The .pc file for the configured prefix.
$(BUILD)/sdui.pc: sdui.pc.in $(VERSION_H)
	@mkdir -p $(BUILD)
	sed -e 's|@PREFIX@|$(PREFIX)|' -e 's|@LIBDIR@|$(LIBDIR)|' -e 's|@INCLUDEDIR@|$(INCLUDEDIR)|' \
	    -e 's|@VERSION@|$(VERSION)|' $< > $@

$(BUILD)/test_%: Tests/C/test_%.c $(wildcard Tests/C/*.h) $(BUILD)/libsdui.a
	$(CC) $(SDUI_CFLAGS) $(CPPFLAGS) -ITests/C $(CFLAGS) $< $(BUILD)/libsdui.a $(LIBS) -lz $(LDFLAGS) -o $@

test: $(TESTS)
	@set -e; for t in $(TESTS); do echo "== $$t"; $$t; done
	@echo "== file graph (make graph)"; bash Tests/C/graph.sh $(BUILD) >/dev/null || { bash Tests/C/graph.sh $(BUILD); exit 1; }; echo "no circle"
	@echo "== a comment above every function"; bash Tests/C/comments.sh && echo "all commented"

# The files of the core and what each calls and includes; fails on a circle.
graph: $(BUILD)/libsdui.a
	@bash Tests/C/graph.sh $(BUILD)

install: all
	install -d $(DESTDIR)$(LIBDIR)/pkgconfig $(DESTDIR)$(INCLUDEDIR)/sdui
	install -m 644 $(BUILD)/libsdui.a $(DESTDIR)$(LIBDIR)/
	install -m 755 $(BUILD)/$(SHLIB) $(DESTDIR)$(LIBDIR)/
	ln -sf $(SHLIB) $(DESTDIR)$(LIBDIR)/$(SONAME)
	ln -sf $(SONAME) $(DESTDIR)$(LIBDIR)/libsdui.so
	install -m 644 $(BUILD)/sdui.pc $(DESTDIR)$(LIBDIR)/pkgconfig/sdui.pc
	install -m 644 include/sdui/*.h $(DESTDIR)$(INCLUDEDIR)/sdui/

uninstall:
	rm -f $(DESTDIR)$(LIBDIR)/libsdui.a $(DESTDIR)$(LIBDIR)/$(SHLIB) $(DESTDIR)$(LIBDIR)/$(SONAME) \
	      $(DESTDIR)$(LIBDIR)/libsdui.so $(DESTDIR)$(LIBDIR)/pkgconfig/sdui.pc
	rm -f $(addprefix $(DESTDIR)$(INCLUDEDIR)/sdui/,$(notdir $(wildcard include/sdui/*.h)))
	-rmdir $(DESTDIR)$(INCLUDEDIR)/sdui 2>/dev/null

clean:
	rm -rf $(BUILD)

.PHONY: all test graph install uninstall clean
