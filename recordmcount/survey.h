/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * survey.h - what a file's table says and what the code at each entry
 * really is: the analysis `--dump` prints and `--check` judges.
 *
 * For a relocatable object the table's entries are relocations (anchor
 * symbol + addend) and hooks are relocations too, so the survey also
 * lists the hooks themselves.  For a linked executable or shared object
 * the entries are addresses (in a PIE, R_*_RELATIVE addends) and the
 * bytes at each address are decoded by the architecture.
 */
#ifndef MC_SURVEY_H
#define MC_SURVEY_H

#include <stdarg.h>

#include "../arch/arch.h"
#include "../elf/object.h"
#include "options.h"
#include "sites.h"

struct mc_entry {
	size_t shndx;		/* section holding the site, 0 if none */
	uint64_t offset;	/* within that section */
	uint64_t address;	/* linked images only */
	uint64_t slot;		/* linked: address of the table slot */
	bool resolved;		/* the entry names a place we could find */
	bool cleared;		/* 0 on purpose (--finalize, sorttable):
				   linked, the value 0; object, R_*_NONE */
	size_t rel_shndx;	/* objects: the relocation naming it */
	size_t reloc_index;
};

struct mc_relative {
	uint64_t offset;
	uint64_t addend;
};

/* A GOT slot a dynamic relocation binds to a named symbol. */
struct mc_bound_slot {
	uint64_t slot;
	const char *name;
};

/*
 * A linked image's GOT as the architecture's got_layout lays it out
 * (MIPS): where the primary GOT is, its $gp, and where the section that
 * holds it ends (past the primary GOT: a multi-GOT link's other GOTs).
 */
struct mc_got {
	uint64_t start;		/* DT_PLTGOT; 0: no such GOT */
	uint64_t gp;		/* start + got_layout->gp_bias, $gp
				   everywhere; 0 with several GOTs */
	uint64_t primary_end;	/* past the primary GOT's last entry */
	uint64_t section_end;	/* past the section that holds it */
};

struct mc_survey {
	struct mc_object *obj;
	const struct mc_arch *arch;
	const struct mc_options *opt;
	bool linked;
	bool has_table;			/* some table section or range exists */
	struct mc_entry *entries;
	size_t n_entries;
	struct mc_site_list hooks;	/* objects only */
	struct mc_relative *relative;	/* a PIE's R_*_RELATIVE, by offset */
	size_t n_relative;
	bool relative_read;
	struct mc_bound_slot *bound;	/* linked: by slot, read on first use */
	size_t n_bound;
	bool bound_read;
	struct mc_got got;		/* linked, with a got_layout */
	bool got_read;
};

/* What a site holds, in words, plus how many bytes make it up. */
struct mc_verdict {
	const char *state;	/* "call", "nop", "pad", "disabled" (a
				   linked hook's disabled live form: see
				   mc_runtime_tramps), "unexpected",
				   "unknown" */
	char target[128];	/* in words, for text: "__fentry__",
				   "0x1234", "*0x1234", "2 NOPs" */
	const char *symbol;	/* called symbol, NULL if none named */
	bool has_target;	/* target_address is a decoded call's */
	bool indirect;		/* through a register or memory */
	unsigned nops;		/* pad: NOPs counted */
	size_t len;
	enum mc_site_kind kind;	/* as decoded (linked images) */
	uint64_t target_address;	/* call destination or pointer */
};

/*
 * Open `path` (object, executable or shared object of a known
 * architecture) into `obj` and read its table entries, and for an
 * object its hooks (relocations that the sites step does not accept go
 * to `warn`).  False with obj->error set on failure; free with
 * mc_survey_free() and mc_object_close() either way.
 */
bool mc_survey_open(struct mc_survey *s, struct mc_object *obj,
		    const char *path, const struct mc_options *opt,
		    mc_warn_fn warn);
void mc_survey_free(struct mc_survey *s);

/*
 * ppc64 ELFv1: function symbols name descriptors in .opd, not code, so
 * no symbol says where a function's code is and no entry can be placed
 * in a function: --check and --finalize refuse such a file rather than
 * call every entry stale.
 */
bool mc_survey_has_descriptors(const struct mc_survey *s);

/* "relocatable", "executable", "pie executable", "shared object". */
const char *mc_survey_kind(const struct mc_survey *s);

/*
 * libmcount.a's hook stubs and the trampoline its runtime calls from a
 * site of each (runtime/platform.h, runtime/<arch>/trampoline.S): what
 * `--finalize --prepatch` aims a hook's disabled form at, and what
 * --check takes such a form for.
 */
struct mc_runtime_tramp {
	const char *stub, *tramp;
};
#define MC_RUNTIME_TRAMPS 2
extern const struct mc_runtime_tramp mc_runtime_tramps[MC_RUNTIME_TRAMPS];

