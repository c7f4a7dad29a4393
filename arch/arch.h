/* SPDX-License-Identifier: MIT */
/*
 * arch.h - what recordmcount and the runtime need to know about one
 * architecture's function-entry hooks.
 *
 * Everything here is a fact (relocation numbers, instruction bytes) or a
 * pure function over bytes.  Nothing depends on libelf or libc beyond
 * <stdint.h>/<stddef.h>/<stdbool.h>, so the runtime can use these tables
 * in a freestanding firmware build as well as in the CLI.
 *
 * Two views of a hook exist:
 *  - in a relocatable object, a hook is a relocation against a hook
 *    symbol (__fentry__, mcount, ...) inside a call instruction.  The
 *    CLI matches it with a `struct mc_object_form`.
 *  - in a linked image, the relocation is gone and only bytes remain.
 *    The runtime and `--dump` classify them with mc_decode_site().
 */
#ifndef MC_ARCH_H
#define MC_ARCH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define MC_MAX_SITE_LEN 24	/* longest hook instruction sequence, bytes
				   (s390x: stg; larl; brasl; lg) */
#define MC_COUNT(a) (sizeof(a) / sizeof((a)[0]))
#define MC_MAX_FORM_BYTES 32	/* longest byte pattern an object form checks */

enum mc_endian { MC_LITTLE_ENDIAN, MC_BIG_ENDIAN };

/*
 * One way a compiler writes a hook into a relocatable object: a
 * relocation of one of `reloc_types` against a hook symbol, whose
 * r_offset lies `field_offset` bytes after the site (the address the
 * table records), where the bytes match `opcode` under `mask`.
 */
struct mc_object_form {
	const char *name;		/* mnemonic, for messages and --dump */
	uint32_t reloc_types[4];	/* relocation types that mark it */
	unsigned n_reloc_types;
	int8_t field_offset;		/* r_offset - site */
	uint8_t len;			/* bytes --nop replaces, from the site */
	/*
	 * Bytes the site must start with, compared under `mask`.  Long
	 * enough to pin down a whole multi-instruction sequence (MIPS's
	 * long calls) before --nop rewrites all of it.
	 */
	uint8_t opcode[MC_MAX_FORM_BYTES];
	uint8_t mask[MC_MAX_FORM_BYTES];
	uint8_t opcode_len;
	/*
	 * Where `opcode` starts, from the site: negative when the pattern
	 * includes instructions before the hook call (ARM's `push {lr}`).
	 */
	int8_t opcode_offset;
	const uint8_t *nop;		/* `len` bytes that neutralise the hook,
					   or NULL if --nop cannot; every
					   relocation inside them is voided */
};

/*
 * One instruction's encoding, in file byte order (or a short run of
 * them: x86's pad windows).  Sixteen bytes hold x86's longest
 * instruction, which clang 16 writes as a NOP (`data16` x 5 on a
 * `cs nopw`, fifteen bytes).
 */
struct mc_insn {
	uint8_t len;
	uint8_t bytes[16];
};

/* How a hook looks in linked code, as decoded by mc_decode_site(). */
enum mc_site_kind {
	MC_SITE_UNKNOWN,	/* neither a call nor the expected NOP */
	MC_SITE_CALL,		/* direct call; target holds the destination */
	MC_SITE_CALL_INDIRECT,	/* call through a pointer at target */
	MC_SITE_NOP,		/* the architecture's NOP of this length */
	MC_SITE_CALL_GOT,	/* call through the pointer at the GOT's
				   address + target (a signed offset): only
				   the running program knows that address */
};

struct mc_site {
	enum mc_site_kind kind;
	uint8_t len;		/* bytes the decoded instruction covers */
	uint64_t target;	/* call destination, or pointer's address */
};

/* Linked code as a caller holds it: `n` bytes at `addr`, or NULL. */
struct mc_image {
	const uint8_t *(*bytes_at)(void *ctx, uint64_t addr, size_t n);
	void *ctx;
};

/* A linked call through a register loaded from the GOT (mc_arch.got_call). */
enum mc_got_call {
	MC_GOT_NONE,		/* no such call starts here */
	MC_GOT_SLOT,		/* one, through the GOT slot it names */
	MC_GOT_UNKNOWN,		/* one, through a slot its code does not
				   say (a base register of unknown value) */
};

/*
 * A GOT the loader fills without relocations (MIPS, its psABI): after
 * `local_gotno` local entries (dynamic tag local_gotno_tag), entry
 * local_gotno + k holds .dynsym symbol gotsym + k (gotsym_tag), up to
 * the symbol symtabno - 1 (symtabno_tag); DT_PLTGOT is its address.
 * Code reaches it from $gp, which is DT_PLTGOT + gp_bias in the primary
 * GOT.  A link with more GOTs than that one (GNU ld's multi-GOT) puts
 * them after it in the same section.  insn_len: the width of the code's
 * instructions, the call got_call finds among them.
 */
