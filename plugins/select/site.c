/* The site's configuration and slurmctld's node data for the engine. */
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "src/common/slurm_xlator.h"
#include "slurm_compat.h"

#include "psiplace/error.h"
#include "site_reader.h"
#include "site.h"


void site_paths(char **plugstack, char **psiconf)
{
	*plugstack = slurm_conf.plugstack ? xstrdup(slurm_conf.plugstack)
					  : get_extra_conf_path("plugstack.conf");
	*psiconf = get_extra_conf_path("psiplace.conf");
}

int site_load(struct site *s, psiplace_error_t *err)
{
	char *plugstack, *psiconf;
	int rc;

	site_paths(&plugstack, &psiconf);
	rc = site_load_paths(s, plugstack, psiconf, err);
	xfree(plugstack);
	xfree(psiconf);
	return rc;
}

void site_free(struct site *s)
{
	xfree(s->conf_of);
	xfree(s->metrics_of);
	site_files_free(s);
}

bool site_refresh_metrics(struct site *s)
{
	struct psiplace_metrics *m = site_reader_take();

	if (!m)
		return false;
	site_reader_free(s->metrics);
	s->metrics = m;
	s->indexed = 0;
	return true;
}

void site_keep_metrics(struct site *to, struct site *from)
{
	const char *a = to->psiconf.metrics_file, *b = from->psiconf.metrics_file;

	if (!a || !b || strcmp(a, b))
		return;
	to->metrics = from->metrics;
	from->metrics = NULL;
}

/* Name lookups once per node and file version, not once per decision. */
static void index_nodes(struct site *s)
{
	node_record_t *node_ptr;
	int i;

	if (s->indexed == node_record_count)
		return;
	xfree(s->conf_of);
	xfree(s->metrics_of);
	s->conf_of = xcalloc(node_record_count, sizeof(*s->conf_of));
	s->metrics_of = xcalloc(node_record_count, sizeof(*s->metrics_of));
	for (i = 0; (node_ptr = next_node(&i)); i++) {
		s->conf_of[i] = psiplace_psiconf_node(&s->psiconf, node_ptr->name);
		s->metrics_of[i] = s->metrics ? psiplace_metrics_node(s->metrics, node_ptr->name) : NULL;
	}
	s->indexed = node_record_count;
}

/* cons_tres's select_p_select_nodeinfo_set_all walks every node and
 * rebuilds its TRES strings whenever a node changed in the same second or
 * later (pings of absent nodes do that): at 20,000 nodes it cost as much
 * as cons_tres's own job test.  Only nodes with jobs need its counts, so it
 * runs once per decision and only when the first such node is filled. */
static void site_alloc_refresh(struct site *s)
{
	if (s->alloc_fresh || !s->set_all)
		return;
	s->set_all();
	s->alloc_fresh = true;
}

void site_alloc_reset(struct site *s, int (*set_all)(void))
{
	s->set_all = set_all;
	s->alloc_fresh = false;
}

void site_fill_rows(struct site *s, unsigned fields, struct psiplace_node *rows)
{
	node_record_t *node_ptr;
	int i;

	s->indexed = 0; /* the same names may now sit at other indexes */
	index_nodes(s);
	for (i = 0; (node_ptr = next_node(&i)); i++) {
		if (fields & SITE_F_CONF)
			psiplace_psiconf_apply(s->conf_of[i], &rows[i]);
		if (fields & SITE_F_LOAD)
			psiplace_metrics_apply(s->metrics_of[i], &rows[i]);
	}
}

bool site_node_powered(const node_record_t *node_ptr)
{
	/* slurmctld resumes a powered-down node that got a job in its next
	 * power-save pass (clearing POWERED_DOWN, setting POWERING_UP): from
	 * that job on the boot is paid and the node counts as up */
	return !IS_NODE_POWERED_DOWN(node_ptr) || IS_NODE_ALLOCATED(node_ptr) ||
	       node_ptr->run_job_cnt > 0;
}

static enum psiplace_power_state power_state(const node_record_t *node_ptr)
{
	if (IS_NODE_POWERED_DOWN(node_ptr))
		return PSIPLACE_POWERED_DOWN;
	return IS_NODE_POWERING_UP(node_ptr) ? PSIPLACE_POWERING_UP : PSIPLACE_POWER_UP;
}

bool site_boot_weight_dropped(const struct site *s, const node_record_t *node_ptr)
{
	return psiplace_select_boot_dropped(power_state(node_ptr), site_node_powered(node_ptr),
					    s->conf.prefer_powered_up, SLURM_VERSION_NUMBER);
}

