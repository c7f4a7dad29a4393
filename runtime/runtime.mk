# runtime/runtime.mk - libmcount.a, the demo and the runtime tests.
#
# Included by the top Makefile, which defines CC, CFLAGS and ARCH_SRCS.
#
#   make $(LIBMCOUNT)          the static runtime library (build/libmcount.a)
#   make demo                  build and run examples/demo
#   make check-runtime         end-to-end tests in tests/runtime
#
# RECORDMCOUNT (from the top Makefile) names the recordmcount binary the
# demo and the tests use to add __mcount_loc.

RT_CSRCS := runtime/engine.c runtime/hosted.c runtime/hostsym.c
RT_ASRCS := runtime/x86_64/trampoline.S
RT_HDRS := runtime/include/mcount.h runtime/platform.h runtime/hosted.h \
	   arch/arch.h
RT_OBJDIR := $(BUILD)/obj/runtime

# The runtime is what the hooks call: it must never carry hooks itself.
# -fPIC so the library links into PIE and non-PIE programs alike;
# -fno-tree-loop-distribute-patterns keeps GCC from turning the engine's
# byte loops into memcpy calls it could not make freestanding.
RT_NOHOOK := -pg -p -mfentry -mrecord-mcount -mnop-mcount \
	     -finstrument-functions -fpatchable-function-entry=%
RT_CFLAGS = -std=c11 $(WARN) $(filter-out $(RT_NOHOOK),$(CFLAGS)) -fPIC \
	    -fno-tree-loop-distribute-patterns -Iruntime/include

RT_OBJS := $(patsubst runtime/%.c,$(RT_OBJDIR)/%.o,$(RT_CSRCS)) \
	   $(patsubst runtime/x86_64/%.S,$(RT_OBJDIR)/%.o,$(RT_ASRCS)) \
	   $(patsubst arch/%.c,$(RT_OBJDIR)/arch-%.o,$(ARCH_SRCS))

$(RT_OBJDIR)/%.o: runtime/%.c $(RT_HDRS)
	@mkdir -p $(RT_OBJDIR)
	$(CC) $(RT_CFLAGS) -c $< -o $@

$(RT_OBJDIR)/%.o: runtime/x86_64/%.S
	@mkdir -p $(RT_OBJDIR)
	$(CC) $(RT_CFLAGS) -c $< -o $@

$(RT_OBJDIR)/arch-%.o: arch/%.c arch/arch.h
	@mkdir -p $(RT_OBJDIR)
	$(CC) $(RT_CFLAGS) -c $< -o $@

$(LIBMCOUNT): $(RT_OBJS)
	rm -f $@
	$(AR) rcs $@ $^

# The engine and arch/ must build with no libc at all: compile them
# freestanding and fail if they reference anything the platform layer
# and trampoline do not define.
RT_FREE_OK := __fentry__ mcount __start_mcount_loc __stop_mcount_loc \
	      _GLOBAL_OFFSET_TABLE_ mc_arch_x86_64 mc_arch_i386 \
	      mc_rt_tramp_fentry mc_rt_tramp_mcount mc_plat_%

check-runtime-freestanding: runtime/engine.c $(ARCH_SRCS) $(RT_HDRS)
	@mkdir -p $(RT_OBJDIR)/free
	@for f in runtime/engine.c $(ARCH_SRCS); do \
		$(CC) $(RT_CFLAGS) -ffreestanding -nostdlib -c $$f \
			-o $(RT_OBJDIR)/free/$$(basename $$f .c).o || exit 1; \
	done
	@bad=$$(nm -u $(RT_OBJDIR)/free/*.o | awk 'NF == 2 { print $$2 }' | \
		sort -u | grep -vxE '$(subst %,.*,$(subst $(space),|,$(strip $(RT_FREE_OK))))'); \
	if [ -n "$$bad" ]; then \
		echo "FAIL: freestanding engine needs: $$bad"; exit 1; \
	else echo "PASS: engine and arch/ build freestanding, no libc"; fi

space := $(subst ,, )

demo: deps
	@$(MAKE) --no-print-directory $(RECORDMCOUNT) $(LIBMCOUNT)
	CC="$(CC)" LIBMCOUNT=$(LIBMCOUNT) OUT=$(BUILD)/demo \
		sh examples/demo/run.sh $(RECORDMCOUNT)

check-runtime: $(RECORDMCOUNT) $(LIBMCOUNT)
	@{ $(MAKE) --no-print-directory check-runtime-freestanding && \
	  CC="$(CC)" LIBMCOUNT=$(LIBMCOUNT) RECORDMCOUNT=$(RECORDMCOUNT) \
		OUT=$(BUILD)/tests/runtime sh tests/runtime/run.sh; } \
		> $(BUILD)/runtime.out 2>&1; status=$$?; cat $(BUILD)/runtime.out; \
	grep -E '^(PASS|FAIL)' $(BUILD)/runtime.out >> $(TEST_RESULTS)/runtime.log; \
	exit $$status

clean-runtime:
	rm -rf $(RT_OBJDIR) $(LIBMCOUNT) $(BUILD)/demo $(BUILD)/tests/runtime

.PHONY: demo check-runtime check-runtime-freestanding clean-runtime
