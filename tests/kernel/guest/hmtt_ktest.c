// SPDX-License-Identifier: MIT
/*
 * hmtt_ktest.c - checks of hmtt.ko run inside the QEMU guest.
 *
 * A static multi-call program: "hmtt-ktest CHECK ARGS". Each check prints
 * lines "HMTT-TEST <check> PASS|FAIL <detail>" that the host-side runner
 * (tests/kernel/run_kernel_tier.sh) parses; the exit status is 0 only if
 * every line it printed was PASS.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <grp.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "hmtt/driver/icode.h"
#include "hmtt/driver/libhmtt.h"

static int failures;

static void report(const char *check, int ok, const char *fmt, ...)
{
	va_list ap;

	printf("HMTT-TEST %s %s ", check, ok ? "PASS" : "FAIL");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	fflush(stdout);
	if (!ok)
		failures++;
}

static const char *errname(int e)
{
	switch (e) {
	case 0: return "OK";
	case EPERM: return "EPERM";
	case ENOENT: return "ENOENT";
	case ESRCH: return "ESRCH";
	case ENXIO: return "ENXIO";
	case EFAULT: return "EFAULT";
	case EBUSY: return "EBUSY";
	case EEXIST: return "EEXIST";
	case EINVAL: return "EINVAL";
	case ENOTTY: return "ENOTTY";
	case ENOSPC: return "ENOSPC";
	case ERANGE: return "ERANGE";
	case EACCES: return "EACCES";
	case EOVERFLOW: return "EOVERFLOW";
	case EMSGSIZE: return "EMSGSIZE";
	case EOPNOTSUPP: return "EOPNOTSUPP";
	case EADDRNOTAVAIL: return "EADDRNOTAVAIL";
	}
	return "E?";
}

/* ---- module loading --------------------------------------------------- */

static int load_module(const char *path, const char *params)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	int ret;

	if (fd < 0)
		return errno;
	ret = syscall(SYS_finit_module, fd, params, 0) ? errno : 0;
	close(fd);
	return ret;
}

static int unload_module(const char *name)
{
	return syscall(SYS_delete_module, name, O_NONBLOCK) ? errno : 0;
}

/* modload PATH PARAMS EXPECTED: one load attempt with an expected errno. */
static int cmd_modload(int argc, char **argv)
{
	int e;

	if (argc != 5)
		return 2;
	e = load_module(argv[2], argv[3]);
	report(argv[1], !strcmp(errname(e), argv[4]), "params='%s' got=%s want=%s",
	       argv[3], errname(e), argv[4]);
	return failures != 0;
}

static int iomem_has(const char *name)
{
	char line[256];
	FILE *f = fopen("/proc/iomem", "r");
	int found = 0;

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (strstr(line, name))
			found = 1;
	fclose(f);
	return found;
}

/* cycles PATH PARAMS N: load and unload N times. */
static int cmd_cycles(int argc, char **argv)
{
	int n, i, bad = 0, claimed = 1, released = 1;

	if (argc != 5)
		return 2;
	n = atoi(argv[4]);
	for (i = 0; i < n; i++) {
		int e = load_module(argv[2], argv[3]);

		if (e) {
			fprintf(stderr, "cycle %d: load: %s\n", i, errname(e));
			bad++;
			continue;
		}
		if (iomem_has(": hmtt") != 1)
			claimed = 0;
		e = unload_module("hmtt");
		if (e) {
			fprintf(stderr, "cycle %d: unload: %s\n", i, errname(e));
			bad++;
		}
		if (iomem_has(": hmtt") != 0)
			released = 0;
	}
	report("load_unload", !bad && claimed && released,
	       "cycles=%d failed=%d region_claimed=%d region_released=%d", n,
	       bad, claimed, released);
	return failures != 0;
}

/* ---- mapping and I-Codes --------------------------------------------- */

static uint64_t pagemap_entry(pid_t pid, uint64_t vaddr)
{
	char path[64];
	uint64_t e = 0;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/pagemap", (int)pid);
	fd = open(path, O_RDONLY);
	if (fd < 0)
		return 0;
	if (pread(fd, &e, sizeof(e), (off_t)(vaddr / 4096 * 8)) != sizeof(e))
		e = 0;
	close(fd);
	return e;
}

#define PM_PRESENT (1ULL << 63)
#define PM_PFN(e) ((e) & ((1ULL << 55) - 1))

/* The PAT memtype list says how the kernel maps a physical range. */
static int pat_type(uint64_t phys, char *type, size_t len)
{
	char line[256];
	FILE *f = fopen("/sys/kernel/debug/x86/pat_memtype_list", "r");
	int found = 0;

	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f)) {
		char t[64];
		unsigned long long s, e;

		/* "PAT: [mem 0x000000001e000000-0x000000001e800000] uncached-minus" */
		if (sscanf(line, "PAT: [mem 0x%llx-0x%llx] %63s", &s, &e, t) == 3 &&
		    s <= phys && phys < e) {
			snprintf(type, len, "%s", t);
			found = 1;
		}
	}
	fclose(f);
	return found;
}

/* icode: map /dev/hmtt, issue I-Codes, check the mapping and the log. */
static int cmd_icode(void)
{
	static uint8_t buf[1 << 16];
	struct hmtt_status st;
	struct hmtt_dev d;
	uint64_t pfn_ok = 0, k, npages, tags = 0, seq_ok = 1, last_seq = 0;
	char type[64] = "none";
	int ret;
	ssize_t n;

	ret = hmtt_open(&d, NULL, 0);
	report("icode_open", ret == 0, "hmtt_open=%s", errname(-ret));
	if (ret)
		return 1;
	hmtt_status(&d, &st);
	while (hmtt_read_log(&d, buf, sizeof(buf)) > 0)
		;
	hmtt_begin(&d);
	for (k = 0; k < HMTT_APP_EVENTS; k++)
		HMTT_EVENT(k);
	HMTT_BEGIN();
	HMTT_SYNC();
	HMTT_END();
	for (k = 0; k < 100; k++)
		hmtt_tag(&d, (uint32_t)k, 1000 + k);
	hmtt_end(&d);

	/*
	 * pagemap does not walk VM_PFNMAP mappings, so check the mapping by
	 * content: a second mapping at a page offset must show what the first
	 * wrote at that offset, for every page of the region.
	 */
	npages = d.cfg_bytes / 4096;
	for (k = 0; k < npages; k++)
		*(volatile uint64_t *)(d.cfg + k * 4096 + 8) = 0x484d5454000000ULL + k;
	for (k = 0; k < npages; k += 97) {
		volatile uint64_t *view = mmap(NULL, 4096, PROT_READ, MAP_SHARED, d.fd,
					       (off_t)(k * 4096));

		if (view != MAP_FAILED && view[1] == 0x484d5454000000ULL + k)
			pfn_ok++;
		if (view != MAP_FAILED)
			munmap((void *)(uintptr_t)view, 4096);
	}
	report("icode_mapping", pfn_ok == (npages + 96) / 97 && iomem_has(": hmtt") == 1,
	       "pages=%" PRIu64 " offset_views_checked=%" PRIu64 " agree=%" PRIu64
	       " base=0x%" PRIx64 " size=0x%" PRIx64 " iomem_claimed=%d",
	       npages, (npages + 96) / 97, pfn_ok, (uint64_t)st.base, (uint64_t)st.size,
	       iomem_has(": hmtt"));
	pat_type(st.base, type, sizeof(type));
	report("icode_uncached", !strncmp(type, "uncached", 8), "pat=%s", type);

	while ((n = hmtt_read_log(&d, buf, sizeof(buf))) > 0) {
		size_t off = 0;

		while (off < (size_t)n) {
			const struct hmtt_rec_hdr *h = (const void *)(buf + off);
			const struct hmtt_rec_tag *t = (const void *)(h + 1);

			if (h->type == HMTT_REC_TAG && t->kind == HMTT_TAG_USER &&
			    t->value == 1000 + t->event && t->pid == getpid())
				tags++;
			if (h->seq <= last_seq)
				seq_ok = 0;
			last_seq = h->seq;
			off += h->len;
		}
	}
	report("icode_tags", tags == 100 && seq_ok, "tag_records=%" PRIu64 " seq_increasing=%" PRIu64,
	       tags, seq_ok);
	hmtt_close(&d);
	return failures != 0;
}

