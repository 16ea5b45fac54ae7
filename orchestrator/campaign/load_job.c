/* load_job: the tables of what every job is and runs: slurm (the sbatch options), workload
 * (the command, its env, setup and params, the launcher) and profile (the profilers and the
 * monitor), with the loaders of their own values.
 * SPDX-License-Identifier: MIT */
#include "load_internal.h"

#include "jobspec.h"
#include "util/quote.h"
#include "util/strbuf.h"
#include "orchestrator/campaign/prose.h"

#include <stdlib.h>
#include <string.h>

static void load_extra(struct loader *L, yaml_node_t *v, const char *path, void *at)
{
	struct argv *extra = at;
	if (as_list(L, v, path, extra) < 0)
		return;
	for (size_t i = 0; i < extra->n; i++) {
		const char *e = extra->v[i], *val;
		char list[256];
		if (strncmp(e, "--", 2) || !is_safe_token(e + 2))
			problem(L, v, path,
				"\"%.64s\" is not an sbatch long option of safe characters (e.g. --exclusive, --mem=0)",
				e);
		else if (job_spec_extra(e, &val) < 0)
			problem(L, v, path,
				"\"%.64s\" is not an option campaign passes on (supported: %s; the job's output, name, nodes, tasks and time are campaign's)",
				e, job_spec_extras(list, sizeof list));
	}
}

const struct key_spec slurm_keys[] = {
	{ "account", KEY_LOAD, .off = AT(slurm.account), .load = load_token,
	  .doc = { "sbatch token", NULL,
		   "`#SBATCH --account`; omitted when absent; `SBATCH_ACCOUNT` in the submitting environment wins" } },
	{ "partition", KEY_LOAD, .off = AT(slurm.partition), .load = load_token,
	  .doc = { "sbatch token", NULL,
		   "`#SBATCH --partition`; omitted when absent; `SBATCH_PARTITION` in the submitting environment wins" } },
	{ "qos", KEY_LOAD, .off = AT(slurm.qos), .load = load_token,
	  .doc = { "sbatch token", NULL,
		   "`#SBATCH --qos`; omitted when absent; `SBATCH_QOS` in the submitting environment wins" } },
	{ "time", KEY_LOAD, .off = AT(slurm.time), .load = load_time, .str_def = "00:30:00",
	  .pass = 1, .doc = { "SLURM time", NULL, "time limit of every scenario" } },
	{ "constraint", KEY_LOAD, .off = AT(slurm.constraint), .load = load_token,
	  .doc = { "sbatch token", NULL,
		   "`#SBATCH --constraint`; omitted when absent; `SBATCH_CONSTRAINT` in the submitting environment wins" } },
	{ "extra", KEY_LOAD, .off = AT(slurm.extra), .load = load_extra, .pass = 2,
	  .doc = { "list", "`[]`", PROSE_KEY_SLURM_EXTRA } },
	{ "exclusive", KEY_BOOL, 0, 0, 1, AT(slurm.exclusive), .pass = 1,
	  .doc = { NULL, NULL, PROSE_KEY_SLURM_EXCLUSIVE } },
	KEYS_END
};

static void load_launcher(struct loader *L, yaml_node_t *v, const char *path, void *at)
{
	int *per_node = at;
	char *launcher = NULL;
	if (as_string(L, v, path, &launcher) == 0) {
		if (!strcmp(launcher, "per-node"))
			*per_node = 1;
		else if (strcmp(launcher, "ranks"))
			problem(L, v, path,
				PROSE_LAUNCHER_NOT_KNOWN,
				launcher);
	}
	free(launcher);
}

static void load_command(struct loader *L, yaml_node_t *v, const char *path, void *at)
{
	if (as_command(L, v, path, at) == 0)
		no_literal_vars(L, v, path, at);
}

