/* libFuzzer: the resize channel's two parsers (an order from AdminComment,
 * an acknowledgement from Comment) must give a value, "none" or an error
 * for any bytes; a parsed value is valid (the formatter accepts it) and
 * formats back to exactly the text that was parsed.  The first byte picks
 * the parser (the malleable range marker is the third). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "psiplace/error.h"
#include "psiplace/resize_channel.h"

#include "fuzz_pick.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void fuzz_order(const char *s)
{
	struct psiplace_rchan_order o;
	psiplace_error_t err;
	char buf[PSIPLACE_RCHAN_LINE_MAX];
	int rc = psiplace_rchan_order_parse(s, &o, &err);

	if (rc == 1) {
		if (psiplace_rchan_order_format(&o, buf, sizeof(buf)) < 0 || strcmp(buf, s))
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
		if (psiplace_rchan_range_format(lo, hi, buf, sizeof(buf)) < 0 || strcmp(buf, s))
			abort();
	} else if (lo || hi || (rc == -1 && !err.text[0])) {
		abort();
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const fuzz_parser_fn parsers[] = { fuzz_order, fuzz_ack, fuzz_range };

	return fuzz_pick(data, size, parsers, 3);
}
