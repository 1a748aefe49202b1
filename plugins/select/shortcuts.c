/* The shortcuts of select/psiplace_cons_tres (shortcuts.h).  Each one
 * states beside it why its answer is the full decision's and names the
 * test that proves it (tests/integration/test_select.sh, integration_select
 * case B<n>); the entry points in select_psiplace_cons_tres.c only call
 * them.
 *
 * | shortcut            | where                      | equality test        |
 * | count_first         | node range left open       | A (counts), B12      |
 * | count of a few      | the same, an idle tail     | B13                  |
 * | tier_first          | real start, will-run       | B1-B5, B9-B11        |
 * | exact_first         | will-run, inside the tier  | B8, B9               |
 * | exact_first alone   | will-run, no tier offered  | B6, B9               |
 * | every node needed   | will-run, min_nodes >= set | B7                   |
 * greedy_settled() is the condition all but count_first share. */
#include <stdbool.h>
#include <stdint.h>
#include <time.h>

#include "shortcuts.h"

/* cons_tres's _get_job_node_req(): may the job share cores with running
 * jobs (partition OverSubscribe=FORCE, or YES with --oversubscribe), or
 * does gang scheduling let it (PreemptMode=GANG)? */
static bool job_may_share(const job_record_t *job_ptr)
{
	const part_record_t *part = job_ptr->part_ptr;

	if (slurm_conf.preempt_mode & PREEMPT_MODE_GANG)
		return true;
	if (!part)
		return true; /* unknown: take the full decision */
	if (part->max_share & SHARED_FORCE)
		return true;
	return part->max_share > 1 && job_ptr->details->share_res == 1;
}

/* cons_tres's node choice over a set, in the one case where it is greedy
 * in sched_weight order (_eval_nodes_consec: no topology, no
 * LLN, spread, busy-first or serial packing, no required nodes, no
 * contiguity): then a ranked tier that holds enough yields the very nodes
 * the whole set would, and cons_tres, offered only the tier, does a
 * fraction of its per-node work (doc/select.md, "The ranked tier first").
 * Everything else about the job and the cluster must be settled now: no
 * preemption, no start in the future, tier nodes up, not rebooting or
 * completing, and (in will-run) without jobs.  Each condition has its
 * case in integration_select: B1-B3 (range, memory, suspended job), B4-B5
 * (sharing), B6 (a node with a job in will-run), B9 and B11 (GRES). */
static bool greedy_settled(const struct call *a, const struct cands *c, uint32_t upto)
{
	job_record_t *job_ptr = a->job_ptr;
	__typeof__(job_ptr->details) d = job_ptr->details; /* job_details_t from 23.02 */
	uint64_t free_cpus = 0;
	uint32_t i;

	if (a->mode != SELECT_MODE_RUN_NOW && a->mode != SELECT_MODE_WILL_RUN)
		return false;
	/* A node range: cons_tres's consecutive pass ends with _enough_nodes(),
	 * which succeeds with min_nodes where the whole set gives req_nodes. */
	if (a->min_nodes < a->req_nodes)
		return false;
	/* A job that may share or gang: cons_tres's steps 2 and 3 (sharing
	 * cores with running jobs) succeed on the tier where the whole set
	 * succeeds at step 1 elsewhere. */
	if (job_may_share(job_ptr))
		return false;
	if (a->preemptee_candidates && list_count(a->preemptee_candidates) > 0)
		return false;
#if PSIPLACE_SLURM_AT_LEAST(24, 11)
	if (a->will_run && a->will_run->start > time(NULL))
		return false;
#endif
	/* GRES: cons_tres's first pass keeps only the cores on the sockets
	 * that hold the requested GRES (22.05 gres_select_filter.c, "Remove
	 * cores on not required sockets") and, when it fails with no node to
	 * spare, passes again allowing non-local GRES (choose_nodes): offered
	 * a tier or the first `need` nodes alone, that second pass succeeds on
	 * a node the whole set passes over for one whose GRES sit beside its
	 * cores.  Usability is then not per node: no shortcut for a GRES job
	 * (--gres, --gpus, --gpus-per-*, --tres-per-task with a GRES). */
	if (job_ptr->gres_list_req && list_count(job_ptr->gres_list_req) > 0)
		return false;
	if (d->req_node_bitmap || d->contiguous || job_ptr->req_switch ||
	    (job_ptr->bit_flags & SPREAD_JOB) || PSIPLACE_FEATURE_COUNTS(d))
		return false;
	if (!a->greedy_conf ||
	    (job_ptr->part_ptr && (job_ptr->part_ptr->flags & PART_FLAG_LLN)))
		return false;
	for (i = 0; i < upto; i++) {
		uint32_t pos = c->order[i];
		const struct psiplace_node *n = &c->nodes[pos];
		node_record_t *node_ptr = node_record_table_ptr[c->node_inx[pos]];

		if (((c->saved[pos] >> 40) & 0x3) || IS_NODE_POWERED_DOWN(node_ptr) ||
		    IS_NODE_POWERING_DOWN(node_ptr) || IS_NODE_REBOOT_REQUESTED(node_ptr) ||
		    IS_NODE_REBOOT_ISSUED(node_ptr) || IS_NODE_COMPLETING(node_ptr))
			return false;
		/* A suspended job holds memory and GRES on a node slurmctld calls
		 * idle: the tier's "now" attempt may fail where the whole set's
		 * succeeds elsewhere. */
		if (node_ptr->sus_job_cnt)
			return false;
		if (a->mode == SELECT_MODE_WILL_RUN && (n->alloc_cpus || node_ptr->run_job_cnt))
			return false;
		if (n->cpus > n->alloc_cpus)
			free_cpus += n->cpus - n->alloc_cpus;
	}
	return free_cpus >= d->min_cpus;
}

