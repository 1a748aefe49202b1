/* psiplace simulate's outputs (doc/simulate.md, "Output"). */
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "commands.h"
#include "json_out.h"
#include "sim_output.h"

static const char *fmt_name(enum psiplace_sim_format f)
{
	return f == PSIPLACE_SIM_SACCT ? "sacct" : "swf";
}

/* What the figures hide: overruns and (trace_starts) delayed starts. */
static void print_counts(FILE *f, const struct psiplace_sim_report *reps, int np,
			 const struct psiplace_sim_opts *o)
{
	size_t delays = 0;
	int64_t dmax = 0;

	if (!np)
		return;
	fprintf(f, "# %zu jobs ran longer than their limit: %s\n", reps[0].overruns,
		o->overrun_run ? "run their whole traced time (--overrun run)"
			       : "ended at their limit as Slurm does (--overrun kill)");
	if (!o->trace_starts && !o->trace_nodes)
		return;
	for (int i = 0; i < np; i++) {
		delays = reps[i].start_delays > delays ? reps[i].start_delays : delays;
		dmax = reps[i].start_delay_max > dmax ? reps[i].start_delay_max : dmax;
	}
	fprintf(f, "# --trace-starts: %zu jobs started after their traced start (no room then), "
		"by up to %lld s\n", delays, (long long)dmax);
}

