# Makefile - builds the C core on its own: build/libsdui.a (position-
# independent, so it can go into a shared object), build/libsdui.so with a
# soname, build/sdui.pc, and the C tests (`make test`).  Used by C, C++ and
# JNI users and the fuzzers; the Swift package compiles the same csrc/ files
# itself.
#
# GNU conventions: CFLAGS, CPPFLAGS and LDFLAGS are the user's and are added
# to the flags the core needs (never replace them); PREFIX (default
# /usr/local), LIBDIR, INCLUDEDIR and DESTDIR place `make install`, which
# `make uninstall` undoes.  The installed sdui.pc is written by `make
# install` from the variables it is given, whatever `make` was run with.
CC      ?= cc
CFLAGS  ?= -O2 -g
CXX     ?= c++
CXXFLAGS ?= -O2 -g
# What the core needs, whatever the user passes.
SDUI_CFLAGS = -std=c11 -fPIC -Wall -Wextra -Wshadow -Wstrict-prototypes \
              -D_POSIX_C_SOURCE=200809L -Iinclude
LIBS    = -ldeflate -lsqlite3 -lpthread -lm
# jansson is the C tests' reference parser (Tests/C/json_oracle.h), never
# the library's.
TEST_LIBS = -ljansson -lz
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
TESTS = $(patsubst Tests/C/%.c,$(BUILD)/%,$(filter-out Tests/C/check.c,$(wildcard Tests/C/test_*.c))) \
        $(patsubst Tests/C/%.cpp,$(BUILD)/%,$(wildcard Tests/C/test_*.cpp))

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

# sdui.pc.in with the install variables of this make run filled in.
PC_TEXT = sed -e 's|@PREFIX@|$(PREFIX)|' -e 's|@LIBDIR@|$(LIBDIR)|' -e 's|@INCLUDEDIR@|$(INCLUDEDIR)|' \
              -e 's|@VERSION@|$(VERSION)|' sdui.pc.in

# The install variables the build tree's .pc was made for, rewritten only
# when they change, so `make PREFIX=/opt/x` after `make` remakes the .pc.
$(BUILD)/install-dirs: FORCE
	@mkdir -p $(BUILD)
	@printf '%s\n' '$(PREFIX)' '$(LIBDIR)' '$(INCLUDEDIR)' > $@.new
	@if cmp -s $@.new $@; then rm $@.new; else mv $@.new $@; fi

# The .pc file for the configured prefix, in the build tree.  `make install`
# does not copy it: it writes its own from the variables it is given.
$(BUILD)/sdui.pc: sdui.pc.in $(VERSION_H) $(BUILD)/install-dirs
	$(PC_TEXT) > $@

