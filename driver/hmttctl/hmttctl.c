// SPDX-License-Identifier: MIT
/*
 * hmttctl - configuration-space commands and module control from a shell.
 *
 *   hmttctl [--device PATH] [--json] COMMAND [ARGS]
 *
 * Exit status: 0 success, 1 the module refused (message names the errno),
 * 2 usage error.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "hmtt/driver/icode.h"
#include "hmtt/driver/libhmtt.h"

static const char usage[] =
	"usage: hmttctl [--device PATH] [--json] COMMAND [ARGS]\n"
	"\n"
	"Control the HMTT kernel module (hmtt.ko) through /dev/hmtt.\n"
	"\n"
	"commands:\n"
	"  status              region, log counters, probes (--json for a JSON object)\n"
	"  begin               BEGIN TRACING (config offset 0x000) and a log record\n"
	"  end                 END TRACING (config offset 0x040) and a log record\n"
	"  tag EVENT [VALUE]   user event EVENT (0..4095, offset 0x1000+0x40*EVENT)\n"
	"                      and a log record carrying VALUE\n"
	"  event EVENT         one I-Code load from user space, no log record\n"
	"  probes LIST         enable exactly LIST: sched,syscall,pte,dma | all | none\n"
	"  trace PID           add a thread group to the traced set (syscall, pte)\n"
	"  untrace PID         remove it; 'untrace all' clears the set\n"
	"  cache on|off        CR0.CD: off disables the caches (needs cache_control=1)\n"
	"  logs [--raw]        drain the log: one line per record, or raw bytes to stdout\n"
	"\n"
	"options:\n"
	"  --device PATH       default /dev/hmtt\n"
	"  --json              machine-readable status\n"
	"  -h, --help          this text\n";

static int fail(const char *what, int err)
{
	fprintf(stderr, "hmttctl: %s: %s\n", what, strerror(-err));
	return 1;
}

static int parse_u64(const char *s, uint64_t *v)
{
	char *end;

	errno = 0;
	*v = strtoull(s, &end, 0);
	return errno || !*s || *end ? -EINVAL : 0;
}

static void print_probes(uint32_t mask)
{
	uint32_t bit;
	int first = 1;

	for (bit = 1; bit & HMTT_PROBE_ALL; bit <<= 1) {
		if (!(mask & bit))
			continue;
		printf("%s%s", first ? "" : ",", hmtt_probe_name(bit));
		first = 0;
	}
	if (first)
		printf("none");
}

static int cmd_status(const struct hmtt_dev *d, int json)
{
	struct hmtt_status st;
	int ret = hmtt_status(d, &st);

	if (ret)
		return fail("status", ret);
	if (json) {
		printf("{\"base\": %" PRIu64 ", \"size\": %" PRIu64 ", \"logged\": %" PRIu64
		       ", \"lost\": %" PRIu64 ", \"probe_missed\": %" PRIu64
		       ", \"pending_bytes\": %" PRIu64 ", \"probes\": \"",
		       (uint64_t)st.base, (uint64_t)st.size, (uint64_t)st.logged,
		       (uint64_t)st.lost, (uint64_t)st.probe_missed, (uint64_t)st.pending);
		print_probes(st.probes);
		printf("\", \"tracing\": %s, \"nsync\": %u, \"cpus\": %u, \"buffer_bytes\": %u"
		       ", \"traced_pids\": %u, \"cache_control\": %s, \"cache_disabled\": %s}\n",
		       st.tracing ? "true" : "false", st.nsync, st.ncpus, st.buf_bytes,
		       st.npids, st.cache_control ? "true" : "false",
		       st.cache_disabled ? "true" : "false");
		return 0;
	}
	printf("config space  0x%" PRIx64 "-0x%" PRIx64 " (%" PRIu64 " KiB), %u sync ids\n",
	       (uint64_t)st.base, (uint64_t)(st.base + st.size - 1),
	       (uint64_t)(st.size / 1024), st.nsync);
	printf("tracing       %s\n", st.tracing ? "on" : "off");
	printf("probes        ");
	print_probes(st.probes);
	printf(" (%u traced pids)\n", st.npids);
	printf("log           %" PRIu64 " logged, %" PRIu64 " lost, %" PRIu64
	       " bytes pending, %u CPUs x %u KiB\n", (uint64_t)st.logged,
	       (uint64_t)st.lost, (uint64_t)st.pending, st.ncpus, st.buf_bytes / 1024);
	printf("probe misses  %" PRIu64 "\n", (uint64_t)st.probe_missed);
	printf("cache control %s%s\n", st.cache_control ? "allowed" : "not allowed",
	       st.cache_disabled ? ", caches DISABLED" : "");
	return 0;
}

static void print_record(const struct hmtt_rec_hdr *h)
{
	const void *p = h + 1;

	printf("seq=%" PRIu64 " cpu=%u t=%" PRIu64 " ", (uint64_t)h->seq, h->cpu,
	       (uint64_t)h->time_ns);
	switch (h->type) {
	case HMTT_REC_USER:
		printf("user len=%zu\n", h->len - sizeof(*h));
		break;
	case HMTT_REC_TAG: {
		const struct hmtt_rec_tag *t = p;

		printf("tag kind=%s event=%u value=0x%" PRIx64 " pid=%d\n",
		       t->kind == HMTT_TAG_BEGIN ? "begin" :
		       t->kind == HMTT_TAG_END ? "end" : "user",
		       t->event, (uint64_t)t->value, t->pid);
		break;
	}
	case HMTT_REC_SCHED: {
		const struct hmtt_rec_sched *s = p;

		printf("sched prev=%d next=%d state=0x%x\n", s->prev_pid, s->next_pid,
		       s->prev_state);
		break;
	}
	case HMTT_REC_SYSCALL: {
		const struct hmtt_rec_syscall *s = p;

		if (s->dir == HMTT_SYSCALL_ENTER)
			printf("syscall pid=%d enter nr=%" PRId64 " args=0x%" PRIx64 ",0x%" PRIx64
			       ",0x%" PRIx64 "\n", s->pid, (int64_t)s->nr,
			       (uint64_t)s->args[0], (uint64_t)s->args[1], (uint64_t)s->args[2]);
		else
			printf("syscall pid=%d exit nr=%" PRId64 " ret=%" PRId64 "\n",
			       s->pid, (int64_t)s->nr, (int64_t)s->ret);
		break;
	}
	case HMTT_REC_PTE: {
		const struct hmtt_rec_pte *r = p;

		printf("pte %s pid=%d vpage=0x%" PRIx64 " ppage=0x%" PRIx64 " pte=0x%" PRIx64 "\n",
		       r->op == HMTT_PTE_MAP ? "map" : r->op == HMTT_PTE_UNMAP ? "unmap" : "migrate",
		       r->pid, (uint64_t)r->vpage, (uint64_t)r->ppage,
		       (uint64_t)r->pte_addr);
		break;
	}
	case HMTT_REC_DMA: {
		const struct hmtt_rec_dma *r = p;

		printf("dma %s dev=%s phys=0x%" PRIx64 " size=%" PRIu64 " dir=%u\n",
		       r->op == HMTT_DMA_MAP ? "map" : "unmap", r->dev,
		       (uint64_t)r->phys, (uint64_t)r->size, r->dir);
		break;
	}
	default:
		printf("type=%u len=%u\n", h->type, h->len);
	}
}

static int by_seq(const void *a, const void *b)
{
	const struct hmtt_rec_hdr *x = *(const struct hmtt_rec_hdr *const *)a;
	const struct hmtt_rec_hdr *y = *(const struct hmtt_rec_hdr *const *)b;

	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/*
 * The module hands out records CPU by CPU; text output is sorted by
 * sequence id (the order the records were logged), raw output is as read.
 */
