/* psiplace simulate's outputs: the table per policy (table, JSON, CSV)
 * and the per-job CSV. */
#ifndef PSIPLACE_CLI_SIM_OUTPUT_H
#define PSIPLACE_CLI_SIM_OUTPUT_H

#include <stdio.h>

#include "psiplace/nodetable.h"
#include "psiplace/sim.h"

/* fmt: 0 table, 1 json, 2 csv.  mreps: NULL, or the same policies'
 * replays with malleable jobs (opts.malleable), printed beside the rigid
 * ones.  Returns 0, or 1 (reported). */
int sim_print(FILE *f, int fmt, const char *trace_path, const struct psiplace_sim_trace *t,
	      const struct psiplace_nodetable *nodes, const enum psiplace_policy *pol,
	      const struct psiplace_sim_report *reps, const struct psiplace_sim_report *mreps,
	      int np, const struct psiplace_sim_opts *o, enum psiplace_policy site);

/* id,policy,submit,eligible,start,end,wait,nodes for every job of the
 * trace under rep (nodes ';'-separated; start -1: never started). */
int sim_jobs_csv(const char *path, const char *policy, const struct psiplace_sim_trace *t,
		 const struct psiplace_nodetable *nodes, const struct psiplace_sim_report *rep);

/* t,done,id,policy,from,to,nodes for every resize of rep (a malleable
 * replay with malleable.log), in time order: decided at t, completed at
 * done, the nodes added or released ';'-separated. */
int sim_resizes_csv(const char *path, const char *policy, const struct psiplace_sim_trace *t,
		    const struct psiplace_nodetable *nodes, const struct psiplace_sim_report *rep);

/* The chart (cli/sim_svg.c): wait-time CDF and utilisation over time,
 * one curve per policy (mreps: and a dashed one per policy with malleable
 * jobs).  Returns 0, or 1 (reported). */
int sim_svg(const char *path, const struct psiplace_sim_trace *t,
	    const struct psiplace_nodetable *nodes, const enum psiplace_policy *pol,
	    const struct psiplace_sim_report *reps, const struct psiplace_sim_report *mreps, int np);

#endif
