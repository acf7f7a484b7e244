// SPDX-License-Identifier: GPL-2.0
/*
 * hmtt_probes.c - I-Code probes, each switchable at run time.
 *
 * The probes attach to the running kernel without patching it:
 *   sched    tracepoint sched_switch: one record per context switch;
 *   syscall  tracepoints sys_enter/sys_exit, for traced thread groups;
 *   pte      kretprobe on handle_mm_fault: after a successful fault of a
 *            traced thread group, the page-table entry of the faulting
 *            address is read and logged as <pid, vpage, ppage, pte addr>
 *            (first touches, copy-on-write and swap-in all end here;
 *            a transparent huge page is logged from its PMD, flagged);
 *            kprobe on page_remove_rmap: a page of a traced thread group
 *            unmapped by that group (munmap, mremap, exit, its own
 *            move_pages) is logged as <pid, vpage, ppage>, op UNMAP;
 *            kprobe on remove_migration_pte: the new page a migration
 *            maps for a traced group, whoever migrates, op MIGRATE;
 *   dma      kretprobes/kprobes on dma_map_page_attrs, dma_unmap_page_attrs,
 *            dma_map_sg_attrs, dma_map_sgtable and dma_unmap_sg_attrs.
 * Each record goes through hmtt_log(), which references the configuration
 * space with the record's sequence id.
 */
#include <linux/dma-direct.h>
#include <linux/dma-map-ops.h>
#include <linux/dma-mapping.h>
#include <linux/kprobes.h>
#include <linux/hugetlb.h>
#include <linux/mm.h>
#include <linux/pagemap.h>
#include <linux/mutex.h>
#include <linux/ptrace.h>
#include <linux/scatterlist.h>
#include <linux/sched.h>
#include <linux/sched/mm.h>
#include <linux/sched/task.h>
#include <linux/string.h>
#include <linux/tracepoint.h>
#include <asm/syscall.h>

#include "hmtt_internal.h"

static DEFINE_MUTEX(hmtt_probe_lock);
static u32 hmtt_probe_mask;
static pid_t hmtt_pids[HMTT_MAX_PIDS];
/* The mm of each traced group (mmgrab'ed), to recognise it in rmap walks. */
static struct mm_struct *hmtt_mms[HMTT_MAX_PIDS];

static struct tracepoint *tp_sched_switch;
static struct tracepoint *tp_sys_enter;
static struct tracepoint *tp_sys_exit;

/* hmtt_pid_traced - is thread group @tgid in the traced set? Lock-free. */
bool hmtt_pid_traced(pid_t tgid)
{
	int i;

	for (i = 0; i < HMTT_MAX_PIDS; i++)
		if (READ_ONCE(hmtt_pids[i]) == tgid)
			return true;
	return false;
}

/*
 * hmtt_pid_op - add or remove a traced thread group, or clear the set.
 * Returns 0, -ESRCH for a pid that does not exist, -EEXIST or -ENOENT for a
 * pid already in or not in the set, -ENOSPC when the set is full.
 */
int hmtt_pid_op(s32 tgid, u32 op)
{
	struct mm_struct *mm = NULL;
	struct task_struct *task;
	struct pid *pid;
	int i, ret = 0;

	if (op == HMTT_PID_ADD) {
		pid = find_get_pid(tgid);
		if (!pid)
			return -ESRCH;
		task = get_pid_task(pid, PIDTYPE_PID);
		put_pid(pid);
		if (!task)
			return -ESRCH;
		mm = get_task_mm(task);
		put_task_struct(task);
		if (mm) {
			mmgrab(mm);
			mmput(mm);
		}
	}
	mutex_lock(&hmtt_probe_lock);
	switch (op) {
	case HMTT_PID_CLEAR:
	case HMTT_PID_REMOVE:
		ret = op == HMTT_PID_CLEAR ? 0 : -ENOENT;
		for (i = 0; i < HMTT_MAX_PIDS; i++) {
			struct mm_struct *old = hmtt_mms[i];

			if (op == HMTT_PID_REMOVE && hmtt_pids[i] != tgid)
				continue;
			if (!hmtt_pids[i])
				continue;
			WRITE_ONCE(hmtt_pids[i], 0);
			WRITE_ONCE(hmtt_mms[i], NULL);
			/* Probes only compare the pointer; it is never followed. */
			if (old)
				mmdrop(old);
			ret = 0;
		}
		break;
	case HMTT_PID_ADD:
		if (hmtt_pid_traced(tgid)) {
			ret = -EEXIST;
			break;
		}
		ret = -ENOSPC;
		for (i = 0; i < HMTT_MAX_PIDS; i++) {
			if (!hmtt_pids[i]) {
				WRITE_ONCE(hmtt_mms[i], mm);
				WRITE_ONCE(hmtt_pids[i], tgid);
				mm = NULL;
				ret = 0;
				break;
			}
		}
		break;
	default:
		ret = -EINVAL;
	}
	mutex_unlock(&hmtt_probe_lock);
	if (mm)
		mmdrop(mm);
	return ret;
}