static int cmd_logs(const struct hmtt_dev *d, int raw)
{
	static uint8_t buf[1 << 16];
	const struct hmtt_rec_hdr **recs = NULL;
	uint8_t *all = NULL;
	size_t len = 0, n_recs = 0, off, i;
	ssize_t n;

	while ((n = hmtt_read_log(d, buf, sizeof(buf))) > 0) {
		uint8_t *grown;

		if (raw) {
			if (fwrite(buf, 1, (size_t)n, stdout) != (size_t)n)
				return fail("logs: stdout", -EIO);
			continue;
		}
		grown = realloc(all, len + (size_t)n);
		if (!grown) {
			free(all);
			return fail("logs", -ENOMEM);
		}
		all = grown;
		memcpy(all + len, buf, (size_t)n);
		len += (size_t)n;
	}
	if (n < 0) {
		free(all);
		return fail("logs", (int)n);
	}
	for (off = 0; off + sizeof(struct hmtt_rec_hdr) <= len;
	     off += ((const struct hmtt_rec_hdr *)(all + off))->len)
		n_recs++;
	recs = calloc(n_recs ? n_recs : 1, sizeof(*recs));
	if (!recs) {
		free(all);
		return fail("logs", -ENOMEM);
	}
	for (off = 0, i = 0; i < n_recs; i++) {
		recs[i] = (const void *)(all + off);
		off += recs[i]->len;
	}
	qsort(recs, n_recs, sizeof(*recs), by_seq);
	for (i = 0; i < n_recs; i++)
		print_record(recs[i]);
	free(recs);
	free(all);
	return 0;
}

