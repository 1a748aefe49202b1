/* select/psiplace_cons_tres: every difference between the Slurm releases
 * it is built against (22.05 through 26.05), in one place, keyed on
 * SLURM_VERSION_NUMBER.  doc/select.md explains each one; the facts come
 * from Slurm's sources of each release tag.
 *
 *   header of the select interface   src/common/select.h (22.05),
 *                                     src/interfaces/select.h (23.02+)
 *   list type                         List (up to 24.05), list_t * (24.11+)
 *   job_test's last arguments         exc_core_bitmap (up to 23.02),
 *                                     resv_exc_t * (23.11+), + will_run_data_t *
 *                                     (24.11+)
 *   symbols Slurm resolves            37 (22.05), 33 (23.02), 32 (23.11-24.11),
 *                                     13 (25.05, 25.11), 14 (26.05: job_mem_reduce)
 *   plugin_id                         unique (180) up to 24.11, where Slurm
 *                                     loads every select plugin; 109 (cons_tres's)
 *                                     from 25.05, where running_cons_tres()
 *                                     compares it and only ours is loaded
 *   allocated CPUs and memory         select_g_select_nodeinfo_get (up to 24.11),
 *                                     node_ptr->alloc_* (25.05, 25.11),
 *                                     node_select_stats_array[i] (26.05)
 *   least-loaded-node selection       CR_LLN (up to 25.05), SELECT_LLN (25.11+)
 *   soft features (--prefer)          job_details.prefer (23.02+)
 *   a node's topology address         slurm_topo_get_node_addr (common/slurm_topology.h
 *                                     22.05, interfaces/topology.h 23.02),
 *                                     topology_g_get_node_addr (23.11+): topo_leaves.c
 */
#ifndef PSIPLACE_SLURM_COMPAT_H
#define PSIPLACE_SLURM_COMPAT_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "slurm/slurm_version.h"

#define PSIPLACE_SLURM_AT_LEAST(a, b) (SLURM_VERSION_NUMBER >= SLURM_VERSION_NUM(a, b, 0))

/* Included here rather than through slurm_xlator.h, which stopped pulling
 * them in with 23.02 (an implicit xstrdup() truncated its pointer and
 * crashed slurmctld at start). */
#include "src/common/bitstring.h"
#include "src/common/list.h"
#include "src/common/log.h"
#include "src/common/node_conf.h"
#include "src/common/read_config.h"
#include "src/common/xmalloc.h"
#include "src/common/xstring.h"
#if PSIPLACE_SLURM_AT_LEAST(23, 2)
#include "src/interfaces/preempt.h"
#include "src/interfaces/select.h"
#else
#include "src/common/select.h"
#include "src/slurmctld/preempt.h"
#endif
#include "src/slurmctld/slurmctld.h"
#include "src/slurmctld/reservation.h"

/* list_t and list_itr_t exist from 23.02; 24.05 removed ListIterator. */
#if PSIPLACE_SLURM_AT_LEAST(23, 2)
typedef list_t *psiplace_list_t;
typedef list_itr_t *psiplace_list_itr_t;
#else
typedef List psiplace_list_t;
typedef ListIterator psiplace_list_itr_t;
#endif

/* From 23.11 job_test takes reservation exclusions as a resv_exc_t, from
 * 24.11 will-run data as well. */
#if PSIPLACE_SLURM_AT_LEAST(24, 11)
#define PSIPLACE_JOB_TEST_TAIL resv_exc_t *resv_exc, will_run_data_t *will_run
#define PSIPLACE_JOB_TEST_TAIL_ARGS resv_exc, will_run
#define PSIPLACE_JOB_TEST_TAIL_FIELDS resv_exc_t *resv_exc; will_run_data_t *will_run;
#elif PSIPLACE_SLURM_AT_LEAST(23, 11)
#define PSIPLACE_JOB_TEST_TAIL resv_exc_t *resv_exc
#define PSIPLACE_JOB_TEST_TAIL_ARGS resv_exc
#define PSIPLACE_JOB_TEST_TAIL_FIELDS resv_exc_t *resv_exc;
#else
#define PSIPLACE_JOB_TEST_TAIL bitstr_t *exc_core_bitmap
#define PSIPLACE_JOB_TEST_TAIL_ARGS exc_core_bitmap
#define PSIPLACE_JOB_TEST_TAIL_FIELDS bitstr_t *exc_core_bitmap;
#endif
#define PSIPLACE_JOB_TEST_PARAMS                                                                   \
	job_record_t *job_ptr, bitstr_t *node_bitmap, uint32_t min_nodes, uint32_t max_nodes,      \
		uint32_t req_nodes, uint16_t mode, psiplace_list_t preemptee_candidates,          \
		psiplace_list_t *preemptee_job_list, PSIPLACE_JOB_TEST_TAIL

