/* Whole-file reads for the configuration and data parsers. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "psiplace/error.h"
#include "psiplace/readfile.h"

int psiplace_read_file(const char *path, size_t max, char **text, size_t *len,
		       int *sys_errno, psiplace_error_t *err)
{
	FILE *f = fopen(path, "r");
	size_t cap = 1 << 16, n = 0, r, limit = max + 1;
	char *t = NULL, *nt;

	*text = NULL;
	*len = 0;
	if (sys_errno)
		*sys_errno = f ? 0 : errno;
	if (!f)
		return psiplace_seterr(err, "%s: %s", path, strerror(errno));
	do { /* grow as needed: most files are small */
		if (!t || n == cap) {
			cap = t ? cap * 2 : cap;
			if (cap > limit)
				cap = limit;
			if (!(nt = realloc(t, cap + 1))) {
				free(t);
				fclose(f);
				if (sys_errno)
					*sys_errno = ENOMEM;
				return psiplace_seterr(err, "%s: out of memory", path);
			}
			t = nt;
		}
		r = fread(t + n, 1, cap - n, f);
		n += r;
	} while (r > 0 && n < limit);
	if (ferror(f)) {
		if (sys_errno)
			*sys_errno = EIO;
		fclose(f);
		free(t);
		return psiplace_seterr(err, "%s: read error", path);
	}
	fclose(f);
	t[n] = '\0';
	*text = t;
	*len = n;
	return 0;
}
