/* The replay's numeric options (psiplace/sim.h) as the command line gives
 * them: one parser for the CLI and the fuzz target, so that the bounds that
 * keep the replay's conversions defined are the ones both go through. */
#include <stdint.h>
#include <string.h>

#include "psiplace/error.h"
#include "psiplace/sim.h"
#include "psiplace/textparse.h"

int psiplace_sim_option(struct psiplace_sim_opts *o, const char *flag, const char *value,
			psiplace_error_t *err)
{
	size_t n = value ? strlen(value) : 0;
	uint64_t v;
	double d = 1.0;

	if (!flag || (!value && strcmp(flag, "speed-scaling")))
		return psiplace_seterr(err, "simulate option: no flag or value");
	if (!strcmp(flag, "bf-window")) {
		if (!psiplace_parse_u64(value, n, UINT64_MAX, &v) || !v)
			return psiplace_seterr(err, "--bf-window: '%s' is not a positive number of seconds",
					       value);
		if (v > 100000000)
			return psiplace_seterr(err, "--bf-window: '%s' is over the cap of 100000000 s "
					       "(about 3 years, longer than any trace's horizon)", value);
		o->bf_window = (int64_t)v;
		return 0;
	}
	if (!strcmp(flag, "bf-interval")) {
		if (!psiplace_parse_u64(value, n, 86400, &v))
			return psiplace_seterr(err, "--bf-interval: '%s' is not a number of seconds (0 to 86400)",
					       value);
		o->bf_interval = (int64_t)v;
		return 0;
	}
	if (!strcmp(flag, "bf-depth")) {
		if (!psiplace_parse_u64(value, n, 100000000, &v) || !v)
			return psiplace_seterr(err, "--bf-depth: '%s' is not a positive integer", value);
		o->bf_depth = (uint32_t)v;
		return 0;
	}
	if (!strcmp(flag, "speed-scaling")) {
		/* bounded: a run time is scaled by REF / the slowest node's Speed
		 * and converted to whole seconds (1e300 overflowed it) */
		if (value && (!psiplace_parse_double(value, n, &d) || !(d >= 1e-6) || d > 1e6))
			return psiplace_seterr(err, "--speed-scaling: '%s' is not a Speed; accepted: "
					       "0.000001..1000000", value);
		o->speed_ref = d;
		return 0;
	}
	if (!strcmp(flag, "seed")) {
		if (!psiplace_parse_u64(value, n, UINT64_MAX, &o->seed))
			return psiplace_seterr(err, "--seed: '%s' is not an unsigned integer", value);
		return 0;
	}
	return psiplace_seterr(err, "simulate option: unknown flag '%s'", flag);
}
