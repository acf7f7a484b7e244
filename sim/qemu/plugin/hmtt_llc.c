// SPDX-License-Identifier: MIT
/*
 * hmtt_llc.c - the virtual bench's memory-side view of a QEMU guest: a TCG
 * plugin (system mode) that sees every guest load and store with its
 * physical address, filters them through a last-level-cache model, and writes
 * what a DIMM would see - line fills on misses and write-backs of dirty lines
 * - as an hmtt CSV trace (docs/trace-formats.md) for `hmtt sim --replay`.
 *
 *   -plugin ./libhmtt_llc.so,base=0x3f800000,size=0x800000,ram=0x40000000,
 *           out=FILE.csv,summary=FILE.json[,llc=524288][,ways=16][,line=64][,cache=on|off]
 *
 * The model: one shared, physically indexed, set-associative LRU cache,
 * write-back and write-allocate (a store miss reads the line, then dirties
 * it). cache=off passes every access through, as with CR0.CD set in the
 * HMTT paper (address and size as issued). The configuration space
 * [base, base + size) is uncached: every access there goes out as it is.
 * Accesses outside [0, ram) (ROMs, MMIO) and I/O accesses are not DRAM
 * traffic and are only counted.
 *
 * The window: the cache runs from the first instruction, but lines are
 * written out only between a load of BEGIN TRACING (config offset 0x000)
 * and a load of END TRACING (offset 0x040), as the board gates references.
 * Config-space accesses are written out always: the board turns them into
 * events (the kernel module's sync tags), traced or not.
 *
 * CSV fields: time = guest memory accesses since the first line written
 * (hits included, so gaps show how busy the cache was), address (the line,
 * or the config-space address), read/write, size, origin cpu, source =
 * 2 x vCPU + 1 for user mode (virtual address below 2^47), + 0 for kernel;
 * a write-back carries the mode of the store that last dirtied its line.
 *
 * QEMU 7.2 (Debian 12) ships no qemu-plugin.h: sim/qemu/plugin/qemu_plugin_v1.h
 * declares the stable plugin ABI of that version (QEMU_PLUGIN_VERSION 1).
 */
#include <inttypes.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <pthread.h>

#include "qemu_plugin_v1.h"

__attribute__((visibility("default"))) int qemu_plugin_version = 1;

#define USER_TOP 0x0000800000000000ULL
#define CFG_BEGIN 0x000
#define CFG_END 0x040

struct way {
	uint64_t tag;	/* line number + 1; 0 = invalid */
	bool dirty;
	bool user;	/* last dirtied by a user-mode store */
};

static struct {
	/* configuration */
	uint64_t cfg_base, cfg_size, ram, llc_bytes;
	unsigned ways, line_shift, sets;
	bool cached;
	/* state */
	struct way *cache;	/* sets x ways, MRU first in each set */
	bool window;
	bool started;
	uint64_t accesses, t0;
	/* counters (inside the window unless noted) */
	uint64_t all_accesses, io_accesses, outside_ram;	/* whole run */
	uint64_t win_accesses, win_user_accesses, hits, misses, writebacks;
	uint64_t cfg_accesses, begins, ends;
	uint64_t written, written_user;
	FILE *out;
	const char *summary;
	pthread_mutex_t lock;
} g = { .lock = PTHREAD_MUTEX_INITIALIZER };

static void emit(uint64_t addr, bool write, unsigned size, unsigned source)
{
	if (!g.started) {
		g.started = true;
		g.t0 = g.accesses;
	}
	fprintf(g.out, "%" PRIu64 ",0x%" PRIx64 ",%s,%u,cpu,%u\n", g.accesses - g.t0, addr,
		write ? "write" : "read", size, source);
	g.written++;
	if (source & 1)
		g.written_user++;
}

