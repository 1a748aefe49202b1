/* psiplace — psiplace.conf: per-node attributes Slurm lacks (Speed,
 * Priority, ChargeRate, PriorityFunction) and where the metrics file is.
 *
 *   MetricsFile=/run/psiplace/metrics
 *   NodeName=n[1-2] Speed=2.0 Priority=10 ChargeRate=1.5
 *   NodeName=n3 PriorityFunction="2*SPEED - LOAD"
 *   PartitionName=batch NodeAllocationPolicy=LASTAVAILABLE
 *   PartitionName=fast NodeAllocationPolicy=PRIORITY PriorityFunction="SPEED"
 *   MalleableMinInterval=60
 *   MalleableMaxGrow=0
 *   MalleableShrink=yes
 *   MalleableInterval=5
 *   MalleableAckTimeout=120
 *   MalleableHoldTime=120
 *
 * A PartitionName line sets the policy (and the PRIORITY function) of the
 * jobs Slurm tries in that partition: a job's own option wins over it, it
 * wins over the plugstack line's cluster default.  Each partition has one
 * line.
 * The Malleable* keys are the parameters of the resize decision
 * (psiplace/resize_decision.h): the least seconds between two resizes of
 * one job (0..604800, default 60), the most nodes one grow adds (0..1048576,
 * 0 the default: up to the job's MAX), whether malleable jobs are shrunk
 * for waiting work (yes or no, default yes); psiplace-malleabled's own
 * are the seconds between two decisions (MalleableInterval, 1..3600,
 * default 5) and the seconds a job has to acknowledge an order
 * (MalleableAckTimeout, 1..604800, default 120) and the most seconds the
 * nodes a shrink released stay held for the pending job it was made for
 * (MalleableHoldTime, 0..604800, default 120, 0: no hold); each at most
 * once, alone on its line.
 * Keys are case-insensitive, '#' starts a comment outside double quotes,
 * NodeName takes a Slurm hostlist expression.  A node may appear on
 * several lines, but each attribute is set once.  Errors are fatal for
 * the daemon and read "FILE:LINE: message". */
#ifndef PSIPLACE_PSIPLACE_CONF_H
#define PSIPLACE_PSIPLACE_CONF_H

#include <stdbool.h>
#include <stddef.h>

#include "psiplace/policy.h"
#include "psiplace/priorityf.h"
#include "psiplace/resize_decision.h"
#include "psiplace/error.h"

#ifdef __cplusplus
extern "C" {
#endif

#define PSIPLACE_PSICONF_MAXBYTES (1 << 22) /* file size */
#define PSIPLACE_PSICONF_MAXLINE 8192      /* bytes of one line */
#define PSIPLACE_PSICONF_MAXNODES 1048576  /* node entries, all lines */
#define PSIPLACE_PSICONF_MAXPARTS 65536    /* PartitionName lines */
#define PSIPLACE_PSICONF_MAX_INTERVAL 604800 /* MalleableMinInterval, seconds (a week) */
#define PSIPLACE_PSICONF_MAX_GROW 1048576    /* MalleableMaxGrow, nodes */
#define PSIPLACE_PSICONF_MAX_CYCLE 3600      /* MalleableInterval, seconds */
#define PSIPLACE_PSICONF_MALL_INTERVAL_DEFAULT 5
#define PSIPLACE_PSICONF_MALL_ACK_DEFAULT 120
#define PSIPLACE_PSICONF_MALL_HOLD_DEFAULT 120

struct psiplace_nodeconf {
	char *name;
	double speed, priority, charge_rate;
	bool has_speed, has_priority, has_charge_rate;
	const struct psiplace_priorityf *priorityf; /* NULL: none (owned by the conf) */
	const char *priority_function;              /* its text */
	int line[4]; /* where each attribute was set (speed, priority, rate, function) */
	int decl_line; /* the first NodeName line naming it */
};

/* One PartitionName line. */
struct psiplace_partconf {
	char *name;
	enum psiplace_policy policy;               /* PSIPLACE_POLICY_NONE: not set */
	bool has_policy;                           /* NodeAllocationPolicy= given (none too) */
	const struct psiplace_priorityf *priorityf; /* NULL: none (owned by the conf) */
	const char *priority_function;              /* its text */
	int line;
};

struct psiplace_psiconf {
	char *metrics_file; /* NULL: none */
	struct psiplace_nodeconf *nodes; /* sorted by name, unique */
	size_t n;
	/* storage of the compiled functions, one per PriorityFunction line */
	struct psiplace_priorityf **functions;
	char **function_texts;
	size_t nfunctions;
	struct psiplace_partconf *parts; /* in file order, unique names */
	size_t nparts;
	/* MalleableMinInterval, MalleableMaxGrow, MalleableShrink; the
	 * defaults where not given (cluster_policy stays NONE: the caller sets
	 * the plugstack line's) */
	struct psiplace_rdec_params malleable;
	/* MalleableInterval, MalleableAckTimeout, MalleableHoldTime
	 * (psiplace-malleabled): seconds */
	int64_t mall_interval, mall_ack_timeout, mall_hold_time;
	/* where each Malleable* key was set (MinInterval, MaxGrow, Shrink,
	 * Interval, AckTimeout, HoldTime); 0: not given */
	int malleable_line[6];
};

void psiplace_psiconf_init(struct psiplace_psiconf *c);
void psiplace_psiconf_free(struct psiplace_psiconf *c);

/* Parse text (len bytes); `file` names it in errors.  On error c is
 * empty. */
int psiplace_psiconf_parse(const char *text, size_t len, const char *file,
			   struct psiplace_psiconf *c, psiplace_error_t *err);

/* Read and parse the file at path.  A missing file is not an error when
 * optional is true (c stays empty). */
int psiplace_psiconf_read_file(const char *path, bool optional,
			       struct psiplace_psiconf *c, psiplace_error_t *err);

/* The attributes of one node, or NULL. */
const struct psiplace_nodeconf *psiplace_psiconf_node(const struct psiplace_psiconf *c,
						      const char *name);

/* The PartitionName line of partition `name` (exact, as Slurm's names
 * are), or NULL. */
const struct psiplace_partconf *psiplace_psiconf_partition(const struct psiplace_psiconf *c,
							   const char *name);

struct psiplace_node;

/* Overlay a node's attributes (nc may be NULL: nothing) onto what the
 * caller knows: Speed, Priority, ChargeRate where set, and the node's own
 * PriorityFunction (borrowed).  The one overlay of the select plugin and
 * `psiplace rank --psiconf`. */
void psiplace_psiconf_apply(const struct psiplace_nodeconf *nc, struct psiplace_node *node);

#ifdef __cplusplus
}
#endif
#endif
