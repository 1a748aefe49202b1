/* A minimal malleable MPI program on libpsiplace_mpi: it starts as one
 * process, grows over the first N nodes of its Slurm allocation by the
 * parallel (hypercube) spawn plan, and every process says where it runs.
 *
 *   mpicc -o malleable_hello malleable_hello.c $(pkg-config --cflags --libs psiplace-mpi)
 *   salloc -N2 -n2 mpirun --oversubscribe -np 1 ./malleable_hello 2
 *
 * prints (in any order)
 *   rank 0 of 2 on n1
 *   rank 1 of 2 on n2 */
#include <stdio.h>
#include <stdlib.h>

#include <mpi.h>
#include <psiplace/malleable.h>

int main(int argc, char **argv)
{
	psiplace_mall_t *m;
	psiplace_error_t err;
	size_t n, have = 0;
	int rank, size, rc = 0;

	MPI_Init(&argc, &argv);
	/* a process the expansion spawned returns from here already expanded */
	if (psiplace_mall_init(&argc, &argv, &m, &err) < 0) {
		fprintf(stderr, "malleable_hello: %s\n", err.text);
		MPI_Finalize();
		return 1;
	}
	while (psiplace_mall_host(m, have))
		have++;
	n = argc > 1 ? strtoul(argv[1], NULL, 10) : have;
	/* collective: every process calls it with the same arguments, and every
	 * process gets the same one-line error */
	if (psiplace_mall_resizes(m) == 0 && n > psiplace_mall_nnodes(m) &&
	    psiplace_mall_expand(m, n, PSIPLACE_MALL_HYPERCUBE, PSIPLACE_SPAWN_MERGE, NULL, &err) < 0) {
		fprintf(stderr, "malleable_hello: %s\n", err.text);
		rc = 1;
	}
	MPI_Comm_rank(psiplace_mall_comm(m), &rank);
	MPI_Comm_size(psiplace_mall_comm(m), &size);
	if (!rc)
		printf("rank %d of %d on %s\n", rank, size, psiplace_mall_node(m));
	psiplace_mall_free(m);
	MPI_Finalize();
	return rc;
}
