/* The job environment as slurmctld sees it: policy, PRIORITYF, errors. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "psiplace/error.h"
#include "psiplace/ctld_request.h"
#include "psiplace/user_request.h"
#include "request_test_util.h"

static int parse(const char *const *env, size_t n, struct psiplace_ctld_request *r, psiplace_error_t *err)
{
	return psiplace_ctld_request_from_env(env, n, r, err);
}

Test(ctld_request, policy_and_unrelated_entries)
{
	const char *env[] = { "FOO=bar", NULL, "PSIPLACE_ALLOC_POLICY=fastest" };
	struct psiplace_ctld_request r;
	psiplace_error_t err;

	cr_assert_eq(parse(env, 3, &r, &err), 0);
	cr_assert_eq(r.policy, PSIPLACE_POLICY_FASTEST);
	cr_assert_str_eq(r.priority, "");
}

Test(ctld_request, priority_implies_priority_policy)
{
	const char *env[] = { "PSIPLACE_ALLOC_PRIORITY=SPEED - LOAD" };
	struct psiplace_ctld_request r;
	psiplace_error_t err;

	cr_assert_eq(parse(env, 1, &r, &err), 0);
	cr_assert_eq(r.policy, PSIPLACE_POLICY_PRIORITY);
	cr_assert_str_eq(r.priority, "SPEED - LOAD");
}

Test(ctld_request, priority_with_explicit_priority_policy_is_fine)
{
	const char *env[] = { "PSIPLACE_ALLOC_POLICY=CustomPriority", "PSIPLACE_ALLOC_PRIORITY=SPEED" };
	struct psiplace_ctld_request r;
	psiplace_error_t err;

	cr_assert_eq(parse(env, 2, &r, &err), 0);
	cr_assert_eq(r.policy, PSIPLACE_POLICY_PRIORITY);
}

Test(ctld_request, priority_with_other_policy_is_an_error)
{
	const char *env[] = { "PSIPLACE_ALLOC_POLICY=FASTEST", "PSIPLACE_ALLOC_PRIORITY=SPEED" };
	struct psiplace_ctld_request r;
	psiplace_error_t err;

	cr_assert_eq(parse(env, 2, &r, &err), -1);
	cr_assert_str_eq(err.text, "PSIPLACE_ALLOC_PRIORITY implies PRIORITY, but PSIPLACE_ALLOC_POLICY "
			      "is FASTEST; give only one of them");
	cr_assert_eq(r.policy, PSIPLACE_POLICY_NONE);
}

Test(ctld_request, malformed_priority_resets_to_defaults)
{
	const char *env[] = { "PSIPLACE_ALLOC_POLICY=FASTEST", "PSIPLACE_ALLOC_PRIORITY=2**LOAD" };
	struct psiplace_ctld_request r;
	psiplace_error_t err;

	cr_assert_eq(parse(env, 2, &r, &err), -1);
	cr_assert_str_eq(err.text, "PSIPLACE_ALLOC_PRIORITY: position 3: expected a component after "
			      "'*' in '2**LOAD'");
	cr_assert_eq(r.policy, PSIPLACE_POLICY_NONE);
	cr_assert_str_eq(r.priority, "");
}

Test(ctld_request, duplicates_and_oversize_are_errors)
{
	const char *dup[] = { "PSIPLACE_ALLOC_POLICY=FASTEST", "PSIPLACE_ALLOC_POLICY=CPULOAD" };
	static char big[PSIPLACE_JOBENV_MAX_VALUE + 64];
	const char *env[] = { big };
	struct psiplace_ctld_request r;
	psiplace_error_t err;

	cr_assert_eq(parse(dup, 2, &r, &err), -1);
	cr_assert_str_eq(err.text, "PSIPLACE_ALLOC_POLICY: given twice");
	strcpy(big, "PSIPLACE_ALLOC_PRIORITY=");
	memset(big + strlen(big), 'A', PSIPLACE_JOBENV_MAX_VALUE + 1);
	cr_assert_eq(parse(env, 1, &r, &err), -1);
	cr_assert_str_eq(err.text, "PSIPLACE_ALLOC_PRIORITY longer than 4096 bytes");
	cr_assert_eq(parse(env, PSIPLACE_JOBENV_MAX_ENTRIES + 1, &r, &err), -1);
}

Test(ctld_request, long_but_bounded_priority_rejected_by_compiler)
{
	static char v[1100 + 32];
	const char *env[] = { v };
	struct psiplace_ctld_request r;
	psiplace_error_t err;

	strcpy(v, "PSIPLACE_ALLOC_PRIORITY=");
	memset(v + strlen(v), ' ', 1100);
	cr_assert_eq(parse(env, 1, &r, &err), -1);
	cr_assert(strstr(err.text, "position 1025: expression longer than 1024 characters"), "%s", err.text);
}

Test(ctld_request, absent_request_keeps_defaults)
{
	const char *env[] = { "OTHER=1", NULL, "PSIPLACE_ALLOC_POLICYX=FASTEST" };
	struct psiplace_ctld_request r;

	cr_assert_eq(psiplace_ctld_request_from_env(env, 3, &r, NULL), 0);
	cr_assert_eq(r.policy, PSIPLACE_POLICY_NONE);
	cr_assert_eq(psiplace_ctld_request_from_env(NULL, 0, &r, NULL), 0);
}

Test(ctld_request, policy_is_read)
{
	const char *env[] = { "A=b", "PSIPLACE_ALLOC_POLICY=FIRSTAVAILABLE" };
	struct psiplace_ctld_request r;

	cr_assert_eq(psiplace_ctld_request_from_env(env, 2, &r, NULL), 0);
	cr_assert_eq(r.policy, PSIPLACE_POLICY_FIRSTAVAILABLE);
}

Test(ctld_request, hostile_values_rejected_and_reset)
{
	static char big[PSIPLACE_JOBENV_MAX_VALUE + 40];
	const char *env[] = { "PSIPLACE_ALLOC_POLICY=FIRSTAVAILABLE", big };
	struct psiplace_ctld_request r;
	psiplace_error_t err;

	memset(big, 'A', sizeof(big) - 1);
	memcpy(big, "PSIPLACE_ALLOC_POLICY=", 22);
	cr_assert_eq(psiplace_ctld_request_from_env(env, 2, &r, &err), -1);
	cr_assert_eq(r.policy, PSIPLACE_POLICY_NONE);
	cr_assert_str_eq(err.text, "PSIPLACE_ALLOC_POLICY longer than 4096 bytes");
	cr_assert_eq(psiplace_ctld_request_from_env(env, PSIPLACE_JOBENV_MAX_ENTRIES + 1, &r, &err), -1);
	cr_assert_str_eq(err.text, "job environment has 4097 entries (at most 4096)");
}

/* The node choice: the client's encoder against this decoder, the PSI
 * candidates and their order (common/request/ctld_nodeset.c). */