struct mc_got_layout {
	int64_t local_gotno_tag;
	int64_t gotsym_tag;
	int64_t symtabno_tag;
	uint32_t gp_bias;
	uint8_t insn_len;
};

/* How an entry before its function's hook call is judged. */
enum mc_early_entry {
	MC_EARLY_UNJUDGED,	/* as any entry off its hook */
	MC_EARLY_SITE,		/* where the compiler records the site */
	MC_EARLY_CORRUPT,	/* no part of the sequence: not a site */
};

/*
 * One architecture (or one byte order or ABI of it).  Its functions get
 * the entry they are called through as `arch`, so that one function
 * serves every entry that differs only in facts such as the byte order;
 * callers go through mc_decode_site() and its siblings below.
 */
/*
 * A relocation type's name, as readelf prints it, for messages.  Each
 * architecture names every type it handles (its hook calls', their
 * companions', the table's, R_*_NONE, R_*_RELATIVE) and those a
 * compiler refers to a hook symbol by other than a call (its address,
 * its GOT entry, a tail call) or the loader fills a table slot with;
 * any other prints as its number.  The unit tests hold each table
 * against <elf.h>.
 */
struct mc_reloc_name {
	uint32_t type;
	const char *name;
};

struct mc_arch {
	const char *name;		/* "x86_64", "i386", ... */
	/*
	 * What the recorder's timestamps read on this architecture
	 * (recorder.h's rec_ticks, and its entries and exits in assembly):
	 * a counter of the CPU's that user space reads in one instruction,
	 * named as the trace's MCT_INFO names it (`clock`), the table
	 * saying why it is that one; NULL: clock_gettime(CLOCK_MONOTONIC).
	 */
	const char *trace_clock;
	const struct mc_reloc_name *reloc_names;	/* may be NULL */
	unsigned n_reloc_names;
	uint16_t e_machine;
	uint8_t elf_class;		/* 32 or 64 */
	enum mc_endian endian;
	uint8_t addr_size;		/* bytes in one __mcount_loc entry */
	bool table_uses_rela;		/* .rela__mcount_loc vs .rel__mcount_loc */
	/*
	 * The linker reads a table relocation's addend from the slot even
	 * in .rela, as GAS writes it (SH: binutils' R_SH_DIR32 is "partial
	 * in place"); r_addend is then 0.
	 */
	bool table_addend_in_place;
	uint32_t table_reloc;		/* absolute address relocation */
	uint32_t none_reloc;		/* R_*_NONE, to neutralise a hook */
	uint32_t relative_reloc;	/* R_*_RELATIVE, in a PIE's table */
	const char *const *hook_symbols;	/* NULL-terminated */
	/*
	 * Entry hooks of a protocol neither --nop nor the runtime can undo
	 * (NULL-terminated, or NULL), and why: a call to one is reported
	 * per site, so that an object built that way never passes for one
	 * without hooks.
	 */
	const char *const *unsupported_hooks;
	const char *unsupported_why;
	const struct mc_object_form *forms;
	unsigned n_forms;
	/*
	 * Relocation types that name a hook symbol without marking a site
	 * (the second half of a call sequence, a linker hint): skipped
	 * silently rather than reported as "not a call".
	 */
	uint32_t companion_relocs[6];
	unsigned n_companion_relocs;
	/*
	 * STT_FUNC symbols make bad anchors (ARM: their value carries the
	 * Thumb bit): anchor on the section symbol or an untyped local.
	 */
	bool anchor_avoid_func;
	/*
	 * The bits of a function symbol's value that are not part of its
	 * address (ARM: the interworking bit, set for Thumb code), or 0.
	 */
	uint64_t symbol_mode_bits;
	/*
	 * The linker relaxes code (RISC-V): it deletes bytes inside a
	 * section and moves the symbols after them, but not the addend of
	 * a reference "section symbol + offset" from another section.  So
	 * every table entry gets its own local label at the site.
	 */
	bool anchor_at_site;
	/*
	 * The NOPs GCC fills -fpatchable-function-entry pads with (more
	 * than one where the ISA has several sizes or modes); none means
	 * pads are not understood on this architecture.
	 */
	const struct mc_insn *pad_nops;
	unsigned n_pad_nops;
	/*
	 * Instructions that may stand at a function's entry before its hook
	 * or pad (x86's endbr64 under -fcf-protection).
	 */
	const struct mc_insn *entry_prefixes;
	unsigned n_entry_prefixes;
	/*
	 * For the runtime: the call it writes into a pad to enable it, at
	 * the pad's first NOP at or after the function's entry (past an
	 * entry prefix), where it runs before anything else the function
	 * does.  `pad_call_len` bytes of pad NOPs must be there; 0 means the
	 * runtime does not patch pads on this architecture.  pad_neutral
	 * returns the arch's constant copy of the whole NOPs at `p` that
	 * cover the call's `pad_call_len` bytes (what disabling writes back)
	 * and their length in *len: more than pad_call_len where the call
	 * would cut a longer NOP in two (clang's x86 multi-byte NOPs); NULL
	 * if they are not a run a compiler writes (mixed NOP sizes, say).
	 * encode_pad_call writes those `len` bytes for a call from `site` to
	 * `target`: the call, then NOPs to the end.
	 */
	uint8_t pad_call_len;
	bool (*encode_pad_call)(const struct mc_arch *arch, uint8_t *out,
				unsigned len, uint64_t site, uint64_t target);
	const uint8_t *(*pad_neutral)(const struct mc_arch *arch,
				      const uint8_t *p, size_t avail,
				      unsigned *len);
	/*
	 * The entry that reads a pad whose first NOP is at `p` (`n` bytes
	 * readable), where one object mixes instruction sets (ARM: "arm" or
	 * "thumb2", by that NOP's encoding, as the runtime tells them);
	 * NULL if none does.  A NULL hook: this entry reads every pad.
	 */
	const struct mc_arch *(*pad_reader)(const uint8_t *p, size_t n);
	/*
	 * What -mnop-mcount leaves at a function's entry instead of the
	 * hook call (with no relocation), as a form whose opcode is that
	 * NOP, for --find-nops; NULL where GCC has no such option.
	 */
	const struct mc_object_form *entry_nop_form;
	/* For machines with several ABIs: NULL accepts any e_flags. */
	bool (*accepts_flags)(const struct mc_arch *arch, uint32_t e_flags);
	/*
	 * Furthest a hook may sit from its function's entry.  The runtime
	 * uses it to find a function's site when it has no symbol sizes.
	 */
	uint8_t max_entry_offset;
	/*
	 * Where --check tries to decode instructions inside a function:
	 * every insn_step bytes.  1 where instructions are bytes (x86); 2
	 * elsewhere, for Thumb-2's and RISC-V's halfword instructions (a
	 * machine of whole words only decodes a few impossible places in
	 * vain).
	 */
	uint8_t insn_step;
	/*
	 * Function descriptors (ppc64 ELFv1): a function symbol's value is
	 * the address of its descriptor in this section, not its code;
	 * NULL where there are none.  uses_descriptors tells, from the
	 * header's e_flags, whether an object of this entry has them.
	 */
	const char *descriptor_section;
	bool (*uses_descriptors)(const struct mc_arch *arch,
				 uint32_t e_flags);
	/*
	 * --check of a linked image: an entry at `entry` a little before
	 * its function's hook call at `hook`, which the compiler may record
	 * there (MIPS PIC records the load of the hook's address); NULL
	 * where no compiler does.  The image's bytes are read through
	 * `img`.
	 */
	enum mc_early_entry (*judge_early_entry)(
		const struct mc_arch *arch, const struct mc_image *img,
		uint64_t entry, uint64_t hook);
	/*
	 * --check of a linked image: a call through a register the code
	 * loads from the GOT (MIPS PIC's `lw t9,off(gp)` ... `jalr t9`),
	 * which no one instruction says.  got_call reads the function that
	 * starts at `func` up to `at` through `img` and, when `at` loads
	 * such a call's register, returns MC_GOT_SLOT with the slot's
	 * address in *slot and the call's address in *call, or
	 * MC_GOT_UNKNOWN with *call when the slot depends on a value it
	 * cannot follow; `gp` is $gp where the function does not set it
	 * (0: unknown).  got_layout: how the loader binds the GOT's
	 * slots, NULL where dynamic relocations name them.
	 */
	/*
	 * --check of a linked image: where a linker's stub at `addr` (at
	 * most `avail` bytes at `p`) jumps, 0 if the bytes are no such
	 * stub.  MIPS: ld's LA25 stub, through which non-PIC code calls a
	 * PIC function (it sets t9 to the function's address first).
	 */
	uint64_t (*call_stub)(const struct mc_arch *arch, const uint8_t *p,
			      size_t avail, uint64_t addr);
	enum mc_got_call (*got_call)(const struct mc_arch *arch,
				     const struct mc_image *img,
				     uint64_t func, uint64_t at, uint64_t gp,
				     uint64_t *slot, uint64_t *call);
	const struct mc_got_layout *got_layout;
	/* Decode linked bytes at address `addr` (at most `avail` bytes). */
	struct mc_site (*decode_site)(const struct mc_arch *arch,
				      const uint8_t *p, size_t avail,
				      uint64_t addr);
	/* NOP of exactly `len` bytes into `out`; false if none exists. */
	bool (*encode_nop)(const struct mc_arch *arch, uint8_t *out,
			   unsigned len);
	/* Call from `site` to `target` filling exactly `len` bytes. */
	bool (*encode_call)(const struct mc_arch *arch, uint8_t *out,
			    unsigned len, uint64_t site, uint64_t target);
	/*
	 * For the runtime: the `site->len` bytes that neutralise the hook
	 * decode_site() returned as `site` (any kind but MC_SITE_UNKNOWN),
	 * or NULL if it has none.  Usually the NOP of that length; where
	 * the compiler changed the stack before the call (ARM's `push {lr};
	 * bl __gnu_mcount_nc`) it is the instruction that undoes that.  For
	 * an MC_SITE_NOP site, the bytes already there.  A member here
	 * rather than a field of struct mc_site, so that the decoders'
	 * positional (struct mc_site){ kind, len, target } stay complete.
	 */
	const uint8_t *(*site_neutral)(const struct mc_arch *arch,
				       const struct mc_site *site);
	/*
	 * For the runtime's live patching, which toggles a site while other
	 * threads may be running it.  A site is put once, while nothing
	 * else runs (at boot), into a disabled form that differs from its
	 * enabled form only inside one naturally aligned word of at most
	 * `live_store_max` bytes: a store the CPU performs whole, so that
	 * another thread fetches either the old instruction or the new one.
	 * Toggling then writes that word alone.  The forms cover the site's
	 * `len` bytes and, for a hook, the `live_prelude` bytes before it
	 * (ARM's `push {lr}`, which the disabled form branches over).
	 *
	 * live_forms gets in on[0, pre) the bytes before the site as they
	 * are now and in on[pre, pre + len) the call that enables it
	 * (encode_call's or encode_pad_call's), and the site's address
	 * `at` (on[pre]'s, whose alignment may decide the form); it may
	 * rewrite on's first `pre` bytes to what the enabled form needs
	 * there, and writes the disabled form of all pre + len bytes to
	 * `off`.  False if the site has no such pair of forms.  NULL: the
	 * disabled form is the
	 * enabled one with the site's neutral bytes in place of the call
	 * (right where that is one instruction swapped for another, as on
	 * aarch64; the runtime checks the word).
	 */
	uint8_t live_store_max;
	uint8_t live_prelude;
	bool (*live_forms)(const struct mc_arch *arch, uint8_t *on,
			   uint8_t *off, unsigned pre, unsigned len, bool pad,
			   uint64_t at);
	/*
	 * Optional, a fact of live_forms where a hook has no prelude and
	 * its two forms differ in one byte, the call's opcode (x86: e8
	 * `call rel32` against a9 `test $imm32,%eax`, the same four bytes
	 * after it): that byte's offset in the `len`-byte call that
	 * encode_call (a pad: encode_pad_call) writes, with its value in
	 * the disabled form in *off.  The runtime's boot then makes the
	 * disabled form of 40,000 sites from their calls alone, without
	 * live_forms' copies and a comparison of the forms.
	 */
	unsigned (*live_opcode)(const struct mc_arch *arch, unsigned len,
				bool pad, uint8_t *off);
	/*
	 * Optional, with live_opcode: the disabled form of a hook call that
	 * live_opcode describes (x86: a9 rel32, 67 a9 rel32), read back as
	 * the call it stands for: MC_SITE_CALL with the call's length and
	 * target, or MC_SITE_UNKNOWN.  `recordmcount --finalize --prepatch`
	 * writes that form at link time; the runtime then accepts a site
	 * whose target is exactly its own trampoline and writes nothing.
	 */
	struct mc_site (*decode_disabled)(const struct mc_arch *arch,
					  const uint8_t *p, size_t avail,
					  uint64_t addr);
	/*
	 * For the runtime, where a site's call cannot reach the trampoline
	 * (a library mapped far from libmcount.so): a thunk, `thunk_len`
	 * bytes of code placed within `call_reach` bytes of the site (the
	 * farthest any call the runtime writes reaches, either way) that
	 * jumps on to `target` wherever it lies.  encode_thunk writes it;
	 * the bytes work at any 8-byte aligned address (they hold the
	 * target's absolute address) and change nothing a hook's trampoline
	 * reads: only the scratch registers a PLT entry may clobber too.
	 * `pad`: the thunk serves a -fpatchable-function-entry pad's call
	 * (which may link through another register).  False where the
	 * architecture has no such thunk for that call; thunk_len 0 where
	 * it needs none (a call that reaches every address: i386).
	 */
	uint8_t thunk_len;
	uint64_t call_reach;
	bool (*encode_thunk)(const struct mc_arch *arch, uint8_t *out,
			     uint64_t target, bool pad);
	/*
	 * Where the call the runtime writes at a site of `len` bytes (a
	 * pad's, with `pad`) reaches less far than call_reach: that
	 * call's reach, either way (riscv64's relaxed 4-byte `jal`: 1 MiB,
	 * where its 8-byte `auipc; jalr` reaches 2 GiB).  NULL where every
	 * call reaches call_reach.
	 */
	uint64_t (*site_reach)(const struct mc_arch *arch, unsigned len,
			       bool pad);
	/*
	 * A linked program or library calls a hook another object defines
	 * through a PLT entry (or, ppc64, a call stub the linker puts in
	 * the code) that jumps through a GOT slot; the slot's dynamic
	 * relocation names the hook.  plt_slot decodes the entry at `addr`
	 * (`avail` bytes at `p`) and returns the slot's address, or 0 if
	 * the bytes are no entry this architecture's linkers write.  `base`
	 * is what entries index from where a register holds it (i386 PIC's
	 * %ebx, ppc64's r2): plt_base_section's address plus plt_base_bias,
	 * 0 if unknown.  Entries lie in sections named .plt* unless
	 * plt_in_code (ppc64: stubs among the functions).  The decoder reads
	 * at most plt_read bytes and checks `avail` itself; plt_step: how
	 * far apart entries may start.
	 * NULL where there is no decoder: --check says so rather than
	 * count such calls as no hooks.  The runtime and --check share it.
	 * plt_bss: the PLT may be NOBITS space the loader writes each
	 * entry's code into (ppc32's BSS PLT), with no bytes to decode:
	 * there an entry's own address is the slot its relocation names.
	 */
	uint64_t (*plt_slot)(const struct mc_arch *arch, const uint8_t *p,
			     size_t avail, uint64_t addr, uint64_t base);
	/*
	 * A decoded call's site is a data word holding its target (sh's
	 * literal pool word), so a dynamic relocation on the site names
	 * the callee where the loader sets it (non-PIC code linked into a
	 * shared object).
	 */
	bool call_word;
	const char *plt_base_section;
	uint32_t plt_base_bias;
	bool plt_in_code;
	bool plt_bss;
	uint8_t plt_read;
	uint8_t plt_step;
	/*
	 * The psABI's calling convention, for mctrace record -A/-R (the
	 * recorder's argument capture): the registers that pass the first
	 * integer and pointer arguments, in argument order, and the one
	 * that returns an integer.  Where the ABI passes them all on the
	 * stack (int_args_on_stack: i386's cdecl), the stack words above
	 * the return address that are read in their place.  Facts of the
	 * ABI, whether or not a recorder backend reads them.
	 */
	const char *const *int_arg_regs;
	uint8_t n_int_arg_regs;
	bool int_args_on_stack;
	const char *int_ret_reg;
};