uint64_t site_drop_boot(const node_record_t *node_ptr, uint64_t orig, uint32_t weight)
{
	return psiplace_select_drop_boot(orig, weight, power_state(node_ptr), SLURM_VERSION_NUMBER);
}

void site_fill_node(struct site *s, int index, unsigned fields, const struct psiplace_node *row,
		    struct psiplace_node *out)
{
	static const struct psiplace_node unknown = { .speed = 1.0, .next_resv = -1 };
	node_record_t *node_ptr = node_record_table_ptr[index];
	uint16_t alloc_cpus = 0;
	uint64_t alloc_mem = 0;

	*out = row ? *row : unknown;
	out->name = node_ptr->name;
	out->index = (uint32_t)index;
	/* a powered-down node's sched_weight carries slurmctld's reboot
	 * weight instead of its own */
	out->weight = site_boot_weight_dropped(s, node_ptr) ? node_ptr->weight
							     : (node_ptr->sched_weight >> 8) & 0xffffffffULL;
	out->cpus = node_ptr->cpus;
	out->threads = node_ptr->cpus;
	out->power = site_node_powered(node_ptr);
	/* cons_tres's per-node accounting, refreshed by nodeinfo_set_all, for
	 * nodes with jobs (base state ALLOCATED, also when only partly: MIXED
	 * is computed for display) or still completing; others hold nothing.
	 * Without SITE_F_ALLOC (callers that only name nodes) an allocated
	 * node counts as full. */
	if (!(fields & SITE_F_ALLOC)) {
		alloc_cpus = IS_NODE_ALLOCATED(node_ptr) ? node_ptr->cpus : 0;
	} else if (IS_NODE_ALLOCATED(node_ptr) || IS_NODE_COMPLETING(node_ptr)) {
		site_alloc_refresh(s);
		psiplace_node_alloc(node_ptr, index, &alloc_cpus, &alloc_mem);
	}
	out->alloc_cpus = alloc_cpus;
	out->alloc_memory = alloc_mem;
	if (fields & SITE_F_STATIC) {
		out->real_memory = node_ptr->real_memory;
		out->tmp_disk = node_ptr->tmp_disk;
		out->features = node_ptr->features_act ? node_ptr->features_act : node_ptr->features;
		out->arch = node_ptr->arch;
		out->os = node_ptr->os;
	}
	if (fields & (SITE_F_CONF | SITE_F_LOAD))
		index_nodes(s);
	if ((fields & SITE_F_CONF) && !row)
		psiplace_psiconf_apply(s->conf_of[index], out);
	if (fields & SITE_F_LOAD) {
		const struct psiplace_metrics_node *mn = s->metrics_of[index];

		/* the metrics file's load1, when it has one, wins over slurmctld's */
		if (!row || !mn || !(mn->has & PSIPLACE_METRIC_LOAD1))
			out->load1 = node_ptr->cpu_load / 100.0;
		out->jobs = node_ptr->run_job_cnt;
		out->suspended_jobs = node_ptr->sus_job_cnt;
		if (mn && !row)
			psiplace_metrics_apply(mn, out);
	}
}

struct resv_scan {
	const bitstr_t *nodes;
	int64_t *next;
	time_t now;
};

static int scan_resv(void *x, void *arg)
{
	slurmctld_resv_t *r = x;
	struct resv_scan *sc = arg;
	int64_t delta;
	int i, last;

	if (!r || !r->node_bitmap || r->start_time <= sc->now)
		return 0;
	delta = (int64_t)(r->start_time - sc->now);
	last = bit_fls(r->node_bitmap);
	for (i = bit_ffs(r->node_bitmap); i >= 0 && i <= last; i++) {
		if (!bit_test(r->node_bitmap, i) || !bit_test((bitstr_t *)sc->nodes, i))
			continue;
		if (sc->next[i] < 0 || delta < sc->next[i])
			sc->next[i] = delta;
	}
	return 0;
}

void site_next_reservations(const void *node_bitmap, int64_t *next_resv)
{
	struct resv_scan sc = { .nodes = node_bitmap, .next = next_resv, .now = time(NULL) };

	if (!&resv_list || !resv_list)
		return;
	/* Reservations change under the node write lock, which every caller
	 * of select_g_job_test holds (doc/select.md). */
	list_for_each(resv_list, scan_resv, &sc);
}
