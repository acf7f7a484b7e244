// SPDX-License-Identifier: GPL-2.0
/*
 * hmtt_ring.c - hmtt_printk(): lock-free per-CPU log buffers.
 *
 * Each CPU owns one byte ring. The writer is the CPU itself, with local
 * interrupts off for the few instructions of a write, so there is exactly
 * one producer per ring and no lock. The reader (read() on /dev/hmtt, one
 * reader at a time) is the only consumer. head and tail are free-running
 * byte counters published with release/acquire ordering: the writer copies
 * a whole record and then advances head, so the reader never sees a torn
 * record; the reader copies records out and then advances tail.
 *
 * A record that does not fit is dropped whole and counted in the CPU's
 * lost counter; its sequence id is still consumed, so the reader sees the
 * gap. The counters are exact: every record offered either reaches the
 * ring (logged) or is counted (lost).
 */
#include <linux/atomic.h>
#include <linux/cpumask.h>
#include <linux/export.h>
#include <linux/io.h>
#include <linux/irqflags.h>
#include <linux/log2.h>
#include <linux/mutex.h>
#include <linux/percpu.h>
#include <linux/sched/clock.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/uaccess.h>
#include <linux/vmalloc.h>

#include "hmtt_internal.h"
#include <linux/hmtt.h>

struct hmtt_ring {
	u8 *data;
	u64 head;		/* written by the owning CPU */
	u64 tail;		/* written by the reader */
	u64 logged;
	u64 lost;
};

static struct hmtt_ring __percpu *hmtt_rings;
static unsigned int hmtt_ring_size;
static atomic64_t hmtt_seq = ATOMIC64_INIT(0);
static DEFINE_MUTEX(hmtt_read_lock);
static u8 *hmtt_bounce;

/* Copy len bytes into the ring at byte counter pos, wrapping at the end. */
static void ring_put(struct hmtt_ring *r, u64 pos, const void *src, size_t len)
{
	size_t off = pos & (hmtt_ring_size - 1);
	size_t first = min_t(size_t, len, hmtt_ring_size - off);

	memcpy(r->data + off, src, first);
	memcpy(r->data, (const u8 *)src + first, len - first);
}

/* Copy len bytes out of the ring at byte counter pos, wrapping at the end. */
static void ring_get(const struct hmtt_ring *r, u64 pos, void *dst, size_t len)
{
	size_t off = pos & (hmtt_ring_size - 1);
	size_t first = min_t(size_t, len, hmtt_ring_size - off);

	memcpy(dst, r->data + off, first);
	memcpy((u8 *)dst + first, r->data, len - first);
}

/*
 * hmtt_log - append one record to this CPU's ring and reference the
 * configuration space with its sequence id.
 * Callable from any context except NMI. Returns 0 or -ENOSPC (counted as
 * lost) or -EINVAL for a payload that can never fit.
 */
int hmtt_log(u16 type, const void *payload, u16 len)
{
	static const u8 zeros[HMTT_REC_ALIGN];
	struct hmtt_rec_hdr hdr;
	struct hmtt_ring *r;
	unsigned long flags;
	u32 total;
	u64 tail;
	int ret = 0;

	total = ALIGN(sizeof(hdr) + len, HMTT_REC_ALIGN);
	if (total > HMTT_REC_MAX_LEN)
		return -EINVAL;

	local_irq_save(flags);
	r = this_cpu_ptr(hmtt_rings);
	hdr.type = type;
	hdr.len = total;
	hdr.cpu = smp_processor_id();
	hdr.seq = atomic64_inc_return(&hmtt_seq);
	hdr.time_ns = local_clock();
	tail = smp_load_acquire(&r->tail);
	if (r->head + total - tail > hmtt_ring_size) {
		r->lost++;
		ret = -ENOSPC;
		goto out;
	}
	ring_put(r, r->head, &hdr, sizeof(hdr));
	ring_put(r, r->head + sizeof(hdr), payload, len);
	ring_put(r, r->head + sizeof(hdr) + len, zeros,
		 total - sizeof(hdr) - len);
	smp_store_release(&r->head, r->head + total);
	r->logged++;
	/* The I-Code: the board sees this record's sequence id. */
	hmtt_cfg_touch(hmtt_user_event_offset(HMTT_APP_EVENTS +
					      (u32)(hdr.seq % hmtt_cfg.nsync)));
out:
	local_irq_restore(flags);
	return ret;
}