/* The GOT slot a PLT entry or call stub at `addr` jumps through, or 0. */
static inline uint64_t mc_plt_slot(const struct mc_arch *arch,
				   const uint8_t *p, size_t avail,
				   uint64_t addr, uint64_t base)
{
	return arch->plt_slot ? arch->plt_slot(arch, p, avail, addr, base) : 0;
}

/* The hooks of struct mc_arch, called with the entry they belong to. */
static inline struct mc_site mc_decode_site(const struct mc_arch *arch,
					    const uint8_t *p, size_t avail,
					    uint64_t addr)
{
	return arch->decode_site(arch, p, avail, addr);
}

static inline bool mc_encode_nop(const struct mc_arch *arch, uint8_t *out,
				 unsigned len)
{
	return arch->encode_nop(arch, out, len);
}

static inline bool mc_encode_call(const struct mc_arch *arch, uint8_t *out,
				  unsigned len, uint64_t site, uint64_t target)
{
	return arch->encode_call(arch, out, len, site, target);
}

static inline const uint8_t *mc_site_neutral(const struct mc_arch *arch,
					     const struct mc_site *site)
{
	return arch->site_neutral(arch, site);
}

static inline bool mc_encode_pad_call(const struct mc_arch *arch,
				      uint8_t *out, unsigned len,
				      uint64_t site, uint64_t target)
{
	return arch->encode_pad_call(arch, out, len, site, target);
}

