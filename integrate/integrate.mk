# SPDX-License-Identifier: GPL-2.0-only
# Installing, and what a build system needs to take us with one line:
# the compiler launcher (recordmcount-cc), a pkg-config file and a CMake
# package.  Included by the top Makefile.
#
#   make install    PREFIX=/usr/local DESTDIR= (and BINDIR, LIBDIR,
#                   INCLUDEDIR, DATADIR, MANDIR to place each part)
#   make uninstall  the same variables: removes exactly what install put

BINDIR ?= $(PREFIX)/bin
LIBDIR ?= $(PREFIX)/lib
INCLUDEDIR ?= $(PREFIX)/include
DATADIR ?= $(PREFIX)/share/recordmcount
MANDIR ?= $(PREFIX)/share/man
INTEGRATE_OUT := $(BUILD)/integrate
LAUNCHER := $(BUILD)/recordmcount-cc

# The launcher beside the tool, so that build/recordmcount-cc records
# with build/recordmcount.
all: $(LAUNCHER)
$(LAUNCHER): integrate/recordmcount-cc Makefile
	@mkdir -p $(dir $@)
	sed 's|@VERSION@|$(VERSION)|g' $< > $@ && chmod 755 $@

# The installed files name the installed paths (not DESTDIR's staging
# folder); a change of any path variable remakes them.
INTEGRATE_PATHS := $(PREFIX):$(BINDIR):$(LIBDIR):$(INCLUDEDIR):$(DATADIR):$(MANDIR):$(VERSION)
INTEGRATE_SED = sed -e 's|@PREFIX@|$(PREFIX)|g' -e 's|@BINDIR@|$(BINDIR)|g' \
	-e 's|@LIBDIR@|$(LIBDIR)|g' -e 's|@INCLUDEDIR@|$(INCLUDEDIR)|g' \
	-e 's|@DATADIR@|$(DATADIR)|g' -e 's|@VERSION@|$(VERSION)|g'
$(INTEGRATE_OUT)/paths: FORCE
	@mkdir -p $(dir $@)
	@echo '$(INTEGRATE_PATHS)' | cmp -s - $@ || echo '$(INTEGRATE_PATHS)' > $@
$(INTEGRATE_OUT)/%: integrate/%.in $(INTEGRATE_OUT)/paths
	$(INTEGRATE_SED) $< > $@
# The man page's examples show the real paths.
$(INTEGRATE_OUT)/recordmcount.1: man/recordmcount.1 $(INTEGRATE_OUT)/paths
	sed -e 's|/usr/local/share/recordmcount|$(DATADIR)|g' \
		-e 's|/usr/local/lib|$(LIBDIR)|g' $< > $@
INTEGRATE_FILES := $(addprefix $(INTEGRATE_OUT)/,mcount.pc mcountConfig.cmake \
	mcountConfigVersion.cmake recordmcount.1)

install: all $(INTEGRATE_FILES)
	install -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(MANDIR)/man1 $(DESTDIR)$(MANDIR)/man3 \
		$(DESTDIR)$(DATADIR) \
		$(DESTDIR)$(LIBDIR)/pkgconfig $(DESTDIR)$(LIBDIR)/cmake/mcount \
		$(DESTDIR)$(INCLUDEDIR)
	install -m 755 $(RECORDMCOUNT) $(DESTDIR)$(BINDIR)/recordmcount
	install -m 755 $(LAUNCHER) $(DESTDIR)$(BINDIR)/recordmcount-cc
	install -m 644 $(INTEGRATE_OUT)/recordmcount.1 man/recordmcount-cc.1 \
		$(DESTDIR)$(MANDIR)/man1/
	install -m 644 man/mcount.3 $(DESTDIR)$(MANDIR)/man3/
	install -m 644 lds/mcount.lds lds/mcount-section.lds lds/mcount-section-gc.lds \
		$(DESTDIR)$(DATADIR)/
	install -m 644 $(LIBMCOUNT) $(DESTDIR)$(LIBDIR)/
	install -m 755 $(LIBMCOUNT_SO) $(DESTDIR)$(LIBDIR)/
	ln -sf $(RT_SONAME) $(DESTDIR)$(LIBDIR)/libmcount.so
	install -m 644 runtime/include/mcount.h $(DESTDIR)$(INCLUDEDIR)/
	install -m 644 $(INTEGRATE_OUT)/mcount.pc $(DESTDIR)$(LIBDIR)/pkgconfig/
	install -m 644 $(INTEGRATE_OUT)/mcountConfig.cmake \
		$(INTEGRATE_OUT)/mcountConfigVersion.cmake $(DESTDIR)$(LIBDIR)/cmake/mcount/

uninstall:
	rm -f $(DESTDIR)$(BINDIR)/recordmcount $(DESTDIR)$(BINDIR)/recordmcount-cc \
		$(DESTDIR)$(MANDIR)/man1/recordmcount.1 \
		$(DESTDIR)$(MANDIR)/man1/recordmcount-cc.1 $(DESTDIR)$(MANDIR)/man3/mcount.3 \
		$(DESTDIR)$(DATADIR)/mcount.lds $(DESTDIR)$(DATADIR)/mcount-section.lds \
		$(DESTDIR)$(DATADIR)/mcount-section-gc.lds \
		$(DESTDIR)$(LIBDIR)/libmcount.a $(DESTDIR)$(INCLUDEDIR)/mcount.h \
		$(DESTDIR)$(LIBDIR)/$(RT_SONAME) $(DESTDIR)$(LIBDIR)/libmcount.so \
		$(DESTDIR)$(LIBDIR)/pkgconfig/mcount.pc \
		$(DESTDIR)$(LIBDIR)/cmake/mcount/mcountConfig.cmake \
		$(DESTDIR)$(LIBDIR)/cmake/mcount/mcountConfigVersion.cmake
	-rmdir $(DESTDIR)$(DATADIR) $(DESTDIR)$(LIBDIR)/cmake/mcount 2>/dev/null

.PHONY: install uninstall FORCE
FORCE:

