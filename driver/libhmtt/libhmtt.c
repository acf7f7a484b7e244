// SPDX-License-Identifier: MIT
/*
 * libhmtt.c - the C API over /dev/hmtt. Thin: one ioctl or mmap per call.
 */
#include "hmtt/driver/libhmtt.h"
#include "hmtt/driver/icode.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>

volatile const uint8_t *hmtt_icode_base;

static int ioctl_ret(int fd, unsigned long cmd, void *arg)
{
	return ioctl(fd, cmd, arg) < 0 ? -errno : 0;
}

int hmtt_open(struct hmtt_dev *d, const char *path, size_t map_bytes)
{
	struct hmtt_status st;
	void *p;
	int ret;

	memset(d, 0, sizeof(*d));
	d->fd = open(path ? path : HMTT_DEVICE, O_RDWR | O_CLOEXEC);
	if (d->fd < 0)
		return -errno;
	if (map_bytes == (size_t)-1)
		return 0;
	ret = hmtt_status(d, &st);
	if (ret)
		goto close_fd;
	if (!map_bytes)
		map_bytes = (size_t)st.size;
	p = mmap(NULL, map_bytes, PROT_READ | PROT_WRITE, MAP_SHARED, d->fd, 0);
	if (p == MAP_FAILED) {
		ret = -errno;
		goto close_fd;
	}
	d->cfg = p;
	d->cfg_bytes = map_bytes;
	if (!hmtt_icode_base)
		hmtt_icode_base = d->cfg;
	return 0;

close_fd:
	close(d->fd);
	d->fd = -1;
	return ret;
}

void hmtt_close(struct hmtt_dev *d)
{
	if (d->cfg) {
		if (hmtt_icode_base == d->cfg)
			hmtt_icode_base = NULL;
		munmap((void *)(uintptr_t)d->cfg, d->cfg_bytes);
	}
	if (d->fd >= 0)
		close(d->fd);
	d->cfg = NULL;
	d->fd = -1;
}

int hmtt_status(const struct hmtt_dev *d, struct hmtt_status *st)
{
	return ioctl_ret(d->fd, HMTT_IOC_STATUS, st);
}

int hmtt_begin(const struct hmtt_dev *d)
{
	return ioctl_ret(d->fd, HMTT_IOC_BEGIN, NULL);
}

int hmtt_end(const struct hmtt_dev *d)
{
	return ioctl_ret(d->fd, HMTT_IOC_END, NULL);
}

int hmtt_tag(const struct hmtt_dev *d, uint32_t event, uint64_t value)
{
	struct hmtt_tag t = { .value = value, .event = event };

	return ioctl_ret(d->fd, HMTT_IOC_TAG, &t);
}

int hmtt_set_probes(const struct hmtt_dev *d, uint32_t mask)
{
	struct hmtt_probes p = { .mask = mask };

	return ioctl_ret(d->fd, HMTT_IOC_SET_PROBES, &p);
}

int hmtt_trace_pid(const struct hmtt_dev *d, pid_t pid, uint32_t op)
{
	struct hmtt_pid p = { .pid = pid, .op = op };

	return ioctl_ret(d->fd, HMTT_IOC_PID, &p);
}

int hmtt_log_user(const struct hmtt_dev *d, const void *data, uint32_t len)
{
	struct hmtt_printk_arg a = { .data = (uint64_t)(uintptr_t)data, .len = len };

	return ioctl_ret(d->fd, HMTT_IOC_PRINTK, &a);
}

int hmtt_cache_disable(const struct hmtt_dev *d, int disable)
{
	struct hmtt_cache c = { .disable = disable ? 1 : 0 };

	return ioctl_ret(d->fd, HMTT_IOC_CACHE, &c);
}

ssize_t hmtt_read_log(const struct hmtt_dev *d, void *buf, size_t len)
{
	ssize_t n = read(d->fd, buf, len);

	return n < 0 ? -errno : n;
}

static const char *const probe_names[] = { "sched", "syscall", "pte", "dma" };

const char *hmtt_probe_name(uint32_t bit)
{
	unsigned int i;

	for (i = 0; i < sizeof(probe_names) / sizeof(probe_names[0]); i++)
		if (bit == 1U << i)
			return probe_names[i];
	return "?";
}

int hmtt_parse_probes(const char *list, uint32_t *mask)
{
	char buf[128], *tok, *save = NULL;
	unsigned int i;

	*mask = 0;
	if (strlen(list) >= sizeof(buf))
		return -EINVAL;
	if (!strcmp(list, "all")) {
		*mask = HMTT_PROBE_ALL;
		return 0;
	}
	if (!strcmp(list, "none"))
		return 0;
	strcpy(buf, list);
	for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		for (i = 0; i < sizeof(probe_names) / sizeof(probe_names[0]); i++)
			if (!strcmp(tok, probe_names[i]))
				break;
		if (i == sizeof(probe_names) / sizeof(probe_names[0]))
			return -EINVAL;
		*mask |= 1U << i;
	}
	return 0;
}