/* Longest thunk of any architecture (struct mc_arch's thunk_len). */
#define MC_MAX_THUNK_LEN 28

static inline bool mc_encode_thunk(const struct mc_arch *arch, uint8_t *out,
				   uint64_t target, bool pad)
{
	return arch->thunk_len && arch->encode_thunk &&
	       arch->encode_thunk(arch, out, target, pad);
}

static inline const uint8_t *mc_pad_neutral(const struct mc_arch *arch,
					    const uint8_t *p, size_t avail,
					    unsigned *len)
{
	return arch->pad_neutral(arch, p, avail, len);
}

/*
 * Can the runtime enable a pad whose NOPs from the function's entry on
 * (past an entry prefix) are the `nops` bytes at `p`?  NULL if it can,
 * with *len the bytes of whole NOPs its call then takes (pad_neutral's);
 * else why not.  The runtime asks this of every pad at boot, and
 * recordmcount of every pad it records and --check judges: one answer,
 * so that a table the tool passes is one the runtime takes.
 */
static inline const char *mc_pad_unusable(const struct mc_arch *arch,
					  const uint8_t *p, size_t nops,
					  unsigned *len)
{
	*len = 0;
	if (!arch->pad_call_len)
		return "pads are not patched on this architecture";
	if (nops < arch->pad_call_len)
		return "NOP pad too short for the hook call at the entry";
	if (!mc_pad_neutral(arch, p, nops, len))
		return "NOP pad of mixed NOP sizes";
	if (*len > nops)
		return "NOP pad too short for the hook call at the entry";
	return NULL;
}