Test(ctld_request, node_choice_round_trips_through_the_job_env)
{
	struct psiplace_user_request r;
	struct psiplace_ctld_request j;
	const char *name[4];
	char *value[4], entries[4][256];
	const char *env[4];
	size_t n, i;

	cr_assert_eq(gather(ENV("PSI_HOSTS=n3 n1,n2 n1", "PSI_NODES_SORT=load"), NULL, NULL, true, &r), 0);
	cr_assert_eq(psiplace_ctld_request_env_of_request(&r, name, value, &n, &err), 0);
	cr_assert_eq(n, 3);
	cr_assert_str_eq(name[0], "PSIPLACE_PSI_HOSTS");
	cr_assert_str_eq(value[0], "n[3,1-2,1]");
	cr_assert_str_eq(value[1], "LOAD_1");
	for (i = 0; i < n; i++) {
		snprintf(entries[i], sizeof(entries[i]), "%s=%s", name[i], value[i]);
		env[i] = entries[i];
		free(value[i]);
	}
	cr_assert_eq(psiplace_ctld_request_from_env_nodes(env, n, &j, &err), 0);
	cr_assert(j.psi);
	cr_assert_eq(j.psi_sort, PSIPLACE_SORT_LOAD1);
	cr_assert_eq(j.psi_hosts.n, 4);
	{
		const char *names[4] = { "n0", "n1", "n2", "n3" };
		uint32_t *cand;
		size_t nc;
		cr_assert_eq(psiplace_ctld_request_candidates(&j, names, 4, NULL, &cand, &nc, &err), 0);
		cr_assert_eq(nc, 3);
		cr_assert_eq(cand[0], 3);
		cr_assert_eq(cand[1], 1);
		cr_assert_eq(cand[2], 2);
		free(cand);
		cr_assert_eq(psiplace_ctld_request_candidates(&j, names, 2, NULL, &cand, &nc, &err), -1);
		cr_assert_str_eq(err.text, "PSIPLACE_PSI_HOSTS: 'n3' is not a node of this cluster");
	}
	psiplace_ctld_request_free(&j);
	psiplace_user_request_free(&r);
}

