/* campaign: the in-memory model of a campaign file after validation, with
 * every default applied and the matrix expanded into concrete scenarios.
 * Loading (libyaml) lives in campaign_load.c and load_*.c; this module owns
 * the types, defaults, placeholder names and freeing. It knows nothing of
 * backends.
 * SPDX-License-Identifier: MIT */
#ifndef CAMPAIGN_CAMPAIGN_H
#define CAMPAIGN_CAMPAIGN_H

#include "diag.h"
#include "analyzers/bounds.h"
#include "analyzers/thresholds.h"
#include "util/words.h"

#include <stddef.h>
#include <stdio.h>

/* the bounds the analysis checks its input against too (analyzers/bounds.h) */
#define CAMPAIGN_MAX_SCENARIOS BOUND_SCENARIOS
#define CAMPAIGN_MAX_NODES BOUND_NODES
#define CAMPAIGN_MAX_TASKS_PER_NODE BOUND_TASKS_PER_NODE /* a scenario's, and what a knob may set */
/* a scenario's backend when it names none (the default of its key) */
#define CAMPAIGN_DEFAULT_BACKEND "gloo"

/* In an env list, value NULL is a variable passed through from the submitting
 * environment ({ from_env: true }): its value is never written anywhere. */
struct kv {
	char *key, *value;
};

struct kvlist {
	struct kv *items;
	size_t n;
};

struct scenario {
	char *name;
	int nodes, tasks_per_node, gpus_per_node;
	char *backend;      /* "gloo" or "nccl" */
	char *time;         /* SLURM time string */
	long time_limit_s;  /* 0: unlimited */
	struct kvlist env;    /* workload env, then the scenario's own */
	struct kvlist params; /* workload params, scenario params, matrix values */
	/* the scenario's analysis: samples per rank / in all per step; 0 = campaign's */
	int batch_per_rank, global_batch;
	int line, col;
	int probe;            /* a fabric probe (analysis.fabric_probe), not a training scenario */
	struct argv command;  /* its own command (probes); empty: workload.command */
};

/* A knob: the change that acts on a recommendation of one kind (knobs:
 * <kind>: {...}), in the terms the campaign has; or, as `variant:`, the
 * change applied to every scenario of this run (campaign try writes it). */
struct knob {
	char *kind;           /* a recommendation kind (summary.json), e.g. "communication" */
	struct kvlist params; /* set in every scenario */
	struct kvlist env;
	int tasks_per_node;   /* 0: unchanged */
	int batch_per_rank;   /* analysis.batch_per_rank of every scenario; 0: unchanged */
	/* loader: what a data_loading knob makes of a user's DataLoader (its worker processes
	 * and prefetch factor, for the replay's prediction); 0: not said */
	int loader_workers, loader_prefetch;
	int line, col;
};

/* Fabric probes are scenarios named FABRIC_PROBE_PREFIX<backend>-<N>n; no
 * user scenario may take the prefix. */
#define FABRIC_PROBE_PREFIX "fabric-probe-"

struct campaign {
	char *path; /* file it was loaded from */
	/* the file whose folder {{campaign_dir}} names when it is not path (a variant keeps
	 * its parent's campaign file's folder); NULL: path */
	char *origin;
	char *name, *description;
	/* env values with secret-looking names may be written literally (they are refused) */
	int allow_literal_secrets;
	/* auto, wal or delete: the state store's journal at submit; NULL: auto */
	char *store_journal;
	struct {
		char *account, *partition, *qos, *time, *constraint;
		struct argv extra;
		int exclusive; /* scenario jobs get their nodes to themselves (default 1) */
	} slurm;
	struct {
		struct argv command;
		struct kvlist env, params;
		struct argv *setup; /* each line split into words */
		size_t n_setup;
		/* launcher: per-node (one process per node starts the ranks: torchrun) */
		int per_node;
	} workload;
	struct {
		int warmup_steps, active_steps;
		int monitor, monitor_interval_ms;
		/* a running job silent this long is reported possibly hung (0: never) */
		int hang_timeout_s;
		int nsys, perf;
		char *nsys_trace, *nsys_capture_range; /* NULL: nsys defaults */
		int nsys_required, perf_required;
		/* profile.nccl_inspector: NCCL's Inspector profiler plugin in every rank,
		 * dumping into <job>/nccl_inspector/; plugin NULL: found on the node */
		int inspector, inspector_verbose, inspector_required, inspector_interval_us;
		char *inspector_plugin;
		struct argv traces; /* globs of the workload's own trace files */
	} profile;
	struct scenario *scenarios;
	size_t n_scenarios;
	struct knob *knobs;  /* knobs:, in file order */
	size_t n_knobs;
	struct knob variant; /* variant: (kind NULL: none), applied to every scenario */
	char *variant_of;    /* variant.of: the run it varies */
	/* bisect: (campaign bisect, in a tested commit's campaign.yaml): the one scenario it
	 * runs, with active_steps (0: the profile's) */
	struct {
		char *of, *commit, *scenario;
		int active_steps;
	} bisect;
	struct {
		char *baseline;
		struct ana_thresholds th; /* analysis.thresholds (analyzers/thresholds.h) */
		double peak_gflops; /* per rank (GPU or CPU rank), for MFU; 0 = unknown */
		/* cores of each node for the replay; 0: the local machine's online CPUs */
		int cores_per_node;
		struct argv phase_names, phase_patterns; /* analysis.phase_rules, in order */
		/* PCRE2 with named groups step, step_ms (loss, samples); NULL: none */
		char *step_log;
		/* samples per rank and step, for traces and step logs; 0 = unknown */
		int batch_per_rank;
		int global_batch;   /* samples per step over all ranks; 0 = unknown */
		char *scaling;      /* "weak", "strong" or NULL (from the batches, else unknown) */
		/* of the SLURM aggregation job (default 1); > 1: the per-file work is mapped
		 * over them */
		int nodes;
		int cpus_per_task;  /* of each of its tasks; 0: SLURM's default */
		int fabric_probe;   /* a fabric probe job per node count and backend */
	} analysis;
};