static void print_table(FILE *f, const char *path, const struct psiplace_sim_trace *t,
			const struct psiplace_nodetable *nodes, const enum psiplace_policy *pol,
			const struct psiplace_sim_report *reps, const struct psiplace_sim_report *mreps,
			int np,
			const struct psiplace_sim_opts *o, enum psiplace_policy site)
{
	const struct psiplace_sim_counts *c = &t->counts;
	uint64_t cpus = 0;

	for (size_t i = 0; i < nodes->n; i++)
		cpus += nodes->nodes[i].power ? nodes->nodes[i].cpus : 0;
	fprintf(f, "# trace %s (%s): %zu jobs of %zu lines; not replayed: %zu never ran, %zu still "
		"running, %zu steps, %zu malformed lines skipped; %zu array tasks, %zu without a "
		"limit, %zu unknown fields\n",
		path, fmt_name(t->format), t->n, c->lines, c->never_ran, c->running, c->steps,
		c->malformed, c->array_tasks, c->no_limit, c->unknown_fields);
	if (c->resized_jobs || c->resized_unended)
		fprintf(f, "# %zu resized jobs: their %zu later records (sacct -D, after a RESIZING "
			"one) folded in; each replayed from its first size, its run time the "
			"node-seconds of all its records at that size; %zu not replayed: no ended "
			"record after a RESIZING one (a helper merged into another job, or still "
			"running)\n",
			c->resized_jobs, c->resize_records, c->resized_unended);
	fprintf(f, "# cluster: %zu nodes, %llu CPUs; order: %s; %s backfill, window %lld s, "
		"depth %u%s\n",
		nodes->n, (unsigned long long)cpus,
		o->submit_order || !t->has_priority ? "submit" : "priority",
		o->plan_all ? "slurm" : o->reserve_count ? "count-based EASY" : "node-specific EASY",
		(long long)(o->bf_window ? o->bf_window : 86400), o->bf_depth ? o->bf_depth : 500,
		o->speed_ref > 0 ? "; speed scaling" : "");
	fprintf(f, "%-*s %8s %8s %11s %6s %6s %10s %10s %10s %8s %6s %11s%s%s%s\n", mreps ? 21 : 16,
		"policy", "jobs",
		"unplaced", "makespan_s", "alloc%", "used%", "wait_mean", "wait_med", "wait_p95", "bsld",
		"frag%", "shape_waits", mreps ? "     node_h  resizes/job" : "",
		o->speed_ref > 0 ? "  cpu_h_saved" : "",
		o->trace_nodes ? "  decisions  same_nodes%  no_room  untraced" : "");
	for (int x = 0; x < (mreps ? 2 * np : np); x++) {
		int i = mreps ? x / 2 : x;
		bool m = mreps && x % 2;
		const struct psiplace_sim_report *r = m ? &mreps[i] : &reps[i];
		char name[40];

		snprintf(name, sizeof(name), "%s%s%s", psiplace_policy_name(pol[i]),
			 pol[i] == site ? "*" : "", m ? " mall" : mreps ? " rigid" : "");
		fprintf(f, "%-*s %8zu %8zu %11lld %6.1f %6.1f %10.0f %10.0f %10.0f %8.2f %6.1f %11zu", mreps ? 21 : 16, name,
			r->jobs, r->unplaceable, (long long)r->makespan, 100 * r->utilisation,
			100 * r->utilisation_used, r->wait_mean, r->wait_median, r->wait_p95, r->bsld_mean, 100 * r->frag,
			r->shape_waits);
		if (mreps)
			fprintf(f, " %10.1f  %11.2f", r->node_hours, r->malleable ? (double)(r->grows + r->shrinks) /
								   (double)r->malleable : 0.0);
		if (o->speed_ref > 0)
			fprintf(f, "  %11.1f", r->cpu_hours_saved);
		if (o->trace_nodes)
			fprintf(f, "  %9zu  %11.1f  %7zu  %8zu", r->decisions,
				r->decisions ? 100.0 * (double)r->decisions_same / (double)r->decisions : 0,
				r->decisions_noroom, r->decisions_untraced);
		fputc('\n', f);
	}
	fputs("# alloc%: CPUs held (whole nodes, or CPUs per node x nodes) over the cluster's "
	      "CPU-time; used%: the CPUs the jobs asked for\n", f);
	if (mreps && np) {
		const struct psiplace_sim_malleable *ml = o->malleable;
		char range[64];

		if (ml->rule == PSIPLACE_SIM_MALL_TRACE)
			snprintf(range, sizeof(range), "each its traced range");
		else
			snprintf(range, sizeof(range), "range x%g..x%g of their nodes", ml->range_lo,
				 ml->range_hi);
		fprintf(f, "# node_h: nodes held x hours; mall: %zu of the jobs malleable (--malleable), %s, "
			"decisions every %lld s, at least %lld s between two resizes of a job; "
			"resize cost %g + %g s/node (grow), %g + %g s/node (shrink); efficiency %g; "
			"resizes/job: resizes per malleable job; rigid: the same jobs on whole nodes at "
			"their traced size, never resized\n",
			mreps[0].malleable, range, (long long)ml->interval,
			(long long)ml->min_interval, ml->grow_base, ml->grow_per_node, ml->shrink_base,
			ml->shrink_per_node, ml->efficiency);
		for (int i = 0; i < np; i++)
			fprintf(f, "# %s: malleable against rigid: makespan %+.1f%%, mean wait %+.1f%%, "
				"%zu grows, %zu shrinks\n", psiplace_policy_name(pol[i]),
				reps[i].makespan ? 100.0 * (double)(mreps[i].makespan - reps[i].makespan) /
							   (double)reps[i].makespan : 0.0,
				reps[i].wait_mean > 0 ? 100.0 * (mreps[i].wait_mean - reps[i].wait_mean) /
							      reps[i].wait_mean : 0.0,
				mreps[i].grows, mreps[i].shrinks);
	}
	print_counts(f, reps, np, o);
	if (o->trace_nodes)
		fputs("# --trace-nodes: each job starts when and where Slurm started it; same_nodes%: "
		      "the engine chose Slurm's nodes, decision by decision\n", f);
	if (site != PSIPLACE_POLICY_NONE)
		fputs("# *: the cluster line's NodeAllocationPolicy\n", f);
}