/* node_scheduler.c's _set_sched_weight() boot bits, release by release:
 * psiplace_select_boot_bits() in the library (psiplace rank --as-select
 * shows the same). */

/* 25.05 compares plugin_id with cons_tres's to decide that the select
 * plugin is cons_tres (running_cons_tres()); earlier releases load every
 * select plugin and refuse duplicate ids. */
#if PSIPLACE_SLURM_AT_LEAST(25, 5)
#define PSIPLACE_PLUGIN_ID 109
/* Only the configured select plugin is loaded, and only by slurmctld:
 * cons_tres is never there unless we load and initialise it. */
#define PSIPLACE_SLURM_LOADS_CONS_TRES 0
#else
#define PSIPLACE_PLUGIN_ID 180
#define PSIPLACE_SLURM_LOADS_CONS_TRES 1
#endif

/* From 23.11 cons_tres's will-run and future-start tests rewrite each
 * candidate's sched_weight from node_ptr->weight (_set_sched_weight), so
 * in those modes the order must be carried by node_ptr->weight too. */
#define PSIPLACE_WILL_RUN_READS_NODE_WEIGHT PSIPLACE_SLURM_AT_LEAST(23, 11)

/* --spread-job from 25.05 (topology/common eval_nodes.c,
 * _add_nodes_by_weight_spread): the callback returns 1 when the node limit
 * is reached, which list_for_each does not treat as a stop, so every later
 * weight tier adds one node more than the job's maximum.  With one weight
 * tier per node (the policy's order) a spread job would get every node. */
#define PSIPLACE_SPREAD_OVERRUNS_TIERS PSIPLACE_SLURM_AT_LEAST(25, 5)

/* SelectTypeParameters=CR_LLN: an enum member SELECT_LLN from 25.11. */
#if PSIPLACE_SLURM_AT_LEAST(25, 11)
#define PSIPLACE_SELECT_LLN SELECT_LLN
#else
#define PSIPLACE_SELECT_LLN CR_LLN
#endif

/* SelectTypeParameters=CR_*_Memory: SELECT_MEMORY from 25.11 (as LLN). */
#if PSIPLACE_SLURM_AT_LEAST(25, 11)
#define PSIPLACE_SELECT_MEMORY SELECT_MEMORY
#else
#define PSIPLACE_SELECT_MEMORY CR_MEMORY
#endif

/* Does a job ask for feature counts ("[a*2&b*2]"), required or, from 23.02,
 * preferred (--prefer)? */
#if PSIPLACE_SLURM_AT_LEAST(23, 2)
#define PSIPLACE_FEATURE_COUNTS(d)                                                                 \
	(((d)->features && strchr((d)->features, '*')) || ((d)->prefer && strchr((d)->prefer, '*')))
#else
#define PSIPLACE_FEATURE_COUNTS(d) ((d)->features && strchr((d)->features, '*'))
#endif

/* Every select_p_* entry point forwarded to cons_tres unchanged:
 * X(return type, value when cons_tres is missing, name, parameters, arguments).
 * job_test, reconfigure, job_begin and job_expand are ours and not listed. */
