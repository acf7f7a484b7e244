// SPDX-License-Identifier: MIT
/*
 * hmtt_vbench.c - the virtual bench's guest workloads (static, run from the
 * guest's /init). Each workload allocates its data, touches every page (so
 * the kernel module's page-map probe logs each mapping), pushes the data out
 * of the caches by streaming over a flush buffer, then brackets its measured
 * part with BEGIN/END TRACING (ioctls: the module loads the config space and
 * logs a record) and a user I-Code event (one uncached load) at its start.
 *
 *   hmtt-vbench seq-read BYTES | seq-write BYTES | read-after-write BYTES |
 *               random-read BYTES COUNT | quicksort N | matmul N | filecopy BYTES
 *
 * filecopy copies BYTES of the virtio disk /dev/vda to the second one, /dev/vdb
 * (through the page cache: the disks reach memory by DMA, /dev/vda writing it,
 * /dev/vdb reading it when fsync writes the copy back), as the paper's file copy.
 *
 * It prints one line the host reads back:
 *   HMTT-VBENCH-REGION workload=W pid=P vaddr=0xV bytes=B count=N flush_bytes=F
 * (count: lines read by random-read, elements of quicksort, matrix order)
 * and, after END, HMTT-VBENCH-DONE workload=W check=C.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "hmtt/driver/icode.h"
#include "hmtt/driver/libhmtt.h"

#define LINE 64
#define FLUSH_BYTES (4u << 20)	/* 8 x the default 512 KiB LLC model */
#define EVENT_WORKLOAD 1	/* user event: the measured part starts */

static struct hmtt_dev dev;

static void die(const char *what, int err)
{
	fprintf(stderr, "hmtt-vbench: %s: %s\n", what, strerror(err));
	exit(1);
}

static void *region(size_t bytes)
{
	void *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED)
		die("mmap", errno);
	return p;
}

/* Streams over a buffer larger than the LLC so the workload starts cold. */
static void flush_caches(void)
{
	static volatile uint8_t *f;
	size_t i;

	if (!f)
		f = region(FLUSH_BYTES);
	for (i = 0; i < FLUSH_BYTES; i += LINE)
		f[i]++;
}

static uint64_t lcg(uint64_t *s)
{
	*s = *s * 6364136223846793005ULL + 1442695040888963407ULL;
	return *s >> 33;
}

static void begin(const char *name, void *p, size_t bytes, size_t count)
{
	int ret;

	printf("HMTT-VBENCH-REGION workload=%s pid=%d vaddr=%p bytes=%zu count=%zu flush_bytes=%u\n", name,
	       (int)getpid(), p, bytes, count, FLUSH_BYTES);
	fflush(stdout);
	flush_caches();
	ret = hmtt_begin(&dev);
	if (ret)
		die("hmtt_begin", -ret);
	HMTT_EVENT(EVENT_WORKLOAD);
}

static void end(const char *name, uint64_t check)
{
	int ret = hmtt_end(&dev);

	if (ret)
		die("hmtt_end", -ret);
	printf("HMTT-VBENCH-DONE workload=%s check=%llu\n", name, (unsigned long long)check);
	fflush(stdout);
}

static void quicksort(uint32_t *a, long lo, long hi)
{
	while (lo < hi) {
		uint32_t pivot = a[lo + (hi - lo) / 2], t;
		long i = lo, j = hi;

		while (i <= j) {
			while (a[i] < pivot)
				i++;
			while (a[j] > pivot)
				j--;
			if (i <= j) {
				t = a[i];
				a[i] = a[j];
				a[j] = t;
				i++;
				j--;
			}
		}
		/* recurse into the smaller part, loop on the larger */
		if (j - lo < hi - i) {
			quicksort(a, lo, j);
			lo = i;
		} else {
			quicksort(a, i, hi);
			hi = j;
		}
	}
}

