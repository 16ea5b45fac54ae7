/* Unit tests for util/: strbuf, words, quote, sha256 (HMAC too), userkey, hangup, fsio,
 * tempname, jsonio, err, nodelist.
 * SPDX-License-Identifier: MIT */
#include "harness.h"

#include "util/err.h"
#include "util/proc.h"
#include "util/fsio.h"
#include "util/hangup.h"
#include "util/jsonio.h"
#include "util/nodelist.h"
#include "util/quote.h"
#include "util/sha256.h"
#include "util/sort.h"
#include "util/strbuf.h"
#include "util/strindex.h"
#include "util/tempname.h"
#include "util/userkey.h"
#include "util/words.h"

#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

static char tmpdir[64];

static void strbuf_grows_and_detaches(void)
{
	struct strbuf sb = STRBUF_INIT;
	CHECK_STR(strbuf_str(&sb), "");
	for (int i = 0; i < 1000; i++)
		strbuf_addch(&sb, (char)('a' + i % 26));
	CHECK(sb.len == 1000);
	strbuf_addf(&sb, "|%d|%s", 42, "x");
	CHECK_STR(sb.buf + 1000, "|42|x");
	strbuf_add(&sb, "ab\0cd", 5);
	CHECK(sb.len == 1010 && sb.buf[1007] == '\0' && sb.buf[1010] == '\0');
	char *s = strbuf_detach(&sb);
	CHECK(sb.len == 0 && s[0] == 'a');
	free(s);
	strbuf_free(&sb);
	int *v = NULL;
	size_t n = 0, cap = 0;
	for (int i = 0; i < 100; i++) {
		XGROW(v, n, cap, 4);
		v[n++] = i;
	}
	CHECK(n == 100 && cap == 128 && v[99] == 99);
	free(v);
}

static void words_split_like_a_shell_without_expansion(void)
{
	struct argv a = { 0 };
	const char *why = NULL;
	CHECK(words_split("python3 'my script.py' \"a b\" c\\ d $(rm -rf x) ; *", &a, &why) == 0);
	CHECK(a.n == 9);
	CHECK_STR(a.v[1], "my script.py");
	CHECK(a.quoted[1] == 1 && a.quoted[0] == 0);
	CHECK_STR(a.v[2], "a b");
	CHECK_STR(a.v[3], "c d");
	CHECK_STR(a.v[4], "$(rm");
	CHECK_STR(a.v[6], "x)");
	CHECK_STR(a.v[7], ";");
	CHECK_STR(a.v[8], "*");
	argv_free(&a);
	CHECK(words_split("echo 'open", &a, &why) == -1);
	CHECK(why != NULL);
	argv_free(&a);
}

static void shell_quote_makes_one_inert_word(void)
{
	struct strbuf sb = STRBUF_INIT;
	shell_quote(&sb, "it's $(x)");
	CHECK_STR(sb.buf, "'it'\\''s $(x)'");
	strbuf_reset(&sb);
	shell_quote(&sb, "");
	CHECK_STR(sb.buf, "''");
	strbuf_reset(&sb); /* env values: $NAME and ${NAME} expand, nothing else */
	shell_quote_vars(&sb, "P=/o:$PATH:${HOME}x:$(id):$$:${A:-b}:'q'");
	CHECK_STR(sb.buf, "'P=/o:'\"${PATH-}\"':'\"${HOME-}\"'x:$(id):$$:${A:-b}:'\\''q'\\'''");
	strbuf_free(&sb);
	CHECK(is_safe_name("gpu-1n_a.b"));
	CHECK(!is_safe_name("-x") && !is_safe_name(".x") && !is_safe_name("a/b") &&
	      !is_safe_name(""));
	CHECK(is_env_name("_A1") && !is_env_name("1A") && !is_env_name("A-B") && !is_env_name(""));
	CHECK(is_safe_token("--gres=gpu:4") && !is_safe_token("a b") && !is_safe_token("$(x)"));
}

