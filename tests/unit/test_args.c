/* Unit tests for the command line: the shared option parser (cmd.h), the
 * options the command flags add, and the exit status of each error code.
 * SPDX-License-Identifier: MIT */
#include "harness.h"

#include "orchestrator/cli/cmd.h"
#include "util/err.h"

#include <fcntl.h>
#include <unistd.h>

static int exec_count;

static int fake_exec(const struct cmd_entry *self, struct args *a)
{
	(void)self;
	(void)a;
	exec_count++;
	return ERR_IO;
}

static const struct cmd_entry demo = {
	"demo", "[--wait] [--count N] [--results DIR] FILE...", "a command for tests",
	CMD_RESULTS, 1, 2, fake_exec, (const struct optdef[]){
		OPT_WAIT,
		{ 'c', "count", "N", "how many" },
		OPT_END },
};

static const struct cmd_entry plain = {
	"plain", "[ARG]", "no options", 0, 0, -1, fake_exec, NULL,
};

/* Runs fn with stdout and stderr sent to /dev/null (usage and errors). */
#define QUIETLY(expr)                                                   \
	({                                                              \
		fflush(stdout);                                         \
		int o_ = dup(1), e_ = dup(2), n_ = open("/dev/null", O_WRONLY); \
		dup2(n_, 1);                                            \
		dup2(n_, 2);                                            \
		int r_ = (expr);                                        \
		fflush(stdout);                                         \
		dup2(o_, 1);                                            \
		dup2(e_, 2);                                            \
		close(o_);                                              \
		close(e_);                                              \
		close(n_);                                              \
		r_;                                                     \
	})

static int parse(const struct cmd_entry *e, struct args *a, int argc, char **argv)
{
	return QUIETLY(args_parse(e, argc, argv, a));
}

static void parses_long_short_inline_and_positionals(void)
{
	struct args a;
	char *argv[] = { "demo", "--count", "3", "-w", "f1", "--results=out", NULL };
	CHECK(parse(&demo, &a, 6, argv) == 0);
	CHECK(args_has(&a, 'w'));
	CHECK_STR(args_get(&a, 'c'), "3");
	CHECK_STR(cmd_results_root(&a), "out");
	CHECK(a.npos == 1);
	CHECK_STR(a.pos[0], "f1");
	CHECK(a.dashdash == -1);
	long n;
	CHECK(args_int(&demo, &a, 'c', 1, 10, 5, &n) == 0 && n == 3);
	CHECK(args_int(&demo, &a, 'x', 1, 10, 5, &n) == 0 && n == 5); /* absent: the default */
	args_free(&a);
}

static void double_dash_keeps_the_rest_verbatim(void)
{
	struct args a;
	char *argv[] = { "plain", "f1", "--", "--wait", "-x", NULL };
	CHECK(parse(&plain, &a, 5, argv) == 0);
	CHECK(!args_has(&a, 'w'));
	CHECK(a.npos == 3 && a.dashdash == 1);
	CHECK_STR(a.pos[1], "--wait");
	args_free(&a);
}

static void refuses_what_it_does_not_know(void)
{
	struct args a;
	char *unknown[] = { "demo", "--nope", "f", NULL };
	CHECK(parse(&demo, &a, 3, unknown) == EXIT_USAGE);
	args_free(&a);
	char *flag_value[] = { "demo", "--wait=yes", "f", NULL };
	CHECK(parse(&demo, &a, 3, flag_value) == EXIT_USAGE);
	args_free(&a);
	char *no_value[] = { "demo", "f", "--count", NULL };
	CHECK(parse(&demo, &a, 3, no_value) == EXIT_USAGE);
	args_free(&a);
	char *missing[] = { "demo", NULL };
	CHECK(parse(&demo, &a, 1, missing) == EXIT_USAGE);
	args_free(&a);
	char *too_many[] = { "demo", "a", "b", "c", NULL };
	CHECK(parse(&demo, &a, 4, too_many) == EXIT_USAGE);
	args_free(&a);
	char *results[] = { "plain", "--results", "x", NULL }; /* no CMD_RESULTS: no --results */
	CHECK(parse(&plain, &a, 3, results) == EXIT_USAGE);
	args_free(&a);
	char *bundled[] = { "demo", "-wc", "f", NULL };
	CHECK(parse(&demo, &a, 3, bundled) == EXIT_USAGE);
	args_free(&a);
}

static void integer_options_are_checked(void)
{
	struct args a;
	long n;
	const char *bad[] = { "0", "11", "3x", "", "99999999999999999999" };
	for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
		char *argv[] = { "demo", "--count", (char *)bad[i], "f", NULL };
		CHECK(parse(&demo, &a, 4, argv) == 0);
		CHECK(QUIETLY(args_int(&demo, &a, 'c', 1, 10, 5, &n)) == EXIT_USAGE);
		args_free(&a);
	}
}

static void help_is_not_an_error(void)
{
	struct args a;
	char *argv[] = { "demo", "--help", NULL };
	CHECK(parse(&demo, &a, 2, argv) == -1);
	args_free(&a);
	exec_count = 0;
	CHECK(QUIETLY(cmd_dispatch(&demo, 2, argv)) == EXIT_OK && exec_count == 0);
}

static void dispatch_maps_error_codes_to_exit_statuses(void)
{
	char *argv[] = { "demo", "f", NULL };
	exec_count = 0;
	err_set(ERR_IO, "disk full");
	CHECK(QUIETLY(cmd_dispatch(&demo, 2, argv)) == EXIT_IO && exec_count == 1);
	CHECK(cmd_exit_of(0) == EXIT_OK);
	CHECK(cmd_exit_of(ERR_USAGE) == EXIT_USAGE);
	CHECK(cmd_exit_of(ERR_NOTFOUND) == EXIT_NOTFOUND);
	CHECK(cmd_exit_of(ERR_BACKEND) == EXIT_BACKEND);
	CHECK(cmd_exit_of(ERR_GENERIC) == EXIT_INTERNAL);
	CHECK(cmd_exit_of(-99) == EXIT_INTERNAL);
}

static void a_run_command_that_finds_no_run_fails_before_exec(void)
{
	static const struct cmd_entry runcmd = { "runcmd", "RUN", "needs a run", CMD_RUN,
						 1,        1,     fake_exec,     NULL };
	char *argv[] = { "runcmd", "--results", "/nonexistent-results", "no-such-run", NULL };
	exec_count = 0;
	CHECK(QUIETLY(cmd_dispatch(&runcmd, 4, argv)) == EXIT_NOTFOUND && exec_count == 0);
	CHECK(strstr(err_last(), "no run 'no-such-run' under /nonexistent-results") != NULL);
}

int main(void)
{
	RUN(parses_long_short_inline_and_positionals);
	RUN(double_dash_keeps_the_rest_verbatim);
	RUN(refuses_what_it_does_not_know);
	RUN(integer_options_are_checked);
	RUN(help_is_not_an_error);
	RUN(dispatch_maps_error_codes_to_exit_statuses);
	RUN(a_run_command_that_finds_no_run_fails_before_exec);
	HARNESS_END();
}
