/* psiplace — what-if simulation: a workload trace replayed on a node table
 * with the policy engine the select plugin runs (doc/simulate.md).
 *
 * Two readers turn a trace into jobs (a sacct export, SWF 2.2), one turns
 * `scontrol show node -o` into the node table `psiplace rank` reads, and
 * psiplace_sim_run() replays the jobs under one policy: EASY backfill
 * over time limits, event-driven, CPUs (and memory) per node consumed as
 * cons_tres with CR_Core does, node choice by psiplace_choose(). */
#ifndef PSIPLACE_SIM_H
#define PSIPLACE_SIM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "psiplace/error.h"
#include "psiplace/nodetable.h"
#include "psiplace/policy.h"

#ifdef __cplusplus
extern "C" {
#endif

#define PSIPLACE_SIM_MAXBYTES (1ull << 32) /* trace file size */
#define PSIPLACE_SIM_MAXJOBS 50000000

/* One job of a trace.  Times in seconds (sacct: UTC epoch of the printed
 * local time; SWF: seconds from the log's start). */
struct psiplace_sim_job {
	uint64_t id;
	int64_t submit;    /* when it was submitted */
	int64_t eligible;  /* when it could first start (>= submit) */
	int64_t start;     /* when it started in the trace; -1: unknown */
	int64_t runtime;   /* traced elapsed time */
	int64_t limit;     /* time limit (the backfill estimate); runtime when unknown */
	uint32_t nodes;    /* node count; 0: from cpus and the cluster (SWF) */
	uint32_t cpus;     /* CPUs of the whole job (SWF: field 5, allocated, else 8) */
	uint32_t req_cpus; /* SWF field 8 (requested processors); 0: not given */
	uint64_t mem;      /* MB per node (nodes 0: per CPU); 0: unknown */
	double priority;   /* higher first; equal: submit order */
	bool exclusive;    /* whole nodes */
	int line;          /* where it was read */
	size_t nodelist;   /* sacct NodeList: offset into trace.nodelists; 0: none */
	/* sacct Comment or AdminComment `psi-malleable=MIN-MAX` (the job's
	 * --psi-malleable range, node counts); max 0: none */
	uint32_t mall_min, mall_max;
};

/* What a reader did with the lines it did not turn into jobs. */
struct psiplace_sim_counts {
	size_t lines;        /* data lines read (no header, comments, blank lines) */
	size_t never_ran;    /* pending, cancelled before start, no start time */
	size_t running;      /* started but no end yet (the export was taken then) */
	size_t steps;        /* sacct job steps (ID.batch, ID.0 ...): not jobs */
	size_t array_tasks;  /* array tasks (ID_TASK): each replayed as its own job */
	size_t no_limit;     /* no usable time limit: the runtime is the estimate */
	size_t unknown_fields; /* sacct header fields this reader ignores */
	size_t malformed;    /* lines skipped with lenient */
	/* sacct -D: the records of a resized job (every size but the last
	 * State RESIZING) folded into one job each (sim_sacct.c) */
	size_t resized_jobs;   /* jobs made of more than one record */
	size_t resize_records; /* the records folded into an earlier one of the same job */
	size_t resized_unended; /* not replayed: the last record is RESIZING (a helper merged
				  * into another job, or a job still running) */
};

enum psiplace_sim_format { PSIPLACE_SIM_AUTO = 0, PSIPLACE_SIM_SACCT, PSIPLACE_SIM_SWF };

struct psiplace_sim_trace {
	struct psiplace_sim_job *jobs; /* in file order */
	size_t n;
	bool has_priority; /* the trace gave priorities */
	enum psiplace_sim_format format; /* what was read */
	char *nodelists;   /* NUL-terminated NodeList texts; [0] is "" */
	size_t nodelists_len, nodelists_cap;
	struct psiplace_sim_counts counts;
};

/* Parse a trace of len bytes; `file` names it in "FILE:LINE: ..." errors.
 * AUTO reads sacct when the first line that is not blank names JobIDRaw
 * (or JobID) among '|'-separated fields, SWF otherwise.  A malformed line
 * fails the parse, or with lenient is skipped and counted.  On error
 * nothing is left to free. */
int psiplace_sim_trace_parse(const char *text, size_t len, const char *file,
			     enum psiplace_sim_format format, bool lenient,
			     struct psiplace_sim_trace *t, psiplace_error_t *err);
void psiplace_sim_trace_free(struct psiplace_sim_trace *t);

/* A trace file's bytes start with gzip's magic (1f 8b). */
bool psiplace_sim_is_gzip(const char *text, size_t len);
/* Inflate a gzip file of len bytes (members one after another read on)
 * into *out (malloc'ed, *outlen bytes, at most PSIPLACE_SIM_MAXBYTES);
 * `file` names it in errors.  0, or -1 with err. */
int psiplace_sim_gunzip(const char *in, size_t len, const char *file, char **out,
			size_t *outlen, psiplace_error_t *err);

/* A time limit as sacct prints it: [D-]HH:MM:SS, MM:SS, MM, D-HH,
 * D-HH:MM; "UNLIMITED", "Partition_Limit", "" and "INVALID" give 0
 * (unknown).  false when it is none of these. */
bool psiplace_sim_parse_limit(const char *s, size_t n, int64_t *secs);

/* `scontrol show node -o` output (one node a line: NodeName= CPUTot=
 * RealMemory= Weight= ActiveFeatures= Arch= OS= TmpDisk= ThreadsPerCore=)
 * as the node table psiplace_nodetable_parse() gives for the same nodes in
 * CSV; `file` names it in errors. */
int psiplace_sim_nodetable_from_scontrol(const char *text, size_t len, const char *file,
					 struct psiplace_nodetable *t, psiplace_error_t *err);

/* Malleable jobs (doc/simulate.md, "Malleable jobs"): which of a trace's
 * jobs may be resized, and the model of a resize.  The decision is
 * psiplace_rdec_decide() (psiplace/resize_decision.h), the code the
 * resource manager's daemon runs. */
enum psiplace_sim_mall_rule {
	PSIPLACE_SIM_MALL_NONE = 0,
	PSIPLACE_SIM_MALL_FRACTION,  /* a share of the jobs, chosen by a seed */
	PSIPLACE_SIM_MALL_MIN_NODES, /* jobs of at least min_nodes nodes */
	PSIPLACE_SIM_MALL_TRACE,     /* jobs whose sacct Comment/AdminComment gives psi-malleable= */
};

struct psiplace_sim_malleable {
	enum psiplace_sim_mall_rule rule;
	double fraction;       /* FRACTION: 0 < fraction <= 1 */
	uint64_t seed;         /* FRACTION: which jobs (a hash of seed and job id) */
	uint32_t min_nodes;    /* MIN_NODES */
	/* A chosen job of n nodes may run on [ceil(range_lo n), floor(range_hi
	 * n)] nodes, within [1, the cluster's nodes] (TRACE: its own range,
	 * capped by the cluster) */
	double range_lo, range_hi;  /* 0.5, 2 */
	int64_t interval;      /* seconds between two decisions (the daemon's interval): 5 */
	int64_t min_interval;  /* seconds between two resizes of one job: 60 */
	/* A resize's cost in seconds: base + per_node x nodes added (grow) or
	 * released (shrink), rounded up to whole seconds (the clock's unit);
	 * the job holds the nodes of both sizes and makes no progress then. */
	double grow_base, grow_per_node, shrink_base, shrink_per_node;
	/* A job traced on n nodes does n + efficiency x (m - n) nodes' work a
	 * second on m nodes (1: linear) */
	double efficiency;
	bool log;              /* record every resize in the report */
	/* The rigid baseline: the jobs the rule chooses hold whole nodes as
	 * malleable ones do, at their traced size, and are never resized (so
	 * that rigid and malleable replays differ in the resizes alone). */
	bool baseline;
};

/* The defaults above. */
void psiplace_sim_malleable_init(struct psiplace_sim_malleable *m);
/* One command-line flag into m: "malleable" (RULE: fraction=F[,seed=N] |
 * min-nodes=N | trace), "malleable-range" (LO,HI), "resize-interval",
 * "resize-min-interval" (SECONDS), "resize-cost" (GB,GN,SB,SN),
 * "resize-efficiency" (E).  0, or -1 with one line in err naming the
 * flag, the value and what is accepted. */
int psiplace_sim_malleable_option(struct psiplace_sim_malleable *m, const char *flag,
				  const char *value, psiplace_error_t *err);
/* `psi-malleable=MIN-MAX` in a sacct Comment text of n bytes: 1 found
 * (*min, *max set), 0 not there, -1 there but not 1 <= MIN <= MAX. */
int psiplace_sim_malleable_tag(const char *s, size_t n, uint32_t *min, uint32_t *max);

/* One resize of a replay (psiplace_sim_malleable.log). */
struct psiplace_sim_resize {
	int64_t t, done;      /* decided (and begun), completed (t + its cost) */
	uint32_t job;         /* index in the trace */
	uint32_t from, to;    /* nodes before and after */
	size_t first;         /* the nodes added or released: report.resize_nodes[first..] */
};

/* The model's choices (doc/simulate.md); zero is the default of each. */
struct psiplace_sim_opts {
	struct psiplace_rank_opts rank; /* policy, weight override, cluster function */
	bool submit_order;     /* ignore the trace's priorities */
	int64_t bf_window;     /* reserve only when the top job starts within it; 0: 86400 */
	uint32_t bf_depth;     /* queued jobs a pass considers; 0: 500 (bf_max_job_test) */
	/* Seconds between backfill passes (Slurm's bf_interval, default 30);
	 * at the other event times only the main scheduler's pass (jobs start
	 * in order until one cannot).  0: a backfill pass at every event. */
	int64_t bf_interval;
	double speed_ref;      /* > 0: runtimes scaled by speed_ref / slowest node's Speed */
	bool exclusive;        /* every job takes whole nodes */
	/* Backfill as sched/backfill does it: every blocked job in the depth
	 * gets a plan (its start time and nodes), and a planned node is
	 * withheld whole from any job that would overlap the plan in time.
	 * false: EASY, one reservation, later jobs may use the CPUs it leaves. */
	bool plan_all;
	/* EASY's reservation as a processor count (textbook EASY, as in the
	 * literature): a later job that would still run at the reserved time
	 * may start if its CPUs are no more than the CPUs free then beyond the
	 * top job's, wherever they are.  false (the default): node-specific,
	 * the reservation holds the very nodes the engine chose for it, as
	 * Slurm's backfill plans specific nodes.  Not with plan_all. */
	bool reserve_count;
	/* Jobs start when the trace says they did (a job with no traced start,
	 * or no room then, as soon as it has room): the queue model is
	 * bypassed, and the replay checks node choice alone. */
	bool trace_starts;
	/* With trace_starts: a job with a traced start and NodeList starts
	 * then, the engine makes its choice on the state there is (recorded
	 * as the job's nodes, and compared with the trace's), and the job then
	 * occupies the traced nodes, so that every choice is made on the node
	 * state Slurm had.  Implies trace_starts. */
	bool trace_nodes;
	/* A job that ran longer than its limit runs its whole traced time
	 * (true), or is killed at its limit as Slurm does (false, the
	 * default; OverTimeLimit is not modelled). */
	bool overrun_run;
	/* SWF: a job's processors from field 8 (requested) where given, not
	 * field 5 (allocated, the default). */
	bool swf_requested;
	uint64_t seed;         /* RANDOM's seed, mixed with each job's id */
	/* Malleable jobs resized by the resource manager's decision; NULL or
	 * rule NONE: every job rigid.  Not with trace_starts. */
	const struct psiplace_sim_malleable *malleable;
	/* Called every 10,000 started jobs (a progress line); NULL: none. */
	void (*progress)(void *arg, size_t started, size_t jobs);
	void *progress_arg;
};

/* One command-line flag of the replay's model into o: "bf-window"
 * (SECONDS, 1 to 100000000), "bf-interval" (SECONDS, 0 to 86400),
 * "bf-depth" (N, 1 to 100000000), "speed-scaling" (REF, 0.000001 to
 * 1000000; value NULL: 1), "seed" (N).  0, or -1 with one line in err
 * naming the flag, the value and what is accepted. */
int psiplace_sim_option(struct psiplace_sim_opts *o, const char *flag, const char *value,
			psiplace_error_t *err);

/* What happened to one job under one policy. */
struct psiplace_sim_result {
	int64_t start, end; /* -1: never started (it fits on no node) */
	uint32_t nfirst;    /* nodes: the first index into psiplace_sim_report.alloc */
	uint32_t nnodes;
	bool shape_wait;    /* waited while enough CPUs were free, not in its shape */
	/* trace_nodes: 1 the engine chose the traced nodes, 0 other nodes (or
	 * none: then nodes are the traced ones), -1 not compared */
	int8_t same_as_trace;
	uint32_t mall_min, mall_max; /* its range when malleable; max 0: rigid */
	uint32_t resizes;            /* resizes it made */
};

struct psiplace_sim_report {
	size_t jobs;            /* replayed */
	size_t unplaceable;     /* asked more than the cluster has: never started */
	int64_t makespan;       /* last end - first eligible */
	double utilisation;     /* allocated CPU-seconds / (CPUs * makespan): whole
				 * nodes' or ppn x nodes' CPUs, as the job held them */
	double utilisation_used; /* the jobs' own CPU-seconds (CPUs asked x run) / (CPUs * makespan) */
	size_t overruns;        /* jobs whose traced run exceeds their limit (killed or not: overrun_run) */
	/* trace_starts: jobs that started after their traced start (the
	 * recorded schedule over-subscribes the cluster), and the longest delay */
	size_t start_delays;
	int64_t start_delay_max;
	double wait_mean, wait_median, wait_p95;
	double bsld_mean;       /* bounded slowdown, tau = 10 s */
	double frag;            /* time-averaged share of free CPUs on partly used nodes */
	size_t shape_waits;     /* jobs with shape_wait */
	double cpu_hours_saved; /* with speed scaling: traced minus simulated CPU-hours */
	/* trace_nodes: decisions compared with the trace, the same of them,
	 * those where the engine found no room, jobs whose NodeList was
	 * missing or not NNodes nodes of this cluster (not compared) */
	size_t decisions, decisions_same, decisions_noroom, decisions_untraced;
	double node_hours;      /* nodes held x time, / 3600 */
	size_t malleable;       /* jobs replayed as malleable */
	size_t grows, shrinks;  /* resizes */
	size_t rdec_calls;      /* psiplace_rdec_decide() calls */
	struct psiplace_sim_resize *resizes; /* malleable.log: every resize, in time order */
	size_t nresizes;
	uint32_t *resize_nodes;
	size_t nresize_nodes;
	struct psiplace_sim_result *res; /* per job, in trace order */
	uint32_t *alloc;        /* node indexes of every started job */
	size_t nalloc;
};

/* Replay the trace on the nodes (copied; their alloc and load fields are
 * replaced: the cluster starts empty) under opts.  Jobs are normalised
 * here: SWF's node counts come from the smallest node's CPUs.  Returns 0
 * with the report filled, or -1 with err. */
int psiplace_sim_run(const struct psiplace_sim_trace *t, const struct psiplace_node *nodes,
		     size_t n, const struct psiplace_sim_opts *opts,
		     struct psiplace_sim_report *r, psiplace_error_t *err);
void psiplace_sim_report_free(struct psiplace_sim_report *r);

#ifdef __cplusplus
}
#endif
#endif