static json_t *report_json(enum psiplace_policy p, const struct psiplace_sim_report *r,
			   bool speed, bool decisions, int *bad)
{
	json_t *o = json_object();

	cli_json_set(o, "policy", json_string(psiplace_policy_name(p)), bad);
	cli_json_set(o, "jobs", json_integer((json_int_t)r->jobs), bad);
	cli_json_set(o, "unplaceable", json_integer((json_int_t)r->unplaceable), bad);
	cli_json_set(o, "makespan", json_integer((json_int_t)r->makespan), bad);
	cli_json_set(o, "utilisation", json_real(r->utilisation), bad); /* allocated */
	cli_json_set(o, "utilisation_allocated", json_real(r->utilisation), bad);
	cli_json_set(o, "utilisation_used", json_real(r->utilisation_used), bad);
	cli_json_set(o, "overruns", json_integer((json_int_t)r->overruns), bad);
	cli_json_set(o, "trace_start_delays", json_integer((json_int_t)r->start_delays), bad);
	cli_json_set(o, "trace_start_delay_max", json_integer((json_int_t)r->start_delay_max), bad);
	cli_json_set(o, "wait_mean", json_real(r->wait_mean), bad);
	cli_json_set(o, "wait_median", json_real(r->wait_median), bad);
	cli_json_set(o, "wait_p95", json_real(r->wait_p95), bad);
	cli_json_set(o, "bounded_slowdown_mean", json_real(r->bsld_mean), bad);
	cli_json_set(o, "fragmentation", json_real(r->frag), bad);
	cli_json_set(o, "shape_waits", json_integer((json_int_t)r->shape_waits), bad);
	cli_json_set(o, "node_hours", json_real(r->node_hours), bad);
	if (speed)
		cli_json_set(o, "cpu_hours_saved", json_real(r->cpu_hours_saved), bad);
	if (decisions) {
		json_t *d = json_object();

		cli_json_set(d, "compared", json_integer((json_int_t)r->decisions), bad);
		cli_json_set(d, "same_nodes", json_integer((json_int_t)r->decisions_same), bad);
		cli_json_set(d, "same_share", json_real(r->decisions ? (double)r->decisions_same /
								      (double)r->decisions : 0), bad);
		cli_json_set(d, "no_room", json_integer((json_int_t)r->decisions_noroom), bad);
		cli_json_set(d, "untraced", json_integer((json_int_t)r->decisions_untraced), bad);
		cli_json_set(o, "decisions", d, bad);
	}
	return o;
}

/* The malleable replay's report: the same figures, and the resizes. */
static json_t *mall_json(enum psiplace_policy p, const struct psiplace_sim_report *r,
			 const struct psiplace_sim_opts *o, int *bad)
{
	json_t *m = report_json(p, r, o->speed_ref > 0, false, bad);

	cli_json_set(m, "malleable_jobs", json_integer((json_int_t)r->malleable), bad);
	cli_json_set(m, "grows", json_integer((json_int_t)r->grows), bad);
	cli_json_set(m, "shrinks", json_integer((json_int_t)r->shrinks), bad);
	cli_json_set(m, "resizes_per_job", json_real(r->malleable ? (double)(r->grows + r->shrinks) /
								     (double)r->malleable : 0), bad);
	cli_json_set(m, "decision_calls", json_integer((json_int_t)r->rdec_calls), bad);
	return m;
}

