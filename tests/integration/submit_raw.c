/* submit_raw: submit a batch job through Slurm's C API with a spank job
 * environment given verbatim on the command line, bypassing the SPANK
 * plugin's validation: how a hostile user would reach slurmctld.
 *
 * usage: submit_raw OUTFILE [NAME=VALUE ...]   prints the job id
 * SUBMIT_RAW_HOLD=1 in the environment submits the job held,
 * SUBMIT_RAW_NODES=LIST asks for those nodes (-w),
 * SUBMIT_RAW_TRES_PER_NODE=STRING sets the GRES request as the release's
 * sbatch writes it (22.05, 23.02: "gres:gpu:1"; 23.11+: "gres/gpu:1"). */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include <slurm/slurm.h>
#include <slurm/slurm_errno.h>

int main(int argc, char **argv)
{
	char *env[] = { "PATH=/usr/bin:/bin", NULL };
	char cwd[4096];
	job_desc_msg_t d;
	submit_response_msg_t *resp = NULL;

	if (argc < 2) {
		fprintf(stderr, "usage: submit_raw OUTFILE [NAME=VALUE ...]\n");
		return 2;
	}
	slurm_init(NULL);
	slurm_init_job_desc_msg(&d);
	if (!getcwd(cwd, sizeof(cwd)))
		return 1;
	d.name = "submit_raw";
	d.script = "#!/bin/sh\nprintenv SLURMD_NODENAME\n";
	d.std_out = argv[1];
	d.work_dir = cwd;
	d.user_id = getuid();
	d.group_id = getgid();
	d.min_nodes = 1;
	d.environment = env;
	d.env_size = 1;
	d.spank_job_env = argv + 2;
	d.spank_job_env_size = (uint32_t)(argc - 2);
	if (getenv("SUBMIT_RAW_HOLD"))
		d.priority = 0;
	if (getenv("SUBMIT_RAW_NODES"))
		d.req_nodes = getenv("SUBMIT_RAW_NODES");
	if (getenv("SUBMIT_RAW_TRES_PER_NODE"))
		d.tres_per_node = getenv("SUBMIT_RAW_TRES_PER_NODE");
	if (slurm_submit_batch_job(&d, &resp) != SLURM_SUCCESS) {
		slurm_perror("submit_raw");
		return 1;
	}
#if SLURM_VERSION_NUMBER >= SLURM_VERSION_NUM(26, 5, 0)
	printf("%u\n", resp->step_id.job_id);
#else
	printf("%u\n", resp->job_id);
#endif
	slurm_free_submit_response_response_msg(resp);
	slurm_fini();
	return 0;
}