int main(int argc, char **argv)
{
	const char *device = NULL;
	struct hmtt_dev d;
	int i = 1, json = 0, ret;
	uint64_t a = 0, b = 0;
	const char *cmd;

	for (; i < argc && argv[i][0] == '-'; i++) {
		if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
			fputs(usage, stdout);
			return 0;
		} else if (!strcmp(argv[i], "--json")) {
			json = 1;
		} else if (!strcmp(argv[i], "--device") && i + 1 < argc) {
			device = argv[++i];
		} else {
			fprintf(stderr, "hmttctl: unknown option %s\n%s", argv[i], usage);
			return 2;
		}
	}
	if (i >= argc) {
		fputs(usage, stderr);
		return 2;
	}
	cmd = argv[i++];
	ret = hmtt_open(&d, device, strcmp(cmd, "event") ? (size_t)-1 : 0);
	if (ret)
		return fail(device ? device : HMTT_DEVICE, ret);
	if (!strcmp(cmd, "status") && i == argc) {
		ret = cmd_status(&d, json);
	} else if (!strcmp(cmd, "begin") && i == argc) {
		ret = hmtt_begin(&d);
		ret = ret ? fail("begin", ret) : 0;
	} else if (!strcmp(cmd, "end") && i == argc) {
		ret = hmtt_end(&d);
		ret = ret ? fail("end", ret) : 0;
	} else if (!strcmp(cmd, "tag") && (argc - i == 1 || argc - i == 2)) {
		if (parse_u64(argv[i], &a) || a >= HMTT_APP_EVENTS ||
		    (argc - i == 2 && parse_u64(argv[i + 1], &b))) {
			fprintf(stderr, "hmttctl: tag: EVENT must be 0..%d, VALUE a number\n",
				HMTT_APP_EVENTS - 1);
			ret = 2;
		} else {
			ret = hmtt_tag(&d, (uint32_t)a, b);
			ret = ret ? fail("tag", ret) : 0;
		}
	} else if (!strcmp(cmd, "event") && argc - i == 1) {
		if (parse_u64(argv[i], &a) || a >= HMTT_APP_EVENTS) {
			fprintf(stderr, "hmttctl: event: EVENT must be 0..%d\n",
				HMTT_APP_EVENTS - 1);
			ret = 2;
		} else {
			HMTT_EVENT(a);
			ret = 0;
		}
	} else if (!strcmp(cmd, "probes") && argc - i == 1) {
		uint32_t mask;

		if (hmtt_parse_probes(argv[i], &mask)) {
			fprintf(stderr, "hmttctl: probes: '%s': use sched,syscall,pte,dma, all or none\n",
				argv[i]);
			ret = 2;
		} else {
			ret = hmtt_set_probes(&d, mask);
			ret = ret ? fail("probes", ret) : 0;
		}
	} else if ((!strcmp(cmd, "trace") || !strcmp(cmd, "untrace")) && argc - i == 1) {
		int clear = !strcmp(cmd, "untrace") && !strcmp(argv[i], "all");

		if (!clear && (parse_u64(argv[i], &a) || !a || a > INT32_MAX)) {
			fprintf(stderr, "hmttctl: %s: PID must be a positive number\n", cmd);
			ret = 2;
		} else {
			ret = hmtt_trace_pid(&d, (pid_t)a, clear ? HMTT_PID_CLEAR :
					     cmd[0] == 't' ? HMTT_PID_ADD : HMTT_PID_REMOVE);
			ret = ret ? fail(cmd, ret) : 0;
		}
	} else if (!strcmp(cmd, "cache") && argc - i == 1 &&
		   (!strcmp(argv[i], "on") || !strcmp(argv[i], "off"))) {
		ret = hmtt_cache_disable(&d, !strcmp(argv[i], "off"));
		ret = ret ? fail("cache", ret) : 0;
	} else if (!strcmp(cmd, "logs") && (i == argc || (argc - i == 1 && !strcmp(argv[i], "--raw")))) {
		ret = cmd_logs(&d, i != argc);
	} else {
		fprintf(stderr, "hmttctl: bad command or arguments: %s\n%s", cmd, usage);
		ret = 2;
	}
	hmtt_close(&d);
	return ret;
}
