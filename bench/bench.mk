# Runtime benchmarks (bench/runtime/run.sh), part of `make bench`:
# boot-time patching cost per site over a program of 100000 functions,
# and calls per second of a small function with and without its hook.
.PHONY: bench-runtime
bench-runtime: $(RECORDMCOUNT) $(LIBMCOUNT)
	@BENCH_OUT=$(BUILD)/bench/runtime sh bench/runtime/run.sh \
		$(RECORDMCOUNT) $(LIBMCOUNT) $(BENCH_FUNCTIONS)

BENCH_FUNCTIONS ?= 100000
bench: bench-runtime
