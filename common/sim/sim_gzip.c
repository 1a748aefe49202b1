/* A gzipped trace (the Parallel Workloads Archive's .swf.gz) read as the
 * text it holds: the readers never see the compression. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "psiplace/sim.h"

bool psiplace_sim_is_gzip(const char *text, size_t len)
{
	return len >= 2 && (unsigned char)text[0] == 0x1f && (unsigned char)text[1] == 0x8b;
}

int psiplace_sim_gunzip(const char *in, size_t len, const char *file, char **out,
			size_t *outlen, psiplace_error_t *err)
{
	z_stream z = { 0 };
	size_t cap = len * 4 + 4096, n = 0;
	char *buf = malloc(cap);

	if (!buf)
		return psiplace_seterr(err, "%s: out of memory for the gunzipped trace", file);
	/* 16 + MAX_WBITS: a gzip header; concatenated members read on (gzip -c a b). */
	if (inflateInit2(&z, 16 + MAX_WBITS) != Z_OK) {
		free(buf);
		return psiplace_seterr(err, "%s: zlib: cannot start inflating", file);
	}
	z.next_in = (unsigned char *)(uintptr_t)in;
	for (;;) {
		size_t left = len - (size_t)((const char *)z.next_in - in);
		int zr;

		if (n == cap) {
			char *p = cap >= PSIPLACE_SIM_MAXBYTES ? NULL : realloc(buf, cap * 2);

			if (!p) {
				inflateEnd(&z);
				free(buf);
				return psiplace_seterr(err, "%s: gunzipped trace over %llu bytes or out of memory",
						       file, (unsigned long long)PSIPLACE_SIM_MAXBYTES);
			}
			buf = p;
			cap *= 2;
		}
		z.avail_in = left > UINT32_MAX ? UINT32_MAX : (unsigned)left;
		z.next_out = (unsigned char *)buf + n;
		z.avail_out = cap - n > UINT32_MAX ? UINT32_MAX : (unsigned)(cap - n);
		zr = inflate(&z, Z_NO_FLUSH);
		n = (size_t)((char *)z.next_out - buf);
		if (zr == Z_STREAM_END) {
			if (z.avail_in == 0 && (size_t)((const char *)z.next_in - in) == len)
				break;
			if (inflateReset(&z) != Z_OK)
				zr = Z_DATA_ERROR;
			else
				continue;
		}
		if ((zr != Z_OK && zr != Z_BUF_ERROR) || (zr == Z_BUF_ERROR && n < cap)) {
			inflateEnd(&z);
			free(buf);
			return psiplace_seterr(err, "%s: not a complete gzip file (zlib: %s)", file,
					       z.msg ? z.msg : "truncated");
		}
	}
	inflateEnd(&z);
	*out = buf;
	*outlen = n;
	return 0;
}
