/* psiplace map --format svg: each node as nested boxes (socket, NUMA node
 * inside a socket, L3, shared L2, core, hardware thread), every thread
 * showing the ranks bound to it on the colour of the first of them. */
#include <stdlib.h>
#include <string.h>

#include "map_result.h"
#include "utf8.h"

#define PU_W 62
#define PU_H 24
#define PAD 5
#define LABEL_H 14
#define CORES_PER_ROW 8
#define MAX_DRAWN_NODES 16
#define SHOWN_RANKS 3

/* Light, distinct fills (ColorBrewer Set3 and Pastel1 style); rank r gets
 * palette[r % N]. */
static const char *const palette[] = {
	"#8dd3c7", "#ffffb3", "#bebada", "#fb8072", "#80b1d3", "#fdb462",
	"#b3de69", "#fccde5", "#bc80bd", "#ccebc5", "#ffed6f", "#d9d9d9",
};

#define NPALETTE (sizeof(palette) / sizeof(palette[0]))

/* Ranks bound to one thread (the first SHOWN_RANKS of them). */
struct cell {
	size_t rank[SHOWN_RANKS];
	size_t n;
	int mapped[SHOWN_RANKS]; /* that rank was mapped to this very thread */
	long unbound_here;       /* an unbound rank mapped here, -1 none */
};

/* Nested box levels drawn between socket and core on this topology. */
struct drawing {
	const struct psiplace_topo *t;
	int lev[4];
	int nlev;
	struct cell *cell; /* per PU */
	FILE *f;
};

/* End of the run of PUs from lo on that share their object at level l. */
static unsigned run_end(const struct psiplace_topo *t, unsigned lo, unsigned hi, int l)
{
	unsigned e = lo + 1;

	while (e < hi && t->pus[e].obj[l] == t->pus[lo].obj[l])
		e++;
	return e;
}

static void core_size(const struct psiplace_topo *t, unsigned lo, unsigned hi, int *w, int *h)
{
	*w = PU_W + 2 * PAD;
	*h = LABEL_H + (int)(hi - lo) * (PU_H + 2) + PAD;
	(void)t;
}

/* Size of the box for PUs lo..hi at drawing depth d (d == nlev: a grid
 * of cores). */
static void measure(const struct drawing *g, unsigned lo, unsigned hi, int d, int *w, int *h)
{
	const struct psiplace_topo *t = g->t;
	unsigned p;
	int cw, ch, rw = 0, rh = 0, k = 0;

	*w = 0;
	*h = 0;
	if (d == g->nlev) {
		for (p = lo; p < hi; p = run_end(t, p, hi, PSIPLACE_LEVEL_CORE), k++) {
			core_size(t, p, run_end(t, p, hi, PSIPLACE_LEVEL_CORE), &cw, &ch);
			if (k && k % CORES_PER_ROW == 0) {
				*w = rw > *w ? rw : *w;
				*h += rh + PAD;
				rw = rh = 0;
			}
			rw += cw + PAD;
			rh = ch > rh ? ch : rh;
		}
		*w = (rw > *w ? rw : *w) - PAD;
		*h += rh;
		return;
	}
	for (p = lo; p < hi; p = run_end(t, p, hi, g->lev[d])) {
		measure(g, p, run_end(t, p, hi, g->lev[d]), d + 1, &cw, &ch);
		*w += cw + 2 * PAD + (p > lo ? PAD : 0);
		*h = ch + LABEL_H + PAD > *h ? ch + LABEL_H + PAD : *h;
	}
}

static void draw_pu(const struct drawing *g, unsigned pu, int x, int y)
{
	const struct cell *c = &g->cell[pu];
	const char *fill = c->n ? palette[c->rank[0] % NPALETTE] : "#ffffff";
	size_t i;

	fprintf(g->f, "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" rx=\"3\" fill=\"%s\" stroke=\"#555\"/>\n",
		x, y, PU_W, PU_H, fill);
	fprintf(g->f, "<text x=\"%d\" y=\"%d\" class=\"cpu\">cpu %u</text>\n", x + 3, y + 9,
		g->t->pus[pu].os_index);
	if (c->unbound_here >= 0 && !c->n)
		fprintf(g->f, "<text x=\"%d\" y=\"%d\" class=\"unb\">(%ld)</text>\n", x + PU_W / 2,
			y + PU_H - 4, c->unbound_here);
	if (!c->n)
		return;
	fprintf(g->f, "<text x=\"%d\" y=\"%d\" class=\"rank\">", x + PU_W / 2, y + PU_H - 4);
	for (i = 0; i < c->n && i < SHOWN_RANKS; i++)
		fprintf(g->f, "%s<tspan%s>%zu</tspan>", i ? "," : "",
			c->mapped[i] ? " class=\"here\"" : "", c->rank[i]);
	if (c->n > SHOWN_RANKS)
		fprintf(g->f, " +%zu", c->n - SHOWN_RANKS);
	fputs("</text>\n", g->f);
}