/* hmtt_mm_tgid - the traced thread group whose mm is @mm, or 0. */
static pid_t hmtt_mm_tgid(struct mm_struct *mm)
{
	int i;

	for (i = 0; i < HMTT_MAX_PIDS; i++)
		if (READ_ONCE(hmtt_mms[i]) == mm)
			return READ_ONCE(hmtt_pids[i]);
	return 0;
}

/* hmtt_pid_count - number of traced thread groups. */
u32 hmtt_pid_count(void)
{
	u32 n = 0;
	int i;

	for (i = 0; i < HMTT_MAX_PIDS; i++)
		if (READ_ONCE(hmtt_pids[i]))
			n++;
	return n;
}

/* sched_switch: one record per context switch, any task (pid tags). */
static void probe_sched_switch(void *data, bool preempt,
			       struct task_struct *prev,
			       struct task_struct *next,
			       unsigned int prev_state)
{
	struct hmtt_rec_sched rec = {
		.prev_pid = prev->pid,
		.prev_tgid = prev->tgid,
		.next_pid = next->pid,
		.next_tgid = next->tgid,
		.prev_state = prev_state,
	};

	hmtt_log(HMTT_REC_SCHED, &rec, sizeof(rec));
}

/* sys_enter of a traced thread group: number and first three arguments. */
static void probe_sys_enter(void *data, struct pt_regs *regs, long id)
{
	struct hmtt_rec_syscall rec = {};
	unsigned long args[6];

	if (!hmtt_pid_traced(current->tgid))
		return;
	syscall_get_arguments(current, regs, args);
	rec.pid = current->pid;
	rec.tgid = current->tgid;
	rec.nr = id;
	rec.dir = HMTT_SYSCALL_ENTER;
	rec.args[0] = args[0];
	rec.args[1] = args[1];
	rec.args[2] = args[2];
	hmtt_log(HMTT_REC_SYSCALL, &rec, sizeof(rec));
}

/* sys_exit of a traced thread group: number and return value. */
static void probe_sys_exit(void *data, struct pt_regs *regs, long ret)
{
	struct hmtt_rec_syscall rec = {};

	if (!hmtt_pid_traced(current->tgid))
		return;
	rec.pid = current->pid;
	rec.tgid = current->tgid;
	rec.nr = syscall_get_nr(current, regs);
	rec.dir = HMTT_SYSCALL_EXIT;
	rec.ret = ret;
	hmtt_log(HMTT_REC_SYSCALL, &rec, sizeof(rec));
}

/* ---- page-table changes ---------------------------------------------- */

struct hmtt_fault {
	struct mm_struct *mm;
	unsigned long address;
	unsigned int flags;
};

/*
 * handle_mm_fault(vma, address, flags, regs) entry: remember the fault of
 * a traced thread group on its own mm; others skip the return handler.
 */
