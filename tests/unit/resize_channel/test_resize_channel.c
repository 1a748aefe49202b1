/* The resize channel's texts (psiplace/resize_channel.h): golden orders
 * and acknowledgements, both ways, and the exact error line of each
 * malformed field. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

#include "psiplace/error.h"
#include "psiplace/resize_channel.h"

static char buf[PSIPLACE_RCHAN_LINE_MAX];

static struct psiplace_rchan_order grow(uint64_t id, uint32_t k, int64_t deadline)
{
	struct psiplace_rchan_order o;

	memset(&o, 0, sizeof(o));
	o.id = id;
	o.kind = PSIPLACE_RCHAN_GROW;
	o.k = k;
	o.deadline = deadline;
	return o;
}

static struct psiplace_rchan_order shrink(uint64_t id, uint32_t k, int64_t deadline,
					  const char *nodes, uint32_t for_job)
{
	struct psiplace_rchan_order o = grow(id, k, deadline);

	o.kind = PSIPLACE_RCHAN_SHRINK;
	snprintf(o.nodes, sizeof(o.nodes), "%s", nodes);
	o.for_job = for_job;
	return o;
}

Test(resize_channel, order_grow_format_golden)
{
	struct psiplace_rchan_order o = grow(7, 3, 1764640000);

	cr_assert_eq(psiplace_rchan_order_format(&o, buf, sizeof(buf)), 35);
	cr_assert_str_eq(buf, "psiplace-resize=7;grow;3;1764640000");
}

Test(resize_channel, order_shrink_format_golden)
{
	struct psiplace_rchan_order o = shrink(18446744073709551615u, 2, 0, "n[3-4],x7", 4294967295u);

	psiplace_rchan_order_format(&o, buf, sizeof(buf));
	cr_assert_str_eq(buf, "psiplace-resize=18446744073709551615;shrink;2;0;n[3-4],x7;4294967295");
}

Test(resize_channel, order_format_too_short_is_minus_one)
{
	struct psiplace_rchan_order o = grow(7, 3, 1764640000);

	cr_assert_eq(psiplace_rchan_order_format(&o, buf, 35), -1);
	cr_assert_eq(psiplace_rchan_order_format(&o, buf, 36), 35);
}

Test(resize_channel, order_format_refuses_invalid_structs)
{
	struct psiplace_rchan_order o;

	o = grow(0, 1, 5);
	cr_assert_eq(psiplace_rchan_order_format(&o, buf, sizeof(buf)), -1, "id 0");
	o = grow(1, 0, 5);
	cr_assert_eq(psiplace_rchan_order_format(&o, buf, sizeof(buf)), -1, "k 0");
	o = grow(1, 1, -1);
	cr_assert_eq(psiplace_rchan_order_format(&o, buf, sizeof(buf)), -1, "deadline < 0");
	o = shrink(1, 1, 5, "n1", 9);
	o.kind = PSIPLACE_RCHAN_GROW;
	cr_assert_eq(psiplace_rchan_order_format(&o, buf, sizeof(buf)), -1, "grow with nodes");
	o = grow(1, 1, 5);
	o.for_job = 4;
	cr_assert_eq(psiplace_rchan_order_format(&o, buf, sizeof(buf)), -1, "grow with FOR");
	o = shrink(1, 1, 5, "", 9);
	cr_assert_eq(psiplace_rchan_order_format(&o, buf, sizeof(buf)), -1, "shrink without nodes");
	o = shrink(1, 1, 5, "n1;n2", 9);
	cr_assert_eq(psiplace_rchan_order_format(&o, buf, sizeof(buf)), -1, "';' in nodes");
	o = shrink(1, 1, 5, "n[1-", 9);
	cr_assert_eq(psiplace_rchan_order_format(&o, buf, sizeof(buf)), -1, "bad hostlist");
	o = shrink(1, 1, 5, "n1", 0);
	cr_assert_eq(psiplace_rchan_order_format(&o, buf, sizeof(buf)), -1, "shrink FOR 0");
	o = grow(1, 1, 5);
	o.kind = (enum psiplace_rchan_kind)3;
	cr_assert_eq(psiplace_rchan_order_format(&o, buf, sizeof(buf)), -1, "unknown kind");
}

Test(resize_channel, order_parse_grow)
{
	struct psiplace_rchan_order o;
	psiplace_error_t err;

	cr_assert_eq(psiplace_rchan_order_parse("psiplace-resize=12;grow;1;1764640120", &o, &err), 1);
	cr_assert_eq(o.id, 12);
	cr_assert_eq(o.kind, PSIPLACE_RCHAN_GROW);
	cr_assert_eq(o.k, 1);
	cr_assert_eq(o.deadline, 1764640120);
	cr_assert_str_eq(o.nodes, "");
	cr_assert_eq(o.for_job, 0);
}

Test(resize_channel, order_parse_shrink)
{
	struct psiplace_rchan_order o;
	psiplace_error_t err;

	cr_assert_eq(psiplace_rchan_order_parse("psiplace-resize=3;shrink;2;99;n[3-4];20", &o, &err),
		     1);
	cr_assert_eq(o.id, 3);
	cr_assert_eq(o.kind, PSIPLACE_RCHAN_SHRINK);
	cr_assert_eq(o.k, 2);
	cr_assert_eq(o.deadline, 99);
	cr_assert_str_eq(o.nodes, "n[3-4]");
	cr_assert_eq(o.for_job, 20);
}

Test(resize_channel, order_parse_roundtrips_the_formatted_text)
{
	struct psiplace_rchan_order o = shrink(41, 5, 1764640000, "rack[1-2]n[01-02],x7", 77), back;
	char again[PSIPLACE_RCHAN_LINE_MAX];
	psiplace_error_t err;

	cr_assert_gt(psiplace_rchan_order_format(&o, buf, sizeof(buf)), 0);
	cr_assert_eq(psiplace_rchan_order_parse(buf, &back, &err), 1, "%s", err.text);
	cr_assert_gt(psiplace_rchan_order_format(&back, again, sizeof(again)), 0);
	cr_assert_str_eq(again, buf);
	cr_assert_eq(memcmp(&o, &back, sizeof(o)), 0);
}

Test(resize_channel, order_absent_is_zero)
{
	struct psiplace_rchan_order o;
	psiplace_error_t err;

	cr_assert_eq(psiplace_rchan_order_parse(NULL, &o, &err), 0);
	cr_assert_eq(psiplace_rchan_order_parse("", &o, &err), 0);
	cr_assert_eq(psiplace_rchan_order_parse("reserved for the lab", &o, &err), 0);
	cr_assert_eq(psiplace_rchan_order_parse(" psiplace-resize=1;grow;1;1", &o, &err), 0);
	cr_assert_eq(psiplace_rchan_order_parse("psiplace-resize", &o, &err), 0);
}

static void order_error(const char *s, const char *line)
{
	struct psiplace_rchan_order o;
	psiplace_error_t err;

	memset(&o, 0xff, sizeof(o));
	cr_assert_eq(psiplace_rchan_order_parse(s, &o, &err), -1, "%s", s);
	cr_assert_str_eq(err.text, line, "%s", s);
	cr_assert_eq(o.id, 0, "zeroed on error");
}

Test(resize_channel, order_malformed_fields_golden_errors)
{
	order_error("psiplace-resize=", "psiplace-resize: '' has 1 fields separated by ';', 4 expected");
	order_error("psiplace-resize=1;grow;1",
		    "psiplace-resize: '1;grow;1' has 3 fields separated by ';', 4 expected");
	order_error("psiplace-resize=1;shrink;1;5;n1;2;x",
		    "psiplace-resize: '1;shrink;1;5;n1;2;x' has more than 6 fields separated by ';'");
	order_error("psiplace-resize=0;grow;1;5",
		    "psiplace-resize: ID '0' is not a decimal number from 1 to 18446744073709551615");
	order_error("psiplace-resize=18446744073709551616;grow;1;5",
		    "psiplace-resize: ID '18446744073709551616' is not a decimal number from 1 to "
		    "18446744073709551615");
	order_error("psiplace-resize=07;grow;1;5",
		    "psiplace-resize: ID '07' is not a decimal number from 1 to 18446744073709551615");
	order_error("psiplace-resize=+7;grow;1;5",
		    "psiplace-resize: ID '+7' is not a decimal number from 1 to 18446744073709551615");
	order_error("psiplace-resize=7;expand;1;5",
		    "psiplace-resize: kind 'expand' is not 'grow' or 'shrink'");
	order_error("psiplace-resize=7;grow;0;5",
		    "psiplace-resize: K '0' is not a decimal number from 1 to 4294967295");
	order_error("psiplace-resize=7;grow;4294967296;5",
		    "psiplace-resize: K '4294967296' is not a decimal number from 1 to 4294967295");
	order_error("psiplace-resize=7;grow;1;-5",
		    "psiplace-resize: DEADLINE '-5' is not a decimal number from 0 to "
		    "9223372036854775807");
	order_error("psiplace-resize=7;grow;1;5;n1;3",
		    "psiplace-resize: a grow has 4 fields (ID;grow;K;DEADLINE), this one 6");
	order_error("psiplace-resize=7;shrink;1;5",
		    "psiplace-resize: a shrink has 6 fields (ID;shrink;K;DEADLINE;NODES;FOR), this one 4");
	order_error("psiplace-resize=7;shrink;1;5;n[1-;3",
		    "psiplace-resize: NODES 'n[1-' is not a Slurm hostlist expression (host name "
		    "characters, brackets, commas; at most 1023 bytes)");
	order_error("psiplace-resize=7;shrink;1;5;n1 n2;3",
		    "psiplace-resize: NODES 'n1 n2' is not a Slurm hostlist expression (host name "
		    "characters, brackets, commas; at most 1023 bytes)");
	order_error("psiplace-resize=7;shrink;1;5;;3",
		    "psiplace-resize: NODES '' is not a Slurm hostlist expression (host name "
		    "characters, brackets, commas; at most 1023 bytes)");
	order_error("psiplace-resize=7;shrink;1;5;n1;0",
		    "psiplace-resize: FOR '0' is not a decimal number from 1 to 4294967295");
	order_error("psiplace-resize=7;grow;1;5\n",
		    "psiplace-resize: DEADLINE '5\\x0a' is not a decimal number from 0 to "
		    "9223372036854775807");
}

/* n bytes of "aaaaaaa,aaaaaaa,...": a valid host list of any length. */
static void hosts_of_length(char *dst, size_t n)
{
	for (size_t i = 0; i < n; i++)
		dst[i] = (i % 8 == 7 && i + 1 < n) ? ',' : 'a';
	dst[n] = '\0';
}

