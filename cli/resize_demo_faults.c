#include <mpi.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "resize_demo_faults.h"

const char *const fault_names[DEMO_NFAULTS] = { "none", "ts-after-zombie", "zombie-dies",
						"zombie-leaves", "spawned-exit", "sync-error" };
enum fault fault;

/* --fault NAME among the arguments (parse() checks the name). */
enum fault demo_fault_of(int argc, char **argv)
{
	int i, f;

	for (i = 1; i + 1 < argc; i++)
		if (!strcmp(argv[i], "--fault"))
			for (f = 1; f < (int)DEMO_NFAULTS; f++)
				if (!strcmp(argv[i + 1], fault_names[f]))
					return (enum fault)f;
	return FAULT_NONE;
}

/* The faults inside the library's expansion, through MPI's profiling
 * interface: these definitions take the place of MPI's for the library
 * too, and call MPI's own (PMPI_).  The tag is the library's
 * synchronisation upward (common/malleable/mall_internal.h,
 * MALL_TAG_UP); the first MPI_Comm_split of a spawned process is the
 * synchronisation's first call. */
#define SYNC_TAG_UP 7301
static int sync_recv_posted;

int MPI_Irecv(void *buf, int count, MPI_Datatype type, int source, int tag, MPI_Comm comm,
	      MPI_Request *req)
{
	MPI_Comm parent;

	if (fault == FAULT_SYNC_ERROR && tag == SYNC_TAG_UP &&
	    PMPI_Comm_get_parent(&parent) == MPI_SUCCESS && parent == MPI_COMM_NULL)
		sync_recv_posted = 1; /* a source: the one mpirun started */
	return PMPI_Irecv(buf, count, type, source, tag, comm, req);
}

int MPI_Waitall(int count, MPI_Request reqs[], MPI_Status statuses[])
{
	int rc = PMPI_Waitall(count, reqs, statuses);

	if (sync_recv_posted && count > 0) {
		sync_recv_posted = 0;
		fault = FAULT_NONE; /* once */
		fprintf(stderr, "psiplace-resize-demo: fault sync-error: MPI_Waitall of the "
			"synchronisation returns MPI_ERR_OTHER\n");
		return MPI_ERR_OTHER;
	}
	return rc;
}

int MPI_Comm_split(MPI_Comm comm, int color, int key, MPI_Comm *out)
{
	MPI_Comm parent;

	if (fault == FAULT_SPAWNED_EXIT && PMPI_Comm_get_parent(&parent) == MPI_SUCCESS &&
	    parent != MPI_COMM_NULL) {
		fprintf(stderr, "psiplace-resize-demo: fault spawned-exit: a spawned process exits "
			"before the synchronisation\n");
		_exit(3);
	}
	return PMPI_Comm_split(comm, color, key, out);
}