static int print_json(FILE *f, const char *path, const struct psiplace_sim_trace *t,
		      const enum psiplace_policy *pol, const struct psiplace_sim_report *reps,
		      const struct psiplace_sim_report *mreps, int np,
		      const struct psiplace_sim_opts *o)
{
	const struct psiplace_sim_counts *c = &t->counts;
	json_t *doc = json_object(), *tr = json_object(), *arr = json_array();
	int bad = 0;

	cli_json_set(tr, "file", cli_json_str(path), &bad);
	cli_json_set(tr, "format", json_string(fmt_name(t->format)), &bad);
	cli_json_set(tr, "jobs", json_integer((json_int_t)t->n), &bad);
	cli_json_set(tr, "lines", json_integer((json_int_t)c->lines), &bad);
	cli_json_set(tr, "never_ran", json_integer((json_int_t)c->never_ran), &bad);
	cli_json_set(tr, "running", json_integer((json_int_t)c->running), &bad);
	cli_json_set(tr, "steps", json_integer((json_int_t)c->steps), &bad);
	cli_json_set(tr, "array_tasks", json_integer((json_int_t)c->array_tasks), &bad);
	cli_json_set(tr, "no_limit", json_integer((json_int_t)c->no_limit), &bad);
	cli_json_set(tr, "unknown_fields", json_integer((json_int_t)c->unknown_fields), &bad);
	cli_json_set(tr, "malformed", json_integer((json_int_t)c->malformed), &bad);
	cli_json_set(tr, "resized_jobs", json_integer((json_int_t)c->resized_jobs), &bad);
	cli_json_set(tr, "resize_records", json_integer((json_int_t)c->resize_records), &bad);
	cli_json_set(tr, "resized_unended", json_integer((json_int_t)c->resized_unended), &bad);
	cli_json_set(doc, "trace", tr, &bad);
	for (int i = 0; i < np; i++) {
		json_t *r = report_json(pol[i], &reps[i], o->speed_ref > 0, o->trace_nodes, &bad);

		if (mreps)
			cli_json_set(r, "malleable", mall_json(pol[i], &mreps[i], o, &bad), &bad);
		cli_json_append(arr, r, &bad);
	}
	if (mreps) {
		json_t *m = json_object();

		cli_json_set(m, "range_low", json_real(o->malleable->range_lo), &bad);
		cli_json_set(m, "range_high", json_real(o->malleable->range_hi), &bad);
		cli_json_set(m, "interval", json_integer(o->malleable->interval), &bad);
		cli_json_set(m, "min_interval", json_integer(o->malleable->min_interval), &bad);
		cli_json_set(m, "grow_cost_base", json_real(o->malleable->grow_base), &bad);
		cli_json_set(m, "grow_cost_per_node", json_real(o->malleable->grow_per_node), &bad);
		cli_json_set(m, "shrink_cost_base", json_real(o->malleable->shrink_base), &bad);
		cli_json_set(m, "shrink_cost_per_node", json_real(o->malleable->shrink_per_node), &bad);
		cli_json_set(m, "efficiency", json_real(o->malleable->efficiency), &bad);
		cli_json_set(doc, "malleable_model", m, &bad);
	}
	cli_json_set(doc, "policies", arr, &bad);
	if (bad) {
		json_decref(doc);
		fprintf(stderr, "psiplace: error: simulate: out of memory\n");
		return 1;
	}
	return cli_json_print(f, doc) < 0 ? 1 : 0;
}

int sim_print(FILE *f, int fmt, const char *path, const struct psiplace_sim_trace *t,
	      const struct psiplace_nodetable *nodes, const enum psiplace_policy *pol,
	      const struct psiplace_sim_report *reps, const struct psiplace_sim_report *mreps,
	      int np, const struct psiplace_sim_opts *o, enum psiplace_policy site)
{
	if (fmt == 1)
		return print_json(f, path, t, pol, reps, mreps, np, o);
	if (fmt == 0) {
		print_table(f, path, t, nodes, pol, reps, mreps, np, o, site);
		return 0;
	}
	fputs("policy,jobs,unplaceable,makespan,utilisation_allocated,wait_mean,wait_median,"
	      "wait_p95,bounded_slowdown_mean,fragmentation,shape_waits,cpu_hours_saved", f);
	fputs(o->trace_nodes ? ",decisions,decisions_same,decisions_same_share,decisions_no_room,"
			       "decisions_untraced" : "", f);
	fputs(",utilisation_used,overruns,trace_start_delays,trace_start_delay_max", f);
	fputs(mreps ? ",node_hours,variant,malleable_jobs,grows,shrinks,resizes_per_job\n" : "\n", f);
	for (int x = 0; x < (mreps ? 2 * np : np); x++) {
		int i = mreps ? x / 2 : x;
		const struct psiplace_sim_report *r = mreps && x % 2 ? &mreps[i] : &reps[i];

		fprintf(f, "%s,%zu,%zu,%lld,%.6f,%.3f,%.3f,%.3f,%.6f,%.6f,%zu,%.3f",
			psiplace_policy_name(pol[i]), r->jobs, r->unplaceable, (long long)r->makespan,
			r->utilisation, r->wait_mean, r->wait_median, r->wait_p95, r->bsld_mean, r->frag,
			r->shape_waits, r->cpu_hours_saved);
		if (o->trace_nodes)
			fprintf(f, ",%zu,%zu,%.6f,%zu,%zu", r->decisions, r->decisions_same,
				r->decisions ? (double)r->decisions_same / (double)r->decisions : 0,
				r->decisions_noroom, r->decisions_untraced);
		fprintf(f, ",%.6f,%zu,%zu,%lld", r->utilisation_used, r->overruns, r->start_delays,
			(long long)r->start_delay_max);
		if (mreps)
			fprintf(f, ",%.3f,%s,%zu,%zu,%zu,%.4f", r->node_hours,
				x % 2 ? "malleable" : "rigid", r->malleable,
				r->grows, r->shrinks,
				r->malleable ? (double)(r->grows + r->shrinks) / (double)r->malleable : 0);
		fputc('\n', f);
	}
	return 0;
}