/**
 * hmtt_printk - log a user-defined binary record from kernel code
 * @data: payload, copied
 * @len: payload bytes, at most HMTT_REC_MAX_LEN - sizeof(struct hmtt_rec_hdr)
 *
 * Unlike printk this does no formatting: the payload is stored as is in a
 * HMTT_REC_USER record of the current CPU's buffer and synchronised with
 * the HMTT trace through its sequence id. Safe in any context but NMI.
 * Return: 0, -ENOSPC if the buffer was full (the record is counted as
 * lost), -EINVAL if @len is too large.
 */
int hmtt_printk(const void *data, size_t len)
{
	if (len > HMTT_REC_MAX_LEN - sizeof(struct hmtt_rec_hdr))
		return -EINVAL;
	return hmtt_log(HMTT_REC_USER, data, (u16)len);
}
EXPORT_SYMBOL_GPL(hmtt_printk);

/*
 * hmtt_ring_read - move whole records from the rings to user space, CPU by
 * CPU. Returns the bytes copied, 0 when every ring is empty, or -EINVAL if
 * @count cannot hold the largest record.
 */
ssize_t hmtt_ring_read(char __user *buf, size_t count)
{
	size_t done = 0;
	int cpu;

	if (count < HMTT_REC_MAX_LEN)
		return -EINVAL;
	if (mutex_lock_interruptible(&hmtt_read_lock))
		return -ERESTARTSYS;
	for_each_possible_cpu(cpu) {
		struct hmtt_ring *r = per_cpu_ptr(hmtt_rings, cpu);
		u64 head = smp_load_acquire(&r->head);
		u64 tail = r->tail;

		while (tail < head) {
			struct hmtt_rec_hdr hdr;

			ring_get(r, tail, &hdr, sizeof(hdr));
			if (done + hdr.len > count)
				break;
			ring_get(r, tail, hmtt_bounce, hdr.len);
			if (copy_to_user(buf + done, hmtt_bounce, hdr.len)) {
				smp_store_release(&r->tail, tail);
				mutex_unlock(&hmtt_read_lock);
				return done ? done : -EFAULT;
			}
			done += hdr.len;
			tail += hdr.len;
		}
		smp_store_release(&r->tail, tail);
		if (tail < head)
			break;
	}
	mutex_unlock(&hmtt_read_lock);
	return done;
}

/* hmtt_ring_stats - sum the per-CPU counters (a snapshot, not atomic). */
void hmtt_ring_stats(u64 *logged, u64 *lost, u64 *pending)
{
	int cpu;

	*logged = 0;
	*lost = 0;
	*pending = 0;
	for_each_possible_cpu(cpu) {
		struct hmtt_ring *r = per_cpu_ptr(hmtt_rings, cpu);

		*logged += READ_ONCE(r->logged);
		*lost += READ_ONCE(r->lost);
		*pending += READ_ONCE(r->head) - READ_ONCE(r->tail);
	}
}

/* hmtt_ring_bytes - size of each per-CPU ring. */
unsigned int hmtt_ring_bytes(void)
{
	return hmtt_ring_size;
}

/* hmtt_ring_exit - free the rings (probes must be off). */
void hmtt_ring_exit(void)
{
	int cpu;

	if (hmtt_rings) {
		for_each_possible_cpu(cpu)
			vfree(per_cpu_ptr(hmtt_rings, cpu)->data);
		free_percpu(hmtt_rings);
		hmtt_rings = NULL;
	}
	kfree(hmtt_bounce);
	hmtt_bounce = NULL;
}

/*
 * hmtt_ring_init - allocate one ring of @bytes_per_cpu (rounded up to a
 * power of two, at least 4 KiB) per possible CPU.
 */
int hmtt_ring_init(unsigned int bytes_per_cpu)
{
	int cpu;

	if (bytes_per_cpu < PAGE_SIZE || bytes_per_cpu > (64U << 20))
		return -EINVAL;
	hmtt_ring_size = roundup_pow_of_two(bytes_per_cpu);
	hmtt_bounce = kmalloc(HMTT_REC_MAX_LEN, GFP_KERNEL);
	hmtt_rings = alloc_percpu(struct hmtt_ring);
	if (!hmtt_bounce || !hmtt_rings)
		goto free_rings;
	for_each_possible_cpu(cpu) {
		struct hmtt_ring *r = per_cpu_ptr(hmtt_rings, cpu);

		r->data = vzalloc_node(hmtt_ring_size, cpu_to_node(cpu));
		if (!r->data)
			goto free_rings;
	}
	return 0;

free_rings:
	hmtt_ring_exit();
	return -ENOMEM;
}