/* What mc_pad_refusal() measured of one pad. */
struct mc_pad_fit {
	const struct mc_arch *reader;	/* the entry that reads the pad */
	size_t nops;			/* bytes of NOPs from the entry on */
};

/*
 * mc_pad_unusable() for the pad of a function whose entry is at `entry`
 * (`avail` bytes readable) and whose first NOP, as the table records it,
 * is at `first` (`first_avail` bytes): NULL where the runtime can enable
 * it, or where no runtime patches pads (pad_call_len 0: nothing to
 * judge against); else why not.  For recordmcount and --check.
 */
const char *mc_pad_refusal(const struct mc_arch *arch, const uint8_t *first,
			   size_t first_avail, const uint8_t *entry,
			   size_t avail, struct mc_pad_fit *fit);

/* The architecture for an ELF header's fields, or NULL. */
const struct mc_arch *mc_arch_find(uint16_t e_machine, uint8_t elf_class,
				   enum mc_endian endian, uint32_t e_flags);


/* True if `type` is one of the architecture's companion relocations. */
bool mc_is_companion_reloc(const struct mc_arch *arch, uint32_t type);

/* The architecture by its name ("x86_64"), or NULL. */
const struct mc_arch *mc_arch_by_name(const char *name);

/*
 * The object form whose relocation type is `type` and whose opcode bytes
 * match at `site`, where `site` = r_offset - form->field_offset.  `sec`
 * holds `sec_size` bytes of the section.  NULL when the relocation is a
 * hook symbol reference but not a recognised call.
 */
