/* cmd: the command table's types and the one option parser every command
 * uses, so usage, --help and errors for bad flags look the same everywhere.
 * Each cmd_<name>.c exports one const struct cmd_entry; main.c lists them. */
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

#define ARGS_MAX_POS 64

struct args {
	const char *val[128]; /* by optdef id; flags hold "" when set */
	int npos;
	char **pos;           /* positional arguments (after "--" too) */
	int dashdash;         /* index in pos of the first word after "--", or -1 */
};

struct cmd_entry {
	const char *name;
	const char *usage;    /* what follows the name, e.g. "[--out DIR] FILE" */
	const char *summary;  /* one line */
	const struct optdef *opts; /* terminated by an entry with id 0 */
	int min_pos, max_pos; /* positional argument count; max -1: any */
	int (*exec)(const struct cmd_entry *self, struct args *a);
};

/* Parses argv (argv[0] is the command name). Prints a message and returns
 * EXIT_USAGE on a bad option; returns -1 when --help was printed. */
int args_parse(const struct cmd_entry *e, int argc, char **argv, struct args *a);
const char *args_get(const struct args *a, char id);
int args_has(const struct args *a, char id);
/* Parses an option as an integer in [min, max]; prints an error on failure. */
int args_int(const struct cmd_entry *e, const struct args *a, char id, long min, long max, long dflt, long *out);
void cmd_usage(const struct cmd_entry *e, FILE *out);
/* Maps an err.h code to an exit status and prints err_last() with a prefix. */
int cmd_fail(const struct cmd_entry *e, int code);
int cmd_exit_of(int code);

struct campaign;
/* Loads a campaign file, printing every problem; EXIT_USAGE when invalid. */
int cmd_load_campaign(const char *file, struct campaign *c);
/* Prints "campaign VERB [--results DIR] RUN_ID" (what to type next). */
void cmd_print_run_command(FILE *out, const struct args *a, const char *verb, const char *run_id);
/* The --results option or its default, ./results. */
const char *cmd_results_root(const struct args *a);

#endif
