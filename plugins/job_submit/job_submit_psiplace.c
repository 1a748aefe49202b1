/* job_submit/psiplace: makes a job's --psi-malleable range readable by
 * psiplace-malleabled, and by nobody's hand but an operator's.
 *
 * The range travels from sbatch/salloc in the job's SPANK job-control
 * environment (PSIPLACE_MALLEABLE=MIN-MAX), which slurmctld keeps but never
 * sends to a client: slurm_load_jobs() does not return it, nor does any
 * other RPC of 22.05-26.05.  At submission this plugin, inside slurmctld,
 * decodes it with the same library call as the select plugin (an
 * untrusted client may have written anything there) and writes
 * "psiplace-malleable=MIN-MAX" into the job's AdminComment, a field that
 * slurm_load_jobs() returns and that only operators can write afterwards
 * (a user's own --admin-comment is refused before job_submit plugins run).
 * The daemon replaces it with an order and writes it back when it clears
 * the order (doc/malleability.md, "How a decision reaches the job").
 *
 * It only reads and writes the request it is given: no file, no network,
 * no lock of its own, nothing that can block slurmctld. */
#include <stdint.h>
#include <string.h>

#include <slurm/slurm.h>
#include <slurm/slurm_errno.h>

#include "src/common/log.h"
#include "src/common/xstring.h"

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

extern int job_submit(job_desc_msg_t *job_desc, uint32_t submit_uid, char **err_msg)
{
	struct psiplace_ctld_request req;
	psiplace_error_t err;
	char range[64];

	(void)err_msg;
	if (psiplace_ctld_request_from_env((const char *const *)job_desc->spank_job_env,
					   job_desc->spank_job_env_size, &req, &err) < 0) {
		/* the select plugin logs and ignores the same request: so do we */
		info("job_submit/psiplace: uid %u: malformed psiplace request, not malleable: %s",
		     submit_uid, err.text);
		return SLURM_SUCCESS;
	}
	if (!req.mall_max)
		return SLURM_SUCCESS;
	if (job_desc->admin_comment) {
		info("job_submit/psiplace: uid %u: an operator set AdminComment: the job is not "
		     "malleable for psiplace-malleabled",
		     submit_uid);
		return SLURM_SUCCESS;
	}
	if (psiplace_rchan_range_format(req.mall_min, req.mall_max, range, sizeof(range)) < 0)
		return SLURM_SUCCESS;
	job_desc->admin_comment = xstrdup(range);
	return SLURM_SUCCESS;
}

/* An update carries no new range (--psi-malleable is a submission option). */
extern int job_modify(job_desc_msg_t *job_desc, struct job_record *job_ptr, uint32_t submit_uid,
		      char **err_msg)
{
	(void)job_desc;
	(void)job_ptr;
	(void)submit_uid;
	(void)err_msg;
	return SLURM_SUCCESS;
}
