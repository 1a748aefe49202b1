/* psiplace SPANK plugin: its option registrations, built from
 * options.def.  Separate from the entry points so that a unit test sees
 * exactly what srun --help shows. */
#ifndef PSIPLACE_SPANK_OPTIONS_H
#define PSIPLACE_SPANK_OPTIONS_H

#include <slurm/spank.h>

#include "psiplace/options.h"

/* Fill opts[0..PSIPLACE_OPT_COUNT] (the last is the table end): option i
 * has val i, --psi-alloc-policy calls alloc_policy_cb, the others
 * psi_cb.  The usage texts live in static storage, as Slurm keeps the
 * pointers. */
void psiplace_spank_options_fill(struct spank_option *opts, spank_opt_cb_f alloc_policy_cb,
				 spank_opt_cb_f psi_cb);

#endif
