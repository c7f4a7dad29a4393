# SPDX-License-Identifier: GPL-2.0-only
# Benchmarks of `make bench` besides the kernel corpora (bench/bench.sh):
# bench-scale, below, and the runtime (bench/runtime/run.sh):
# boot-time patching cost per site over a program of 100000 functions,
# calls per second of a small function with and without its hook, live
# toggles (alone and under contention), and `mctrace record -p`'s attach
# and detach against the number of sites.
.PHONY: bench-runtime
bench-runtime: $(RECORDMCOUNT) $(LIBMCOUNT) $(LIBMCOUNT_SO) $(MCTRACE)
	@BENCH_OUT=$(BUILD)/bench/runtime sh bench/runtime/run.sh \
		$(RECORDMCOUNT) $(LIBMCOUNT) $(BENCH_FUNCTIONS) $(MCTRACE)

BENCH_FUNCTIONS ?= 100000
bench: bench-runtime bench-scale bench-trace bench-vmlinux

# The recorder's cost per traced call against uftrace's, split into the
# traced thread's and the writer thread's: BENCH_TRACE_ROUNDS rounds of
# every variant, interleaved, each figure's median and interval across
# them (bench/trace/run.sh); then the untraced hooks' cost over a build
# without them, each hook form against the same compiler's plain build,
# BENCH_TRACE_UNTRACED_ROUNDS rounds of short runs (bench/trace/untraced.sh).
.PHONY: bench-trace
bench-trace: $(RECORDMCOUNT) $(LIBMCOUNT) $(MCTRACE)
	@BENCH_OUT=$(BUILD)/bench/trace sh bench/trace/run.sh \
		$(RECORDMCOUNT) $(LIBMCOUNT) $(MCTRACE) $(BENCH_TRACE_CALLS)

BENCH_TRACE_CALLS ?= 6000000

# Instructions per traced call by part of the path (callgrind), on the
# binary bench-trace builds.
# The same binary's CPU per call to a file and to /dev/null, with large
# and small rings (bench/trace/split.sh).
.PHONY: bench-trace-split
bench-trace-split: bench-trace
	@BENCH_OUT=$(BUILD)/bench/trace sh bench/trace/split.sh \
		$(BUILD)/bench/trace/ours

# Another build's library (BENCH_TRACE_AB_LIB, A) against this one's
# (B), interleaved on one program, each split into the traced thread's
# and the writer's where the library counts it (bench/trace/ab.sh).
.PHONY: bench-trace-ab
bench-trace-ab: $(RECORDMCOUNT) $(LIBMCOUNT)
	@[ -n "$(BENCH_TRACE_AB_LIB)" ] || { echo "bench-trace-ab:" \
		"BENCH_TRACE_AB_LIB=another build's libmcount.a, please"; exit 1; }
	@BENCH_OUT=$(BUILD)/bench/trace sh bench/trace/ab.sh $(RECORDMCOUNT) \
		$(BENCH_TRACE_AB_LIB) $(LIBMCOUNT)

.PHONY: bench-trace-profile
bench-trace-profile: bench-trace
	@BENCH_OUT=$(BUILD)/bench/trace sh bench/trace/profile.sh \
		$(BUILD)/bench/trace/ours

# Cost against input size, ours and the kernel tool's (bench/scale.py):
# BENCH_SCALE_MAX=1000000 adds the million-hook objects (minutes);
# BENCH_SCALE_PAIRED (default 41) is the number of interleaved rounds
# of the one-.text rows, BENCH_SCALE_SHAPES="one" or "sections" runs
# one shape only.
.PHONY: bench-scale
bench-scale: $(RECORDMCOUNT)
	@bench/scale.sh $(RECORDMCOUNT)

# The vmlinux.o of check-kernel's x86_64 build recorded whole by ours and
# the kernel's tool: tables compared, instructions, wall and memory
# (bench/vmlinux.py); SKIP when that build is not in the cache.
.PHONY: bench-vmlinux
bench-vmlinux: $(RECORDMCOUNT)
	@sh bench/vmlinux.sh $(RECORDMCOUNT) $(BUILD)/bench/vmlinux