/* Loads and validates FILE. On problems returns ERR_USAGE with every problem
 * in *d (the caller prints them); nothing is allocated in *c then. */
int campaign_load(const char *file, struct campaign *c, struct diags *d);
/* Same, from a buffer (name is used in messages). */
int campaign_load_buffer(const char *name, const char *data, size_t len,
			 struct campaign *c, struct diags *d);
void campaign_free(struct campaign *c);
/* docs/campaign-format.md's key tables (markdown, between their markers), written from
 * the loader's key tables: `campaign help --keys`. */
void campaign_keys_doc(FILE *out);
const struct scenario *campaign_find(const struct campaign *c, const char *name);
/* c with scenario i alone (the others freed). */
void campaign_keep_scenario(struct campaign *c, size_t i);
/* The knob for recommendations of kind; NULL when the campaign has none. */
const struct knob *campaign_knob(const struct campaign *c, const char *kind);
/* Applies k to every scenario but fabric probes. */
void knob_apply(struct campaign *c, const struct knob *k);
/* Whether applying k would change some scenario (a param, an env value,
 * tasks_per_node or batch_per_rank differs). */
int knob_changes(const struct campaign *c, const struct knob *k);
void knob_free(struct knob *k);

/* Parses a SLURM time limit (M, M:S, H:M:S, D-H, D-H:M, D-H:M:S, UNLIMITED). */
int slurm_time_parse(const char *s, long *seconds);

/* Placeholder names every command may use whatever its params. */
/* A SLURM value as sbatch would take it: the environment's SBATCH_<X> over
 * the campaign's (used for the rendered #SBATCH lines and for libslurm's
 * job description alike, so the kept script states what was submitted). */
const char *campaign_sbatch_env(const char *var, const char *value);
int placeholder_is_builtin(const char *name);
/* Whether word i of a command (workload.command, a setup line) is exactly one param
 * placeholder, which renders as the words of the param's value (none when it is empty),
 * split as words_split does: its name goes in name (n bytes). A built-in never splits,
 * nor a word quoted in a command string ('{{x}}', "{{x}}"); a list item is a word as
 * given, so one that is exactly {{x}} splits as in the string form. */
int placeholder_splits(const struct argv *w, size_t i, char *name, size_t n);
/* The entry of key, or NULL when l has none (a NULL value: passed through). */
struct kv *kvlist_find(const struct kvlist *l, const char *key);
const char *kvlist_get(const struct kvlist *l, const char *key);
/* Sets key (replacing an existing value); value NULL: passed through. */
void kvlist_set(struct kvlist *l, const char *key, const char *value);
void kvlist_free(struct kvlist *l);
void kvlist_copy(struct kvlist *dst, const struct kvlist *src);
/* "NAME, NAME" of the env variables of c's scenarios passed through from the
 * submitting environment that are not set in this one (each once); NULL when
 * none is missing. malloc'ed. */
char *campaign_env_missing(const struct campaign *c);
/* Whether any scenario of c passes a variable through. */
int campaign_has_env_from(const struct campaign *c);

#endif