/* The tier: fewer nodes than the candidates, and greedy_settled() over it. */
bool psiplace_sel_tier_first_ok(const struct call *a, const struct cands *c, uint32_t distinct)
{
	return distinct < c->n && greedy_settled(a, c, distinct);
}

/* Will-run only: offer cons_tres exactly the first `need` nodes of the
 * order, with one weight.  The tier's answer with distinct weights costs
 * cons_tres's _eval_nodes O(need x distinct) (every node a consecutive set
 * of its own, the best set searched again for each node taken): with
 * backfill's large jobs (thousands of nodes) this was most of a cycle.
 * Equality: tier_first_ok() holds, so min_nodes >= req_nodes and need is
 * min_nodes; cons_tres cannot succeed with fewer than min_nodes nodes nor
 * take nodes it is not offered, so success here means it took all `need`
 * nodes, each usable for the job (usability is per node: cons_tres's
 * available resources of one node do not depend on the others; no GRES
 * per job, no required nodes, no contiguity, no topology: tier_first_ok).
 * Over the tier, cons_tres is greedy in strictly increasing weight, i.e. in
 * the order: it takes these same `need` nodes first, each usable, and then
 * has its nodes and (the same nodes giving the same CPUs) its CPUs, so it
 * stops there: the same node set.  Will-run returns no job_resources,
 * only the node set and the start, so the order in which cons_tres took
 * them (which could change per-node CPU counts in a real start) does not
 * matter.  Any other outcome (failure, a start later than now) falls back
 * to the tier as before.  Returns SLURM_SUCCESS with bitmap set, or an
 * error with bitmap and the job's start_time unchanged.  Test:
 * integration_select B8 (inside the tier), B6 (alone). */
int psiplace_sel_exact_first(const struct call *a, struct cands *c, bitstr_t *bitmap, uint32_t need)
{
	bitstr_t *set = bit_alloc(bit_size(bitmap));
	uint32_t i;
	int rc;
	time_t start = a->job_ptr->start_time;

	for (i = 0; i < need; i++)
		bit_set(set, c->node_inx[c->order[i]]);
	psiplace_sel_inject(a, c, need, 0);
	rc = psiplace_sel_cons_tres(a, set);
	psiplace_sel_restore(c, need);
	if (rc == SLURM_SUCCESS && a->job_ptr->start_time > time(NULL))
		rc = SLURM_ERROR;
	if (rc != SLURM_SUCCESS)
		a->job_ptr->start_time = start;
	log_flag(SELECT_TYPE, "%s: %pJ: the first %u nodes of the order offered alone: %s",
		 PSIPLACE_SEL_TYPE, a->job_ptr, need, rc == SLURM_SUCCESS ? "taken" : "not now, the tier next");
	if (rc == SLURM_SUCCESS)
		bit_copybits(bitmap, set);
	FREE_NULL_BITMAP(set);
	return rc;
}

