# SPDX-License-Identifier: MIT
# runtime/runtime.mk - libmcount.a for the host and for other
# architectures, the demo and the runtime tests.
#
# Included by the top Makefile, which defines CC, CFLAGS and ARCH_SRCS.
#
#   make $(LIBMCOUNT)          the host's runtime (build/libmcount.a)
#   make runtime-cross RT_ARCH=i386 [CROSS_CC=i686-linux-gnu-gcc]
#                              build/i386/libmcount.a, with CROSS_CC or
#                              else RT_CC_i386; `make build/i386/libmcount.a`
#                              does the same with RT_CC_i386
#   make demo                  build and run examples/demo (host)
#   make check-runtime         end-to-end tests in tests/runtime: the
#                              host, then every RT_CROSS_ARCHES whose
#                              compiler is installed (SKIP otherwise),
#                              each with GCC, clang and clang-16
#   make check-runtime-freestanding   core/ + arch/ with no libc, for
#                              the host and each installed cross target
#
# A backend (see runtime/platform.h) is runtime/<arch>/backend.h and
# runtime/<arch>/trampoline.S, plus the arch/ file holding its table.
# To add one here: append <arch> to RT_BACKENDS and set RT_ARCH_SRC_<arch>
# and RT_CC_<arch>; tests/runtime/arches.sh holds the test side.  <arch>
# is the name `$(CC) -dumpmachine` maps to through rt_arch_of (i686 ->
# i386, powerpc64le -> ppc64le, else the first field).
#
# Objects go to $(BUILD)/obj/runtime/<arch>/.  Cross targets always
# build with -Werror: their job is to prove the runtime has no
# assumption from the host left in it.
#
# RECORDMCOUNT (from the top Makefile) names the recordmcount binary the
# demo and the tests use to add __mcount_loc.

rt_arch_of = $(patsubst i%86,i386,$(patsubst powerpc64le,ppc64le,$(firstword $(subst -, ,$(1)))))

RT_BACKENDS := x86_64 i386
RT_ARCH_SRC_x86_64 := arch/x86.c
RT_ARCH_SRC_i386 := arch/x86.c
RT_CC_x86_64 ?= x86_64-linux-gnu-gcc
RT_CC_i386 ?= i686-linux-gnu-gcc
RT_BACKENDS += aarch64 riscv64 arm
RT_ARCH_SRC_aarch64 := arch/aarch64.c
RT_ARCH_SRC_riscv64 := arch/riscv.c
RT_ARCH_SRC_arm := arch/arm.c
RT_CC_aarch64 ?= aarch64-linux-gnu-gcc
RT_CC_riscv64 ?= riscv64-linux-gnu-gcc
RT_CC_arm ?= arm-linux-gnueabihf-gcc
RT_BACKENDS += ppc64le s390x
RT_ARCH_SRC_ppc64le := arch/powerpc.c
RT_ARCH_SRC_s390x := arch/s390.c
RT_CC_ppc64le ?= powerpc64le-linux-gnu-gcc
RT_CC_s390x ?= s390x-linux-gnu-gcc

RT_HOST := $(call rt_arch_of,$(shell $(CC) -dumpmachine 2>/dev/null))
RT_CC_$(RT_HOST) := $(CC)
RT_CROSS_ARCHES := $(filter-out $(RT_HOST),$(RT_BACKENDS))
ifdef CROSS_CC
RT_CC_$(RT_ARCH) := $(CROSS_CC)
endif

# core/: the portable runtime, freestanding (runtime/core/core.h says
# which file does what).
RT_CORE := site text forms table boot runs thunks image toggle dispatch \
	   list errors
