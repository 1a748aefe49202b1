/* psiplace.conf: hostlist node names, attributes, merging, errors. */
#include <criterion/criterion.h>
#include <string.h>

#include "psiplace/error.h"
#include "psiplace/policy.h"
#include "psiplace/psiplace_conf.h"

static int parse(const char *text, struct psiplace_psiconf *c, psiplace_error_t *err)
{
	return psiplace_psiconf_parse(text, strlen(text), "psiplace.conf", c, err);
}

static void bad(const char *text, const char *msg)
{
	struct psiplace_psiconf c;
	psiplace_error_t err = { "" };

	cr_assert_eq(parse(text, &c, &err), -1, "accepted: %s", text);
	cr_assert_str_eq(err.text, msg);
	cr_assert_eq(c.n, 0);
	cr_assert_null(c.metrics_file);
}

Test(psiconf, spec_example)
{
	const char *text = "MetricsFile=/run/psiplace/metrics          # optional\n"
			   "NodeName=n[1-2] Speed=2.0 Priority=10 ChargeRate=1.5\n"
			   "NodeName=n3 PriorityFunction=\"2*SPEED - LOAD\"\n";
	struct psiplace_psiconf c;
	const struct psiplace_nodeconf *n;
	psiplace_error_t err;

	cr_assert_eq(parse(text, &c, &err), 0, "%s", err.text);
	cr_assert_str_eq(c.metrics_file, "/run/psiplace/metrics");
	cr_assert_eq(c.n, 3);
	n = psiplace_psiconf_node(&c, "n2");
	cr_assert_not_null(n);
	cr_assert(n->has_speed && n->speed == 2.0 && n->priority == 10 && n->charge_rate == 1.5);
	cr_assert_null(n->priorityf);
	n = psiplace_psiconf_node(&c, "n3");
	cr_assert_not_null(n->priorityf);
	cr_assert_str_eq(n->priority_function, "2*SPEED - LOAD");
	cr_assert(!n->has_speed);
	cr_assert_eq(n->speed, 1.0);
	cr_assert_null(psiplace_psiconf_node(&c, "n4"));
	psiplace_psiconf_free(&c);
}

Test(psiconf, node_on_two_lines_merges_distinct_attributes)
{
	struct psiplace_psiconf c;
	const struct psiplace_nodeconf *n;
	psiplace_error_t err;

	cr_assert_eq(parse("nodename=a[1-3] speed=3\n\nNODENAME=a2 Priority=-4\n", &c, &err), 0,
		     "%s", err.text);
	cr_assert_eq(c.n, 3);
	n = psiplace_psiconf_node(&c, "a2");
	cr_assert(n->speed == 3 && n->priority == -4 && n->has_priority);
	cr_assert_eq(n->line[0], 1);
	cr_assert_eq(n->line[1], 3);
	psiplace_psiconf_free(&c);
}

Test(psiconf, errors_name_file_and_line)
{
	bad("NodeName=a[1-2] Speed=2\nNodeName=a2 Speed=3\n",
	    "psiplace.conf:2: node a2: Speed already set at line 1");
	bad("NodeName=a Speed=fast\n", "psiplace.conf:1: not a number: 'Speed=fast'");
	bad("NodeName=a Speed=0\n", "psiplace.conf:1: Speed must be positive: 'Speed=0'");
	bad("NodeName=a ChargeRate=-1\n",
	    "psiplace.conf:1: ChargeRate must not be negative: 'ChargeRate=-1'");
	bad("\nNodeName=a Colour=red\n",
	    "psiplace.conf:2: unknown NodeName attribute (accepted: Speed, Priority, ChargeRate, "
	    "PriorityFunction): 'Colour=red'");
	bad("Frobnicate=1\n", "psiplace.conf:1: unknown key 'Frobnicate'; accepted: MetricsFile, "
			      "NodeName (with Speed, Priority, ChargeRate, PriorityFunction), "
			      "PartitionName (with NodeAllocationPolicy, PriorityFunction), "
			      "MalleableMinInterval, MalleableMaxGrow, MalleableShrink, MalleableInterval, "
			      "MalleableAckTimeout, MalleableHoldTime");
	bad("NodeName=a PriorityFunction=\"SPEED +\n",
	    "psiplace.conf:1: unterminated double quote");
	bad("NodeName=a PriorityFunction=\"SPEED + LAOD\"\n",
	    "psiplace.conf:1: PriorityFunction: position 9: unknown component 'LAOD' in 'SPEED + "
	    "LAOD'");
	bad("NodeName=n[2-1] Speed=1\n",
	    "psiplace.conf:1: NodeName: 'n[2-1]': range 2-1 runs backwards at character 3; "
	    "accepted: host names and Slurm hostlist expressions like n[1-3,5],x7");
	bad("MetricsFile=/a\nMetricsFile=/b\n", "psiplace.conf:2: MetricsFile given twice");
	bad("NodeName=a Speed=1 Speed=2\n",
	    "psiplace.conf:1: attribute given twice on one line: 'Speed=2'");
}