Test(resize_channel, order_nodes_too_long_is_an_error)
{
	char s[1200];
	struct psiplace_rchan_order o;
	psiplace_error_t err;
	int n = snprintf(s, sizeof(s), "psiplace-resize=7;shrink;1;5;");

	hosts_of_length(s + n, 1024);
	strcat(s, ";3");
	cr_assert_eq(psiplace_rchan_order_parse(s, &o, &err), -1);
	cr_assert(strstr(err.text, "NODES 'aaaa"), "%s", err.text);
	cr_assert(strstr(err.text, "...'") && strstr(err.text, "at most 1023 bytes"), "%s",
		  err.text);
	hosts_of_length(s + n, 1023);
	strcat(s, ";3");
	cr_assert_eq(psiplace_rchan_order_parse(s, &o, &err), 1, "%s", err.text);
	cr_assert_eq(strlen(o.nodes), 1023);
	cr_assert_gt(psiplace_rchan_order_format(&o, buf, sizeof(buf)), 0, "fits LINE_MAX");
	cr_assert_str_eq(buf, s);
}

Test(resize_channel, ack_format_golden)
{
	struct psiplace_rchan_ack a = { .id = 12, .done = true, .size = 4 };

	cr_assert_eq(psiplace_rchan_ack_format(&a, buf, sizeof(buf)), 22);
	cr_assert_str_eq(buf, "psiplace-ack=12;done;4");
	a.done = false;
	a.size = 1;
	strcpy(a.reason, "helper did not start within 60 s");
	psiplace_rchan_ack_format(&a, buf, sizeof(buf));
	cr_assert_str_eq(buf, "psiplace-ack=12;failed;1;helper did not start within 60 s");
}

