/* Fuzz the plugstack.conf scanner and the psiplace line's arguments. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "psiplace/error.h"
#include "psiplace/plugstack_line.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct psiplace_siteconf c;
	psiplace_error_t err;
	char **argv = NULL;
	int argc = 0, line = 0;

	if (psiplace_plugstack_scan((const char *)data, size, NULL, NULL, &argc, &argv, &line, &err) == 0 &&
	    argv) {
		psiplace_siteconf_init(&c);
		psiplace_siteconf_parse(argc, argv, &c, &err);
		psiplace_siteconf_free(&c);
		psiplace_argv_free(argv);
	}
	return 0;
}