/* One cached access to line `ln`; returns after emitting fills/write-backs. */
static void llc_access(uint64_t ln, bool store, unsigned source)
{
	struct way *set = g.cache + (ln % g.sets) * g.ways;
	struct way hit;
	unsigned i, w = g.ways;

	for (i = 0; i < g.ways; i++) {
		if (set[i].tag == ln + 1) {
			w = i;
			break;
		}
	}
	if (w < g.ways) {
		hit = set[w];
		if (g.window)
			g.hits++;
	} else {
		/* miss: the LRU way leaves (written back if dirty), the line is read */
		struct way *victim = &set[g.ways - 1];

		w = g.ways - 1;
		if (victim->tag && victim->dirty && g.window) {
			g.writebacks++;
			emit((victim->tag - 1) << g.line_shift, true, 1u << g.line_shift,
			     (source & ~1u) | (victim->user ? 1u : 0u));
		}
		if (g.window) {
			g.misses++;
			emit(ln << g.line_shift, false, 1u << g.line_shift, source);
		}
		hit.tag = ln + 1;
		hit.dirty = false;
		hit.user = false;
	}
	if (store) {
		hit.dirty = true;
		hit.user = source & 1;
	}
	memmove(set + 1, set, w * sizeof(*set));
	set[0] = hit;
}

static void on_mem(unsigned int vcpu, qemu_plugin_meminfo_t info, uint64_t vaddr, void *udata)
{
	struct qemu_plugin_hwaddr *hw = qemu_plugin_get_hwaddr(info, vaddr);
	bool store = qemu_plugin_mem_is_store(info);
	unsigned size = 1u << qemu_plugin_mem_size_shift(info);
	unsigned source = 2 * vcpu + (vaddr < USER_TOP ? 1 : 0);
	uint64_t pa, first, last;

	if (!hw)
		return;
	pthread_mutex_lock(&g.lock);
	g.accesses++;
	g.all_accesses++;
	if (qemu_plugin_hwaddr_is_io(hw)) {
		g.io_accesses++;
		goto out;
	}
	pa = qemu_plugin_hwaddr_phys_addr(hw);
	if (pa - g.cfg_base < g.cfg_size) {
		/* uncached: the board sees every config-space access */
		uint64_t off = pa - g.cfg_base;

		g.cfg_accesses++;
		if (!store && off == CFG_BEGIN) {
			g.window = true;
			g.begins++;
		}
		emit(pa, store, size, source);
		if (!store && off == CFG_END) {
			g.window = false;
			g.ends++;
		}
		goto out;
	}
	if (pa >= g.ram) {
		g.outside_ram++;
		goto out;
	}
	if (g.window) {
		g.win_accesses++;
		if (source & 1)
			g.win_user_accesses++;
	}
	if (!g.cached) {
		if (g.window)
			emit(pa, store, size, source);
		goto out;
	}
	first = pa >> g.line_shift;
	last = (pa + size - 1) >> g.line_shift;
	llc_access(first, store, source);
	if (last != first)
		llc_access(last, store, source);
out:
	pthread_mutex_unlock(&g.lock);
}

static void on_tb(qemu_plugin_id_t id, struct qemu_plugin_tb *tb)
{
	size_t i, n = qemu_plugin_tb_n_insns(tb);

	for (i = 0; i < n; i++)
		qemu_plugin_register_vcpu_mem_cb(qemu_plugin_tb_get_insn(tb, i), on_mem,
						 QEMU_PLUGIN_CB_NO_REGS, QEMU_PLUGIN_MEM_RW, NULL);
}

