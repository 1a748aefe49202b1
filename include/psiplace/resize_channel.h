/* psiplace — the resize channel between psiplace-malleabled and a
 * malleable job (doc/malleability.md, "How a decision reaches the job").
 *
 * An order (daemon -> job) is written by the daemon, as SlurmUser, into
 * the job's AdminComment, which only operators can write and the job's
 * user can read:
 *     psiplace-resize=ID;grow;K;DEADLINE
 *     psiplace-resize=ID;shrink;K;DEADLINE;NODES;FOR
 * An acknowledgement (job -> daemon) is written by the job's user into the
 * job's Comment, which only the job's user (and operators) can write:
 *     psiplace-ack=ID;done;SIZE
 *     psiplace-ack=ID;failed;SIZE;REASON
 *
 * ID: the decision id (>= 1, never reused), K: nodes to add or release
 * (>= 1), DEADLINE: Unix time (>= 0) by which the job must acknowledge,
 * NODES: for a shrink the exact nodes to release, a Slurm hostlist
 * expression (commas allowed, never ';'), FOR: the pending job the shrink
 * makes room for (>= 1), SIZE: the node count the job runs on after acting
 * (>= 1), REASON: printable text without ';', at most 200 bytes.  Numbers
 * are plain decimal (no sign, no blank, no leading zero except "0").
 *
 * Pure C, no Slurm header, no state.  Prefix psiplace_rchan_. */
#ifndef PSIPLACE_RESIZE_CHANNEL_H
#define PSIPLACE_RESIZE_CHANNEL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "psiplace/error.h"
#include "psiplace/policy.h"
#include "psiplace/priorityf.h"

#ifdef __cplusplus
extern "C" {
#endif

#define PSIPLACE_RCHAN_ORDER_PREFIX "psiplace-resize="
#define PSIPLACE_RCHAN_ACK_PREFIX "psiplace-ack="
#define PSIPLACE_RCHAN_NODES_MAX 1024  /* bytes of NODES with its NUL */
#define PSIPLACE_RCHAN_REASON_MAX 200  /* bytes of REASON without its NUL */
/* Bytes that always hold a formatted order or acknowledgement. */
#define PSIPLACE_RCHAN_LINE_MAX 1200

enum psiplace_rchan_kind { PSIPLACE_RCHAN_GROW = 1, PSIPLACE_RCHAN_SHRINK };

struct psiplace_rchan_order {
	uint64_t id;
	enum psiplace_rchan_kind kind;
	uint32_t k;
	int64_t deadline;
	char nodes[PSIPLACE_RCHAN_NODES_MAX]; /* shrink only: hostlist expression; "" for grow */
	uint32_t for_job;                     /* shrink only; 0 for grow */
};

struct psiplace_rchan_ack {
	uint64_t id;
	bool done;
	uint32_t size;
	char reason[PSIPLACE_RCHAN_REASON_MAX + 1]; /* failed only; ignored (written "") for done */
};

/* Each returns the length written (without the NUL), or -1 when len is too
 * short or the struct is invalid (a field outside what the syntax above
 * accepts; a grow naming nodes or a pending job). */
long psiplace_rchan_order_format(const struct psiplace_rchan_order *o, char *buf, size_t len);
long psiplace_rchan_ack_format(const struct psiplace_rchan_ack *a, char *buf, size_t len);

/* 1: parsed into *o / *a; 0: no order / ack in s (NULL, empty, or text
 * that does not begin with the prefix); -1 with err: malformed (one line
 * naming the field, the value and what is accepted).  On 0 and -1 the
 * struct is zeroed. */
int psiplace_rchan_order_parse(const char *s, struct psiplace_rchan_order *o,
			       psiplace_error_t *err);
int psiplace_rchan_ack_parse(const char *s, struct psiplace_rchan_ack *a, psiplace_error_t *err);

/* The malleable range of a job as slurmctld's job_submit/psiplace plugin
 * writes it into AdminComment at submission, and the daemon writes it back
 * when it clears an order: "psiplace-malleable=MIN-MAX" (1 <= MIN <= MAX
 * <= PSIPLACE_RCHAN_RANGE_MAX).  An order replaces it while the order is
 * outstanding (the daemon keeps the range in its state file meanwhile);
 * to the job, it is "no order". */
#define PSIPLACE_RCHAN_RANGE_PREFIX "psiplace-malleable="
#define PSIPLACE_RCHAN_RANGE_MAX 1048576
long psiplace_rchan_range_format(uint32_t min, uint32_t max, char *buf, size_t len);
/* 1: parsed; 0: s is not a range (NULL, empty, other text, an order);
 * -1 with err: malformed. */
int psiplace_rchan_range_parse(const char *s, uint32_t *min, uint32_t *max, psiplace_error_t *err);

/* A job's own node allocation policy (--psi-alloc-policy,
 * --psi-alloc-priority), as job_submit/psiplace writes it at submission
 * into the AdminComment of every job that has one, after the range when
 * the job is malleable, separated by one blank:
 *     psiplace-policy=POLICY
 *     psiplace-policy=PRIORITY;FUNCTION
 *     psiplace-malleable=MIN-MAX psiplace-policy=FASTEST
 * POLICY: a canonical policy name (psiplace_policy_name), never NONE;
 * FUNCTION: the job's PRIORITY function as given (to the end of the text,
 * blanks allowed, at most PSIPLACE_PRIORITYF_MAXLEN bytes).  The daemon
 * keeps this part when it writes an order or the range back, so the
 * AdminComment of a malleable job is "ORDER-OR-RANGE[ POLICY-PART]"; the
 * order and range parsers read the text before the blank (so does
 * `scontrol show job`, whose AdminComment= value ends at a blank). */
#define PSIPLACE_RCHAN_POLICY_PREFIX "psiplace-policy="
/* Bytes that always hold a policy part, and an order or range with one. */
#define PSIPLACE_RCHAN_POLICY_MAX (sizeof(PSIPLACE_RCHAN_POLICY_PREFIX) + 16 + PSIPLACE_PRIORITYF_MAXLEN + 1)
#define PSIPLACE_RCHAN_ADMIN_MAX (PSIPLACE_RCHAN_LINE_MAX + 1 + PSIPLACE_RCHAN_POLICY_MAX)
/* The policy part: policy not NONE; function NULL or "" for none, else
 * policy PRIORITY and at most PSIPLACE_PRIORITYF_MAXLEN bytes without a
 * NUL.  -1 when invalid or len is too short. */
long psiplace_rchan_policy_format(enum psiplace_policy policy, const char *function, char *buf,
				  size_t len);
/* Where the policy part of an AdminComment begins (at its start or after
 * a blank); NULL: none. */
const char *psiplace_rchan_policy_find(const char *s);
/* 1: *policy and function (flen bytes, "" none; PSIPLACE_PRIORITYF_MAXLEN
 * + 1 always hold it) filled from s's policy part; 0: none; -1 with err:
 * malformed (one line naming the value and what is accepted). */
int psiplace_rchan_policy_parse(const char *s, enum psiplace_policy *policy, char *function,
				size_t flen, psiplace_error_t *err);

/* "grow" / "shrink"; "" for anything else. */
const char *psiplace_rchan_kind_name(enum psiplace_rchan_kind k);

#ifdef __cplusplus
}
#endif
#endif
