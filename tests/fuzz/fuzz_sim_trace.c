/* libFuzzer: the simulation's readers (sacct export, SWF, scontrol show
 * node -o; the first byte chooses; gzip's magic after it: inflated
 * first), then a replay of small traces that parsed, under the model's
 * flags the first byte also sets; one input in three (by its length) also
 * with malleable jobs.  Mode 3 with the first byte's top bit: the text is
 * the value of a malleable flag (simulate --malleable, --malleable-range,
 * --resize-*), the flag chosen by bits 4-6, as the command line hands it
 * to the library.  Mode 3 with bits 6-7 01: the rest of the input drives a
 * generator (gen_run) that writes a small sacct trace, node rows and the
 * model's flags whose numbers span 1 to 1e30 (and down to 1e-30 for the
 * Speeds and the reference), so that the magnitudes where a conversion
 * overflows come up within a few hundred inputs instead of never (the text
 * mode took no ReqMem past 1e13 T in 500,000 runs).
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

/* The generator's input: one byte at a time, zeros once it is used up. */
struct gen {
	const uint8_t *p;
	size_t n;
};

static unsigned next(struct gen *g)
{
	if (!g->n)
		return 0;
	g->n--;
	return *g->p++;
}

/* A number from one byte: the digit from the low three bits, the power of
 * ten from the high four; with frac, bit 3 makes the power negative. */
static const int powers[16] = { 0, 0, 1, 2, 3, 4, 6, 9, 12, 13, 14, 15, 16, 18, 19, 30 };

static void gen_real(struct gen *g, bool frac, char *out, size_t len)
{
	unsigned b = next(g);
	int e = powers[b >> 4];

	snprintf(out, len, "%ue%d", 1 + (b & 7), frac && (b & 8) ? -e : e);
}

static void gen_int(struct gen *g, char *out, size_t len)
{
	unsigned b = next(g);

	snprintf(out, len, "%.0f", (1 + (b & 7)) * pow(10, powers[b >> 4]));
}

static void gen_time(char *out, size_t len, unsigned secs)
{
	snprintf(out, len, "2026-01-01T%02u:%02u:%02u", secs / 3600, secs / 60 % 60, secs % 60);
}

/* The generated replay (mode 3, bits 6-7 01). */
static void gen_run(const uint8_t *data, size_t size)
{
	static const char *const units[] = { "", "K", "M", "G", "T" }, *const per[] = { "", "n", "c" };
	/* not --bf-interval: a pass every few seconds over runs scaled to
	 * years is a long replay, not a wrong one (and it bounds no conversion) */
	static const char *const model[] = { "speed-scaling", "bf-window", "bf-depth" };
	struct gen g = { data, size };
	struct psiplace_sim_opts o = { .rank = { .policy = PSIPLACE_POLICY_FIRSTAVAILABLE } };
	struct psiplace_sim_malleable m;
	struct psiplace_sim_trace t;
	struct psiplace_nodetable nt;
	psiplace_error_t err;
	char text[2048], table[sizeof(nodes_csv) + 256], v[64], sub[24], st[24], en[24], mem[40];
	unsigned flags = next(&g), njobs = 1 + next(&g) % 4, rows = next(&g) % 3, i;
	size_t tl, nl = sizeof(nodes_csv) - 1;

	for (i = 0; i < sizeof(model) / sizeof(*model); i++) {
		if (!(flags & (1u << i)))
			continue;
		if (i == 0)
			gen_real(&g, true, v, sizeof(v));
		else
			gen_int(&g, v, sizeof(v));
		if (psiplace_sim_option(&o, model[i], v, &err) < 0)
			return; /* refused, as the command line would */
	}
	tl = (size_t)snprintf(text, sizeof(text), "JobIDRaw|Submit|Eligible|Start|End|Timelimit|"
			      "NNodes|NCPUS|ReqMem|ReqTRES|Partition|NodeList|State|Priority\n");
	for (i = 0; i < njobs; i++) {
		unsigned submit = next(&g) * 10, start = submit + next(&g) * 10;
		unsigned run = 1 + next(&g) * 30, limit = 1 + next(&g) % 60, nodes = 1 + next(&g) % 3;
		unsigned cpus = nodes * (1 + next(&g) % 4), u = next(&g);

		gen_time(sub, sizeof(sub), submit);
		gen_time(st, sizeof(st), start);
		gen_time(en, sizeof(en), start + run);
		gen_real(&g, false, v, sizeof(v));
		snprintf(mem, sizeof(mem), "%s%s%s", v, units[u % 5], per[u / 5 % 3]);
		gen_int(&g, v, sizeof(v));
		tl += (size_t)snprintf(text + tl, sizeof(text) - tl, "%u|%s|%s|%s|%s|%u|%u|%u|%s||p||"
				       "COMPLETED|%s\n", i + 1, sub, sub, st, en, limit, nodes, cpus,
				       mem, v);
	}
	memcpy(table, nodes_csv, nl);
	for (i = 0; i < rows; i++) {
		char rmem[40], speed[24];
		unsigned cpus = 1 + next(&g) % 16;

		gen_int(&g, rmem, sizeof(rmem));
		gen_real(&g, true, speed, sizeof(speed));
		nl += (size_t)snprintf(table + nl, sizeof(table) - nl, "g%u,%u,%s,%s\n", i, cpus, rmem,
				       speed);
	}
	if (psiplace_sim_trace_parse(text, tl, "gen", PSIPLACE_SIM_SACCT, false, &t, &err) < 0)
		return;
	if (psiplace_nodetable_parse(table, nl, "n", &nt, &err) == 0) {
		o.rank.policy = (enum psiplace_policy)(1 + flags % (PSIPLACE_POLICY_COUNT - 1));
		o.exclusive = flags & 16;
		o.overrun_run = flags & 32;
		run(&t, nt.nodes, nt.n, &o);
		/* malleable only unscaled: decisions every 5 s over runs scaled
		 * to years take seconds an input (a long replay, not a wrong one) */
		if ((flags & 65) == 64) {
			psiplace_sim_malleable_init(&m);
			m.rule = PSIPLACE_SIM_MALL_FRACTION;
			m.fraction = 1;
			o.malleable = &m;
			o.plan_all = flags & 128;
			run(&t, nt.nodes, nt.n, &o);
		}
		psiplace_nodetable_free(&nt);
	}
	psiplace_sim_trace_free(&t);
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
	if (mode == 3 && (data[0] & 0xc0) == 0x40) {
		gen_run(data + 1, size);
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
