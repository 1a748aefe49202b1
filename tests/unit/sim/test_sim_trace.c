/* The trace readers (sacct export, SWF 2.2), time limits, and scontrol
 * show node -o as a node table: values, counts, one FILE:LINE error;
 * gzipped traces inflated. */
#include <criterion/criterion.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "psiplace/error.h"
#include "psiplace/sim.h"

#define HDR "JobIDRaw|Submit|Eligible|Start|End|Timelimit|NNodes|NCPUS|ReqMem|ReqTRES|Partition|" \
	    "NodeList|State|Priority\n"

static int parse(const char *text, enum psiplace_sim_format f, bool lenient,
		 struct psiplace_sim_trace *t, psiplace_error_t *err)
{
	return psiplace_sim_trace_parse(text, strlen(text), "t.txt", f, lenient, t, err);
}

Test(sim_trace, sacct_job_times_shape_memory_and_priority)
{
	struct psiplace_sim_trace t;
	psiplace_error_t err;
	const struct psiplace_sim_job *j;

	cr_assert_eq(parse(HDR "7|2026-01-01T00:00:00|2026-01-01T00:00:30|2026-01-01T00:01:00|"
			   "2026-01-01T01:01:00|1-00:00:00|2|16|2Gc|billing=16,cpu=16,node=2|p|"
			   "n[1-2]|COMPLETED|1500\n",
			   PSIPLACE_SIM_AUTO, false, &t, &err), 0, "%s", err.text);
	cr_assert_eq(t.format, PSIPLACE_SIM_SACCT);
	cr_assert_eq(t.n, 1);
	j = &t.jobs[0];
	cr_assert_eq(j->id, 7);
	cr_assert_eq(j->eligible - j->submit, 30);
	cr_assert_eq(j->runtime, 3600);
	cr_assert_eq(j->limit, 86400);
	cr_assert_eq(j->nodes, 2);
	cr_assert_eq(j->cpus, 16);
	cr_assert_eq(j->mem, 16384, "2G per CPU, 8 CPUs a node: %llu", (unsigned long long)j->mem);
	cr_assert_eq(j->priority, 1500);
	cr_assert(t.has_priority);
	cr_assert_eq(j->line, 2);
	psiplace_sim_trace_free(&t);
}

Test(sim_trace, sacct_fields_by_name_steps_never_ran_running_arrays_counted)
{
	struct psiplace_sim_trace t;
	psiplace_error_t err;

	cr_assert_eq(parse("State|NCPUS|NNodes|End|Start|Submit|JobID|JobIDRaw|Account\n"
			   "COMPLETED|4|1|2026-01-01T00:00:10|2026-01-01T00:00:00|2026-01-01T00:00:00|5|5|x\n"
			   "COMPLETED|4|1|2026-01-01T00:00:10|2026-01-01T00:00:00|2026-01-01T00:00:00|5.batch|5.batch|\n"
			   "CANCELLED by 0|4|1|2026-01-01T00:00:10|Unknown|2026-01-01T00:00:00|6|6|\n"
			   "PENDING|4|1|Unknown|Unknown|2026-01-01T00:00:00|8_[1-9]|8|\n"
			   "RUNNING|4|1|Unknown|2026-01-01T00:00:00|2026-01-01T00:00:00|9|9|\n"
			   "COMPLETED|4|1|2026-01-01T00:00:10|2026-01-01T00:00:00|2026-01-01T00:00:00|10_3|13|\n"
			   "\n",
			   PSIPLACE_SIM_SACCT, false, &t, &err), 0, "%s", err.text);
	cr_assert_eq(t.n, 2);
	cr_assert_eq(t.jobs[1].id, 13);
	cr_assert_eq(t.counts.lines, 6);
	cr_assert_eq(t.counts.steps, 1);
	cr_assert_eq(t.counts.never_ran, 2);
	cr_assert_eq(t.counts.running, 1);
	cr_assert_eq(t.counts.array_tasks, 1);
	cr_assert_eq(t.counts.unknown_fields, 1);
	cr_assert_eq(t.counts.no_limit, 2, "no Timelimit column: the runtime is the estimate");
	cr_assert_eq(t.jobs[0].limit, 10);
	cr_assert_not(t.has_priority);
	psiplace_sim_trace_free(&t);
}

/* sacct -D of a resized job: a record per size, each but the last ended
 * RESIZING, the next submitted and started at the resize.  One job: the
 * first record's submission, start, size and limit, its run time the
 * node-seconds of all records at the first size.  Jobs of one id without a
 * RESIZING record are not folded; a helper merged away (its last record
 * RESIZING, then one of 0 nodes and no end) is not replayed. */
