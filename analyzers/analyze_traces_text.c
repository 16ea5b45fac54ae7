/* campaign-analyze's trace mode in words: a rank's object of its JSON document (its steps,
 * GPU time breakdown, kernels) and the replay's line, printed for a terminal.
 * SPDX-License-Identifier: MIT */
#include "analyzers/analyze_traces_text.h"
#include "analyzers/prose.h"

#include <jansson.h>
#include <stdio.h>

/* A name from a trace, fit for a terminal: control characters (escape
 * sequences a hostile trace could hold) become '?', at most n-1 bytes,
 * never cutting a UTF-8 sequence. */
static void printable(const char *in, char *out, size_t n)
{
	size_t k = 0;
	for (; in && *in && k + 1 < n; in++) {
		unsigned char c = (unsigned char)*in;
		/* a lead byte needs room for its sequence */
		if ((c & 0xc0) == 0x80 || c < 0x80 || k + 4 < n)
			out[k++] = c < 0x20 || c == 0x7f ? '?' : (char)c;
		else
			break;
	}
	while (k > 0 && ((unsigned char)out[k - 1] & 0xc0) == 0xc0) /* a lead byte left alone */
		k--;
	out[k] = '\0';
}

/* A share of shares_pct (0 where absent). */
static double share(json_t *p, const char *key)
{
	return json_number_value(json_object_get(p, key));
}

/* A file's steps (summary.json's keys: active_steps, step_time_ms, shares_pct) and its host
 * operators with the most self time, the first top of them. */
static void print_steps(json_t *rank, int top)
{
	if (!json_is_true(json_object_get(rank, "analysed"))) {
		if (!json_object_get(rank, "process")) /* an export's process: its host is apart */
			printf("  no ProfilerStep#N ranges: no steps (call prof.step() once per training step)\n");
		return;
	}
	size_t n = (size_t)json_integer_value(json_object_get(rank, "active_steps"));
	json_t *p = json_object_get(rank, "shares_pct");
	if (json_is_true(json_object_get(rank, "step_boundaries")))
		printf("  %zu step%s, median %.3f ms", n, n == 1 ? "" : "s",
		       json_number_value(
			       json_object_get(json_object_get(rank, "step_time_ms"), "median")));
	else /* the whole profiled window as one: no step statistics */
		printf("  no ProfilerStep#N ranges (call prof.step() once per training step): the profiled window, %.3f ms",
		       json_number_value(json_object_get(rank, "profiled_window_ms")));
	printf(PROSE_TRACE_SHARES_TAIL, share(p, "data_loading"), share(p, "forward"),
	       share(p, "backward"), share(p, "optimizer"), share(p, "compute_outside_phases"),
	       share(p, "communication") + share(p, "peer_wait"), share(p, "communication_total"),
	       share(p, "io"), share(p, "other"));
	size_t i;
	json_t *o;
	json_array_foreach(json_object_get(rank, "top_operators"), i, o) {
		if ((int)i >= top)
			break;
		char name[72];
		printable(json_string_value(json_object_get(o, "name")), name, sizeof name);
		printf("  %-13s %8.3f ms %6lld x  %s\n", i ? "" : "CPU self time",
		       json_number_value(json_object_get(o, "self_ms")),
		       (long long) json_integer_value(json_object_get(o, "count")), name);
	}
}

/* A rank's GPU time breakdown (HTA's definitions: gpu_breakdown_detail) and its idle time,
 * in words. */
static void print_breakdown(json_t *rank)
{
	json_t *ov = json_object_get(rank, "comm_comp_overlap_pct");
	char overlap[64];
	if (json_is_number(ov))
		snprintf(overlap, sizeof overlap, "%.2f %% of communication time",
			 json_number_value(ov));
	else
		snprintf(overlap, sizeof overlap, "n/a (no communication)");
	printf("  kernel time %.0f us: idle %.2f %%, compute %.2f %%, non-compute %.2f %%; comm/compute overlap %s\n",
	       json_number_value(json_object_get(rank, "kernel_time_us")),
	       json_number_value(json_object_get(rank, "idle_pct")),
	       json_number_value(json_object_get(rank, "compute_pct")),
	       json_number_value(json_object_get(rank, "non_compute_pct")), overlap);
	printf("  idle: host wait %.1f %%, kernel wait %.1f %%, other %.1f %%\n",
	       json_number_value(json_object_get(rank, "idle_host_wait_pct")),
	       json_number_value(json_object_get(rank, "idle_kernel_wait_pct")),
	       json_number_value(json_object_get(rank, "idle_other_pct")));
}

