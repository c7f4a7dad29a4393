/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * arch.c - fuzz target: the arch/ decoders and encoders on any bytes.
 *
 * The runtime decodes whatever bytes sit at a table entry before it
 * patches them, and the CLI matches forms against any object's code, so
 * every decoder must stay inside the `avail` bytes it is given and every
 * encoder inside its output.  Inputs are exact-size heap copies, so
 * AddressSanitizer sees a read or write one byte past the end.
 *
 * Input: arch selector, length, site and target addresses, a relocation
 * offset, then the code bytes.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../arch/arch.h"
#include "common.h"

enum { EM_ARM = 40, EM_SH = 42 };

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

struct input {
	const struct mc_arch *arch;
	unsigned len;
	uint64_t site, target, r_offset;
	const uint8_t *code;
	size_t n;
};

static size_t n_arches(void)
{
	size_t n = 0;

	while (mc_all_arches[n])
		n++;
	return n;
}

static uint64_t take64(const uint8_t *p)
{
	uint64_t v = 0;

	for (int i = 0; i < 8; i++)
		v = v << 8 | p[i];
	return v;
}

static bool parse(const uint8_t *data, size_t size, struct input *in)
{
	if (size < 26)
		return false;
	in->arch = mc_all_arches[data[0] % n_arches()];
	in->len = data[1] % (MC_MAX_FORM_BYTES + 1);
	in->site = take64(data + 2);
	in->target = take64(data + 10);
	in->r_offset = take64(data + 18) % (size - 26 + 8);
	if (in->arch->elf_class == 32) {	/* addresses of its width */
		in->site &= 0xffffffff;
		in->target &= 0xffffffff;
	}
	in->code = data + 26;
	in->n = size - 26;
	return true;
}

static void *heap_copy(const uint8_t *p, size_t n)
{
	uint8_t *c = malloc(n ? n : 1);

	if (!c)
		fuzz_fail("out of memory");
	memcpy(c, p, n);
	return c;
}

/* Touch every byte of a returned constant, for ASan's global checks. */
static unsigned touch(const uint8_t *p, size_t n)
{
	unsigned sum = 0;

	for (size_t i = 0; p && i < n; i++)
		sum += p[i];
	return sum;
}

static void decode(const struct mc_arch *a, const uint8_t *code, size_t n,
		   uint64_t addr)
{
	struct mc_site s = mc_decode_site(a, code, n, addr);

	if (a->decode_disabled) {
		struct mc_site off = a->decode_disabled(a, code, n, addr);

		if (off.kind != MC_SITE_UNKNOWN &&
		    (off.kind != MC_SITE_CALL || off.len == 0 || off.len > n))
			fuzz_fail("decode_disabled claims bytes it was not "
				  "given");
	}
	/* PLT decoders read `n` bytes at most (ASan checks the heap copy),
	   from any base, and as a Thumb entry too */
	mc_plt_slot(a, code, n, addr, addr ^ 0x8000);
	mc_plt_slot(a, code, n, addr | 1, 0);
	if (s.kind == MC_SITE_UNKNOWN)
		return;
	if (s.len == 0 || s.len > n)
		fuzz_fail("decode_site claims bytes it was not given");
	if (a->site_neutral)
		touch(mc_site_neutral(a, &s), s.len);
}

/*
 * The disabled form live_opcode makes of the call in `out` (len bytes
 * at `site`, to `target`) must read back as that call: what the runtime
 * takes from a file --finalize --prepatch wrote.
 */
static void disabled_roundtrip(const struct mc_arch *a, uint8_t *out,
			       unsigned len, uint64_t site, uint64_t target)
{
	uint8_t test;
	unsigned op;
	struct mc_site s;

	if (!a->decode_disabled || !a->live_opcode)
		return;
	op = a->live_opcode(a, len, false, &test);
	if (op >= len)
		fuzz_fail("live_opcode points past the call");
	out[op] = test;
	s = a->decode_disabled(a, out, len, site);
	if (s.kind != MC_SITE_CALL || s.len != len || s.target != target)
		fuzz_fail("decode_disabled does not read back the disabled "
			  "form of a call encode_call wrote");
}

static void encode(const struct input *in)
{
	const struct mc_arch *a = in->arch;
	uint8_t *out = malloc(in->len ? in->len : 1);

	if (!out)
		fuzz_fail("out of memory");
	if (a->encode_nop && mc_encode_nop(a, out, in->len))
		decode(a, out, in->len, in->site);
	/*
	 * What the runtime writes, it must recognise -- except on SH, where
	 * the "call" is a literal pool word that only the code after it
	 * (lds.l @r15+,pr) makes a hook.
	 */
	if (a->encode_call && a->e_machine != EM_SH &&
	    mc_encode_call(a, out, in->len, in->site, in->target)) {
		struct mc_site s = mc_decode_site(a, out, in->len, in->site);

		if (s.kind != MC_SITE_CALL || s.target != in->target) {
			fprintf(stderr, "fuzz: %s len %u site %#llx target "
				"%#llx: decoded kind %d len %u target %#llx\n",
				a->name, in->len, (unsigned long long)in->site,
				(unsigned long long)in->target, (int)s.kind,
				s.len, (unsigned long long)s.target);
			fuzz_fail("encode_call wrote a call decode_site "
				  "does not read back");
		}
		disabled_roundtrip(a, out, in->len, in->site, in->target);
	}
	free(out);
	if (a->encode_pad_call && a->pad_call_len) {
		/* A window of the call's length, or of the longer NOPs it
		 * may have to cover (x86: up to 15 bytes). */
		unsigned len = a->pad_call_len + (unsigned)(in->site % 12);

		out = malloc(len);
		if (!out)
			fuzz_fail("out of memory");
		mc_encode_pad_call(a, out, len, in->site, in->target);
		free(out);
	}
}

static void match(const struct input *in, const uint8_t *code)
{
	const struct mc_arch *a = in->arch;

	for (unsigned f = 0; f < a->n_forms; f++)
		for (unsigned t = 0; t < a->forms[f].n_reloc_types; t++)
			mc_match_form(a, a->forms[f].reloc_types[t], code, in->n,
				      in->r_offset);
	mc_match_insn(a->pad_nops, a->n_pad_nops, code, in->n);
	mc_match_insn(a->entry_prefixes, a->n_entry_prefixes, code, in->n);
	if (a->pad_neutral && a->pad_call_len) {
		unsigned len = 0;
		const uint8_t *neutral = mc_pad_neutral(a, code, in->n, &len);

		if (neutral)
			touch(neutral, len);
	}
}

/*
 * The arm recorder's prologue reader, on any bytes in either state: the
 * runtime hands it the code between a function's symbol and its hook.
 */
static void prologue(const struct input *in, const uint8_t *code)
{
	uint32_t taken, lr_at;

	if (in->arch->e_machine == EM_ARM)
		mc_arch_arm_prologue(code, in->n, in->site & 1, &taken,
				     &lr_at);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct input in;

	if (!parse(data, size, &in))
		return 0;
	uint8_t *code = heap_copy(in.code, in.n);

	decode(in.arch, code, in.n, in.site);
	match(&in, code);
	prologue(&in, code);
	encode(&in);
	free(code);
	return 0;
}
