/* SPDX-License-Identifier: MIT */
/*
 * icode.h - I-Codes: one uncached load from the HMTT configuration space.
 *
 * Phase 1 (once): map /dev/hmtt with hmtt_open() (libhmtt.h), which sets
 * hmtt_icode_base. Phase 2 (anywhere): HMTT_EVENT(k) is exactly one
 * volatile 32-bit load from user event k (offset 0x1000 + 0x40 * k); the
 * HMTT board records it as an EVENT with config-space index 64 + k
 * (docs/wire-format.md section 3.2). Programs own events
 * 0 .. HMTT_APP_EVENTS-1; the kernel module uses the ones above.
 *
 * C and C++; no function call, no branch, no store.
 */
#ifndef HMTT_DRIVER_ICODE_H
#define HMTT_DRIVER_ICODE_H

#include <stdint.h>
#include <linux/hmtt.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Base of the mapped configuration space; set by hmtt_open(). */
extern volatile const uint8_t *hmtt_icode_base;

#ifdef __cplusplus
}
#endif

/* One load at byte offset off of the configuration space mapped at base. */
#define HMTT_ICODE_AT(base, off) \
	((void)*(volatile const uint32_t *)(const volatile void *)((base) + (off)))

/* User event k of the configuration space mapped at base. */
#define HMTT_EVENT_AT(base, k) \
	HMTT_ICODE_AT(base, HMTT_CFG_USER + (uint64_t)HMTT_CFG_STRIDE * (uint64_t)(k))

/* The paper's "ch = ptr[EVENT_OFFSET]", on the mapping hmtt_open() made. */
#define HMTT_EVENT(k) HMTT_EVENT_AT(hmtt_icode_base, k)
#define HMTT_BEGIN() HMTT_ICODE_AT(hmtt_icode_base, HMTT_CFG_BEGIN)
#define HMTT_END() HMTT_ICODE_AT(hmtt_icode_base, HMTT_CFG_END)
#define HMTT_SYNC() HMTT_ICODE_AT(hmtt_icode_base, HMTT_CFG_SYNC)

#endif /* HMTT_DRIVER_ICODE_H */