Test(resize_channel, ack_format_refuses_invalid_structs)
{
	struct psiplace_rchan_ack a = { .id = 0, .done = true, .size = 4 };

	cr_assert_eq(psiplace_rchan_ack_format(&a, buf, sizeof(buf)), -1, "id 0");
	a.id = 1;
	a.size = 0;
	cr_assert_eq(psiplace_rchan_ack_format(&a, buf, sizeof(buf)), -1, "size 0");
	a.size = 2;
	a.done = false;
	strcpy(a.reason, "a;b");
	cr_assert_eq(psiplace_rchan_ack_format(&a, buf, sizeof(buf)), -1, "';' in reason");
	strcpy(a.reason, "a\nb");
	cr_assert_eq(psiplace_rchan_ack_format(&a, buf, sizeof(buf)), -1, "newline in reason");
	strcpy(a.reason, "ok");
	cr_assert_eq(psiplace_rchan_ack_format(&a, buf, 10), -1, "too short");
}

Test(resize_channel, ack_parse_done_and_failed)
{
	struct psiplace_rchan_ack a;
	psiplace_error_t err;

	cr_assert_eq(psiplace_rchan_ack_parse("psiplace-ack=9;done;2", &a, &err), 1);
	cr_assert_eq(a.id, 9);
	cr_assert(a.done);
	cr_assert_eq(a.size, 2);
	cr_assert_str_eq(a.reason, "");
	cr_assert_eq(psiplace_rchan_ack_parse("psiplace-ack=9;failed;1;no node", &a, &err), 1);
	cr_assert_not(a.done);
	cr_assert_eq(a.size, 1);
	cr_assert_str_eq(a.reason, "no node");
	cr_assert_eq(psiplace_rchan_ack_parse("psiplace-ack=9;failed;1;", &a, &err), 1);
	cr_assert_str_eq(a.reason, "");
}