/* Will-run, when the tier is not offered (need + RankedTier reaches the
 * candidates, as for backfill's large jobs, or a node behind the first
 * `need` is not settled): exact_first() alone, before the full decision.
 * Its equality needs only what greedy_settled() says of the job and of
 * the first `need` nodes: the full decision is greedy over the same order
 * and takes those nodes first.  Its cost is cons_tres over `need` nodes,
 * where the full decision's _eval_nodes over `need + RankedTier` distinct
 * weights is O(need x distinct) (doc/select.md, "Backfill cycles").  A
 * RankedTier of at least the candidates asks for the full decision only. */
bool psiplace_sel_exact_alone_ok(const struct call *a, const struct cands *c, uint32_t need)
{
	return a->mode == SELECT_MODE_WILL_RUN && need > 0 && need < c->n &&
	       a->ranked_tier < c->n && greedy_settled(a, c, need);
}

/* Is cons_tres's answer over the tier the first k nodes of the order (k the
 * nodes it took)?  choose_nodes() (22.05 cons_tres/job_test.c; 23.11+ the
 * same loop) retries a failed greedy pass with the low-CPU nodes removed:
 * offered the tier alone it can fail its first pass and succeed on the
 * retry inside the tier (A=8 B=2 E1..E17=6 then D=10, -N3 -n20: the tier
 * gives A E1 E2 with B dropped, the whole set's first pass reaches D: A B
 * D).  A retry only removes nodes, so an answer that is a prefix of the
 * order came from the first pass (the first pass visits the same nodes in
 * the same state, with more to choose the last one from, and would have
 * succeeded), and the whole set's first pass, whose trailing nodes weigh
 * more than every tier node, takes the same prefix.  Any other answer may
 * be the retry's: the full decision. */
static bool tier_prefix(const struct cands *c, const bitstr_t *chosen, uint32_t distinct)
{
	uint32_t k = (uint32_t)bit_set_count((bitstr_t *)chosen), i;

	if (k > distinct)
		return false;
	for (i = 0; i < k; i++)
		if (!bit_test((bitstr_t *)chosen, c->node_inx[c->order[i]]))
			return false;
	return true;
}

/* Offer cons_tres the first `distinct` nodes of the order only, weighted
 * in that order; only their records are written and restored.  Returns
 * cons_tres's answer, with bitmap set to its choice on success; on failure
 * bitmap is unchanged and the caller decides over the whole set.
 * Equality: doc/select.md "The ranked tier first": where greedy_settled()
 * holds cons_tres is greedy in sched_weight order, the tier's nodes come
 * first in the whole set's order, and an answer that is the order's first
 * nodes (tier_prefix) is the whole set's first pass's.  Tests:
 * integration_select B1-B5 (against RankedTier=1000000), B10 (the retry). */
int psiplace_sel_tier_first(const struct call *a, struct cands *c, bitstr_t *bitmap,
			    uint32_t distinct, uint32_t need)
{
	bitstr_t *tier;
	uint32_t i;
	int rc;
	time_t start = a->job_ptr->start_time;

	if (a->mode == SELECT_MODE_WILL_RUN && need > 0 && need < distinct &&
	    psiplace_sel_exact_first(a, c, bitmap, need) == SLURM_SUCCESS)
		return SLURM_SUCCESS;
	tier = bit_alloc(bit_size(bitmap));
	for (i = 0; i < distinct; i++)
		bit_set(tier, c->node_inx[c->order[i]]);
	psiplace_sel_inject(a, c, distinct, distinct);
	rc = psiplace_sel_cons_tres(a, tier);
	psiplace_sel_restore(c, distinct);
	/* Now only: a will-run answer that starts later (cons_tres simulated
	 * ending jobs on the tier) says nothing about the whole set, which may
	 * start the job now elsewhere. */
	if (rc == SLURM_SUCCESS && a->mode == SELECT_MODE_WILL_RUN &&
	    a->job_ptr->start_time > time(NULL)) {
		a->job_ptr->start_time = start;
		rc = SLURM_ERROR;
	}
	if (rc == SLURM_SUCCESS && !tier_prefix(c, tier, distinct)) {
		a->job_ptr->start_time = start;
		log_flag(SELECT_TYPE, "%s: %pJ: ranked tier of %u of %u nodes: not the first nodes of the order (cons_tres's retry may have chosen), deciding over all nodes",
			 PSIPLACE_SEL_TYPE, a->job_ptr, distinct, c->n);
		FREE_NULL_BITMAP(tier);
		return SLURM_ERROR;
	}
	/* DebugFlags=SelectType shows which way each decision went */
	log_flag(SELECT_TYPE, "%s: %pJ: ranked tier of %u of %u nodes offered first: %s",
		 PSIPLACE_SEL_TYPE, a->job_ptr, distinct, c->n,
		 rc == SLURM_SUCCESS ? "taken" : "not enough or not now, deciding over all nodes");
	if (rc == SLURM_SUCCESS)
		bit_copybits(bitmap, tier);
	FREE_NULL_BITMAP(tier);
	return rc;
}