/* ---- errors ----------------------------------------------------------- */

static int try_mmap(int fd, size_t len, off_t off, int prot, int flags)
{
	void *p = mmap(NULL, len, prot, flags, fd, off);

	if (p == MAP_FAILED)
		return errno;
	munmap(p, len);
	return 0;
}

static int try_ioctl(int fd, unsigned long cmd, void *arg)
{
	return ioctl(fd, cmd, arg) ? errno : 0;
}

static void expect(const char *what, int got, int want)
{
	char name[96];

	snprintf(name, sizeof(name), "errno_%s", what);
	report(name, got == want, "got=%s want=%s", errname(got), errname(want));
}

/* Run fn as uid/gid (with supplementary group sgid if >= 0), return its code. */
static int as_user(uid_t uid, gid_t gid, int sgid, int (*fn)(void))
{
	pid_t pid = fork();
	int status;

	if (pid == 0) {
		gid_t g = (gid_t)sgid;

		if (setgroups(sgid >= 0 ? 1 : 0, &g) || setgid(gid) || setuid(uid))
			_exit(250);
		_exit(fn());
	}
	waitpid(pid, &status, 0);
	return WIFEXITED(status) ? WEXITSTATUS(status) : 251;
}

static int open_errno(void)
{
	int fd = open(HMTT_DEVICE, O_RDWR);

	if (fd < 0)
		return errno;
	close(fd);
	return 0;
}

/* A group member: may map and tag, may not read logs or switch probes. */
static int member_checks(void)
{
	struct hmtt_probes p = { .mask = HMTT_PROBE_SCHED };
	struct hmtt_tag t = { .event = 1 };
	char buf[4096];
	int fd = open(HMTT_DEVICE, O_RDWR);

	if (fd < 0)
		return 10;
	if (try_mmap(fd, 4096, 0, PROT_READ, MAP_SHARED))
		return 11;
	if (try_ioctl(fd, HMTT_IOC_TAG, &t))
		return 12;
	if (read(fd, buf, sizeof(buf)) >= 0 || errno != EPERM)
		return 13;
	if (try_ioctl(fd, HMTT_IOC_SET_PROBES, &p) != EPERM)
		return 14;
	close(fd);
	return 0;
}

/* errors: each refused request has its errno. */
static int cmd_errors(void)
{
	struct hmtt_status st;
	struct hmtt_tag tag = { 0 };
	struct hmtt_probes pr = { 0 };
	struct hmtt_pid pid = { 0 };
	struct hmtt_printk_arg pa = { 0 };
	struct hmtt_cache cc = { 0 };
	char big[1024] = { 0 };
	int fd = open(HMTT_DEVICE, O_RDWR);

	if (fd < 0) {
		report("errno_open_root", 0, "open=%s", errname(errno));
		return 1;
	}
	ioctl(fd, HMTT_IOC_STATUS, &st);
	expect("mmap_whole", try_mmap(fd, st.size, 0, PROT_READ, MAP_SHARED), 0);
	expect("mmap_past_end", try_mmap(fd, 4096, (off_t)st.size, PROT_READ, MAP_SHARED), ENXIO);
	expect("mmap_too_long", try_mmap(fd, st.size + 4096, 0, PROT_READ, MAP_SHARED), ENXIO);
	expect("mmap_tail_overrun", try_mmap(fd, 8192, (off_t)st.size - 4096, PROT_READ, MAP_SHARED), ENXIO);
	expect("mmap_private", try_mmap(fd, 4096, 0, PROT_READ, MAP_PRIVATE), EINVAL);
	expect("mmap_exec", try_mmap(fd, 4096, 0, PROT_READ | PROT_EXEC, MAP_SHARED), EPERM);
	expect("ioctl_unknown_cmd", try_ioctl(fd, _IO(HMTT_IOC_MAGIC, 0x7f), NULL), ENOTTY);
	expect("ioctl_foreign_cmd", try_ioctl(fd, _IOR('T', 0x01, int), big), ENOTTY);
	expect("ioctl_status_badptr", try_ioctl(fd, HMTT_IOC_STATUS, (void *)16), EFAULT);
	tag.event = HMTT_APP_EVENTS;
	expect("tag_event_range", try_ioctl(fd, HMTT_IOC_TAG, &tag), EINVAL);
	tag.event = 0;
	tag.reserved = 1;
	expect("tag_reserved", try_ioctl(fd, HMTT_IOC_TAG, &tag), EINVAL);
	pr.mask = 0x100;
	expect("probes_unknown_bit", try_ioctl(fd, HMTT_IOC_SET_PROBES, &pr), EINVAL);
	pid.pid = 0x3fffff00;
	pid.op = HMTT_PID_ADD;
	expect("pid_missing", try_ioctl(fd, HMTT_IOC_PID, &pid), ESRCH);
	pid.pid = 1;
	pid.op = 9;
	expect("pid_bad_op", try_ioctl(fd, HMTT_IOC_PID, &pid), EINVAL);
	pa.data = (uint64_t)(uintptr_t)big;
	pa.len = 0;
	expect("printk_empty", try_ioctl(fd, HMTT_IOC_PRINTK, &pa), EINVAL);
	pa.len = sizeof(big);
	expect("printk_too_long", try_ioctl(fd, HMTT_IOC_PRINTK, &pa), EMSGSIZE);
	pa.len = 8;
	pa.data = 8;
	expect("printk_badptr", try_ioctl(fd, HMTT_IOC_PRINTK, &pa), EFAULT);
	cc.disable = 1;
	expect("cache_not_enabled", try_ioctl(fd, HMTT_IOC_CACHE, &cc), EOPNOTSUPP);
	expect("read_small_buffer", read(fd, big, 16) < 0 ? errno : 0, EINVAL);
	close(fd);

	/* Mode 0600 root:root: the VFS refuses others. */
	expect("open_unprivileged", as_user(1000, 1000, -1, open_errno), EACCES);
	/* Even if someone opens the mode up, the module wants CAP_SYS_RAWIO. */
	chmod(HMTT_DEVICE, 0666);
	expect("open_unprivileged_mode0666", as_user(1000, 1000, -1, open_errno), EPERM);
	chmod(HMTT_DEVICE, 0600);
	return failures != 0;
}

