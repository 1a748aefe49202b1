/* select/psiplace_cons_tres: the merged job's cores after select_p_job_expand
 * (expand_cores.h says why).  Runs in select_p_job_expand, under
 * slurmctld's job and node write locks; no I/O. */
#include <string.h>

#include "expand_cores.h"

/* The k-th node of a layout (sockets, cores per socket, repetitions):
 * its first core's offset in the core bitmap and its core count, or -1. */
static int span(const uint16_t *sockets, const uint16_t *cps, const uint32_t *reps,
		uint32_t nreps, uint32_t k, uint32_t *off)
{
	uint32_t i;

	*off = 0;
	for (i = 0; i < nreps; i++) {
		uint32_t per = (uint32_t)sockets[i] * cps[i];

		if (k < reps[i]) {
			*off += per * k;
			return (int)per;
		}
		*off += per * reps[i];
		k -= reps[i];
	}
	return -1;
}

int psiplace_sel_expand_save(const job_record_t *job, struct psiplace_sel_expand_side *s)
{
	const job_resources_t *r = job->job_resrcs;
	uint32_t n, left;

	memset(s, 0, sizeof(*s));
	if (!r || !r->node_bitmap || !r->core_bitmap || !job->node_bitmap ||
	    !r->sock_core_rep_count || !r->sockets_per_node || !r->cores_per_socket)
		return -1;
	/* the layout's entries up to the one that covers nhosts nodes */
	for (n = 0, left = r->nhosts; n < r->nhosts && left; n++)
		left -= r->sock_core_rep_count[n] < left ? r->sock_core_rep_count[n] : left;
	s->nhosts = r->nhosts;
	s->nreps = n;
	s->res_nodes = bit_copy(r->node_bitmap);
	s->job_nodes = bit_copy(job->node_bitmap);
	s->cores = bit_copy(r->core_bitmap);
	s->sockets = xcalloc(n ? n : 1, sizeof(*s->sockets));
	s->cores_per_socket = xcalloc(n ? n : 1, sizeof(*s->cores_per_socket));
	s->reps = xcalloc(n ? n : 1, sizeof(*s->reps));
	if (n) {
		memcpy(s->sockets, r->sockets_per_node, n * sizeof(*s->sockets));
		memcpy(s->cores_per_socket, r->cores_per_socket, n * sizeof(*s->cores_per_socket));
		memcpy(s->reps, r->sock_core_rep_count, n * sizeof(*s->reps));
	}
	return 0;
}

void psiplace_sel_expand_free(struct psiplace_sel_expand_side *s)
{
	FREE_NULL_BITMAP(s->res_nodes);
	FREE_NULL_BITMAP(s->job_nodes);
	FREE_NULL_BITMAP(s->cores);
	xfree(s->sockets);
	xfree(s->cores_per_socket);
	xfree(s->reps);
}

/* ORs side s's cores on slurm node index i (if the side held it) into out
 * at offset off; the side's count must be cnt.  0, or -1 on a mismatch. */
static int add_side(const struct psiplace_sel_expand_side *s, int i, bitstr_t *out, uint32_t off,
		    int cnt)
{
	uint32_t soff;
	int k, c, j;

	if (!s->res_nodes || i >= bit_size(s->res_nodes) || !bit_test(s->res_nodes, i) ||
	    !bit_test(s->job_nodes, i))
		return 0;
	k = bit_set_count_range(s->res_nodes, 0, i); /* the node's position in s */
	c = span(s->sockets, s->cores_per_socket, s->reps, s->nreps, (uint32_t)k, &soff);
	if (c != cnt || (int64_t)soff + c > bit_size(s->cores))
		return -1;
	for (j = 0; j < c; j++)
		if (bit_test(s->cores, soff + j))
			bit_set(out, off + j);
	return 0;
}

bitstr_t *psiplace_sel_expand_cores(const job_resources_t *r,
				    const struct psiplace_sel_expand_side *from,
				    const struct psiplace_sel_expand_side *to)
{
	bitstr_t *out;
	uint32_t nreps, left, off;
	int i, last, k = 0;

	if (!r || !r->node_bitmap || !r->core_bitmap || !r->sock_core_rep_count)
		return NULL;
	for (nreps = 0, left = r->nhosts; nreps < r->nhosts && left; nreps++)
		left -= r->sock_core_rep_count[nreps] < left ? r->sock_core_rep_count[nreps] : left;
	out = bit_alloc(bit_size(r->core_bitmap));
	last = bit_fls(r->node_bitmap);
	for (i = bit_ffs(r->node_bitmap); i >= 0 && i <= last; i++) {
		int cnt;

		if (!bit_test(r->node_bitmap, i))
			continue;
		cnt = span(r->sockets_per_node, r->cores_per_socket, r->sock_core_rep_count, nreps,
			   (uint32_t)k++, &off);
		if (cnt < 0 || (int64_t)off + cnt > bit_size(out) ||
		    add_side(from, i, out, off, cnt) < 0 || add_side(to, i, out, off, cnt) < 0) {
			FREE_NULL_BITMAP(out);
			return NULL;
		}
	}
	return out;
}
