/* Shared by the engine's files (common/policy*.c); not a public header. */
#ifndef PSIPLACE_ENGINE_INTERNAL_H
#define PSIPLACE_ENGINE_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "psiplace/policy.h"
#include "psiplace/error.h"
#include "rank_sort.h"

double psiplace_priority_value(const struct psiplace_rank_opts *o,
			       const struct psiplace_node *n);

int psiplace_rate_eligible(const struct psiplace_rank_opts *o,
			   const struct psiplace_node *nodes, size_t n,
			   struct psiplace_rated **r, size_t *m, psiplace_error_t *err);

/* MAXBALANCE or CONTIGUOUS over the m rated eligible nodes (reordered):
 * out[0..k-1] in ascending node index.  Returns k or -1 (err). */
int psiplace_choose_set(const struct psiplace_rank_opts *o,
			const struct psiplace_node *nodes,
			struct psiplace_rated *r, size_t m, size_t k,
			uint32_t *out, psiplace_error_t *err);

/* The columns a PRIORITYF term or a policy key reads, as doubles computed
 * exactly as the per-node evaluation computes them. */
enum psiplace_col {
	PSIPLACE_COL_CPROCS,
	PSIPLACE_COL_APROCS,
	PSIPLACE_COL_CMEM,
	PSIPLACE_COL_AMEM,
	PSIPLACE_COL_CDISK,
	PSIPLACE_COL_JOBCOUNT,
	PSIPLACE_COL_SUSPENDED,
	PSIPLACE_COL_LOAD,
	PSIPLACE_COL_SPEED,
	PSIPLACE_COL_PRIORITY,
	PSIPLACE_COL_COST,
	PSIPLACE_COL_NODEINDEX,
	PSIPLACE_COL_POWER,
	PSIPLACE_COL_USAGE,
	PSIPLACE_COL_MTBF,
	PSIPLACE_COL_PARAPROCS,
	PSIPLACE_COL_RSVAFFINITY,
	PSIPLACE_COL_FREETIME,
	PSIPLACE_COL_CPUFREE, /* CPULOAD's cpus - max(load1, alloc_cpus) */
	PSIPLACE_COL_COUNT
};

/* The value columns a policy's key reads (0 for index orders; PRIORITY's
 * come from its function: psiplace_priorityf_columns). */
uint32_t psiplace_policy_columns(enum psiplace_policy p);

/* Struct of arrays over a node table: the eligibility inputs and keys
 * always, the value columns the build's policy reads (NULL otherwise). */
struct psiplace_nodecols {
	const struct psiplace_node *nodes; /* borrowed: string fields, fallback */
	size_t n;
	uint32_t *index, *free_cpus;
	uint64_t *weight, *free_mem;
	unsigned char *power;
	/* A filled column is one of: doubles, or (psiplace_nodecols_build,
	 * when every value converts back exactly) floats or int32s. */
	double *col[PSIPLACE_COL_COUNT];
	float *fcol[PSIPLACE_COL_COUNT];
	int32_t *icol[PSIPLACE_COL_COUNT];
	uint32_t filled; /* bit PSIPLACE_COL_*: col[] present */
	/* The one function every node uses (NULL: PRIORITY's field, or the
	 * nodes' functions differ: per-node evaluation). */
	const struct psiplace_priorityf *f;
	bool mixed_functions;
};

/* Does the columnar path (rank_columns.c) order this ranking? */
bool psiplace_policy_columnar(const struct psiplace_rank_opts *o);

/* psiplace_choose() and psiplace_rank_partial() rating node by node. */
int psiplace_choose_nodes(const struct psiplace_rank_opts *opts,
			  const struct psiplace_node *nodes, size_t n, size_t k,
			  uint32_t *out, psiplace_error_t *err);
int psiplace_rank_partial_nodes(const struct psiplace_rank_opts *opts,
				const struct psiplace_node *nodes, size_t n, size_t k,
				uint32_t *order, psiplace_error_t *err);

/* psiplace_choose() and psiplace_rank_partial() computing the keys from
 * the records a block of columns at a time (rank_columns.c); other
 * policies go to the _nodes functions. */
int psiplace_choose_records(const struct psiplace_rank_opts *opts,
			    const struct psiplace_node *nodes, size_t n, size_t k,
			    uint32_t *out, psiplace_error_t *err);
int psiplace_rank_partial_records(const struct psiplace_rank_opts *opts,
				  const struct psiplace_node *nodes, size_t n, size_t k,
				  uint32_t *order, psiplace_error_t *err);

/* Building blocks of psiplace_nodecols_build (nodecols.c): the columns
 * opts reads (sets c->f, and c->mixed_functions when one of the n nodes
 * scanned has its own function; n = 0 scans none); allocate the base arrays
 * and those double columns for size rows; fill rows at..at+w-1 from
 * nodes[0..w-1]; free the arrays (not c). */
uint32_t psiplace_cols_wanted(const struct psiplace_rank_opts *o,
			      const struct psiplace_node *nodes, size_t n,
			      struct psiplace_nodecols *c);
int psiplace_cols_alloc(struct psiplace_nodecols *c, uint32_t want, size_t size);
void psiplace_cols_fill(struct psiplace_nodecols *c, const struct psiplace_node *nodes,
			size_t w, size_t at);
void psiplace_cols_release(struct psiplace_nodecols *c);

/* Columns f reads (bit PSIPLACE_COL_*). */
uint32_t psiplace_priorityf_columns(const struct psiplace_priorityf *f);

/* out[i - lo] = f on node i for lo <= i < hi, from the columns (bit-for-bit
 * psiplace_priorityf_eval()); the columns of f must be filled. */
void psiplace_priorityf_eval_block(const struct psiplace_priorityf *f,
				   const struct psiplace_nodecols *c, size_t lo,
				   size_t hi, uint64_t seed, double *out);

#endif