RT_CORE_SRCS := $(RT_CORE:%=runtime/core/%.c)
# linux/: the platform layer of a Linux process (runtime/linux/linux.h).
RT_LINUX := elffile objects symbols mem names loader autoboot
RT_LINUX_SRCS := $(RT_LINUX:%=runtime/linux/%.c)
RT_CSRCS := $(RT_CORE_SRCS) $(RT_LINUX_SRCS)
RT_HDRS := runtime/include/mcount.h runtime/platform.h runtime/client.h \
	   runtime/core/core.h runtime/core/window.h runtime/linux/linux.h \
	   $(wildcard runtime/*/backend.h) arch/arch.h arch/search.h
RT_OBJROOT := $(BUILD)/obj/runtime

# The runtime is what the hooks call: it must never carry hooks itself.
# -fPIC so the library links into PIE and non-PIE programs alike;
# -fno-tree-loop-distribute-patterns keeps GCC from turning the engine's
# byte loops into memcpy calls it could not make freestanding.
RT_NOHOOK := -pg -p -mfentry -mrecord-mcount -mnop-mcount \
	     -finstrument-functions -fpatchable-function-entry=%
RT_CFLAGS = -std=c11 $(WARN) $(filter-out $(RT_NOHOOK),$(CFLAGS)) -fPIC \
	    -fno-tree-loop-distribute-patterns -Iruntime/include

# The objects of <arch>'s library; $* is the arch in the rules below.
# The platform layer is one member, linux.o (its files linked together
# with -r), so that a program that boots pulls all of it, the
# constructor and the dlopen wrappers included, as it pulls nothing of
# it otherwise.  RT_PLATFORM_MEMBER (recorder/recorder.mk) stands in for
# linux.o when another room folds its objects into that member.
rt_objs = $(addprefix $(RT_OBJROOT)/$(1)/,$(RT_CORE:%=core-%.o) \
	  $(or $(RT_PLATFORM_MEMBER),linux.o) trampoline.o arch.o)
RT_COMPILE = $(RT_CC_$*) $(RT_CFLAGS) $(if $(filter $*,$(RT_HOST)),,-Werror) \
	     -c $< -o $@

RT_OBJS = $(call rt_objs,$(RT_HOST))

# core/<file>.c to $(RT_OBJROOT)/<arch>/core-<file>.o
define rt_core_rule
$$(RT_OBJROOT)/%/core-$(1).o: runtime/core/$(1).c $$(RT_HDRS)
	@mkdir -p $$(@D)
	$$(RT_COMPILE)
endef
$(foreach f,$(RT_CORE),$(eval $(call rt_core_rule,$(f))))

# linux/<file>.c to $(RT_OBJROOT)/<arch>/linux-<file>.o
define rt_linux_rule
$$(RT_OBJROOT)/%/linux-$(1).o: runtime/linux/$(1).c $$(RT_HDRS)
	@mkdir -p $$(@D)
	$$(RT_COMPILE)
endef
$(foreach f,$(RT_LINUX),$(eval $(call rt_linux_rule,$(f))))

$(RT_OBJROOT)/%/trampoline.o: runtime/%/trampoline.S
	@mkdir -p $(@D)
	$(RT_COMPILE)

# The arch/ file differs per backend: GNU make's second expansion
# lets the prerequisite depend on the stem.
.SECONDEXPANSION:
$(RT_OBJROOT)/%/arch.o: $$(RT_ARCH_SRC_$$*) arch/arch.h
	@mkdir -p $(@D)
	$(RT_COMPILE)

$(RT_OBJROOT)/%/linux.o: \
		$$(addprefix $(RT_OBJROOT)/$$*/linux-,$$(addsuffix .o,$$(RT_LINUX)))
	$(RT_CC_$*) -r -nostdlib -o $@ $^

$(LIBMCOUNT): $$(RT_OBJS)
	rm -f $@
	$(AR) rcs $@ $^

# libmcount.so: the same objects, exporting only what libmcount.map
# lists.  The SONAME carries the ABI's major number (RT_SOVERSION):
# raise it when a struct of mcount.h changes size.
RT_SOVERSION := 0
RT_SONAME := libmcount.so.$(RT_SOVERSION)
LIBMCOUNT_SO := $(BUILD)/$(RT_SONAME)
RT_SO_LDFLAGS = -shared -Wl,-soname,$(RT_SONAME) \
	-Wl,--version-script=runtime/libmcount.map -Wl,-z,defs
$(LIBMCOUNT_SO): $$(RT_OBJS) runtime/libmcount.map
	$(CC) $(RT_SO_LDFLAGS) -o $@ $(RT_OBJS) -ldl -lpthread
	ln -sf $(RT_SONAME) $(BUILD)/libmcount.so
all: $(LIBMCOUNT_SO)

$(BUILD)/%/$(RT_SONAME): $$(call rt_objs,$$*) runtime/libmcount.map
	@mkdir -p $(@D)
	$(RT_CC_$*) $(RT_SO_LDFLAGS) -o $@ $(call rt_objs,$*) -ldl -lpthread
	ln -sf $(RT_SONAME) $(@D)/libmcount.so