static void sha256_of_known_vectors(void)
{
	char hex[SHA256_HEX];
	sha256_hex("abc", 3, hex);
	CHECK_STR(hex, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
	sha256_hex("", 0, hex);
	CHECK_STR(hex, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
	char path[128];
	snprintf(path, sizeof path, "%s/abc", tmpdir);
	CHECK(fsio_write_atomic(path, "abc", 3, 0644) == 0);
	CHECK(sha256_file(path, hex) == 0);
	CHECK_STR(hex, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
	snprintf(path, sizeof path, "%s/none", tmpdir);
	CHECK(sha256_file(path, hex) < 0);
}

/* RFC 4231 test case 2, then a file's HMAC under the per-user key: made 0600 on
 * first use, the same key after, refused when others may read it. */
static void hmac_under_the_user_key(void)
{
	char hex[SHA256_HEX], path[160], cfg[128];
	snprintf(path, sizeof path, "%s/what", tmpdir);
	CHECK(fsio_write_atomic(path, "what do ya want for nothing?", 28, 0644) == 0);
	CHECK(sha256_hmac_file(path, (const unsigned char *)"Jefe", 4, hex) == 0);
	CHECK_STR(hex, "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843");
	snprintf(cfg, sizeof cfg, "%s/config", tmpdir);
	setenv("XDG_CONFIG_HOME", cfg, 1);
	unsigned char k1[USERKEY_BYTES], k2[USERKEY_BYTES];
	CHECK(userkey_load(k1) == 0 && userkey_load(k2) == 0 && !memcmp(k1, k2, sizeof k1));
	snprintf(path, sizeof path, "%s/campaign/provenance.key", cfg);
	struct stat st;
	CHECK(stat(path, &st) == 0 && (st.st_mode & 0777) == 0600 && st.st_size == 65);
	CHECK(chmod(path, 0644) == 0);
	CHECK(userkey_load(k2) == ERR_IO && strstr(err_last(), "only you can read (chmod 600 it"));
	CHECK(fsio_write_atomic(path, "not hex\n", 8, 0600) == 0);
	CHECK(userkey_load(k2) == ERR_IO &&
	      strstr(err_last(), "not a per-user key (64 hex digits)"));
	unsetenv("XDG_CONFIG_HOME");
}

/* A closed pipe stops the printing, not the process: stdout goes to /dev/null. */
static void hangup_survives_a_closed_pipe(void)
{
	int p[2], saved = dup(1);
	CHECK(pipe(p) == 0);
	hangup_catch();
	fflush(stdout);
	dup2(p[1], 1);
	close(p[1]);
	close(p[0]); /* the reader goes away */
	CHECK(hangup_check(NULL) == 1); /* seen without a write */
	printf("into /dev/null\n");
	CHECK(fflush(stdout) == 0);
	struct stat a, b;
	CHECK(fstat(1, &a) == 0 && stat("/dev/null", &b) == 0 && a.st_rdev == b.st_rdev);
	dup2(saved, 1);
	close(saved);
	signal(SIGPIPE, SIG_DFL);
	signal(SIGHUP, SIG_DFL);
}

static void fsio_writes_atomically_and_reads_bounded(void)
{
	char path[128], *text = NULL;
	size_t len = 0;
	snprintf(path, sizeof path, "%s/a/b/c", tmpdir);
	CHECK(fsio_mkdir_p(path, 0755) == 0 && fsio_is_dir(path));
	CHECK(fsio_write_in(tmpdir, "a/b/c/f.txt", "hello\n", 6, 0600) == 0);
	snprintf(path, sizeof path, "%s/a/b/c/f.txt", tmpdir);
	struct stat st;
	CHECK(stat(path, &st) == 0 && (st.st_mode & 0777) == 0600);
	CHECK(fsio_read(path, 100, &text, &len) == 0 && len == 6);
	CHECK_STR(text, "hello\n");
	free(text);
	text = NULL;
	CHECK(fsio_read(path, 3, &text, &len) == ERR_IO); /* larger than allowed */
	free(text);
	char copy[160];
	snprintf(copy, sizeof copy, "%s.copy", path);
	CHECK(fsio_copy(path, copy) == 0 && fsio_exists(copy));
	int fd = fsio_lock(tmpdir, ".lock", 1);
	CHECK(fd >= 0);
	close(fd);
	char *abs = fsio_abspath("rel/x");
	CHECK(abs[0] == '/' && strstr(abs, "/rel/x"));
	free(abs);
	/* no write goes through a link: one as the target, or as a folder on the way */
	char link[200], target[200];
	snprintf(target, sizeof target, "%s/outside", tmpdir);
	CHECK(fsio_write_atomic(target, "keep", 4, 0644) == 0);
	snprintf(link, sizeof link, "%s/a/b/c/l.txt", tmpdir);
	CHECK(symlink(target, link) == 0);
	CHECK(fsio_write_atomic(link, "x", 1, 0644) == ERR_IO &&
	      strstr(err_last(), "is a symbolic link"));
	snprintf(link, sizeof link, "%s/a/d", tmpdir);
	CHECK(symlink(tmpdir, link) == 0);
	CHECK(fsio_write_in(tmpdir, "a/d/e.txt", "x", 1, 0644) == ERR_IO &&
	      strstr(err_last(), "a/d is a symbolic link"));
	CHECK(fsio_mkdir_in(tmpdir, "a/d/sub") == ERR_IO);
	CHECK(fsio_read(target, 10, &text, NULL) == 0 && !strcmp(text, "keep"));
	free(text);
	/* a FIFO is refused, never waited on */
	snprintf(path, sizeof path, "%s/fifo", tmpdir);
	CHECK(mkfifo(path, 0644) == 0);
	CHECK(fsio_read(path, 10, &text, NULL) == ERR_IO &&
	      strstr(err_last(), "not a regular file (a FIFO)"));
	CHECK(fsio_fopen_input(path) == NULL);
	unlink(path);
	snprintf(path, sizeof path, "%s/a", tmpdir);
	CHECK(fsio_remove_tree(path) == 0 && !fsio_exists(path));
}

/* A temporary file from a mkstemps template: named in place, suffix kept, the data in it,
 * private; a template in no folder: ERR_IO and nothing made. */
static void fsio_write_temp_names_in_place(void)
{
	char tmpl[160], *text = NULL;
	size_t len = 0;
	int made = 0;
	struct stat st;
	snprintf(tmpl, sizeof tmpl, "%s/t-XXXXXX.yaml", tmpdir);
	CHECK(fsio_write_temp(tmpl, 5, "a: 1\n", 5, &made) == 0 && made);
	CHECK(!strstr(tmpl, "XXXXXX") && !strcmp(tmpl + strlen(tmpl) - 5, ".yaml"));
	CHECK(fsio_read(tmpl, 100, &text, &len) == 0 && len == 5 && !strcmp(text, "a: 1\n"));
	CHECK(stat(tmpl, &st) == 0 && (st.st_mode & 0777) == 0600);
	free(text);
	snprintf(tmpl, sizeof tmpl, "%s/none/t-XXXXXX.yaml", tmpdir);
	made = 1;
	CHECK(fsio_write_temp(tmpl, 5, "x", 1, &made) == ERR_IO && !made);
}

/* A detached program runs with its output in the log; one that cannot be run is said. */
static void proc_detach_runs_or_says(void)
{
	char log[160], *text = NULL;
	size_t len = 0;
	snprintf(log, sizeof log, "%s/detached.log", tmpdir);
	CHECK(proc_detach(log, "/bin/sh", (char *const[]){ "sh", "-c", "echo ran", NULL }) == 0);
	for (int i = 0; i < 500 && !(fsio_read(log, 100, &text, &len) == 0 && len == 4); i++) {
		free(text);
		text = NULL;
		usleep(10000);
	}
	CHECK(text && !strcmp(text, "ran\n"));
	free(text);
	CHECK(proc_detach(log, "/nonexistent/prog", (char *const[]){ "prog", NULL }) == -1);
}

static void jsonio_writes_sorted_and_reads_paths(void)
{
	char path[128], *text = NULL;
	snprintf(path, sizeof path, "%s/doc.json", tmpdir);
	json_t *doc = json_pack("{s:{s:f, s:s}, s:i}", "step", "median", 1.5, "unit", "ms", "a", 1);
	CHECK(jsonio_write(path, doc) == 0);
	CHECK(fsio_read(path, 1000, &text, NULL) == 0);
	CHECK_STR(
		text,
		"{\n  \"a\": 1,\n  \"step\": {\n    \"median\": 1.5,\n    \"unit\": \"ms\"\n  }\n}\n");
	free(text);
	CHECK_NEAR(jsonio_num(doc, "step.median"), 1.5, 0);
	CHECK_STR(jsonio_str(doc, "step.unit"), "ms");
	CHECK(jsonio_at(doc, "step.none") == NULL && jsonio_num(doc, "a.b") == 0);
	CHECK_STR(jsonio_str(doc, "nothing"), "");
	json_decref(doc);
	/* an object of an array by its name */
	json_t *sc =
		json_pack("[{s:s, s:i}, {s:s, s:i}]", "name", "a", "n", 1, "name", "b", "n", 2);
	CHECK(jsonio_num(jsonio_named(sc, "name", "b"), "n") == 2);
	CHECK(jsonio_named(sc, "name", "c") == NULL && jsonio_named(NULL, "name", "a") == NULL);
	json_decref(sc);
}

static void err_keeps_the_last_message(void)
{
	CHECK(err_set(ERR_NOTFOUND, "no run '%s'", "x") == ERR_NOTFOUND);
	CHECK_STR(err_last(), "no run 'x'");
	CHECK(err_sys(ERR_IO, "cannot open %s", "/nonexistent") == ERR_IO);
	CHECK(strncmp(err_last(), "cannot open /nonexistent: ", 26) == 0);
	err_clear();
	CHECK_STR(err_last(), "unknown error");
}

static void display_quote_keeps_one_visible_line(void)
{
	struct strbuf sb = STRBUF_INIT;
	display_quote(&sb, "a\nb\tc\r\x01\x7f");
	CHECK_STR(sb.buf, "a\\nb\\tc\\r\\x01\\x7F");
	strbuf_reset(&sb);
	/* RLO, LRI, ALM, RLM */
	display_quote(&sb, "x\xe2\x80\xaey\xe2\x81\xa6z\xd8\x9c.\xe2\x80\x8f");
	CHECK_STR(sb.buf, "x\\u202Ey\\u2066z\\u061C.\\u200F");
	strbuf_reset(&sb);
	display_quote(&sb, "caf\xc3\xa9 \xe2\x80\x94 ok"); /* other UTF-8 stays */
	CHECK_STR(sb.buf, "caf\xc3\xa9 \xe2\x80\x94 ok");
	strbuf_free(&sb);
	str_list_append(&sb.buf, ", ", "a");
	str_list_append(&sb.buf, ", ", "b");
	CHECK_STR(sb.buf, "a, b");
	free(sb.buf);
}

/* A folder's names in one order whatever readdir gives: sorted, dot files left out. */
struct kv {
	int key, id;
};

static int by_key(const void *a, const void *b)
{
	return ((const struct kv *)a)->key - ((const struct kv *)b)->key;
}

/* sort_runs: sorted and stable (equal keys keep their order) on input in
 * order, reversed, nearly in order, random, and in runs that interleave in
 * stretches short and long (equal keys across runs), against a plain
 * stable sort. */
static void sort_runs_is_stable(void)
{
	enum { N = 2000 };
	static struct kv v[N], w[N];
	unsigned seed = 7;
	for (int shape = 0; shape < 6; shape++) {
		for (int i = 0; i < N; i++) {
			seed = seed * 1103515245u + 12345u;
			int r = (int)(seed >> 16) % 50;
			v[i].key = shape == 0 ? i / 3 : shape == 1 ? N - i / 3
				: shape == 2 ? (i % 97 ? i : r)
				: shape == 3 ? r
				: shape == 4 ? (i % 300) / 2 : (i % 7) * 100 + i / 40;
			v[i].id = i;
		}
		memcpy(w, v, sizeof v);
		sort_runs(v, N, sizeof *v, by_key);
		/* insertion sort: stable by construction */
		for (int i = 1; i < N; i++) {
			struct kv x = w[i];
			int j = i;
			for (; j > 0 && w[j - 1].key > x.key; j--)
				w[j] = w[j - 1];
			w[j] = x;
		}
		CHECK(!memcmp(v, w, sizeof v));
		CHECK(sort_is_sorted(v, N, sizeof *v, by_key));
	}
}

static void list_is_sorted(void)
{
	char d[300], p[320];
	struct argv names;
	snprintf(d, sizeof d, "%s/list", tmpdir);
	CHECK(mkdir(d, 0755) == 0);
	const char *made[] = { "rank_10.jsonl", ".hidden", "b", "rank_2.jsonl", "a" };
	for (size_t i = 0; i < sizeof made / sizeof *made; i++) {
		snprintf(p, sizeof p, "%s/%s", d, made[i]);
		CHECK(fsio_write_atomic(p, "x", 1, 0644) == 0);
	}
	CHECK(fsio_list(d, &names) == 0 && names.n == 4);
	if (names.n == 4) {
		CHECK_STR(names.v[0], "a");
		CHECK_STR(names.v[1], "b");
		CHECK_STR(names.v[2], "rank_10.jsonl");
		CHECK_STR(names.v[3], "rank_2.jsonl");
	}
	argv_free(&names);
	snprintf(p, sizeof p, "%s/none", tmpdir);
	CHECK(fsio_list(p, &names) == -1 && names.n == 0);
}

/* A process id that ran and ended (its number free, unless reused at once). */
static long dead_pid(void)
{
	pid_t p = fork();
	if (p == 0)
		_exit(0);
	waitpid(p, NULL, 0);
	return (long)p;
}

static void tempname_stale_only_of_dead_writers_here(void)
{
	struct strbuf t = STRBUF_INIT, dead = STRBUF_INIT, e = STRBUF_INIT;
	tempname_make(&t, "summary.json", "0");
	CHECK(!tempname_is_stale(t.buf, "summary.json")); /* our own: alive */
	CHECK(!tempname_is_stale(t.buf, "summary"));
	long pid = dead_pid();
	char *host = xstrdup(t.buf + strlen("summary.json.tmp."));
	*strchr(host, '.') = '\0';
	strbuf_addf(&dead, "summary.json.tmp.%s.%ld.7", host, pid);
	CHECK(tempname_is_stale(dead.buf, "summary.json"));
	CHECK(!tempname_is_stale(dead.buf, "summary.js"));
	strbuf_addf(&e, "summary.json.tmp.%ld.0", pid); /* the older form: this host's */
	CHECK(tempname_is_stale(e.buf, "summary.json"));
	strbuf_reset(&e);
	strbuf_addf(&e, "summary.json.tmp.not-%s.%ld.0", host, pid); /* another host's */
	CHECK(!tempname_is_stale(e.buf, "summary.json"));
	strbuf_reset(&e);
	strbuf_addf(&e, "summary.json.tmp.%s.%ld.XyZ123", host, pid); /* a folder's (mkdtemp) */
	CHECK(tempname_is_stale(e.buf, "summary.json"));
	CHECK(!tempname_is_stale("summary.json.tmp.", "summary.json"));
	CHECK(!tempname_is_stale("summary.json.tmp.12a.0", "summary.json"));
	CHECK(!tempname_is_stale("summary.json.tmp.x.99999999999.0", "summary.json"));
	CHECK(!tempname_is_stale("summary.json.tmp.5.", "summary.json"));
	CHECK(!tempname_is_stale("summary.jsonX.tmp.5.0", "summary.json"));
	free(host);
	strbuf_free(&t);
	strbuf_free(&dead);
	strbuf_free(&e);
}

static void nodelist_shares_and_names_the_first(void)
{
	char first[64] = "";
	CHECK(nodelist_shared("n[1-3],n7", "n[3-7]", first, sizeof first) == 2);
	CHECK_STR(first, "n3");
	CHECK(nodelist_shared("n[01-02]", "n[03-04]", first, sizeof first) == 0);
	CHECK(nodelist_shared("", "n1", first, sizeof first) == 0);
	CHECK(nodelist_shared(NULL, "n1", first, sizeof first) == 0);
	char *f = nodelist_first("gpu[08-11],cpu1");
	CHECK(f && !strcmp(f, "gpu08"));
	free(f);
	CHECK(nodelist_first("") == NULL && nodelist_first(NULL) == NULL);
}

static const char *name_at(const void *names, size_t i)
{
	return ((char *const *)names)[i];
}

/* The names' hash: of a string up to its NUL or its bound, whichever is first; strings that
 * differ in one byte anywhere (in a word or in the tail past the last one) or in length only
 * hash apart; the same on every call. */
static void str_hash_reads_to_the_nul_or_bound(void)
{
	size_t len = 99;
	CHECK(str_hash_n("abc\0def", 7, &len) == str_hash("abc") && len == 3);
	CHECK(str_hash_n("abcdef", 3, &len) == str_hash("abc") && len == 3);
	CHECK(str_hash_n("", 5, &len) == str_hash("") && len == 0);
	char a[40] = "void at::native::elementwise_kernel<4>", b[40];
	size_t n = strlen(a), seen = 0;
	for (size_t i = 0; i < n; i++) {
		memcpy(b, a, sizeof b);
		b[i] ^= 1;
		seen += str_hash(b) != str_hash(a);
	}
	CHECK(seen == n);
	size_t h[24];
	for (size_t k = 0; k < 24; k++) {
		h[k] = str_hash_n(a, k, NULL);
		for (size_t j = 0; j < k; j++)
			CHECK(h[j] != h[k]);
	}
	CHECK(str_hash(a) == str_hash_n(a, (size_t)-1, NULL));
}

/* 300 names (past the first size, so the index grows four times): each found at its own
 * position, an absent one not; after the array is reordered and the index cleared, at the new. */
static void strindex_finds_after_growth_and_clear(void)
{
	enum { N = 300 };
	char *names[N];
	struct strindex x = STRINDEX_INIT;
	size_t n = 0;
	for (; n < N; n++) {
		char s[16];
		snprintf(s, sizeof s, "op%zu", n);
		size_t *slot = strindex_slot(&x, s, names, n, name_at);
		CHECK(*slot == 0);
		names[n] = xstrdup(s);
		*slot = n + 1;
	}
	CHECK(x.nslots == 1024);
	CHECK(*strindex_slot(&x, "op0", names, n, name_at) == 1);
	CHECK(*strindex_slot(&x, "op299", names, n, name_at) == 300);
	CHECK(*strindex_slot(&x, "op300", names, n, name_at) == 0);
	char *t = names[0];
	names[0] = names[N - 1], names[N - 1] = t;
	strindex_clear(&x);
	CHECK(x.nslots == 0);
	CHECK(*strindex_slot(&x, "op299", names, n, name_at) == 1);
	CHECK(*strindex_slot(&x, "op0", names, n, name_at) == N);
	for (size_t i = 0; i < N; i++)
		free(names[i]);
	strindex_clear(&x);
}

int main(void)
{
	snprintf(tmpdir, sizeof tmpdir, "/tmp/test_util.XXXXXX");
	if (!mkdtemp(tmpdir))
		return 1;
	RUN(strbuf_grows_and_detaches);
	RUN(list_is_sorted);
	RUN(sort_runs_is_stable);
	RUN(str_hash_reads_to_the_nul_or_bound);
	RUN(strindex_finds_after_growth_and_clear);
	RUN(words_split_like_a_shell_without_expansion);
	RUN(shell_quote_makes_one_inert_word);
	RUN(sha256_of_known_vectors);
	RUN(hmac_under_the_user_key);
	RUN(hangup_survives_a_closed_pipe);
	RUN(fsio_writes_atomically_and_reads_bounded);
	RUN(fsio_write_temp_names_in_place);
	RUN(proc_detach_runs_or_says);
	RUN(tempname_stale_only_of_dead_writers_here);
	RUN(jsonio_writes_sorted_and_reads_paths);
	RUN(err_keeps_the_last_message);
	RUN(display_quote_keeps_one_visible_line);
	RUN(nodelist_shares_and_names_the_first);
	fsio_remove_tree(tmpdir);
	HARNESS_END();
}
