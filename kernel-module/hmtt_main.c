// SPDX-License-Identifier: GPL-2.0
/*
 * hmtt_main.c - the HMTT assistant kernel module.
 *
 * Claims the HMTT configuration space, a physical region reserved on the
 * kernel command line with memmap=SIZE$BASE, and offers it as /dev/hmtt:
 * mmap() maps it uncached so that one load is one command to the board,
 * read() drains the module's log, ioctl() controls tracing and the probes.
 * See docs/kernel-tracing.md.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/capability.h>
#include <linux/cred.h>
#include <linux/fs.h>
#include <linux/io.h>
#include <linux/ioport.h>
#include <linux/miscdevice.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/uaccess.h>
#include <linux/uidgid.h>

#include "hmtt_internal.h"

static unsigned long long base;
module_param(base, ullong, 0444);
MODULE_PARM_DESC(base, "physical base of the region reserved with memmap=SIZE$BASE");

static unsigned long long size;
module_param(size, ullong, 0444);
MODULE_PARM_DESC(size, "size of that region in bytes (at least 1 MiB)");

static int group = -1;
module_param(group, int, 0444);
MODULE_PARM_DESC(group, "gid whose members may open /dev/hmtt (default: none, mode 0600)");

static unsigned int buf_kb = 256;
module_param(buf_kb, uint, 0444);
MODULE_PARM_DESC(buf_kb, "log buffer per CPU in KiB (rounded up to a power of two)");

static bool cache_control;
module_param(cache_control, bool, 0444);
MODULE_PARM_DESC(cache_control, "allow HMTT_IOC_CACHE to disable the caches (CR0.CD)");

struct hmtt_cfg hmtt_cfg;
static kgid_t hmtt_gid;
static bool hmtt_tracing;

/*
 * Open needs CAP_SYS_RAWIO, as /dev/mem does, or membership of the group
 * named by the group parameter.
 */
static int hmtt_open(struct inode *inode, struct file *file)
{
	if (capable(CAP_SYS_RAWIO))
		return 0;
	if (gid_valid(hmtt_gid) && in_group_p(hmtt_gid))
		return 0;
	return -EPERM;
}

/*
 * Map the configuration space uncached. The checks follow mmap_mem() in
 * drivers/char/mem.c, one per line, each with its own errno.
 */
static int hmtt_mmap(struct file *file, struct vm_area_struct *vma)
{
	u64 len = vma->vm_end - vma->vm_start;
	u64 offset = (u64)vma->vm_pgoff << PAGE_SHIFT;

	if (offset >> PAGE_SHIFT != vma->vm_pgoff)
		return -EOVERFLOW;	/* offset does not fit */
	if (offset + len < offset)
		return -ERANGE;		/* wraps around */
	if (offset >= hmtt_cfg.size || len > hmtt_cfg.size - offset)
		return -ENXIO;		/* past the end of the region */
	if (!(vma->vm_flags & VM_SHARED))
		return -EINVAL;		/* only shared mappings make sense */
	if (vma->vm_flags & VM_EXEC)
		return -EPERM;		/* policy: never executable */

	vma->vm_flags &= ~VM_MAYEXEC;
	vma->vm_page_prot = pgprot_noncached(vma->vm_page_prot);
	return remap_pfn_range(vma, vma->vm_start,
			       (hmtt_cfg.base + offset) >> PAGE_SHIFT, len,
			       vma->vm_page_prot);
}

/* Drain whole log records; 0 when every buffer is empty. Root only. */
static ssize_t hmtt_read(struct file *file, char __user *buf, size_t count,
			 loff_t *ppos)
{
	if (!capable(CAP_SYS_ADMIN))
		return -EPERM;
	return hmtt_ring_read(buf, count);
}

/* HMTT_IOC_STATUS: a snapshot of the module, reserved bytes zeroed. */
static long hmtt_ioc_status(void __user *uarg)
{
	struct hmtt_status st;

	memset(&st, 0, sizeof(st));
	st.base = hmtt_cfg.base;
	st.size = hmtt_cfg.size;
	hmtt_ring_stats(&st.logged, &st.lost, &st.pending);
	st.probe_missed = hmtt_probes_missed();
	st.probes = hmtt_probes_get();
	st.tracing = READ_ONCE(hmtt_tracing);
	st.nsync = hmtt_cfg.nsync;
	st.ncpus = num_possible_cpus();
	st.buf_bytes = hmtt_ring_bytes();
	st.npids = hmtt_pid_count();
	st.cache_control = cache_control;
	st.cache_disabled = hmtt_cache_disabled();
	if (copy_to_user(uarg, &st, sizeof(st)))
		return -EFAULT;
	return 0;
}