#define PSIPLACE_FWD_ALWAYS(X)                                                                     \
	X(int, SLURM_ERROR, node_init, (void), ())                                                 \
	X(int, SLURM_ERROR, job_ready, (job_record_t *job_ptr), (job_ptr))                         \
	X(int, SLURM_ERROR, job_resized, (job_record_t *job_ptr, node_record_t *node_ptr),         \
	  (job_ptr, node_ptr))                                                                     \
	X(int, SLURM_ERROR, job_fini, (job_record_t *job_ptr), (job_ptr))                          \
	X(int, SLURM_ERROR, job_suspend, (job_record_t *job_ptr, bool indf_susp),                  \
	  (job_ptr, indf_susp))                                                                    \
	X(int, SLURM_ERROR, job_resume, (job_record_t *job_ptr, bool indf_susp),                   \
	  (job_ptr, indf_susp))                                                                    \
	X(int, SLURM_ERROR, select_nodeinfo_set_all, (void), ())                                   \
	X(int, SLURM_ERROR, select_nodeinfo_set, (job_record_t *job_ptr), (job_ptr))

/* Up to 24.11: state save/restore, step and per-node/per-job select data. */
#if !PSIPLACE_SLURM_AT_LEAST(25, 5)
#define PSIPLACE_FWD_UNTIL_24_11(X)                                                                \
	X(int, SLURM_ERROR, state_save, (char *dir_name), (dir_name))                              \
	X(int, SLURM_ERROR, state_restore, (char *dir_name), (dir_name))                           \
	X(int, SLURM_ERROR, job_init, (psiplace_list_t job_list), (job_list))                      \
	X(bitstr_t *, NULL, step_pick_nodes,                                                       \
	  (job_record_t *job_ptr, select_jobinfo_t *step_jobinfo, uint32_t node_count,             \
	   bitstr_t **avail_nodes),                                                                \
	  (job_ptr, step_jobinfo, node_count, avail_nodes))                                        \
	X(int, SLURM_ERROR, step_start, (step_record_t *step_ptr), (step_ptr))                     \
	X(int, SLURM_ERROR, step_finish, (step_record_t *step_ptr, bool killing_step),             \
	  (step_ptr, killing_step))                                                                \
	X(int, SLURM_ERROR, select_nodeinfo_pack,                                                  \
	  (select_nodeinfo_t *nodeinfo, buf_t *buffer, uint16_t protocol_version),                 \
	  (nodeinfo, buffer, protocol_version))                                                    \
	X(int, SLURM_ERROR, select_nodeinfo_unpack,                                                \
	  (select_nodeinfo_t **nodeinfo, buf_t *buffer, uint16_t protocol_version),                \
	  (nodeinfo, buffer, protocol_version))                                                    \
	X(select_nodeinfo_t *, NULL, select_nodeinfo_alloc, (void), ())                            \
	X(int, SLURM_ERROR, select_nodeinfo_free, (select_nodeinfo_t *nodeinfo), (nodeinfo))       \
	X(int, SLURM_ERROR, select_nodeinfo_get,                                                   \
	  (select_nodeinfo_t *nodeinfo, enum select_nodedata_type dinfo, enum node_states state,   \
	   void *data),                                                                            \
	  (nodeinfo, dinfo, state, data))                                                          \
	X(select_jobinfo_t *, NULL, select_jobinfo_alloc, (void), ())                              \
	X(int, SLURM_ERROR, select_jobinfo_free, (select_jobinfo_t *jobinfo), (jobinfo))           \
	X(int, SLURM_ERROR, select_jobinfo_set,                                                    \
	  (select_jobinfo_t *jobinfo, enum select_jobdata_type data_type, void *data),             \
	  (jobinfo, data_type, data))                                                              \
	X(int, SLURM_ERROR, select_jobinfo_get,                                                    \
	  (select_jobinfo_t *jobinfo, enum select_jobdata_type data_type, void *data),             \
	  (jobinfo, data_type, data))                                                              \
	X(select_jobinfo_t *, NULL, select_jobinfo_copy, (select_jobinfo_t *jobinfo), (jobinfo))   \
	X(int, SLURM_ERROR, select_jobinfo_pack,                                                   \
	  (select_jobinfo_t *jobinfo, buf_t *buffer, uint16_t protocol_version),                   \
	  (jobinfo, buffer, protocol_version))                                                     \
	X(int, SLURM_ERROR, select_jobinfo_unpack,                                                 \
	  (select_jobinfo_t **jobinfo, buf_t *buffer, uint16_t protocol_version),                  \
	  (jobinfo, buffer, protocol_version))                                                     \
	X(int, SLURM_ERROR, get_info_from_plugin,                                                  \
	  (enum select_plugindata_info dinfo, job_record_t *job_ptr, void *data),                  \
	  (dinfo, job_ptr, data))
