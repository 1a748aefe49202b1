/* job_submit/psiplace: makes a job's --psi-malleable range and its own node
 * allocation policy (--psi-alloc-policy, --psi-alloc-priority) readable by
 * psiplace-malleabled, and by nobody's hand but an operator's.
 *
 * The range travels from sbatch/salloc in the job's SPANK job-control
 * environment (PSIPLACE_MALLEABLE=MIN-MAX), which slurmctld keeps but never
 * sends to a client: slurm_load_jobs() does not return it, nor does any
 * other RPC of 22.05-26.05.  At submission this plugin, inside slurmctld,
 * decodes it with the same library call as the select plugin (an
 * untrusted client may have written anything there) and writes
 * "psiplace-malleable=MIN-MAX", "psiplace-policy=POLICY[;FUNCTION]" or both
 * (separated by a blank) into the job's AdminComment, a field that
 * slurm_load_jobs() returns and that only operators can write afterwards
 * (a user's own --admin-comment is refused before job_submit plugins run).
 * The daemon replaces it with an order and writes it back when it clears
 * the order (doc/malleability.md, "How a decision reaches the job").
 *
 * On Slurm 25.11 and later it also keeps slurmctld alive through a merge of
 * an expand: helper into its job (`scontrol update JobId=H NumNodes=0`):
 * _valid_license_job_expansion() of job_mgr.c calls list_find_first_ro()
 * on both jobs' license_list, which is NULL for a job submitted without
 * --licenses, and slurmctld dies of SIGSEGV in _list_find_first_lock()
 * before the select plugin is asked.  So the two jobs of the merge are
 * given an empty license list (no licenses, as before; the merge's
 * _merge_job_licenses() keeps or replaces it), which that check reads
 * safely (doc/malleability.md, "Slurm releases that die merging").
 *
 * It only reads and writes the request it is given (and, for the merge
 * check, the two job records slurmctld holds locked for the update): no
 * file, no network, no lock of its own, nothing that can block slurmctld. */
#include <stdint.h>
#include <string.h>

#include <slurm/slurm.h>
#include <slurm/slurm_errno.h>
#include <slurm/slurm_version.h>

#include "src/common/log.h"
#include "src/common/xstring.h"
/* Slurm's releases whose merge dies on a job without licenses (25.11, 26.05). */
#define PSIPLACE_MERGE_CRASHES (SLURM_VERSION_NUMBER >= SLURM_VERSION_NUM(25, 11, 0))
#if PSIPLACE_MERGE_CRASHES
#include "src/common/list.h"
#include "src/slurmctld/licenses.h"
#include "src/slurmctld/slurmctld.h"
#endif

#include "psiplace/ctld_request.h"
#include "psiplace/error.h"
#include "psiplace/resize_channel.h"

const char plugin_name[] = "psiplace: malleable range for psiplace-malleabled";
const char plugin_type[] = "job_submit/psiplace";
const uint32_t plugin_version = SLURM_VERSION_NUMBER;

struct job_record;

extern int job_submit(job_desc_msg_t *job_desc, uint32_t submit_uid, char **err_msg);
extern int job_modify(job_desc_msg_t *job_desc, struct job_record *job_ptr, uint32_t submit_uid,
		      char **err_msg);

/* "RANGE", "POLICY-PART" or "RANGE POLICY-PART" (psiplace/resize_channel.h)
 * into buf; -1 when a part cannot be written. */
static int admin_text(const struct psiplace_ctld_request *req, char *buf, size_t len)
{
	long n = 0, m;

	buf[0] = '\0';
	if (req->mall_max &&
	    (n = psiplace_rchan_range_format(req->mall_min, req->mall_max, buf, len)) < 0) {
		buf[0] = '\0';
		return -1;
	}
	if (req->policy == PSIPLACE_POLICY_NONE)
		return 0;
	if (n)
		buf[n++] = ' ';
	m = psiplace_rchan_policy_format(req->policy, req->priority, buf + n, len - (size_t)n);
	if (m < 0) {
		buf[n ? n - 1 : 0] = '\0';
		return -1;
	}
	return 0;
}

extern int job_submit(job_desc_msg_t *job_desc, uint32_t submit_uid, char **err_msg)
{
	struct psiplace_ctld_request req;
	psiplace_error_t err;
	char text[PSIPLACE_RCHAN_ADMIN_MAX];

	(void)err_msg;
	if (psiplace_ctld_request_from_env((const char *const *)job_desc->spank_job_env,
					   job_desc->spank_job_env_size, &req, &err) < 0) {
		/* the select plugin logs and ignores the same request: so do we */
		info("job_submit/psiplace: uid %u: malformed psiplace request, not malleable: %s",
		     submit_uid, err.text);
		return SLURM_SUCCESS;
	}
	if (!req.mall_max && req.policy == PSIPLACE_POLICY_NONE)
		return SLURM_SUCCESS;
	if (job_desc->admin_comment) {
		info("job_submit/psiplace: uid %u: an operator set AdminComment: psiplace-malleabled "
		     "sees neither the job's range (not malleable) nor its own policy (its "
		     "partition's or the cluster's used)",
		     submit_uid);
		return SLURM_SUCCESS;
	}
	if (admin_text(&req, text, sizeof(text)) < 0)
		info("job_submit/psiplace: uid %u: the job's policy does not fit AdminComment: "
		     "psiplace-malleabled uses its partition's or the cluster's",
		     submit_uid);
	if (text[0])
		job_desc->admin_comment = xstrdup(text);
	return SLURM_SUCCESS;
}

#if PSIPLACE_MERGE_CRASHES
/* The update merges job_ptr into the job it was submitted to expand
 * exactly when _update_job() takes its merge branch: NumNodes=0 of a
 * running job that has nodes and an expand: dependency's target.  Runs
 * under slurmctld's job write lock (update_job_str()). */
static void give_license_lists(const job_desc_msg_t *job_desc, job_record_t *job_ptr)
{
	job_record_t *to;

	if (job_desc->min_nodes != 0 || !IS_JOB_RUNNING(job_ptr) || !job_ptr->node_cnt ||
	    !job_ptr->details || !job_ptr->details->expanding_jobid)
		return;
	to = find_job_record(job_ptr->details->expanding_jobid);
	if (!to)
		return; /* Slurm refuses: the job to expand is not found */
	if (!job_ptr->license_list)
		job_ptr->license_list = list_create(license_free_rec);
	if (!to->license_list)
		to->license_list = list_create(license_free_rec);
	debug("job_submit/psiplace: merging %pJ into %pJ: empty license lists for Slurm "
	      "25.11+'s merge check",
	      job_ptr, to);
}
#endif

/* An update carries no new range (--psi-malleable is a submission option);
 * on the releases above, a merge is made safe for slurmctld. */
extern int job_modify(job_desc_msg_t *job_desc, struct job_record *job_ptr, uint32_t submit_uid,
		      char **err_msg)
{
	(void)submit_uid;
	(void)err_msg;
#if PSIPLACE_MERGE_CRASHES
	give_license_lists(job_desc, job_ptr);
#else
	(void)job_desc;
	(void)job_ptr;
#endif
	return SLURM_SUCCESS;
}