const struct mc_object_form *mc_match_form(const struct mc_arch *arch,
					   uint32_t type, const uint8_t *sec,
					   uint64_t sec_size, uint64_t r_offset);

/*
 * mc_match_form in two steps, for a scan that meets one relocation type
 * many times: the set of forms a type marks (bit i: forms[i]; an
 * architecture has at most MC_MAX_FORMS), found once, then the first of
 * them, in table order, whose bytes sit at r_offset.
 */
#define MC_MAX_FORMS 64
uint64_t mc_forms_of_type(const struct mc_arch *arch, uint32_t type);
static inline const struct mc_object_form *
mc_match_form_among(const struct mc_arch *arch, uint64_t forms,
		    const uint8_t *sec, uint64_t sec_size, uint64_t r_offset)
{
	for (; forms; forms &= forms - 1) {
		const struct mc_object_form *f =
			&arch->forms[__builtin_ctzll(forms)];
		unsigned k;

		if (f->field_offset > 0 && r_offset < (uint64_t)f->field_offset)
			continue;
		uint64_t site = r_offset - (uint64_t)(int64_t)f->field_offset;
		uint64_t start = site + (uint64_t)(int64_t)f->opcode_offset;
		if (site > sec_size || f->len > sec_size - site ||
		    (f->opcode_offset < 0 && site < (uint64_t)-f->opcode_offset) ||
		    start > sec_size || f->opcode_len > sec_size - start)
			continue;
		for (k = 0; k < f->opcode_len; k++)
			if ((sec[start + k] & f->mask[k]) != f->opcode[k])
				break;
		if (k == f->opcode_len)
			return f;
	}
	return NULL;
}

