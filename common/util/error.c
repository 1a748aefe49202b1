/* One-line error messages and safe quoting of untrusted input. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "psiplace/error.h"

int psiplace_seterr(psiplace_error_t *err, const char *fmt, ...)
{
	va_list ap;

	if (err) {
		va_start(ap, fmt);
		vsnprintf(err->text, sizeof(err->text), fmt, ap);
		va_end(ap);
	}
	return -1;
}

void psiplace_error_append(psiplace_error_t *err, const char *fmt, ...)
{
	va_list ap;
	size_t l;

	if (!err)
		return;
	l = strnlen(err->text, sizeof(err->text));
	if (l + 1 >= sizeof(err->text))
		return;
	va_start(ap, fmt);
	vsnprintf(err->text + l, sizeof(err->text) - l, fmt, ap);
	va_end(ap);
}

void psiplace_quote(char *dst, size_t dstlen, const char *src, size_t max)
{
	static const char hex[] = "0123456789abcdef";
	size_t o = 0, i;

	if (!dst || !dstlen)
		return;
	for (i = 0; src && src[i] && i < max; i++) {
		unsigned char c = (unsigned char)src[i];
		if (c >= 0x20 && c < 0x7f) {
			if (o + 1 >= dstlen)
				break;
			dst[o++] = (char)c;
		} else {
			if (o + 4 >= dstlen)
				break;
			dst[o++] = '\\';
			dst[o++] = 'x';
			dst[o++] = hex[c >> 4];
			dst[o++] = hex[c & 15];
		}
	}
	if (src && src[i] && i == max && o + 3 < dstlen) {
		dst[o++] = '.';
		dst[o++] = '.';
		dst[o++] = '.';
	}
	dst[o] = '\0';
}

int psiplace_seterr_at(psiplace_error_t *err, const char *what, const char *input,
		       size_t pos, const char *accepted, const char *fmt, ...)
{
	char why[160], q[80];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(why, sizeof(why), fmt, ap);
	va_end(ap);
	psiplace_quote(q, sizeof(q), input, 48);
	return psiplace_seterr(err, "%s: '%s': %s at character %zu; accepted: %s", what, q,
			       why, pos + 1, accepted);
}

int psiplace_seterr_linef(psiplace_error_t *err, const char *file, int line, const char *fmt, ...)
{
	char msg[PSIPLACE_ERRLEN];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	return psiplace_seterr(err, "%s:%d: %s", file, line, msg);
}

int psiplace_seterr_line(psiplace_error_t *err, const char *file, int line, const char *msg,
			 const char *word)
{
	char q[96];

	psiplace_quote(q, sizeof(q), word ? word : "", 64);
	return psiplace_seterr_linef(err, file, line, "%s%s%s%s", msg, word ? " '" : "", q,
				     word ? "'" : "");
}
