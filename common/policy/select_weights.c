/* How select/psiplace_cons_tres hands a policy's order to cons_tres: the
 * node weights it injects (see policy.h).  Here so that `psiplace rank
 * --as-select` shows exactly what the plugin writes. */
#include "psiplace/policy.h"

uint32_t psiplace_select_distinct(uint32_t need, uint32_t margin, uint32_t candidates)
{
	uint64_t d = (uint64_t)need + margin;

	return d > candidates ? candidates : (uint32_t)d;
}

uint64_t psiplace_select_sched_weight(uint64_t orig, uint32_t rank, bool overrides)
{
	uint64_t flags = (orig >> 40) & 0x3;
	uint64_t weight = (orig >> 8) & 0xffffffffULL;

	if (rank > PSIPLACE_SELECT_RANK_MAX)
		rank = PSIPLACE_SELECT_RANK_MAX;
	return (flags << 62) | (overrides ? 0 : weight << 30) | ((uint64_t)rank << 8) |
	       (orig & 0xff);
}

uint64_t psiplace_select_boot_bits(enum psiplace_power_state st, uint32_t slurm_version)
{
	bool r2505 = slurm_version >= PSIPLACE_SLURM_VERSION_NUM(25, 5);

	switch (st) {
	case PSIPLACE_POWERED_DOWN:
		return r2505 ? 0x30000000000ULL : 0x20000000000ULL;
	case PSIPLACE_POWERING_UP:
		return r2505 ? 0x20000000000ULL : 0;
	case PSIPLACE_POWER_UP:
		break;
	}
	return 0;
}

uint64_t psiplace_select_ctld_weight(uint32_t weight, enum psiplace_power_state st,
				     uint32_t slurm_version)
{
	/* 22.05's node_features_g_reboot_weight() without a node_features plugin */
	if (st == PSIPLACE_POWERED_DOWN && slurm_version < PSIPLACE_SLURM_VERSION_NUM(23, 2))
		weight = 0xfffffffeU;
	return ((uint64_t)weight << 8) | 0xff | psiplace_select_boot_bits(st, slurm_version);
}

bool psiplace_select_boot_dropped(enum psiplace_power_state st, bool powered,
				  bool prefer_powered_up, uint32_t slurm_version)
{
	if (st == PSIPLACE_POWERING_UP)
		return psiplace_select_boot_bits(st, slurm_version) != 0;
	return st == PSIPLACE_POWERED_DOWN && (!prefer_powered_up || powered);
}

uint64_t psiplace_select_drop_boot(uint64_t orig, uint32_t weight, enum psiplace_power_state st,
				   uint32_t slurm_version)
{
	return (orig & ~(psiplace_select_boot_bits(st, slurm_version) | (0xffffffffULL << 8))) |
	       ((uint64_t)weight << 8);
}
