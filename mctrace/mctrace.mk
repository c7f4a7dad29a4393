# SPDX-License-Identifier: GPL-2.0-only
# mctrace/mctrace.mk - the mctrace command (mctrace/), which runs a
# program under the recorder (recorder/) and reads its traces.
#
# Included by the top Makefile.  It shares recorder/format.h with the
# library, and recorder/demangle.c, which cuts C++ names as the
# recorder's filters match them; it links nothing of the runtime.
#
#   make $(MCTRACE)       build/mctrace
#   make install          also installs mctrace and man/mctrace.1

MCTRACE := $(BUILD)/mctrace
MCTRACE_SRCS := mctrace/main.c mctrace/cli.c mctrace/record.c \
	mctrace/report.c mctrace/graph.c mctrace/replay.c mctrace/dump.c \
	mctrace/raw.c mctrace/chrome.c mctrace/folded.c mctrace/flame.c \
	mctrace/pfconv.c mctrace/perfetto.c mctrace/pb.c \
	mctrace/output.c mctrace/trace.c mctrace/procs.c mctrace/calls.c \
	mctrace/events.c mctrace/values.c mctrace/fold.c recorder/demangle.c \
	mctrace/filter.c mctrace/tree.c mctrace/stats.c mctrace/info.c \
	mctrace/attach.c mctrace/ptrace.c mctrace/procmaps.c \
	mctrace/live.c
MCTRACE_OBJS := $(MCTRACE_SRCS:%.c=$(BUILD)/obj/%.o) \
	$(BUILD)/obj/mctrace/flame-js.o

all: $(MCTRACE)

# -lstdc++: its __cxa_demangle demangles C++ names (mctrace/calls.c).
# No libelf: procmaps.c reads the objects' symbols with <elf.h> alone.
$(MCTRACE): $(MCTRACE_OBJS)
	$(CC) $(CFLAGS) $(SAN_FLAGS) -o $@ $^ -lstdc++

# The flame graph's script (mctrace/flame.js) as flame_js[], a C array
# of its bytes and a NUL, which flame.c writes into every SVG.  od and
# sed, not xxd: building needs no more than the build group.
$(BUILD)/gen/mctrace/flame-js.c: mctrace/flame.js
	@mkdir -p $(dir $@)
	{ echo '/* made from mctrace/flame.js by mctrace/mctrace.mk */'; \
	  echo 'extern const char flame_js[];'; \
	  echo 'const char flame_js[] = {'; \
	  od -An -v -tx1 $< | sed 's/ *\([0-9a-f][0-9a-f]\)/0x\1,/g'; \
	  echo '0 };'; } > $@.tmp && mv $@.tmp $@

$(BUILD)/obj/mctrace/flame-js.o: $(BUILD)/gen/mctrace/flame-js.c
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -c -o $@ $<

install: install-mctrace
install-mctrace: $(MCTRACE)
	install -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(MANDIR)/man1
	install -m 755 $(MCTRACE) $(DESTDIR)$(BINDIR)/mctrace
	install -m 644 man/mctrace.1 $(DESTDIR)$(MANDIR)/man1/

uninstall: uninstall-mctrace
uninstall-mctrace:
	rm -f $(DESTDIR)$(BINDIR)/mctrace \
		$(DESTDIR)$(MANDIR)/man1/mctrace.1

-include $(MCTRACE_OBJS:.o=.d)

.PHONY: install-mctrace uninstall-mctrace
