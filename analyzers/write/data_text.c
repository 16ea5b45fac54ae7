/* SPDX-License-Identifier: MIT */
#include "analyzers/write/prose.h"
#include "analyzers/write/data_text.h"

#include "util/strbuf.h"

#include <stdlib.h>
#include <string.h>

const char *data_text_source(enum data_source k)
{
	switch (k) {
	case SOURCE_NONE:
		return "";
	case SOURCE_TELEMETRY:
		return "trainer telemetry";
	case SOURCE_AORTA:
		return "AORTA-style metrics";
	case SOURCE_TRACES:
		return "PyTorch profiler traces";
	case SOURCE_NSYS:
		return "Nsight Systems exports";
	case SOURCE_STEP_LOG:
		return "step lines in rank logs";
	case SOURCE_TRACE_OPS:
		return "PyTorch profiler traces (operators)";
	case SOURCE_STEP_LOG_TIMES:
		return "step lines in rank logs (analysis.step_log) for the step times";
	case SOURCE_MONITORS:
		return "node monitors";
	}
	return "";
}

/* One source read, as the list of sources says it. */
static void source_used(struct strbuf *sb, const struct ana_source *u)
{
	switch (u->kind) {
	case SOURCE_TRACES:
		strbuf_addf(sb, "PyTorch profiler traces (%zu file%s)", u->files,
			    u->files == 1 ? "" : "s");
		return;
	case SOURCE_NSYS:
		strbuf_addf(sb, "Nsight Systems exports (%zu, NVTX ranges)", u->files);
		return;
	case SOURCE_STEP_LOG:
		strbuf_adds(sb, "step lines in rank logs (analysis.step_log)");
		return;
	case SOURCE_NONE:
	case SOURCE_TELEMETRY:
	case SOURCE_AORTA:
	case SOURCE_TRACE_OPS:
	case SOURCE_STEP_LOG_TIMES:
	case SOURCE_MONITORS:
		strbuf_adds(sb, data_text_source(u->kind));
		return;
	}
}

char *data_text_sources(const struct ana_scenario *s)
{
	struct strbuf sb = STRBUF_INIT;
	for (int i = 0; i < s->data.n_sources; i++) {
		if (i)
			strbuf_adds(&sb, "; ");
		source_used(&sb, &s->data.sources[i]);
	}
	return strbuf_detach(&sb);
}

/* Why the traces gave no step data. */
static void traces_missing(struct strbuf *sb, const struct ana_scenario *s,
			   const struct ana_run *run)
{
	char *missed;
	switch (s->data.missing.traces) {
	case MISS_TRACES_UNUSABLE:
		strbuf_addf(sb, "; traces/ holds %zu file%s but none usable: %s",
			    s->data.trace_files, s->data.trace_files == 1 ? "" : "s",
			    s->data.trace_problem);
		return;
	case MISS_TRACES_UNMATCHED:
		missed = data_text_traces_missed(s, run);
		strbuf_addf(sb, "; %s", missed);
		free(missed);
		return;
	case MISS_TRACES_ABSENT:
		strbuf_adds(
			sb,
			"; no PyTorch-profiler traces in traces/ (profile.traces copies the files your script writes, e.g. [\"profiler/*.json\"])");
		return;
	}
}

/* Why no source gave step data: each source in the order they are tried. */
static void no_step_data(struct strbuf *sb, const struct ana_scenario *s,
			 const struct ana_run *run)
{
	const struct ana_missing *m = &s->data.missing;
	strbuf_adds(sb, "no telemetry (metrics/rank_<r>.jsonl)");
	traces_missing(sb, s, run);
	if (m->nsys == MISS_NSYS_UNUSABLE)
		strbuf_addf(sb, "; nsys/ holds exports but none usable: %s", m->nsys_problem);
	else
		strbuf_adds(sb, "; no Nsight Systems export in nsys/ (profile.nsys)");
	strbuf_adds(sb,
		    m->step_log == MISS_STEP_LOG_NO_PATTERN
			    ? "; no analysis.step_log pattern for step times the script prints"
			    : "; no line of logs/rank_<r>.out matches analysis.step_log.pattern");
	strbuf_adds(sb, s->mon.have_monitor ? "; the node monitors are reported alone"
					    : "; no node monitor data either (profile.monitor)");
}

char *data_text_problem(const struct ana_scenario *s, const struct ana_run *run)
{
	struct strbuf sb = STRBUF_INIT;
	switch (s->data.problem) {
	case PROBLEM_NONE:
		break;
	case PROBLEM_INCOMPLETE:
		strbuf_adds(&sb, "the job did not complete");
		break;
	case PROBLEM_NO_STEP_DATA:
		no_step_data(&sb, s, run);
		break;
	case PROBLEM_ALL_WARMUP:
		strbuf_adds(&sb, "every matching step line is warm-up (profile.warmup_steps)");
		break;
	case PROBLEM_NO_ACTIVE:
		strbuf_adds(&sb, "the step data has no active steps");
		break;
	}
	return strbuf_detach(&sb);
}

/* The trace-like files found, and a glob that would match them: in the first's folder,
 * with the extension .pt.trace.json when one of those named has it. */