/* cons_tres's answer over `set` with the call's range, without preemption
 * (the count of a start that needs none), leaving the job's start_time as
 * it found it: a will-run answer writes it, the policy must see the start
 * backfill planned (job.start), and the shortcuts restore that one when
 * they refuse an answer.  With now_only, a will-run answer that starts
 * later is refused.  Returns the nodes taken or NULL. */
bitstr_t *psiplace_sel_count_probe(const struct call *a, const bitstr_t *set, bool now_only)
{
	struct call probe = *a;
	bitstr_t *natural = bit_copy((bitstr_t *)set);
	time_t start = a->job_ptr->start_time;
	int rc;

	probe.preemptee_candidates = NULL;
	probe.preemptee_job_list = NULL;
	rc = psiplace_sel_cons_tres(&probe, natural);
	if (rc == SLURM_SUCCESS && now_only && a->mode == SELECT_MODE_WILL_RUN &&
	    a->job_ptr->start_time > time(NULL))
		rc = SLURM_ERROR;
	a->job_ptr->start_time = start;
	if (rc != SLURM_SUCCESS)
		FREE_NULL_BITMAP(natural);
	return natural;
}

/* Two nodes cons_tres cannot tell apart for a job: the same configuration
 * of every field its per-node availability reads (CPUs, boards, sockets,
 * cores, threads and threads in use, memory and its specialisation,
 * specialised cores, configured GRES). */
static bool same_node(const node_record_t *x, const node_record_t *y)
{
	return x->cpus == y->cpus && x->boards == y->boards && x->tot_sockets == y->tot_sockets &&
	       x->cores == y->cores && x->threads == y->threads && x->tpc == y->tpc &&
	       x->real_memory == y->real_memory && x->mem_spec_limit == y->mem_spec_limit &&
	       x->core_spec_cnt == y->core_spec_cnt && !xstrcmp(x->cpu_spec_list, y->cpu_spec_list) &&
	       !xstrcmp(x->gres, y->gres);
}

/* A node with nothing on it that cons_tres could see: no job running,
 * completing or suspended, none that keeps it whole, up and not booting. */
static bool idle_settled(const node_record_t *n)
{
	return !n->run_job_cnt && !n->comp_job_cnt && !n->sus_job_cnt && !n->no_share_job_cnt &&
	       !((n->sched_weight >> 40) & 0x3) && !IS_NODE_POWERED_DOWN(n) &&
	       !IS_NODE_POWERING_DOWN(n) && !IS_NODE_REBOOT_REQUESTED(n) &&
	       !IS_NODE_REBOOT_ISSUED(n) && !IS_NODE_COMPLETING(n);
}