Test(psiconf, a_line_of_65_words_is_refused)
{
	char line[65 * 2 + 2];
	int i;

	for (i = 0; i < 65; i++)
		memcpy(line + 2 * i, "x ", 2);
	memcpy(line + 130, "\n", 2);
	bad(line, "psiplace.conf:1: more than 64 words");
}

Test(psiconf, comments_blank_lines_and_empty_file)
{
	struct psiplace_psiconf c;
	psiplace_error_t err;

	cr_assert_eq(parse("# nothing\n\n   \n", &c, &err), 0);
	cr_assert_eq(c.n, 0);
	psiplace_psiconf_free(&c);
	cr_assert_eq(parse("NodeName=x PriorityFunction=\"FEATURE[a#b]\" # c\n", &c, &err), 0,
		     "%s", err.text);
	cr_assert_str_eq(c.nodes[0].priority_function, "FEATURE[a#b]");
	psiplace_psiconf_free(&c);
}

Test(psiconf, missing_optional_file_is_empty)
{
	struct psiplace_psiconf c;
	psiplace_error_t err;

	cr_assert_eq(psiplace_psiconf_read_file("/nonexistent/psiplace.conf", true, &c, &err), 0);
	cr_assert_eq(c.n, 0);
	cr_assert_eq(psiplace_psiconf_read_file("/nonexistent/psiplace.conf", false, &c, &err), -1);
	cr_assert_str_eq(err.text, "/nonexistent/psiplace.conf: No such file or directory");
}

/* The overlay the select plugin and `psiplace rank --psiconf` share: set
 * attributes replace the node's, unset ones keep them, no entry changes
 * nothing. */
Test(psiconf, apply_overlays_only_what_is_set)
{
	const char *text = "NodeName=a Speed=2.5 ChargeRate=4\n"
			   "NodeName=b Priority=7 PriorityFunction=\"SPEED\"\n";
	struct psiplace_psiconf c;
	struct psiplace_node a = { .speed = 1.0, .priority = 3, .cost = 1 }, b = a, z = a;
	psiplace_error_t err;

	cr_assert_eq(parse(text, &c, &err), 0, "%s", err.text);
	psiplace_psiconf_apply(psiplace_psiconf_node(&c, "a"), &a);
	cr_assert(a.speed == 2.5 && a.priority == 3 && a.cost == 4);
	cr_assert_null(a.priorityf);
	psiplace_psiconf_apply(psiplace_psiconf_node(&c, "b"), &b);
	cr_assert(b.speed == 1.0 && b.priority == 7 && b.cost == 1);
	cr_assert_not_null(b.priorityf);
	psiplace_psiconf_apply(psiplace_psiconf_node(&c, "zz"), &z);
	cr_assert(z.speed == 1.0 && z.priority == 3 && z.cost == 1 && !z.priorityf);
	psiplace_psiconf_free(&c);
}

Test(psiconf, partition_lines_set_policy_and_function)
{
	const char *text = "NodeName=n1 Speed=2\n"
			   "PartitionName=batch NodeAllocationPolicy=lastavailable\n"
			   "partitionname=fast NodeAllocationPolicy=PRIORITY "
			   "PriorityFunction=\"SPEED - LOAD\"\n"
			   "PartitionName=plain NodeAllocationPolicy=none\n";
	const struct psiplace_partconf *pc;
	struct psiplace_psiconf c;
	psiplace_error_t err;

	cr_assert_eq(parse(text, &c, &err), 0, "%s", err.text);
	cr_assert_eq(c.n, 1);
	cr_assert_eq(c.nparts, 3);
	pc = psiplace_psiconf_partition(&c, "batch");
	cr_assert_not_null(pc);
	cr_assert(pc->has_policy && pc->policy == PSIPLACE_POLICY_LASTAVAILABLE);
	cr_assert_null(pc->priorityf);
	cr_assert_eq(pc->line, 2);
	pc = psiplace_psiconf_partition(&c, "fast");
	cr_assert_eq(pc->policy, PSIPLACE_POLICY_PRIORITY);
	cr_assert_not_null(pc->priorityf);
	cr_assert_str_eq(pc->priority_function, "SPEED - LOAD");
	pc = psiplace_psiconf_partition(&c, "plain");
	cr_assert(pc->has_policy && pc->policy == PSIPLACE_POLICY_NONE);
	/* Slurm's partition names are exact */
	cr_assert_null(psiplace_psiconf_partition(&c, "Batch"));
	cr_assert_null(psiplace_psiconf_partition(&c, "debug"));
	cr_assert_null(psiplace_psiconf_partition(&c, NULL));
	psiplace_psiconf_free(&c);
	cr_assert_eq(c.nparts, 0);
}