/* True if `name` is one of the architecture's default hook symbols. */
bool mc_is_hook_symbol(const struct mc_arch *arch, const char *name);

/*
 * Facts of one architecture that code outside arch/ asks about, answered
 * by that architecture's file.
 */

/*
 * ppc64le: `addis r2,r12,hi` (or `lis r2,hi`, once ld knows the TOC)
 * then `addi r2,r2,lo`, a global entry's TOC set-up, in the 8 bytes at
 * `p`; and the 4-byte `nop` at `p`.
 */
bool mc_arch_ppc64le_is_toc_setup(const uint8_t *p);
bool mc_arch_ppc64le_is_nop(const uint8_t *p);
/*
 * ppc64le -pg: whether the `len` bytes of code from a function's entry
 * to its hook write none of r3-r10 (the arguments still there), for a
 * recorder of arguments; false where the code cannot be read.
 */
bool mc_arch_ppc64le_args_kept(const uint8_t *code, size_t len);

/*
 * riscv64 -pg: where the caller is at a hook, from the `len` bytes of
 * code between its function's entry and the hook (arch/riscv.c).
 */
enum mc_rv_caller {
	MC_RV_CALLER_UNKNOWN = 0,	/* neither: refuse the site */
	MC_RV_CALLER_A0 = 1,		/* a0 holds it (GCC's mv a0, ra) */
	MC_RV_CALLER_FP = 2,		/* saved at -8(s0) (clang) */
};
enum mc_rv_caller mc_arch_riscv64_caller(const uint8_t *code, size_t len);
/* ... and where the entry's ra is saved, for a recorder of exits */
bool mc_arch_riscv64_ra_slot(const uint8_t *code, size_t len,
			     int64_t *slot, int64_t *entry_sp);
/* ... and whether it writes none of a0-a7, for a recorder of arguments */
bool mc_arch_riscv64_args_kept(const uint8_t *code, size_t len);

/*
 * arm -pg: from the `len` bytes of code between a function's entry and
 * the `push {lr}` of its hook (Thumb-2 if `thumb`, else ARM state), the
 * bytes its prologue took off sp (*taken) and how far below the entry's
 * sp it saved lr (*lr_at; 0: lr stays in its register).  NULL, or why the
 * prologue cannot be read (arch/arm.c).
 */
const char *mc_arch_arm_prologue(const uint8_t *code, size_t len, bool thumb,
				 uint32_t *taken, uint32_t *lr_at);
/*
 * ... and the registers that code writes (bit n: rn), for a recorder of
 * arguments: r0-r3 written before the hook may have lost them.
 */
const char *mc_arch_arm_prologue_writes(const uint8_t *code, size_t len,
					bool thumb, uint32_t *written);

/*
 * aarch64 -pg: where the frame record (x29, x30) is at the hook, from
 * the `len` bytes of code between its function's entry and the hook
 * (arch/aarch64.c).  *signs: the prologue signs x30 (paciasp/pacibsp),
 * set unless UNFOLLOWED; *x29: x29, where the record is, as an offset
 * from the entry's sp, set if RECORD.
 */
enum mc_a64_frame {
	MC_A64_FRAME_RECORD = 0,	/* the record is at x29 */
	MC_A64_FRAME_UNFOLLOWED,	/* sp moved in a way not followed */
	MC_A64_FRAME_NO_RECORD,		/* no record kept at x29 */
};
enum mc_a64_frame mc_arch_aarch64_frame_record(const uint8_t *code,
					       size_t len, int64_t *x29,
					       bool *signs);

/*
 * Where two ABIs keep a function's return address, in bytes from the
 * stack pointer it was called with (the runtime's backends hand the
 * recorder that slot).  s390x: the caller leaves a 160-byte register
 * save area at its stack pointer, where a callee saves %r14 at 112; the
 * DWARF CFA is that stack pointer plus 160.  ppc64 (ELFv1 and v2): the
 * LR save doubleword of the caller's frame header, at 16.
 */
#define MC_ABI_S390X_R14_SAVE	112
#define MC_ABI_S390X_CFA	160
#define MC_ABI_PPC64_LR_SAVE	16

/* The architectures compiled in, NULL-terminated (for --help). */
extern const struct mc_arch *const mc_all_arches[];

/* The address a code symbol's value names (mode bits cleared). */
static inline uint64_t mc_code_address(const struct mc_arch *arch,
				       uint64_t st_value)
{
	return st_value & ~arch->symbol_mode_bits;
}

/*
 * Bit helpers for the encoders and decoders, shared by every arch file
 * (and inline, so that the runtime, which links only its own arch/
 * file, has them too).  Words in memory: little- or big-endian, or in
 * an entry's own byte order.
 */