/* slurmctld's finder (its name hash, RELIABILITY R9): host names are looked up through it
 * alone, names[] unused; a position it gives beyond the table is refused. */
static int finder_calls;

static long find_by_suffix(const char *name, void *arg)
{
	long n = *(const long *)arg;

	finder_calls++;
	if (name[0] != 'h' || !name[1])
		return -1;
	return strtol(name + 1, NULL, 10) % (n + 1); /* h<n> is position n; n+1 is past the end */
}

Test(ctld_request, hosts_through_the_callers_finder)
{
	const char *env[] = { "PSIPLACE_PSI=1", "PSIPLACE_PSI_HOSTS=h2,h0,h2" };
	long nnodes = 3;
	const struct psiplace_node_finder finder = { find_by_suffix, &nnodes };
	struct psiplace_ctld_request j;
	uint32_t *cand;
	size_t nc;

	cr_assert_eq(psiplace_ctld_request_from_env_nodes(env, 2, &j, &err), 0, "%s", err.text);
	finder_calls = 0;
	cr_assert_eq(psiplace_ctld_request_candidates(&j, NULL, 3, &finder, &cand, &nc, &err), 0,
		     "%s", err.text);
	cr_assert_eq(finder_calls, 3);
	cr_assert_eq(nc, 2);
	cr_assert_eq(cand[0], 2);
	cr_assert_eq(cand[1], 0);
	free(cand);
	nnodes = 2; /* h2 -> position 2 of a 2-node table: refused */
	cr_assert_eq(psiplace_ctld_request_candidates(&j, NULL, 2, &finder, &cand, &nc, &err), -1);
	cr_assert_str_eq(err.text, "PSIPLACE_PSI_HOSTS: 'h2' is not a node of this cluster");
	psiplace_ctld_request_free(&j);
}

Test(ctld_request, node_ids_beyond_the_cluster_are_errors)
{
	const char *env[] = { "PSIPLACE_PSI_NODES=0,5" };
	struct psiplace_ctld_request j;
	uint32_t *cand;
	size_t nc;
	const char *names[3] = { "a", "b", "c" };

	cr_assert_eq(psiplace_ctld_request_from_env_nodes(env, 1, &j, &err), 0);
	cr_assert_eq(psiplace_ctld_request_candidates(&j, names, 3, NULL, &cand, &nc, &err), -1);
	cr_assert_str_eq(err.text, "PSIPLACE_PSI_NODES: node id 5 is beyond the cluster's 3 nodes (0-2)");
	psiplace_ctld_request_free(&j);
	env[0] = "PSIPLACE_PSI_NODES_SORT=bogus";
	cr_assert_eq(psiplace_ctld_request_from_env_nodes(env, 1, &j, &err), -1);
	cr_assert_str_eq(err.text, "PSIPLACE_PSI_NODES_SORT: 'bogus' is not a sort mode; accepted: PROC, LOAD (LOAD1, LOAD_1), LOAD_5 (LOAD5), LOAD_15 (LOAD15), PROC+LOAD, NONE (case-insensitive)");
}

static struct psiplace_node node(const char *name, uint32_t index, uint32_t threads, uint32_t alloc)
{
	struct psiplace_node n;

	memset(&n, 0, sizeof(n));
	n.name = name;
	n.index = index;
	n.cpus = n.threads = threads;
	n.alloc_cpus = alloc;
	n.weight = 1;
	return n;
}

static const char *order_line(const uint32_t *o, size_t n)
{
	static char buf[128];
	size_t i;

	buf[0] = '\0';
	for (i = 0; i < n; i++)
		snprintf(buf + strlen(buf), sizeof(buf) - strlen(buf), "%s%u", i ? " " : "", o[i]);
	return buf;
}