static void draw_cores(const struct drawing *g, unsigned lo, unsigned hi, int x, int y)
{
	const struct psiplace_topo *t = g->t;
	int cx = x, cy = y, rh = 0, k = 0, cw, ch;
	unsigned p, e, q;

	for (p = lo; p < hi; p = e, k++) {
		e = run_end(t, p, hi, PSIPLACE_LEVEL_CORE);
		core_size(t, p, e, &cw, &ch);
		if (k && k % CORES_PER_ROW == 0) {
			cx = x;
			cy += rh + PAD;
			rh = 0;
		}
		fprintf(g->f, "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" rx=\"4\" class=\"core\"/>\n",
			cx, cy, cw, ch);
		fprintf(g->f, "<text x=\"%d\" y=\"%d\" class=\"lbl\">core %d</text>\n", cx + PAD, cy + 11,
			t->pus[p].obj[PSIPLACE_LEVEL_CORE]);
		for (q = p; q < e; q++)
			draw_pu(g, q, cx + PAD, cy + LABEL_H + (int)(q - p) * (PU_H + 2));
		cx += cw + PAD;
		rh = ch > rh ? ch : rh;
	}
}

static const char *level_name(int l)
{
	switch (l) {
	case PSIPLACE_LEVEL_SOCKET: return "socket";
	case PSIPLACE_LEVEL_NUMA: return "NUMA";
	case PSIPLACE_LEVEL_L3: return "L3";
	default: return "L2";
	}
}

static void draw_level(const struct drawing *g, unsigned lo, unsigned hi, int d, int x, int y)
{
	const struct psiplace_topo *t = g->t;
	unsigned p, e;
	int cw, ch, bh;

	if (d == g->nlev) {
		draw_cores(g, lo, hi, x, y);
		return;
	}
	measure(g, lo, hi, d, &cw, &bh);
	for (p = lo; p < hi; p = e) {
		e = run_end(t, p, hi, g->lev[d]);
		measure(g, p, e, d + 1, &cw, &ch);
		fprintf(g->f, "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" rx=\"5\" class=\"%s\"/>\n",
			x, y, cw + 2 * PAD, bh, g->lev[d] == PSIPLACE_LEVEL_SOCKET ? "sock" : "grp");
		if (t->pus[p].obj[g->lev[d]] < 0) /* no package in the topology */
			fprintf(g->f, "<text x=\"%d\" y=\"%d\" class=\"lbl\">machine", x + PAD, y + 11);
		else
			fprintf(g->f, "<text x=\"%d\" y=\"%d\" class=\"lbl\">%s %d", x + PAD, y + 11,
				level_name(g->lev[d]),
				g->lev[d] == PSIPLACE_LEVEL_NUMA ? t->pus[p].numa_os
								 : t->pus[p].obj[g->lev[d]]);
		if (g->lev[d] == PSIPLACE_LEVEL_SOCKET && t->pus[p].numa_os >= 0 &&
		    t->pus[e - 1].numa_os == t->pus[p].numa_os)
			fprintf(g->f, " (NUMA %d)", t->pus[p].numa_os);
		fputs("</text>\n", g->f);
		draw_level(g, p, e, d + 1, x + PAD, y + LABEL_H);
		x += cw + 3 * PAD;
	}
}

/* Levels worth a box here: sockets; NUMA nodes and L3 when there are more
 * of them than sockets; L2 when one holds several cores. */
static void choose_levels(struct drawing *g)
{
	const struct psiplace_topo *t = g->t;
	unsigned ns = t->count[PSIPLACE_LEVEL_SOCKET] ? t->count[PSIPLACE_LEVEL_SOCKET] : 1;

	g->nlev = 0;
	g->lev[g->nlev++] = PSIPLACE_LEVEL_SOCKET;
	if (t->count[PSIPLACE_LEVEL_NUMA] > ns)
		g->lev[g->nlev++] = PSIPLACE_LEVEL_NUMA;
	/* an L3 per NUMA node would only repeat the NUMA box */
	if (t->count[PSIPLACE_LEVEL_L3] > ns &&
	    (g->nlev == 1 || t->count[PSIPLACE_LEVEL_L3] != t->count[PSIPLACE_LEVEL_NUMA]))
		g->lev[g->nlev++] = PSIPLACE_LEVEL_L3;
	if (t->count[PSIPLACE_LEVEL_L2] && t->count[PSIPLACE_LEVEL_L2] < t->count[PSIPLACE_LEVEL_CORE])
		g->lev[g->nlev++] = PSIPLACE_LEVEL_L2;
}

static void fill_cells(struct drawing *g, const struct map_result *r, unsigned node)
{
	const struct psiplace_topo *t = g->t;
	unsigned p;
	size_t i;

	for (p = 0; p < t->npus; p++)
		g->cell[p].unbound_here = -1;
	for (i = 0; i < r->ntasks; i++) {
		const struct map_task *k = &r->task[i];

		if (k->node != node)
			continue;
		for (p = 0; p < t->npus; p++) {
			struct cell *c = &g->cell[p];
			int here = (int)t->pus[p].os_index == k->pos_os;

			if (here && c->unbound_here < 0 && hwloc_bitmap_iszero(k->cpus))
				c->unbound_here = (long)i;
			if (!hwloc_bitmap_isset(k->cpus, t->pus[p].os_index))
				continue;
			if (c->n < SHOWN_RANKS) {
				c->rank[c->n] = i;
				c->mapped[c->n] = here;
			}
			c->n++;
		}
	}
}