static void load_setup(struct loader *L, yaml_node_t *v, const char *path, void *at)
{
	struct campaign *c = L->c;
	struct argv lines = { 0 };
	(void)at;
	if (as_list(L, v, path, &lines) == 0) {
		c->workload.setup = xcalloc(lines.n, sizeof *c->workload.setup);
		for (size_t i = 0; i < lines.n; i++) {
			const char *why;
			struct argv *w = &c->workload.setup[c->workload.n_setup];
			if (words_split(lines.v[i], w, &why) < 0)
				problem(L, v, path, "line %zu: %s", i + 1, why);
			else if (w->n > 0)
				c->workload.n_setup++;
		}
	}
	argv_free(&lines);
}

const struct key_spec workload_keys[] = {
	{ "command", KEY_LOAD, .off = AT(workload.command), .load = load_command, .pass = 1,
	  .doc = { "string or list", "the reference trainer (below)",
		   PROSE_KEY_WORKLOAD_COMMAND } },
	{ "env", KEY_LOAD, .off = AT(workload.env), .load = load_env, .pass = 1,
	  .doc = { "map", "`{}`", PROSE_KEY_WORKLOAD_ENV } },
	{ "setup", KEY_LOAD, .load = load_setup, .pass = 2,
	  .doc = { "list of strings", "`[]`",
		   "commands run once per job before the ranks start; a failing one ends the job" } },
	{ "params", KEY_LOAD, .off = AT(workload.params), .load = load_params, .pass = 1,
	  .doc = { "map", "`{}`", "values for `{{placeholders}}`" } },
	{ "launcher", KEY_LOAD, .off = AT(workload.per_node), .load = load_launcher,
	  .doc = { "`ranks` or `per-node`", "`ranks`", PROSE_KEY_WORKLOAD_LAUNCHER } },
	KEYS_END
};

static void load_traces(struct loader *L, yaml_node_t *v, const char *path, void *at)
{
	struct argv *traces = at;
	if (v->type == YAML_SCALAR_NODE) {
		const char *g = scalar(L, v, path, "a glob or a list of globs");
		if (g)
			argv_push(traces, g);
	} else {
		as_list(L, v, path, traces);
	}
}

static void load_capture_range(struct loader *L, yaml_node_t *v, const char *path, void *at)
{
	char **range = at;
	if (as_string(L, v, path, range) == 0 && strcmp(*range, "nvtx") &&
	    strcmp(*range, "cudaProfilerApi") && strcmp(*range, "none"))
		problem(L, v, path, "must be none, nvtx or cudaProfilerApi");
}

static const struct key_spec monitor_keys[] = {
	{ "enabled", KEY_BOOL, .off = AT(profile.monitor),
	  .doc = { NULL, "`true`",
		   "whether the monitor runs (a mapping without it turns it on)" } },
	{ "interval_ms", KEY_INT, 10, 3600000, 500, AT(profile.monitor_interval_ms),
	  .doc = { "10–3600000", NULL,
		   "milliseconds between two samples (`{{monitor_interval_ms}}`)" } },
	KEYS_END
};

static const struct key_spec nsys_keys[] = {
	{ "enabled", KEY_BOOL, .off = AT(profile.nsys),
	  .doc = { NULL, "`true`", "whether nsys runs (a mapping without it turns it on)" } },
	{ "trace", KEY_LOAD, .off = AT(profile.nsys_trace), .load = load_token, .pass = 1,
	  .doc = { "sbatch token", "nsys's (`cuda,nvtx,osrt`)",
		   "what `nsys profile --trace` records" } },
	{ "capture_range", KEY_LOAD, .off = AT(profile.nsys_capture_range), .pass = 1,
	  .load = load_capture_range,
	  .doc = { "`none`, `nvtx` or `cudaProfilerApi`", "`none`",
		   "`nvtx` or `cudaProfilerApi`: nsys records only the ranges the workload marks so (`nsys profile --capture-range`)" } },
	{ "required", KEY_BOOL, .off = AT(profile.nsys_required),
	  .doc = { NULL, NULL,
		   "`true`: on a node without nsys the ranks do not run and the job fails (else the job log says so once and the ranks run without it)" } },
	KEYS_END
};

