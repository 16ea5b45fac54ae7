/* hostlock: the local executor's machine lock. Its folder: made private, and one that
 * others could use, a link or a relative path refused, saying what to do; two holders
 * (two open files, as two supervisors have) exclude each other, the holder is named
 * while it holds the lock and gone after, and a waiter is seen until it takes it.
 * SPDX-License-Identifier: MIT */
#include "harness.h"

#include "orchestrator/backend/hostlock.h"
#include "util/err.h"

#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static char base[] = "/tmp/test_hostlock.XXXXXX";

static int open_in(const char *dir, struct hostlock *h)
{
	setenv(HOSTLOCK_DIR_ENV, dir, 1);
	return hostlock_open(h);
}

static void folder_made_private(void)
{
	char dir[300];
	struct hostlock h;
	struct stat st;
	snprintf(dir, sizeof dir, "%s/made", base);
	CHECK(open_in(dir, &h) == 0);
	CHECK(stat(dir, &st) == 0 && (st.st_mode & 0777) == 0700);
	hostlock_close(&h);
}

static void folder_refused(void)
{
	char dir[300], link[300];
	struct hostlock h;
	snprintf(dir, sizeof dir, "%s/open", base);
	mkdir(dir, 0700);
	chmod(dir, 0770);
	CHECK(open_in(dir, &h) == ERR_IO);
	CHECK(strstr(err_last(), "has mode 0770: group or others may use it; `chmod 700 ") != NULL);
	snprintf(link, sizeof link, "%s/link", base);
	CHECK(symlink(dir, link) == 0);
	CHECK(open_in(link, &h) == ERR_IO);
	CHECK(strstr(err_last(), "is not a folder (a link?)") != NULL);
	CHECK(open_in("relative/lock", &h) == ERR_USAGE);
	CHECK_STR(err_last(),
		  "CAMPAIGN_LOCK_DIR is 'relative/lock': it must be an absolute path (the local executor's supervisor may run from another folder)");
}

static void two_holders(void)
{
	char dir[300], who[300];
	struct hostlock a, b;
	snprintf(dir, sizeof dir, "%s/two", base);
	CHECK(open_in(dir, &a) == 0 && open_in(dir, &b) == 0);
	CHECK(hostlock_try(&a, "RUN-A", "sc-1") == 1);
	CHECK(hostlock_try(&b, "RUN-B", "sc-2") == 0);
	hostlock_holder(&b, who, sizeof who);
	CHECK_STR(who, "RUN-A/sc-1");
	/* a waiter in another process is seen; one in this process is not another */
	hostlock_want(&b);
	CHECK(!hostlock_others_wait(&a));
	hostlock_release(&a);
	hostlock_holder(&b, who, sizeof who);
	CHECK_STR(who, "");
	CHECK(hostlock_try(&b, "RUN-B", "sc-2") == 1);
	CHECK(!b.wants); /* its want file went with the taking */
	CHECK(hostlock_try(&a, "RUN-A", "sc-1") == 0);
	hostlock_close(&b);
	CHECK(hostlock_try(&a, "RUN-A", "sc-1") == 1);
	hostlock_close(&a);
}

/* a want file of a process that is gone is removed; a live one counts */
static void waiters(void)
{
	char dir[300], path[400];
	struct hostlock a;
	snprintf(dir, sizeof dir, "%s/want", base);
	CHECK(open_in(dir, &a) == 0);
	snprintf(path, sizeof path, "%s/want.%d", dir, 999999999);
	FILE *f = fopen(path, "w");
	fclose(f);
	CHECK(!hostlock_others_wait(&a));
	CHECK(access(path, F_OK) != 0);
	snprintf(path, sizeof path, "%s/want.%d", dir, (int)getppid());
	f = fopen(path, "w");
	fclose(f);
	CHECK(hostlock_others_wait(&a));
	hostlock_close(&a);
}

int main(void)
{
	if (!mkdtemp(base))
		return 1;
	RUN(folder_made_private);
	RUN(folder_refused);
	RUN(two_holders);
	RUN(waiters);
	char cmd[400];
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", base);
	if (system(cmd) != 0)
		return 1;
	HARNESS_END();
}
