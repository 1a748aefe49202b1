/* The replay's state, shared by its files (common/sim/sim_*.c). */
#ifndef PSIPLACE_SIM_REPLAY_H
#define PSIPLACE_SIM_REPLAY_H

#include "psiplace/sim.h"

/* A job as the replay sees it: its shape on this cluster. */
struct sjob {
	uint64_t id;
	int64_t elig, run, limit, end, limit_end;
	int64_t tstart;               /* trace_starts: the traced start; -1 none */
	uint32_t k, ppn, cpus, trace; /* trace: index in the trace */
	uint64_t mem;                 /* MB per node */
	double prio;
	bool excl, fits;              /* fits: on the empty cluster */
	uint32_t tfirst, tk;          /* trace_nodes: its traced nodes in sim.tnodes; tk 0: none */
	bool on_trace;                /* it runs on its traced nodes, not on res's */
	/* Malleable (sim_mall.c): its range, the nodes it holds now (mnodes,
	 * k of them; during a shrink the released ones last, mdrop of them),
	 * its work left at wt (node-seconds of its traced size's rate), the
	 * rate it runs at, when its held nodes last changed (the accounting),
	 * its resize in progress until busy, its last resize. */
	bool mall, done;
	uint32_t mmin, mmax, k0, mdrop;
	uint32_t *mnodes;
	double work, rate;
	int64_t wt, seg_t, busy, last_resize;
};

struct heap {
	int64_t *key;
	uint32_t *val;
	size_t n, cap; /* cap 0: fixed, never more than allocated; else grows */
	bool oom;      /* a push found no memory (the replay fails) */
};

struct shape {
	uint32_t k, ppn;
	uint64_t mem;
	bool excl, patched; /* patched: found no room beside the reservation */
};

#define SIM_MAXFAIL 8

struct sim {
	const struct psiplace_sim_opts *opts;
	struct psiplace_sim_report *r;
	size_t n;                         /* nodes */
	struct psiplace_node *now, *idle; /* engine views: as they are; only idle nodes powered */
	uint32_t *alloc, *njobs, *nodefree, *pick, *rel, *touched;
	uint64_t *amem, *relmem;
	bool *wasp;                       /* partly used with CPUs free */
	uint32_t *hist, maxcpus;          /* nodes by free CPUs (maxcpus and more in the last) */
	uint32_t idle_nodes;
	/* sim_room.c: powered nodes by free CPUs (border; bpos: a node's
	 * place; bstart[f]: where f free CPUs begin, bstart[maxcpus + 1] =
	 * npow), and the compact view the engine is then asked over */
	uint32_t *border, *bpos, *bstart, npow, *cmap;
	struct psiplace_node *cview;
	bool compact;                     /* node indexes unique */
	int64_t free_total, free_partial, total_cpus;
	struct sjob *jobs;
	size_t njob;
	uint32_t *queue, *running;
	size_t nq, nrun, started;
	size_t considered;                /* last pass: queued jobs it walked, still queued */
	bool walked_all, blocked;         /* it reached the queue's end; one was blocked */
	struct heap ends;
	struct heap wakes;                /* trace_starts: traced starts of queued jobs */
	int64_t t, next_bf;                /* opts->bf_interval: the next backfill pass */
	struct {
		bool active, found;
		uint32_t q;     /* the job it is for */
		int64_t t;
		uint32_t k, *nodes, *extra;
		uint64_t *extra_mem;
		int64_t cpus_extra; /* opts->reserve_count: CPUs free at t beyond the job's */
	} resv;
	struct shape fail[SIM_MAXFAIL];
	size_t nfail;
	/* plan_all (sched/backfill's own way): the pass's plans, a view */
	struct plan { int64_t t0, t1; size_t first; uint32_t k, q; } *plans;
	size_t nplans, plans_cap, nplan_nodes, plan_nodes_cap, times_cap;
	uint32_t *plan_nodes;
	int64_t *times;
	struct psiplace_node *view;
	uint32_t *tnodes;                 /* trace_nodes: the jobs' traced nodes */
	uint8_t *mark;                    /* trace_nodes: scratch, per node */
	uint32_t *need, *deferred;        /* trace_nodes: CPUs per node; ends held this second */
	size_t ndeferred;
	double cpu_secs, used_secs, saved, frag_area, frag_time;
	size_t overruns; /* jobs whose traced run exceeds their limit */
	size_t engine_calls;
	double node_secs;
	/* Malleable jobs (sim_mall.c) */
	const struct psiplace_sim_malleable *mall;
	struct heap mdone;                /* resizes' completions */
	int64_t next_dec, t0;             /* the next decision; the ticks' origin */
	uint32_t *mrun;                   /* running malleable jobs */
	size_t nmrun;
	uint32_t *ilist, *ipos;           /* idle powered nodes (a set: list and places) */
	size_t nidle;
	struct sim_rdec *rd;              /* the decision's state (sim_mall.c) */
	uint64_t rdec_id;
	bool mall_freed;                  /* a shrink completed: a full pass is due */
	bool mall_failed;                 /* the decision refused the state (a defect) */
};