static int node_height(struct drawing *g, int *w)
{
	int h;

	choose_levels(g);
	measure(g, 0, g->t->npus, 0, w, &h);
	return h + LABEL_H + 2 * PAD;
}

/* s as XML character data: <, &, >, " escaped; a byte that is not UTF-8
 * and a control character XML 1.0 forbids become U+FFFD, so whatever the
 * names, the document parses. */
static void put_text(FILE *f, const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t n;

	for (; p && *p; p += n) {
		n = cli_utf8_len(p);
		if (!n || (*p < 0x20 && *p != '\t' && *p != '\n' && *p != '\r')) {
			fputs("\xef\xbf\xbd", f);
			n = 1;
		} else if (*p == '<' || *p == '&' || *p == '>' || *p == '"') {
			fputs(*p == '<' ? "&lt;" : *p == '&' ? "&amp;" : *p == '>' ? "&gt;" : "&quot;", f);
		} else {
			fwrite(p, 1, n, f);
		}
	}
}

static void header(FILE *f, const struct map_result *r, int width, int height)
{
	unsigned p;

	fprintf(f, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\" font-family=\"DejaVu Sans, Arial, sans-serif\">\n",
		width, height, width, height);
	fputs("<style>.lbl{font-size:10px;fill:#333}.cpu{font-size:8px;fill:#666}"
	      ".rank{font-size:12px;text-anchor:middle;fill:#000}.here{font-weight:bold}"
	      ".unb{font-size:11px;text-anchor:middle;fill:#888;font-style:italic}"
	      ".title{font-size:13px;font-weight:bold}.note{font-size:10px;fill:#444}"
	      ".node{fill:#f4f4f4;stroke:#222;stroke-width:1.5}.sock{fill:#e6eef7;stroke:#4a6f99}"
	      ".grp{fill:#eef6ea;stroke:#6a9a5a;stroke-dasharray:4 2}.core{fill:#fafafa;stroke:#999}"
	      "</style>\n", f);
	fprintf(f, "<rect width=\"%d\" height=\"%d\" fill=\"#ffffff\"/>\n", width, height);
	fprintf(f, "<text x=\"%d\" y=\"18\" class=\"title\">%s: %zu tasks on %u node%s", PAD * 2,
		r->backend, r->ntasks, r->nnodes, r->nnodes == 1 ? "" : "s");
	for (p = 0; p < r->nparams; p++) {
		fprintf(f, "%s%s=", p ? ", " : " \xe2\x80\x94 ", r->param_name[p]);
		put_text(f, r->param_value[p]);
	}
	fputs("</text>\n", f);
	fprintf(f, "<text x=\"%d\" y=\"32\" class=\"note\">Numbers: ranks bound to the thread (cpu N); bold: the thread the rank was mapped to; (N): unbound rank N mapped there.</text>\n",
		PAD * 2);
}

void map_print_svg(FILE *f, const struct map_result *r)
{
	unsigned n, shown = r->nnodes < MAX_DRAWN_NODES ? r->nnodes : MAX_DRAWN_NODES;
	int width = 780, height = 44, w, y;
	struct drawing g;

	memset(&g, 0, sizeof(g));
	/* room for the title line: about 7.5 px per bold 13 px character */
	w = 60;
	for (n = 0; n < r->nparams; n++)
		w += (int)(strlen(r->param_name[n]) + strlen(r->param_value[n]) + 3);
	width = w * 15 / 2 > width ? w * 15 / 2 : width;
	for (n = 0; n < shown; n++) {
		g.t = r->topo[n];
		height += node_height(&g, &w) + 2 * PAD;
		width = w + 6 * PAD > width ? w + 6 * PAD : width;
	}
	if (shown < r->nnodes)
		height += 20;
	header(f, r, width, height);
	y = 44;
	for (n = 0; n < shown; n++) {
		int h;

		g.t = r->topo[n];
		g.f = f;
		g.cell = calloc(g.t->npus, sizeof(*g.cell));
		if (!g.cell)
			break;
		fill_cells(&g, r, n);
		h = node_height(&g, &w);
		fprintf(f, "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" rx=\"6\" class=\"node\"/>\n",
			PAD, y, width - 2 * PAD, h);
		fprintf(f, "<text x=\"%d\" y=\"%d\" class=\"lbl\" font-weight=\"bold\">node %u  (", 2 * PAD,
			y + 12, n);
		put_text(f, r->topo_desc[n]);
		fputs(")</text>\n", f);
		draw_level(&g, 0, g.t->npus, 0, 2 * PAD, y + LABEL_H + PAD);
		free(g.cell);
		y += h + 2 * PAD;
	}
	if (shown < r->nnodes)
		fprintf(f, "<text x=\"%d\" y=\"%d\" class=\"note\">... %u more nodes not drawn</text>\n",
			2 * PAD, y + 10, r->nnodes - shown);
	fputs("</svg>\n", f);
}