/* A rank's busy time by kernel type, its launches and top kernels (gpu_breakdown_detail). */
static void print_kernels(json_t *rank)
{
	const char *kname;
	json_t *kv;
	int first = 1;
	json_object_foreach(json_object_get(rank, "kernel_types"), kname, kv) {
		printf("%s%s %.1f %%", first ? "  busy time: " : ", ", kname,
		       json_number_value(json_object_get(kv, "pct")));
		first = 0;
	}
	if (!first)
		printf("\n");
	json_t *l = json_object_get(rank, "launch");
	if (json_integer_value(json_object_get(l, "n")) > 0)
		printf("  launches: %lld, runtime call %.1f us, launch delay mean %.1f us, median %.1f us, %lld over 100 us\n",
		       (long long) json_integer_value(json_object_get(l, "n")),
		       json_number_value(json_object_get(l, "cpu_duration_mean_us")),
		       json_number_value(json_object_get(l, "launch_delay_mean_us")),
		       json_number_value(json_object_get(l, "launch_delay_p50_us")),
		       (long long) json_integer_value(
			       json_object_get(l, "launch_delay_outliers_gt100us")));
	size_t i;
	json_t *k;
	json_array_foreach(json_object_get(rank, "top_kernels"), i, k) {
		char name[72];
		printable(json_string_value(json_object_get(k, "name")), name, sizeof name);
		printf("  %-13s %8.0f us %6lld x  %s\n",
		       json_string_value(json_object_get(k, "category")),
		       json_number_value(json_object_get(k, "total_us")),
		       (long long) json_integer_value(json_object_get(k, "count")), name);
	}
}

/* One rank's line and its breakdown, in text. */
void analyze_traces_print_rank(json_t *rank, int top)
{
	json_t *r = json_object_get(rank, "rank");
	const char *proc = json_string_value(json_object_get(rank, "process"));
	char who[96];
	if (json_is_integer(r))
		snprintf(who, sizeof who, "%s%srank %lld", proc ? proc : "", proc ? ", " : "",
			 (long long) json_integer_value(r));
	else
		snprintf(who, sizeof who, "rank ?");
	long long events = json_integer_value(json_object_get(rank, "gpu_events"));
	printf("%s (%s): %lld GPU event%s\n", json_string_value(json_object_get(rank, "file")), who,
	       events, events == 1 ? "" : "s");
	print_steps(rank, top);
	if (json_object_get(rank, "note")) {
		printf("  %s\n", json_string_value(json_object_get(rank, "note")));
		return;
	}
	json_t *detail = json_object_get(rank, "gpu_breakdown_detail");
	print_breakdown(detail);
	print_kernels(detail);
	long long bad = json_integer_value(json_object_get(rank, "malformed_events"));
	if (bad)
		printf("  skipped %lld malformed event%s (non-finite or negative time)\n", bad,
		       bad == 1 ? "" : "s");
}

void analyze_traces_print_replay(json_t *rep)
{
	json_t *r = json_object_get(rep, "replay");
	if (json_is_object(r))
		printf("replay (the execution graph of every file, unchanged): median step %.3f ms, measured %.3f ms (%+.1f %%) over %lld steps\n",
		       json_real_value(json_object_get(r, "step_ms")),
		       json_real_value(json_object_get(r, "measured_ms")),
		       json_real_value(json_object_get(r, "error_pct")),
		       (long long) json_integer_value(json_object_get(r, "steps")));
	else
		printf("replay: none: %s\n", json_string_value(json_object_get(rep, "replay_why")));
}
