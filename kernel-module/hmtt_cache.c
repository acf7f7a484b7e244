// SPDX-License-Identifier: GPL-2.0
/*
 * hmtt_cache.c - optional cache-disable control (x86 CR0.CD, bit 30).
 *
 * The HMTT board sees only off-chip traffic. To trace every load and store
 * of a code section, the section can run with the caches disabled: CR0.CD
 * set and the caches written back and invalidated (wbinvd) on every CPU.
 * This costs one to two orders of magnitude of speed (the paper measures
 * about 10x) for everything running at the time, not only the traced
 * section, so it is refused unless the module was loaded with
 * cache_control=1, and is undone when the module is unloaded.
 */
#include <linux/smp.h>
#include <asm/processor-flags.h>
#include <asm/special_insns.h>

#include "hmtt_internal.h"

static bool hmtt_cd;

/* On each CPU (IPI): flush, set or clear CR0.CD, flush again. */
static void cd_set(void *info)
{
	unsigned long cr0 = read_cr0();

	if (info)
		cr0 |= X86_CR0_CD;
	else
		cr0 &= ~X86_CR0_CD;
	wbinvd();
	write_cr0(cr0);
	wbinvd();
}

/*
 * hmtt_cache_set - set (@disable) or clear CR0.CD on every online CPU.
 * The caller has checked the cache_control parameter.
 */
int hmtt_cache_set(bool disable)
{
	on_each_cpu(cd_set, disable ? &hmtt_cd : NULL, 1);
	WRITE_ONCE(hmtt_cd, disable);
	return 0;
}

/* hmtt_cache_disabled - is CR0.CD set by us? */
bool hmtt_cache_disabled(void)
{
	return READ_ONCE(hmtt_cd);
}
