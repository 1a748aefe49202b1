/* libFuzzer: psiplace.conf text. */
#include <stdint.h>

#include "psiplace/error.h"
#include "psiplace/psiplace_conf.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct psiplace_psiconf c;
	psiplace_error_t err;

	if (psiplace_psiconf_parse((const char *)data, size, "fuzz", &c, &err) == 0) {
		if (c.n)
			(void)psiplace_psiconf_node(&c, c.nodes[c.n / 2].name);
		if (c.nparts)
			(void)psiplace_psiconf_partition(&c, c.parts[c.nparts - 1].name);
		psiplace_psiconf_free(&c);
	}
	return 0;
}