Test(resize_channel, ack_absent_is_zero)
{
	struct psiplace_rchan_ack a;
	psiplace_error_t err;

	cr_assert_eq(psiplace_rchan_ack_parse(NULL, &a, &err), 0);
	cr_assert_eq(psiplace_rchan_ack_parse("", &a, &err), 0);
	cr_assert_eq(psiplace_rchan_ack_parse("my run", &a, &err), 0);
	cr_assert_eq(psiplace_rchan_ack_parse("psiplace-resize=1;grow;1;1", &a, &err), 0);
}

static void ack_error(const char *s, const char *line)
{
	struct psiplace_rchan_ack a;
	psiplace_error_t err;

	memset(&a, 0xff, sizeof(a));
	cr_assert_eq(psiplace_rchan_ack_parse(s, &a, &err), -1, "%s", s);
	cr_assert_str_eq(err.text, line, "%s", s);
	cr_assert_eq(a.id, 0, "zeroed on error");
}

Test(resize_channel, ack_malformed_fields_golden_errors)
{
	ack_error("psiplace-ack=9;done",
		  "psiplace-ack: '9;done' has 2 fields separated by ';', 3 expected");
	ack_error("psiplace-ack=9;failed;1;a;b",
		  "psiplace-ack: '9;failed;1;a;b' has more than 4 fields separated by ';'");
	ack_error("psiplace-ack=x;done;2",
		  "psiplace-ack: ID 'x' is not a decimal number from 1 to 18446744073709551615");
	ack_error("psiplace-ack=9;ok;2", "psiplace-ack: outcome 'ok' is not 'done' or 'failed'");
	ack_error("psiplace-ack=9;done;0",
		  "psiplace-ack: SIZE '0' is not a decimal number from 1 to 4294967295");
	ack_error("psiplace-ack=9;done;2;why",
		  "psiplace-ack: 'done' has 3 fields (ID;done;SIZE), this one 4");
	ack_error("psiplace-ack=9;failed;2",
		  "psiplace-ack: 'failed' has 4 fields (ID;failed;SIZE;REASON), this one 3");
	ack_error("psiplace-ack=9;failed;2;tab\there",
		  "psiplace-ack: REASON 'tab\\x09here' is not printable text without ';' of at most "
		  "200 bytes");
}

Test(resize_channel, ack_reason_at_most_200_bytes)
{
	char s[400];
	struct psiplace_rchan_ack a, back;
	psiplace_error_t err;
	int n = snprintf(s, sizeof(s), "psiplace-ack=5;failed;3;");

	memset(s + n, 'r', 200);
	s[n + 200] = '\0';
	cr_assert_eq(psiplace_rchan_ack_parse(s, &a, &err), 1, "%s", err.text);
	cr_assert_eq(strlen(a.reason), 200);
	cr_assert_gt(psiplace_rchan_ack_format(&a, buf, sizeof(buf)), 0);
	cr_assert_str_eq(buf, s);
	cr_assert_eq(psiplace_rchan_ack_parse(buf, &back, &err), 1);
	cr_assert_eq(memcmp(&a, &back, sizeof(a)), 0);
	s[n + 200] = 'r';
	s[n + 201] = '\0';
	cr_assert_eq(psiplace_rchan_ack_parse(s, &a, &err), -1);
	cr_assert(strstr(err.text, "REASON 'rrrr") && strstr(err.text, "at most 200 bytes"), "%s",
		  err.text);
}