static int fault_entry(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	struct vm_area_struct *vma;
	struct hmtt_fault *f = (struct hmtt_fault *)ri->data;

	if (!current->mm || !hmtt_pid_traced(current->tgid))
		return 1;	/* not traced: skip the return handler */
	vma = (struct vm_area_struct *)regs_get_kernel_argument(regs, 0);
	if (vma->vm_mm != current->mm)
		return 1;
	f->mm = vma->vm_mm;
	f->address = regs_get_kernel_argument(regs, 1);
	f->flags = regs_get_kernel_argument(regs, 2);
	return 0;
}

/*
 * Walk to the PMD of @addr (mmap_lock held, so the tables stay). Returns
 * NULL where there is no PMD-level table entry.
 */
static pmd_t *fault_pmd(struct mm_struct *mm, unsigned long addr)
{
	pgd_t *pgd = pgd_offset(mm, addr);
	p4d_t *p4d;
	pud_t *pud;

	if (pgd_none(*pgd) || pgd_bad(*pgd))
		return NULL;
	p4d = p4d_offset(pgd, addr);
	if (p4d_none(*p4d) || p4d_bad(*p4d))
		return NULL;
	pud = pud_offset(p4d, addr);
	if (pud_none(*pud) || pud_bad(*pud))
		return NULL;
	return pmd_offset(pud, addr);
}

/*
 * The fault handler returned and still holds mmap_lock unless it says
 * RETRY or COMPLETED: read the entry it installed, a PTE or, for a
 * transparent huge page, the PMD (follow_pte() must not see those).
 */
static int fault_return(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	const vm_fault_t bad = VM_FAULT_ERROR | VM_FAULT_RETRY |
			       VM_FAULT_COMPLETED;
	struct hmtt_fault *f = (struct hmtt_fault *)ri->data;
	struct hmtt_rec_pte rec = {};
	spinlock_t *ptl;
	pmd_t *pmdp;
	pte_t *ptep;
	pmd_t pmd;
	pte_t pte;

	if ((__force vm_fault_t)regs_return_value(regs) & bad)
		return 0;
	rec.pid = current->pid;
	rec.tgid = current->tgid;
	rec.op = HMTT_PTE_MAP;
	rec.fault_flags = f->flags;
	rec.vpage = f->address >> PAGE_SHIFT;
	pmdp = fault_pmd(f->mm, f->address);
	if (!pmdp)
		return 0;
	pmd = pmd_read_atomic(pmdp);
	if (pmd_leaf(pmd)) {
		if (!pmd_present(pmd))
			return 0;
		rec.fault_flags |= HMTT_PTE_HUGE;
		rec.ppage = pmd_pfn(pmd) +
			    ((f->address & ~PMD_MASK) >> PAGE_SHIFT);
		rec.pte_addr = page_to_phys(virt_to_page(pmdp)) +
			       offset_in_page(pmdp);
		hmtt_log(HMTT_REC_PTE, &rec, sizeof(rec));
		return 0;
	}
	if (follow_pte(f->mm, f->address, &ptep, &ptl))
		return 0;
	__acquire(ptl);		/* follow_pte() returned with it held */
	pte = *ptep;
	rec.pte_addr = page_to_phys(virt_to_page(ptep)) + offset_in_page(ptep);
	pte_unmap_unlock(ptep, ptl);
	if (!pte_present(pte))
		return 0;
	rec.ppage = pte_pfn(pte);
	hmtt_log(HMTT_REC_PTE, &rec, sizeof(rec));
	return 0;
}

static struct kretprobe fault_probe;

/*
 * page_remove_rmap(page, vma, compound): the caller holds the page-table
 * lock and has cleared the entry. The virtual address follows from the
 * page's index in its mapping, as vma_address() computes it.
 */
