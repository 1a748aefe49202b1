/* psiplace SPANK plugin: the one state struct and the error line, shared
 * by every file of the plugin.  The bottom of the plugin: it calls none of
 * its other files, so that psiplace_spank.c (the entry points, on top)
 * calls down into spank_submit.c and spank_step.c and they call down into
 * here, never back (doc/layout.md). */
#include <stdarg.h>
#include <stdio.h>

#include "spank_ctx.h"

struct psiplace_spank_ctx psiplace_spank;

void spank_user_error(const char *fmt, ...)
{
	psiplace_error_t msg;
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg.text, sizeof(msg.text), fmt, ap);
	va_end(ap);
	if (spank_context() == S_CTX_REMOTE)
		slurm_error("psiplace: %s", msg.text);
	else
		fprintf(stderr, "psiplace: error: %s\n", msg.text);
}