Test(psiconf, partition_errors_name_file_and_line)
{
	bad("PartitionName=a NodeAllocationPolicy=FIRSTAVAILABLE\n\n"
	    "PartitionName=a NodeAllocationPolicy=LASTAVAILABLE\n",
	    "psiplace.conf:3: partition a: already set at line 1");
	bad("PartitionName=a NodeAllocationPolicy=SOONEST\n",
	    "psiplace.conf:1: NodeAllocationPolicy: 'SOONEST' is not a policy; accepted: FIRSTAVAILABLE, "
	    "LASTAVAILABLE, CPULOAD, MINRESOURCE, MAXBALANCE, FASTEST, CONTIGUOUS, PRIORITY "
	    "(case-insensitive) or Moab's InReportedOrder, InReverseReportedOrder, ProcessorLoad, "
	    "MinimumConfiguredResources, ProcessorSpeedBalance, NodeSpeed, CustomPriority");
	bad("PartitionName=a Speed=2\n",
	    "psiplace.conf:1: unknown PartitionName attribute (accepted: NodeAllocationPolicy, "
	    "PriorityFunction): 'Speed=2'");
	bad("PartitionName=a\n",
	    "psiplace.conf:1: PartitionName sets nothing (accepted: NodeAllocationPolicy, "
	    "PriorityFunction): 'a'");
	bad("PartitionName=a,b NodeAllocationPolicy=FASTEST\n",
	    "psiplace.conf:1: PartitionName: one partition per line, not: 'a,b'");
	bad("PartitionName= NodeAllocationPolicy=FASTEST\n",
	    "psiplace.conf:1: PartitionName: not a partition name (1..64 characters): ''");
	bad("PartitionName=a NodeAllocationPolicy=FASTEST NodeAllocationPolicy=FASTEST\n",
	    "psiplace.conf:1: attribute given twice on one line: 'NodeAllocationPolicy=FASTEST'");
	bad("PartitionName=a PriorityFunction=\"SPEED + LAOD\"\n",
	    "psiplace.conf:1: PriorityFunction: position 9: unknown component 'LAOD' in 'SPEED + "
	    "LAOD'");
}

Test(psiconf, malleable_keys_default_when_not_given)
{
	struct psiplace_psiconf c;
	psiplace_error_t err;

	cr_assert_eq(parse("MetricsFile=/m\n", &c, &err), 0, "%s", err.text);
	cr_assert_eq(c.malleable.min_interval, PSIPLACE_RDEC_MIN_INTERVAL_DEFAULT);
	cr_assert_eq(c.malleable.max_grow, PSIPLACE_RDEC_MAX_GROW_DEFAULT);
	cr_assert_eq(c.malleable.allow_shrink, PSIPLACE_RDEC_ALLOW_SHRINK_DEFAULT);
	cr_assert_eq(c.malleable_line[0] + c.malleable_line[1] + c.malleable_line[2], 0);
	psiplace_psiconf_free(&c);
}

Test(psiconf, malleable_keys_set_the_decisions_parameters)
{
	struct psiplace_psiconf c;
	psiplace_error_t err;

	cr_assert_eq(parse("malleableMinInterval=0\nMalleableMaxGrow=2 # a comment\n"
			   "MalleableShrink=No\n",
			   &c, &err),
		     0, "%s", err.text);
	cr_assert_eq(c.malleable.min_interval, 0);
	cr_assert_eq(c.malleable.max_grow, 2);
	cr_assert_not(c.malleable.allow_shrink);
	cr_assert_eq(c.malleable_line[2], 3);
	psiplace_psiconf_free(&c);
	cr_assert_eq(parse("MalleableMinInterval=604800\nMalleableMaxGrow=1048576\n"
			   "MalleableShrink=yes\n",
			   &c, &err),
		     0, "%s", err.text);
	cr_assert_eq(c.malleable.min_interval, 604800);
	cr_assert_eq(c.malleable.max_grow, 1048576);
	cr_assert(c.malleable.allow_shrink);
	psiplace_psiconf_free(&c);
}