/* The count of a few (will-run and real start, the range left open, as
 * for `-n 64` alone): where the candidates end in a long run of the same
 * node, idle (the tail), cons_tres is asked for the count over the nodes
 * before the tail (the head: any nodes) and the first t nodes of the tail
 * only, t = MAX(M, the head's CPUs) + 1, M the most nodes it may take.
 * Equality (22.05 cons_tres/job_test.c): each node's available resources
 * come from that node and the job alone (_get_res_avail,
 * can_job_run_on_node: no reservation's core exclusion, no GRES, no
 * sharing), so the head's nodes offer the same in both calls and every
 * tail node the same.  _eval_nodes (no required nodes, contiguity,
 * spread, LLN, busy-first, serial packing or topology: greedy_conf) cuts
 * the candidates into sets of consecutive usable nodes of equal weight;
 * with one weight and no gap of non-candidates between them, both calls
 * have the same sets but the last, L, which holds the tail and is longer
 * over all.  Its choice of set prefers a sufficient one, among them the
 * tightest (fewest CPUs, the first of equals): L offered t tail nodes is
 * sufficient (t > M >= the job's CPUs and nodes) and has more CPUs than
 * any set of the head (t > the head's CPUs), so both calls choose alike
 * at every step: the same set of the head, or L.  In L it takes nodes in
 * index order, or the tightest single node when one node is still
 * wanted (the earliest of equals: in both the same); the state it counts
 * down moves alike, and it cannot run out of L offered t > M nodes.  M =
 * choose_nodes()'s bound, MAX(tasks, min_nodes), at least the job's CPUs
 * and min_nodes: every node taken gives a CPU, so the first pass cannot
 * fail (its retry, which removes nodes by count, never runs).  The answer
 * stands when it starts now (the whole set's first "now" attempt then
 * decides alike) and L's last offered node is not taken.  RankedTier at
 * least the candidates asks for the full decision only.  Test:
 * integration_select B13 (counts against plain cons_tres, nodes of
 * will-run and real start against RankedTier=1000000, with a busy node in
 * the head; none for a GRES job or without a tail). */
static bitstr_t *few_probe(const struct call *a, const bitstr_t *work, uint32_t *taken)
{
	job_record_t *job_ptr = a->job_ptr;
	__typeof__(job_ptr->details) d = job_ptr->details;
	const node_record_t *last_ptr;
	uint64_t head_cpus = 0, weight;
	uint32_t n, head, tail, m, t, lim, k;
	bitstr_t *few, *natural;
	int i, first, last;

	if (!a->greedy_conf || job_may_share(job_ptr) ||
	    (job_ptr->gres_list_req && list_count(job_ptr->gres_list_req) > 0) ||
	    d->req_node_bitmap || d->contiguous || job_ptr->req_switch ||
	    (job_ptr->bit_flags & SPREAD_JOB) || PSIPLACE_FEATURE_COUNTS(d) ||
	    (job_ptr->part_ptr && (job_ptr->part_ptr->flags & PART_FLAG_LLN)))
		return NULL;
#if PSIPLACE_SLURM_AT_LEAST(24, 11)
	if (a->will_run && a->will_run->start > time(NULL))
		return NULL;
#endif
#if PSIPLACE_SLURM_AT_LEAST(23, 11)
	if (a->resv_exc && a->resv_exc->exc_cores)
		return NULL;
#else
	if (a->exc_core_bitmap)
		return NULL;
#endif
	/* M: choose_nodes() takes at most MAX(tasks, min_nodes) nodes */
	lim = d->num_tasks && a->max_nodes > d->num_tasks
		      ? (d->num_tasks > a->min_nodes ? d->num_tasks : a->min_nodes)
		      : a->max_nodes;
	if (lim < d->min_cpus || lim < a->min_nodes)
		return NULL;
	first = bit_ffs((bitstr_t *)work);
	last = bit_fls((bitstr_t *)work);
	n = (uint32_t)bit_set_count((bitstr_t *)work);
	if (first < 0 || n != (uint32_t)(last - first + 1) || a->ranked_tier >= n)
		return NULL; /* a gap: sets that differ */
	last_ptr = node_record_table_ptr[last];
	weight = last_ptr->sched_weight;
	for (i = last; i >= first; i--) {
		const node_record_t *node_ptr = node_record_table_ptr[i];

		if (!node_ptr || !idle_settled(node_ptr) || !same_node(last_ptr, node_ptr) ||
		    node_ptr->sched_weight != weight)
			break;
	}
	tail = (uint32_t)(last - i);
	head = n - tail;
	for (; i >= first; i--) {
		const node_record_t *node_ptr = node_record_table_ptr[i];

		if (!node_ptr || node_ptr->sched_weight != weight)
			return NULL;
		head_cpus += node_ptr->cpus;
	}
	t = (uint32_t)((head_cpus > lim ? head_cpus : lim) + 1);
	if (head_cpus >= UINT32_MAX - 1 || t >= tail)
		return NULL;
	m = head + t;
	few = bit_alloc(bit_size((bitstr_t *)work));
	bit_nset(few, first, first + (int)m - 1);
	natural = psiplace_sel_count_probe(a, few, true);
	FREE_NULL_BITMAP(few);
	k = natural ? (uint32_t)bit_set_count(natural) : 0;
	if (natural && bit_test(natural, first + (int)m - 1))
		FREE_NULL_BITMAP(natural);
	log_flag(SELECT_TYPE, "%s: %pJ: count of a few: cons_tres over %u of %u nodes (a head of %u, %u of a tail of %u identical idle nodes): %s",
		 PSIPLACE_SEL_TYPE, job_ptr, m, n, head, t, tail,
		 natural ? "taken" : "not now or ran out, over all nodes");
	*taken = k;
	return natural;
}