Test(resize_channel, kind_names)
{
	cr_assert_str_eq(psiplace_rchan_kind_name(PSIPLACE_RCHAN_GROW), "grow");
	cr_assert_str_eq(psiplace_rchan_kind_name(PSIPLACE_RCHAN_SHRINK), "shrink");
	cr_assert_str_eq(psiplace_rchan_kind_name((enum psiplace_rchan_kind)0), "");
}

Test(resize_channel, range_format_and_parse)
{
	uint32_t lo, hi;
	psiplace_error_t err;

	cr_assert_eq(psiplace_rchan_range_format(1, 4, buf, sizeof(buf)), 22);
	cr_assert_str_eq(buf, "psiplace-malleable=1-4");
	cr_assert_eq(psiplace_rchan_range_parse(buf, &lo, &hi, &err), 1);
	cr_assert(lo == 1 && hi == 4);
	cr_assert_eq(psiplace_rchan_range_format(0, 4, buf, sizeof(buf)), -1);
	cr_assert_eq(psiplace_rchan_range_format(5, 4, buf, sizeof(buf)), -1);
	cr_assert_eq(psiplace_rchan_range_format(1, 1048577, buf, sizeof(buf)), -1);
	cr_assert_eq(psiplace_rchan_range_parse("", &lo, &hi, &err), 0);
	cr_assert_eq(psiplace_rchan_range_parse("psiplace-resize=1;grow;1;1", &lo, &hi, &err), 0);
	cr_assert_eq(psiplace_rchan_range_parse("psiplace-malleable=4-1", &lo, &hi, &err), -1);
	cr_assert_str_eq(err.text,
			 "psiplace-malleable: MAX '1' is not a decimal number from 4 to 1048576");
	cr_assert_eq(psiplace_rchan_range_parse("psiplace-malleable=0-1", &lo, &hi, &err), -1);
	cr_assert_str_eq(err.text,
			 "psiplace-malleable: MIN '0' is not a decimal number from 1 to 1048576");
	cr_assert_eq(psiplace_rchan_range_parse("psiplace-malleable=3", &lo, &hi, &err), -1);
	cr_assert_str_eq(err.text, "psiplace-malleable: '3' is not MIN-MAX");
	cr_assert(lo == 0 && hi == 0);
}

/* --- the job's own policy after the channel's part --- */

Test(resize_channel, policy_format_golden)
{
	char big[PSIPLACE_RCHAN_POLICY_MAX], fn[1100];

	cr_assert_eq(psiplace_rchan_policy_format(PSIPLACE_POLICY_FASTEST, NULL, big, sizeof(big)), 23);
	cr_assert_str_eq(big, "psiplace-policy=FASTEST");
	cr_assert_eq(psiplace_rchan_policy_format(PSIPLACE_POLICY_PRIORITY, "2*SPEED - LOAD", big,
						  sizeof(big)),
		     39);
	cr_assert_str_eq(big, "psiplace-policy=PRIORITY;2*SPEED - LOAD");
	cr_assert_eq(psiplace_rchan_policy_format(PSIPLACE_POLICY_NONE, NULL, big, sizeof(big)), -1);
	cr_assert_eq(psiplace_rchan_policy_format((enum psiplace_policy)99, NULL, big, sizeof(big)), -1);
	cr_assert_eq(psiplace_rchan_policy_format(PSIPLACE_POLICY_FASTEST, "SPEED", big, sizeof(big)),
		     -1);
	cr_assert_eq(psiplace_rchan_policy_format(PSIPLACE_POLICY_FASTEST, NULL, big, 23), -1);
	memset(fn, 'S', sizeof(fn));
	fn[1024] = '\0'; /* the longest function fits the bound */
	cr_assert_eq(psiplace_rchan_policy_format(PSIPLACE_POLICY_PRIORITY, fn, big, sizeof(big)),
		     16 + 8 + 1 + 1024);
	fn[1024] = 'S';
	fn[1025] = '\0';
	cr_assert_eq(psiplace_rchan_policy_format(PSIPLACE_POLICY_PRIORITY, fn, big, sizeof(big)), -1);
}

