/* psiplace-malleabled's pure half: what one decision cycle does with what
 * slurmctld said, without Slurm's headers, so that the unit tests run it
 * on made-up clusters (tests/unit/malleabled/).  malleabled.c turns
 * libslurm's node, partition and job records into the structs below,
 * calls psiplace_md_cycle() and carries out the actions it returns.
 *
 * Files, bottom first: md_track.c (the per-job bookkeeping and its state
 * file), md_snapshot.c (the decision's input from the records and the
 * bookkeeping), md_cycle.c (acknowledgements, deadlines, decisions,
 * orders). */
#ifndef PSIPLACE_MD_MODEL_H
#define PSIPLACE_MD_MODEL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "psiplace/error.h"
#include "psiplace/policy.h"
#include "psiplace/priorityf.h"
#include "psiplace/psiplace_conf.h"
#include "psiplace/resize_channel.h"
#include "psiplace/resize_decision.h"

/* The helper allocation a job requests for a grow: psiplace-grow-J-ID.
 * The prefix is reserved: a pending or running job of that name that no
 * outstanding grow order stands for is cancelled (md_cycle.c's sweep). */
#define PSIPLACE_MD_HELPER_PREFIX "psiplace-grow-"
/* Decision ids stay below this (one a second for 285 million years): an
 * acknowledgement naming a larger id (a user writes any into Comment)
 * does not move the counter, so no user can make it wrap. */
#define PSIPLACE_MD_ID_MAX (UINT64_C(1) << 53)
/* Pending jobs one decision reads (the highest priority ones): bounds the
 * decision's cost; the rest cannot start before these anyway. */
#define PSIPLACE_MD_MAX_PENDING_DEFAULT 1000

struct psiplace_md_node {
	const char *name;
	uint32_t cpus;
	bool allocated;  /* slurmctld: ALLOCATED, MIXED or COMPLETING */
	bool usable;     /* not DOWN, DRAIN, FAIL or not responding */
	enum psiplace_power_state power;
	const char *partitions; /* comma-separated; NULL: none known */
	uint64_t weight;        /* slurm.conf's Weight (the policies' weight tier) */
};

struct psiplace_md_part {
	const char *name;
	uint32_t max_nodes;   /* MaxNodes; 0: unlimited */
	uint32_t total_nodes;
};

enum psiplace_md_jstate { PSIPLACE_MD_OTHER = 0, PSIPLACE_MD_PENDING, PSIPLACE_MD_RUNNING };

struct psiplace_md_job {
	uint32_t id, user;
	enum psiplace_md_jstate state;
	bool eligible;        /* pending: may start once nodes are free (not held, no dependency) */
	const char *name;
	const char *partition;
	const char *nodes;    /* running: NodeList; pending: backfill's SchedNodeList (NULL: none) */
	const char *batch_host; /* running: the batch host (NULL or "": NodeList's first node) */
	uint32_t num_nodes;
	uint32_t priority;
	int64_t start;        /* running: start; pending: backfill's StartTime (<= 0: unknown) */
	int64_t end;          /* running: start + time limit; PSIPLACE_RDEC_NEVER: none */
	int64_t time_limit;   /* seconds; PSIPLACE_RDEC_NEVER: none */
	const char *admin_comment, *comment;
};

struct psiplace_md_input {
	int64_t now;
	const struct psiplace_md_node *nodes; /* in slurm.conf order */
	size_t nnodes;
	const struct psiplace_md_part *parts;
	size_t nparts;
	const struct psiplace_md_job *jobs;
	size_t njobs;
};

/* A refused shrink (acknowledged failed, or withdrawn unacknowledged):
 * no shrink order for max(MalleableMinInterval, this) seconds, doubled
 * with every refusal in a row, at most PSIPLACE_MD_BACKOFF_MAX. */
#define PSIPLACE_MD_BACKOFF_MIN 10
#define PSIPLACE_MD_BACKOFF_MAX 3600

