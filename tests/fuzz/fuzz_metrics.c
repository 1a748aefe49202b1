/* libFuzzer: the metrics file text. */
#include <stdint.h>

#include "psiplace/error.h"
#include "psiplace/metrics_file.h"

static void quiet(void *arg, const char *msg)
{
	(void)arg;
	(void)msg;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct psiplace_metrics m;
	struct psiplace_node n = { 0 };
	psiplace_error_t err;

	if (psiplace_metrics_parse((const char *)data, size, "fuzz", &m, quiet, NULL, &err) == 0) {
		if (m.n)
			psiplace_metrics_apply(psiplace_metrics_node(&m, m.nodes[0].name), &n);
		psiplace_metrics_free(&m);
	}
	return 0;
}