Test(ctld_request, psi_order_follows_the_allocation_precedence)
{
	struct psiplace_node nodes[4] = { node("n1", 0, 4, 4), node("n2", 1, 8, 0), node("n3", 2, 16, 8),
					  node("n4", 3, 12, 0) };
	struct psiplace_siteconf site;
	struct psiplace_ctld_request j;
	enum psiplace_policy pol;
	enum psiplace_psi_next next;
	uint32_t *o;
	size_t n;
	const char *hosts[] = { "PSIPLACE_PSI_HOSTS=n3,n1,n4", "PSIPLACE_PSI_NODES_SORT=NONE" };
	const char *plain[] = { "PSIPLACE_PSI=1" };
	const char *unknown[] = { "PSIPLACE_PSI_HOSTS=n1,n9" };

	psiplace_siteconf_init(&site);
	/* PSI list order kept by NONE. */
	cr_assert_eq(psiplace_ctld_request_from_env_nodes(hosts, 2, &j, &err), 0);
	cr_assert_eq(psiplace_ctld_request_psi_order(&j, &site, nodes, 4, NULL, &o, &n, &pol, &next, &err), 0, "%s", err.text);
	cr_assert_eq(next, PSIPLACE_PSI_NEXT_DONE);
	cr_assert_str_eq(order_line(o, n), "2 0 3");
	free(o);
	/* Without a sort mode: NodesSort unset = PROC over the set. */
	psiplace_ctld_request_free(&j);
	cr_assert_eq(psiplace_ctld_request_from_env_nodes(hosts, 1, &j, &err), 0);
	cr_assert_eq(psiplace_ctld_request_psi_order(&j, &site, nodes, 4, NULL, &o, &n, &pol, &next, &err), 0, "%s", err.text);
	cr_assert_eq(next, PSIPLACE_PSI_NEXT_DONE);
	cr_assert_str_eq(order_line(o, n), "3 2 0"); /* 0/12, 8/16, 4/4 */
	free(o);
	/* The cluster's policy comes before NodesSort. */
	site.policy = PSIPLACE_POLICY_LASTAVAILABLE;
	cr_assert_eq(psiplace_ctld_request_psi_order(&j, &site, nodes, 4, NULL, &o, &n, &pol, &next, &err), 0, "%s", err.text);
	cr_assert_eq(next, PSIPLACE_PSI_NEXT_POLICY);
	cr_assert_eq(pol, PSIPLACE_POLICY_LASTAVAILABLE);
	cr_assert_str_eq(order_line(o, n), "2 0 3");
	free(o);
	psiplace_ctld_request_free(&j);
	/* PSI node choice without a set (e.g. PSI_EXCLUSIVE): every node, NodesSort. */
	site.policy = PSIPLACE_POLICY_NONE;
	site.nodes_sort = strdup("proc");
	cr_assert_eq(psiplace_ctld_request_from_env_nodes(plain, 1, &j, &err), 0);
	cr_assert_eq(psiplace_ctld_request_psi_order(&j, &site, nodes, 4, NULL, &o, &n, &pol, &next, &err), 0, "%s", err.text);
	cr_assert_eq(next, PSIPLACE_PSI_NEXT_DONE);
	cr_assert_str_eq(order_line(o, n), "3 1 2 0"); /* 0: 12 threads before 8 */
	free(o);
	psiplace_ctld_request_free(&j);
	/* No PSI at all: the cluster's policy or nothing. */
	cr_assert_eq(psiplace_ctld_request_from_env_nodes(NULL, 0, &j, &err), 0);
	cr_assert_eq(psiplace_ctld_request_psi_order(&j, &site, nodes, 4, NULL, &o, &n, &pol, &next, &err), 0, "%s", err.text);
	cr_assert_eq(next, PSIPLACE_PSI_NEXT_NONE);
	cr_assert_null(o);
	psiplace_ctld_request_free(&j);
	/* A set naming a node the cluster does not have: a failure, no order. */
	cr_assert_eq(psiplace_ctld_request_from_env_nodes(unknown, 1, &j, &err), 0);
	cr_assert_eq(psiplace_ctld_request_psi_order(&j, &site, nodes, 4, NULL, &o, &n, &pol, &next, &err), -1);
	cr_assert(strstr(err.text, "'n9' is not a node of this cluster"), "%s", err.text);
	cr_assert_null(o);
	cr_assert_eq(n, 0);
	psiplace_ctld_request_free(&j);
	psiplace_siteconf_free(&site);
}

Test(ctld_request, plain_parse_validates_lists_but_keeps_no_memory)
{
	const char *ok[] = { "PSIPLACE_PSI_NODES=0-3", "PSIPLACE_PSI_HOSTS=n[1-2]" };
	const char *bad[] = { "PSIPLACE_PSI_HOSTS=n[2-1]" };
	struct psiplace_ctld_request j;

	cr_assert_eq(psiplace_ctld_request_from_env(ok, 2, &j, &err), 0);
	cr_assert(j.psi);
	cr_assert_null(j.psi_node_ids);
	cr_assert_eq(j.psi_hosts.n, 0);
	cr_assert_eq(psiplace_ctld_request_from_env(bad, 1, &j, &err), -1);
	cr_assert_str_eq(err.text, "PSIPLACE_PSI_HOSTS: 'n[2-1]': range 2-1 runs backwards at character 3; accepted: host names and Slurm hostlist expressions like n[1-3,5],x7");
}


