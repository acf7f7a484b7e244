// SPDX-License-Identifier: MIT
/*
 * cfgspy.c - a QEMU TCG plugin that stands in for the HMTT board's config
 * unit: it watches guest-physical loads and stores to the configuration
 * space and writes one line per access, "<offset> <r|w>" (decimal), to a file.
 * The kernel tier checks that I-Codes (HMTT_EVENT, BEGIN/END, tags) and the
 * module's per-record sync references really reach the physical region.
 *
 *   -plugin ./libcfgspy.so,base=0x1e000000,size=0x800000,out=FILE
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

static uint64_t cfg_base, cfg_size;
static FILE *out;
static pthread_mutex_t out_lock = PTHREAD_MUTEX_INITIALIZER;

static void on_mem(unsigned int vcpu, qemu_plugin_meminfo_t info, uint64_t vaddr, void *udata)
{
	struct qemu_plugin_hwaddr *hw = qemu_plugin_get_hwaddr(info, vaddr);
	uint64_t pa;

	if (!hw)
		return;
	pa = qemu_plugin_hwaddr_phys_addr(hw);
	if (pa - cfg_base >= cfg_size)
		return;
	pthread_mutex_lock(&out_lock);
	fprintf(out, "%" PRIu64 " %c\n", pa - cfg_base, qemu_plugin_mem_is_store(info) ? 'w' : 'r');
	pthread_mutex_unlock(&out_lock);
}

/*
 * The x86-64 kernel image lives in [0xffffffff80000000, 0xffffffffc0000000)
 * (KASLR moves it inside that window); modules are mapped above it. Only
 * user programs and hmtt.ko touch the configuration space, so the kernel
 * image's code is not instrumented: that keeps the guest about as fast as
 * without the plugin.
 */
#define KERNEL_TEXT_START 0xffffffff80000000ULL
#define MODULES_START 0xffffffffc0000000ULL

static void on_tb(qemu_plugin_id_t id, struct qemu_plugin_tb *tb)
{
	size_t i, n = qemu_plugin_tb_n_insns(tb);
	uint64_t pc = qemu_plugin_tb_vaddr(tb);

	if (pc >= KERNEL_TEXT_START && pc < MODULES_START)
		return;

	for (i = 0; i < n; i++)
		qemu_plugin_register_vcpu_mem_cb(qemu_plugin_tb_get_insn(tb, i), on_mem,
						 QEMU_PLUGIN_CB_NO_REGS, QEMU_PLUGIN_MEM_RW, NULL);
}

static void on_exit_cb(qemu_plugin_id_t id, void *udata)
{
	fflush(out);
}

__attribute__((visibility("default")))
int qemu_plugin_install(qemu_plugin_id_t id, const qemu_info_t *info, int argc, char **argv)
{
	const char *path = NULL;
	int i;

	for (i = 0; i < argc; i++) {
		if (!strncmp(argv[i], "base=", 5))
			cfg_base = strtoull(argv[i] + 5, NULL, 0);
		else if (!strncmp(argv[i], "size=", 5))
			cfg_size = strtoull(argv[i] + 5, NULL, 0);
		else if (!strncmp(argv[i], "out=", 4))
			path = argv[i] + 4;
	}
	if (!cfg_size || !path)
		return -1;
	out = fopen(path, "w");
	if (!out)
		return -1;
	setvbuf(out, NULL, _IOFBF, 1 << 20);
	qemu_plugin_register_vcpu_tb_trans_cb(id, on_tb);
	qemu_plugin_register_atexit_cb(id, on_exit_cb, NULL);
	return 0;
}