Test(resize_channel, policy_parse_alone_after_a_range_and_after_an_order)
{
	enum psiplace_policy p;
	char fn[PSIPLACE_PRIORITYF_MAXLEN + 1];
	psiplace_error_t err;

	cr_assert_eq(psiplace_rchan_policy_parse("psiplace-policy=FASTEST", &p, fn, sizeof(fn), &err), 1);
	cr_assert(p == PSIPLACE_POLICY_FASTEST && !fn[0]);
	cr_assert_eq(psiplace_rchan_policy_parse("psiplace-malleable=1-4 psiplace-policy=PRIORITY;SPEED - 1",
						 &p, fn, sizeof(fn), &err),
		     1);
	cr_assert_eq(p, PSIPLACE_POLICY_PRIORITY);
	cr_assert_str_eq(fn, "SPEED - 1");
	cr_assert_eq(psiplace_rchan_policy_parse("psiplace-resize=3;grow;1;9 psiplace-policy=lastavailable",
						 &p, fn, sizeof(fn), &err),
		     1);
	cr_assert_eq(p, PSIPLACE_POLICY_LASTAVAILABLE);
	cr_assert_eq(psiplace_rchan_policy_parse("psiplace-malleable=1-4", &p, fn, sizeof(fn), &err), 0);
	cr_assert_eq(psiplace_rchan_policy_parse(NULL, &p, fn, sizeof(fn), &err), 0);
	/* only a part of its own: at the start or after a blank */
	cr_assert_eq(psiplace_rchan_policy_parse("xpsiplace-policy=FASTEST", &p, fn, sizeof(fn), &err), 0);
	cr_assert_eq(p, PSIPLACE_POLICY_NONE);
}

Test(resize_channel, policy_parse_malformed_golden_errors)
{
	enum psiplace_policy p;
	char fn[PSIPLACE_PRIORITYF_MAXLEN + 1], big[1200];
	psiplace_error_t err;

	cr_assert_eq(psiplace_rchan_policy_parse("psiplace-policy=FAST", &p, fn, sizeof(fn), &err), -1);
	cr_assert_str_eq(err.text, "psiplace-policy: 'FAST' is not a policy; accepted: "
				   "FIRSTAVAILABLE, LASTAVAILABLE, CPULOAD, MINRESOURCE, MAXBALANCE, "
				   "FASTEST, CONTIGUOUS, PRIORITY (case-insensitive) or Moab's "
				   "InReportedOrder, InReverseReportedOrder, ProcessorLoad, "
				   "MinimumConfiguredResources, ProcessorSpeedBalance, NodeSpeed, "
				   "CustomPriority");
	cr_assert_eq(p, PSIPLACE_POLICY_NONE);
	cr_assert_eq(psiplace_rchan_policy_parse("psiplace-policy=FASTEST;SPEED", &p, fn, sizeof(fn), &err),
		     -1);
	cr_assert_str_eq(err.text, "psiplace-policy: 'FASTEST;SPEED': only PRIORITY takes ;FUNCTION, "
				   "of 1 to 1024 bytes");
	cr_assert_eq(psiplace_rchan_policy_parse("psiplace-policy=PRIORITY;", &p, fn, sizeof(fn), &err), -1);
	cr_assert_eq(p, PSIPLACE_POLICY_NONE);
	snprintf(big, sizeof(big), "psiplace-policy=PRIORITY;%01025d", 1);
	cr_assert_eq(psiplace_rchan_policy_parse(big, &p, fn, sizeof(fn), &err), -1);
	cr_assert_eq(psiplace_rchan_policy_parse("psiplace-policy=", &p, fn, sizeof(fn), &err), -1);
}

Test(resize_channel, order_and_range_parse_stop_at_the_policy_part)
{
	struct psiplace_rchan_order o;
	uint32_t lo, hi;
	psiplace_error_t err;

	cr_assert_eq(psiplace_rchan_order_parse("psiplace-resize=7;shrink;1;50;n3;12 psiplace-policy=FASTEST",
						&o, &err),
		     1, "%s", err.text);
	cr_assert(o.id == 7 && o.kind == PSIPLACE_RCHAN_SHRINK && o.for_job == 12);
	cr_assert_str_eq(o.nodes, "n3");
	cr_assert_eq(psiplace_rchan_range_parse("psiplace-malleable=2-3 psiplace-policy=PRIORITY;-SPEED",
						&lo, &hi, &err),
		     1, "%s", err.text);
	cr_assert(lo == 2 && hi == 3);
	/* a rigid job's AdminComment: neither an order nor a range */
	cr_assert_eq(psiplace_rchan_order_parse("psiplace-policy=FASTEST", &o, &err), 0);
	cr_assert_eq(psiplace_rchan_range_parse("psiplace-policy=FASTEST", &lo, &hi, &err), 0);
	/* anything else after the blank is still malformed */
	cr_assert_eq(psiplace_rchan_order_parse("psiplace-resize=7;grow;1;50 x", &o, &err), -1);
}
