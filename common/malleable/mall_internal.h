/* Private state of the malleability layer, shared by its files.  Calls
 * between them go down only: mall_init.c (the entry points) and
 * mall_shrink.c above mall_expand.c, above mall_baselines.c, above
 * mall_state.c, mall_names.c and mall_watchdog.c (doc/layout.md). */
#ifndef PSIPLACE_MALL_INTERNAL_H
#define PSIPLACE_MALL_INTERNAL_H

#include "psiplace/malleable.h"

struct psiplace_resize_grow_req; /* psiplace/resize.h */

/* The hidden argument of a spawned process: MALL_ARG + state. */
#define MALL_ARG "--psiplace-mall="
#define MALL_ERRLEN 256
/* Tags on the spawn tree's intercommunicators. */
#define MALL_TAG_UP 7301
#define MALL_TAG_DOWN 7302

struct psiplace_mall {
	MPI_Comm comm;     /* the job: ranks in plan order */
	int leaving;
	int zombie;        /* left idle by a ZOMBIE shrink */
	MPI_Comm zombies;  /* the communicator a ZOMBIE shrink split */
	int resizes;       /* K */
	int group;         /* group in the resize that spawned it, -1: launcher */
	int world;         /* tag of its MPI_COMM_WORLD: 0 launcher, K*65536+g+1 */
	int timeout;       /* seconds per operation */
	size_t nalloc;     /* the allocation, in node order */
	char **hosts;
	int *cores;
	int node;          /* my node index */
	int size;          /* of comm */
	int *rank_node;    /* per rank of comm: node index */
	int *rank_world;   /* per rank of comm: world tag */
	char *cmd;         /* what to spawn: this program */
	int uargc;         /* the user's arguments (without the hidden one) */
	char **uargv;
	/* the resource manager's channel (mall_rm.c; meaningful on rank 0) */
	double poll_last;           /* when the job record was last read */
	unsigned long long done_id; /* the last order acted on */
	char ack_err[PSIPLACE_ERRLEN];         /* an ack that could not be written: the next poll's error */
	struct psiplace_resize_grow_req *grow; /* a grow whose helper is requested, not merged */
	struct psiplace_mall_order grow_order; /* its order */
};

/* What a spawned process is told (its hidden argument). */
struct mall_spawn_state {
	int resize;        /* K of the expansion that spawns it */
	int group;         /* its group; -1 with the plain Merge method */
	enum psiplace_mall_strategy strategy;
	enum psiplace_spawn_method method;
	int timeout;
	size_t nnodes;     /* target nodes (a prefix of the allocation) */
	int *running;      /* R before the expansion, nnodes entries */
	int *oversub;      /* O, nnodes entries or NULL */
};

/* mall_state.c */
int mall_layout(psiplace_mall_t *m, psiplace_error_t *err);
int mall_plan(const psiplace_mall_t *m, const struct mall_spawn_state *st,
	      struct psiplace_spawn_plan *plan, psiplace_error_t *err);
char *mall_state_format(const psiplace_mall_t *m, const struct mall_spawn_state *st);
char **mall_child_argv(const psiplace_mall_t *m, const char *state);
void mall_free_argv(char **argv);
/* The inverse of mall_state_format: *alloc points at the allocation part. */
int mall_state_parse(const char *s, struct mall_spawn_state *st, const char **alloc,
		     psiplace_error_t *err);
int mall_mpi_err(psiplace_error_t *err, int code, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
void mall_disconnect(MPI_Comm *c);
void mall_drop_comm(MPI_Comm *c);
/* mall_drop_comm's rule without its barrier (disconnect under MPICH, free
 * under Open MPI): for the communicators an expansion derives. */
void mall_release_comm(MPI_Comm *c);
/* MPI_Comm_split(c, keep ? 0 : MPI_UNDEFINED, key) sharing nothing with c
 * (key >= 0, distinct): see mall_state.c. */
int mall_split(MPI_Comm c, int keep, int key, MPI_Comm *out);
/* The info for spawning size processes on host: "host" = host[:size]. */
MPI_Info mall_host_info(const char *host, int size);
/* Shared tail of every expansion: reorder comm by plan (key), drop
 * Baseline sources, adopt. */
int mall_adopt(psiplace_mall_t *m, MPI_Comm merged, int key, int world, psiplace_error_t *err);
/* Survivors and zombies of a ZOMBIE shrink meet once more
 * (in psiplace_mall_free); a zombie sleeps while it waits. */
void mall_zombies_meet(psiplace_mall_t *m);

/* Append n nodes (a grow's new ones) to the allocation. */
int mall_add_nodes(psiplace_mall_t *m, char **names, const int *cores, size_t n,
		   psiplace_error_t *err);
/* Reorder the allocation so that the nodes i with last[i] != 0 come last,
 * each part in its order (a shrink then keeps the prefix); -1: no memory. */
int mall_move_last(psiplace_mall_t *m, const int *last);

/* mall_watchdog.c: a thread that ends the process when the operation
 * named what is still running after seconds. */
struct mall_watchdog;
struct mall_watchdog *mall_watchdog_arm(const char *what, int seconds);
void mall_watchdog_phase(struct mall_watchdog *w, const char *phase);
void mall_watchdog_disarm(struct mall_watchdog *w);

/* mall_expand.c: one process's part in an expansion; parent is the
 * intercommunicator to the spawner (MPI_COMM_NULL for the sources). */
int mall_expand_run(psiplace_mall_t *m, const struct mall_spawn_state *st, MPI_Comm parent,
		    struct mall_watchdog *w, psiplace_error_t *err);

/* mall_baselines.c: the plain Merge method and the sequential strategy. */
int mall_expand_merge(psiplace_mall_t *m, const struct mall_spawn_state *st,
		      const struct psiplace_spawn_plan *plan, MPI_Comm parent,
		      struct mall_watchdog *w, psiplace_error_t *err);
int mall_expand_sequential(psiplace_mall_t *m, const struct mall_spawn_state *st,
			   const struct psiplace_spawn_plan *plan, MPI_Comm parent,
			   struct mall_watchdog *w, psiplace_error_t *err);

#endif
