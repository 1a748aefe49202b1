/* The resize channel's two texts (psiplace/resize_channel.h): an order in
 * AdminComment, an acknowledgement in Comment.  Both parsers are total: a
 * field is split at ';' and each is checked against exactly what the
 * formatter writes, so that parse(format(x)) == x and format(parse(s)) == s
 * for every s the parser accepts. */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "psiplace/error.h"
#include "psiplace/hostlist.h"
#include "psiplace/priorityf.h"
#include "psiplace/resize_channel.h"

#define MAX_FIELDS 6

struct fields {
	const char *what; /* "psiplace-resize" or "psiplace-ack", for messages */
	const char *f[MAX_FIELDS];
	size_t len[MAX_FIELDS];
	size_t n;
};

const char *psiplace_rchan_kind_name(enum psiplace_rchan_kind k)
{
	switch (k) {
	case PSIPLACE_RCHAN_GROW: return "grow";
	case PSIPLACE_RCHAN_SHRINK: return "shrink";
	}
	return "";
}

/* Split s (after the prefix) at ';' into at most max fields; -1 with err
 * when there are more than max or fewer than min. */
static int split(const char *s, struct fields *fl, size_t min, size_t max, psiplace_error_t *err)
{
	const char *p = s;

	fl->n = 0;
	for (;;) {
		const char *e = strchr(p, ';');
		size_t len = e ? (size_t)(e - p) : strlen(p);

		if (fl->n == max) {
			char q[64];

			psiplace_quote(q, sizeof(q), s, 48);
			return psiplace_seterr(err, "%s: '%s' has more than %zu fields separated by ';'",
					       fl->what, q, max);
		}
		fl->f[fl->n] = p;
		fl->len[fl->n++] = len;
		if (!e)
			break;
		p = e + 1;
	}
	if (fl->n < min) {
		char q[64];

		psiplace_quote(q, sizeof(q), s, 48);
		return psiplace_seterr(err, "%s: '%s' has %zu fields separated by ';', %zu expected",
				       fl->what, q, fl->n, min);
	}
	return 0;
}

static int field_error(const struct fields *fl, size_t i, const char *name, const char *accepted,
		       psiplace_error_t *err)
{
	char q[64], v[48];
	size_t n = fl->len[i] < sizeof(v) - 1 ? fl->len[i] : sizeof(v) - 1;

	memcpy(v, fl->f[i], n);
	v[n] = '\0';
	psiplace_quote(q, sizeof(q), v, 40);
	return psiplace_seterr(err, "%s: %s '%s' is not %s", fl->what, name, q, accepted);
}

/* Field i as a plain decimal number in [lo, hi]. */
static int field_u64(const struct fields *fl, size_t i, const char *name, uint64_t lo, uint64_t hi,
		     uint64_t *out, psiplace_error_t *err)
{
	const char *p = fl->f[i];
	size_t len = fl->len[i], k;
	uint64_t v = 0;
	char accepted[96];

	snprintf(accepted, sizeof(accepted), "a decimal number from %" PRIu64 " to %" PRIu64, lo,
		 hi);
	if (!len || (len > 1 && p[0] == '0'))
		return field_error(fl, i, name, accepted, err);
	for (k = 0; k < len; k++) {
		unsigned d = (unsigned)(unsigned char)p[k] - '0';

		if (d > 9 || v > (UINT64_MAX - d) / 10)
			return field_error(fl, i, name, accepted, err);
		v = v * 10 + d;
	}
	if (v < lo || v > hi)
		return field_error(fl, i, name, accepted, err);
	*out = v;
	return 0;
}

static bool nodes_chars_ok(const char *s, size_t len)
{
	for (size_t i = 0; i < len; i++) {
		unsigned char c = (unsigned char)s[i];

		if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
		      c == '-' || c == '_' || c == '.' || c == '[' || c == ']' || c == ','))
			return false;
	}
	return true;
}

/* A NODES value: non-empty, fits, host name characters, brackets and
 * commas only, and a hostlist expression that expands. */
static bool nodes_ok(const char *s, size_t len)
{
	struct psiplace_hostlist h;
	char buf[PSIPLACE_RCHAN_NODES_MAX];

	if (!len || len >= PSIPLACE_RCHAN_NODES_MAX || !nodes_chars_ok(s, len))
		return false;
	memcpy(buf, s, len);
	buf[len] = '\0';
	if (psiplace_hostlist_expand(buf, "NODES", &h, NULL) < 0)
		return false;
	psiplace_hostlist_free(&h);
	return true;
}

