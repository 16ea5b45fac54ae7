/* libFuzzer target: the campaign loader (libyaml document, schema, matrix,
 * placeholders, alias guard) on arbitrary bytes. Diagnostics are expected;
 * crashes, leaks and undefined behaviour are findings.
 * SPDX-License-Identifier: MIT */
#include "orchestrator/campaign/campaign.h"
#include "orchestrator/campaign/diag.h"

#include <stddef.h>
#include <stdint.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct campaign c;
	struct diags d = { 0 };
	if (campaign_load_buffer("fuzz.yaml", (const char *)data, size, &c, &d) == 0)
		campaign_free(&c);
	diags_free(&d);
	return 0;
}