/* --psi-malleable=MIN-MAX: the pure checks (the partition's limit is
 * passed in; the SPANK side does not fetch it yet). */
static void mall_bad(const char *value, uint32_t limit, const char *msg)
{
	uint32_t lo = 7, hi = 7;
	psiplace_error_t e = { "" };

	cr_assert_eq(psiplace_malleable_parse(value, "--psi-malleable", limit, &lo, &hi, &e), -1,
		     "accepted: %s", value);
	cr_assert_str_eq(e.text, msg);
	cr_assert(lo == 7 && hi == 7, "%s: outputs written on error", value);
}

#define MALL_ACCEPTED "accepted: MIN-MAX, node counts with 1 <= MIN <= MAX, e.g. 1-4"

Test(ctld_request, malleable_range_accepted)
{
	uint32_t lo, hi;
	psiplace_error_t e;

	cr_assert_eq(psiplace_malleable_parse("1-4", "--psi-malleable", 0, &lo, &hi, &e), 0);
	cr_assert(lo == 1 && hi == 4);
	cr_assert_eq(psiplace_malleable_parse("2-2", "--psi-malleable", 2, &lo, &hi, &e), 0);
	cr_assert(lo == 2 && hi == 2);
	cr_assert_eq(psiplace_malleable_parse("007-1048576", "--psi-malleable", 0, &lo, &hi, &e), 0);
	cr_assert(lo == 7 && hi == 1048576);
	/* no partition limit known: only the library's bound applies */
	cr_assert_eq(psiplace_malleable_parse("1-100000", "--psi-malleable", 0, &lo, &hi, &e), 0);
	cr_assert(lo == 1 && hi == 100000);
}

Test(ctld_request, malleable_range_refused_with_one_line)
{
	mall_bad("4-1", 0, "--psi-malleable: '4-1': MIN 4 is above MAX 1; " MALL_ACCEPTED);
	mall_bad("0-2", 0, "--psi-malleable: '0-2': MIN is 0; " MALL_ACCEPTED);
	mall_bad("abc", 0,
		 "--psi-malleable: 'abc' is not MIN-MAX with node counts up to 1048576; " MALL_ACCEPTED);
	mall_bad("1-100000", 64,
		 "--psi-malleable: '1-100000': MAX 100000 is above the partition's 64 nodes; "
		 MALL_ACCEPTED);
	mall_bad("1-1048577", 0,
		 "--psi-malleable: '1-1048577' is not MIN-MAX with node counts up to 1048576; "
		 MALL_ACCEPTED);
	mall_bad("4", 0, "--psi-malleable: '4' is not MIN-MAX with node counts up to 1048576; "
			 MALL_ACCEPTED);
	mall_bad("", 0, "--psi-malleable: '' is not MIN-MAX with node counts up to 1048576; "
			MALL_ACCEPTED);
	mall_bad("-4", 0, "--psi-malleable: '-4' is not MIN-MAX with node counts up to 1048576; "
			  MALL_ACCEPTED);
	mall_bad("1-", 0, "--psi-malleable: '1-' is not MIN-MAX with node counts up to 1048576; "
			  MALL_ACCEPTED);
	mall_bad("1-2-3", 0, "--psi-malleable: '1-2-3' is not MIN-MAX with node counts up to "
			     "1048576; " MALL_ACCEPTED);
	mall_bad(" 1-2", 0, "--psi-malleable: ' 1-2' is not MIN-MAX with node counts up to 1048576; "
			    MALL_ACCEPTED);
	mall_bad("+1-2", 0, "--psi-malleable: '+1-2' is not MIN-MAX with node counts up to 1048576; "
			    MALL_ACCEPTED);
	mall_bad("1-0x4", 0, "--psi-malleable: '1-0x4' is not MIN-MAX with node counts up to "
			     "1048576; " MALL_ACCEPTED);
	mall_bad("1-4\n", 0, "--psi-malleable: '1-4\\x0a' is not MIN-MAX with node counts up to "
			     "1048576; " MALL_ACCEPTED);
	mall_bad(NULL, 0, "--psi-malleable: '' is not MIN-MAX with node counts up to 1048576; "
			  MALL_ACCEPTED);
}