/* What the bytes at entry `e` are. */
struct mc_verdict mc_survey_judge(struct mc_survey *s,
				  const struct mc_entry *e);

/*
 * The function a site belongs to: the one containing it, or for a pad
 * whose NOPs start before the function's symbol, the one it runs into
 * (a negative offset).  NULL name when none.  `value` and `off` are
 * code addresses (an object's: section offsets): off counts from the
 * function's address, its value without mode bits (ARM's Thumb bit).
 */
const struct mc_symbol *mc_survey_function(struct mc_survey *s,
					   size_t shndx, uint64_t value,
					   int64_t *off);

/*
 * The function an entry (whose bytes are `v`) is in, or NULL when it is
 * in none: the entry is stale.  Only a pad may start before its
 * function's symbol (its NOPs read as "nop" where the pad NOP is also
 * the hook's neutral form).
 */
const struct mc_symbol *mc_survey_entry_function(struct mc_survey *s,
						 const struct mc_entry *e,
						 const struct mc_verdict *v,
						 int64_t *off);

/* `value` of a linked address or an object offset, as used above. */
static inline uint64_t mc_entry_value(const struct mc_survey *s,
				      const struct mc_entry *e)
{
	return s->linked ? e->address : e->offset;
}

/* A place, as text of any length (heap; mc_place_free). */
struct mc_place {
	char *site, *func;
};

/*
 * "SITE" and "FUNCTION+0xOFF" ("?" when in no function) for a place:
 * the address in a linked image, section+offset in an object.
 */
void mc_survey_place(struct mc_survey *s, size_t shndx, uint64_t offset,
		     uint64_t address, struct mc_place *p);

/* The place's two strings, "?" where there is none (or no memory). */
const char *mc_place_site(const struct mc_place *p);
const char *mc_place_func(const struct mc_place *p);
void mc_place_free(struct mc_place *p);

/* printf into fresh memory, whatever the length; NULL if none. */
char *mc_format(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
char *mc_vformat(const char *fmt, va_list ap)
	__attribute__((format(printf, 1, 0)));

/*
 * The section an entry's site is in, or NULL for an entry that names no
 * place we found (its shndx may be anything the input said: SHN_ABS, an
 * index past the table).
 */
static inline struct mc_section *mc_entry_section(const struct mc_survey *d,
						  const struct mc_entry *e)
{
	return e->resolved && e->shndx < d->obj->n_sections ?
		d->obj->sections[e->shndx] : NULL;
}

/* The hook found at shndx+offset (objects), or NULL. */
const struct mc_hook_site *mc_survey_hook_at(const struct mc_survey *s,
					     size_t shndx, uint64_t offset);

/* The first hook at or after shndx+offset in (section, offset) order
 * (objects), or NULL. */
const struct mc_hook_site *mc_survey_hook_from(const struct mc_survey *s,
					       size_t shndx, uint64_t offset);

/*
 * A PIE's R_*_RELATIVE at link address `where`: its addend into *value
 * (the address the slot will hold), or false when there is none.
 */
bool mc_survey_relative(struct mc_survey *s, uint64_t where,
			uint64_t *value);

/*
 * A linked image's slots that dynamic relocations bind to named
 * symbols, sorted by slot, read on first use; false (said on the
 * object) when they could not be read.
 */
bool mc_survey_bound(struct mc_survey *s, const struct mc_bound_slot **slots,
		     size_t *n);

/*
 * The image's GOT as its architecture's got_layout says (read on first
 * use); got->start is 0 where there is none to read (no got_layout, no
 * .dynamic, or tags that do not fit the image).  The GOT's global
 * slots are among mc_survey_bound's, named by .dynsym's order.
 */
const struct mc_got *mc_survey_got(struct mc_survey *s);

/* What a linked call's target is, as a PLT entry (mc_survey_plt_call). */
enum mc_plt_call {
	MC_PLT_NONE,		/* no PLT entry or stub */
	MC_PLT_DECODED,		/* one, whose slot binds *name (NULL: no
				   relocation names it; an ifunc's, say) */
	MC_PLT_UNDECODED,	/* in a PLT section, bytes the architecture
				   cannot decode (or no decoder) */
};

enum mc_plt_call mc_survey_plt_call(struct mc_survey *s, uint64_t target,
				    const char **name);

/*
 * Can mc_survey_plt_call tell where this image's PLT calls lead: the
 * architecture decodes its entries, or (plt_bss) the image's .plt is
 * the loader-written kind whose entries are their own slots.
 */
bool mc_survey_follows_plt(struct mc_survey *s);

/* Write `s` as a JSON string literal. */
void mc_json_string(const char *s);

#endif
