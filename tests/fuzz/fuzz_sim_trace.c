/* libFuzzer: the simulation's readers (sacct export, SWF, scontrol show
 * node -o; the first byte chooses; gzip's magic after it: inflated
 * first), then a replay of small traces that parsed, under the model's
 * flags the first byte also sets; one input in three (by its length) also
 * with malleable jobs.  Mode 3 with the first byte's top bit: the text is
 * the value of a malleable flag (simulate --malleable, --malleable-range,
 * --resize-*), the flag chosen by bits 4-6, as the command line hands it
 * to the library.
 *
 * Before a trace (modes 0-2) the input may give lines of the form
 * `--FLAG=VALUE`, taken as the command line takes them: the model's numbers
 * (--speed-scaling, --bf-window, --bf-interval, --bf-depth, --seed) through
 * psiplace_sim_option(), the malleable flags through
 * psiplace_sim_malleable_option() (a --malleable rule adds a malleable
 * replay with them), and --node=ROW, a row of the node table after the
 * fixed three (name,cpus,real_memory,speed).  A value the library refuses
 * ends the input, as the command line would.  Every replay that succeeds
 * must give a report that makes sense: every started job ends no earlier
 * than it starts and starts no earlier than it was eligible, the makespan
 * is not negative, the figures are finite; otherwise the target aborts
 * (the conversions of a huge --speed-scaling, node Speed or ReqMem showed
 * as negative makespans). */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "psiplace/error.h"
#include "psiplace/nodetable.h"
#include "psiplace/sim.h"

static const char nodes_csv[] = "name,cpus,real_memory,speed\nn1,4,8000,1\nn2,8,16000,2\nn3,2,4000,0.5\n";

#define MAX_ROWS 4

struct cmdline {
	struct psiplace_sim_malleable m;
	bool mall_given;
	char table[sizeof(nodes_csv) + MAX_ROWS * 64];
	size_t table_len;
	int rows;
};

static void fail(const char *what, long long a, long long b)
{
	fprintf(stderr, "fuzz_sim_trace: the report makes no sense: %s (%lld, %lld)\n", what, a, b);
	abort();
}

static void check_figure(const char *what, double v, double min)
{
	if (!isfinite(v) || v < min) {
		fprintf(stderr, "fuzz_sim_trace: the report makes no sense: %s = %g\n", what, v);
		abort();
	}
}

static void check_report(const struct psiplace_sim_trace *t, const struct psiplace_sim_report *r)
{
	for (size_t i = 0; i < t->n; i++) {
		const struct psiplace_sim_result *res = &r->res[i];

		if (res->start < 0)
			continue;
		if (res->end < res->start)
			fail("a job ends before it starts", res->start, res->end);
		if (res->start < t->jobs[i].eligible)
			fail("a job starts before it is eligible", t->jobs[i].eligible, res->start);
	}
	if (r->makespan < 0)
		fail("negative makespan", r->makespan, 0);
	check_figure("wait_mean", r->wait_mean, 0);
	check_figure("wait_median", r->wait_median, 0);
	check_figure("wait_p95", r->wait_p95, 0);
	check_figure("bsld_mean", r->bsld_mean, r->jobs ? 1 : 0);
	check_figure("utilisation", r->utilisation, 0);
	check_figure("utilisation_used", r->utilisation_used, 0);
	check_figure("node_hours", r->node_hours, 0);
	check_figure("cpu_hours_saved", r->cpu_hours_saved, -INFINITY);
	check_figure("frag", r->frag, 0);
}

static void run(const struct psiplace_sim_trace *t, const struct psiplace_node *nodes, size_t n,
		const struct psiplace_sim_opts *o)
{
	struct psiplace_sim_report r;
	psiplace_error_t err;

	if (psiplace_sim_run(t, nodes, n, o, &r, &err) == 0) {
		check_report(t, &r);
		psiplace_sim_report_free(&r);
	}
}

/* One `--FLAG=VALUE` line (n bytes) into o or c: 0, or -1 (refused). */
static int flag_line(const char *l, size_t n, struct psiplace_sim_opts *o, struct cmdline *c)
{
	static const char *const model[] = { "speed-scaling", "bf-window", "bf-interval", "bf-depth",
					     "seed" };
	char buf[128];
	const char *eq = memchr(l, '=', n);
	psiplace_error_t err;
	size_t k;

	if (!eq || n >= sizeof(buf))
		return -1;
	memcpy(buf, l + 2, n - 2);
	buf[n - 2] = '\0';
	k = (size_t)(eq - l) - 2;
	buf[k] = '\0';
	if (!strcmp(buf, "node")) {
		if (c->rows == MAX_ROWS || n - (k + 3) > 60)
			return -1;
		memcpy(c->table + c->table_len, buf + k + 1, n - (k + 3));
		c->table_len += n - (k + 3);
		c->table[c->table_len++] = '\n';
		c->rows++;
		return 0;
	}
	for (size_t i = 0; i < sizeof(model) / sizeof(*model); i++)
		if (!strcmp(buf, model[i]))
			return psiplace_sim_option(o, buf, buf + k + 1, &err);
	if (psiplace_sim_malleable_option(&c->m, buf, buf + k + 1, &err) < 0)
		return -1;
	c->mall_given = c->mall_given || !strcmp(buf, "malleable");
	return 0;
}