static void on_exit_cb(qemu_plugin_id_t id, void *udata)
{
	FILE *s;

	pthread_mutex_lock(&g.lock);
	fflush(g.out);
	s = fopen(g.summary, "w");
	if (s) {
		fprintf(s,
			"{\"base\": %" PRIu64 ", \"size\": %" PRIu64 ", \"ram\": %" PRIu64 ", "
			"\"llc_bytes\": %" PRIu64 ", \"ways\": %u, \"line\": %u, \"cache\": \"%s\", "
			"\"accesses\": %" PRIu64 ", \"io_accesses\": %" PRIu64 ", \"outside_ram\": %" PRIu64 ", "
			"\"window_accesses\": %" PRIu64 ", \"window_user_accesses\": %" PRIu64 ", "
			"\"hits\": %" PRIu64 ", \"misses\": %" PRIu64 ", \"writebacks\": %" PRIu64 ", "
			"\"config_accesses\": %" PRIu64 ", \"begins\": %" PRIu64 ", \"ends\": %" PRIu64 ", "
			"\"written\": %" PRIu64 ", \"written_user\": %" PRIu64 "}\n",
			g.cfg_base, g.cfg_size, g.ram, g.llc_bytes, g.ways, 1u << g.line_shift, g.cached ? "on" : "off", g.all_accesses,
			g.io_accesses, g.outside_ram, g.win_accesses, g.win_user_accesses, g.hits, g.misses,
			g.writebacks, g.cfg_accesses, g.begins, g.ends, g.written, g.written_user);
		fclose(s);
	}
	pthread_mutex_unlock(&g.lock);
}

static int fail(const char *why)
{
	fprintf(stderr, "hmtt_llc: %s\n", why);
	return -1;
}

__attribute__((visibility("default")))
int qemu_plugin_install(qemu_plugin_id_t id, const qemu_info_t *info, int argc, char **argv)
{
	const char *path = NULL;
	uint64_t line = 64;
	int i;

	g.llc_bytes = 512 * 1024;
	g.ways = 16;
	g.cached = true;
	for (i = 0; i < argc; i++) {
		const char *a = argv[i];

		if (!strncmp(a, "base=", 5))
			g.cfg_base = strtoull(a + 5, NULL, 0);
		else if (!strncmp(a, "size=", 5))
			g.cfg_size = strtoull(a + 5, NULL, 0);
		else if (!strncmp(a, "ram=", 4))
			g.ram = strtoull(a + 4, NULL, 0);
		else if (!strncmp(a, "out=", 4))
			path = a + 4;
		else if (!strncmp(a, "summary=", 8))
			g.summary = a + 8;
		else if (!strncmp(a, "llc=", 4))
			g.llc_bytes = strtoull(a + 4, NULL, 0);
		else if (!strncmp(a, "ways=", 5))
			g.ways = (unsigned)strtoul(a + 5, NULL, 0);
		else if (!strncmp(a, "line=", 5))
			line = strtoull(a + 5, NULL, 0);
		else if (!strcmp(a, "cache=on"))
			g.cached = true;
		else if (!strcmp(a, "cache=off"))
			g.cached = false;
		else
			return fail("unknown argument (base= size= ram= out= summary= llc= ways= line= cache=on|off)");
	}
	if (!g.cfg_size || !g.ram || !path || !g.summary)
		return fail("base=, size=, ram=, out= and summary= are required");
	if (line < 8 || (line & (line - 1)))
		return fail("line must be a power of two >= 8");
	g.line_shift = (unsigned)__builtin_ctzll(line);
	if (!g.ways || g.llc_bytes % (line * g.ways))
		return fail("llc must be a multiple of line x ways");
	g.sets = (unsigned)(g.llc_bytes / (line * g.ways));
	g.cache = calloc((size_t)g.sets * g.ways, sizeof(*g.cache));
	if (!g.cache)
		return fail("out of memory");
	g.out = fopen(path, "w");
	if (!g.out)
		return fail("cannot open out=");
	setvbuf(g.out, NULL, _IOFBF, 1 << 20);
	fputs("time,address,kind,size,origin,source\n", g.out);
	qemu_plugin_register_vcpu_tb_trans_cb(id, on_tb);
	qemu_plugin_register_atexit_cb(id, on_exit_cb, NULL);
	return 0;
}