static bool reason_ok(const char *s, size_t len)
{
	if (len > PSIPLACE_RCHAN_REASON_MAX)
		return false;
	for (size_t i = 0; i < len; i++) {
		unsigned char c = (unsigned char)s[i];

		if (c < 0x20 || c >= 0x7f || c == ';')
			return false;
	}
	return true;
}

static bool order_ok(const struct psiplace_rchan_order *o)
{
	if (!o || !o->id || !o->k || o->deadline < 0)
		return false;
	if (!memchr(o->nodes, '\0', sizeof(o->nodes)))
		return false;
	if (o->kind == PSIPLACE_RCHAN_GROW)
		return !o->nodes[0] && !o->for_job;
	if (o->kind == PSIPLACE_RCHAN_SHRINK)
		return o->for_job && nodes_ok(o->nodes, strlen(o->nodes));
	return false;
}

static long written(int n, size_t len)
{
	return n < 0 || (size_t)n >= len ? -1 : n;
}

long psiplace_rchan_order_format(const struct psiplace_rchan_order *o, char *buf, size_t len)
{
	int n;

	if (!buf || !order_ok(o))
		return -1;
	if (o->kind == PSIPLACE_RCHAN_GROW)
		n = snprintf(buf, len, PSIPLACE_RCHAN_ORDER_PREFIX "%" PRIu64 ";grow;%" PRIu32
				       ";%" PRId64,
			     o->id, o->k, o->deadline);
	else
		n = snprintf(buf, len, PSIPLACE_RCHAN_ORDER_PREFIX "%" PRIu64 ";shrink;%" PRIu32
				       ";%" PRId64 ";%s;%" PRIu32,
			     o->id, o->k, o->deadline, o->nodes, o->for_job);
	return written(n, len);
}

long psiplace_rchan_ack_format(const struct psiplace_rchan_ack *a, char *buf, size_t len)
{
	int n;

	if (!buf || !a || !a->id || !a->size)
		return -1;
	if (a->done) {
		n = snprintf(buf, len, PSIPLACE_RCHAN_ACK_PREFIX "%" PRIu64 ";done;%" PRIu32, a->id,
			     a->size);
	} else {
		if (!memchr(a->reason, '\0', sizeof(a->reason)) ||
		    !reason_ok(a->reason, strlen(a->reason)))
			return -1;
		n = snprintf(buf, len, PSIPLACE_RCHAN_ACK_PREFIX "%" PRIu64 ";failed;%" PRIu32 ";%s",
			     a->id, a->size, a->reason);
	}
	return written(n, len);
}

static bool field_is(const struct fields *fl, size_t i, const char *word)
{
	return fl->len[i] == strlen(word) && !memcmp(fl->f[i], word, fl->len[i]);
}

static int order_fields(const char *body, struct psiplace_rchan_order *o, psiplace_error_t *err)
{
	struct fields fl = { .what = "psiplace-resize" };
	uint64_t v;

	if (split(body, &fl, 4, 6, err) < 0)
		return -1;
	if (field_u64(&fl, 0, "ID", 1, UINT64_MAX, &o->id, err) < 0)
		return -1;
	if (field_is(&fl, 1, "grow"))
		o->kind = PSIPLACE_RCHAN_GROW;
	else if (field_is(&fl, 1, "shrink"))
		o->kind = PSIPLACE_RCHAN_SHRINK;
	else
		return field_error(&fl, 1, "kind", "'grow' or 'shrink'", err);
	if (field_u64(&fl, 2, "K", 1, UINT32_MAX, &v, err) < 0)
		return -1;
	o->k = (uint32_t)v;
	if (field_u64(&fl, 3, "DEADLINE", 0, INT64_MAX, &v, err) < 0)
		return -1;
	o->deadline = (int64_t)v;
	if (o->kind == PSIPLACE_RCHAN_GROW) {
		if (fl.n != 4)
			return psiplace_seterr(err, "psiplace-resize: a grow has 4 fields "
						    "(ID;grow;K;DEADLINE), this one %zu",
					       fl.n);
		return 0;
	}
	if (fl.n != 6)
		return psiplace_seterr(err, "psiplace-resize: a shrink has 6 fields "
					    "(ID;shrink;K;DEADLINE;NODES;FOR), this one %zu",
				       fl.n);
	if (!nodes_ok(fl.f[4], fl.len[4]))
		return field_error(&fl, 4, "NODES",
				   "a Slurm hostlist expression (host name characters, brackets, "
				   "commas; at most 1023 bytes)",
				   err);
	memcpy(o->nodes, fl.f[4], fl.len[4]);
	o->nodes[fl.len[4]] = '\0';
	if (field_u64(&fl, 5, "FOR", 1, UINT32_MAX, &v, err) < 0)
		return -1;
	o->for_job = (uint32_t)v;
	return 0;
}

