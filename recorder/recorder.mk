# SPDX-License-Identifier: MIT
# recorder/recorder.mk - the trace recorder (recorder/), part of every
# libmcount.a.
#
# Included by the top Makefile after runtime/runtime.mk.  The recorder
# is hosted C (pthreads, files) over the runtime's slot hook
# (runtime/platform.h); per architecture it has a return trampoline,
# recorder/<arch>/return.S, which a new backend must bring.
#
# A program pulls an archive member only for a symbol it needs, and no
# runtime file names the recorder (the arrows point from recorder/ to
# runtime/).  So the recorder's objects are linked together with the
# platform layer (linux.o, which every program that boots pulls) into
# one relocatable object, the archive's `linux-rec.o`: runtime.mk puts
# RT_PLATFORM_MEMBER in the archive in place of linux.o.

REC_CSRCS := recorder/record.c recorder/args.c recorder/ring.c recorder/config.c \
	     recorder/writer.c recorder/out.c recorder/compact.c \
	     recorder/json.c recorder/names.c recorder/info.c \
	     recorder/start.c recorder/attach.c \
	     recorder/filters.c recorder/wrap.c recorder/libs.c \
	     recorder/demangle.c recorder/globs.c
REC_HDRS := recorder/recorder.h recorder/format.h recorder/attach.h \
	    runtime/client.h \
	    runtime/platform.h runtime/include/mcount.h
RT_PLATFORM_MEMBER := linux-rec.o

# The recorder's objects of <arch>: its C files, its trampoline,
# recorder/<arch>/frame.c where it has one (aarch64, arm, riscv64), and
# recorder/<arch>/entry.S where it has one (x86_64: rec_entry's common
# case in assembly).
rec_objs = $(addprefix $(RT_OBJROOT)/$(1)/rec-,$(notdir $(REC_CSRCS:.c=.o)) \
	   return.o \
	   $(if $(wildcard recorder/$(1)/frame.c),frame.o sitekeys.o) \
	   $(if $(wildcard recorder/$(1)/entry.S),entry.o))

# Where the runtime can call the entry hook without saving the vector
# registers (MC_RT_GPR_SLOT_HOOK), record.c is built not to touch them.
REC_GPR_ONLY_x86_64 := -mgeneral-regs-only -DREC_GPR_ONLY

$(RT_OBJROOT)/%/rec-record.o: recorder/record.c recorder/ring.h $(REC_HDRS) \
		$$(wildcard recorder/$$*/entry.h) recorder/lp64.h
	@mkdir -p $(@D)
	$(RT_COMPILE) $(REC_GPR_ONLY_$*)

# args.c runs on the same path, before the traced function does.
$(RT_OBJROOT)/%/rec-args.o: recorder/args.c recorder/ring.h $(REC_HDRS) \
		$(RT_HDRS)
	@mkdir -p $(@D)
	$(RT_COMPILE) $(REC_GPR_ONLY_$*)

# The plain C files: rec_c_rule NAME [MORE PREREQUISITES]; those that
# use the runtime's own headers depend on them too.
define rec_c_rule
$$(RT_OBJROOT)/%/rec-$(1).o: recorder/$(1).c $$(REC_HDRS) $(2)
	@mkdir -p $$(@D)
	$$(RT_COMPILE)
endef
$(foreach f,writer ring config out compact json demangle globs, \
	$(eval $(call rec_c_rule,$(f))))
$(foreach f,start attach filters libs names info, \
	$(eval $(call rec_c_rule,$(f),$$(RT_HDRS))))

# The unwinder steps through wrap.c's frames (its wrappers of the
# unwinder's entry points call the real ones): they need unwind tables
# even where the compiler makes none by default for C (riscv64's GCC 12,
# 32-bit ARM's EHABI).
$(RT_OBJROOT)/%/rec-wrap.o: recorder/wrap.c $(REC_HDRS) recorder/recorder.mk
	@mkdir -p $(@D)
	$(RT_COMPILE) -funwind-tables

$(RT_OBJROOT)/%/rec-return.o: recorder/%/return.S \
		$$(wildcard recorder/$$*/entry.h) recorder/lp64.h
	@mkdir -p $(@D)
	$(RT_COMPILE)

$(RT_OBJROOT)/%/rec-entry.o: recorder/%/entry.S recorder/%/entry.h \
		recorder/lp64.h
	@mkdir -p $(@D)
	$(RT_COMPILE)

$(RT_OBJROOT)/%/rec-frame.o: recorder/%/frame.c $(REC_HDRS)
	@mkdir -p $(@D)
	$(RT_COMPILE)

$(RT_OBJROOT)/%/rec-sitekeys.o: recorder/sitekeys.c $(REC_HDRS)
	@mkdir -p $(@D)
	$(RT_COMPILE)

$(RT_OBJROOT)/%/linux-rec.o: $(RT_OBJROOT)/%/linux.o $$(call rec_objs,$$*)
	$(RT_CC_$*) -r -nostdlib -o $@ $^

.SECONDARY: $(foreach a,$(RT_BACKENDS),$(call rec_objs,$(a)) \
	$(RT_OBJROOT)/$(a)/linux-rec.o)
