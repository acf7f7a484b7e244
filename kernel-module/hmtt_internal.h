/* SPDX-License-Identifier: GPL-2.0 */
/*
 * hmtt_internal.h - state shared by the parts of hmtt.ko.
 */
#ifndef _HMTT_INTERNAL_H
#define _HMTT_INTERNAL_H

#include <linux/types.h>
#include <linux/io.h>
#include <linux/mutex.h>
#include <linux/hmtt.h>

struct hmtt_ring;

/* The configuration space claimed at load time, mapped uncached. */
struct hmtt_cfg {
	phys_addr_t base;
	resource_size_t size;
	void __iomem *va;
	u32 nsync;		/* user events available for sequence ids */
};

extern struct hmtt_cfg hmtt_cfg;

/* One uncached load from the configuration space: the I-Code. */
static inline void hmtt_cfg_touch(unsigned long offset)
{
	(void)readl(hmtt_cfg.va + offset);
}

static inline unsigned long hmtt_user_event_offset(u32 k)
{
	return HMTT_CFG_USER + (unsigned long)k * HMTT_CFG_STRIDE;
}

/* hmtt_ring.c: per-CPU log buffers. */
int hmtt_ring_init(unsigned int bytes_per_cpu);
void hmtt_ring_exit(void);
int hmtt_log(u16 type, const void *payload, u16 len);
ssize_t hmtt_ring_read(char __user *buf, size_t count);
void hmtt_ring_stats(u64 *logged, u64 *lost, u64 *pending);
unsigned int hmtt_ring_bytes(void);

/* hmtt_probes.c: I-Code probes. */
int hmtt_probes_init(void);
void hmtt_probes_exit(void);
int hmtt_probes_set(u32 mask);
u32 hmtt_probes_get(void);
u64 hmtt_probes_missed(void);
int hmtt_pid_op(s32 tgid, u32 op);
u32 hmtt_pid_count(void);
bool hmtt_pid_traced(pid_t tgid);

/* hmtt_cache.c: CR0.CD control. */
int hmtt_cache_set(bool disable);
bool hmtt_cache_disabled(void);

#endif /* _HMTT_INTERNAL_H */