$(BUILD)/test_%: Tests/C/test_%.c $(wildcard Tests/C/*.h) $(BUILD)/libsdui.a
	$(CC) $(SDUI_CFLAGS) $(CPPFLAGS) -ITests/C $(CFLAGS) $< $(BUILD)/libsdui.a $(LIBS) $(TEST_LIBS) $(LDFLAGS) -o $@

# The `sdui` command's libcurl loader, linked as the release command links
# it: with the loader and without libcurl (Sources/CurlLoader).
$(BUILD)/test_curl_loader: Tests/C/test_curl_loader.c Sources/CurlLoader/curl_loader.c \
                           Sources/CurlLoader/include/sdui_curl_loader.h $(wildcard Tests/C/*.h)
	$(CC) $(SDUI_CFLAGS) $(CPPFLAGS) -ITests/C -ISources/CurlLoader/include $(CFLAGS) \
	    Tests/C/test_curl_loader.c Sources/CurlLoader/curl_loader.c -ldl -lpthread $(LDFLAGS) -o $@

# C++ tests: those that compare the core with a C++ reference library
# (test_number_ref: Google's double-conversion).
$(BUILD)/test_%: Tests/C/test_%.cpp $(wildcard Tests/C/*.h) $(BUILD)/libsdui.a
	$(CXX) -std=c++17 -Wall -Wextra -Iinclude $(CPPFLAGS) -ITests/C $(CXXFLAGS) $< $(BUILD)/libsdui.a \
	    -ldouble-conversion $(LIBS) $(TEST_LIBS) $(LDFLAGS) -o $@

# C tests built a second time to run whole under the de_DE.UTF-8 locale,
# whose decimal point is a comma (Tests/C/in_locale.h): the core's number
# text and parsing must not follow the host's locale.
LOCALE_TESTS = test_expr test_json_doc test_token test_cldr
LOCALE_BINS  = $(addprefix $(BUILD)/locale/,$(LOCALE_TESTS))

$(BUILD)/locale/test_%: Tests/C/test_%.c $(wildcard Tests/C/*.h) $(BUILD)/libsdui.a
	@mkdir -p $(dir $@)
	$(CC) $(SDUI_CFLAGS) $(CPPFLAGS) -ITests/C -DIN_LOCALE_WHOLE_PROGRAM -include Tests/C/in_locale.h \
	    $(CFLAGS) $< $(BUILD)/libsdui.a $(LIBS) $(TEST_LIBS) $(LDFLAGS) -o $@

test: $(TESTS) $(LOCALE_BINS)
	@set -e; for t in $(TESTS) $(LOCALE_BINS); do echo "== $$t"; $$t; done
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
	$(PC_TEXT) > $(DESTDIR)$(LIBDIR)/pkgconfig/sdui.pc
	chmod 644 $(DESTDIR)$(LIBDIR)/pkgconfig/sdui.pc
	install -m 644 include/sdui/*.h $(DESTDIR)$(INCLUDEDIR)/sdui/

uninstall:
	rm -f $(DESTDIR)$(LIBDIR)/libsdui.a $(DESTDIR)$(LIBDIR)/$(SHLIB) $(DESTDIR)$(LIBDIR)/$(SONAME) \
	      $(DESTDIR)$(LIBDIR)/libsdui.so $(DESTDIR)$(LIBDIR)/pkgconfig/sdui.pc
	rm -f $(addprefix $(DESTDIR)$(INCLUDEDIR)/sdui/,$(notdir $(wildcard include/sdui/*.h)))
	-rmdir $(DESTDIR)$(INCLUDEDIR)/sdui 2>/dev/null

clean:
	rm -rf $(BUILD)

.PHONY: all test graph install uninstall clean FORCE
FORCE:

# `make tsan`: the core and the C tests that use threads, built with
# ThreadSanitizer into $(BUILD)/tsan/ (its own objects: the normal build
# stays as it is) and run.  Any ThreadSanitizer report fails the target:
# the tests run with exitcode=66 (every report is printed, then the test
# exits 66) and their output is searched for reports as well.  The
# compiler is TSAN_CC when given, else $(CC) when its TSan builds and runs
# a program here, else clang (with the Swift toolchain's libdispatch and
# BlocksRuntime, which its TSan runtime needs, when plain clang fails);
# TSAN_LDLIBS adds libraries to the link.
TSAN_DIR   = $(BUILD)/tsan
TSAN_TESTS = test_seekable_race test_seekable test_pack test_pack_fed \
             test_cache test_token test_expr test_json_build test_snapshot \
             test_outbox test_locale test_catalog
TSAN_FLAGS = -fsanitize=thread -g -O1
TSAN_OBJS  = $(SRCS:csrc/%.c=$(TSAN_DIR)/obj/%.o)
TSAN_BINS  = $(addprefix $(TSAN_DIR)/,$(TSAN_TESTS))

# Chooses the compiler, records it in $(TSAN_DIR)/cc (rewritten only when
# it changes, so a new compiler rebuilds everything), then builds and runs.
tsan:
	@mkdir -p $(TSAN_DIR)
	@set -e; d=$(TSAN_DIR); \
	printf 'int main(void) { return 0; }\n' > $$d/probe.c; \
	probe() { $$1 -fsanitize=thread $$d/probe.c -o $$d/probe $$2 >/dev/null 2>&1 && \
	          TSAN_OPTIONS= $$d/probe >/dev/null 2>&1; }; \
	cc=""; libs=""; \
	if [ -n "$(TSAN_CC)" ]; then cc="$(TSAN_CC)"; libs="$(TSAN_LDLIBS)"; \
	elif probe "$(CC)" "$(TSAN_LDLIBS)"; then cc="$(CC)"; libs="$(TSAN_LDLIBS)"; \
	else \
	    clang=$$(command -v clang || echo /opt/swift/usr/bin/clang); \
	    swiftlib=$$(dirname "$$clang")/../lib/swift/linux; \
	    if probe "$$clang" "$(TSAN_LDLIBS)"; then cc=$$clang; libs="$(TSAN_LDLIBS)"; \
	    elif probe "$$clang" "-L$$swiftlib -ldispatch -lBlocksRuntime -Wl,-rpath,$$swiftlib $(TSAN_LDLIBS)"; then \
	        cc=$$clang; libs="-L$$swiftlib -ldispatch -lBlocksRuntime -Wl,-rpath,$$swiftlib $(TSAN_LDLIBS)"; \
	    else echo "make tsan: no compiler here builds and runs a ThreadSanitizer program ($(CC), $$clang)" >&2; exit 1; fi; \
	fi; \
	rm -f $$d/probe $$d/probe.c; \
	echo "$$cc $$libs" > $$d/cc.new; \
	if cmp -s $$d/cc.new $$d/cc; then rm $$d/cc.new; else mv $$d/cc.new $$d/cc; fi; \
	echo "== ThreadSanitizer with $$cc"; \
	$(MAKE) --no-print-directory tsan-run TSAN_CC="$$cc" TSAN_LDLIBS="$$libs"

$(TSAN_DIR)/obj/%.o: csrc/%.c $(wildcard include/sdui/*.h) $(wildcard csrc/*.h) $(TSAN_DIR)/cc
	@mkdir -p $(dir $@)
	$(TSAN_CC) $(SDUI_CFLAGS) $(CPPFLAGS) $(CFLAGS) $(TSAN_FLAGS) -c $< -o $@

$(TSAN_DIR)/libsdui.a: $(TSAN_OBJS)
	rm -f $@
	ar rcs $@ $^

$(TSAN_DIR)/test_%: Tests/C/test_%.c $(wildcard Tests/C/*.h) $(TSAN_DIR)/libsdui.a
	$(TSAN_CC) $(SDUI_CFLAGS) $(CPPFLAGS) -ITests/C $(CFLAGS) $(TSAN_FLAGS) $< $(TSAN_DIR)/libsdui.a \
	    $(LIBS) $(TEST_LIBS) $(TSAN_LDLIBS) $(LDFLAGS) -o $@

# Runs each test; its output is kept in $(TSAN_DIR)/<test>.log.
tsan-run: $(TSAN_BINS)
	@set -e; failed=0; for t in $(TSAN_BINS); do echo "== $$t"; \
	    rc=0; TSAN_OPTIONS="halt_on_error=0 exitcode=66 second_deadlock_stack=1 $(TSAN_OPTIONS)" \
	        $$t > $$t.log 2>&1 || rc=$$?; \
	    cat $$t.log; \
	    reports=$$(grep -c 'ThreadSanitizer' $$t.log || true); \
	    if [ $$rc -ne 0 ] || [ $$reports -ne 0 ]; then \
	        echo "make tsan: $$t exited $$rc with $$reports ThreadSanitizer line(s); see $$t.log" >&2; \
	        failed=1; fi; \
	done; \
	if [ $$failed -ne 0 ]; then exit 1; fi; echo "no ThreadSanitizer reports"

.PHONY: tsan tsan-run