/* What the daemon remembers of one running malleable job. */
struct psiplace_md_track {
	uint32_t job;
	uint32_t min, max;              /* from AdminComment's range; 0 0: not known */
	int64_t last_resize;            /* <= 0: never */
	uint32_t refusals;              /* shrinks refused in a row (0: none) */
	int64_t no_shrink_until;        /* no shrink order before this time */
	struct psiplace_rchan_order order; /* id 0: no order outstanding */
	uint64_t noted_ack;             /* an acknowledgement id already logged */
	bool seen;                      /* running in this cycle's records */
	/* the policy part of its AdminComment in this cycle's records
	 * (psiplace/resize_channel.h), kept in every AdminComment the cycle
	 * writes; NULL: none.  Points into the cycle's input. */
	const char *policy_part;
};

/* Nodes a shrink released for a pending job (its order's FOR job), held
 * for it (the decision's rule 3d: no grow into them) from the shrink's
 * acknowledgement until the job leaves the pending queue or `until`
 * passes (MalleableHoldTime): between the release and the scheduler's
 * next pass the nodes are idle and backfill's plan for the job is stale. */
struct psiplace_md_hold {
	uint32_t job;
	int64_t until;
	char nodes[PSIPLACE_RCHAN_NODES_MAX]; /* hostlist expression (the order's) */
};

struct psiplace_md_tracks {
	uint64_t next_id;               /* the next decision id (>= 1) */
	struct psiplace_md_track *t;    /* ascending job id */
	size_t n, cap;
	struct psiplace_md_hold *holds; /* in the order they were made */
	size_t nholds, capholds;
};

void psiplace_md_tracks_init(struct psiplace_md_tracks *T);
void psiplace_md_tracks_free(struct psiplace_md_tracks *T);
/* The job's track, created (zeroed) when add is true; NULL: none / out of memory. */
struct psiplace_md_track *psiplace_md_track_of(struct psiplace_md_tracks *T, uint32_t job,
					       bool add);
/* Hold `nodes` for pending job `job` until `until`; -1: out of memory. */
int psiplace_md_hold_add(struct psiplace_md_tracks *T, uint32_t job, int64_t until,
			 const char *nodes);
/* The state file: "psiplace-malleabled 1", "next_id N", then one line per
 * track: "job J MIN MAX LAST_RESIZE ORDER" (ORDER the order's text or -),
 * followed by " REFUSALS NO_SHRINK_UNTIL" when a shrink was refused, then
 * one line per hold: "hold JOB UNTIL NODES". */
long psiplace_md_tracks_format(const struct psiplace_md_tracks *T, char **out);
int psiplace_md_tracks_parse(const char *text, const char *file, struct psiplace_md_tracks *T,
			     psiplace_error_t *err);

/* The decision's input; strings point into the input and the snapshot. */
struct psiplace_md_snapshot {
	struct psiplace_rdec_state state;
	struct psiplace_rdec_node *nodes;
	struct psiplace_rdec_running *running;
	struct psiplace_rdec_pending *pending;
	uint32_t *positions; /* every node list, one block */
	size_t npositions;
	struct psiplace_priorityf **fns; /* the jobs' own PRIORITY functions, compiled */
	size_t nfns;
	size_t bad_policies; /* jobs whose policy part was malformed: theirs not used */
	size_t skipped;      /* running jobs left out: a node Slurm did not list, or a batch
			      * host another job of the snapshot holds */
	struct psiplace_rdec_hold *holds; /* the tracks' holds (those naming known nodes) */
};

void psiplace_md_snapshot_init(struct psiplace_md_snapshot *s);
void psiplace_md_snapshot_free(struct psiplace_md_snapshot *s);
/* The decision's state from the records and the tracks (ranges,
 * in-progress orders, last resizes, holds; a job within its shrink back-off has
 * MIN raised to its size, so that it may grow but not shrink).  Pending
 * jobs: eligible ones that are not psiplace's grow helpers, highest
 * priority first (then lower id), at most max_pending.  A malleable job's
 * MAX is cut to its partition's MaxNodes and size.  Each job's policy is
 * its own, from the policy part of its AdminComment (NONE without one, or
 * with a malformed one, counted in bad_policies: the decision then takes
 * its partition's or the cluster's); each node carries its Weight and,
 * from psiconf (NULL: none), its Speed, Priority, ChargeRate and
 * PriorityFunction, as the select plugin rates it.  -1 with err: out of
 * memory. */