static void trace_like(struct strbuf *sb, const struct ana_data *d)
{
	int n = d->n_trace_like, shown = n < ANA_TRACE_LIKE_SHOWN ? n : ANA_TRACE_LIKE_SHOWN;
	const char *first = d->trace_like[0], *ext = ".json";
	const char *slash = strrchr(first, '/');
	strbuf_addf(sb, "; %d trace-like file%s %s in the job directory: ", n, n == 1 ? "" : "s",
		    n == 1 ? "is" : "are");
	for (int i = 0; i < shown; i++) {
		strbuf_addf(sb, "%s`%s`", i ? ", " : "", d->trace_like[i]);
		if (strstr(d->trace_like[i], ".pt.trace.json"))
			ext = ".pt.trace.json";
	}
	if (n > ANA_TRACE_LIKE_SHOWN)
		strbuf_adds(sb, ", ...");
	if (slash)
		strbuf_addf(sb, " (a glob that matches %s: \"%.*s/*%s\")", n == 1 ? "it" : "them",
			    (int) (slash - first), first, ext);
	else
		strbuf_addf(sb, " (a glob that matches %s: \"*%s\")", n == 1 ? "it" : "them", ext);
}

char *data_text_traces_missed(const struct ana_scenario *s, const struct ana_run *run)
{
	struct strbuf sb = STRBUF_INIT;
	if (!s->data.traces_missed)
		return strbuf_detach(&sb);
	for (size_t i = 0; i < run->n_trace_globs; i++)
		strbuf_addf(&sb, "%s\"%s\"", i ? ", " : "profile.traces [", run->trace_globs[i]);
	strbuf_adds(&sb, "] matched no file");
	if (s->data.n_trace_like)
		trace_like(&sb, &s->data);
	return strbuf_detach(&sb);
}

char *data_text_ranks(const struct ana_scenario *s)
{
	const struct ana_data *d = &s->data;
	int n = d->ranks_without_data, ranks = s->in.ranks;
	struct strbuf sb = STRBUF_INIT;
	if (d->ranks_beyond) {
		strbuf_addf(
			&sb,
			PROSE_DATA_STEP_DATA_NAMES,
			d->ranks_beyond, d->ranks_beyond == 1 ? "" : "s", ranks,
			d->ranks_beyond == 1 ? " it is" : "s they are");
		if (n)
			strbuf_addf(&sb, "; %d of the %d launched left no step data", n, ranks);
	} else if (n) {
		strbuf_addf(&sb, "%d of %d launched rank%s left no step data (rank%s ", n, ranks,
			    ranks == 1 ? "" : "s", n == 1 ? "" : "s");
		for (int i = 0; i < n && i < ANA_RANKS_SHOWN; i++)
			strbuf_addf(&sb, "%s%d", i ? ", " : "", d->ranks_missing[i]);
		strbuf_addf(&sb, "%s)", n > ANA_RANKS_SHOWN ? ", ..." : "");
	}
	if (d->rank0_lines_only)
		strbuf_addf(&sb, "%sonly rank 0 prints step lines: the step times are rank 0's",
			    sb.len ? "; " : "");
	return strbuf_detach(&sb);
}

const char *data_text_profiler(unsigned bit)
{
	return bit == PROFILE_NSYS	    ? "nsys"
	       : bit == PROFILE_PERF	    ? "perf"
	       : bit == PROFILE_INSPECTOR ? "nccl_inspector"
					    : "";
}

const char *data_text_batch_from(enum batch_from b)
{
	switch (b) {
	case BATCH_UNKNOWN:
		return "";
	case BATCH_TELEMETRY:
		return "the telemetry";
	case BATCH_STEP_SAMPLES:
		return "the step lines' samples";
	case BATCH_SCENARIO_GLOBAL:
		return "the scenario's analysis.global_batch";
	case BATCH_SCENARIO_PER_RANK:
		return "the scenario's analysis.batch_per_rank";
	case BATCH_CAMPAIGN_GLOBAL:
		return "analysis.global_batch";
	case BATCH_CAMPAIGN_PER_RANK:
		return "analysis.batch_per_rank";
	}
	return "";
}

double data_text_monitor_per_node(const struct ana_scenario *s)
{
	return (double) s->mon.monitor_samples /
		(s->mon.monitor_nodes > 0 ? s->mon.monitor_nodes : 1);
}

const char *data_text_throughput_unit(const struct ana_scenario *s)
{
	return s->steps.global_batch > 0 ? "samples/s" : "steps/s";
}

char *data_text_replay_why(const struct replay_result *r)
{
	static const char *const why[] = {
		[REPLAY_MADE] = "",
		[REPLAY_INCOMPLETE] = "the job did not complete",
		[REPLAY_MONITORS_ONLY] = "monitors only: no execution graph",
		[REPLAY_NO_STEP_DATA] = "no step data: no execution graph",
		[REPLAY_TELEMETRY] =
			"the step data is telemetry, which holds no execution graph, and not every rank left the trainer's trace beside it",
		[REPLAY_STEP_LINES] = "step lines only: no execution graph",
		[REPLAY_NO_STEP_RANGES] =
			"the traces have no step ranges (the step times are step lines)",
		[REPLAY_NO_CORES] = "the nodes' core count is unknown: set analysis.cores_per_node",
		[REPLAY_FILES] = "the traces are not one file per rank with steps",
		[REPLAY_UNREADABLE] = "a trace could not be read again",
		[REPLAY_NOT_BUILT] = "no graph could be built",
		[REPLAY_FAILED] = "the replay failed",
		[REPLAY_NO_ACTIVE] = "no active step was replayed",
	};
	struct strbuf sb = STRBUF_INIT;
	strbuf_adds(&sb, why[r->why_kind]);
	if (r->why[0])
		strbuf_addf(&sb, " (%s)", r->why);
	return strbuf_detach(&sb);
}