Test(ctld_request, malleable_travels_in_the_job_environment)
{
	const char *env[] = { "PSIPLACE_MALLEABLE=2-8" };
	const char *twice[] = { "PSIPLACE_MALLEABLE=1-2", "PSIPLACE_MALLEABLE=1-3" };
	const char *bad[] = { "PSIPLACE_MALLEABLE=0-2" };
	const char *none[] = { "PSIPLACE_ALLOC_POLICY=fastest" };
	struct psiplace_ctld_request r;
	psiplace_error_t e;

	cr_assert_eq(parse(env, 1, &r, &e), 0, "%s", e.text);
	cr_assert(r.mall_min == 2 && r.mall_max == 8);
	cr_assert_eq(parse(none, 1, &r, &e), 0);
	cr_assert(r.mall_min == 0 && r.mall_max == 0);
	cr_assert_eq(parse(twice, 2, &r, &e), -1);
	cr_assert_str_eq(e.text, "PSIPLACE_MALLEABLE: given twice");
	cr_assert_eq(parse(bad, 1, &r, &e), -1);
	cr_assert_str_eq(e.text, "PSIPLACE_MALLEABLE: '0-2': MIN is 0; " MALL_ACCEPTED);
	cr_assert_eq(r.mall_max, 0);
}

/* The request's version marker: what slurmctld can tell about the plugin
 * that sent a job (doc/upgrade.md, "Submit hosts that differ"). */
Test(ctld_request, version_marker_and_entry_count)
{
	const char *none[] = { "FOO=bar" };
	const char *old[] = { "PSIPLACE_ALLOC_POLICY=fastest" };
	const char *cur[] = { "PSIPLACE_REQUEST=1", "PSIPLACE_ALLOC_POLICY=fastest" };
	const char *bare[] = { "PSIPLACE_REQUEST=1" };
	struct psiplace_ctld_request r;
	psiplace_error_t err;

	cr_assert_eq(parse(none, 1, &r, &err), 0);
	cr_assert_eq(r.version, 0);
	cr_assert_eq(r.nentries, 0);
	cr_assert_eq(parse(old, 1, &r, &err), 0);
	cr_assert_eq(r.version, 0);
	cr_assert_eq(r.nentries, 1);
	cr_assert_eq(r.policy, PSIPLACE_POLICY_FASTEST);
	cr_assert_eq(parse(cur, 2, &r, &err), 0);
	cr_assert_eq(r.version, 1);
	cr_assert_eq(r.nentries, 2);
	cr_assert_eq(r.nunknown, 0);
	cr_assert_eq(parse(bare, 1, &r, &err), 0);
	cr_assert_eq(r.version, 1);
	cr_assert_eq(r.policy, PSIPLACE_POLICY_NONE);
}

Test(ctld_request, newer_entries_are_counted_and_the_rest_applies)
{
	const char *env[] = { "PSIPLACE_REQUEST=7", "PSIPLACE_FUTURE_KNOB=3",
			      "PSIPLACE_ALLOC_POLICY=fastest", "PSIPLACE_OTHER=x" };
	struct psiplace_ctld_request r;
	psiplace_error_t err;

	cr_assert_eq(parse(env, 4, &r, &err), 0);
	cr_assert_eq(r.version, 7);
	cr_assert_eq(r.nunknown, 2);
	cr_assert_str_eq(r.unknown, "PSIPLACE_FUTURE_KNOB");
	cr_assert_eq(r.policy, PSIPLACE_POLICY_FASTEST);
}

Test(ctld_request, malformed_version_is_an_error)
{
	const char *bad[][2] = { { "PSIPLACE_REQUEST=", NULL },	     { "PSIPLACE_REQUEST=0", NULL },
				 { "PSIPLACE_REQUEST=1x", NULL },    { "PSIPLACE_REQUEST=-1", NULL },
				 { "PSIPLACE_REQUEST=1000001", NULL } };
	const char *twice[] = { "PSIPLACE_REQUEST=1", "PSIPLACE_REQUEST=1" };
	struct psiplace_ctld_request r;
	psiplace_error_t err;

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		cr_assert_eq(parse(bad[i], 1, &r, &err), -1, "%s", bad[i][0]);
		cr_assert(strstr(err.text, "PSIPLACE_REQUEST") && strstr(err.text, "accepted: 1 to 1000000"),
			  "%s", err.text);
		cr_assert_eq(r.version, 0);
	}
	cr_assert_eq(parse(twice, 2, &r, &err), -1);
	cr_assert(strstr(err.text, "given twice"), "%s", err.text);
}