Test(sim_trace, sacct_resized_job_records_folded_into_one_job)
{
	struct psiplace_sim_trace t;
	psiplace_error_t err;
	const struct psiplace_sim_job *j;

	cr_assert_eq(parse("JobIDRaw|Submit|Eligible|Start|End|Timelimit|NNodes|NCPUS|ReqMem|ReqTRES|"
			   "Partition|NodeList|State|Priority|Comment\n"
			   /* job 3: 1 node 0:10-0:40, 4 nodes 0:40-1:00, 2 nodes 1:00-1:30 */
			   "3|2026-01-01T00:00:30|2026-01-01T00:01:00|2026-01-01T00:01:00|"
			   "2026-01-01T00:01:30|1-00:00:00|4|8||||n[1-4]|COMPLETED|10|\n"
			   "3|2026-01-01T00:00:00|2026-01-01T00:00:00|2026-01-01T00:00:10|"
			   "2026-01-01T00:00:40|00:15:00|1|1||||n1|RESIZING|10|psi-malleable=1-4\n"
			   "4|2026-01-01T00:00:05|2026-01-01T00:00:05|2026-01-01T00:00:05|"
			   "2026-01-01T00:00:25|00:15:00|2|4||||n[5-6]|COMPLETED|9|\n"
			   "3|2026-01-01T00:00:40|2026-01-01T00:00:40|2026-01-01T00:00:40|"
			   "2026-01-01T00:01:00|1-00:00:00|4|4||||n[1-4]|RESIZING|10|\n"
			   "5|2026-01-01T00:00:05|2026-01-01T00:00:05|2026-01-01T00:00:05|"
			   "2026-01-01T00:00:15|00:15:00|1|1||||n7|COMPLETED|9|\n"
			   "5|2026-01-01T00:00:05|2026-01-01T00:00:05|2026-01-01T00:00:20|"
			   "2026-01-01T00:00:30|00:15:00|1|1||||n7|COMPLETED|9|\n"
			   /* job 6, a helper merged into job 3 at 0:40 (as 22.05 exports it) */
			   "6|2026-01-01T00:00:35|2026-01-01T00:00:35|2026-01-01T00:00:38|"
			   "2026-01-01T00:00:40|00:14:00|3|3||||n[2-4]|RESIZING|10|\n"
			   "6|2026-01-01T00:00:40|2026-01-01T00:00:40|2026-01-01T00:00:40|"
			   "Unknown|00:14:00|0|0||||None assigned|COMPLETED|10|\n",
			   PSIPLACE_SIM_SACCT, false, &t, &err), 0, "%s", err.text);
	cr_assert_eq(t.n, 4, "jobs 3 (folded), 4, and job 5's two records, not helper 6: %zu", t.n);
	cr_assert_eq(t.counts.resized_jobs, 1);
	cr_assert_eq(t.counts.resize_records, 2);
	cr_assert_eq(t.counts.resized_unended, 1, "the merged helper is not replayed");
	cr_assert_eq(t.counts.running, 1, "its last record has no end");
	j = &t.jobs[0]; /* at the place of job 3's first record in the file */
	cr_assert_eq(j->id, 3);
	cr_assert_eq(j->start - j->submit, 10, "from the first record's submission");
	cr_assert_eq(j->nodes, 1);
	cr_assert_eq(j->cpus, 1);
	cr_assert_eq(j->limit, 900);
	cr_assert_eq(j->runtime, 30 + 4 * 20 + 4 * 30, "node-seconds at 1 node: %lld",
		     (long long)j->runtime);
	cr_assert_eq(j->mall_min, 1);
	cr_assert_eq(j->mall_max, 4);
	cr_assert_eq(t.jobs[1].id, 4);
	cr_assert_eq(t.jobs[2].id, 5);
	cr_assert_eq(t.jobs[3].id, 5);
	cr_assert_eq(t.jobs[3].runtime, 10);
	psiplace_sim_trace_free(&t);
}