#else
#define PSIPLACE_FWD_UNTIL_24_11(X)
#endif

/* Up to 22.05 only. */
#if !PSIPLACE_SLURM_AT_LEAST(23, 2)
#define PSIPLACE_FWD_UNTIL_22_05(X)                                                                \
	X(int, SLURM_ERROR, job_signal, (job_record_t *job_ptr, int signal), (job_ptr, signal))    \
	X(char *, NULL, select_jobinfo_sprint,                                                     \
	  (select_jobinfo_t *jobinfo, char *buf, size_t size, int mode),                           \
	  (jobinfo, buf, size, mode))                                                              \
	X(char *, NULL, select_jobinfo_xstrdup, (select_jobinfo_t *jobinfo, int mode),             \
	  (jobinfo, mode))                                                                         \
	X(int, SLURM_ERROR, update_node_config, (int index), (index))
#else
#define PSIPLACE_FWD_UNTIL_22_05(X)
#endif

/* Up to 23.02: reservation core selection. */
#if !PSIPLACE_SLURM_AT_LEAST(23, 11)
#define PSIPLACE_FWD_UNTIL_23_02(X)                                                                \
	X(bitstr_t *, NULL, resv_test,                                                             \
	  (resv_desc_msg_t *resv_desc_ptr, uint32_t node_cnt, bitstr_t *avail_bitmap,              \
	   bitstr_t **core_bitmap),                                                                \
	  (resv_desc_ptr, node_cnt, avail_bitmap, core_bitmap))
#else
#define PSIPLACE_FWD_UNTIL_23_02(X)
#endif

/* 26.05: memory reduction of a running job (returns nothing). */
#if PSIPLACE_SLURM_AT_LEAST(26, 5)
#define PSIPLACE_FWD_VOID_FROM_26_05(X) X(job_mem_reduce, (job_record_t *job_ptr), (job_ptr))
#else
#define PSIPLACE_FWD_VOID_FROM_26_05(X)
#endif

#define PSIPLACE_FWD_ALL(X)                                                                        \
	PSIPLACE_FWD_ALWAYS(X)                                                                     \
	PSIPLACE_FWD_UNTIL_24_11(X)                                                                \
	PSIPLACE_FWD_UNTIL_22_05(X) PSIPLACE_FWD_UNTIL_23_02(X)

/* cons_tres's allocated CPUs and memory on node index i (as of its last
 * select_p_select_nodeinfo_set_all).  Callers hold the node write lock,
 * which also excludes 26.05's SELECT_NODE readers. */
static inline void psiplace_node_alloc(node_record_t *node_ptr, int i, uint16_t *cpus,
				       uint64_t *mem)
{
	*cpus = 0;
	*mem = 0;
#if PSIPLACE_SLURM_AT_LEAST(26, 5)
	(void)node_ptr;
	if (node_select_stats_array && node_select_stats_array[i]) {
		*cpus = node_select_stats_array[i]->alloc_cpus;
		*mem = node_select_stats_array[i]->alloc_memory;
	}
#elif PSIPLACE_SLURM_AT_LEAST(25, 5)
	(void)i;
	*cpus = node_ptr->alloc_cpus;
	*mem = node_ptr->alloc_memory;
#else
	(void)i;
	if (node_ptr->select_nodeinfo) {
		select_g_select_nodeinfo_get(node_ptr->select_nodeinfo, SELECT_NODEDATA_SUBCNT,
					     NODE_STATE_ALLOCATED, cpus);
		select_g_select_nodeinfo_get(node_ptr->select_nodeinfo, SELECT_NODEDATA_MEM_ALLOC,
					     NODE_STATE_ALLOCATED, mem);
	}
#endif
}

#endif