static inline uint16_t mc_get_le16(const uint8_t *p)
{
	return (uint16_t)(p[0] | p[1] << 8);
}

static inline void mc_put_le16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)v;
	p[1] = (uint8_t)(v >> 8);
}

static inline uint32_t mc_get_le32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
	       (uint32_t)p[3] << 24;
}

static inline uint32_t mc_get_be32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 |
	       (uint32_t)p[2] << 8 | (uint32_t)p[3];
}

static inline void mc_put_le32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)v;
	p[1] = (uint8_t)(v >> 8);
	p[2] = (uint8_t)(v >> 16);
	p[3] = (uint8_t)(v >> 24);
}

static inline void mc_put_be32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 24);
	p[1] = (uint8_t)(v >> 16);
	p[2] = (uint8_t)(v >> 8);
	p[3] = (uint8_t)v;
}

static inline void mc_put_le64(uint8_t *p, uint64_t v)
{
	mc_put_le32(p, (uint32_t)v);
	mc_put_le32(p + 4, (uint32_t)(v >> 32));
}

static inline void mc_put_be64(uint8_t *p, uint64_t v)
{
	mc_put_be32(p, (uint32_t)(v >> 32));
	mc_put_be32(p + 4, (uint32_t)v);
}

static inline uint32_t mc_get32(enum mc_endian e, const uint8_t *p)
{
	return e == MC_BIG_ENDIAN ? mc_get_be32(p) : mc_get_le32(p);
}

static inline void mc_put32(enum mc_endian e, uint8_t *p, uint32_t v)
{
	if (e == MC_BIG_ENDIAN)
		mc_put_be32(p, v);
	else
		mc_put_le32(p, v);
}

/* The low `bits` bits of `v` (1 to 64) as a two's complement number. */
static inline int64_t mc_sign_extend(uint64_t v, unsigned bits)
{
	uint64_t m = 1ull << (bits - 1);

	v &= m | (m - 1);
	return (int64_t)((v ^ m) - m);
}

/*
 * A PC-relative distance split for a pair like RISC-V's auipc + jalr:
 * the second instruction adds a sign-extended 12-bit lo, so hi20 is
 * rounded, hi = (d + 0x800) >> 12, and lo = d - hi * 4096 lies in
 * [-2048, 2047].  mc_hi20_lo12_fits: the pair reaches `d` (the sum of
 * a 32-bit hi << 12 and a lo stays within it).
 */
static inline int64_t mc_hi20(int64_t d)
{
	return (d + 0x800) >> 12;
}

static inline int64_t mc_lo12(int64_t d)
{
	return d - mc_hi20(d) * 4096;
}

static inline bool mc_hi20_lo12_fits(int64_t d)
{
	return d >= INT32_MIN - 0x800ll && d < INT32_MAX - 0x7ffll;
}

static inline bool mc_bytes_equal(const uint8_t *a, const uint8_t *b,
				  size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (a[i] != b[i])
			return false;
	return true;
}

/*
 * Four bytes at a time (__builtin_memcpy of a constant size is inlined,
 * also freestanding): the runtime's boot pass copies one site's 4 to 8
 * bytes per site, and a byte loop was a tenth of its instructions.
 * Those sizes take two four-byte copies that may overlap, with no loop
 * (the buffers themselves do not overlap).
 */
static inline void mc_bytes_copy(uint8_t *dst, const uint8_t *src, size_t n)
{
	if (n >= 4 && n <= 8) {
		__builtin_memcpy(dst, src, 4);
		__builtin_memcpy(dst + n - 4, src + n - 4, 4);
		return;
	}
	for (; n >= 4; n -= 4, dst += 4, src += 4)
		__builtin_memcpy(dst, src, 4);
	for (size_t i = 0; i < n; i++)
		dst[i] = src[i];
}

/*
 * Length of the instruction of `set` that `p` starts with (at most
 * `avail` bytes readable), or 0 if none matches.  Inline, so that the
 * runtime, which links only its own arch/ file, has it too.
 */
static inline unsigned mc_match_insn(const struct mc_insn *set, unsigned n,
				     const uint8_t *p, size_t avail)
{
	for (unsigned i = 0; i < n; i++)
		if (set[i].len <= avail &&
		    mc_bytes_equal(p, set[i].bytes, set[i].len))
			return set[i].len;
	return 0;
}

/* The name of relocation `type` on `a`, or NULL if the table has none. */
static inline const char *mc_reloc_name(const struct mc_arch *a,
					uint32_t type)
{
	for (unsigned i = 0; i < a->n_reloc_names; i++)
		if (a->reloc_names[i].type == type)
			return a->reloc_names[i].name;
	return NULL;
}

#endif
