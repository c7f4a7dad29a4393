/* SPDX-License-Identifier: MIT */
/*
 * trampoline.S - i386 hook targets and trampolines (AT&T syntax).
 *
 * The compiler's hooks call __fentry__ (-pg -mfentry, non-PIC only: the
 * first instruction of the function) or mcount (-pg: after `push %ebp;
 * mov %esp,%ebp`, and in PIC code after %ebx is loaded with the GOT
 * address, through `call *mcount@GOT(%ebx)`).  Both stubs only return,
 * so a hook reached before mcount_boot() has run costs a call.
 *
 * An enabled site calls one of the trampolines instead.  cdecl passes
 * arguments on the stack, which the trampoline leaves alone; regparm,
 * fastcall and thiscall functions pass up to three in %eax, %edx and
 * %ecx, the registers a C call may clobber, so those are saved.  %ebx,
 * %esi, %edi and %ebp are preserved by the C code itself.  The x87
 * stack is empty at a function's entry, as the ABI requires at every
 * call.  Vector registers are not saved (no SSE may be assumed on
 * i686): a callback using SSE can clobber __m128 arguments passed in
 * %xmm0-2.
 *
 * Stack on entry to the trampoline:
 *   fentry:  (%esp) = return into the function (site + len)
 *            4(%esp) = the function's own return address, in its caller
 *   mcount:  (%esp) = return into the function
 *            %ebp = the function's frame; 4(%ebp) = its return address
 *
 * Linux's i386 ABI, as GCC compiles it, expects %esp to be 16-byte
 * aligned at every call; the frame is aligned explicitly, so neither
 * entry depends on how far the function got through its prologue.
 *
 * endbr32 (a NOP on CPUs without CET) opens every entry: the stubs are
 * reached through `call *mcount@GOT(%ebx)` when ld does not relax it.
 */

	.text

	.globl	__fentry__
	.type	__fentry__, @function
	.p2align 4
__fentry__:
	.cfi_startproc
	endbr32
	ret
	.cfi_endproc
	.size	__fentry__, . - __fentry__

	.globl	mcount
	.type	mcount, @function
	.p2align 4
mcount:
	.cfi_startproc
	endbr32
	ret
	.cfi_endproc
	.size	mcount, . - mcount

/*
 * Build a frame on %ebp, save the call-clobbered registers below it and
 * align %esp so that, after the two argument pushes, the call to
 * mc_rt_dispatch_slot happens on a 16-byte boundary.
 */
.macro	SAVE_REGS
	pushl	%ebp
	.cfi_adjust_cfa_offset 4
	.cfi_rel_offset %ebp, 0
	movl	%esp, %ebp
	.cfi_def_cfa_register %ebp
	pushl	%eax			/* -4(%ebp) */
	pushl	%ecx			/* -8(%ebp) */
	pushl	%edx			/* -12(%ebp) */
	andl	$-16, %esp
	subl	$8, %esp
.endm

/* Undo SAVE_REGS and return into the hooked function. */
.macro	RESTORE_REGS_RET
	movl	-12(%ebp), %edx
	movl	-8(%ebp), %ecx
	movl	-4(%ebp), %eax
	movl	%ebp, %esp
	popl	%ebp
	.cfi_def_cfa %esp, 4
	.cfi_restore %ebp
	ret
.endm

/*
 * mc_rt_dispatch_slot(ret, slot) (platform.h): cdecl, arguments pushed
 * right to left; `slot` is where the function's return address lives,
 * which a recorder of exits swaps.  Hidden, so the call needs no PLT
 * and no %ebx.
 */
	.hidden	mc_rt_dispatch_slot

	.globl	mc_rt_tramp_fentry
	.hidden	mc_rt_tramp_fentry
	.type	mc_rt_tramp_fentry, @function
	.p2align 4
mc_rt_tramp_fentry:
	.cfi_startproc
	endbr32
	SAVE_REGS
	leal	8(%ebp), %eax
	pushl	%eax			/* where its return address is */
	pushl	4(%ebp)			/* return into the function */
	call	mc_rt_dispatch_slot
	RESTORE_REGS_RET
	.cfi_endproc
	.size	mc_rt_tramp_fentry, . - mc_rt_tramp_fentry

	.globl	mc_rt_tramp_mcount
	.hidden	mc_rt_tramp_mcount
	.type	mc_rt_tramp_mcount, @function
	.p2align 4
mc_rt_tramp_mcount:
	.cfi_startproc
	endbr32
	SAVE_REGS
	movl	0(%ebp), %eax		/* the function's frame pointer */
	addl	$4, %eax
	pushl	%eax			/* where its return address is */
	pushl	4(%ebp)			/* return into the function */
	call	mc_rt_dispatch_slot
	RESTORE_REGS_RET
	.cfi_endproc
	.size	mc_rt_tramp_mcount, . - mc_rt_tramp_mcount

/*
 * uintptr_t mc_rt_got_base(void): the run-time address of the GOT this
 * library was linked into, which is the program's own: the %ebx a PIC
 * `call *mcount@GOT(%ebx)` in that program uses.  The classic sequence:
 * the call pushes the address of 1:, and R_386_GOTPC adds the distance
 * from there to _GLOBAL_OFFSET_TABLE_.
 */
	.globl	mc_rt_got_base
	.hidden	mc_rt_got_base
	.type	mc_rt_got_base, @function
	.p2align 4
mc_rt_got_base:
	.cfi_startproc
	call	1f
1:	.cfi_adjust_cfa_offset 4
	popl	%eax
	.cfi_adjust_cfa_offset -4
	addl	$_GLOBAL_OFFSET_TABLE_ + (. - 1b), %eax
	ret
	.cfi_endproc
	.size	mc_rt_got_base, . - mc_rt_got_base

/*
 * An empty, writable __mcount_loc input section: see the x86_64 file.
 * It makes lds/mcount.lds's output section writable, so a PIE's
 * R_386_RELATIVE relocations of the table land in RELRO instead of
 * creating DT_TEXTREL.
 */
	.section __mcount_loc, "awo", @progbits, .text

#ifdef __CET__
/* Tell the linker this object is IBT/SHSTK-clean (GNU property note). */
	.section .note.gnu.property, "a"
	.p2align 2
	.long	4			/* name size: "GNU\0" */
	.long	12			/* descriptor size */
	.long	5			/* NT_GNU_PROPERTY_TYPE_0 */
	.asciz	"GNU"
	.long	0xc0000002		/* GNU_PROPERTY_X86_FEATURE_1_AND */
	.long	4			/* data size */
	.long	__CET__			/* 1 = IBT, 2 = SHSTK */
	.p2align 2
#endif

	.section .note.GNU-stack, "", @progbits