/* group GID: module loaded with group=GID and the node chgrp'ed to it. */
static int cmd_group(int argc, char **argv)
{
	int gid;

	if (argc != 3)
		return 2;
	gid = atoi(argv[2]);
	expect("group_member_open", as_user(1001, 1001, gid, open_errno), 0);
	expect("group_member_rights", as_user(1001, 1001, gid, member_checks), 0);
	expect("group_nonmember_open", as_user(1002, 1002, -1, open_errno), EACCES);
	return failures != 0;
}

/* ---- log reading ------------------------------------------------------- */

struct log {
	uint8_t *data;
	size_t len;
};

static void log_drain(const struct hmtt_dev *d, struct log *lg)
{
	static uint8_t buf[1 << 16];
	ssize_t n;

	while ((n = hmtt_read_log(d, buf, sizeof(buf))) > 0) {
		lg->data = realloc(lg->data, lg->len + (size_t)n);
		memcpy(lg->data + lg->len, buf, (size_t)n);
		lg->len += (size_t)n;
	}
}

#define for_each_rec(h, lg) \
	for (h = (const struct hmtt_rec_hdr *)(lg)->data; \
	     (const uint8_t *)h < (lg)->data + (lg)->len; \
	     h = (const struct hmtt_rec_hdr *)((const uint8_t *)h + h->len))

/* ---- page-map oracle --------------------------------------------------- */

