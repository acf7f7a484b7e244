// SPDX-License-Identifier: GPL-2.0
/*
 * hmtt_stress.c - hmtt_printk() from every CPU at once, from kernel code.
 *
 * Loading this module runs the whole stress in module_init: @ipis rounds
 * of on_each_cpu() write one record per CPU from hard-interrupt context
 * (half of them while one kthread bound to each online CPU writes @count
 * records). Writer w (kthread on CPU c: w = c; interrupt on CPU c:
 * w = nr_cpu_ids + c) writes records {w, index, pattern}; the user-space
 * checker (hmtt-ktest kprintk) reads them back. The totals are published
 * as the read-only parameters offered and enospc.
 */
#include <linux/completion.h>
#include <linux/cpu.h>
#include <linux/cpumask.h>
#include <linux/kthread.h>
#include <linux/module.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/smp.h>
#include <linux/hmtt.h>

static unsigned int count = 2000;
module_param(count, uint, 0444);
MODULE_PARM_DESC(count, "records per kthread");

static unsigned int ipis = 200;
module_param(ipis, uint, 0444);
MODULE_PARM_DESC(ipis, "on_each_cpu() rounds, one record per CPU each");

static unsigned long offered;
module_param(offered, ulong, 0444);
MODULE_PARM_DESC(offered, "records offered to hmtt_printk (result)");

static unsigned long enospc;
module_param(enospc, ulong, 0444);
MODULE_PARM_DESC(enospc, "records refused because a buffer was full (result)");

struct stress_payload {
	u32 writer;
	u32 index;
	u8 fill[192];
};

static unsigned long *writer_full;
static unsigned int *ipi_index;
static struct completion *done;

/* The same layout hmtt-ktest's user-space writers use. */
static u32 payload_make(struct stress_payload *p, u32 writer, u32 index)
{
	u32 i;

	p->writer = writer;
	p->index = index;
	for (i = 0; i < sizeof(p->fill); i++)
		p->fill[i] = (u8)(writer * 31 + index * 17 + i);
	return 8 + (writer * 7 + index * 13) % 185;
}

static void write_one(u32 writer, u32 index)
{
	struct stress_payload p;
	u32 len = payload_make(&p, writer, index);

	if (hmtt_printk(&p, len) == -ENOSPC)
		writer_full[writer]++;
}

static int stress_thread(void *data)
{
	unsigned int cpu = (unsigned long)data;
	u32 i;

	for (i = 0; i < count; i++) {
		write_one(cpu, i);
		if (!(i % 64))
			cond_resched();
	}
	complete(&done[cpu]);
	return 0;
}

static void stress_ipi(void *info)
{
	unsigned int cpu = smp_processor_id();

	write_one(nr_cpu_ids + cpu, ipi_index[cpu]++);
}

static int __init hmtt_stress_init(void)
{
	unsigned int cpu, i;

	writer_full = kcalloc(2 * nr_cpu_ids, sizeof(*writer_full), GFP_KERNEL);
	ipi_index = kcalloc(nr_cpu_ids, sizeof(*ipi_index), GFP_KERNEL);
	done = kcalloc(nr_cpu_ids, sizeof(*done), GFP_KERNEL);
	if (!writer_full || !ipi_index || !done)
		goto free_arrays;
	cpus_read_lock();
	/*
	 * Half of the interrupt rounds first, into empty buffers, so that
	 * interrupt-context records are always among those kept; the rest
	 * run while the kthreads write.
	 */
	for (i = 0; i < ipis / 2; i++) {
		on_each_cpu(stress_ipi, NULL, 1);
		offered += num_online_cpus();
	}
	for_each_online_cpu(cpu) {
		struct task_struct *t;

		init_completion(&done[cpu]);
		t = kthread_create(stress_thread, (void *)(unsigned long)cpu,
				   "hmtt_stress/%u", cpu);
		if (IS_ERR(t)) {
			complete(&done[cpu]);
			continue;
		}
		kthread_bind(t, cpu);
		wake_up_process(t);
		offered += count;
	}
	for (; i < ipis; i++) {
		on_each_cpu(stress_ipi, NULL, 1);
		offered += num_online_cpus();
	}
	for_each_online_cpu(cpu)
		wait_for_completion(&done[cpu]);
	cpus_read_unlock();
	for (cpu = 0; cpu < 2 * nr_cpu_ids; cpu++)
		enospc += writer_full[cpu];
	pr_info("hmtt_stress: %lu records offered from %u CPUs, %lu refused (buffer full)\n",
		offered, num_online_cpus(), enospc);
	kfree(done);
	kfree(ipi_index);
	kfree(writer_full);
	return 0;

free_arrays:
	kfree(done);
	kfree(ipi_index);
	kfree(writer_full);
	return -ENOMEM;
}

static void __exit hmtt_stress_exit(void)
{
}

module_init(hmtt_stress_init);
module_exit(hmtt_stress_exit);
MODULE_DESCRIPTION("hmtt_printk stress from every CPU (test)");
MODULE_LICENSE("GPL");