int sim_jobs_csv(const char *path, const char *policy, const struct psiplace_sim_trace *t,
		 const struct psiplace_nodetable *nodes, const struct psiplace_sim_report *rep)
{
	FILE *f = fopen(path, "w");

	if (!f) {
		fprintf(stderr, "psiplace: error: --jobs-csv: cannot write '%s'\n", path);
		return 1;
	}
	fputs("id,policy,submit,eligible,start,end,wait,nodes\n", f);
	for (size_t i = 0; i < t->n; i++) {
		const struct psiplace_sim_job *j = &t->jobs[i];
		const struct psiplace_sim_result *r = &rep->res[i];

		fprintf(f, "%llu,%s,%lld,%lld,%lld,%lld,%lld,", (unsigned long long)j->id, policy,
			(long long)j->submit, (long long)j->eligible, (long long)r->start,
			(long long)r->end, (long long)(r->start >= 0 ? r->start - j->eligible : -1));
		for (uint32_t k = 0; r->start >= 0 && k < r->nnodes; k++)
			fprintf(f, "%s%s", k ? ";" : "", nodes->nodes[rep->alloc[r->nfirst + k]].name);
		fputc('\n', f);
	}
	if (fclose(f) != 0) {
		fprintf(stderr, "psiplace: error: --jobs-csv: cannot write '%s'\n", path);
		return 1;
	}
	return 0;
}

int sim_resizes_csv(const char *path, const char *policy, const struct psiplace_sim_trace *t,
		    const struct psiplace_nodetable *nodes, const struct psiplace_sim_report *rep)
{
	FILE *f = fopen(path, "w");

	if (!f) {
		fprintf(stderr, "psiplace: error: --resizes-csv: cannot write '%s'\n", path);
		return 1;
	}
	fputs("t,done,id,policy,from,to,nodes\n", f);
	for (size_t i = 0; i < rep->nresizes; i++) {
		const struct psiplace_sim_resize *z = &rep->resizes[i];
		uint32_t k = z->to > z->from ? z->to - z->from : z->from - z->to;

		fprintf(f, "%lld,%lld,%llu,%s,%u,%u,", (long long)z->t, (long long)z->done,
			(unsigned long long)t->jobs[z->job].id, policy, z->from, z->to);
		for (uint32_t q = 0; q < k; q++)
			fprintf(f, "%s%s", q ? ";" : "", nodes->nodes[rep->resize_nodes[z->first + q]].name);
		fputc('\n', f);
	}
	if (fclose(f) != 0) {
		fprintf(stderr, "psiplace: error: --resizes-csv: cannot write '%s'\n", path);
		return 1;
	}
	return 0;
}