static const struct key_spec perf_keys[] = {
	{ "enabled", KEY_BOOL, .off = AT(profile.perf),
	  .doc = { NULL, "`true`", "whether perf runs (a mapping without it turns it on)" } },
	{ "required", KEY_BOOL, .off = AT(profile.perf_required),
	  .doc = { NULL, NULL,
		   "`true`: on a node without perf the ranks do not run and the job fails (else the job log says so once and the ranks run without it)" } },
	KEYS_END
};

static void load_plugin(struct loader *L, yaml_node_t *v, const char *path, void *at)
{
	char **plugin = at;
	if (as_string(L, v, path, plugin) == 0 && !(*plugin)[0])
		problem(L, v, path,
			"must name the plugin's library (libnccl-profiler-inspector.so, a path or $VAR/...), or be left out to find it on the node");
}

static const struct key_spec inspector_keys[] = {
	{ "enabled", KEY_BOOL, .off = AT(profile.inspector),
	  .doc = { NULL, "`true`",
		   "whether the Inspector runs (a mapping without it turns it on)" } },
	{ "plugin", KEY_LOAD, .off = AT(profile.inspector_plugin), .load = load_plugin,
	  .doc = { "path or library name", "found on the node",
		   PROSE_KEY_INSPECTOR_PLUGIN } },
	{ "verbose", KEY_BOOL, .off = AT(profile.inspector_verbose),
	  .doc = { NULL, NULL,
		   "`NCCL_INSPECTOR_DUMP_VERBOSE`: the kernels' start and stop times too" } },
	{ "interval_us", KEY_INT, 1, 2000000000, 500, AT(profile.inspector_interval_us),
	  .doc = { "µs ≥ 1", NULL,
		   PROSE_KEY_INSPECTOR_INTERVAL_US } },
	{ "required", KEY_BOOL, .off = AT(profile.inspector_required),
	  .doc = { NULL, NULL,
		   PROSE_KEY_INSPECTOR_REQUIRED } },
	KEYS_END
};

const struct key_spec profile_keys[] = {
	{ "warmup_steps", KEY_INT, 0, BOUND_STEPS, 5, AT(profile.warmup_steps),
	  .doc = { NULL, NULL, "steps excluded from the analysis" } },
	{ "active_steps", KEY_INT, 1, BOUND_STEPS, 20, AT(profile.active_steps),
	  .doc = { NULL, NULL, "steps analysed" } },
	{ "monitor", KEY_SWITCH, .off = AT(profile.monitor), .sub = monitor_keys,
	  .doc = { NULL, "off",
		   "run `campaign-monitor` on every node of every job (CPU, memory, disk, network; GPUs when present) into `<scenario>/monitor/<node>/`" } },
	{ "nsys", KEY_SWITCH, .off = AT(profile.nsys), .sub = nsys_keys,
	  .doc = { NULL, "off",
		   "every rank under `nsys profile` into `<scenario>/nsys/rank_<r>.nsys-rep`, exported to `rank_<r>.sqlite`" } },
	{ "perf", KEY_SWITCH, .off = AT(profile.perf), .sub = perf_keys,
	  .doc = { NULL, "off",
		   "every rank under `perf stat` into `<scenario>/perf/rank_<r>.txt`; counters go to the scenario's analysis" } },
	{ "nccl_inspector", KEY_SWITCH, .off = AT(profile.inspector), .sub = inspector_keys,
	  .doc = { NULL, "off", PROSE_KEY_PROFILE_NCCL_INSPECTOR } },
	{ "traces", KEY_LOAD, .off = AT(profile.traces), .load = load_traces,
	  .doc = { "glob or list of globs", NULL, PROSE_KEY_PROFILE_TRACES } },
	{ "hang_timeout", KEY_INT, 0, 100000000, 600, AT(profile.hang_timeout_s),
	  .doc = { "seconds ≥ 0", NULL, PROSE_KEY_HANG_TIMEOUT } },
	KEYS_END
};