static int unmap_pre(struct kprobe *p, struct pt_regs *regs)
{
	struct page *page = (struct page *)regs_get_kernel_argument(regs, 0);
	struct vm_area_struct *vma;
	struct hmtt_rec_pte rec = {};
	unsigned long addr;

	vma = (struct vm_area_struct *)regs_get_kernel_argument(regs, 1);
	if (!current->mm || vma->vm_mm != current->mm ||
	    !hmtt_pid_traced(current->tgid) || is_vm_hugetlb_page(vma))
		return 0;
	addr = vma->vm_start +
	       ((page_to_index(page) - vma->vm_pgoff) << PAGE_SHIFT);
	if (addr < vma->vm_start || addr >= vma->vm_end)
		return 0;	/* KSM or a remapped file page: not derivable */
	rec.pid = current->pid;
	rec.tgid = current->tgid;
	rec.op = HMTT_PTE_UNMAP;
	if (regs_get_kernel_argument(regs, 2))
		rec.fault_flags = HMTT_PTE_HUGE;
	rec.vpage = addr >> PAGE_SHIFT;
	rec.ppage = page_to_pfn(page);
	hmtt_log(HMTT_REC_PTE, &rec, sizeof(rec));
	return 0;
}

static struct kprobe unmap_probe;

/*
 * remove_migration_pte(dst folio, vma, addr, src folio): an rmap-walk
 * callback that replaces a migration entry by a mapping of the new page.
 * It runs in whatever task migrates (move_pages, compaction, NUMA
 * balancing), so the process is found from the vma's mm, not current.
 */
static int migrate_pre(struct kprobe *p, struct pt_regs *regs)
{
	struct folio *folio = (struct folio *)regs_get_kernel_argument(regs, 0);
	struct vm_area_struct *vma;
	struct hmtt_rec_pte rec = {};
	unsigned long addr;
	pgoff_t sub;
	pid_t tgid;

	vma = (struct vm_area_struct *)regs_get_kernel_argument(regs, 1);
	addr = regs_get_kernel_argument(regs, 2);
	tgid = hmtt_mm_tgid(vma->vm_mm);
	if (!tgid || is_vm_hugetlb_page(vma))
		return 0;
	sub = (linear_page_index(vma, addr) - folio->index) &
	      (folio_nr_pages(folio) - 1);
	rec.pid = tgid;
	rec.tgid = tgid;
	rec.op = HMTT_PTE_MIGRATE;
	rec.vpage = addr >> PAGE_SHIFT;
	rec.ppage = folio_pfn(folio) + sub;
	hmtt_log(HMTT_REC_PTE, &rec, sizeof(rec));
	return 0;
}

static struct kprobe migrate_probe;

/* ---- DMA ------------------------------------------------------------- */

struct hmtt_dma_call {
	struct device *dev;
	u64 phys;
	u64 size;
	void *sg;
	u32 dir;
	u32 nents;
};

/* CPU physical address behind a bus address, 0 when an IOMMU hides it. */
static phys_addr_t dma_phys(struct device *dev, dma_addr_t addr)
{
	/* Without an IOMMU the bus address translates back directly. */
	if (!get_dma_ops(dev))
		return dma_to_phys(dev, addr);
	return 0;
}

/* One <device, phys, bus address, size, dir, map/unmap> record. */
static void dma_log(struct device *dev, u32 op, u32 dir, u64 phys,
		    u64 dma_addr, u64 size)
{
	struct hmtt_rec_dma rec = {
		.op = op,
		.dir = dir,
		.phys = phys,
		.dma_addr = dma_addr,
		.size = size,
	};

	strscpy(rec.dev, dev ? dev_name(dev) : "?", sizeof(rec.dev));
	hmtt_log(HMTT_REC_DMA, &rec, sizeof(rec));
}

/* dma_map_page_attrs(dev, page, offset, size, dir, attrs) entry. */
static int map_page_entry(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	struct hmtt_dma_call *c = (struct hmtt_dma_call *)ri->data;
	struct page *page = (struct page *)regs_get_kernel_argument(regs, 1);

	c->dev = (struct device *)regs_get_kernel_argument(regs, 0);
	c->phys = page_to_phys(page) + regs_get_kernel_argument(regs, 2);
	c->size = regs_get_kernel_argument(regs, 3);
	c->dir = regs_get_kernel_argument(regs, 4);
	return 0;
}

/* ... and return: log the mapping unless it failed. */
static int map_page_return(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	struct hmtt_dma_call *c = (struct hmtt_dma_call *)ri->data;
	dma_addr_t addr = regs_return_value(regs);

	if (dma_mapping_error(c->dev, addr))
		return 0;
	dma_log(c->dev, HMTT_DMA_MAP, c->dir, c->phys, addr, c->size);
	return 0;
}