/* The leading `--` lines of the text (*text, *size advanced past them):
 * 0, or -1 when one was refused. */
static int cmdline(const char **text, size_t *size, struct psiplace_sim_opts *o, struct cmdline *c)
{
	memset(c, 0, sizeof(*c));
	memcpy(c->table, nodes_csv, sizeof(nodes_csv) - 1);
	c->table_len = sizeof(nodes_csv) - 1;
	psiplace_sim_malleable_init(&c->m);
	while (*size >= 2 && (*text)[0] == '-' && (*text)[1] == '-') {
		const char *nl = memchr(*text, '\n', *size);
		size_t n = nl ? (size_t)(nl - *text) : *size;

		if (flag_line(*text, n, o, c) < 0)
			return -1;
		*text += nl ? n + 1 : n;
		*size -= nl ? n + 1 : n;
	}
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct psiplace_sim_opts o = { .rank = { .policy = PSIPLACE_POLICY_FIRSTAVAILABLE } };
	struct psiplace_sim_trace t;
	struct psiplace_nodetable nt;
	struct cmdline c;
	psiplace_error_t err;
	const char *text = (const char *)data + 1;
	char *plain = NULL;
	int mode;

	if (size < 1)
		return 0;
	mode = data[0] % 4;
	size--;
	if (mode == 3 && (data[0] & 128)) {
		static const char *const flags[] = { "malleable", "malleable-range", "resize-interval",
						     "resize-min-interval", "resize-cost",
						     "resize-efficiency", "malleable", "resize-cost" };
		struct psiplace_sim_malleable m;
		char *v = malloc(size + 1);

		if (!v)
			return 0;
		memcpy(v, text, size);
		v[size] = '\0';
		psiplace_sim_malleable_init(&m);
		(void)psiplace_sim_malleable_option(&m, flags[(data[0] >> 4) & 7], v, &err);
		free(v);
		return 0;
	}
	if (mode == 3) {
		if (psiplace_sim_nodetable_from_scontrol(text, size, "fuzz", &nt, &err) == 0)
			psiplace_nodetable_free(&nt);
		return 0;
	}
	o.speed_ref = data[0] & 8 ? 1.0 : 0;
	if (cmdline(&text, &size, &o, &c) < 0)
		return 0;
	if (psiplace_sim_is_gzip(text, size)) {
		if (psiplace_sim_gunzip(text, size, "fuzz", &plain, &size, &err) < 0)
			return 0;
		text = plain;
	}
	if (psiplace_sim_trace_parse(text, size, "fuzz", (enum psiplace_sim_format)mode,
				     data[0] & 4, &t, &err) < 0) {
		free(plain);
		return 0;
	}
	free(plain);
	if (t.n <= 64 && psiplace_nodetable_parse(c.table, c.table_len, "n", &nt, &err) == 0) {
		o.rank.policy = (enum psiplace_policy)(1 + (data[0] >> 4) % (PSIPLACE_POLICY_COUNT - 1));
		o.exclusive = data[0] & 64;
		o.overrun_run = data[0] & 32;
		o.swf_requested = data[0] & 128;
		o.reserve_count = (data[0] & 0x30) == 0x30;
		run(&t, nt.nodes, nt.n, &o);
		if (c.mall_given) {
			o.malleable = &c.m;
			run(&t, nt.nodes, nt.n, &o);
		} else if (size % 3 == 0) { /* malleable: every rule, ranges, costs from the length */
			struct psiplace_sim_malleable m;

			psiplace_sim_malleable_init(&m);
			m.rule = (enum psiplace_sim_mall_rule)(1 + size % 3 + (data[0] & 1));
			m.fraction = 0.5;
			m.seed = size;
			m.min_nodes = 1 + data[0] % 3;
			m.range_lo = data[0] & 2 ? 0.1 : 0.5;
			m.range_hi = data[0] & 4 ? 8 : 2;
			m.min_interval = data[0] & 8 ? 0 : 60;
			m.interval = 1 + data[0] % 7;
			m.efficiency = data[0] & 16 ? 0.3 : 1.0;
			m.grow_base = data[0] & 32 ? 0 : 0.24;
			m.log = data[0] & 64;
			o.malleable = &m;
			o.plan_all = data[0] & 128;
			o.reserve_count = o.reserve_count && !o.plan_all;
			run(&t, nt.nodes, nt.n, &o);
		}
		psiplace_nodetable_free(&nt);
	}
	psiplace_sim_trace_free(&t);
	return 0;
}