int psiplace_md_snapshot_build(const struct psiplace_md_input *in,
			       const struct psiplace_md_tracks *T, size_t max_pending,
			       const struct psiplace_psiconf *psiconf,
			       struct psiplace_md_snapshot *s, psiplace_error_t *err);
/* The nodes at positions pos[0..n-1] as a comma-separated list; -1 when
 * it does not fit len bytes. */
long psiplace_md_node_list(const struct psiplace_md_snapshot *s, const uint32_t *pos, size_t n,
			   char *buf, size_t len);

enum psiplace_md_act {
	PSIPLACE_MD_WRITE_ADMIN = 1, /* AdminComment = text */
	PSIPLACE_MD_CANCEL,          /* scancel the job (a grow helper) */
};

struct psiplace_md_action {
	enum psiplace_md_act kind;
	uint32_t job;
	char text[PSIPLACE_RCHAN_ADMIN_MAX];
};

/* What one cycle asks of slurmctld and says, in order. */
struct psiplace_md_out {
	struct psiplace_md_action *a;
	size_t n, cap;
	char **line;     /* log lines: decisions, acknowledgements, withdrawals */
	size_t nline, capline;
	char **decision; /* the decision lines alone (what --once prints) */
	size_t ndecision, capdecision;
	size_t skipped;  /* running jobs the snapshot left out (md_snapshot's skipped) */
	size_t bad_policies; /* jobs whose own policy could not be read (md_snapshot's) */
};

void psiplace_md_out_init(struct psiplace_md_out *o);
void psiplace_md_out_free(struct psiplace_md_out *o);

struct psiplace_md_params {
	/* the decision's parameters: psiplace.conf's Malleable* keys and
	 * PartitionName lines, the plugstack line's policy and function */
	struct psiplace_rdec_params rdec;
	const struct psiplace_psiconf *psiconf; /* nodes' attributes; NULL: none */
	int64_t ack_timeout;  /* seconds */
	int64_t hold_time;    /* MalleableHoldTime: seconds a shrink's nodes stay held for
			       * its FOR job at most; 0: no hold */
	size_t max_pending;
	bool log_nothing;     /* log NOTHING decisions too (not only changes of reason) */
};

/* One cycle on the records: (1) every running job's AdminComment and
 * Comment against its track — the range learnt, an order found in
 * AdminComment adopted (after a restart without state, the id counter
 * moves past it, and past the id of an acknowledgement in Comment, so
 * that no new decision is answered by an old acknowledgement), an order
 * not in AdminComment written again, an
 * acknowledgement of the current order clears it (AdminComment back to
 * the range; a shrink acknowledged failed starts or doubles the job's
 * shrink back-off, one done ends it and holds its nodes for its FOR job
 * for at most hold_time seconds), one past its deadline is withdrawn
 * (AdminComment back to the range, the grow helper cancelled, a shrink
 * counted as refused); tracks of jobs no longer running
 * are dropped (their helper cancelled); holds whose job is no longer
 * pending, or whose time is up, are dropped; (2) the sweep: every grow helper
 * (PSIPLACE_MD_HELPER_PREFIX), pending or running, that no outstanding
 * grow order stands for is cancelled; (3) the decision; (4) an order per
 * SHRINK/GROW, its id taken from T->next_id.  T is updated: the caller
 * saves it BEFORE it carries out the actions, so that an id written into
 * a job is never given again.  A snapshot the decision refuses (a node
 * held by two jobs in records taken a moment apart) is a log line and no
 * decision this cycle.  -1 with err: out of memory (T and out may hold
 * part of the cycle's work; both stay valid). */
int psiplace_md_cycle(const struct psiplace_md_input *in, const struct psiplace_md_params *p,
		      struct psiplace_md_tracks *T, struct psiplace_md_out *out,
		      psiplace_error_t *err);

#endif