/* s without its policy part (and the blank before it), into buf; s
 * itself when it has none.  NULL when that part does not fit: malformed. */
static const char *channel_part(const char *s, char *buf, size_t len)
{
	const char *pol = s ? psiplace_rchan_policy_find(s) : NULL;
	size_t n;

	if (!pol)
		return s;
	n = pol == s ? 0 : (size_t)(pol - s) - 1;
	if (n >= len)
		return NULL;
	memcpy(buf, s, n);
	buf[n] = '\0';
	return buf;
}

static int too_long(const char *what, psiplace_error_t *err)
{
	return psiplace_seterr(err, "%s: longer than %d bytes before its psiplace-policy= part", what,
			       PSIPLACE_RCHAN_LINE_MAX - 1);
}

int psiplace_rchan_order_parse(const char *s, struct psiplace_rchan_order *o,
			       psiplace_error_t *err)
{
	size_t plen = strlen(PSIPLACE_RCHAN_ORDER_PREFIX);
	char buf[PSIPLACE_RCHAN_LINE_MAX];

	memset(o, 0, sizeof(*o));
	if (!s || strncmp(s, PSIPLACE_RCHAN_ORDER_PREFIX, plen))
		return 0;
	if (!(s = channel_part(s, buf, sizeof(buf))))
		return too_long("psiplace-resize", err);
	if (order_fields(s + plen, o, err) < 0) {
		memset(o, 0, sizeof(*o));
		return -1;
	}
	return 1;
}

static int ack_fields(const char *body, struct psiplace_rchan_ack *a, psiplace_error_t *err)
{
	struct fields fl = { .what = "psiplace-ack" };
	uint64_t v;

	if (split(body, &fl, 3, 4, err) < 0)
		return -1;
	if (field_u64(&fl, 0, "ID", 1, UINT64_MAX, &a->id, err) < 0)
		return -1;
	if (field_is(&fl, 1, "done"))
		a->done = true;
	else if (!field_is(&fl, 1, "failed"))
		return field_error(&fl, 1, "outcome", "'done' or 'failed'", err);
	if (field_u64(&fl, 2, "SIZE", 1, UINT32_MAX, &v, err) < 0)
		return -1;
	a->size = (uint32_t)v;
	if (a->done) {
		if (fl.n != 3)
			return psiplace_seterr(err, "psiplace-ack: 'done' has 3 fields "
						    "(ID;done;SIZE), this one %zu",
					       fl.n);
		return 0;
	}
	if (fl.n != 4)
		return psiplace_seterr(err, "psiplace-ack: 'failed' has 4 fields "
					    "(ID;failed;SIZE;REASON), this one %zu",
				       fl.n);
	if (!reason_ok(fl.f[3], fl.len[3]))
		return field_error(&fl, 3, "REASON",
				   "printable text without ';' of at most 200 bytes", err);
	memcpy(a->reason, fl.f[3], fl.len[3]);
	a->reason[fl.len[3]] = '\0';
	return 0;
}

int psiplace_rchan_ack_parse(const char *s, struct psiplace_rchan_ack *a, psiplace_error_t *err)
{
	size_t plen = strlen(PSIPLACE_RCHAN_ACK_PREFIX);

	memset(a, 0, sizeof(*a));
	if (!s || strncmp(s, PSIPLACE_RCHAN_ACK_PREFIX, plen))
		return 0;
	if (ack_fields(s + plen, a, err) < 0) {
		memset(a, 0, sizeof(*a));
		return -1;
	}
	return 1;
}

long psiplace_rchan_range_format(uint32_t min, uint32_t max, char *buf, size_t len)
{
	if (!buf || !min || min > max || max > PSIPLACE_RCHAN_RANGE_MAX)
		return -1;
	return written(snprintf(buf, len, PSIPLACE_RCHAN_RANGE_PREFIX "%" PRIu32 "-%" PRIu32, min,
				max),
		       len);
}