/* BEGIN/END: the inner command, then a record carrying its sync tag. */
static long hmtt_ioc_trace(bool begin)
{
	struct hmtt_rec_tag rec = {
		.kind = begin ? HMTT_TAG_BEGIN : HMTT_TAG_END,
		.pid = task_tgid_vnr(current),
	};

	hmtt_cfg_touch(begin ? HMTT_CFG_BEGIN : HMTT_CFG_END);
	WRITE_ONCE(hmtt_tracing, begin);
	hmtt_log(HMTT_REC_TAG, &rec, sizeof(rec));
	return 0;
}

/* HMTT_IOC_TAG: the user event's I-Code, then a record with the value. */
static long hmtt_ioc_tag(void __user *uarg)
{
	struct hmtt_rec_tag rec = { .kind = HMTT_TAG_USER };
	struct hmtt_tag tag;

	if (copy_from_user(&tag, uarg, sizeof(tag)))
		return -EFAULT;
	if (tag.reserved || tag.event >= HMTT_APP_EVENTS)
		return -EINVAL;
	hmtt_cfg_touch(hmtt_user_event_offset(tag.event));
	rec.event = tag.event;
	rec.value = tag.value;
	rec.pid = task_tgid_vnr(current);
	return hmtt_log(HMTT_REC_TAG, &rec, sizeof(rec));
}

/* HMTT_IOC_SET_PROBES: root only, known bits only. */
static long hmtt_ioc_probes(void __user *uarg)
{
	struct hmtt_probes p;

	if (!capable(CAP_SYS_ADMIN))
		return -EPERM;
	if (copy_from_user(&p, uarg, sizeof(p)))
		return -EFAULT;
	if (p.reserved || (p.mask & ~HMTT_PROBE_ALL))
		return -EINVAL;
	return hmtt_probes_set(p.mask);
}

/* HMTT_IOC_PID: edit the traced thread groups; pid 0 is the caller. */
static long hmtt_ioc_pid(void __user *uarg)
{
	struct hmtt_pid p;

	if (!capable(CAP_SYS_ADMIN))
		return -EPERM;
	if (copy_from_user(&p, uarg, sizeof(p)))
		return -EFAULT;
	if (p.pid < 0 || p.op < HMTT_PID_ADD || p.op > HMTT_PID_CLEAR)
		return -EINVAL;
	if (!p.pid)
		p.pid = task_tgid_vnr(current);
	return hmtt_pid_op(p.pid, p.op);
}

/* HMTT_IOC_PRINTK: hmtt_printk() of a user buffer. */
static long hmtt_ioc_printk(void __user *uarg)
{
	u8 data[HMTT_REC_MAX_LEN - sizeof(struct hmtt_rec_hdr)];
	struct hmtt_printk_arg a;

	if (copy_from_user(&a, uarg, sizeof(a)))
		return -EFAULT;
	if (a.reserved || !a.len)
		return -EINVAL;
	if (a.len > sizeof(data))
		return -EMSGSIZE;
	if (copy_from_user(data, u64_to_user_ptr(a.data), a.len))
		return -EFAULT;
	return hmtt_log(HMTT_REC_USER, data, a.len);
}

/* HMTT_IOC_CACHE: only with cache_control=1, root only. */
static long hmtt_ioc_cache(void __user *uarg)
{
	struct hmtt_cache c;

	if (!cache_control)
		return -EOPNOTSUPP;
	if (!capable(CAP_SYS_ADMIN))
		return -EPERM;
	if (copy_from_user(&c, uarg, sizeof(c)))
		return -EFAULT;
	if (c.reserved || c.disable > 1)
		return -EINVAL;
	return hmtt_cache_set(c.disable);
}

/* Dispatch; any command not ours is -ENOTTY (ioctl.rst). */
static long hmtt_ioctl(struct file *file, unsigned int cmd, unsigned long arg)
{
	void __user *uarg = (void __user *)arg;

	switch (cmd) {
	case HMTT_IOC_STATUS:
		return hmtt_ioc_status(uarg);
	case HMTT_IOC_BEGIN:
		return hmtt_ioc_trace(true);
	case HMTT_IOC_END:
		return hmtt_ioc_trace(false);
	case HMTT_IOC_TAG:
		return hmtt_ioc_tag(uarg);
	case HMTT_IOC_SET_PROBES:
		return hmtt_ioc_probes(uarg);
	case HMTT_IOC_PID:
		return hmtt_ioc_pid(uarg);
	case HMTT_IOC_PRINTK:
		return hmtt_ioc_printk(uarg);
	case HMTT_IOC_CACHE:
		return hmtt_ioc_cache(uarg);
	}
	return -ENOTTY;
}