/* How many nodes cons_tres gives a job whose node count a range leaves
 * open.  cons_tres takes nodes greedily by weight and, among nodes of
 * equal weight, the tightest single node that holds the job; the policy's
 * distinct weights would make it take the first-ranked node even when it
 * is too small, and then more (with --use-min-nodes, or -n alone, two
 * nodes where cons_tres gives one).  So cons_tres decides first in its own
 * order (without preemption: the count of a start that needs none), and
 * the policy then chooses that many nodes.  *b is a with the count fixed;
 * returns cons_tres's own choice (the caller frees it), or NULL when the
 * count is not open or cons_tres found none (b is then a).  Tests:
 * integration_select A (the counts against plain cons_tres), B12 (the
 * start the policy sees after the probe). */
bitstr_t *psiplace_sel_count_first(const struct call *a, bitstr_t *work, struct call *b)
{
	job_record_t *job_ptr = a->job_ptr;
	bitstr_t *natural;
	uint32_t k;

	*b = *a;
	if (a->mode != SELECT_MODE_RUN_NOW && a->mode != SELECT_MODE_WILL_RUN)
		return NULL;
	if (a->min_nodes >= a->max_nodes)
		return NULL;
	/* One CPU on one node, no GRES: one node whatever the order */
	if (job_ptr->details->min_cpus <= 1 && a->min_nodes <= 1 && a->req_nodes <= 1 &&
	    !job_ptr->gres_list_req)
		return NULL;
	if ((natural = few_probe(a, work, &k)))
		b->count_of_few = true;
	else if (!(natural = psiplace_sel_count_probe(a, work, false)))
		return NULL;
	k = (uint32_t)bit_set_count(natural);
	if (k < a->min_nodes || k > a->max_nodes) { /* cannot happen; keep cons_tres's range */
		FREE_NULL_BITMAP(natural);
		b->count_of_few = false;
		return NULL;
	}
	b->min_nodes = b->max_nodes = b->req_nodes = k;
	log_flag(SELECT_TYPE, "%s: %pJ: cons_tres gives %u node%s (range %u-%u, req %u)",
		 PSIPLACE_SEL_TYPE, job_ptr, k, k == 1 ? "" : "s", a->min_nodes, a->max_nodes,
		 a->req_nodes);
	return natural;
}

/* A will-run that needs every node offered (backfill's top job at the time
 * enough nodes free up) gets all of them or none, whatever the order, and
 * will-run returns only the node set and the start.  Equality: cons_tres
 * cannot succeed with fewer than min_nodes nodes nor take nodes it is not
 * offered; the start of a will-run is found by simulating job ends over
 * the same set, which the weights do not enter.  With the policy's
 * distinct weight on every node, cons_tres's _eval_nodes made each node a
 * set of its own and searched them all for each node it took, O(n^2):
 * seconds per try for a 37,500-node job at 50,000 nodes (doc/select.md,
 * "Backfill cycles").  Test: integration_select B7. */
bool psiplace_sel_every_node_ok(const struct call *b, uint32_t offered)
{
	return b->mode == SELECT_MODE_WILL_RUN && offered <= b->min_nodes;
}