Test(sim_trace, sacct_malformed_line_one_error_or_counted_when_lenient)
{
	const char *text = HDR
		"1|2026-01-01T00:00:00|2026-01-01T00:00:00|2026-01-01T00:01:00|2026-01-01T00:00:30|"
		"10:00|1|4|||p|n1|COMPLETED|1\n"
		"2|2026-01-01T00:00:00|2026-01-01T00:00:00|2026-01-01T00:01:00|2026-01-01T00:02:00|"
		"10:00|1|4|||p|n1|COMPLETED\n"
		"3|2026-01-01T00:00:00|2026-01-01T00:00:00|2026-01-01T00:01:00|2026-01-01T00:02:00|"
		"10:00|1|4|||p|n1|COMPLETED|1\n";
	struct psiplace_sim_trace t;
	psiplace_error_t err;

	cr_assert_eq(parse(text, PSIPLACE_SIM_AUTO, false, &t, &err), -1);
	cr_assert_str_eq(err.text, "t.txt:2: End is before Start");
	cr_assert_eq(parse(text, PSIPLACE_SIM_AUTO, true, &t, &err), 0, "%s", err.text);
	cr_assert_eq(t.n, 1);
	cr_assert_eq(t.jobs[0].id, 3);
	cr_assert_eq(t.counts.malformed, 2);
	psiplace_sim_trace_free(&t);
	cr_assert_eq(parse(HDR "1|2026-01-01T00:00:00|x\n", PSIPLACE_SIM_SACCT, false, &t, &err), -1);
	cr_assert_str_eq(err.text, "t.txt:2: 3 fields, the header has 14 (sacct -P separates by '|')");
	cr_assert_eq(parse("JobIDRaw|Submit|Start|End|NCPUS\n", PSIPLACE_SIM_SACCT, false, &t, &err), -1);
	cr_assert_str_eq(err.text, "t.txt:1: header lacks NNodes; needed: JobIDRaw, Submit, Start, "
				   "End, NNodes, NCPUS");
}

Test(sim_trace, swf_fields_comments_cancelled_and_malformed)
{
	const char *text = "; Version: 2.2\n; MaxProcs: 64\n"
			   "1 0 5 100 8 -1 -1 8 300 2048 1 1 1 -1 1 -1 -1 -1\n"
			   "  ; a comment\n"
			   "2 10 -1 -1 16 -1 -1 16 300 -1 5 1 1 -1 1 -1 -1 -1\n"
			   "3 20 0 50 -1 -1 -1 4 -1 -1 0 1 1 -1 1 -1 -1 -1\n";
	struct psiplace_sim_trace t;
	psiplace_error_t err;

	cr_assert_eq(parse(text, PSIPLACE_SIM_AUTO, false, &t, &err), 0, "%s", err.text);
	cr_assert_eq(t.format, PSIPLACE_SIM_SWF);
	cr_assert_eq(t.n, 2);
	cr_assert_eq(t.jobs[0].runtime, 100);
	cr_assert_eq(t.jobs[0].cpus, 8);
	cr_assert_eq(t.jobs[0].nodes, 0);
	cr_assert_eq(t.jobs[0].limit, 300);
	cr_assert_eq(t.jobs[0].mem, 2, "2048 KB per processor: 2 MB");
	cr_assert_eq(t.jobs[1].cpus, 4, "requested processors when allocated is -1");
	cr_assert_eq(t.jobs[1].limit, 50);
	cr_assert_eq(t.counts.never_ran, 1);
	cr_assert_eq(t.counts.no_limit, 1);
	psiplace_sim_trace_free(&t);
	cr_assert_eq(parse("; x\n1 0 5 100 8 -1 -1 8 300 2048 1 1 1 -1 1 -1 -1\n", PSIPLACE_SIM_SWF,
			   false, &t, &err), -1);
	cr_assert_str_eq(err.text, "t.txt:2: 17 fields; SWF has 18");
	cr_assert_eq(parse("1 0 5 1e 8 -1 -1 8 300 2048 1 1 1 -1 1 -1 -1 -1\n", PSIPLACE_SIM_SWF,
			   false, &t, &err), -1);
	cr_assert_str_eq(err.text, "t.txt:1: field 4 is not a number");
}

Test(sim_trace, time_limits_as_sacct_prints_them)
{
	static const struct { const char *s; int64_t v; } ok[] = {
		{ "1-02:03:04", 93784 }, { "02:03:04", 7384 }, { "05:00", 300 }, { "10", 600 },
		{ "2-3", 183600 }, { "2-03:30", 185400 }, { "UNLIMITED", 0 },
		{ "Partition_Limit", 0 }, { "", 0 },
	};
	static const char *const bad[] = { "x", "1:2:3:4", "-5", "1-", "5:", ":5" };
	int64_t v;

	for (size_t i = 0; i < sizeof(ok) / sizeof(ok[0]); i++) {
		cr_assert(psiplace_sim_parse_limit(ok[i].s, strlen(ok[i].s), &v), "%s", ok[i].s);
		cr_assert_eq(v, ok[i].v, "%s: %lld", ok[i].s, (long long)v);
	}
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		cr_assert_not(psiplace_sim_parse_limit(bad[i], strlen(bad[i]), &v), "%s", bad[i]);
}