$(BUILD)/%/libmcount.a: $$(call rt_objs,$$*)
	@mkdir -p $(@D)
	rm -f $@
	$(AR) rcs $@ $^

# Built through pattern rules, so make would delete them as intermediates.
.SECONDARY: $(foreach a,$(RT_BACKENDS),$(call rt_objs,$(a)) \
	$(RT_LINUX:%=$(RT_OBJROOT)/$(a)/linux-%.o) $(RT_OBJROOT)/$(a)/linux.o)

runtime-cross:
	@test -n "$(RT_ARCH)" || { echo "usage: make runtime-cross RT_ARCH=<$(RT_CROSS_ARCHES)> [CROSS_CC=cc]"; exit 2; }
	@$(MAKE) --no-print-directory $(BUILD)/$(RT_ARCH)/libmcount.a

# core/ and its arch/ file must build with no libc at all: compile
# them freestanding, alone, and fail if they reference anything the
# platform layer and trampoline do not define.  The host compiles every arch/
# file; each installed cross target its own, with -Werror.  (.TOC. is
# ppc64 ELFv2's TOC base, made by the linker like _GLOBAL_OFFSET_TABLE_;
# __ehdr_start, weak, is the linker's too: where a PIE's cleared table
# entries point once relocated.)
RT_FREE_OK := __fentry__ mcount _mcount __gnu_mcount_nc \
	      __start_mcount_loc __stop_mcount_loc __ehdr_start _GLOBAL_OFFSET_TABLE_ \
	      mc_arch_% mc_rt_% mc_plat_% .TOC.
RT_FREE_RE = $(subst %,.*,$(subst $(space),|,$(strip $(RT_FREE_OK))))

