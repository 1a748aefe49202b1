/* Test-only faults of psiplace-resize-demo (--fault NAME,
 * tests/integration/test_mall_zombies.sh): the failures the library must
 * survive without hanging, made on purpose.  Known before MPI_Init (a
 * spawned process's part of an expansion runs in psiplace_mall_init), from
 * the arguments every spawned process gets too.  Below the demo: the
 * library's MPI calls reach the wrappers in resize_demo_faults.c, which
 * call nothing of the demo's or the library's. */
#ifndef PSIPLACE_RESIZE_DEMO_FAULTS_H
#define PSIPLACE_RESIZE_DEMO_FAULTS_H

enum fault { FAULT_NONE, FAULT_TS_AFTER_ZOMBIE, FAULT_ZOMBIE_DIES, FAULT_ZOMBIE_LEAVES,
	     FAULT_SPAWNED_EXIT, FAULT_SYNC_ERROR };
#define DEMO_NFAULTS 6
extern const char *const fault_names[DEMO_NFAULTS];
extern enum fault fault; /* the run's fault, FAULT_NONE without --fault */

/* --fault NAME among the arguments (the demo's parser checks the name). */
enum fault demo_fault_of(int argc, char **argv);

#endif