Test(sim_trace, scontrol_show_node_one_line_a_node)
{
	const char *text =
		"NodeName=n1 Arch=x86_64 CoresPerSocket=4 CPUAlloc=2 CPUTot=8 CPULoad=0.50 "
		"AvailableFeatures=fast,big ActiveFeatures=fast,big Gres=(null) NodeAddr=n1 "
		"OS=Linux 5.10.0-28-amd64 #1 SMP Debian 5.10.209-2 (2024-01-31) RealMemory=16000 "
		"AllocMem=0 Sockets=2 State=IDLE ThreadsPerCore=1 TmpDisk=100 Weight=5 Owner=N/A\n"
		"\n"
		"NodeName=n2 Arch=x86_64 CPUTot=4 ActiveFeatures=(null) RealMemory=8000 Weight=1\n";
	struct psiplace_nodetable t;
	psiplace_error_t err;

	cr_assert_eq(psiplace_sim_nodetable_from_scontrol(text, strlen(text), "nodes.txt", &t, &err),
		     0, "%s", err.text);
	cr_assert_eq(t.n, 2);
	cr_assert_str_eq(t.nodes[0].name, "n1");
	cr_assert_eq(t.nodes[0].cpus, 8);
	cr_assert_eq(t.nodes[0].alloc_cpus, 0, "the simulation starts empty");
	cr_assert_eq(t.nodes[0].real_memory, 16000);
	cr_assert_eq(t.nodes[0].tmp_disk, 100);
	cr_assert_eq(t.nodes[0].weight, 5);
	cr_assert_str_eq(t.nodes[0].features, "fast,big");
	cr_assert_str_eq(t.nodes[0].arch, "x86_64");
	cr_assert_eq(t.nodes[1].index, 1);
	cr_assert_eq(t.nodes[1].cpus, 4);
	psiplace_nodetable_free(&t);
	cr_assert_eq(psiplace_sim_nodetable_from_scontrol("NodeName=n1 CPUTot=x\n", 21, "nodes.txt",
							  &t, &err), -1);
	cr_assert_str_eq(err.text, "nodes.txt:1: CPUTot='x' is not an unsigned integer");
	cr_assert_eq(psiplace_sim_nodetable_from_scontrol("NodeName=n1\n", 12, "nodes.txt", &t,
							  &err), -1);
	cr_assert_str_eq(err.text, "nodes.txt:1: no CPUTot=");
}

/* gzip -c of s: one gzip member (zlib with gzip's header). */
static size_t gz(const char *s, unsigned char *out, size_t cap)
{
	z_stream z = { 0 };

	cr_assert_eq(deflateInit2(&z, 9, Z_DEFLATED, 16 + MAX_WBITS, 8, Z_DEFAULT_STRATEGY), Z_OK);
	z.next_in = (unsigned char *)(uintptr_t)s;
	z.avail_in = (unsigned)strlen(s);
	z.next_out = out;
	z.avail_out = (unsigned)cap;
	cr_assert_eq(deflate(&z, Z_FINISH), Z_STREAM_END);
	deflateEnd(&z);
	return cap - z.avail_out;
}

Test(sim_gzip, members_one_after_another_read_as_one_text_truncated_is_one_error)
{
	const char *a = "1 0 0 100 4 -1 -1 4 200 -1 1 1 1 1 1 1 -1 -1\n";
	const char *b = "2 10 0 50 2 -1 -1 2 100 -1 1 1 1 1 1 1 -1 -1\n";
	unsigned char buf[512];
	size_t na = gz(a, buf, sizeof(buf)), nb, len;
	psiplace_error_t err;
	char *out;

	nb = gz(b, buf + na, sizeof(buf) - na);
	cr_assert(psiplace_sim_is_gzip((char *)buf, na + nb));
	cr_assert_not(psiplace_sim_is_gzip(a, strlen(a)));
	cr_assert_eq(psiplace_sim_gunzip((char *)buf, na + nb, "t.swf.gz", &out, &len, &err), 0, "%s",
		     err.text);
	cr_assert_eq(len, strlen(a) + strlen(b));
	cr_assert(!memcmp(out, a, strlen(a)) && !memcmp(out + strlen(a), b, strlen(b)));
	free(out);
	cr_assert_eq(psiplace_sim_gunzip((char *)buf, na - 4, "t.swf.gz", &out, &len, &err), -1);
	cr_assert_str_eq(err.text, "t.swf.gz: not a complete gzip file (zlib: truncated)");
}
