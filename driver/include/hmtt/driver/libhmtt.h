/* SPDX-License-Identifier: MIT */
/*
 * libhmtt.h - C API over /dev/hmtt (hmtt.ko).
 *
 * Every function returns 0 (or a count) on success and -errno on failure;
 * errno is left as the kernel set it. See docs/kernel-tracing.md.
 */
#ifndef HMTT_DRIVER_LIBHMTT_H
#define HMTT_DRIVER_LIBHMTT_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <linux/hmtt.h>

#ifdef __cplusplus
extern "C" {
#endif

#define HMTT_DEVICE "/dev/hmtt"

/* An open /dev/hmtt and its mapping of the configuration space. */
struct hmtt_dev {
	int fd;
	volatile uint8_t *cfg;	/* NULL if not mapped */
	size_t cfg_bytes;
};

/*
 * Open path (NULL: /dev/hmtt) and map map_bytes of the configuration space
 * (0: all of it; (size_t)-1: do not map). The first mapping made also sets
 * hmtt_icode_base for HMTT_EVENT().
 */
int hmtt_open(struct hmtt_dev *d, const char *path, size_t map_bytes);
void hmtt_close(struct hmtt_dev *d);

int hmtt_status(const struct hmtt_dev *d, struct hmtt_status *st);
int hmtt_begin(const struct hmtt_dev *d);
int hmtt_end(const struct hmtt_dev *d);
int hmtt_tag(const struct hmtt_dev *d, uint32_t event, uint64_t value);
int hmtt_set_probes(const struct hmtt_dev *d, uint32_t mask);
int hmtt_trace_pid(const struct hmtt_dev *d, pid_t pid, uint32_t op);
int hmtt_log_user(const struct hmtt_dev *d, const void *data, uint32_t len);
int hmtt_cache_disable(const struct hmtt_dev *d, int disable);

/* Read whole log records into buf (at least HMTT_REC_MAX_LEN bytes). */
ssize_t hmtt_read_log(const struct hmtt_dev *d, void *buf, size_t len);

/* Probe names: "sched", "syscall", "pte", "dma". */
const char *hmtt_probe_name(uint32_t bit);
/* Parse "sched,pte" / "all" / "none" into a mask; -EINVAL names nothing. */
int hmtt_parse_probes(const char *list, uint32_t *mask);

#ifdef __cplusplus
}
#endif

#endif /* HMTT_DRIVER_LIBHMTT_H */