/* dma_unmap_page_attrs(dev, addr, size, dir, attrs) entry. */
static int unmap_page_pre(struct kprobe *p, struct pt_regs *regs)
{
	struct device *dev = (struct device *)regs_get_kernel_argument(regs, 0);
	dma_addr_t addr = regs_get_kernel_argument(regs, 1);

	dma_log(dev, HMTT_DMA_UNMAP, regs_get_kernel_argument(regs, 3),
		dma_phys(dev, addr), addr, regs_get_kernel_argument(regs, 2));
	return 0;
}

/* One record per mapped segment of a scatter-gather list. */
static void dma_log_sg(struct device *dev, u32 op, u32 dir,
		       struct scatterlist *sgl, int nents)
{
	struct scatterlist *sg;
	int i;

	for_each_sg(sgl, sg, nents, i)
		dma_log(dev, op, dir, dma_phys(dev, sg_dma_address(sg)),
			sg_dma_address(sg), sg_dma_len(sg));
}

/* dma_map_sg_attrs(dev, sg, nents, dir, attrs) entry. */
static int map_sg_entry(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	struct hmtt_dma_call *c = (struct hmtt_dma_call *)ri->data;

	c->dev = (struct device *)regs_get_kernel_argument(regs, 0);
	c->sg = (void *)regs_get_kernel_argument(regs, 1);
	c->dir = regs_get_kernel_argument(regs, 3);
	return 0;
}

/* dma_map_sg_attrs returns the number of mapped entries, 0 on failure. */
static int map_sg_return(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	struct hmtt_dma_call *c = (struct hmtt_dma_call *)ri->data;
	int mapped = (int)regs_return_value(regs);

	if (mapped > 0)
		dma_log_sg(c->dev, HMTT_DMA_MAP, c->dir, c->sg, mapped);
	return 0;
}

/* dma_map_sgtable(dev, sgt, dir, attrs) entry. */
static int map_sgtable_entry(struct kretprobe_instance *ri,
			     struct pt_regs *regs)
{
	struct hmtt_dma_call *c = (struct hmtt_dma_call *)ri->data;

	c->dev = (struct device *)regs_get_kernel_argument(regs, 0);
	c->sg = (void *)regs_get_kernel_argument(regs, 1);
	c->dir = regs_get_kernel_argument(regs, 2);
	return 0;
}

/* dma_map_sgtable returns 0 and sets sgt->nents, or a negative errno. */
static int map_sgtable_return(struct kretprobe_instance *ri,
			      struct pt_regs *regs)
{
	struct hmtt_dma_call *c = (struct hmtt_dma_call *)ri->data;
	struct sg_table *sgt = c->sg;

	if (!regs_return_value(regs))
		dma_log_sg(c->dev, HMTT_DMA_MAP, c->dir, sgt->sgl, sgt->nents);
	return 0;
}

/* dma_unmap_sg_attrs(dev, sg, nents, dir, attrs): the segments as mapped. */
static int unmap_sg_pre(struct kprobe *p, struct pt_regs *regs)
{
	struct device *dev = (struct device *)regs_get_kernel_argument(regs, 0);
	struct scatterlist *sgl;

	sgl = (struct scatterlist *)regs_get_kernel_argument(regs, 1);
	dma_log_sg(dev, HMTT_DMA_UNMAP, regs_get_kernel_argument(regs, 3), sgl,
		   regs_get_kernel_argument(regs, 2));
	return 0;
}

static struct kretprobe dma_map_page_probe;
static struct kretprobe dma_map_sg_probe;
static struct kretprobe dma_map_sgtable_probe;
static struct kprobe dma_unmap_page_probe;
static struct kprobe dma_unmap_sg_probe;

/* ---- switching ------------------------------------------------------- */