int main(int argc, char **argv)
{
	const char *w = argc > 1 ? argv[1] : "";
	size_t bytes = argc > 2 ? strtoull(argv[2], NULL, 0) : 0;
	uint64_t check = 0, seed = 1;
	size_t i;
	int ret;

	if (argc < 3) {
		fprintf(stderr, "usage: hmtt-vbench seq-read|seq-write|read-after-write BYTES | "
				"random-read BYTES COUNT | quicksort N | matmul N\n");
		return 2;
	}
	ret = hmtt_open(&dev, NULL, 0);
	if (ret)
		die("/dev/hmtt", -ret);

	if (!strcmp(w, "seq-read") || !strcmp(w, "seq-write") || !strcmp(w, "read-after-write") ||
	    !strcmp(w, "random-read")) {
		volatile uint8_t *b = region(bytes);
		size_t count = argc > 3 ? strtoull(argv[3], NULL, 0) : bytes / LINE;

		for (i = 0; i < bytes; i += 4096)
			b[i] = 1;
		begin(w, (void *)b, bytes, count);
		if (!strcmp(w, "seq-read")) {
			for (i = 0; i < bytes; i += LINE)
				check += b[i];
		} else if (!strcmp(w, "seq-write")) {
			for (i = 0; i < bytes; i += LINE)
				b[i] = 2;
		} else if (!strcmp(w, "read-after-write")) {
			for (i = 0; i < bytes; i += LINE)
				b[i] = 3;
			for (i = 0; i < bytes; i += LINE)
				check += b[i];
		} else {
			for (i = 0; i < count; i++)
				check += b[(lcg(&seed) % (bytes / LINE)) * LINE];
		}
		end(w, check);
	} else if (!strcmp(w, "quicksort")) {
		size_t n = bytes;
		uint32_t *a = region(n * sizeof(*a));

		for (i = 0; i < n; i++)
			a[i] = (uint32_t)lcg(&seed);
		begin(w, a, n * sizeof(*a), n);
		quicksort(a, 0, (long)n - 1);
		for (i = 1; i < n; i++)
			check += a[i - 1] > a[i];	/* 0 when sorted */
		end(w, check);
	} else if (!strcmp(w, "matmul")) {
		size_t n = bytes, j, k;
		double *a = region(3 * n * n * sizeof(double)), *b = a + n * n, *c = b + n * n;

		for (i = 0; i < 3 * n * n; i++)
			a[i] = (double)(i % 7);
		begin(w, a, 3 * n * n * sizeof(double), n);
		for (i = 0; i < n; i++)
			for (j = 0; j < n; j++) {
				double s = 0;

				for (k = 0; k < n; k++)
					s += a[i * n + k] * b[k * n + j];
				c[i * n + j] = s;
			}
		for (i = 0; i < n * n; i++)
			check += (uint64_t)c[i];
		end(w, check);
	} else if (!strcmp(w, "filecopy")) {
		size_t chunk = 64 * 1024, done = 0;
		uint8_t *buf = region(chunk);
		int in = open("/dev/vda", O_RDONLY), out = open("/dev/vdb", O_WRONLY);

		if (out < 0)	/* no second disk: copy into tmpfs (no write-back DMA) */
			out = open("/tmp/copy", O_WRONLY | O_CREAT | O_TRUNC, 0600);
		if (in < 0 || out < 0)
			die("open /dev/vda, or /dev/vdb or /tmp/copy", errno);
		memset(buf, 0, chunk);
		begin(w, buf, chunk, bytes);
		while (done < bytes) {
			ssize_t n = read(in, buf, chunk < bytes - done ? chunk : bytes - done);

			if (n <= 0)
				die("read /dev/vda", n < 0 ? errno : EIO);
			if (write(out, buf, (size_t)n) != n)
				die("write /tmp/copy", errno);
			check += buf[0];
			done += (size_t)n;
		}
		if (fsync(out))	/* the copy reaches the disk inside the window */
			die("fsync", errno);
		end(w, done);
		close(in);
		close(out);
	} else {
		fprintf(stderr, "hmtt-vbench: unknown workload '%s'\n", w);
		return 2;
	}
	hmtt_close(&dev);
	return 0;
}
