# SPDX-License-Identifier: GPL-2.0-only
# mctrace/mctrace.mk - the mctrace command (mctrace/), which runs a
# program under the recorder (recorder/) and reads its traces.
#
# Included by the top Makefile.  It shares only recorder/format.h with
# the library; it links nothing of the runtime.
#
#   make $(MCTRACE)       build/mctrace
#   make install          also installs mctrace and man/mctrace.1

MCTRACE := $(BUILD)/mctrace
MCTRACE_SRCS := mctrace/main.c mctrace/cli.c mctrace/record.c \
	mctrace/report.c mctrace/graph.c mctrace/replay.c mctrace/dump.c \
	mctrace/raw.c mctrace/chrome.c mctrace/folded.c mctrace/flame.c \
	mctrace/pfconv.c mctrace/perfetto.c mctrace/pb.c \
	mctrace/output.c mctrace/trace.c mctrace/calls.c mctrace/events.c \
	mctrace/filter.c mctrace/tree.c mctrace/stats.c mctrace/info.c
MCTRACE_OBJS := $(MCTRACE_SRCS:%.c=$(BUILD)/obj/%.o)

all: $(MCTRACE)

# -lstdc++: its __cxa_demangle demangles C++ names (mctrace/calls.c)
$(MCTRACE): $(MCTRACE_OBJS)
	$(CC) $(CFLAGS) $(SAN_FLAGS) -o $@ $^ -lstdc++

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
