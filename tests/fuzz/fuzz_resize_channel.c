/* libFuzzer: the resize channel's parsers (an order from AdminComment,
 * an acknowledgement from Comment, the malleable range, the job's policy
 * part) must give a value, "none" or an error for any bytes; a parsed
 * order, acknowledgement or range is valid (the formatter accepts it) and
 * formats back to exactly the text that was parsed (an order's or range's
 * text before a policy part); a parsed policy formats to a text that
 * parses to the same policy and function.  The first byte picks the
 * parser. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "psiplace/error.h"
#include "psiplace/resize_channel.h"

#include "fuzz_pick.h"

/* The text an order or a range was parsed from: s before its policy part. */
static int same_channel_part(const char *buf, const char *s)
{
	const char *pol = psiplace_rchan_policy_find(s);
	size_t n = pol ? (size_t)(pol - s) : strlen(s);

	if (pol && (pol == s || pol[-1] != ' '))
		return 0;
	if (pol)
		n--;
	return strlen(buf) == n && !memcmp(buf, s, n);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void fuzz_order(const char *s)
{
	struct psiplace_rchan_order o;
	psiplace_error_t err;
	char buf[PSIPLACE_RCHAN_LINE_MAX];
	int rc = psiplace_rchan_order_parse(s, &o, &err);

	if (rc == 1) {
		if (psiplace_rchan_order_format(&o, buf, sizeof(buf)) < 0 || !same_channel_part(buf, s))
			abort();
	} else if (rc == -1) {
		if (o.id || !err.text[0] || !memchr(err.text, '\0', sizeof(err.text)))
			abort();
	} else if (rc != 0 || o.id) {
		abort();
	}
}

static void fuzz_ack(const char *s)
{
	struct psiplace_rchan_ack a;
	psiplace_error_t err;
	char buf[PSIPLACE_RCHAN_LINE_MAX];
	int rc = psiplace_rchan_ack_parse(s, &a, &err);

	if (rc == 1) {
		if (psiplace_rchan_ack_format(&a, buf, sizeof(buf)) < 0 || strcmp(buf, s))
			abort();
	} else if (rc == -1) {
		if (a.id || !err.text[0] || !memchr(err.text, '\0', sizeof(err.text)))
			abort();
	} else if (rc != 0 || a.id) {
		abort();
	}
}

static void fuzz_range(const char *s)
{
	uint32_t lo, hi;
	psiplace_error_t err;
	char buf[64];
	int rc = psiplace_rchan_range_parse(s, &lo, &hi, &err);

	if (rc == 1) {
		if (psiplace_rchan_range_format(lo, hi, buf, sizeof(buf)) < 0 || !same_channel_part(buf, s))
			abort();
	} else if (lo || hi || (rc == -1 && !err.text[0])) {
		abort();
	}
}

static void fuzz_policy(const char *s)
{
	enum psiplace_policy p, q;
	static char fn[PSIPLACE_PRIORITYF_MAXLEN + 1], fn2[PSIPLACE_PRIORITYF_MAXLEN + 1];
	static char buf[PSIPLACE_RCHAN_POLICY_MAX];
	psiplace_error_t err;
	int rc = psiplace_rchan_policy_parse(s, &p, fn, sizeof(fn), &err);

	if (rc == 1) {
		if (psiplace_rchan_policy_format(p, fn, buf, sizeof(buf)) < 0 ||
		    psiplace_rchan_policy_parse(buf, &q, fn2, sizeof(fn2), &err) != 1 || p != q ||
		    strcmp(fn, fn2))
			abort();
	} else if (p != PSIPLACE_POLICY_NONE || fn[0] || (rc == -1 && !err.text[0]) ||
		   (rc == 0 && psiplace_rchan_policy_find(s))) {
		abort();
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const fuzz_parser_fn parsers[] = { fuzz_order, fuzz_ack, fuzz_range, fuzz_policy };

	return fuzz_pick(data, size, parsers, 4);
}