Test(psiconf, malleable_keys_bad_values_one_line_each)
{
	bad("MalleableMinInterval=abc\n",
	    "psiplace.conf:1: MalleableMinInterval: not whole seconds from 0 to 604800: 'abc'");
	bad("MalleableMinInterval=-5\n",
	    "psiplace.conf:1: MalleableMinInterval: not whole seconds from 0 to 604800: '-5'");
	bad("MalleableMinInterval=604801\n",
	    "psiplace.conf:1: MalleableMinInterval: not whole seconds from 0 to 604800: '604801'");
	bad("MalleableMinInterval=1.5\n",
	    "psiplace.conf:1: MalleableMinInterval: not whole seconds from 0 to 604800: '1.5'");
	bad("MalleableMinInterval=\n",
	    "psiplace.conf:1: MalleableMinInterval: not whole seconds from 0 to 604800: ''");
	bad("MalleableMaxGrow=1048577\n",
	    "psiplace.conf:1: MalleableMaxGrow: not a node count from 0 (up to the job's MAX) to "
	    "1048576: '1048577'");
	bad("MalleableShrink=maybe\n", "psiplace.conf:1: MalleableShrink: not yes or no: 'maybe'");
	bad("MalleableShrink=1\n", "psiplace.conf:1: MalleableShrink: not yes or no: '1'");
	bad("MalleableShrink=yes MalleableMaxGrow=2\n",
	    "psiplace.conf:1: MalleableShrink takes no other words on its line: "
	    "'MalleableMaxGrow=2'");
	bad("MalleableMaxGrow=1\n\nMalleableMaxGrow=2\n",
	    "psiplace.conf:3: MalleableMaxGrow: already set at line 1");
	bad("MalleableInterval=0\n",
	    "psiplace.conf:1: MalleableInterval: not whole seconds from 1 to 3600: '0'");
	bad("MalleableInterval=3601\n",
	    "psiplace.conf:1: MalleableInterval: not whole seconds from 1 to 3600: '3601'");
	bad("MalleableAckTimeout=soon\n",
	    "psiplace.conf:1: MalleableAckTimeout: not whole seconds from 1 to 604800: 'soon'");
	bad("MalleableAckTimeout=5\nMalleableAckTimeout=6\n",
	    "psiplace.conf:2: MalleableAckTimeout: already set at line 1");
	bad("MalleableHoldTime=-1\n",
	    "psiplace.conf:1: MalleableHoldTime: not whole seconds from 0 (no hold) to 604800: '-1'");
	bad("MalleableHoldTime=604801\n", "psiplace.conf:1: MalleableHoldTime: not whole seconds "
					 "from 0 (no hold) to 604800: '604801'");
	bad("MalleableHoldTime=2m\n",
	    "psiplace.conf:1: MalleableHoldTime: not whole seconds from 0 (no hold) to 604800: '2m'");
	bad("MalleableHoldTime=60\nMalleableHoldTime=60\n",
	    "psiplace.conf:2: MalleableHoldTime: already set at line 1");
}

Test(psiconf, malleabled_keys_interval_and_ack_timeout)
{
	struct psiplace_psiconf c;
	psiplace_error_t err;

	cr_assert_eq(parse("MetricsFile=/m\n", &c, &err), 0, "%s", err.text);
	cr_assert_eq(c.mall_interval, 5);
	cr_assert_eq(c.mall_ack_timeout, 120);
	psiplace_psiconf_free(&c);
	cr_assert_eq(parse("MalleableInterval=2\nmalleableacktimeout=30\n", &c, &err), 0, "%s",
		     err.text);
	cr_assert_eq(c.mall_interval, 2);
	cr_assert_eq(c.mall_ack_timeout, 30);
	cr_assert_eq(c.malleable_line[3], 1);
	cr_assert_eq(c.malleable_line[4], 2);
	cr_assert_eq(c.mall_hold_time, 120);
	psiplace_psiconf_free(&c);
	cr_assert_eq(parse("\nMALLEABLEHOLDTIME=0\n", &c, &err), 0, "%s", err.text);
	cr_assert_eq(c.mall_hold_time, 0);
	cr_assert_eq(c.malleable_line[5], 2);
	psiplace_psiconf_free(&c);
	cr_assert_eq(parse("MalleableHoldTime=604800\n", &c, &err), 0, "%s", err.text);
	cr_assert_eq(c.mall_hold_time, 604800);
	psiplace_psiconf_free(&c);
}
