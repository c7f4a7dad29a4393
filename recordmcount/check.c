/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * check.c - `recordmcount --check`: a build gate.  Judges the table of
 * an object or a linked image against the code and exits non-zero on
 * any fault, without modifying anything.
 *
 * What it holds a file to:
 *  - every hook in traced code is in the table.  In an object, hooks
 *    are relocations against a hook symbol (the same sites the record
 *    mode finds).  In a linked image the relocations are gone, so each
 *    function symbol's first bytes (up to the architecture's
 *    max_entry_offset) are decoded for a call to a hook symbol's
 *    address (or a linker's stub that jumps there: MIPS's LA25),
 *    through a pointer slot that holds it, through a PLT
 *    entry whose slot a dynamic relocation binds to a hook, or (MIPS
 *    PIC, mc_arch.got_call) through a register loaded from a GOT slot
 *    the loader binds by .dynsym's order; a function with such a call
 *    and no table entry inside it is unrecorded.  Where the loader
 *    binds a hook and such a call cannot be decided (a PLT entry of an
 *    unknown form, a GOT load from a base it cannot follow, an
 *    architecture with no PLT decoder), the file is `undecided`, never
 *    quietly without hooks.
 *  - every entry lands inside a function (STT_FUNC value and size) on a
 *    hook call, its neutral form, or a pad;
 *  - no entry appears twice;
 *  - with --sorted, a linked table is in ascending address order;
 *  - an LTO object (bitcode, or GCC's .gnu.lto_ sections) cannot be
 *    judged: its code is compiled again at the link, so it is reported;
 *  - the runtime can enable every pad: enough NOP bytes from its
 *    function's entry on for its call (arch/'s mc_pad_refusal, the
 *    runtime's own judge).
 *
 * Entries that are 0 in a linked image were cleared on purpose (by
 * --finalize or the kernel's sorttable) and are skipped, as ftrace does.
 */
#define _GNU_SOURCE
#include "check.h"

#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "survey.h"
#include "../arch/search.h"

#define CHECK_SCHEMA_VERSION 1

/* Every class of problem, as named in the output and the man page. */
enum problem_class {
	P_UNRECORDED,	/* a hook in traced code that the table misses */
	P_NO_TABLE,	/* a linked image with hooks and no entries */
	P_OFF_HOOK,	/* an entry beside its function's hook */
	P_CORRUPT,	/* an entry where no hook, NOP or pad is */
	P_STALE,	/* an entry in no function */
	P_BAD_ADDRESS,	/* an entry outside code */
	P_DUPLICATE,	/* an entry listed before */
	P_UNSORTED,	/* --sorted and the table is not */
	P_LTO,		/* an object that holds bitcode */
	P_UNUSABLE_PAD,	/* a pad the runtime cannot enable */
	P_UNDECIDED,	/* a call that may reach a hook, which --check
			   cannot follow */
	P_UNSUPPORTED,	/* calls to a hook the runtime cannot patch */
};

static const char *const class_names[] = {
	[P_UNRECORDED] = "unrecorded",
	[P_NO_TABLE] = "no-table",
	[P_OFF_HOOK] = "off-hook",
	[P_CORRUPT] = "corrupt-site",
	[P_STALE] = "stale",
	[P_BAD_ADDRESS] = "bad-address",
	[P_DUPLICATE] = "duplicate",
	[P_UNSORTED] = "unsorted",
	[P_LTO] = "lto",
	[P_UNUSABLE_PAD] = "unusable-pad",
	[P_UNDECIDED] = "undecided",
	[P_UNSUPPORTED] = "unsupported-hook",
};

/* Room for the names of an arch's unsupported_hooks (each has one). */
#define MAX_UNSUPPORTED 4

/* Where an unsupported hook is: its code address, or a slot bound to it. */
struct unsupported_target {
	uint64_t at;
	unsigned which;		/* index in arch->unsupported_hooks */
};

/* The calls to one unsupported hook, and the first of them. */
struct unsupported_calls {
	size_t n;
	size_t shndx;
	uint64_t first;
};

struct check {
	struct mc_survey *s;
	const char *path;
	bool json;
	bool quiet;
	size_t problems;
	size_t zeroed;		/* entries cleared on purpose */
	size_t hooks;		/* hooks found in the code */
	uint64_t *hook_addrs;	/* linked: hook symbols' addresses */
	size_t n_hook_addrs;
	uint64_t *hook_slots;	/* linked: pointers the loader sets to a
				   hook (GLOB_DAT, JUMP_SLOT, ...) */
	size_t n_hook_slots;
	uint64_t got_base;	/* linked: what GOT-relative calls index
				   from (i386 PIC's %ebx), or 0 */
	bool hook_dynamic;	/* linked: the loader binds a hook */
	const char *undecided_why;	/* the last undecided call's kind */
	size_t *funcs;		/* linked: function symbols, by address */
	size_t n_funcs;
	uint64_t *labels;	/* linked: global and weak code symbols'
				   addresses, ascending (labelled_call) */
	size_t n_labels;
	struct placed *sorted;	/* every live entry, by place */
	size_t n_sorted;
	/* linked: where the arch's unsupported hooks are, and are bound */
	struct unsupported_target *unsup_addrs, *unsup_slots;
	size_t n_unsup_addrs, n_unsup_slots;
	struct unsupported_calls unsup[MAX_UNSUPPORTED];
};

/* An entry's place, comparable across the table. */
struct placed {
	size_t shndx;
	uint64_t value;		/* offset (object) or address (linked) */
	size_t index;
};

static int compare_placed(const void *a, const void *b)
{
	const struct placed *x = a, *y = b;

	if (x->shndx != y->shndx)
		return x->shndx < y->shndx ? -1 : 1;
	if (x->value != y->value)
		return x->value < y->value ? -1 : 1;
	return x->index < y->index ? -1 : x->index > y->index;
}

/* ---- output ------------------------------------------------------------ */

static void json_place(struct check *c, size_t shndx, uint64_t value,
		       bool with_function)
{
	struct mc_survey *s = c->s;
	const struct mc_symbol *f = NULL;
	int64_t fo = 0;

	printf("\"section\":");
	if (shndx) {
		mc_json_string(s->obj->sections[shndx]->name);
		f = with_function ? mc_survey_function(s, shndx, value, &fo)
				  : NULL;
	} else {
		printf("null");
	}
	if (s->linked)
		printf(",\"offset\":null,\"address\":%" PRIu64, value);
	else
		printf(",\"offset\":%" PRIu64 ",\"address\":null", value);
	printf(",\"function\":");
	if (f) {
		mc_json_string(f->name);
		printf(",\"function_offset\":%" PRId64, fo);
	} else {
		printf("null,\"function_offset\":null");
	}
}

/*
 * One problem: `FILE: ADDRESS <function+offset>: class: detail`, or
 * without a place for a problem of the whole file (`has_place` false).
 * `entry` is the table index, or SIZE_MAX.
 */
static void problem(struct check *c, enum problem_class cls, bool has_place,
		    size_t shndx, uint64_t value, size_t entry,
		    const char *fmt, ...) __attribute__((format(printf, 7, 8)));

static void problem(struct check *c, enum problem_class cls, bool has_place,
		    size_t shndx, uint64_t value, size_t entry,
		    const char *fmt, ...)
{
	char *detail;
	va_list ap;

	va_start(ap, fmt);
	detail = mc_vformat(fmt, ap);
	va_end(ap);
	if (c->json) {
		printf("%s{\"class\":\"%s\",", c->problems ? "," : "",
		       class_names[cls]);
		if (has_place)
			json_place(c, shndx, value, cls != P_STALE);
		else
			printf("\"section\":null,\"offset\":null,\"address\":"
			       "null,\"function\":null,\"function_offset\":null");
		printf(",\"entry\":");
		if (entry == SIZE_MAX)
			printf("null");
		else
			printf("%zu", entry);
		printf(",\"message\":");
		mc_json_string(detail ? detail : "?");
		putchar('}');
	} else if (has_place) {
		/* A stale entry's "function" would be a neighbour's. */
		struct mc_place p = { 0 };

		if (shndx && cls != P_STALE)
			mc_survey_place(c->s, shndx, value, value, &p);
		else
			p.site = mc_format("0x%" PRIx64, value);
		printf("%s: %s <%s>: %s: %s\n", c->path, mc_place_site(&p),
		       mc_place_func(&p), class_names[cls],
		       detail ? detail : "?");
		mc_place_free(&p);
	} else {
		printf("%s: %s: %s\n", c->path, class_names[cls],
		       detail ? detail : "?");
	}
	free(detail);
	c->problems++;
}

/* ---- LTO --------------------------------------------------------------- */

/*
 * LLVM bitcode (clang -flto) is not ELF at all: its magic is "BC" 0xC0DE,
 * or 0x0B17C0DE for the wrapper Apple's tools write.
 */
static bool is_bitcode_file(const char *path)
{
	static const uint8_t raw[4] = { 'B', 'C', 0xc0, 0xde };
	static const uint8_t wrapped[4] = { 0xde, 0xc0, 0x17, 0x0b };
	uint8_t magic[4];
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	bool yes = false;

	if (fd < 0)
		return false;
	if (read(fd, magic, sizeof(magic)) == (ssize_t)sizeof(magic))
		yes = memcmp(magic, raw, 4) == 0 ||
		      memcmp(magic, wrapped, 4) == 0;
	close(fd);
	return yes;
}

/* GCC's LTO objects carry their GIMPLE in .gnu.lto_* sections. */
static bool has_lto_sections(const struct mc_object *obj)
{
	for (size_t i = 1; i < obj->n_sections; i++)
		if (strncmp(obj->sections[i]->name, ".gnu.lto_", 9) == 0 ||
		    strcmp(obj->sections[i]->name, ".llvm.lto") == 0)
			return true;
	return false;
}

/* ---- the code: where hooks are in a linked image ---------------------- */

static bool hook_named(const struct check *c, const char *name)
{
	return mc_is_hook_name(c->s->arch, c->s->opt, name);
}

static bool push_slot(struct check *c, uint64_t where, size_t *cap)
{
	if (c->n_hook_slots == *cap) {
		size_t n = *cap ? 2 * *cap : 8;
		uint64_t *v = realloc(c->hook_slots, n * sizeof(*v));

		if (!v)
			return mc_fail(c->s->obj, "out of memory");
		c->hook_slots = v;
		*cap = n;
	}
	c->hook_slots[c->n_hook_slots++] = where;
	return true;
}

/*
 * A shared object (or a PIE) may reach a hook defined elsewhere through
 * a pointer the dynamic loader fills in: a dynamic relocation names it.
 */
static bool collect_hook_slots(struct check *c)
{
	const struct mc_bound_slot *bound;
	size_t n, cap = 0;

	if (!mc_survey_bound(c->s, &bound, &n))
		return false;
	for (size_t i = 0; i < n; i++)
		if (hook_named(c, bound[i].name) &&
		    !push_slot(c, bound[i].slot, &cap))
			return false;
	return true;
}

static bool is_hook_slot(const struct check *c, uint64_t a)
{
	for (size_t i = 0; i < c->n_hook_slots; i++)
		if (c->hook_slots[i] == a)
			return true;
	return false;
}

/* Addresses of every defined hook symbol (a handful). */
static bool collect_hook_addrs(struct check *c)
{
	struct mc_object *obj = c->s->obj;

	c->hook_addrs = malloc((obj->n_symbols + 1) * sizeof(uint64_t));
	if (!c->hook_addrs)
		return mc_fail(obj, "out of memory");
	for (size_t i = 1; i < obj->n_symbols; i++) {
		const struct mc_symbol *s = &obj->symbols[i];

		if (!hook_named(c, s->name))
			continue;
		if (s->sym.st_shndx == SHN_UNDEF)
			c->hook_dynamic = true;
		else
			c->hook_addrs[c->n_hook_addrs++] =
				mc_code_address(c->s->arch, s->sym.st_value);
	}
	if (c->s->arch->plt_base_section) {
		struct mc_section *got = mc_section_by_name(
			obj, c->s->arch->plt_base_section);

		c->got_base = got ? got->shdr->sh_addr : 0;
	}
	if (!collect_hook_slots(c))
		return false;
	c->hook_dynamic |= c->n_hook_slots > 0;
	return true;
}

static bool is_hook_addr(const struct check *c, uint64_t a)
{
	for (size_t i = 0; i < c->n_hook_addrs; i++)
		if (c->hook_addrs[i] == mc_code_address(c->s->arch, a))
			return true;
	return false;
}

/* The `n` bytes the linked image holds at `addr`, or NULL. */
static const uint8_t *image_bytes_at(struct check *c, uint64_t addr,
				     size_t n)
{
	struct mc_section *sec = mc_section_at_address(c->s->obj, addr);
	size_t size;
	const uint8_t *p = sec ? mc_section_bytes(c->s->obj, sec, &size) : NULL;
	uint64_t off = sec ? addr - sec->shdr->sh_addr : 0;

	return p && off + n <= size ? p + off : NULL;
}

static const uint8_t *image_read(void *ctx, uint64_t addr, size_t n)
{
	return image_bytes_at(ctx, addr, n);
}

/* The address-sized pointer stored at `where`, as the image holds it. */
static bool pointer_at(struct check *c, uint64_t where, uint64_t *value)
{
	const uint8_t *p = image_bytes_at(c, where, c->s->arch->addr_size);

	if (!p)
		return false;
	*value = mc_load_address(c->s->obj, p);
	if (c->s->arch->addr_size == 4)
		*value &= 0xffffffffu;
	mc_survey_relative(c->s, where, value);
	return true;
}

/* A direct call into a PLT entry (or stub) whose slot binds a hook. */
static bool plt_calls_hook(struct check *c, uint64_t target)
{
	const char *name;

	return c->hook_dynamic &&
	       mc_survey_plt_call(c->s, target, &name) == MC_PLT_DECODED &&
	       name && hook_named(c, name);
}

/* A direct call into a linker's stub that jumps on to a hook. */
static bool stub_calls_hook(struct check *c, uint64_t target)
{
	const struct mc_arch *a = c->s->arch;
	const uint8_t *p = a->call_stub ? image_bytes_at(c, target, 12) : NULL;

	return p && is_hook_addr(c, a->call_stub(a, p, 12, target));
}

/* A direct call into a PLT entry the architecture cannot decode. */
static bool into_undecoded_plt(struct check *c, enum mc_site_kind kind,
			       uint64_t target)
{
	const char *name;

	return kind == MC_SITE_CALL &&
	       mc_survey_plt_call(c->s, target, &name) == MC_PLT_UNDECODED;
}

/* Such a call in an image where the loader binds a hook: may be one. */
static bool plt_undecided(struct check *c, enum mc_site_kind kind,
			  uint64_t target)
{
	return c->hook_dynamic && into_undecoded_plt(c, kind, target);
}

/*
 * A decoded site that calls a hook (strictly: its address is known):
 * directly, through a PLT entry, a pointer, or (i386 PIC) a GOT slot.
 */
static bool calls_hook(struct check *c, enum mc_site_kind kind,
		       uint64_t target)
{
	uint64_t p;

	if (kind == MC_SITE_CALL)
		return is_hook_addr(c, target) || plt_calls_hook(c, target) ||
		       stub_calls_hook(c, target);
	if (kind == MC_SITE_CALL_INDIRECT)
		return is_hook_slot(c, target) ||
		       (pointer_at(c, target, &p) && is_hook_addr(c, p));
	if (kind == MC_SITE_CALL_GOT && c->got_base) {
		p = c->got_base + target;
		if (c->s->arch->addr_size == 4)
			p &= 0xffffffffu;
		return is_hook_slot(c, p);
	}
	return false;
}

/* A call whose target the loader writes into the site (call_word). */
static bool site_bound_to_hook(struct check *c, enum mc_site_kind kind,
			       uint64_t site)
{
	return kind == MC_SITE_CALL && c->s->arch->call_word &&
	       is_hook_slot(c, site);
}

static bool u64_below(const void *entry, const void *key)
{
	return *(const uint64_t *)entry < *(const uint64_t *)key;
}

/*
 * Does a global or weak symbol name `site`, a place inside the function
 * that starts at `start`?  No compiler puts one on a hook call it
 * emits; code that labels a call inside a function does so to patch
 * it: the tracer's own dispatch call (linux-6.1 riscv: `ftrace_call:`
 * in ftrace_caller calls ftrace_stub, which mcount.S makes `_mcount` an
 * alias of), not a function-entry hook.
 */
static bool labelled_call(struct check *c, uint64_t start, uint64_t site)
{
	size_t i;

	if (site == start)
		return false;
	i = mc_partition_point(c->labels, c->n_labels, sizeof(*c->labels),
			       &site, u64_below);
	return i < c->n_labels && c->labels[i] == site;
}

static bool is_call(enum mc_site_kind kind)
{
	return kind == MC_SITE_CALL || kind == MC_SITE_CALL_INDIRECT ||
	       kind == MC_SITE_CALL_GOT;
}

/* A linked function's bytes, and where they are. */
struct function_code {
	const uint8_t *code;	/* its section's bytes */
	size_t size;		/* their length */
	uint64_t base;		/* the section's address */
	uint64_t start;		/* the function's code address */
	uint64_t thumb;		/* what the symbol adds to it (arm's bit 0) */
};

/* Where linked function f's code is, or false if its section has none. */
static bool function_code(struct check *c, const struct mc_symbol *f,
			  struct function_code *fc)
{
	struct mc_object *obj = c->s->obj;
	struct mc_section *sec = obj->sections[f->shndx];

	fc->start = mc_code_address(c->s->arch, f->sym.st_value);
	fc->thumb = f->sym.st_value - fc->start;
	fc->code = mc_section_bytes(obj, sec, &fc->size);
	fc->base = sec->shdr->sh_addr;
	return fc->code && fc->start >= fc->base &&
	       fc->start - fc->base < fc->size;
}

/* The instruction at offset off of a function, or false past its bytes. */
static bool decode_in_function(struct check *c,
			       const struct function_code *fc, uint64_t off,
			       struct mc_site *s)
{
	uint64_t at = fc->start - fc->base + off;

	if (at >= fc->size)
		return false;
	*s = mc_decode_site(c->s->arch, fc->code + at, fc->size - at,
			    (fc->start + off) | fc->thumb);
	return true;
}

/* Does the image hold more than its primary GOT (mc_survey_got)? */
static bool several_gots(struct check *c)
{
	const struct mc_got *got = mc_survey_got(c->s);

	return got->start && !got->gp;
}

/*
 * A call through a register loaded from the GOT (mc_arch.got_call:
 * MIPS PIC), at the load `off` bytes into the function: as a call
 * through that slot (MC_SITE_CALL_INDIRECT) into *s, placed at the call
 * instruction, *at.  $gp is the primary GOT's unless the image has more
 * GOTs (then each function's own set-up says it).
 */
static enum mc_got_call got_call(struct check *c,
				 const struct function_code *fc, uint64_t off,
				 struct mc_site *s, uint64_t *at)
{
	const struct mc_arch *a = c->s->arch;
	const struct mc_got *got = mc_survey_got(c->s);
	struct mc_image img = { image_read, c };
	uint64_t slot, call;
	enum mc_got_call g;

	if (!a->got_call || is_call(s->kind))
		return MC_GOT_NONE;
	g = a->got_call(a, &img, fc->start, fc->start + off, got->gp, &slot,
			&call);
	if (g == MC_GOT_NONE)
		return g;
	*at = call;
	*s = (struct mc_site){ MC_SITE_CALL_INDIRECT,
			       a->got_layout->insn_len, slot };
	return g;
}

/*
 * Does the instruction of len bytes at `at` end inside function f (code
 * address start)?  x86 is read a byte at a time, and near a function's
 * end the bytes read can run into the next function: a last byte 0x90
 * (say the displacement of "jmp .-0x6e") followed by the next
 * function's "call __fentry__" decodes as a "nop; call" whose call is
 * the next function's hook, not this one's.
 */
static bool within_function(const struct mc_symbol *f, uint64_t start,
			    uint64_t at, unsigned len)
{
	return at >= start && at - start + len <= f->sym.st_size;
}

/*
 * The first hook call in linked function f at an offset in [from, to]
 * (and below its size), or false; with `first_call`, the scan ends at
 * the first call of any kind.  A call at a global label inside the
 * function is not one (labelled_call).
 */
static bool scan_hook(struct check *c, const struct mc_symbol *f,
		      uint64_t from, uint64_t to, bool first_call,
		      uint64_t *site, unsigned *len, uint64_t *undecided)
{
	struct function_code fc;
	uint64_t start;

	if (!function_code(c, f, &fc))
		return false;
	start = fc.start;
	for (uint64_t off = from; off <= to && off < f->sym.st_size;
	     off += c->s->arch->insn_step) {
		struct mc_site s;
		uint64_t at = start + off;

		if (!decode_in_function(c, &fc, off, &s))
			break;
		enum mc_got_call g = got_call(c, &fc, off, &s, &at);
		if (g != MC_GOT_UNKNOWN && is_call(s.kind) &&
		    within_function(f, start, at, s.len) &&
		    (calls_hook(c, s.kind, s.target) ||
		     site_bound_to_hook(c, s.kind, at)) &&
		    !labelled_call(c, start, at)) {
			*site = at;
			*len = s.len;
			return true;
		}
		if (undecided && *undecided == UINT64_MAX &&
		    (plt_undecided(c, s.kind, s.target) ||
		     (g == MC_GOT_UNKNOWN && c->hook_dynamic))) {
			*undecided = at;
			c->undecided_why = g != MC_GOT_UNKNOWN ?
				"call through a PLT entry --check cannot "
				"decode" : several_gots(c) ?
				"call through the GOT from a base register "
				"--check cannot follow, in an image of several "
				"GOTs (each with its own $gp)" :
				"call through the GOT from a base register "
				"--check cannot follow";
		}
		if (first_call && is_call(s.kind))
			break;
	}
	return false;
}

/*
 * The first hook call in a linked function's entry window, or false.
 * The window ends at the function's end or max_entry_offset, whichever
 * comes first (a site may start at max_entry_offset).
 */
static bool entry_hook(struct check *c, const struct mc_symbol *f,
		       uint64_t *site, unsigned *len, uint64_t *undecided)
{
	return scan_hook(c, f, 0, c->s->arch->max_entry_offset, false, site,
			 len, undecided);
}

/*
 * A hook call past the window: -pg's call follows the prologue, which a
 * large frame, a stack protector or return-address signing lengthen
 * past max_entry_offset (GCC -fstack-protector-all: aarch64 +0x68,
 * ppc64le +0xa8; clang: x86_64 -pg +0x3c, ppc64le +0x138).  It is the
 * function's first call, so the function is read again up to its first
 * call of any kind, which is the hook's or there is none.
 */
static bool hook_anywhere(struct check *c, const struct mc_symbol *f,
			  uint64_t *site, unsigned *len, uint64_t *undecided)
{
	return entry_hook(c, f, site, len, undecided) ||
	       scan_hook(c, f, 0, UINT64_MAX, true, site, len, NULL);
}

/* Functions worth scanning: defined, sized, in code, not a hook itself. */
static bool is_code_function(struct check *c, const struct mc_symbol *s)
{
	struct mc_object *obj = c->s->obj;

	return GELF_ST_TYPE(s->sym.st_info) == STT_FUNC &&
	       s->sym.st_shndx != SHN_UNDEF && s->sym.st_size > 0 &&
	       s->shndx > 0 && s->shndx < obj->n_sections &&
	       (obj->sections[s->shndx]->shdr->sh_flags & SHF_EXECINSTR) &&
	       !hook_named(c, s->name);
}

static bool placed_below(const void *entry, const void *key)
{
	const struct placed *p = entry, *k = key;

	return p->shndx < k->shndx || (p->shndx == k->shndx &&
				       p->value < k->value);
}

/* First position in c->sorted not below (shndx, lo). */
static size_t first_placed(const struct check *c, size_t shndx, uint64_t lo)
{
	struct placed key = { .shndx = shndx, .value = lo };

	return mc_partition_point(c->sorted, c->n_sorted, sizeof(key), &key,
				  placed_below);
}

static int compare_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* A global or weak label or function in code, for labelled_call(). */
static bool is_code_label(struct check *c, const struct mc_symbol *s)
{
	struct mc_object *obj = c->s->obj;
	int bind = GELF_ST_BIND(s->sym.st_info);
	int type = GELF_ST_TYPE(s->sym.st_info);

	return (bind == STB_GLOBAL || bind == STB_WEAK) &&
	       (type == STT_NOTYPE || type == STT_FUNC) &&
	       s->sym.st_shndx != SHN_UNDEF && s->shndx > 0 &&
	       s->shndx < obj->n_sections &&
	       (obj->sections[s->shndx]->shdr->sh_flags & SHF_EXECINSTR);
}

/*
 * The functions to scan, in address order: problems come out in the
 * order of the code, and aliases of one function sit side by side.
 * Also the addresses of the global labels in code (labelled_call).
 */
static bool collect_functions(struct check *c)
{
	struct mc_object *obj = c->s->obj;

	c->funcs = malloc((obj->n_symbols + 1) * sizeof(*c->funcs));
	c->labels = malloc((obj->n_symbols + 1) * sizeof(*c->labels));
	if (!c->funcs || !c->labels)
		return mc_fail(obj, "out of memory");
	for (size_t i = 1; i < obj->n_symbols; i++) {
		if (is_code_function(c, &obj->symbols[i]))
			c->funcs[c->n_funcs++] = i;
		if (is_code_label(c, &obj->symbols[i]))
			c->labels[c->n_labels++] =
				mc_code_address(c->s->arch,
						obj->symbols[i].sym.st_value);
	}
	qsort(c->labels, c->n_labels, sizeof(*c->labels), compare_u64);
	qsort_r(c->funcs, c->n_funcs, sizeof(*c->funcs), mc_symbol_index_by_value, obj);
	return true;
}

/* Is there a live entry in [lo, hi) of section `shndx`? */
static bool entry_between(const struct check *c, size_t shndx, uint64_t lo,
			  uint64_t hi)
{
	size_t a = first_placed(c, shndx, lo);

	return a < c->n_sorted && c->sorted[a].shndx == shndx &&
	       c->sorted[a].value < hi;
}

/*
 * Does function f (linked) have an entry: inside it, or just before its
 * symbol where a pad starts (and no other function is)?
 */
static bool function_has_entry(struct check *c, const struct mc_symbol *f)
{
	uint64_t start = mc_code_address(c->s->arch, f->sym.st_value);
	uint64_t lo = start > MC_MAX_SITE_LEN ? start - MC_MAX_SITE_LEN : 0;

	if (entry_between(c, f->shndx, start, start + f->sym.st_size))
		return true;
	for (size_t i = first_placed(c, f->shndx, lo);
	     i < c->n_sorted && c->sorted[i].shndx == f->shndx &&
	     c->sorted[i].value < start; i++) {
		int64_t off;
		const struct mc_symbol *g = mc_survey_function(
			c->s, f->shndx, c->sorted[i].value, &off);

		if (g && off < 0 &&
		    mc_code_address(c->s->arch, g->sym.st_value) == start)
			return true;
	}
	return false;
}

/* Hooks of a linked image that no entry covers. */
static void linked_unrecorded(struct check *c)
{
	struct mc_object *obj = c->s->obj;
	uint64_t last = UINT64_MAX;	/* aliases share a start: once */
	size_t missing = 0;
	uint64_t first_missing = 0;	/* the lowest, for no-table */
	size_t first_shndx = 0, undecided = 0;

	for (size_t i = 0; i < c->n_funcs; i++) {
		const struct mc_symbol *f = &obj->symbols[c->funcs[i]];
		uint64_t site, maybe = UINT64_MAX;
		unsigned len;

		if (f->sym.st_value == last)
			continue;
		if (!hook_anywhere(c, f, &site, &len, &maybe)) {
			if (maybe != UINT64_MAX && !function_has_entry(c, f)) {
				undecided++;
				problem(c, P_UNDECIDED, true, f->shndx, maybe,
					SIZE_MAX, "%s: it may reach a hook the "
					"table misses", c->undecided_why);
			}
			continue;
		}
		last = f->sym.st_value;
		c->hooks++;
		if (function_has_entry(c, f))
			continue;
		if (missing++ == 0 || site < first_missing) {
			first_missing = site;
			first_shndx = f->shndx;
		}
		if (c->n_sorted)
			problem(c, P_UNRECORDED, true, f->shndx, site, SIZE_MAX,
				"call to a hook is not in the table");
	}
	if (missing && !c->n_sorted)
		problem(c, P_NO_TABLE, true, first_shndx, first_missing,
			SIZE_MAX, "%zu function%s call%s a hook but the "
			"table %s", missing, missing == 1 ? "" : "s",
			missing == 1 ? "s" : "", c->s->has_table ?
			"is empty" : "is missing");
	if (c->hook_dynamic && !mc_survey_follows_plt(c->s) &&
	    !c->s->arch->got_call && !undecided)
		problem(c, P_UNDECIDED, false, 0, 0, SIZE_MAX, "the dynamic "
			"loader binds a hook, and --check cannot follow calls "
			"through the PLT or GOT on %s: hooks the table misses "
			"would go unseen", c->s->arch->name);
}

/* ---- the code: where hooks are in an object ---------------------------- */

static void object_unrecorded(struct check *c)
{
	for (size_t i = 0; i < c->s->hooks.n; i++) {
		const struct mc_hook_site *h = &c->s->hooks.v[i];

		int64_t off;

		/* Dead code (a weak body `ld -r` overrode) needs no entry. */
		if (!h->traced ||
		    !mc_survey_function(c->s, h->shndx, h->offset, &off) ||
		    off < 0)
			continue;
		c->hooks++;
		if (!entry_between(c, h->shndx, h->offset, h->offset + 1))
			problem(c, P_UNRECORDED, true, h->shndx, h->offset,
				SIZE_MAX, "%s to a hook is not in the table",
				h->form->name);
	}
}

/* Does the function around an object offset hold a hook elsewhere? */
static bool object_function_has_hook(const struct check *c,
				     const struct mc_symbol *f)
{
	/* The hooks are sorted by place: the first one from its start. */
	uint64_t start = mc_code_address(c->s->arch, f->sym.st_value);
	const struct mc_hook_site *h =
		mc_survey_hook_from(c->s, f->shndx, start);

	return h && h->shndx == f->shndx && h->offset - start < f->sym.st_size;
}

/* ---- hooks the architecture cannot patch ------------------------------- */

/*
 * Calls to one of arch->unsupported_hooks (arm's bare `bl mcount` from
 * clang without -meabi gnu, s390x's `brasl %r14,mcount` without
 * -mfentry) are hooks no table entry can make safe: recording leaves
 * them out, and a file that holds them must not pass as one without
 * hooks.  They are counted here, in objects by their relocations, in
 * linked images by decoding every function for a call to the hook's
 * address, through a PLT entry or stub whose slot binds it, or through
 * a pointer to it: clang puts them after the prologue, at no fixed
 * place, so the whole function is read.
 */

/* The index of `name` in arch->unsupported_hooks, or -1. */
static int unsupported_index(const struct check *c, const char *name)
{
	const char *const *h = c->s->arch->unsupported_hooks;

	for (int i = 0; h && h[i] && i < MAX_UNSUPPORTED; i++)
		if (strcmp(h[i], name) == 0)
			return i;
	return -1;
}

/* One more call to unsupported hook `which`, at (shndx, at). */
static void count_unsupported(struct check *c, int which, size_t shndx,
			      uint64_t at)
{
	struct unsupported_calls *u = &c->unsup[which];

	if (u->n++ == 0 || shndx < u->shndx ||
	    (shndx == u->shndx && at < u->first)) {
		u->shndx = shndx;
		u->first = at;
	}
}

static bool push_target(struct check *c, struct unsupported_target **v,
			size_t *n, uint64_t at, int which)
{
	struct unsupported_target *w = realloc(*v, (*n + 1) * sizeof(**v));

	if (!w)
		return mc_fail(c->s->obj, "out of memory");
	*v = w;
	w[(*n)++] = (struct unsupported_target){ at, (unsigned)which };
	return true;
}

/*
 * Linked: the unsupported hooks' addresses and the slots bound to them.
 * An unsupported name at a hook symbol's address is another name of
 * that hook (sparc's mcount.S defines `mcount` at `_mcount`): a call
 * there is to the hook, and was recorded as one.
 */
static bool collect_unsupported(struct check *c)
{
	struct mc_object *obj = c->s->obj;
	const struct mc_bound_slot *bound;
	size_t n;
	int w;

	if (!c->s->arch->unsupported_hooks)
		return true;
	for (size_t i = 1; i < obj->n_symbols; i++) {
		const struct mc_symbol *s = &obj->symbols[i];
		uint64_t at = mc_code_address(c->s->arch, s->sym.st_value);

		if (s->sym.st_shndx != SHN_UNDEF &&
		    (w = unsupported_index(c, s->name)) >= 0 &&
		    !is_hook_addr(c, at) &&
		    !push_target(c, &c->unsup_addrs, &c->n_unsup_addrs, at, w))
			return false;
	}
	if (!mc_survey_bound(c->s, &bound, &n))
		return false;
	for (size_t i = 0; i < n; i++)
		if ((w = unsupported_index(c, bound[i].name)) >= 0 &&
		    !push_target(c, &c->unsup_slots, &c->n_unsup_slots,
				 bound[i].slot, w))
			return false;
	return true;
}

static int target_at(const struct unsupported_target *v, size_t n,
		     uint64_t at)
{
	for (size_t i = 0; i < n; i++)
		if (v[i].at == at)
			return (int)v[i].which;
	return -1;
}

/* Which unsupported hook a decoded site at `site` calls, or -1. */
static int unsupported_call(struct check *c, const struct mc_site *s,
			    uint64_t site)
{
	const struct mc_arch *arch = c->s->arch;
	const char *name;
	uint64_t p;
	int w = -1;

	if (s->kind == MC_SITE_CALL) {
		w = target_at(c->unsup_addrs, c->n_unsup_addrs,
			      mc_code_address(arch, s->target));
		if (w < 0 && c->n_unsup_slots &&
		    mc_survey_plt_call(c->s, s->target, &name) ==
		    MC_PLT_DECODED && name)
			w = unsupported_index(c, name);
		if (w < 0 && arch->call_word)
			w = target_at(c->unsup_slots, c->n_unsup_slots, site);
	} else if (s->kind == MC_SITE_CALL_INDIRECT) {
		w = target_at(c->unsup_slots, c->n_unsup_slots, s->target);
		if (w < 0 && pointer_at(c, s->target, &p))
			w = target_at(c->unsup_addrs, c->n_unsup_addrs,
				      mc_code_address(arch, p));
	} else if (s->kind == MC_SITE_CALL_GOT && c->got_base) {
		p = c->got_base + s->target;
		if (arch->addr_size == 4)
			p &= 0xffffffffu;
		w = target_at(c->unsup_slots, c->n_unsup_slots, p);
	}
	return w;
}

/* Every call to an unsupported hook in linked function f. */
static void function_unsupported(struct check *c, const struct mc_symbol *f)
{
	struct function_code fc;

	if (!function_code(c, f, &fc))
		return;
	for (uint64_t off = 0; off < f->sym.st_size;
	     off += c->s->arch->insn_step) {
		struct mc_site s;
		int w;

		if (!decode_in_function(c, &fc, off, &s))
			break;
		w = unsupported_call(c, &s, fc.start + off);
		if (w >= 0)
			count_unsupported(c, w, f->shndx, fc.start + off);
	}
}

static void linked_unsupported(struct check *c)
{
	const struct mc_object *obj = c->s->obj;
	uint64_t last = UINT64_MAX;	/* aliases share a start: once */

	if (!c->n_unsup_addrs && !c->n_unsup_slots)
		return;
	for (size_t i = 0; i < c->n_funcs; i++) {
		const struct mc_symbol *f = &obj->symbols[c->funcs[i]];

		if (f->sym.st_value == last)
			continue;
		last = f->sym.st_value;
		function_unsupported(c, f);
	}
}

/* An object's relocations in traced code against an unsupported hook. */
static void object_unsupported(struct check *c)
{
	struct mc_object *obj = c->s->obj;

	if (!c->s->arch->unsupported_hooks)
		return;
	for (size_t i = 1; i < obj->n_sections; i++) {
		struct mc_section *rel = obj->sections[i];
		struct mc_section *text = mc_section_target(obj, rel);
		size_t n = mc_is_reloc_section(rel) ? mc_reloc_count(rel) : 0;

		if (!n || !text ||
		    !(text->shdr->sh_flags & SHF_EXECINSTR) ||
		    !mc_section_is_traced(text->name, c->s->opt))
			continue;
		for (size_t k = 0; k < n; k++) {
			struct mc_reloc r;
			int64_t off;
			int w;

			if (!mc_reloc_get(obj, rel, k, &r) ||
			    r.sym >= obj->n_symbols ||
			    (w = unsupported_index(c, mc_symbol_name(obj,
							       r.sym))) < 0 ||
			    !mc_survey_function(c->s, text->index, r.offset,
						&off) || off < 0)
				continue;
			count_unsupported(c, w, text->index, r.offset);
		}
	}
}

/* One problem per unsupported hook called: its count and the first. */
static void report_unsupported(struct check *c)
{
	const struct mc_arch *arch = c->s->arch;

	for (int w = 0; w < MAX_UNSUPPORTED; w++) {
		const struct unsupported_calls *u = &c->unsup[w];

		if (!u->n)
			continue;
		c->hooks += u->n;
		problem(c, P_UNSUPPORTED, true, u->shndx, u->first, SIZE_MAX,
			"%zu call%s to %s, which %s's runtime cannot patch: "
			"%s", u->n, u->n == 1 ? "" : "s",
			arch->unsupported_hooks[w], arch->name,
			arch->unsupported_why);
	}
}

/* ---- the table --------------------------------------------------------- */

static bool entry_is_zero(const struct check *c, const struct mc_entry *e)
{
	(void)c;
	return e->cleared;
}

/* Sorted copy of the live entries, for lookups and duplicates. */
static bool sort_entries(struct check *c)
{
	struct mc_survey *s = c->s;

	c->sorted = malloc((s->n_entries + 1) * sizeof(*c->sorted));
	if (!c->sorted)
		return mc_fail(s->obj, "out of memory");
	for (size_t k = 0; k < s->n_entries; k++) {
		const struct mc_entry *e = &s->entries[k];

		if (entry_is_zero(c, e) || !e->resolved)
			continue;
		c->sorted[c->n_sorted++] = (struct placed){
			e->shndx, mc_entry_value(s, e), k };
	}
	if (c->n_sorted)
		qsort(c->sorted, c->n_sorted, sizeof(*c->sorted),
		      compare_placed);
	return true;
}

static void check_duplicates(struct check *c)
{
	for (size_t i = 1; i < c->n_sorted; i++) {
		const struct placed *a = &c->sorted[i - 1], *b = &c->sorted[i];

		if (a->shndx == b->shndx && a->value == b->value)
			problem(c, P_DUPLICATE, true, b->shndx, b->value,
				b->index, "entry %zu repeats entry %zu",
				b->index, a->index);
	}
}

/* --sorted: ascending addresses, cleared entries aside. */
static void check_order(struct check *c)
{
	const struct mc_survey *s = c->s;
	uint64_t prev = 0;
	size_t prev_k = SIZE_MAX;

	for (size_t k = 0; k < s->n_entries; k++) {
		const struct mc_entry *e = &s->entries[k];

		if (entry_is_zero(c, e))
			continue;
		if (prev_k != SIZE_MAX && e->address < prev) {
			problem(c, P_UNSORTED, true, e->shndx, e->address, k,
				"entry %zu is below entry %zu (0x%" PRIx64
				"): the table is not sorted", k, prev_k, prev);
			return;
		}
		prev = e->address;
		prev_k = k;
	}
}

/* Is `name` a trampoline of libmcount.a's runtime? */
static bool is_runtime_tramp(const char *name)
{
	for (size_t i = 0; name && i < MC_RUNTIME_TRAMPS; i++)
		if (strcmp(name, mc_runtime_tramps[i].tramp) == 0)
			return true;
	return false;
}

/* A verdict on the site at `site` that is a hook, in any of its forms. */
static bool is_hook_verdict(struct check *c, const struct mc_verdict *v,
			    uint64_t site)
{
	if (strcmp(v->state, "nop") == 0 || strcmp(v->state, "pad") == 0)
		return true;
	if (strcmp(v->state, "disabled") == 0)	/* --finalize --prepatch */
		return is_runtime_tramp(v->symbol);
	if (strcmp(v->state, "call") != 0)
		return v->kind == MC_SITE_CALL_GOT;	/* i386 PIC mcount */
	if (!c->s->linked)
		return true;	/* a hook relocation marks it */
	/* A PLT entry it cannot decode: may be a hook's, as it says. */
	return calls_hook(c, v->kind, v->target_address) ||
	       site_bound_to_hook(c, v->kind, site) ||
	       into_undecoded_plt(c, v->kind, v->target_address);
}

/*
 * An entry the architecture may judge for what it is before its
 * function's hook call (mc_arch.judge_early_entry: MIPS PIC).
 */
static enum mc_early_entry early_entry(struct check *c, uint64_t value,
				       bool found, uint64_t hook)
{
	const struct mc_arch *a = c->s->arch;
	struct mc_image img = { image_read, c };

	if (!c->s->linked || !found || !a->judge_early_entry)
		return MC_EARLY_UNJUDGED;
	return a->judge_early_entry(a, &img, value, hook);
}

/*
 * The function a pad NOP at entry e belongs to: the first to start
 * inside the run of pad NOPs from e on (M > 0: the NOPs before its
 * symbol), else the one e is in.
 */
static const struct mc_symbol *pad_function(struct check *c,
					    const struct mc_entry *e,
					    const uint8_t *code, size_t size)
{
	struct mc_survey *s = c->s;
	const struct mc_arch *a = s->arch;
	uint64_t value = mc_entry_value(s, e);
	uint64_t d = 0;
	unsigned k = 1;
	int64_t off;

	for (; k && e->offset + d < size; d += k) {
		const struct mc_symbol *g = mc_function_at(
			s->obj, e->shndx, value + d, a->symbol_mode_bits);

		if (g && mc_code_address(a, g->sym.st_value) == value + d)
			return g;
		k = mc_match_insn(a->pad_nops, a->n_pad_nops,
				  code + e->offset + d, size - e->offset - d);
	}
	return mc_survey_function(s, e->shndx, value, &off);
}

/*
 * Is entry k, whose bytes read as a NOP or a pad, a pad the runtime
 * cannot enable?  A pad's table entry is its first NOP, at or before
 * its function's entry, or just past an entry prefix (endbr64, bti c)
 * there; a hook's NOP further into its function (-pg's, after --nop)
 * is no pad, nor is a NOP that is not one of the pad NOPs (s390x's
 * brcl 0,0 for -mfentry).
 */
static void check_pad_fit(struct check *c, size_t k)
{
	struct mc_survey *s = c->s;
	const struct mc_entry *e = &s->entries[k];
	const struct mc_arch *a = s->arch;
	struct mc_section *sec = mc_entry_section(s, e);
	size_t size;
	const uint8_t *code = sec ? mc_section_bytes(s->obj, sec, &size) : NULL;
	uint64_t value = mc_entry_value(s, e);
	struct mc_pad_fit fit;

	if (!code || e->offset >= size ||
	    !mc_match_insn(a->pad_nops, a->n_pad_nops, code + e->offset,
			   size - e->offset))
		return;
	const struct mc_symbol *f = pad_function(c, e, code, size);
	if (!f)
		return;
	uint64_t start = mc_code_address(a, f->sym.st_value);
	if (start + e->offset < value)
		return;
	uint64_t entry = start + e->offset - value;	/* section offset */
	if (entry > size)
		return;
	if (entry < e->offset &&
	    mc_match_insn(a->entry_prefixes, a->n_entry_prefixes,
			  code + entry, size - entry) != e->offset - entry)
		return;
	const char *why = mc_pad_refusal(a, code + e->offset,
					 size - e->offset, code + entry,
					 size - entry, &fit);
	if (!why)
		return;
	if (fit.reader && fit.nops < fit.reader->pad_call_len)
		problem(c, P_UNUSABLE_PAD, true, e->shndx, value, k,
			"entry %zu: libmcount cannot enable this pad: %zu "
			"byte%s of NOPs from the entry on, and %s's call "
			"takes %u", k, fit.nops, fit.nops == 1 ? "" : "s",
			fit.reader->name, fit.reader->pad_call_len);
	else
		problem(c, P_UNUSABLE_PAD, true, e->shndx, value, k,
			"entry %zu: libmcount cannot enable this pad: %s", k,
			why);
}

static void check_entry(struct check *c, size_t k)
{
	struct mc_survey *s = c->s;
	const struct mc_entry *e = &s->entries[k];
	uint64_t value = mc_entry_value(s, e);
	const struct mc_symbol *f;
	int64_t fo;
	uint64_t hook;
	unsigned len;

	if (entry_is_zero(c, e)) {
		c->zeroed++;
		return;
	}
	if (!e->resolved || !(s->obj->sections[e->shndx]->shdr->sh_flags &
			      SHF_EXECINSTR)) {
		problem(c, P_BAD_ADDRESS, true, e->resolved ? e->shndx : 0,
			s->linked ? e->address : e->offset, k, "entry %zu is "
			"not in code%s", k, s->linked ? "" :
			" (no relocation, or one against a non-code section)");
		return;
	}
	struct mc_verdict v = mc_survey_judge(s, e);
	f = mc_survey_entry_function(s, e, &v, &fo);
	if (!f) {
		problem(c, P_STALE, true, e->shndx, value, k, "entry %zu is in "
			"no function (an overridden weak function or discarded "
			"code)", k);
		return;
	}
	/*
	 * The window only: past it, the hook found may be the inside of a
	 * block this very entry starts (s390x's stg; brasl; lg), corrupt.
	 */
	bool found = s->linked && entry_hook(c, f, &hook, &len, NULL);
	/* x86: a call decodes from inside `addr32 call` too, off its start. */
	if (is_hook_verdict(c, &v, value) &&
	    !(found && hook < value && value < hook + len)) {
		check_pad_fit(c, k);
		return;
	}
	enum mc_early_entry early = early_entry(c, value, found, hook);
	if (early == MC_EARLY_SITE)
		return;
	bool elsewhere = s->linked ? found && hook != value &&
				     early != MC_EARLY_CORRUPT
				   : object_function_has_hook(c, f);
	problem(c, elsewhere ? P_OFF_HOOK : P_CORRUPT, true, e->shndx, value, k,
		elsewhere ? "entry %zu is not on its function's hook (%s%s%s)"
			  : "entry %zu holds no hook, NOP or pad (%s%s%s)",
		k, v.state, *v.target ? " " : "", v.target);
}

/* ---- per file ---------------------------------------------------------- */

static void begin(struct check *c)
{
	if (!c->json)
		return;
	printf("{\"schema_version\":%d,\"file\":", CHECK_SCHEMA_VERSION);
	mc_json_string(c->path);
	printf(",\"problems\":[");
}

static void end(struct check *c, const char *error)
{
	struct mc_survey *s = c->s;
	const char *verdict = error ? "error" : c->problems ? "fail" : "ok";

	if (c->json) {
		printf("],\"result\":\"%s\",\"arch\":", verdict);
		if (s && s->arch)
			printf("\"%s\",\"type\":\"%s\"", s->arch->name,
			       mc_survey_kind(s));
		else
			printf("null,\"type\":null");
		printf(",\"entries\":%zu,\"zeroed\":%zu,\"hooks\":%zu,"
		       "\"error\":", s ? s->n_entries : 0, c->zeroed, c->hooks);
		if (error)
			mc_json_string(error);
		else
			printf("null");
		printf("}\n");
		return;
	}
	if (error || (c->quiet && !c->problems))
		return;
	printf("%s: %s: %s %s, %zu entr%s (%zu cleared), %zu hook%s, "
	       "%zu problem%s\n", c->path, verdict, s->arch->name,
	       mc_survey_kind(s), s->n_entries, s->n_entries == 1 ? "y" : "ies",
	       c->zeroed, c->hooks, c->hooks == 1 ? "" : "s", c->problems,
	       c->problems == 1 ? "" : "s");
}

static void judge_file(struct check *c)
{
	struct mc_survey *s = c->s;

	if (!s->linked && has_lto_sections(s->obj)) {
		problem(c, P_LTO, false, 0, 0, SIZE_MAX, "LTO object: record "
			"after the LTO link");
		return;
	}
	for (size_t k = 0; k < s->n_entries; k++)
		check_entry(c, k);
	check_duplicates(c);
	if (s->linked && s->opt->sorted)
		check_order(c);
	if (s->linked) {
		linked_unrecorded(c);
		linked_unsupported(c);
	} else {
		object_unrecorded(c);
		object_unsupported(c);
	}
	report_unsupported(c);
}

static void no_warnings(const struct mc_object *obj,
			const struct mc_options *opt, const char *msg)
{
	(void)obj;
	(void)opt;
	(void)msg;
}

int mc_check_file(const char *path, const struct mc_options *opt)
{
	struct mc_object obj;
	struct mc_survey s;
	struct check c = { .s = &s, .path = path,
			   .json = opt->format == MC_FORMAT_JSON,
			   .quiet = opt->verbosity < 0 };
	bool ok;

	if (is_bitcode_file(path)) {
		c.s = NULL;
		begin(&c);
		problem(&c, P_LTO, false, 0, 0, SIZE_MAX,
			"LTO object (LLVM bitcode): record after the LTO link");
		if (c.json)
			end(&c, NULL);
		else
			printf("%s: fail: LLVM bitcode, 1 problem\n", path);
		fflush(stdout);
		return 1;
	}
	ok = mc_survey_open(&s, &obj, path, opt, no_warnings);
	if (ok && mc_survey_has_descriptors(&s))
		ok = mc_fail(&obj, "ppc64 ELFv1 function descriptors: --check "
			     "cannot tell where functions are");
	ok = ok && sort_entries(&c) &&
	     (!s.linked || (collect_hook_addrs(&c) && collect_unsupported(&c) &&
			     collect_functions(&c)));
	begin(&c);
	if (ok)
		judge_file(&c);
	else
		fprintf(stderr, "recordmcount: %s: %s\n", path, obj.error);
	end(&c, ok ? NULL : obj.error);
	fflush(stdout);
	free(c.hook_addrs);
	free(c.hook_slots);
	free(c.funcs);
	free(c.labels);
	free(c.sorted);
	free(c.unsup_addrs);
	free(c.unsup_slots);
	mc_survey_free(&s);
	mc_object_close(&obj);
	return ok && c.problems == 0 ? 0 : 1;
}
