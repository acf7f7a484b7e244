/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * hmtt.h - user-space interface of the HMTT assistant kernel module.
 *
 * /dev/hmtt gives access to the HMTT configuration space, a physical
 * region reserved at boot with memmap=SIZE$BASE:
 *   mmap()  maps the region uncached; one load at an offset is one command
 *           to the HMTT board (docs/wire-format.md section 3.2);
 *   read()  drains the module's log (hmtt_printk ring buffers) as a stream
 *           of whole records, each starting with struct hmtt_rec_hdr;
 *   ioctl() the commands below.
 *
 * Every structure has fixed-width fields, no implicit padding and a size
 * that is a multiple of 8, so 32- and 64-bit user space see the same layout.
 * Reserved fields must be zero on input and are zero on output.
 */
#ifndef _UAPI_LINUX_HMTT_H
#define _UAPI_LINUX_HMTT_H

#include <linux/ioctl.h>
#include <linux/types.h>

/* Configuration-space offsets (one per 64-byte last-level-cache block). */
#define HMTT_CFG_BEGIN		0x000	/* BEGIN TRACING */
#define HMTT_CFG_END		0x040	/* END TRACING */
#define HMTT_CFG_SYNC		0x080	/* SYNC TAG */
#define HMTT_CFG_USER		0x1000	/* user event k at 0x1000 + 0x40 * k */
#define HMTT_CFG_STRIDE		0x40

/*
 * User events 0 .. HMTT_APP_EVENTS-1 belong to programs (HMTT_EVENT(k));
 * the module references user event HMTT_APP_EVENTS + (seq % nsync) for the
 * log record with sequence id seq, nsync being reported by HMTT_IOC_STATUS.
 */
#define HMTT_APP_EVENTS		4096
#define HMTT_MIN_REGION		(1UL << 20)

/* Probe switches (HMTT_IOC_SET_PROBES). */
#define HMTT_PROBE_SCHED	(1U << 0)	/* context switches */
#define HMTT_PROBE_SYSCALL	(1U << 1)	/* syscall entry/exit, traced pids */
#define HMTT_PROBE_PTE		(1U << 2)	/* page-table changes, traced pids */
#define HMTT_PROBE_DMA		(1U << 3)	/* DMA map/unmap, all devices */
#define HMTT_PROBE_ALL		0xfU

/* Record types in the log stream. */
#define HMTT_REC_USER		1	/* hmtt_printk() / HMTT_IOC_PRINTK payload */
#define HMTT_REC_TAG		2	/* HMTT_IOC_TAG, BEGIN, END */
#define HMTT_REC_SCHED		3	/* struct hmtt_rec_sched */
#define HMTT_REC_SYSCALL	4	/* struct hmtt_rec_syscall */
#define HMTT_REC_PTE		5	/* struct hmtt_rec_pte */
#define HMTT_REC_DMA		6	/* struct hmtt_rec_dma */
#define HMTT_REC_MAX		6

#define HMTT_REC_ALIGN		8
#define HMTT_REC_MAX_LEN	512	/* header + payload, bytes */

/*
 * Every record starts with this header. len is the whole record (header and
 * payload) rounded up to 8 bytes; seq is a global sequence number that
 * increases by one per record offered to the log, so a gap in seq is a
 * record that was lost because its CPU's buffer was full.
 */
struct hmtt_rec_hdr {
	__u16 type;
	__u16 len;
	__u32 cpu;
	__u64 seq;
	__u64 time_ns;		/* local_clock() of the CPU that logged it */
};

#define HMTT_TAG_BEGIN		1	/* HMTT_IOC_BEGIN */
#define HMTT_TAG_END		2	/* HMTT_IOC_END */
#define HMTT_TAG_USER		3	/* HMTT_IOC_TAG */

struct hmtt_rec_tag {
	__u32 kind;		/* HMTT_TAG_* */
	__u32 event;		/* user event index for HMTT_TAG_USER */
	__u64 value;
	__s32 pid;
	__u32 reserved;
};

struct hmtt_rec_sched {
	__s32 prev_pid;
	__s32 prev_tgid;
	__s32 next_pid;
	__s32 next_tgid;
	__u32 prev_state;
	__u32 reserved;
};

#define HMTT_SYSCALL_ENTER	0
#define HMTT_SYSCALL_EXIT	1

struct hmtt_rec_syscall {
	__s32 pid;
	__s32 tgid;
	__s64 nr;
	__u32 dir;		/* HMTT_SYSCALL_ENTER or _EXIT */
	__u32 reserved;
	__s64 ret;		/* exit only */
	__u64 args[3];		/* entry only: first three arguments */
};

