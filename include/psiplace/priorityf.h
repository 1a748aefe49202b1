/* psiplace — PRIORITYF, Moab's node allocation priority function.
 *
 *   expr      := term { ('+' | '-') term }
 *   term      := { '+' | '-' } ( NUMBER [ ['*'] component ] | component )
 *   component := NAME [ '[' ARG ']' ]
 *
 * Case-insensitive exact names, blanks (space, tab) ignored between
 * tokens, an odd number of '-' before a term negates it, a component named
 * twice adds up, constants allowed.  Compiled once into a flat coefficient
 * vector; evaluation per node does no parsing and no allocation.  The
 * components and their node fields are listed in doc/policies.md. */
#ifndef PSIPLACE_PRIORITYF_H
#define PSIPLACE_PRIORITYF_H

#include <stddef.h>
#include <stdint.h>
#include "psiplace/error.h"

#ifdef __cplusplus
extern "C" {
#endif

#define PSIPLACE_PRIORITYF_MAXLEN 1024  /* characters of one expression */
#define PSIPLACE_PRIORITYF_MAXTERMS 64  /* terms, constants included */
#define PSIPLACE_PRIORITYF_MAXARG 128   /* bytes of one [ARG] */
#define PSIPLACE_RANDOM_CAP 32768.0     /* |contribution| of RANDOM, at most */
#define PSIPLACE_FREETIME_HORIZON (60 * 86400) /* FREETIME looks 60 days ahead */

struct psiplace_node;
struct psiplace_priorityf; /* opaque, immutable once compiled */

/* Compile expr.  `what` names the input for the error line
 * ("--psi-alloc-priority", "psiplace.conf:3: PriorityFunction").  Errors
 * read "WHAT: position P: MESSAGE in 'EXPR'" with P 1-based.  Returns 0
 * with *out set (free with psiplace_priorityf_free), or -1. */
int psiplace_priorityf_compile(const char *expr, const char *what,
			       struct psiplace_priorityf **out, psiplace_error_t *err);

void psiplace_priorityf_free(struct psiplace_priorityf *f);

/* The function's value on one node.  seed drives RANDOM: the value for a
 * node depends only on (seed, node->index), so evaluation order and
 * repetition do not change it. */
double psiplace_priorityf_eval(const struct psiplace_priorityf *f,
			       const struct psiplace_node *node, uint64_t seed);

/* out[i] = value on nodes[i] for i < n (the batch form the engine uses). */
void psiplace_priorityf_eval_many(const struct psiplace_priorityf *f,
				  const struct psiplace_node *nodes, size_t n,
				  uint64_t seed, double *out);

struct psiplace_nodecols;

/* As psiplace_priorityf_eval_many() over a columnar node table
 * (psiplace_nodecols_build): the same values bit for bit, column by
 * column.  Falls back to the node records when a column f reads was not
 * built. */
void psiplace_priorityf_eval_cols(const struct psiplace_priorityf *f,
				  const struct psiplace_nodecols *c, uint64_t seed,
				  double *out);

/* Terms after merging duplicates (the constant not counted). */
size_t psiplace_priorityf_nterms(const struct psiplace_priorityf *f);

/* Canonical text of the compiled function ("1 + 2*SPEED - LOAD"), for
 * check-config and tests; returns the length snprintf would write. */
int psiplace_priorityf_format(const struct psiplace_priorityf *f, char *buf,
			      size_t len);

/* RANDOM's uniform [0,1) draw for a node index under a seed. */
double psiplace_random01(uint64_t seed, uint32_t index);

#ifdef __cplusplus
}
#endif
#endif
