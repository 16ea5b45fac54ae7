/* campaign-analyze: the analyzers on their own; this file reads the options and dispatches.
 *   campaign-analyze RUN_DIR                      (re)writes a campaign run's analysis from
 *                                                 its analysis_input.json (here)
 *   campaign-analyze [--json] [--rules F] [--top N] TRACE...   PyTorch-profiler (Kineto) traces
 *                                                 or Nsight Systems exports (analyze_traces.c)
 *   campaign-analyze [--json] DUMP|DUMP_DIR...    NCCL Inspector dumps (analyze_dumps.c)
 * SPDX-License-Identifier: MIT */
#include "analyzers/analysis.h"
#include "analyzers/analyze_dumps.h"
#include "analyzers/analyze_traces.h"
#include "analyzers/run_input.h"
#include "analyzers/write/report.h"
#include "util/err.h"
#include "util/fsio.h"
#include "util/run_layout.h"
#include "util/strbuf.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static const char usage[] =
	"usage: campaign-analyze [-j N] RUN_DIR\n"
	"       campaign-analyze [--json] [--rules FILE] [--top N] [-j N] TRACE.json|PROFILE.sqlite...\n"
	"       campaign-analyze [--json] INSPECTOR_DUMP|INSPECTOR_DIR...\n\n"
	"With a campaign run directory, (re)writes its BOTTLENECK_ANALYSIS.md and summary.json from\n"
	"its analysis_input.json (what its last aggregation analysed; the store is not read).\n"
	"With PyTorch-profiler (Kineto) traces, one per rank, or Nsight Systems SQLite exports (one\n"
	"entry per process and GPU), prints each rank's GPU time breakdown\n"
	"(Holistic Trace Analysis's definitions: idle, compute, non-compute, comm/compute overlap)\n"
	"and its top kernels per category, and from the host ranges of a trace its steps\n"
	"(ProfilerStep#N), where their time goes (phases by PCRE2 rules, default\n"
	"analyzers/phase_rules.txt) and the operators with the most self time; then the traces'\n"
	"execution graph (kernels on their streams after their launches) replayed, its median step\n"
	"against the measured one. --json prints one JSON document, each file's steps, shares,\n"
	"operators and GPU breakdown with summary.json's keys. Kernel categories come from PCRE2\n"
	"rules (default analyzers/kernel_rules.txt). --top N: kernels per category shown, and\n"
	"host operators, at most summary.json's ten (default 5).\n"
	"-j N: files analysed on N threads (default 0: every CPU this process may use); the output\n"
	"is the same whatever N is.\n"
	"With NCCL Inspector dumps (the plugin's <host>-pid<pid>.log files, or folders of them),\n"
	"prints the collectives matched across ranks by communicator and coll_sn (latency, wait,\n"
	"algbw, busbw), the ranks the others wait for, and what was skipped.\n\n"
	"exit status: 0 ok, 2 usage or bad rules, 3 no such file, 4 unreadable input\n";

/* A folder campaign made a run in (its store, or the input of its analysis). */
static int is_run_dir(const char *dir)
{
	struct strbuf p = STRBUF_INIT;
	strbuf_addf(&p, "%s/" RUN_STATE_DB, dir);
	int yes = fsio_exists(p.buf);
	strbuf_reset(&p);
	strbuf_addf(&p, "%s/" RUN_ANALYSIS_INPUT, dir);
	yes = yes || fsio_exists(p.buf);
	strbuf_free(&p);
	return yes;
}

/* A campaign run directory: its analysis written again from
 * analysis_input.json (what its last aggregation analysed: the jobs' states
 * then, the campaign's settings), under the aggregation's lock. Neither the
 * store nor the scheduler is asked: `campaign aggregate --force` does that. */
static int run_mode(const char *dir, int jobs)
{
	int lock = fsio_lock(dir, RUN_ANALYSIS_LOCK, 0);
	if (lock < 0)
		return lock;
	struct ana_run in;
	int rc = run_input_read(dir, &in);
	in.jobs = jobs;
	if (rc == 0)
		rc = ana_run_analyse_write(&in, NULL);
	if (rc == 0)
		printf("%s/" RUN_REPORT "\n%s/" RUN_SUMMARY "\n", dir, dir);
	ana_run_free(&in);
	close(lock);
	return rc;
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = { { "json", 0, 0, 'J' }, { "rules", 1, 0, 'r' },
						  { "top", 1, 0, 't' },  { "jobs", 1, 0, 'j' },
						  { "help", 0, 0, 'h' }, { 0, 0, 0, 0 } };
	int as_json = 0, top = 5, c, jobs = 0;
	const char *rules = NULL;
	char *end;
	while ((c = getopt_long(argc, argv, "hj:", longopts, NULL)) != -1) {
		switch (c) {
		case 'J': as_json = 1; break;
		case 'j':
			jobs = (int)strtol(optarg, &end, 10);
			if (*end || jobs < 0 || jobs > 4096) {
				fprintf(stderr,
					"campaign-analyze: -j wants a number of threads (0: every CPU), not '%s'\n",
					optarg);
				return 2;
			}
			break;
		case 'r': rules = optarg; break;
		case 't': top = atoi(optarg); break;
		case 'h': fputs(usage, stdout); return 0;
		default: fputs(usage, stderr); return 2;
		}
	}
	if (optind >= argc || top < 1 || top > 1000) {
		fputs(usage, stderr);
		return 2;
	}
	int run = argc - optind == 1 && is_run_dir(argv[optind]);
	int rc, dumps = !run && analyze_dumps_operands(argc, argv, optind, &rc);
	if (run)
		rc = run_mode(argv[optind], jobs);
	else if (dumps && rc == 0)
		rc = analyze_dumps_run(argv + optind, (size_t)(argc - optind), as_json);
	else if (!dumps)
		rc = analyze_traces_run(argv + optind, (size_t)(argc - optind), as_json, rules, top,
					jobs);
	if (rc < 0) {
		fprintf(stderr, "campaign-analyze: %s\n", err_last());
		return rc == ERR_NOTFOUND ? 3 : rc == ERR_USAGE ? 2 : 4;
	}
	return 0;
}