int psiplace_rchan_range_parse(const char *s, uint32_t *min, uint32_t *max, psiplace_error_t *err)
{
	size_t plen = strlen(PSIPLACE_RCHAN_RANGE_PREFIX);
	struct fields fl = { .what = "psiplace-malleable", .n = 2 };
	const char *dash;
	uint64_t lo, hi;
	char buf[PSIPLACE_RCHAN_LINE_MAX];

	*min = *max = 0;
	if (!s || strncmp(s, PSIPLACE_RCHAN_RANGE_PREFIX, plen))
		return 0;
	if (!(s = channel_part(s, buf, sizeof(buf))))
		return too_long("psiplace-malleable", err);
	s += plen;
	if (!(dash = strchr(s, '-'))) {
		char q[64];

		psiplace_quote(q, sizeof(q), s, 48);
		return psiplace_seterr(err, "psiplace-malleable: '%s' is not MIN-MAX", q);
	}
	fl.f[0] = s;
	fl.len[0] = (size_t)(dash - s);
	fl.f[1] = dash + 1;
	fl.len[1] = strlen(dash + 1);
	if (field_u64(&fl, 0, "MIN", 1, PSIPLACE_RCHAN_RANGE_MAX, &lo, err) < 0 ||
	    field_u64(&fl, 1, "MAX", lo, PSIPLACE_RCHAN_RANGE_MAX, &hi, err) < 0)
		return -1;
	*min = (uint32_t)lo;
	*max = (uint32_t)hi;
	return 1;
}

long psiplace_rchan_policy_format(enum psiplace_policy policy, const char *function, char *buf,
				  size_t len)
{
	bool fn = function && function[0];

	if (!buf || policy == PSIPLACE_POLICY_NONE || !psiplace_policy_valid(policy) ||
	    (fn && (policy != PSIPLACE_POLICY_PRIORITY ||
		    strnlen(function, PSIPLACE_PRIORITYF_MAXLEN + 1) > PSIPLACE_PRIORITYF_MAXLEN)))
		return -1;
	return written(snprintf(buf, len, PSIPLACE_RCHAN_POLICY_PREFIX "%s%s%s",
				psiplace_policy_name(policy), fn ? ";" : "", fn ? function : ""),
		       len);
}

const char *psiplace_rchan_policy_find(const char *s)
{
	size_t plen = strlen(PSIPLACE_RCHAN_POLICY_PREFIX);

	for (const char *p = s; p && (p = strstr(p, PSIPLACE_RCHAN_POLICY_PREFIX)); p += plen)
		if (p == s || p[-1] == ' ')
			return p;
	return NULL;
}

int psiplace_rchan_policy_parse(const char *s, enum psiplace_policy *policy, char *function,
				size_t flen, psiplace_error_t *err)
{
	const char *p = psiplace_rchan_policy_find(s), *semi;
	char name[32], q[64];
	size_t n;

	*policy = PSIPLACE_POLICY_NONE;
	if (flen)
		function[0] = '\0';
	if (!p)
		return 0;
	p += strlen(PSIPLACE_RCHAN_POLICY_PREFIX);
	semi = strchr(p, ';');
	n = semi ? (size_t)(semi - p) : strlen(p);
	if (n >= sizeof(name)) {
		psiplace_quote(q, sizeof(q), p, 40);
		return psiplace_seterr(err, "psiplace-policy: '%s' is not a policy; accepted: %s", q,
				       psiplace_policy_accepted());
	}
	memcpy(name, p, n);
	name[n] = '\0';
	if (psiplace_policy_parse(name, "psiplace-policy", policy, err) < 0) {
		*policy = PSIPLACE_POLICY_NONE;
		return -1;
	}
	if (!semi)
		return 1;
	n = strlen(semi + 1);
	if (*policy != PSIPLACE_POLICY_PRIORITY || !n || n > PSIPLACE_PRIORITYF_MAXLEN || n >= flen) {
		*policy = PSIPLACE_POLICY_NONE;
		psiplace_quote(q, sizeof(q), p, 40);
		return psiplace_seterr(err, "psiplace-policy: '%s': only PRIORITY takes ;FUNCTION, "
					    "of 1 to %d bytes",
				       q, PSIPLACE_PRIORITYF_MAXLEN);
	}
	memcpy(function, semi + 1, n + 1);
	return 1;
}