/* pagemap N: a child touches N pages; its logged <vpage, ppage> vs pagemap. */
static int cmd_pagemap(int argc, char **argv)
{
	const struct hmtt_rec_hdr *h;
	struct log lg = { 0 };
	struct hmtt_dev d;
	int go[2], ready[2];
	uint64_t n, region = 0, i, logged = 0, matched = 0, mismatched = 0;
	uint64_t gone = 0, missing = 0, pte_bad = 0, in_region = 0;
	uint64_t *last;
	pid_t child;

	if (argc != 3)
		return 2;
	n = strtoull(argv[2], NULL, 0);
	if (hmtt_open(&d, NULL, (size_t)-1))
		return 1;
	log_drain(&d, &lg);
	lg.len = 0;
	if (pipe(go) || pipe(ready))
		return 1;
	child = fork();
	if (child == 0) {
		char c;
		uint8_t *p = mmap(NULL, n * 4096, PROT_READ | PROT_WRITE,
				  MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

		madvise(p, n * 4096, MADV_NOHUGEPAGE);
		if (read(go[0], &c, 1) != 1)
			_exit(1);
		/*
		 * The first quarter is read before it is written: the read
		 * maps the shared zero page, the write copies on write.
		 */
		for (i = 0; i < n / 4; i++)
			(void)*(volatile uint8_t *)(p + i * 4096);
		for (i = 0; i < n; i++)
			p[i * 4096] = (uint8_t)i;
		region = (uint64_t)(uintptr_t)p;
		if (write(ready[1], &region, sizeof(region)) != sizeof(region))
			_exit(1);
		/* Second step: move [n/4, n/2) to the other NUMA node. */
		if (read(go[0], &c, 1) != 1)
			_exit(1);
		{
			uint64_t nm = n / 4, j, moved = 0;
			void **pages = calloc(nm, sizeof(*pages));
			int *nodes = calloc(nm, sizeof(*nodes));
			int *status = calloc(nm, sizeof(*status));

			for (j = 0; j < nm; j++)
				pages[j] = p + (nm + j) * 4096;
			syscall(SYS_move_pages, 0, nm, pages, NULL, status, 0);
			for (j = 0; j < nm; j++)
				nodes[j] = status[j] == 0 ? 1 : 0;
			syscall(SYS_move_pages, 0, nm, pages, nodes, status, 2 /* MPOL_MF_MOVE */);
			for (j = 0; j < nm; j++)
				if (status[j] == nodes[j])
					moved++;
			if (write(ready[1], &moved, sizeof(moved)) != sizeof(moved))
				_exit(1);
		}
		/* Third step: unmap the upper half. */
		if (read(go[0], &c, 1) != 1)
			_exit(1);
		munmap(p + n / 2 * 4096, (n - n / 2) * 4096);
		if (write(ready[1], &region, sizeof(region)) != sizeof(region))
			_exit(1);
		pause();
		_exit(0);
	}
	hmtt_trace_pid(&d, child, HMTT_PID_ADD);
	hmtt_set_probes(&d, HMTT_PROBE_PTE);
	if (write(go[1], "g", 1) != 1 ||
	    read(ready[0], &region, sizeof(region)) != sizeof(region))
		return 1;
	log_drain(&d, &lg);

	/* The last logged ppage of each page of the region. */
	last = calloc(n, sizeof(*last));
	for_each_rec(h, &lg) {
		const struct hmtt_rec_pte *r = (const void *)(h + 1);
		uint64_t e;

		if (h->type != HMTT_REC_PTE || r->tgid != child || r->op != HMTT_PTE_MAP)
			continue;
		logged++;
		if ((r->pte_addr & 0xfff) != (r->vpage & 511) * 8)
			pte_bad++;
		if (r->vpage >= region / 4096 && r->vpage < region / 4096 + n) {
			in_region++;
			last[r->vpage - region / 4096] = r->ppage;
		}
		e = pagemap_entry(child, r->vpage * 4096);
		if (!(e & PM_PRESENT))
			gone++;
	}
	/* Every logged page still mapped: its last ppage must be pagemap's. */
	for (i = 0; i < n; i++) {
		uint64_t e = pagemap_entry(child, region + i * 4096);

		if (!last[i])
			missing++;
		else if ((e & PM_PRESENT) && PM_PFN(e) == last[i])
			matched++;
		else
			mismatched++;
	}
	{
		/* Pages outside the region (stack, libc data) must match too. */
		uint64_t other_bad = 0;

		for_each_rec(h, &lg) {
			const struct hmtt_rec_pte *r = (const void *)(h + 1);
			const struct hmtt_rec_hdr *h2;
			uint64_t e, final = r->ppage;

			if (h->type != HMTT_REC_PTE || r->tgid != child ||
			    r->op != HMTT_PTE_MAP)
				continue;
			for_each_rec(h2, &lg) {
				const struct hmtt_rec_pte *r2 = (const void *)(h2 + 1);

				if (h2->type == HMTT_REC_PTE && r2->tgid == child &&
				    r2->vpage == r->vpage && h2->seq > h->seq)
					final = r2->ppage;
			}
			e = pagemap_entry(child, r->vpage * 4096);
			if ((e & PM_PRESENT) && PM_PFN(e) != final)
				other_bad++;
		}
		report("pagemap_oracle",
		       n && matched == n && !missing && !mismatched && !other_bad && !pte_bad,
		       "touched=%" PRIu64 " logged=%" PRIu64 " in_region=%" PRIu64
		       " matched=%" PRIu64 " missing=%" PRIu64 " mismatched=%" PRIu64
		       " other_mismatched=%" PRIu64 " unmapped_since=%" PRIu64
		       " pte_addr_bad=%" PRIu64,
		       n, logged, in_region, matched, missing, mismatched,
		       other_bad, gone, pte_bad);
	}
	{
		/* Print a few records the way the docs show them. */
		int shown = 0;

		for_each_rec(h, &lg) {
			const struct hmtt_rec_pte *r = (const void *)(h + 1);

			if (h->type != HMTT_REC_PTE || r->tgid != child ||
			    r->vpage < region / 4096 || shown++ >= 3)
				continue;
			printf("pte seq=%" PRIu64 " pid=%d vpage=0x%" PRIx64
			       " ppage=0x%" PRIx64 " pte=0x%" PRIx64 "\n",
			       (uint64_t)h->seq, r->pid, (uint64_t)r->vpage,
			       (uint64_t)r->ppage, (uint64_t)r->pte_addr);
		}
	}
	{
		/*
		 * move_pages of [n/4, n/2): per page an UNMAP of the old frame
		 * and a MIGRATE to the frame pagemap now shows.
		 */
		uint64_t moved = 0, mig_ok = 0, unmap_old = 0;
		size_t before = lg.len;

		if (write(go[1], "m", 1) != 1 ||
		    read(ready[0], &moved, sizeof(moved)) != sizeof(moved))
			return 1;
		log_drain(&d, &lg);
		for (i = n / 4; i < n / 2; i++) {
			uint64_t e = pagemap_entry(child, region + i * 4096), mig = 0;

			for (h = (const void *)(lg.data + before);
			     (const uint8_t *)h < lg.data + lg.len;
			     h = (const void *)((const uint8_t *)h + h->len)) {
				const struct hmtt_rec_pte *r = (const void *)(h + 1);

				if (h->type != HMTT_REC_PTE || r->tgid != child ||
				    r->vpage != region / 4096 + i)
					continue;
				if (r->op == HMTT_PTE_MIGRATE)
					mig = r->ppage;
				if (r->op == HMTT_PTE_UNMAP && r->ppage == last[i])
					unmap_old++;
			}
			if (mig && mig != last[i] && (e & PM_PRESENT) && PM_PFN(e) == mig)
				mig_ok++;
		}
		report("pagemap_migrate", moved == n / 4 && mig_ok == n / 4 && unmap_old == n / 4,
		       "asked=%" PRIu64 " moved_to_other_node=%" PRIu64
		       " migrate_records_matching_pagemap=%" PRIu64
		       " unmaps_of_old_frame=%" PRIu64, n / 4, moved, mig_ok, unmap_old);
	}
	{
		/* munmap of the upper half: one UNMAP per page, with its ppage. */
		uint64_t unmapped = 0, wrong = 0, lower = 0, still = 0;
		size_t mapped_len = lg.len;

		if (write(go[1], "u", 1) != 1 ||
		    read(ready[0], &region, sizeof(region)) != sizeof(region))
			return 1;
		hmtt_set_probes(&d, 0);
		log_drain(&d, &lg);
		for (h = (const void *)(lg.data + mapped_len);
		     (const uint8_t *)h < lg.data + lg.len;
		     h = (const void *)((const uint8_t *)h + h->len)) {
			const struct hmtt_rec_pte *r = (const void *)(h + 1);
			uint64_t i2;

			if (h->type != HMTT_REC_PTE || r->tgid != child ||
			    r->op != HMTT_PTE_UNMAP ||
			    r->vpage < region / 4096 || r->vpage >= region / 4096 + n)
				continue;
			i2 = r->vpage - region / 4096;
			if (i2 < n / 2)
				lower++;
			else if (r->ppage == last[i2])
				unmapped++;
			else
				wrong++;
		}
		for (i = n / 2; i < n; i++)
			if (pagemap_entry(child, region + i * 4096) & PM_PRESENT)
				still++;
		report("pagemap_unmap",
		       unmapped == n - n / 2 && !wrong && !lower && !still,
		       "munmapped=%" PRIu64 " unmap_records=%" PRIu64
		       " wrong_ppage=%" PRIu64 " unmaps_of_kept_pages=%" PRIu64
		       " still_present=%" PRIu64, n - n / 2, unmapped, wrong, lower, still);
	}
	{
		/* COW: read-first pages have <zero page> then <their own page>. */
		uint64_t zero_pfn = 0, cow_ok = 0, zero_same = 1;

		for (i = 0; i < n / 4; i++) {
			uint64_t first = 0, count = 0;

			for_each_rec(h, &lg) {
				const struct hmtt_rec_pte *r = (const void *)(h + 1);

				if (h->type != HMTT_REC_PTE || r->tgid != child ||
				    r->op != HMTT_PTE_MAP || r->vpage != region / 4096 + i)
					continue;
				if (!count++)
					first = r->ppage;
			}
			if (!zero_pfn)
				zero_pfn = first;
			if (first != zero_pfn)
				zero_same = 0;
			if (count == 2 && first != last[i])
				cow_ok++;
		}
		report("pagemap_cow", cow_ok == n / 4 && zero_same,
		       "read_then_written=%" PRIu64 " map_then_cow=%" PRIu64
		       " first_ppage_shared=%" PRIu64 " zero_page_pfn=0x%" PRIx64,
		       n / 4, cow_ok, zero_same, zero_pfn);
	}
	kill(child, SIGKILL);
	waitpid(child, NULL, 0);
	hmtt_trace_pid(&d, 0, HMTT_PID_CLEAR);
	free(last);
	free(lg.data);
	hmtt_close(&d);
	return failures != 0;
}

/*
 * thp: a child faults two transparent huge pages (one byte each); each
 * fault is one HUGE record whose ppage is the frame pagemap shows for the
 * touched address, and pagemap shows 512 contiguous frames around it.
 */
static int cmd_thp(void)
{
	const uint64_t huge = 2ULL << 20;
	const uint64_t touch[2] = { 0x1234, huge + 0x5678 };
	const struct hmtt_rec_hdr *h;
	struct log lg = { 0 };
	struct hmtt_dev d;
	int go[2], ready[2], k;
	uint64_t region = 0, records = 0, matched = 0, contiguous = 0;
	pid_t child;

	if (hmtt_open(&d, NULL, (size_t)-1) || pipe(go) || pipe(ready))
		return 1;
	{
		/* The kernel turns THP off by default below 512 MiB of RAM. */
		int fd = open("/sys/kernel/mm/transparent_hugepage/enabled", O_WRONLY);

		if (fd < 0 || write(fd, "madvise", 7) != 7)
			return 1;
		close(fd);
	}
	log_drain(&d, &lg);
	lg.len = 0;
	child = fork();
	if (child == 0) {
		char c;
		uint8_t *p = mmap(NULL, 3 * huge, PROT_READ | PROT_WRITE,
				  MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		uint8_t *a = (uint8_t *)(((uintptr_t)p + huge - 1) & ~(uintptr_t)(huge - 1));

		madvise(a, 2 * huge, MADV_HUGEPAGE);
		if (read(go[0], &c, 1) != 1)
			_exit(1);
		a[touch[0]] = 1;
		a[touch[1]] = 2;
		region = (uint64_t)(uintptr_t)a;
		if (write(ready[1], &region, sizeof(region)) != sizeof(region))
			_exit(1);
		pause();
		_exit(0);
	}
	hmtt_trace_pid(&d, child, HMTT_PID_ADD);
	hmtt_set_probes(&d, HMTT_PROBE_PTE);
	if (write(go[1], "g", 1) != 1 ||
	    read(ready[0], &region, sizeof(region)) != sizeof(region))
		return 1;
	hmtt_set_probes(&d, 0);
	log_drain(&d, &lg);
	for_each_rec(h, &lg) {
		const struct hmtt_rec_pte *r = (const void *)(h + 1);

		if (h->type != HMTT_REC_PTE || r->tgid != child || r->op != HMTT_PTE_MAP ||
		    !(r->fault_flags & HMTT_PTE_HUGE))
			continue;
		records++;
		for (k = 0; k < 2; k++) {
			uint64_t e = pagemap_entry(child, region + touch[k]);

			if (r->vpage == (region + touch[k]) / 4096 && (e & PM_PRESENT) &&
			    PM_PFN(e) == r->ppage)
				matched++;
		}
	}
	for (k = 0; k < 2; k++) {
		uint64_t start = region + (uint64_t)k * huge, j;
		uint64_t pfn0 = PM_PFN(pagemap_entry(child, start)), ok = 1;

		for (j = 1; j < 512; j++)
			if (PM_PFN(pagemap_entry(child, start + j * 4096)) != pfn0 + j)
				ok = 0;
		contiguous += ok;
	}
	report("pagemap_thp", records == 2 && matched == 2 && contiguous == 2,
	       "huge_faults=2 huge_records=%" PRIu64 " matching_pagemap=%" PRIu64
	       " huge_pages_contiguous_in_pagemap=%" PRIu64, records, matched, contiguous);
	kill(child, SIGKILL);
	waitpid(child, NULL, 0);
	hmtt_trace_pid(&d, 0, HMTT_PID_CLEAR);
	free(lg.data);
	hmtt_close(&d);
	return failures != 0;
}

/* ---- DMA oracle -------------------------------------------------------- */

struct disk_stat {
	unsigned long long ios, merges, sectors;
};

/* Reads completed, reads merged, sectors read: /sys/block/DISK/stat. */
static struct disk_stat disk_stat(const char *disk)
{
	struct disk_stat st = { 0, 0, 0 };
	char path[128];
	FILE *f;

	snprintf(path, sizeof(path), "/sys/block/%s/stat", disk);
	f = fopen(path, "r");
	if (!f || fscanf(f, "%llu %llu %llu", &st.ios, &st.merges, &st.sectors) != 3)
		st.sectors = 0;
	if (f)
		fclose(f);
	return st;
}

/*
 * dma DISK BYTES [buffered]: read BYTES of /dev/DISK with O_DIRECT (or
 * through the page cache, readahead included), sum the DMA log and compare
 * with the block layer's own counters.
 */
static int cmd_dma(int argc, char **argv)
{
	const struct hmtt_rec_hdr *h;
	struct log lg = { 0 };
	struct hmtt_dev d;
	char path[128], link[PATH_MAX], dev[64] = "";
	uint64_t bytes, got = 0, data = 0, status = 0, other = 0, stat_bytes;
	struct disk_stat s0, s1;
	int buffered;
	uint64_t maps = 0, unmaps = 0, unmatched = 0, to_dev = 0;
	void *buf;
	char *slash;
	int fd;

	if (argc != 4 && argc != 5)
		return 2;
	bytes = strtoull(argv[3], NULL, 0);
	buffered = argc == 5 && !strcmp(argv[4], "buffered");
	/* The DMA device of a virtio disk is the PCI function above virtioN. */
	snprintf(path, sizeof(path), "/sys/block/%s/device", argv[2]);
	if (!realpath(path, link))
		return 1;
	slash = strrchr(link, '/');
	*slash = 0;
	snprintf(dev, sizeof(dev), "%s", strrchr(link, '/') + 1);

	if (hmtt_open(&d, NULL, (size_t)-1))
		return 1;
	log_drain(&d, &lg);
	lg.len = 0;
	snprintf(path, sizeof(path), "/dev/%s", argv[2]);
	if (buffered) {
		int dc = open("/proc/sys/vm/drop_caches", O_WRONLY);

		sync();
		if (dc < 0 || write(dc, "3", 1) != 1)
			return 1;
		close(dc);
	}
	fd = open(path, buffered ? O_RDONLY : O_RDONLY | O_DIRECT);
	if (fd < 0 || posix_memalign(&buf, 4096, 1 << 20))
		return 1;
	s0 = disk_stat(argv[2]);
	hmtt_set_probes(&d, HMTT_PROBE_DMA);
	while (got < bytes) {
		size_t chunk = buffered ? 65536 : (1 << 20);
		ssize_t n = read(fd, buf, (size_t)(bytes - got < chunk ? bytes - got : chunk));

		if (n <= 0)
			break;
		got += (uint64_t)n;
	}
	hmtt_set_probes(&d, 0);
	s1 = disk_stat(argv[2]);
	stat_bytes = (s1.sectors - s0.sectors) * 512;
	close(fd);
	log_drain(&d, &lg);

	for_each_rec(h, &lg) {
		const struct hmtt_rec_dma *r = (const void *)(h + 1);
		const struct hmtt_rec_hdr *h2;
		int found = 0;

		if (h->type != HMTT_REC_DMA || strcmp(r->dev, dev))
			continue;
		if (r->op == HMTT_DMA_UNMAP) {
			unmaps++;
			continue;
		}
		maps++;
		if (r->dir == 2 && r->size >= 512)
			data += r->size;
		else if (r->dir == 2 && r->size == 1)
			status++;
		else if (r->dir == 1)
			to_dev++;
		else
			other++;
		for_each_rec(h2, &lg) {
			const struct hmtt_rec_dma *u = (const void *)(h2 + 1);

			if (h2->type == HMTT_REC_DMA && h2->seq > h->seq &&
			    u->op == HMTT_DMA_UNMAP && u->dma_addr == r->dma_addr &&
			    u->size == r->size && u->dir == r->dir &&
			    u->phys == r->phys && !strcmp(u->dev, r->dev)) {
				found = 1;
				break;
			}
		}
		if (!found)
			unmatched++;
	}
	/*
	 * Data maps add up to what the block layer moved (with O_DIRECT also
	 * to what was read; through the page cache readahead moves more), and
	 * there is one 1-byte status map per request the disk completed.
	 */
	report(buffered ? "dma_sum_buffered" : "dma_sum",
	       got == bytes && data == stat_bytes &&
	       (buffered ? stat_bytes >= bytes : stat_bytes == bytes) &&
	       status == s1.ios - s0.ios && maps == unmaps && !unmatched && !other &&
	       status > 0,
	       "dev=%s read=%" PRIu64 " block_stat_bytes=%" PRIu64 " dma_from_device_data=%" PRIu64
	       " requests=%llu bios_merged=%llu status_maps=%" PRIu64 " to_device_maps=%" PRIu64
	       " other=%" PRIu64 " maps=%" PRIu64 " unmaps=%" PRIu64 " map_without_unmap=%" PRIu64,
	       dev, got, stat_bytes, data, s1.ios - s0.ios, s1.merges - s0.merges, status,
	       to_dev, other, maps, unmaps, unmatched);
	{
		int shown = 0;

		for_each_rec(h, &lg) {
			const struct hmtt_rec_dma *r = (const void *)(h + 1);

			if (h->type != HMTT_REC_DMA || buffered || shown++ >= 6)
				continue;
			printf("dma seq=%" PRIu64 " dev=%s %s phys=0x%" PRIx64
			       " size=%" PRIu64 " dir=%u\n", (uint64_t)h->seq, r->dev,
			       r->op == HMTT_DMA_MAP ? "map" : "unmap",
			       (uint64_t)r->phys, (uint64_t)r->size, r->dir);
		}
	}
	free(lg.data);
	hmtt_close(&d);
	return failures != 0;
}

/* ---- hmtt_printk from every CPU ----------------------------------------- */

struct payload {
	uint32_t writer;
	uint32_t index;
	uint8_t fill[192];
};

static uint32_t payload_len(uint32_t writer, uint32_t index)
{
	return 8 + (writer * 7 + index * 13) % 185;
}

static void payload_make(struct payload *p, uint32_t writer, uint32_t index)
{
	uint32_t i;

	p->writer = writer;
	p->index = index;
	for (i = 0; i < sizeof(p->fill); i++)
		p->fill[i] = (uint8_t)(writer * 31 + index * 17 + i);
}

/* Each writer pinned to one CPU writes m records; returns its ENOSPC count. */
static uint32_t writer_run(uint32_t writer, uint32_t m, int cpu)
{
	struct hmtt_dev d;
	struct payload p;
	cpu_set_t set;
	uint32_t i, full = 0;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	sched_setaffinity(0, sizeof(set), &set);
	if (hmtt_open(&d, NULL, (size_t)-1))
		_exit(255);
	for (i = 0; i < m; i++) {
		payload_make(&p, writer, i);
		if (hmtt_log_user(&d, &p, payload_len(writer, i)) == -ENOSPC)
			full++;
	}
	hmtt_close(&d);
	return full;
}

/*
 * printk WRITERS_PER_CPU M DRAIN: writers on every CPU at once; with DRAIN=0
 * nobody reads until they finish (the buffers fill), with DRAIN=1 the
 * parent reads concurrently. Checks every record and the exact loss count.
 */
static int cmd_printk(int argc, char **argv)
{
	const struct hmtt_rec_hdr *h;
	struct hmtt_status st0, st1;
	struct log lg = { 0 };
	struct hmtt_dev d;
	uint32_t per_cpu, m, writers, w, full_total = 0, torn = 0, dup = 0;
	uint32_t *seen_count;
	uint8_t *seen;
	uint64_t received = 0, min_seq = UINT64_MAX, max_seq = 0;
	uint64_t seq_before = 0, seq_after = 0;
	int ncpu = (int)sysconf(_SC_NPROCESSORS_ONLN), drain, pfd[2], alive;
	char name[32];

	if (argc != 5)
		return 2;
	per_cpu = (uint32_t)atoi(argv[2]);
	m = (uint32_t)atoi(argv[3]);
	drain = atoi(argv[4]);
	writers = per_cpu * (uint32_t)ncpu;
	if (hmtt_open(&d, NULL, (size_t)-1) || pipe(pfd))
		return 1;
	log_drain(&d, &lg);
	lg.len = 0;
	/* Tags around the run bound the sequence ids the writers consume. */
	hmtt_tag(&d, 0, 0xb0);
	hmtt_status(&d, &st0);
	if (drain)
		fcntl(pfd[0], F_SETFL, O_NONBLOCK);
	for (w = 0; w < writers; w++) {
		if (fork() == 0) {
			uint32_t full = writer_run(w, m, (int)(w % (uint32_t)ncpu));

			if (write(pfd[1], &full, sizeof(full)) != sizeof(full))
				_exit(1);
			_exit(0);
		}
	}
	close(pfd[1]);
	alive = (int)writers;
	while (alive > 0) {
		uint32_t full;
		ssize_t n;

		if (drain)
			log_drain(&d, &lg);
		n = read(pfd[0], &full, sizeof(full));
		if (n == sizeof(full)) {
			full_total += full;
			alive--;
		} else if (n < 0 && errno == EAGAIN) {
			usleep(200);
		} else {
			break;
		}
	}
	while (wait(NULL) > 0)
		;
	log_drain(&d, &lg);
	hmtt_status(&d, &st1);
	hmtt_tag(&d, 0, 0xe0);
	log_drain(&d, &lg);

	seen = calloc((size_t)writers * m, 1);
	seen_count = calloc(writers, sizeof(*seen_count));
	for_each_rec(h, &lg) {
		const struct payload *p = (const void *)(h + 1);
		struct payload want;
		uint32_t len;

		if (h->type == HMTT_REC_TAG) {
			const struct hmtt_rec_tag *t = (const void *)(h + 1);

			if (t->value == 0xb0 && t->pid == getpid())
				seq_before = h->seq;
			if (t->value == 0xe0 && t->pid == getpid())
				seq_after = h->seq;
		}
		if (h->type != HMTT_REC_USER)
			continue;
		received++;
		if (h->seq < min_seq)
			min_seq = h->seq;
		if (h->seq > max_seq)
			max_seq = h->seq;
		if (p->writer >= writers || p->index >= m) {
			torn++;
			continue;
		}
		len = payload_len(p->writer, p->index);
		payload_make(&want, p->writer, p->index);
		if (h->len != ((sizeof(*h) + len + 7) & ~7U) ||
		    memcmp(p, &want, len))
			torn++;
		if (seen[(size_t)p->writer * m + p->index]++)
			dup++;
		seen_count[p->writer]++;
	}
	snprintf(name, sizeof(name), "printk_%s", drain ? "concurrent" : "full");
	report(name,
	       !torn && !dup && received + full_total == (uint64_t)writers * m &&
	       st1.lost - st0.lost == full_total &&
	       st1.logged - st0.logged == received &&
	       seq_after - seq_before - 1 == (uint64_t)writers * m &&
	       min_seq > seq_before && max_seq < seq_after &&
	       (drain || full_total > 0),
	       "cpus=%d writers=%u offered=%" PRIu64 " received=%" PRIu64
	       " enospc_seen_by_writers=%u module_lost=%" PRIu64
	       " module_logged=%" PRIu64 " torn=%u duplicated=%u seq_ids_between_tags=%" PRIu64,
	       ncpu, writers, (uint64_t)writers * m, received, full_total,
	       (uint64_t)(st1.lost - st0.lost), (uint64_t)(st1.logged - st0.logged),
	       torn, dup, seq_after - seq_before - 1);
	free(seen);
	free(seen_count);
	free(lg.data);
	hmtt_close(&d);
	return failures != 0;
}

static unsigned long read_param(const char *module, const char *name)
{
	char path[128];
	unsigned long v = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/sys/module/%s/parameters/%s", module, name);
	f = fopen(path, "r");
	if (!f || fscanf(f, "%lu", &v) != 1)
		v = ULONG_MAX;
	if (f)
		fclose(f);
	return v;
}

/*
 * kprintk MODULE COUNT IPIS: load hmtt_stress.ko, which calls hmtt_printk()
 * from a kthread on every CPU and from interrupts on every CPU at once, then
 * check every record and the loss count.
 */
static int cmd_kprintk(int argc, char **argv)
{
	const struct hmtt_rec_hdr *h;
	struct hmtt_status st0, st1;
	struct log lg = { 0 };
	struct hmtt_dev d;
	char params[64];
	uint32_t count, ipis, writers, torn = 0, dup = 0, ncpu;
	uint64_t received = 0, seq_before = 0, seq_after = 0, offered, refused;
	uint64_t from_irq = 0, min_seq = UINT64_MAX, max_seq = 0;
	uint8_t *seen;
	int e;

	if (argc != 5)
		return 2;
	count = (uint32_t)atoi(argv[3]);
	ipis = (uint32_t)atoi(argv[4]);
	ncpu = (uint32_t)sysconf(_SC_NPROCESSORS_ONLN);
	writers = 2 * ncpu;
	if (hmtt_open(&d, NULL, (size_t)-1))
		return 1;
	log_drain(&d, &lg);
	lg.len = 0;
	hmtt_tag(&d, 0, 0xb1);
	hmtt_status(&d, &st0);
	snprintf(params, sizeof(params), "count=%u ipis=%u", count, ipis);
	e = load_module(argv[2], params);
	hmtt_status(&d, &st1);
	offered = read_param("hmtt_stress", "offered");
	refused = read_param("hmtt_stress", "enospc");
	unload_module("hmtt_stress");
	log_drain(&d, &lg);
	hmtt_tag(&d, 0, 0xe1);
	log_drain(&d, &lg);

	seen = calloc((size_t)writers * (count > ipis ? count : ipis), 1);
	for_each_rec(h, &lg) {
		const struct payload *p = (const void *)(h + 1);
		struct payload want;
		uint32_t len, limit;

		if (h->type == HMTT_REC_TAG) {
			const struct hmtt_rec_tag *t = (const void *)(h + 1);

			if (t->value == 0xb1 && t->pid == getpid())
				seq_before = h->seq;
			if (t->value == 0xe1 && t->pid == getpid())
				seq_after = h->seq;
		}
		if (h->type != HMTT_REC_USER)
			continue;
		received++;
		if (h->seq < min_seq)
			min_seq = h->seq;
		if (h->seq > max_seq)
			max_seq = h->seq;
		limit = p->writer < ncpu ? count : ipis;
		if (p->writer >= writers || p->index >= limit) {
			torn++;
			continue;
		}
		if (p->writer >= ncpu)
			from_irq++;
		len = payload_len(p->writer, p->index);
		payload_make(&want, p->writer, p->index);
		if (h->len != ((sizeof(*h) + len + 7) & ~7U) || memcmp(p, &want, len) ||
		    (p->writer < ncpu && h->cpu != p->writer) ||
		    (p->writer >= ncpu && h->cpu != p->writer - ncpu))
			torn++;
		if (seen[(size_t)p->writer * (count > ipis ? count : ipis) + p->index]++)
			dup++;
	}
	report("printk_kernel_all_cpus",
	       !e && !torn && !dup && offered == (uint64_t)ncpu * (count + ipis) &&
	       received + refused == offered && st1.lost - st0.lost == refused &&
	       st1.logged - st0.logged == received && refused > 0 && from_irq > 0 &&
	       seq_after - seq_before - 1 == offered && min_seq > seq_before &&
	       max_seq < seq_after,
	       "load=%s cpus=%u offered=%" PRIu64 " received=%" PRIu64 " from_irq=%" PRIu64
	       " enospc_seen_by_writers=%" PRIu64 " module_lost=%" PRIu64 " torn=%u"
	       " duplicated=%u seq_ids_between_tags=%" PRIu64,
	       errname(e), ncpu, offered, received, from_irq, refused,
	       (uint64_t)(st1.lost - st0.lost), torn, dup, seq_after - seq_before - 1);
	free(seen);
	free(lg.data);
	hmtt_close(&d);
	return failures != 0;
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* A pointer-chasing walk over 4 MiB; returns seconds. */
static double walk_time(void)
{
	static uint32_t next[1 << 20];
	uint32_t i, p = 0;
	double t0;

	for (i = 0; i < (1u << 20); i++)
		next[i] = (i * 2654435761u + 12345u) & ((1u << 20) - 1);
	t0 = now_s();
	for (i = 0; i < (1u << 20); i++)
		p = next[p];
	if (p == 0xffffffffu)
		printf("unreachable\n");
	return now_s() - t0;
}

/* cache: module loaded with cache_control=1; CR0.CD off and on again. */
static int cmd_cache(void)
{
	struct hmtt_status a, b, c;
	struct hmtt_dev d;
	double t_on, t_off;
	int e1, e2;

	if (hmtt_open(&d, NULL, (size_t)-1))
		return 1;
	t_on = walk_time();
	e1 = hmtt_cache_disable(&d, 1);
	hmtt_status(&d, &a);
	t_off = walk_time();
	e2 = hmtt_cache_disable(&d, 0);
	hmtt_status(&d, &b);
	expect("cache_bad_value", try_ioctl(d.fd, HMTT_IOC_CACHE, &(struct hmtt_cache){ .disable = 2 }), EINVAL);
	hmtt_status(&d, &c);
	report("cache_control", !e1 && !e2 && a.cache_control && a.cache_disabled &&
	       !b.cache_disabled && !c.cache_disabled,
	       "disable=%s enable=%s disabled_after_off=%u after_on=%u walk_cached=%.4fs"
	       " walk_uncached=%.4fs ratio=%.2f",
	       errname(-e1), errname(-e2), a.cache_disabled, b.cache_disabled, t_on, t_off,
	       t_off / t_on);
	hmtt_close(&d);
	return failures != 0;
}

/*
 * Seconds for `rounds` rounds of 1000 getppid(), the log read between
 * rounds. A reader whose own syscalls are traced never finds the log empty
 * (each read() logs its own entry and exit), so it reads a bounded number
 * of times.
 */
static double time_syscalls(const struct hmtt_dev *d, int rounds)
{
	static uint8_t buf[1 << 16];
	double total = 0;
	int r, i;

	for (r = 0; r < rounds; r++) {
		double t0 = now_s();

		for (i = 0; i < 1000; i++)
			syscall(SYS_getppid);
		total += now_s() - t0;
		for (i = 0; i < 16 && hmtt_read_log(d, buf, sizeof(buf)) > 0; i++)
			;
	}
	return total;
}

/* Seconds for `rounds` rounds of faulting 512 fresh pages, drained between. */
static double time_faults(const struct hmtt_dev *d, int rounds)
{
	struct log lg = { 0 };
	double total = 0;
	int r, i;

	for (r = 0; r < rounds; r++) {
		uint8_t *p = mmap(NULL, 512 * 4096, PROT_READ | PROT_WRITE,
				  MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		double t0;

		madvise(p, 512 * 4096, MADV_NOHUGEPAGE);
		t0 = now_s();
		for (i = 0; i < 512; i++)
			p[i * 4096] = 1;
		total += now_s() - t0;
		munmap(p, 512 * 4096);
		log_drain(d, &lg);
		lg.len = 0;
	}
	free(lg.data);
	return total;
}

/*
 * overhead: the cost of the probes as ratios against a baseline measured
 * in the same run (emulated CPU: ratios only, and no assertion on time).
 */
static int cmd_overhead(void)
{
	struct hmtt_dev d;
	double sys_base, sys_filtered, sys_traced, flt_base, flt_traced;

	if (hmtt_open(&d, NULL, (size_t)-1))
		return 1;
	sys_base = time_syscalls(&d, 20);
	hmtt_set_probes(&d, HMTT_PROBE_SYSCALL);
	sys_filtered = time_syscalls(&d, 20);
	hmtt_trace_pid(&d, 0, HMTT_PID_ADD);
	sys_traced = time_syscalls(&d, 20);
	hmtt_set_probes(&d, 0);
	flt_base = time_faults(&d, 10);
	hmtt_set_probes(&d, HMTT_PROBE_PTE);
	flt_traced = time_faults(&d, 10);
	hmtt_set_probes(&d, 0);
	hmtt_trace_pid(&d, 0, HMTT_PID_CLEAR);
	printf("HMTT-BENCH syscall_ns=%.0f syscall_probe_other_pid_ratio=%.2f"
	       " syscall_probe_traced_ratio=%.2f fault_ns=%.0f fault_probe_traced_ratio=%.2f\n",
	       sys_base / 20000 * 1e9, sys_filtered / sys_base, sys_traced / sys_base,
	       flt_base / 5120 * 1e9, flt_traced / flt_base);
	hmtt_close(&d);
	return 0;
}

/* ---- syscalls and context switches -------------------------------------- */

/* probes: the syscall probe logs only traced pids; sched logs switches. */
static int cmd_probes(void)
{
	const struct hmtt_rec_hdr *h;
	struct log lg = { 0 };
	struct hmtt_dev d;
	uint64_t enter = 0, exit_ = 0, foreign = 0, sched = 0, getppid_pairs = 0;
	int i;

	if (hmtt_open(&d, NULL, (size_t)-1))
		return 1;
	log_drain(&d, &lg);
	lg.len = 0;
	hmtt_trace_pid(&d, 0, HMTT_PID_ADD);
	hmtt_set_probes(&d, HMTT_PROBE_SYSCALL | HMTT_PROBE_SCHED);
	for (i = 0; i < 50; i++)
		syscall(SYS_getppid);
	usleep(20000);
	hmtt_set_probes(&d, 0);
	hmtt_trace_pid(&d, 0, HMTT_PID_CLEAR);
	log_drain(&d, &lg);
	for_each_rec(h, &lg) {
		const struct hmtt_rec_syscall *r = (const void *)(h + 1);

		if (h->type == HMTT_REC_SCHED)
			sched++;
		if (h->type != HMTT_REC_SYSCALL)
			continue;
		if (r->tgid != getpid())
			foreign++;
		if (r->dir == HMTT_SYSCALL_ENTER)
			enter++;
		else
			exit_++;
		if (r->nr == SYS_getppid && r->dir == HMTT_SYSCALL_EXIT &&
		    r->ret == getppid())
			getppid_pairs++;
	}
	report("probe_syscall", getppid_pairs == 50 && !foreign && enter >= 50 &&
	       exit_ >= 50, "getppid_exits=%" PRIu64 " enter=%" PRIu64 " exit=%" PRIu64
	       " other_pids=%" PRIu64, getppid_pairs, enter, exit_, foreign);
	report("probe_sched", sched > 0, "switches=%" PRIu64, sched);
	free(lg.data);
	hmtt_close(&d);
	return failures != 0;
}

int main(int argc, char **argv)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc < 2)
		return 2;
	if (!strcmp(argv[1], "cycles"))
		return cmd_cycles(argc, argv);
	if (!strncmp(argv[1], "modload", 7) || !strncmp(argv[1], "load_", 5))
		return cmd_modload(argc, argv);
	if (!strcmp(argv[1], "icode"))
		return cmd_icode();
	if (!strcmp(argv[1], "errors"))
		return cmd_errors();
	if (!strcmp(argv[1], "group"))
		return cmd_group(argc, argv);
	if (!strcmp(argv[1], "pagemap"))
		return cmd_pagemap(argc, argv);
	if (!strcmp(argv[1], "overhead"))
		return cmd_overhead();
	if (!strcmp(argv[1], "thp"))
		return cmd_thp();
	if (!strcmp(argv[1], "dma"))
		return cmd_dma(argc, argv);
	if (!strcmp(argv[1], "printk"))
		return cmd_printk(argc, argv);
	if (!strcmp(argv[1], "cache"))
		return cmd_cache();
	if (!strcmp(argv[1], "kprintk"))
		return cmd_kprintk(argc, argv);
	if (!strcmp(argv[1], "probes"))
		return cmd_probes();
	fprintf(stderr, "hmtt-ktest: unknown check %s\n", argv[1]);
	return 2;
}