/* A kprobe can be registered again only from a clean structure. */
static int kret_register(struct kretprobe *rp, const char *symbol,
			 kretprobe_handler_t entry, kretprobe_handler_t ret,
			 size_t data_size)
{
	memset(rp, 0, sizeof(*rp));
	rp->kp.symbol_name = symbol;
	rp->entry_handler = entry;
	rp->handler = ret;
	rp->data_size = data_size;
	rp->maxactive = max_t(int, 64, 4 * num_possible_cpus());
	return register_kretprobe(rp);
}

/* Same for a plain kprobe. */
static int kprobe_register(struct kprobe *kp, const char *symbol,
			   kprobe_pre_handler_t pre)
{
	memset(kp, 0, sizeof(*kp));
	kp->symbol_name = symbol;
	kp->pre_handler = pre;
	return register_kprobe(kp);
}

/* Attach the five DMA API probes, all or none. */
static int dma_probes_on(void)
{
	int ret;

	ret = kret_register(&dma_map_page_probe, "dma_map_page_attrs",
			    map_page_entry, map_page_return,
			    sizeof(struct hmtt_dma_call));
	if (ret)
		return ret;
	ret = kret_register(&dma_map_sg_probe, "dma_map_sg_attrs",
			    map_sg_entry, map_sg_return,
			    sizeof(struct hmtt_dma_call));
	if (ret)
		goto unregister_map_page;
	ret = kret_register(&dma_map_sgtable_probe, "dma_map_sgtable",
			    map_sgtable_entry, map_sgtable_return,
			    sizeof(struct hmtt_dma_call));
	if (ret)
		goto unregister_map_sg;
	ret = kprobe_register(&dma_unmap_page_probe, "dma_unmap_page_attrs",
			      unmap_page_pre);
	if (ret)
		goto unregister_map_sgtable;
	ret = kprobe_register(&dma_unmap_sg_probe, "dma_unmap_sg_attrs",
			      unmap_sg_pre);
	if (ret)
		goto unregister_unmap_page;
	return 0;

unregister_unmap_page:
	unregister_kprobe(&dma_unmap_page_probe);
unregister_map_sgtable:
	unregister_kretprobe(&dma_map_sgtable_probe);
unregister_map_sg:
	unregister_kretprobe(&dma_map_sg_probe);
unregister_map_page:
	unregister_kretprobe(&dma_map_page_probe);
	return ret;
}

/* Detach them; pending kretprobe returns no longer call the handlers. */
static void dma_probes_off(void)
{
	unregister_kprobe(&dma_unmap_sg_probe);
	unregister_kprobe(&dma_unmap_page_probe);
	unregister_kretprobe(&dma_map_sgtable_probe);
	unregister_kretprobe(&dma_map_sg_probe);
	unregister_kretprobe(&dma_map_page_probe);
}

/* Attach the probe(s) behind one HMTT_PROBE_* bit. */
static int probe_on(u32 bit)
{
	int ret;

	switch (bit) {
	case HMTT_PROBE_SCHED:
		return tracepoint_probe_register(tp_sched_switch,
						 probe_sched_switch, NULL);
	case HMTT_PROBE_SYSCALL:
		ret = tracepoint_probe_register(tp_sys_enter, probe_sys_enter,
						NULL);
		if (ret)
			return ret;
		ret = tracepoint_probe_register(tp_sys_exit, probe_sys_exit,
						NULL);
		if (ret)
			tracepoint_probe_unregister(tp_sys_enter,
						    probe_sys_enter, NULL);
		return ret;
	case HMTT_PROBE_PTE:
		ret = kret_register(&fault_probe, "handle_mm_fault",
				    fault_entry, fault_return,
				    sizeof(struct hmtt_fault));
		if (ret)
			return ret;
		ret = kprobe_register(&unmap_probe, "page_remove_rmap",
				      unmap_pre);
		if (ret) {
			unregister_kretprobe(&fault_probe);
			return ret;
		}
		ret = kprobe_register(&migrate_probe, "remove_migration_pte",
				      migrate_pre);
		if (ret) {
			unregister_kprobe(&unmap_probe);
			unregister_kretprobe(&fault_probe);
		}
		return ret;
	case HMTT_PROBE_DMA:
		return dma_probes_on();
	}
	return -EINVAL;
}

