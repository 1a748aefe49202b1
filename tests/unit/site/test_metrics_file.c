/* The metrics file: keys, gmetrics, skipped lines, partial last line,
 * reload detection. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "psiplace/error.h"
#include "psiplace/metrics_file.h"

struct logbuf {
	char text[4096];
	int n;
};

static void logit(void *arg, const char *msg)
{
	struct logbuf *b = arg;

	b->n++;
	strncat(b->text, msg, sizeof(b->text) - strlen(b->text) - 2);
	strcat(b->text, "\n");
}

static void parse(const char *text, struct psiplace_metrics *m, struct logbuf *b)
{
	psiplace_error_t err;

	memset(b, 0, sizeof(*b));
	cr_assert_eq(psiplace_metrics_parse(text, strlen(text), "metrics", m, logit, b, &err), 0, "%s", err.text);
}

Test(metrics, keys_and_gmetrics)
{
	struct psiplace_metrics m;
	struct logbuf b;
	const struct psiplace_metrics_node *n;

	parse("n1 load1=0.5 load5=1 load15=2 mtbf=3600 usage=0.25 gmetric.temp=40.5\n"
	      "# comment\n\nn2 load1=3\n", &m, &b);
	cr_assert_eq(b.n, 0, "%s", b.text);
	cr_assert_eq(m.n, 2);
	n = psiplace_metrics_node(&m, "n1");
	cr_assert(n->load1 == 0.5 && n->load5 == 1 && n->load15 == 2 && n->mtbf == 3600 &&
		  n->usage == 0.25);
	cr_assert_eq(n->ngmetrics, 1);
	cr_assert_str_eq(n->gmetrics[0].name, "temp");
	cr_assert_eq(n->gmetrics[0].value, 40.5);
	n = psiplace_metrics_node(&m, "n2");
	cr_assert_eq(n->has, PSIPLACE_METRIC_LOAD1);
	cr_assert_null(psiplace_metrics_node(&m, "n3"));
	psiplace_metrics_free(&m);
}

Test(metrics, malformed_lines_are_skipped_with_a_message)
{
	struct psiplace_metrics m;
	struct logbuf b;

	parse("n1 load1=abc\nn2 load1\nn3 usage=2\nn4 load1=1 colour=3 colour=4\nn5 load1=1\n"
	      "n6 gmetric.=1\n", &m, &b);
	cr_assert_str_eq(b.text,
			 "metrics:1: not a number, line skipped: 'load1=abc'\n"
			 "metrics:2: not key=value, line skipped: 'load1'\n"
			 "metrics:3: value out of range, line skipped: 'usage=2'\n"
			 "metrics:4: unknown key skipped (accepted: load1 load5 load15 mtbf usage "
			 "gmetric.NAME): 'colour'\n"
			 "metrics:6: bad gmetric name, line skipped: 'gmetric.'\n");
	cr_assert_eq(m.n, 2); /* n4 (unknown key only) and n5 */
	cr_assert_eq(m.skipped, 4);
	psiplace_metrics_free(&m);
}

Test(metrics, partial_last_line_is_ignored)
{
	struct psiplace_metrics m;
	struct logbuf b;

	parse("n1 load1=1\nn2 load1=0.", &m, &b);
	cr_assert_eq(m.n, 1);
	cr_assert(m.partial);
	cr_assert_eq(b.n, 0);
	psiplace_metrics_free(&m);
}

Test(metrics, later_lines_override_per_key)
{
	struct psiplace_metrics m;
	struct logbuf b;
	const struct psiplace_metrics_node *n;

	parse("n1 load1=1 load5=5 gmetric.a=1\nn0 load1=0\nn1 load1=2 gmetric.a=7 gmetric.b=2\n",
	      &m, &b);
	n = psiplace_metrics_node(&m, "n1");
	cr_assert(n->load1 == 2 && n->load5 == 5);
	cr_assert_eq(n->ngmetrics, 2);
	cr_assert_eq(n->gmetrics[0].value, 7);
	psiplace_metrics_free(&m);
}

Test(metrics, apply_overrides_slurm_values)
{
	struct psiplace_metrics m;
	struct logbuf b;
	struct psiplace_node node = { .load1 = 9, .load5 = 9, .mtbf = 1 };

	parse("n1 load1=0.25 gmetric.x=3\n", &m, &b);
	psiplace_metrics_apply(psiplace_metrics_node(&m, "n1"), &node);
	cr_assert(node.load1 == 0.25 && node.load5 == 9 && node.mtbf == 1);
	cr_assert_eq(node.ngmetrics, 1);
	psiplace_metrics_free(&m);
}
