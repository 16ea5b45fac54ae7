/* cmd_render: `campaign render FILE --out DIR` writes every scenario's job
 * script as it would be submitted, and submits nothing. */
#include "cmd.h"
#include "util/run_layout.h"
#include "util/err.h"
#include "util/fsio.h"
#include "orchestrator/run.h"

#include <stdio.h>
#include <stdlib.h>

static int render_exec(const struct cmd_entry *self, struct args *a)
{
	struct campaign c;
	if (!args_has(a, 'o')) {
		fprintf(stderr, "campaign render: --out DIR is required\n");
		return EXIT_USAGE;
	}
	int rc = cmd_load_campaign(a->pos[0], &c);
	if (rc)
		return rc;
	char *out = fsio_abspath(args_get(a, 'o'));
	char *bin = fsio_self_dir();
	rc = run_render_all(&c, out, "render", bin, 0);
	if (rc == 0)
		for (size_t i = 0; i < c.n_scenarios; i++)
			printf("%s/%s/" JOB_SCRIPT "\n", out, c.scenarios[i].name);
	free(out);
	free(bin);
	campaign_free(&c);
	(void)self;
	return rc;
}

const struct cmd_entry cmd_render_entry = {
	.name = "render",
	.usage = "--out DIR FILE",
	.summary = "write each scenario's job script into DIR/<scenario>/ without submitting",
	.flags = 0,
	.min_pos = 1,
	.max_pos = 1,
	.exec = render_exec,
	.opts = (const struct optdef[]){
		{ 'o', "out", "DIR", "where to write the scripts (required)" },
		OPT_END },
};
