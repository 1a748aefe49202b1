/* Whole-file reads for the configuration and data parsers. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "psiplace/error.h"
#include "psiplace/readfile.h"

static int fail(int fd, char *t, int *sys_errno, int e, psiplace_error_t *err, const char *path,
		const char *why)
{
	if (fd >= 0)
		close(fd);
	free(t);
	if (sys_errno)
		*sys_errno = e;
	return psiplace_seterr(err, "%s: %s", path, why);
}

int psiplace_read_file(const char *path, size_t max, unsigned flags, char **text, size_t *len,
		       int *sys_errno, psiplace_error_t *err)
{
	size_t cap = 1 << 16, n = 0, limit = max + 1;
	char *t = NULL, *nt;
	struct stat st;
	ssize_t r;
	int fd, oflags = O_RDONLY | O_CLOEXEC | O_NOCTTY;

	*text = NULL;
	*len = 0;
	if (sys_errno)
		*sys_errno = 0;
	/* O_NONBLOCK: opening a FIFO with no writer must not wait. */
	if (flags & PSIPLACE_READ_REGULAR)
		oflags |= O_NONBLOCK;
	if ((fd = open(path, oflags)) < 0)
		return fail(-1, NULL, sys_errno, errno, err, path, strerror(errno));
	if (fstat(fd, &st) < 0)
		return fail(fd, NULL, sys_errno, errno, err, path, strerror(errno));
	if ((flags & PSIPLACE_READ_REGULAR) && !S_ISREG(st.st_mode))
		return fail(fd, NULL, sys_errno, EINVAL, err, path, "not a regular file");
	if (S_ISREG(st.st_mode) && (uint64_t)st.st_size > (uint64_t)max) {
		char why[96];

		snprintf(why, sizeof(why), "%llu bytes, more than the %zu accepted",
			 (unsigned long long)st.st_size, max);
		return fail(fd, NULL, sys_errno, EFBIG, err, path, why);
	}
	do { /* grow as needed: most files are small */
		if (!t || n == cap) {
			cap = t ? cap * 2 : cap;
			if (cap > limit)
				cap = limit;
			if (!(nt = realloc(t, cap + 1)))
				return fail(fd, t, sys_errno, ENOMEM, err, path, "out of memory");
			t = nt;
		}
		r = read(fd, t + n, cap - n);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			return fail(fd, t, sys_errno, errno, err, path, strerror(errno));
		n += (size_t)r;
	} while (r > 0 && n < limit);
	close(fd);
	t[n] = '\0';
	*text = t;
	*len = n;
	return 0;
}

int psiplace_file_changed(const char *path, struct psiplace_filestamp *stamp, bool *changed,
			  psiplace_error_t *err)
{
	struct stat st;
	struct psiplace_filestamp now;

	*changed = false;
	if (stat(path, &st) < 0) {
		int e = errno;

		/* Invalidated, so that the file's return counts as a change. */
		*changed = stamp->valid;
		stamp->valid = false;
		return psiplace_seterr(err, "%s: %s", path, strerror(e));
	}
	now.mtime_sec = (int64_t)st.st_mtim.tv_sec;
	now.mtime_nsec = (int64_t)st.st_mtim.tv_nsec;
	now.size = (uint64_t)st.st_size;
	now.ino = (uint64_t)st.st_ino;
	now.mode = (uint32_t)st.st_mode;
	now.valid = true;
	if (stamp->valid && stamp->mtime_sec == now.mtime_sec &&
	    stamp->mtime_nsec == now.mtime_nsec && stamp->size == now.size &&
	    stamp->ino == now.ino && stamp->mode == now.mode)
		return 0;
	*stamp = now;
	*changed = true;
	return 0;
}