static const struct file_operations hmtt_fops = {
	.owner = THIS_MODULE,
	.open = hmtt_open,
	.mmap = hmtt_mmap,
	.read = hmtt_read,
	.unlocked_ioctl = hmtt_ioctl,
	.compat_ioctl = compat_ptr_ioctl,
	.llseek = noop_llseek,
};

static struct miscdevice hmtt_misc = {
	.minor = MISC_DYNAMIC_MINOR,
	.name = "hmtt",
	.fops = &hmtt_fops,
	.mode = 0600,
};

/*
 * Check the parameters and that [base, base+size) is a reservation nobody
 * uses, then claim it. Each refusal has its own errno and says what to do.
 */
static int hmtt_claim_region(void)
{
	if (!size || !PAGE_ALIGNED(base) || !PAGE_ALIGNED(size) ||
	    size < HMTT_MIN_REGION || base + size < base) {
		pr_err("base=0x%llx size=0x%llx: need page-aligned base and size >= 1 MiB\n",
		       base, size);
		return -EINVAL;
	}
	if (region_intersects(base, size, IORESOURCE_SYSTEM_RAM,
			      IORES_DESC_NONE) != REGION_DISJOINT) {
		pr_err("0x%llx-0x%llx is System RAM: boot with memmap=0x%llx$0x%llx\n",
		       base, base + size - 1, size, base);
		return -EADDRNOTAVAIL;
	}
	if (region_intersects(base, size, IORESOURCE_MEM,
			      IORES_DESC_RESERVED) != REGION_INTERSECTS) {
		pr_err("0x%llx-0x%llx is not inside one memmap= reservation (see /proc/iomem)\n",
		       base, base + size - 1);
		return -ENXIO;
	}
	if (!request_mem_region(base, size, "hmtt")) {
		pr_err("0x%llx-0x%llx overlaps a region in use (see /proc/iomem)\n",
		       base, base + size - 1);
		return -EBUSY;
	}
	hmtt_cfg.base = base;
	hmtt_cfg.size = size;
	hmtt_cfg.nsync = (size - HMTT_CFG_USER) / HMTT_CFG_STRIDE -
			 HMTT_APP_EVENTS;
	hmtt_cfg.va = ioremap_uc(base, size);
	if (!hmtt_cfg.va) {
		release_mem_region(base, size);
		return -ENOMEM;
	}
	return 0;
}

/* Undo hmtt_claim_region(). */
static void hmtt_release_region(void)
{
	iounmap(hmtt_cfg.va);
	release_mem_region(hmtt_cfg.base, hmtt_cfg.size);
}

/* Claim the region, allocate the logs, find the tracepoints, add /dev/hmtt. */
static int __init hmtt_init(void)
{
	int ret;

	hmtt_gid = INVALID_GID;
	if (group >= 0) {
		hmtt_gid = make_kgid(&init_user_ns, group);
		if (!gid_valid(hmtt_gid))
			return -EINVAL;
		hmtt_misc.mode = 0660;
	}
	ret = hmtt_claim_region();
	if (ret)
		return ret;
	ret = hmtt_ring_init(buf_kb * 1024);
	if (ret)
		goto release_region;
	ret = hmtt_probes_init();
	if (ret)
		goto free_rings;
	ret = misc_register(&hmtt_misc);
	if (ret)
		goto free_rings;
	pr_info("config space 0x%llx-0x%llx as /dev/hmtt, %u sync ids, %u KiB log per CPU\n",
		base, base + size - 1, hmtt_cfg.nsync, hmtt_ring_bytes() / 1024);
	return 0;

free_rings:
	hmtt_ring_exit();
release_region:
	hmtt_release_region();
	return ret;
}

/* Remove /dev/hmtt first so nothing new starts, then undo the rest. */
static void __exit hmtt_exit(void)
{
	misc_deregister(&hmtt_misc);
	hmtt_probes_exit();
	if (hmtt_cache_disabled())
		hmtt_cache_set(false);
	hmtt_ring_exit();
	hmtt_release_region();
}

module_init(hmtt_init);
module_exit(hmtt_exit);
MODULE_DESCRIPTION("HMTT configuration space, I-Code probes and hmtt_printk log");
MODULE_LICENSE("GPL");
