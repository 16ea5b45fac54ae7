/* Unit tests of the SQLite state store: intents, transitions, attempts, and
 * several processes writing one store at once. */
#include "harness.h"

#include "store.h"

#include <sys/wait.h>
#include <unistd.h>

static char dir[] = "/tmp/campaign-store-XXXXXX";

static struct store *fresh(const char *name)
{
	char path[256];
	snprintf(path, sizeof path, "%s/%s", dir, name);
	struct store *st = NULL;
	CHECK(store_open(path, &st) == 0);
	return st;
}

static void test_lifecycle(void)
{
	struct store *st = fresh("a.db");
	struct run_row row = { .run_id = "r1", .campaign = "c", .run_dir = "/x", .backend = "local", .created_at = 1 };
	CHECK(store_run_create(st, &row) == 0);
	int att = 0;
	CHECK(store_job_plan(st, "s1", 2, 4, &att) == 0 && att == 1);
	CHECK(store_job_plan(st, "s2", 1, 2, &att) == 0 && att == 1);
	CHECK(store_job_submitted(st, "s1", 1, "42") == 0);
	CHECK(store_job_update(st, "s1", 1, JS_RUNNING, NULL, -1, "n[1-2]", "x") == 0);
	CHECK(store_job_update(st, "s1", 1, JS_RUNNING, NULL, -1, NULL, "again") == 0); /* no new transition */
	CHECK(store_job_update(st, "s1", 1, JS_FAILED, "exit status 3", 3, NULL, "end") == 0);
	CHECK(store_job_plan(st, "s1", 2, 4, &att) == 0 && att == 2);
	struct job_row *rows;
	size_t n;
	CHECK(store_jobs_latest(st, &rows, &n) == 0 && n == 2);
	if (n == 2) {
		CHECK_STR(rows[0].scenario, "s1");
		CHECK(rows[0].attempt == 2 && rows[0].state == JS_PLANNED);
		CHECK_STR(rows[1].scenario, "s2");
	}
	job_rows_free(rows, n);
	struct transition_row *tr;
	CHECK(store_transitions(st, &tr, &n) == 0);
	CHECK(n == 6);
	if (n == 6) {
		CHECK_STR(tr[2].to, "PENDING");
		CHECK_STR(tr[3].from, "PENDING");
		CHECK_STR(tr[3].to, "RUNNING");
		CHECK_STR(tr[4].to, "FAILED");
		CHECK(tr[5].attempt == 2);
	}
	transition_rows_free(tr, n);
	store_close(st);
}

/* Four processes each move 50 jobs through three states at once: every
 * transition must land and none may fail with "database is locked". */
static void test_concurrent_writers(void)
{
	struct store *st = fresh("b.db");
	for (int i = 0; i < 200; i++) {
		char name[32];
		int att;
		snprintf(name, sizeof name, "s%03d", i);
		store_job_plan(st, name, 1, 1, &att);
	}
	store_close(st);
	pid_t kids[4];
	for (int k = 0; k < 4; k++) {
		kids[k] = fork();
		if (kids[k] == 0) {
			struct store *s2;
			char path[256];
			snprintf(path, sizeof path, "%s/b.db", dir);
			if (store_open(path, &s2) < 0)
				_exit(1);
			int bad = 0;
			for (int i = k; i < 200; i += 4) {
				char name[32];
				snprintf(name, sizeof name, "s%03d", i);
				bad |= store_job_submitted(s2, name, 1, "1") < 0;
				bad |= store_job_update(s2, name, 1, JS_RUNNING, NULL, -1, NULL, NULL) < 0;
				bad |= store_job_update(s2, name, 1, JS_COMPLETED, NULL, 0, NULL, NULL) < 0;
			}
			store_close(s2);
			_exit(bad);
		}
	}
	for (int k = 0; k < 4; k++) {
		int status;
		waitpid(kids[k], &status, 0);
		CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	}
	st = fresh("b.db");
	struct transition_row *tr;
	size_t n;
	CHECK(store_transitions(st, &tr, &n) == 0 && n == 800);
	transition_rows_free(tr, n);
	store_close(st);
}

int main(void)
{
	if (!mkdtemp(dir))
		return 1;
	RUN(test_lifecycle);
	RUN(test_concurrent_writers);
	char cmd[300];
	snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
	if (system(cmd) != 0)
		return 1;
	HARNESS_END();
}