/* Detach the probe(s) behind one HMTT_PROBE_* bit. */
static void probe_off(u32 bit)
{
	switch (bit) {
	case HMTT_PROBE_SCHED:
		tracepoint_probe_unregister(tp_sched_switch,
					    probe_sched_switch, NULL);
		break;
	case HMTT_PROBE_SYSCALL:
		tracepoint_probe_unregister(tp_sys_exit, probe_sys_exit, NULL);
		tracepoint_probe_unregister(tp_sys_enter, probe_sys_enter,
					    NULL);
		break;
	case HMTT_PROBE_PTE:
		unregister_kprobe(&migrate_probe);
		unregister_kprobe(&unmap_probe);
		unregister_kretprobe(&fault_probe);
		break;
	case HMTT_PROBE_DMA:
		dma_probes_off();
		break;
	}
}

/*
 * hmtt_probes_set - enable exactly the probes in @mask. Returns 0, -EINVAL
 * for unknown bits, or the error of the first probe that failed to attach
 * (the probes switched before it stay as asked).
 */
int hmtt_probes_set(u32 mask)
{
	u32 bit;
	int ret = 0;

	if (mask & ~HMTT_PROBE_ALL)
		return -EINVAL;
	mutex_lock(&hmtt_probe_lock);
	for (bit = 1; bit & HMTT_PROBE_ALL; bit <<= 1) {
		bool want = mask & bit, have = hmtt_probe_mask & bit;

		if (want && !have) {
			ret = probe_on(bit);
			if (ret) {
				pr_err("hmtt: probe 0x%x: attach failed (%d)\n",
				       bit, ret);
				break;
			}
			hmtt_probe_mask |= bit;
		} else if (!want && have) {
			probe_off(bit);
			hmtt_probe_mask &= ~bit;
		}
	}
	mutex_unlock(&hmtt_probe_lock);
	/* No probe may still be running once the caller frees anything. */
	tracepoint_synchronize_unregister();
	return ret;
}

/* hmtt_probes_get - the HMTT_PROBE_* bits currently attached. */
u32 hmtt_probes_get(void)
{
	return READ_ONCE(hmtt_probe_mask);
}

/* hmtt_probes_missed - kretprobe instances that were not available. */
u64 hmtt_probes_missed(void)
{
	u64 n = 0;

	mutex_lock(&hmtt_probe_lock);
	if (hmtt_probe_mask & HMTT_PROBE_PTE)
		n += fault_probe.nmissed;
	if (hmtt_probe_mask & HMTT_PROBE_DMA)
		n += dma_map_page_probe.nmissed + dma_map_sg_probe.nmissed +
		     dma_map_sgtable_probe.nmissed;
	mutex_unlock(&hmtt_probe_lock);
	return n;
}

struct tp_lookup {
	const char *name;
	struct tracepoint **tp;
};

/* for_each_kernel_tracepoint() callback: fill in the tracepoints we use. */
static void tp_match(struct tracepoint *tp, void *priv)
{
	struct tp_lookup *l;

	for (l = priv; l->name; l++)
		if (!strcmp(tp->name, l->name))
			*l->tp = tp;
}

/* hmtt_probes_init - find the kernel's tracepoints; no probe is on. */
int hmtt_probes_init(void)
{
	struct tp_lookup want[] = {
		{ "sched_switch", &tp_sched_switch },
		{ "sys_enter", &tp_sys_enter },
		{ "sys_exit", &tp_sys_exit },
		{ NULL, NULL },
	};

	for_each_kernel_tracepoint(tp_match, want);
	if (!tp_sched_switch || !tp_sys_enter || !tp_sys_exit) {
		pr_err("hmtt: tracepoints sched_switch/sys_enter/sys_exit not found\n");
		return -ENOENT;
	}
	return 0;
}

/* hmtt_probes_exit - detach every probe and forget the traced pids. */
void hmtt_probes_exit(void)
{
	hmtt_probes_set(0);
	hmtt_pid_op(0, HMTT_PID_CLEAR);
}
