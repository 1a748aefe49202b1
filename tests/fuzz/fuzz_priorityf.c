/* libFuzzer: PRIORITYF compile + evaluate + format on arbitrary bytes. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "psiplace/error.h"
#include "psiplace/policy.h"
#include "psiplace/priorityf.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const struct psiplace_gmetric gm[] = { { "temp", 1.0 } };
	struct psiplace_node n = { .name = "n", .cpus = 4, .alloc_cpus = 8, .speed = 1.0,
				   .features = "a,b", .arch = "x", .gmetrics = gm,
				   .ngmetrics = 1, .next_resv = 5 };
	struct psiplace_priorityf *f;
	psiplace_error_t err;
	char buf[64];
	char *s = malloc(size + 1);

	if (!s)
		return 0;
	memcpy(s, data, size);
	s[size] = '\0';
	if (psiplace_priorityf_compile(s, "fuzz", &f, &err) == 0) {
		(void)psiplace_priorityf_eval(f, &n, size);
		psiplace_priorityf_format(f, buf, sizeof(buf));
		psiplace_priorityf_format(f, NULL, 0);
		psiplace_priorityf_free(f);
	}
	free(s);
	return 0;
}