/* The files of the replay, each using only those above it in this list
 * (tests/unit/calls_down.sh, part sim):
 *   sim_heap.c, sim_choose.c  level 0
 *   sim_room.c                level 1
 *   sim_nodes.c               level 2
 *   sim_start.c, sim_reserve.c level 3
 *   sim_plan.c                level 4
 *   sim_pass.c, sim_mall.c    level 5
 *   sim_run.c                 level 6 */

/* sim_heap.c */
void sim_heap_push(struct heap *h, int64_t key, uint32_t val);
void sim_heap_pop(struct heap *h);

/* sim_choose.c: the engine's choice for j over view[0..n-1] (positions
 * into out). */
bool sim_choose(struct sim *s, const struct sjob *j, const struct psiplace_node *view, size_t n,
		int64_t start_in, uint32_t *out);

/* sim_nodes.c */
void sim_node_sync(struct sim *s, uint32_t i);
uint32_t sim_take_cpus(const struct sim *s, const struct sjob *j, uint32_t node);
void sim_apply(struct sim *s, const struct sjob *j, const uint32_t *nodes, int sign);
void sim_running_add(struct sim *s, uint32_t q);
void sim_running_remove(struct sim *s, uint32_t q);
/* A shape at least j's found no room in this pass (patched: beside the
 * reservation too). */
bool sim_failed_before(const struct sim *s, const struct sjob *j, bool patched);
void sim_remember_fail(struct sim *s, const struct sjob *j, bool patched);

/* sim_start.c */
/* A malleable job's held nodes until now: the accounting (sim.cpu_secs,
 * used_secs, node_secs) of the time since j->seg_t. */
void sim_account(struct sim *s, struct sjob *j);
void sim_start_job(struct sim *s, uint32_t q, const uint32_t *nodes);
/* trace_nodes: job q starts now on its traced nodes; chose: the engine
 * chose s->pick (recorded and compared), else it found no room. */
void sim_start_traced(struct sim *s, uint32_t q, bool chose);
/* Job q ends: its CPUs are given back. */
void sim_release(struct sim *s, uint32_t q);
/* trace_nodes: release the jobs that ended this second whose CPUs j's
 * traced nodes need. */
void sim_release_needed(struct sim *s, const struct sjob *j);

/* sim_reserve.c: the top blocked job's reservation (s->resv); -1 when it
 * can never start. */
int sim_reserve(struct sim *s, uint32_t q);

/* sim_pass.c */
size_t sim_queue_add(struct sim *s, uint32_t q); /* its position */
void sim_pass(struct sim *s);
void sim_pass_arrivals(struct sim *s);
void sim_pass_main(struct sim *s);

/* sim_mall.c: malleable jobs (opts->malleable) */
int sim_mall_setup(struct sim *s, const struct psiplace_sim_trace *t, psiplace_error_t *err);
void sim_mall_free(struct sim *s);
/* A malleable job started / ends (its lists). */
void sim_mall_started(struct sim *s, uint32_t q);
void sim_mall_ended(struct sim *s, uint32_t q);
/* The resizes that complete at s->t (shrinks give their nodes back). */
void sim_mall_complete(struct sim *s);
/* Something changed at s->t: a decision at the next tick. */
void sim_mall_touch(struct sim *s);
/* At s->t == s->next_dec: psiplace_rdec_decide() and its decisions
 * begun. */
void sim_mall_decide(struct sim *s);

/* The nodes a running job holds. */
static inline const uint32_t *held(const struct sim *s, const struct sjob *j)
{
	if (j->mnodes)
		return j->mnodes;
	return j->on_trace ? s->tnodes + j->tfirst : s->r->alloc + s->r->res[j->trace].nfirst;
}

/* sim_room.c */
int sim_room_setup(struct sim *s); /* after the nodes' first node_sync; -1 out of memory */
void sim_room_free(struct sim *s);
void sim_room_move(struct sim *s, uint32_t i, uint32_t was, uint32_t now); /* free CPUs was -> now */
/* Nodes with at least c free CPUs (exclusive: idle nodes). */
uint32_t sim_fit_count(const struct sim *s, uint32_t c, bool excl);
/* sim_choose() over the full view (the nodes the state gives room to c =
 * j's CPUs per node, and extra[]: nodes with more room in view than
 * now), asking the engine over those nodes only. */
bool sim_choose_room(struct sim *s, const struct sjob *j, const struct psiplace_node *view,
		 int64_t start_in, const uint32_t *extra, size_t nextra, uint32_t *out);

/* sim_plan.c: a pass as sched/backfill makes it (opts->plan_all). */
void sim_pass_plan(struct sim *s);
void sim_plan_free(struct sim *s);

#endif
