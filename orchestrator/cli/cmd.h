/* cmd: the command table's types and the one option parser every command
 * uses, so usage, --help and errors for bad flags look the same everywhere.
 * Each cmd_<name>.c exports one const struct cmd_entry; main.c lists them,
 * opens the run of a CMD_RUN command before its exec and closes it after.
 * SPDX-License-Identifier: MIT */
#ifndef CAMPAIGN_CMD_H
#define CAMPAIGN_CMD_H

#include <stdio.h>

/* Exit statuses, documented in `campaign --help`. */
enum {
	EXIT_OK = 0,
	EXIT_JOBS_FAILED = 1,  /* the run finished but a job did not complete */
	EXIT_USAGE = 2,        /* bad command line or invalid campaign file */
	EXIT_NOTFOUND = 3,     /* no such run, scenario or file */
	EXIT_IO = 4,           /* file system or state store failure */
	EXIT_BACKEND = 5,      /* scheduler or executor failure */
	EXIT_INTERNAL = 70,    /* a bug: please report it */
};

struct optdef {
	char id;              /* key for args_get(); also the short option */
	const char *name;     /* long option name */
	const char *argname;  /* NULL for a flag */
	const char *help;
};

/* Options several commands share, declared once. --results needs no entry:
 * every command with CMD_RUN or CMD_RESULTS takes it (id 'R'). */
#define OPT_WAIT                                                                                   \
	{                                                                                          \
		'w', "wait", NULL,                                                                 \
			"return when the run is finished and analysed (exit 1 if a job failed)"    \
	}
#define OPT_NO_AGGREGATION_JOB                                                                     \
	{                                                                                          \
		'n', "no-aggregation-job", NULL,                                                   \
			"slurm: submit no aggregation job (status/watch/aggregate analyse "        \
			"instead)"                                                                 \
	}
#define OPT_BACKEND { 'b', "backend", "NAME", "auto (default), local or slurm" }
#define OPT_JSON(help) { 'j', "json", NULL, help }
#define OPT_DIR(help) { 'd', "dir", "JOB_DIR", help }
#define OPT_END { 0, NULL, NULL, NULL }

enum cmd_flags {
	CMD_RESULTS = 1 << 0,     /* takes --results DIR (default ./results) */
	CMD_RUN = 1 << 1,         /* its first argument is a RUN (id or directory), opened
				   * before exec into args.run; implies CMD_RESULTS */
	CMD_RUN_NEWEST = 1 << 2,  /* with CMD_RUN: RUN may be left out for the newest run */
	CMD_NODE = 1 << 3,        /* run inside jobs, not by users: listed by `help --all` only */
	CMD_RUN_SCENARIO = 1 << 4, /* with CMD_RUN_NEWEST: a lone argument that names no run is
				    * a scenario of the newest run (naming a run, it is the run) */
	CMD_OUTLIVES_OUTPUT = 1 << 5, /* submits, and may wait: its terminal going away
				       * (SIGHUP) or its output's reader (a closed pipe) stops
				       * the printing, never the work (util/hangup.h) */
};

struct run;

#define ARGS_MAX_POS 64

struct args {
	const char *val[128]; /* by optdef id; flags hold "" when set */
	int npos;
	char **pos;           /* positional arguments (after "--" too) */
	int dashdash;         /* index in pos of the first word after "--", or -1 */
	struct run *run;      /* CMD_RUN: the opened run (closed by the dispatcher) */
	int nrun;             /* CMD_RUN: 1 when pos[0] named the run, 0 when it is the newest */
};

/* exec returns an exit status, or a negative err.h code that the dispatcher
 * reports with err_last(). */
struct cmd_entry {
	const char *name;
	const char *usage;    /* what follows the name, e.g. "[--out DIR] FILE" */
	const char *summary;  /* one line */
	int flags;            /* enum cmd_flags */
	int min_pos, max_pos; /* positional argument count; max -1: any */
	int (*exec)(const struct cmd_entry *self, struct args *a);
	const struct optdef *opts; /* terminated by OPT_END; NULL for none */
};

/* Parses argv (argv[0] is the command name). Prints a message and returns
 * EXIT_USAGE on a bad option; returns -1 when --help was printed. */
int args_parse(const struct cmd_entry *e, int argc, char **argv, struct args *a);
void args_free(struct args *a);
/* Parses, opens the run of a CMD_RUN command, runs exec, reports a negative
 * code, and frees: what main() does with the command named by argv[0]. */
int cmd_dispatch(const struct cmd_entry *e, int argc, char **argv);
const char *args_get(const struct args *a, char id);
int args_has(const struct args *a, char id);
/* Parses an option as an integer in [min, max]; prints an error on failure. */
int args_int(const struct cmd_entry *e, const struct args *a, char id, long min, long max,
	     long dflt, long *out);
void cmd_usage(const struct cmd_entry *e, FILE *out);
/* A command's options: which 0 its own, 1 those its flags give it (--results
 * ...); NULL when none. Each list ends with OPT_END. */
const struct optdef *cmd_opt_list(const struct cmd_entry *e, int which);
/* The exit status of an err.h code; EXIT_INTERNAL for a code it does not know. */
int cmd_exit_of(int code);

struct campaign;
/* Loads a campaign file, printing every problem; EXIT_USAGE when invalid. */
int cmd_load_campaign(const char *file, struct campaign *c);
/* Prints "campaign VERB [--results DIR] RUN_ID" (what to type next). */
void cmd_print_run_command(FILE *out, const struct args *a, const char *verb, const char *run_id);
struct run;
struct backend_ops;
/* Submits a run just created (submit, try) through be; without wait says how
 * to follow it, with wait follows it to its end. On a failure says (as who)
 * what was kept and how to go on, and returns the err.h code (< 0); else the
 * run's exit status (EXIT_OK, or EXIT_JOBS_FAILED after a wait). */
int cmd_start_run(const char *who, const struct args *a, struct run *r,
		  const struct backend_ops *be, int wait);
/* The --results option or its default, ./results. */
const char *cmd_results_root(const struct args *a);
/* The store journal the command asks for: --store-journal, else
 * CAMPAIGN_STORE_JOURNAL (how job processes inherit it), else NULL. */
const char *cmd_journal(const struct args *a);

#endif
