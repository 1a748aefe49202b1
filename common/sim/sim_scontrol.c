/* `scontrol show node -o` as a node table: each line's NodeName, CPUTot,
 * RealMemory, TmpDisk, Weight, ActiveFeatures and Arch become a row of the
 * CSV that psiplace_nodetable_parse() reads, so both inputs give the same
 * nodes.  Values may hold blanks (OS=Linux 5.10 #1 SMP ...): a word
 * without KEY= continues the value before it. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "psiplace/sim.h"
#include "psiplace/textparse.h"

enum key { K_NAME, K_CPUS, K_MEM, K_TMP, K_WEIGHT, K_FEAT, K_ARCH, K_COUNT };
static const char *const keys[K_COUNT] = {
	"NodeName", "CPUTot", "RealMemory", "TmpDisk", "Weight", "ActiveFeatures", "Arch",
};

static bool key_start(const char *s, size_t n)
{
	size_t i = 0;

	if (!n || !((s[0] >= 'A' && s[0] <= 'Z') || (s[0] >= 'a' && s[0] <= 'z')))
		return false;
	while (i < n && s[i] != '=') {
		char c = s[i++];

		if (!((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
		      c == '_'))
			return false;
	}
	return i < n;
}

/* The values of the keys on one line (pointers into it, lengths). */
static void scan(const char *line, size_t n, const char **v, size_t *vl)
{
	int cur = -1;
	size_t i = 0;

	for (int k = 0; k < K_COUNT; k++)
		v[k] = NULL, vl[k] = 0;
	while (i < n) {
		size_t j, eq;

		while (i < n && (line[i] == ' ' || line[i] == '\t' || line[i] == '\r'))
			i++;
		for (j = i; j < n && line[j] != ' ' && line[j] != '\t' && line[j] != '\r'; j++)
			;
		if (j == i)
			break;
		if (key_start(line + i, j - i)) {
			eq = (size_t)((const char *)memchr(line + i, '=', j - i) - line);
			cur = -1;
			for (int k = 0; k < K_COUNT; k++)
				if (eq - i == strlen(keys[k]) && !strncmp(line + i, keys[k], eq - i) &&
				    !v[k]) {
					cur = k;
					v[k] = line + eq + 1;
					vl[k] = j - eq - 1;
				}
		} else if (cur >= 0) {
			vl[cur] = (size_t)(line + j - v[cur]);
		}
		i = j;
	}
}

static int number(const char *file, int line, const char *what, const char *s, size_t n,
		  uint64_t *out, psiplace_error_t *err)
{
	char q[80], v[68];

	if (!s || !n) {
		*out = 0;
		return 0;
	}
	if (psiplace_parse_u64(s, n, UINT32_MAX, out))
		return 0;
	memcpy(v, s, n < 65 ? n : 65); /* one byte more than shown: quote marks the cut */
	v[n < 65 ? n : 65] = '\0';
	psiplace_quote(q, sizeof(q), v, 64);
	return psiplace_seterr_linef(err, file, line, "%s='%s' is not an unsigned integer", what, q);
}

/* One CSV row; 0 or -1 (err). */
static int row(FILE *out, const char *file, int lineno, const char *const *v, const size_t *vl,
	       psiplace_error_t *err)
{
	uint64_t cpus, mem, tmp, weight;
	size_t i;

	if (!v[K_NAME] || !vl[K_NAME] || memchr(v[K_NAME], ',', vl[K_NAME]))
		return psiplace_seterr_linef(err, file, lineno, "no NodeName= (scontrol show node -o "
					     "prints one node a line)");
	if (!v[K_CPUS])
		return psiplace_seterr_linef(err, file, lineno, "no CPUTot=");
	if (number(file, lineno, "CPUTot", v[K_CPUS], vl[K_CPUS], &cpus, err) < 0 ||
	    number(file, lineno, "RealMemory", v[K_MEM], vl[K_MEM], &mem, err) < 0 ||
	    number(file, lineno, "TmpDisk", v[K_TMP], vl[K_TMP], &tmp, err) < 0 ||
	    number(file, lineno, "Weight", v[K_WEIGHT], vl[K_WEIGHT], &weight, err) < 0)
		return -1;
	fprintf(out, "%.*s,%llu,%llu,%llu,%llu,", (int)vl[K_NAME], v[K_NAME],
		(unsigned long long)cpus, (unsigned long long)mem, (unsigned long long)tmp,
		(unsigned long long)weight);
	if (v[K_FEAT] && !(vl[K_FEAT] == 6 && !strncmp(v[K_FEAT], "(null)", 6)))
		for (i = 0; i < vl[K_FEAT]; i++)
			fputc(v[K_FEAT][i] == ',' ? ';' : v[K_FEAT][i], out);
	fputc(',', out);
	if (v[K_ARCH] && !memchr(v[K_ARCH], ',', vl[K_ARCH]) &&
	    !(vl[K_ARCH] == 6 && !strncmp(v[K_ARCH], "(null)", 6)))
		fprintf(out, "%.*s", (int)vl[K_ARCH], v[K_ARCH]);
	fputc('\n', out);
	return 0;
}

int psiplace_sim_nodetable_from_scontrol(const char *text, size_t len, const char *file,
					 struct psiplace_nodetable *t, psiplace_error_t *err)
{
	struct psiplace_lines it;
	const char *line, *v[K_COUNT];
	size_t n, vl[K_COUNT], csvlen = 0;
	char *csv = NULL;
	FILE *out = open_memstream(&csv, &csvlen);
	int rc = 0, rows = 0;

	if (!out)
		return psiplace_seterr(err, "%s: out of memory", file);
	fputs("name,cpus,real_memory,tmp_disk,weight,features,arch\n", out);
	psiplace_lines_init(&it, text, len);
	while (rc == 0 && psiplace_lines_next(&it, &line, &n, NULL)) {
		scan(line, n, v, vl);
		if (!v[K_NAME] && !v[K_CPUS]) {
			size_t i = 0;

			while (i < n && (line[i] == ' ' || line[i] == '\t' || line[i] == '\r'))
				i++;
			if (i == n)
				continue;
		}
		rc = row(out, file, it.lineno, v, vl, err);
		rows++;
	}
	if (fclose(out) != 0 && rc == 0)
		rc = psiplace_seterr(err, "%s: out of memory", file);
	if (rc == 0 && rows == 0)
		rc = psiplace_seterr(err, "%s: no nodes (expected scontrol show node -o output)", file);
	if (rc == 0)
		rc = psiplace_nodetable_parse(csv, csvlen, file, t, err);
	free(csv);
	return rc;
}