# rt_freestanding <arch> <cc> <sources> <extra flags>
define rt_freestanding
	@d=$(RT_OBJROOT)/free/$(1); mkdir -p $$d; rm -f $$d/*.o; \
	for f in $(3); do \
		$(2) $(RT_CFLAGS) $(4) -ffreestanding -nostdlib -c $$f \
			-o $$d/$$(basename $$f .c).o || exit 1; \
	done; \
	bad=$$(nm -u $$d/*.o | awk 'NF == 2 { print $$2 }' | \
		sort -u | grep -vxE '$(RT_FREE_RE)'); \
	if [ -n "$$bad" ]; then \
		echo "FAIL: [$(1)] freestanding core/ needs: $$bad"; exit 1; \
	else echo "PASS: [$(1)] core/ and arch/ build freestanding, no libc"; fi
endef

check-runtime-freestanding: $(RT_CORE_SRCS) $(ARCH_SRCS) $(RT_HDRS)
	$(call rt_freestanding,$(RT_HOST),$(CC),$(RT_CORE_SRCS) $(ARCH_SRCS),)
	@$(foreach a,$(RT_CROSS_ARCHES),\
	if command -v $(RT_CC_$(a)) >/dev/null; then \
		$(MAKE) --no-print-directory rt-free-$(a) || exit 1; \
	else echo "SKIP: [$(a)] freestanding: no $(RT_CC_$(a))"; fi;)

rt-free-%: $(RT_CORE_SRCS) $(RT_HDRS)
	$(call rt_freestanding,$*,$(RT_CC_$*),$(RT_CORE_SRCS) $(RT_ARCH_SRC_$*),-Werror)

space := $(subst ,, )

demo:
	@$(MAKE) --no-print-directory $(RECORDMCOUNT) $(LIBMCOUNT)
	CC="$(CC)" LIBMCOUNT=$(LIBMCOUNT) OUT=$(BUILD)/demo \
		sh examples/demo/run.sh $(RECORDMCOUNT)

# run.sh once per target and compiler, in lanes (tests/lanes.mk) named
# <compiler>.<arch>: gcc.<arch> with RT_CC_<arch> (the host's $(CC)) and
# its library, then one lane for each of RT_CLANGS against that same
# GCC-built library; and the freestanding build (free).  A cross
# target's libraries are built before the lanes start, as one make, so
# no two lanes build the same files; its gcc lane says whether that
# build passed (a failed one is a FAIL line, and its clang lanes SKIP).
# All output lands in runtime.out.
#
# The clang lanes are the cases of RT_CLANG_CASES in
# tests/runtime/arches.sh, those whose hook flags clang has, with
# --target and Debian's cross libc for the others; no sanitizer or
# valgrind repeats (run.sh says SKIP for those).
RT_CLANGS := clang clang-16
RT_LANES := gcc.$(RT_HOST) $(foreach a,$(RT_CROSS_ARCHES),gcc.$(a)) \
	$(foreach c,$(RT_CLANGS),$(foreach a,$(RT_HOST) $(RT_CROSS_ARCHES),$(c).$(a))) \
	free
RT_CROSS_LIBS = $(foreach a,$(RT_CROSS_ARCHES),\
	$(if $(shell command -v $(RT_CC_$(a))),$(BUILD)/$(a)/libmcount.a))
rt_lane_cc = $(basename $*)
rt_lane_arch = $(patsubst .%,%,$(suffix $*))
rt_lane_lib = $(if $(filter $(RT_HOST),$(rt_lane_arch)),$(LIBMCOUNT),$(BUILD)/$(rt_lane_arch)/libmcount.a)

check-runtime: $(RECORDMCOUNT) $(LIBMCOUNT)
	@( mkdir -p $(LANES); \
	  $(MAKE) --no-print-directory -k -j$(CHECK_JOBS) $(RT_CROSS_LIBS) \
		> $(LANES)/runtime-libs.out 2>&1; \
	  $(call run_lanes,runtime,$(RT_LANES)) ) > $(BUILD)/runtime.out 2>&1; \
	status=$$?; \
	cat $(BUILD)/runtime.out; mkdir -p $(TEST_RESULTS); \
	grep -E '^(PASS|FAIL|SKIP)' $(BUILD)/runtime.out >> $(TEST_RESULTS)/runtime.log; \
	exit $$status

runtime-lane.free:
	@$(lane_begin) $(MAKE) --no-print-directory check-runtime-freestanding $(lane_end)

# the host's gcc lane, then a cross target's: its library's build first
runtime-lane.gcc.$(RT_HOST):
	@$(lane_begin) RT_ARCH=$(RT_HOST) CC="$(CC)" LIBMCOUNT=$(LIBMCOUNT) \
		RECORDMCOUNT=$(RECORDMCOUNT) OUT=$(BUILD)/tests/runtime \
		sh tests/runtime/run.sh $(lane_end)

runtime-lane.gcc.%:
	@$(lane_begin) \
	if ! command -v $(RT_CC_$*) >/dev/null; then \
		echo "SKIP: [$*] runtime tests: no $(RT_CC_$*)"; \
	elif $(MAKE) --no-print-directory $(BUILD)/$*/libmcount.a; then \
		echo "PASS: [$*] libmcount.a builds with -Wall -Wextra -Werror"; \
		RT_ARCH=$* CC="$(RT_CC_$*)" LIBMCOUNT=$(BUILD)/$*/libmcount.a \
		RECORDMCOUNT=$(RECORDMCOUNT) OUT=$(BUILD)/tests/runtime/$* \
		sh tests/runtime/run.sh; \
	else echo "FAIL: [$*] libmcount.a builds with -Wall -Wextra -Werror"; \
		exit 1; fi $(lane_end)

runtime-lane.%:
	@$(lane_begin) c=$(rt_lane_cc); a=$(rt_lane_arch); \
	if ! command -v $$c >/dev/null; then \
		echo "SKIP: [$$a $$c] runtime tests: no $$c"; \
	elif ! command -v $(RT_CC_$(rt_lane_arch)) >/dev/null; then \
		echo "SKIP: [$$a $$c] runtime tests: no $(RT_CC_$(rt_lane_arch)) (its libc and ld)"; \
	elif [ ! -f $(rt_lane_lib) ]; then \
		echo "SKIP: [$$a $$c] runtime tests: no $(rt_lane_lib) (its build failed: see [$$a])"; \
	else RT_ARCH=$$a RT_CLANG=$$c LIBMCOUNT=$(rt_lane_lib) \
		RECORDMCOUNT=$(RECORDMCOUNT) NO_VALGRIND=1 NO_SANITIZE=1 \
		OUT=$(BUILD)/tests/runtime/$$c/$$a sh tests/runtime/run.sh; fi $(lane_end)

clean-runtime:
	rm -rf $(RT_OBJROOT) $(LIBMCOUNT) $(RT_BACKENDS:%=$(BUILD)/%/libmcount.a) \
		$(BUILD)/demo $(BUILD)/tests/runtime

.PHONY: demo runtime-cross check-runtime check-runtime-freestanding \
	clean-runtime
