/* libFuzzer: the simulation's readers (sacct export, SWF, scontrol show
 * node -o; the first byte chooses; gzip's magic after it: inflated
 * first), then a replay of small traces that parsed on a fixed three-node
 * cluster, under the model's flags the first byte also sets; one input
 * in three (by its length) also with malleable jobs.  Mode 3 with the
 * first byte's top bit: the text is the value of a malleable flag
 * (simulate --malleable, --malleable-range, --resize-*), the flag chosen
 * by bits 4-6, as the command line hands it to the library. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "psiplace/error.h"
#include "psiplace/nodetable.h"
#include "psiplace/sim.h"

static const char nodes_csv[] = "name,cpus,real_memory,speed\nn1,4,8000,1\nn2,8,16000,2\nn3,2,4000,0.5\n";

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct psiplace_sim_opts o = { .rank = { .policy = PSIPLACE_POLICY_FIRSTAVAILABLE } };
	struct psiplace_sim_trace t;
	struct psiplace_nodetable nt;
	struct psiplace_sim_report r;
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
	if (t.n <= 64 && psiplace_nodetable_parse(nodes_csv, sizeof(nodes_csv) - 1, "n", &nt, &err) == 0) {
		o.rank.policy = (enum psiplace_policy)(1 + (data[0] >> 4) % (PSIPLACE_POLICY_COUNT - 1));
		o.speed_ref = data[0] & 8 ? 1.0 : 0;
		o.exclusive = data[0] & 64;
		o.overrun_run = data[0] & 32;
		o.swf_requested = data[0] & 128;
		o.reserve_count = (data[0] & 0x30) == 0x30;
		if (psiplace_sim_run(&t, nt.nodes, nt.n, &o, &r, &err) == 0)
			psiplace_sim_report_free(&r);
		if (size % 3 == 0) { /* malleable: every rule, ranges, costs from the length */
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
			if (psiplace_sim_run(&t, nt.nodes, nt.n, &o, &r, &err) == 0)
				psiplace_sim_report_free(&r);
		}
		psiplace_nodetable_free(&nt);
	}
	psiplace_sim_trace_free(&t);
	return 0;
}
