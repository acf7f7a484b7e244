/* SPDX-License-Identifier: GPL-2.0 */
/*
 * hmtt.h - what hmtt.ko exports to other kernel code.
 *
 * Build a module against it with ccflags-y += -I<hmtt>/kernel-module/include
 * and KBUILD_EXTRA_SYMBOLS=<hmtt build>/Module.symvers.
 */
#ifndef _LINUX_HMTT_H
#define _LINUX_HMTT_H

#include <linux/types.h>
#include <uapi/linux/hmtt.h>

int hmtt_printk(const void *data, size_t len);

#endif /* _LINUX_HMTT_H */