#define HMTT_PTE_MAP		1	/* a fault installed vpage -> ppage */
#define HMTT_PTE_UNMAP		2	/* vpage -> ppage was removed (munmap, exit) */
#define HMTT_PTE_MIGRATE	3	/* migration mapped vpage -> new ppage */
#define HMTT_PTE_HUGE		(1U << 31)	/* fault_flags: a PMD-mapped huge page;
						 * ppage is the frame of vpage in it */

struct hmtt_rec_pte {
	__s32 pid;
	__s32 tgid;
	__u32 op;		/* HMTT_PTE_MAP, _UNMAP or _MIGRATE */
	__u32 fault_flags;	/* FAULT_FLAG_* of a map; HMTT_PTE_HUGE */
	__u64 vpage;		/* virtual address >> 12 */
	__u64 ppage;		/* page frame number */
	__u64 pte_addr;		/* physical address of the PTE (PMD if huge), MAP only */
};

#define HMTT_DMA_MAP		1
#define HMTT_DMA_UNMAP		2
#define HMTT_DMA_DEV_LEN	32

struct hmtt_rec_dma {
	__u32 op;		/* HMTT_DMA_MAP or HMTT_DMA_UNMAP */
	__u32 dir;		/* enum dma_data_direction: 0 bidi, 1 to, 2 from device */
	__u64 phys;		/* CPU physical start (0 if unknown at unmap) */
	__u64 dma_addr;		/* bus address */
	__u64 size;		/* bytes */
	char dev[HMTT_DMA_DEV_LEN];	/* dev_name(), NUL padded */
};

/* HMTT_IOC_STATUS */
struct hmtt_status {
	__u64 base;		/* physical base of the configuration space */
	__u64 size;		/* its size in bytes */
	__u64 logged;		/* records written to the log since load */
	__u64 lost;		/* records dropped because a buffer was full */
	__u64 probe_missed;	/* probe hits kprobes could not handle */
	__u64 pending;		/* bytes waiting to be read */
	__u32 probes;		/* HMTT_PROBE_* enabled */
	__u32 tracing;		/* 1 between BEGIN and END */
	__u32 nsync;		/* user events used for sequence ids */
	__u32 ncpus;		/* per-CPU buffers */
	__u32 buf_bytes;	/* size of each per-CPU buffer */
	__u32 npids;		/* traced pids */
	__u32 cache_control;	/* 1 if the cache_control module parameter is set */
	__u32 cache_disabled;	/* 1 while CR0.CD is set by HMTT_IOC_CACHE */
};

struct hmtt_tag {
	__u64 value;		/* logged with the tag */
	__u32 event;		/* user event index, < HMTT_APP_EVENTS */
	__u32 reserved;
};

struct hmtt_probes {
	__u32 mask;		/* HMTT_PROBE_* to enable; the others are disabled */
	__u32 reserved;
};

#define HMTT_PID_ADD		1
#define HMTT_PID_REMOVE		2
#define HMTT_PID_CLEAR		3
#define HMTT_MAX_PIDS		16

struct hmtt_pid {
	__s32 pid;		/* thread group id; 0 means the caller */
	__u32 op;		/* HMTT_PID_* */
};

struct hmtt_printk_arg {
	__u64 data;		/* user pointer to the payload */
	__u32 len;		/* bytes, 1 .. HMTT_REC_MAX_LEN - header */
	__u32 reserved;
};

struct hmtt_cache {
	__u32 disable;		/* 1: set CR0.CD on every CPU; 0: clear it */
	__u32 reserved;
};

#define HMTT_IOC_MAGIC		0xB7

#define HMTT_IOC_STATUS		_IOR(HMTT_IOC_MAGIC, 0x00, struct hmtt_status)
#define HMTT_IOC_BEGIN		_IO(HMTT_IOC_MAGIC, 0x01)
#define HMTT_IOC_END		_IO(HMTT_IOC_MAGIC, 0x02)
#define HMTT_IOC_TAG		_IOW(HMTT_IOC_MAGIC, 0x03, struct hmtt_tag)
#define HMTT_IOC_SET_PROBES	_IOW(HMTT_IOC_MAGIC, 0x04, struct hmtt_probes)
#define HMTT_IOC_PID		_IOW(HMTT_IOC_MAGIC, 0x05, struct hmtt_pid)
#define HMTT_IOC_PRINTK		_IOW(HMTT_IOC_MAGIC, 0x06, struct hmtt_printk_arg)
#define HMTT_IOC_CACHE		_IOW(HMTT_IOC_MAGIC, 0x07, struct hmtt_cache)

#endif /* _UAPI_LINUX_HMTT_H */
