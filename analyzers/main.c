/* campaign-analyze: the analyzers on their own. Given a campaign run
 * directory it (re)writes the run's analysis; trace inputs come with the
 * analyzers issue. */
#include "../orchestrator/aggregate.h"
#include "../orchestrator/err.h"

#include <stdio.h>
#include <string.h>

int main(int argc, char **argv)
{
	if (argc != 2 || !strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
		fprintf(argc == 2 ? stdout : stderr,
			"usage: campaign-analyze RUN_DIR\n\n(Re)writes BOTTLENECK_ANALYSIS.md and summary.json of a campaign run.\n");
		return argc == 2 ? 0 : 2;
	}
	struct run *r;
	int rc = run_open(".", argv[1], &r);
	if (rc == 0) {
		rc = aggregate_run(r, 1);
		if (rc == 0)
			printf("%s/BOTTLENECK_ANALYSIS.md\n", r->dir);
		run_free(r);
	}
	if (rc < 0) {
		fprintf(stderr, "campaign-analyze: %s\n", err_last());
		return rc == ERR_NOTFOUND ? 3 : 4;
	}
	return 0;
}
