/* psiplace — vectors of non-negative integers, one entry per node, as
 * users write them ("4,2,8") and as Slurm exports them in
 * SLURM_JOB_CPUS_PER_NODE ("72(x2),36": 72 twice, then 36).
 *
 * The parser is total: every byte string gives either a vector or a
 * one-line error naming the input, the offending text and what is
 * accepted.  Input length, entry count and values are bounded, so a
 * hostile value (a job's environment) cannot make it allocate much. */
#ifndef PSIPLACE_INTVEC_H
#define PSIPLACE_INTVEC_H

#include <stddef.h>
#include "psiplace/error.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Longest accepted input in bytes (Slurm's value for 100,000 nodes of
 * distinct sizes stays well below). */
#define PSIPLACE_INTVEC_MAX_INPUT (1u << 20)
/* Most entries after expanding N(xK) repeats. */
#define PSIPLACE_INTVEC_MAX_ENTRIES (1u << 20)
/* Largest value of one entry (cores or processes on one node). */
#define PSIPLACE_INTVEC_MAX_VALUE 1000000

struct psiplace_intvec {
	size_t n; /* entries, >= 1 after a successful parse */
	int *v;   /* n values, each 0..PSIPLACE_INTVEC_MAX_VALUE */
};

/* Parse s: comma-separated decimal integers, each optionally followed by
 * "(xK)" meaning "K times" (K >= 1).  No blanks, no signs, no empty
 * entries.  what names the input in messages (an option or a variable,
 * e.g. "--cores").  On success out owns memory to release with
 * psiplace_intvec_free(); on error out is {0, NULL}. */
int psiplace_intvec_parse(const char *s, const char *what,
			  struct psiplace_intvec *out, psiplace_error_t *err);

void psiplace_intvec_free(struct psiplace_intvec *v);

/* Write v[0..n-1] in the form psiplace_intvec_parse() reads, runs of equal
 * values as N(xK) ("72(x2),36"); the one N(xK) formatter.  Returns the
 * length, or -1 when it does not fit in buf (len bytes with the NUL) or n
 * is 0. */
long psiplace_intvec_format(const int *v, size_t n, char *buf, size_t len);

#ifdef __cplusplus
}
#endif
#endif
