/* SPDX-License-Identifier: MIT */
#include "provenance.h"
#include "orchestrator/campaign/secret.h"
#include "util/run_layout.h"

#include "util/err.h"
#include "util/fsio.h"
#include "util/jsonio.h"
#include "util/sha256.h"
#include "util/userkey.h"
#include "util/strbuf.h"
#include "versions.h"

#include <git2.h>
#include <libgen.h>
#include <openssl/crypto.h>
#include <slurm/slurm_version.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#define MAX_PATCH (64u << 20)
/* an untracked file's contents go in the patch up to this size */
#define MAX_UNTRACKED (1 << 20)

extern char **environ;

static void head_info(git_repository *repo, struct repo_info *ri, git_commit **commit)
{
	git_reference *head = NULL;
	*commit = NULL;
	if (git_repository_head(&head, repo) < 0) {
		ri->branch = xstrdup("(no commit yet)");
		return;
	}
	ri->branch = xstrdup(git_reference_is_branch(head) ? git_reference_shorthand(head)
							   : "HEAD (detached)");
	const git_oid *oid = git_reference_target(head);
	if (oid && git_commit_lookup(commit, repo, oid) == 0) {
		ri->commit = xstrdup(git_oid_tostr_s(oid));
		const git_signature *a = git_commit_author(*commit);
		struct strbuf sb = STRBUF_INIT;
		strbuf_addf(&sb, "%s <%s>", a->name, a->email);
		ri->author = strbuf_detach(&sb);
		time_t t = (time_t)git_commit_time(*commit);
		struct tm tm;
		char buf[64];
		gmtime_r(&t, &tm);
		strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
		ri->commit_time = xstrdup(buf);
	}
	git_reference_free(head);
}

static void describe(git_repository *repo, struct repo_info *ri)
{
	git_describe_options o;
	git_describe_format_options f;
	git_describe_result *res = NULL;
	git_describe_options_init(&o, GIT_DESCRIBE_OPTIONS_VERSION);
	git_describe_format_options_init(&f, GIT_DESCRIBE_FORMAT_OPTIONS_VERSION);
	git_buf buf = GIT_BUF_INIT;
	o.describe_strategy = GIT_DESCRIBE_TAGS;
	o.show_commit_oid_as_fallback = 1;
	f.dirty_suffix = "-dirty";
	if (git_describe_workdir(&res, repo, &o) == 0 && git_describe_format(&buf, res, &f) == 0)
		ri->describe = xstrdup(buf.ptr);
	git_buf_dispose(&buf);
	git_describe_result_free(res);
}

/* "name url" of every remote, read from the configuration's remote.<name>.url
 * entries. git_remote_list() would match them with a regular expression,
 * and libgit2 1.5's PCRE2 matcher leaks its match data on every entry
 * (libgit2 PR #6382): a plain iteration leaks nothing. */
static void remotes(git_repository *repo, struct repo_info *ri)
{
	git_config *cfg = NULL;
	git_config_iterator *it = NULL;
	git_config_entry *e;
	if (git_repository_config_snapshot(&cfg, repo) < 0 ||
	    git_config_iterator_new(&it, cfg) < 0) {
		git_config_free(cfg);
		return;
	}
	while (git_config_next(&e, it) == 0) {
		size_t n = strlen(e->name);
		if (strncmp(e->name, "remote.", 7) || n <= 11 || strcmp(e->name + n - 4, ".url"))
			continue;
		struct strbuf sb = STRBUF_INIT;
		strbuf_addf(&sb, "%.*s %s", (int)(n - 11), e->name + 7, e->value ? e->value : "");
		argv_push(&ri->remotes, sb.buf);
		strbuf_free(&sb);
	}
	git_config_iterator_free(it);
	git_config_free(cfg);
}

static void status(git_repository *repo, struct repo_info *ri)
{
	git_status_options o;
	git_status_list *list = NULL;
	git_status_options_init(&o, GIT_STATUS_OPTIONS_VERSION);
	o.show = GIT_STATUS_SHOW_INDEX_AND_WORKDIR;
	o.flags = GIT_STATUS_OPT_INCLUDE_UNTRACKED | GIT_STATUS_OPT_RECURSE_UNTRACKED_DIRS;
	if (git_status_list_new(&list, repo, &o) < 0)
		return;
	for (size_t i = 0; i < git_status_list_entrycount(list); i++) {
		const git_status_entry *e = git_status_byindex(list, i);
		const git_diff_delta *d =
			e->index_to_workdir ? e->index_to_workdir : e->head_to_index;
		if (!d || e->status == GIT_STATUS_CURRENT || (e->status & GIT_STATUS_IGNORED))
			continue;
		const char *path = d->new_file.path ? d->new_file.path : d->old_file.path;
		if (e->status == GIT_STATUS_WT_NEW)
			argv_push(&ri->untracked, path);
		else
			argv_push(&ri->modified, path);
	}
	ri->dirty = ri->modified.n > 0 || ri->untracked.n > 0;
	git_status_list_free(list);
}

/* Whether an untracked file's contents may go in the patch: a regular file
 * of at most MAX_UNTRACKED bytes whose name and contents look secret to no
 * rule of secret.h. Its plain hash is taken unless it looks secret. */
static void untracked_look(const char *workdir, struct untracked_file *f)
{
	struct strbuf p = STRBUF_INIT;
	struct stat st;
	const char *why;
	char *data = NULL;
	size_t len = 0, at;
	strbuf_addf(&p, "%s/%s", workdir, f->path);
	if (lstat(p.buf, &st) < 0 || !S_ISREG(st.st_mode)) {
		f->left_out = "not a regular file";
	} else {
		struct tm tm;
		f->bytes = (long long)st.st_size;
		gmtime_r(&st.st_mtime, &tm);
		strftime(f->mtime, sizeof f->mtime, "%Y-%m-%dT%H:%M:%SZ", &tm);
		if ((f->secret = secret_file_name(f->path, &why)))
			snprintf(f->why, sizeof f->why, "its name looks secret (%s)", why);
		else if (st.st_size > MAX_UNTRACKED)
			snprintf(f->why, sizeof f->why, "over %d KiB", MAX_UNTRACKED >> 10);
		else if (fsio_read(p.buf, MAX_UNTRACKED, &data, &len) < 0)
			snprintf(f->why, sizeof f->why, "unreadable");
		else if ((f->secret = secret_content(data, len, &why, &at) != 0))
			snprintf(f->why, sizeof f->why, "its contents look secret (%s)", why);
		if (!f->secret && sha256_file(p.buf, f->sha256) < 0)
			f->sha256[0] = '\0';
		f->left_out = f->why[0] ? f->why : NULL;
	}
	free(data);
	strbuf_free(&p);
}

/* The keyed hashes of the secret-looking files, under the per-user key
 * (loaded once, only when one is there); without a key, none and a warning. */
static void untracked_keyed(const char *workdir, struct repo_info *ri)
{
	unsigned char key[USERKEY_BYTES];
	int loaded = 0;
	for (size_t i = 0; i < ri->untracked.n; i++) {
		struct untracked_file *f = &ri->files[i];
		if (!f->secret)
			continue;
		if (!loaded && (loaded = userkey_load(key) == 0 ? 1 : -1) < 0)
			fprintf(stderr,
				"campaign: warning: %s; secret-looking untracked files are listed with no hash\n",
				err_last());
		struct strbuf p = STRBUF_INIT;
		strbuf_addf(&p, "%s/%s", workdir, f->path);
		if (loaded < 0 || sha256_hmac_file(p.buf, key, sizeof key, f->hmac) < 0)
			f->hmac[0] = '\0';
		strbuf_free(&p);
	}
	OPENSSL_cleanse(key, sizeof key);
}

/* The patch of diff (NULL options: none) appended to out; -1 on failure. */
static int diff_append(git_repository *repo, git_tree *tree, git_diff_options *o,
		       struct strbuf *out)
{
	git_diff *diff = NULL;
	git_buf buf = GIT_BUF_INIT;
	int ok = git_diff_tree_to_workdir_with_index(&diff, repo, tree, o) == 0 &&
		 git_diff_to_buf(&buf, diff, GIT_DIFF_FORMAT_PATCH) == 0;
	if (ok)
		strbuf_add(out, buf.ptr ? buf.ptr : "", buf.size);
	git_buf_dispose(&buf);
	git_diff_free(diff);
	return ok ? 0 : -1;
}

/* The untracked files that may be in the patch, as a literal pathspec. */
static size_t untracked_pathspec(const struct repo_info *ri, git_strarray *spec)
{
	spec->strings = xcalloc(ri->untracked.n + 1, sizeof *spec->strings);
	spec->count = 0;
	for (size_t i = 0; i < ri->untracked.n; i++)
		if (!ri->files[i].left_out)
			spec->strings[spec->count++] = ri->files[i].path;
	return spec->count;
}

/* The diff from HEAD to the work tree (index included), binary content
 * included, then the untracked files untracked_look let in, as new files:
 * `git apply` rebuilds the tree but for the files left out. */
static void patch(git_repository *repo, git_commit *commit, struct repo_info *ri)
{
	git_tree *tree = NULL;
	git_diff_options o;
	git_strarray spec = { 0 };
	struct strbuf sb = STRBUF_INIT;
	if (commit && git_commit_tree(&tree, commit) < 0)
		return;
	git_diff_options_init(&o, GIT_DIFF_OPTIONS_VERSION);
	o.flags = GIT_DIFF_SHOW_BINARY;
	int rc = diff_append(repo, tree, &o, &sb);
	size_t tracked = sb.len;
	if (rc == 0 && untracked_pathspec(ri, &spec)) {
		o.flags |= GIT_DIFF_INCLUDE_UNTRACKED | GIT_DIFF_RECURSE_UNTRACKED_DIRS |
			GIT_DIFF_SHOW_UNTRACKED_CONTENT | GIT_DIFF_DISABLE_PATHSPEC_MATCH;
		o.pathspec = spec;
		if (diff_append(repo, tree, &o, &sb) < 0 || sb.len > MAX_PATCH) {
			sb.len = tracked;
			ri->note =
				xstrdup("untracked files are listed but their contents were left out of the patch (more than 64 MiB)");
		}
	}
	if (rc == 0) {
		ri->patch_len = sb.len;
		ri->patch = strbuf_detach(&sb);
	}
	strbuf_free(&sb);
	free(spec.strings);
	git_tree_free(tree);
}

static void repo_free(struct repo_info *ri);

/* Results written inside the work tree are not part of the code: ignore
 * them for this look only (an in-memory rule, nothing written). */
static void ignore_results(git_repository *repo, const char *wd, const char *results)
{
	size_t n = strlen(wd);
	if (!results || strncmp(results, wd, n) || results[n] != '/')
		return;
	struct strbuf rule = STRBUF_INIT;
	strbuf_addf(&rule, "/%s/\n", results + n + 1);
	git_ignore_add_rule(repo, rule.buf);
	strbuf_free(&rule);
}

static int repo_info(const char *path, const char *role, const char *results, struct repo_info *ri)
{
	git_repository *repo = NULL;
	memset(ri, 0, sizeof *ri);
	if (git_repository_open_ext(&repo, path, 0, NULL) < 0 || git_repository_is_bare(repo)) {
		git_repository_free(repo);
		return ERR_NOTFOUND;
	}
	git_commit *commit;
	char *wd = xstrdup(git_repository_workdir(repo));
	size_t n = strlen(wd);
	if (n > 1 && wd[n - 1] == '/')
		wd[n - 1] = '\0';
	ri->role = xstrdup(role);
	ri->workdir = wd;
	ri->name = xstrdup(basename(wd));
	ignore_results(repo, wd, results);
	head_info(repo, ri, &commit);
	describe(repo, ri);
	remotes(repo, ri);
	status(repo, ri);
	ri->files = xcalloc(ri->untracked.n + 1, sizeof *ri->files);
	for (size_t i = 0; i < ri->untracked.n; i++) {
		ri->files[i].path = ri->untracked.v[i];
		untracked_look(wd, &ri->files[i]);
	}
	untracked_keyed(wd, ri);
	patch(repo, commit, ri);
	git_commit_free(commit);
	git_repository_free(repo);
	return 0;
}

int provenance_collect(const char *campaign_file, const char *bin_dir, const char *results_root,
		       struct provenance *p)
{
	memset(p, 0, sizeof *p);
	git_libgit2_init();
	char *abs = fsio_abspath(campaign_file);
	char *results = realpath(results_root, NULL);
	if (!results)
		results = fsio_abspath(results_root);
	p->campaign_file = xstrdup(abs);
	char *dir = xstrdup(dirname(abs));
	if (repo_info(dir, "workload", results, &p->repo[0]) == 0)
		p->nrepos = 1;
	else
		p->not_git = xstrdup("the campaign file is not in a git repository: no commit or patch was recorded");
	struct repo_info own;
	if (repo_info(bin_dir, "campaign", results, &own) == 0) {
		if (p->nrepos && !strcmp(own.workdir, p->repo[0].workdir)) {
			free(p->repo[0].role); /* one repository holds both */
			p->repo[0].role = xstrdup("workload+campaign");
			repo_free(&own);
		} else {
			p->repo[p->nrepos++] = own;
			if (p->nrepos == 2 && !strcmp(p->repo[0].name, p->repo[1].name)) {
				free(p->repo[1].name);
				p->repo[1].name = xstrdup("campaign");
			}
		}
	}
	free(abs);
	free(dir);
	free(results);
	git_libgit2_shutdown();
	return 0;
}

char *provenance_dirty_list(const struct provenance *p)
{
	struct strbuf sb = STRBUF_INIT;
	for (int i = 0; i < p->nrepos; i++) {
		const struct repo_info *ri = &p->repo[i];
		for (size_t k = 0; k < ri->modified.n; k++)
			strbuf_addf(&sb, "%s%s/%s (modified)", sb.len ? ", " : "", ri->workdir,
				    ri->modified.v[k]);
		for (size_t k = 0; k < ri->untracked.n; k++)
			strbuf_addf(&sb, "%s%s/%s (untracked)", sb.len ? ", " : "", ri->workdir,
				    ri->untracked.v[k]);
	}
	return sb.len ? strbuf_detach(&sb) : NULL;
}

static void repo_free(struct repo_info *ri)
{
	free(ri->role);
	free(ri->name);
	free(ri->workdir);
	free(ri->commit);
	free(ri->branch);
	free(ri->describe);
	free(ri->commit_time);
	free(ri->author);
	free(ri->patch);
	free(ri->note);
	free(ri->files); /* its paths are untracked's */
	argv_free(&ri->remotes);
	argv_free(&ri->modified);
	argv_free(&ri->untracked);
}

void provenance_free(struct provenance *p)
{
	for (int i = 0; i < p->nrepos; i++)
		repo_free(&p->repo[i]);
	free(p->not_git);
	free(p->campaign_file);
	json_decref(p->variant);
	json_decref(p->bisect);
	memset(p, 0, sizeof *p);
}

/* ---- writing ---------------------------------------------------------- */

static json_t *strings(const struct argv *a)
{
	json_t *arr = json_array();
	for (size_t i = 0; i < a->n; i++)
		json_array_append_new(arr, json_string(a->v[i]));
	return arr;
}

static json_t *jstr(const char *s)
{
	return s ? json_string(s) : json_null();
}

static json_t *repo_json(const struct repo_info *ri, const char *patch_rel, const char *patch_sha)
{
	json_t *o = json_object();
	json_object_set_new(o, "role", json_string(ri->role));
	json_object_set_new(o, "name", json_string(ri->name));
	json_object_set_new(o, "path", json_string(ri->workdir));
	json_object_set_new(o, "commit", jstr(ri->commit));
	json_object_set_new(o, "branch", jstr(ri->branch));
	json_object_set_new(o, "describe", jstr(ri->describe));
	json_object_set_new(o, "commit_time", jstr(ri->commit_time));
	json_object_set_new(o, "author", jstr(ri->author));
	json_object_set_new(o, "remotes", strings(&ri->remotes));
	json_object_set_new(o, "dirty", json_boolean(ri->dirty));
	json_object_set_new(o, "modified", strings(&ri->modified));
	json_object_set_new(o, "untracked", strings(&ri->untracked));
	json_t *files = json_array();
	for (size_t i = 0; i < ri->untracked.n; i++) {
		const struct untracked_file *f = &ri->files[i];
		json_t *u = json_pack("{s:s, s:o, s:I, s:o, s:b, s:o}", "path", f->path, "sha256",
				      jstr(f->sha256[0] ? f->sha256 : NULL), "bytes",
				      (json_int_t)f->bytes, "mtime",
				      jstr(f->mtime[0] ? f->mtime : NULL), "in_patch", !f->left_out,
				      "left_out", jstr(f->left_out));
		if (f->secret) {
			json_object_set_new(u, "hmac_sha256", jstr(f->hmac[0] ? f->hmac : NULL));
			json_object_set_new(u, "hmac_key", json_string("per-user"));
		}
		json_array_append_new(files, u);
	}
	json_object_set_new(o, "untracked_files", files);
	json_object_set_new(o, "patch", jstr(patch_rel));
	json_object_set_new(o, "patch_sha256", jstr(patch_sha));
	if (ri->note)
		json_object_set_new(o, "note", json_string(ri->note));
	return o;
}

static json_t *host_json(void)
{
	struct utsname u;
	char host[256] = "", pretty[512] = "";
	gethostname(host, sizeof host);
	uname(&u);
	FILE *f = fopen("/etc/os-release", "r");
	char line[512];
	while (f && fgets(line, sizeof line, f))
		if (!strncmp(line, "PRETTY_NAME=", 12)) {
			char *v = line + 12;
			v[strcspn(v, "\n")] = '\0';
			if (*v == '"' && strlen(v) > 1) {
				v++;
				v[strlen(v) - 1] = '\0';
			}
			snprintf(pretty, sizeof pretty, "%s", v);
		}
	if (f)
		fclose(f);
	int maj, min, rev;
	git_libgit2_version(&maj, &min, &rev);
	char git[32], slurm[32];
	snprintf(git, sizeof git, "%d.%d.%d", maj, min, rev);
	snprintf(slurm, sizeof slurm, "%d.%d.%d", SLURM_VERSION_MAJOR(SLURM_VERSION_NUMBER),
		 SLURM_VERSION_MINOR(SLURM_VERSION_NUMBER),
		 SLURM_VERSION_MICRO(SLURM_VERSION_NUMBER));
	json_t *mods = json_array();
	const char *lm = getenv("LOADEDMODULES");
	if (lm && *lm) {
		char *copy = xstrdup(lm), *save = NULL;
		for (char *t = strtok_r(copy, ":", &save); t; t = strtok_r(NULL, ":", &save))
			json_array_append_new(mods, json_string(t));
		free(copy);
	}
	return json_pack("{s:s, s:s, s:s, s:s, s:s, s:{s:s, s:s, s:s, s:s, s:s, s:s, s:s}, s:o}",
			 "hostname", host, "kernel", u.release, "machine", u.machine, "os", pretty,
			 "compiler", BUILD_CC, "versions", "slurm", slurm, "gloo", BUILD_GLOO,
			 "openblas", BUILD_OPENBLAS, "cuda", BUILD_CUDA, "nccl", BUILD_NCCL,
			 "libgit2", git, "sqlite", sqlite3_libversion(), "modules", mods);
}

/* NCCL_*, GLOO_* and OMP_* as the job will see them: the submitter's, then
 * the scenario's own; none whose name looks secret, none passed through
 * (from_env: written nowhere). */
static json_t *job_env(const struct scenario *s)
{
	json_t *o = json_object();
	const char *pre[] = { "NCCL_", "GLOO_", "OMP_", NULL };
	for (char **e = environ; *e; e++)
		for (int i = 0; pre[i]; i++)
			if (!strncmp(*e, pre[i], strlen(pre[i])) && strchr(*e, '=')) {
				char *k = xstrdup(*e);
				char *eq = strchr(k, '=');
				*eq = '\0';
				const struct kv *kv = s ? kvlist_find(&s->env, k) : NULL;
				int from_env = kv && !kv->value;
				if (!from_env && !secret_name(k, NULL))
					json_object_set_new(o, k, json_string(eq + 1));
				free(k);
			}
	for (size_t i = 0; s && i < s->env.n; i++)
		for (int k = 0; s->env.items[i].value && pre[k]; k++)
			if (!strncmp(s->env.items[i].key, pre[k], strlen(pre[k])))
				json_object_set_new(o, s->env.items[i].key,
						    json_string(s->env.items[i].value));
	return o;
}

static void text_of_repo(struct strbuf *t, json_t *repo)
{
	strbuf_addf(t, "repository (%s): %s\n  commit %s on %s (%s), %s by %s\n",
		    json_string_value(json_object_get(repo, "role")),
		    json_string_value(json_object_get(repo, "path")),
		    json_string_value(json_object_get(repo, "commit")) ?: "none",
		    json_string_value(json_object_get(repo, "branch")) ?: "?",
		    json_string_value(json_object_get(repo, "describe")) ?: "-",
		    json_string_value(json_object_get(repo, "commit_time")) ?: "-",
		    json_string_value(json_object_get(repo, "author")) ?: "-");
	strbuf_addf(t, "  dirty: %s", json_is_true(json_object_get(repo, "dirty")) ? "yes" : "no");
	if (json_string_value(json_object_get(repo, "patch")))
		strbuf_addf(t, "; uncommitted changes in %s",
			    json_string_value(json_object_get(repo, "patch")));
	strbuf_adds(t, "\n");
}

static int annotate_job(struct run *r, const struct scenario *s, json_t *prov)
{
	char *dir = run_job_dir(r, s->name);
	struct strbuf p = STRBUF_INIT, t = STRBUF_INIT;
	char sha[SHA256_HEX];
	strbuf_addf(&p, "%s/" JOB_SCRIPT, dir);
	int rc = sha256_file(p.buf, sha);
	strbuf_reset(&p);
	strbuf_addf(&p, "%s/" JOB_METADATA, dir);
	json_error_t jerr;
	json_t *meta = rc == 0 ? json_load_file(p.buf, 0, &jerr) : NULL;
	if (rc == 0 && !meta)
		rc = err_set(ERR_IO, "%s: %s", p.buf, jerr.text);
	if (rc == 0) {
		json_t *env = job_env(s);
		json_object_set_new(meta, "job_script_sha256", json_string(sha));
		json_object_set(meta, "provenance", prov);
		json_object_set_new(meta, "environment", env);
		rc = jsonio_write_mode(p.buf, meta, RUN_PRIVATE_MODE);
		strbuf_addf(&t,
			    "job %s of run %s (campaign %s)\nnodes %d x %d task%s, %d GPU%s per node, backend %s, time %s\n"
			    "job script sha256 %s\ncampaign file sha256 %s\n",
			    s->name, r->id, r->c.name, s->nodes, s->tasks_per_node,
			    s->tasks_per_node == 1 ? "" : "s", s->gpus_per_node,
			    s->gpus_per_node == 1 ? "" : "s", s->backend, s->time, sha,
			    json_string_value(json_object_get(prov, "campaign_sha256")));
		size_t i;
		json_t *repo;
		json_array_foreach(json_object_get(prov, "repositories"), i, repo)
			text_of_repo(&t, repo);
		const char *k;
		json_t *v;
		json_object_foreach(env, k, v)
			strbuf_addf(&t, "%s=%s\n", k, json_string_value(v));
		strbuf_reset(&p);
		strbuf_addf(&p, "%s/job_metadata.txt", dir);
		if (rc == 0)
			rc = fsio_write_atomic(p.buf, t.buf, t.len, RUN_PRIVATE_MODE);
	}
	json_decref(meta);
	strbuf_free(&p);
	strbuf_free(&t);
	free(dir);
	return rc;
}

int provenance_write(struct run *r, const struct provenance *p)
{
	struct strbuf path = STRBUF_INIT;
	char sha[SHA256_HEX];
	json_t *repos = json_array();
	int rc = 0;
	for (int i = 0; i < p->nrepos && rc == 0; i++) {
		const struct repo_info *ri = &p->repo[i];
		char *rel = NULL;
		if (ri->patch_len) {
			struct strbuf relb = STRBUF_INIT;
			strbuf_addf(&relb, "provenance/%s.patch", ri->name);
			strbuf_reset(&path);
			strbuf_addf(&path, "%s/provenance", r->dir);
			rc = fsio_mkdir_p(path.buf, 0755);
			strbuf_reset(&path);
			strbuf_addf(&path, "%s/%s", r->dir, relb.buf);
			if (rc == 0)
				rc = fsio_write_atomic(path.buf, ri->patch, ri->patch_len,
						       RUN_PRIVATE_MODE);
			sha256_hex(ri->patch, ri->patch_len, sha);
			rel = strbuf_detach(&relb);
		}
		json_array_append_new(repos, repo_json(ri, rel, rel ? sha : NULL));
		free(rel);
	}
	strbuf_reset(&path);
	strbuf_addf(&path, "%s/" RUN_CAMPAIGN, r->dir);
	if (rc == 0)
		rc = sha256_file(path.buf, sha);
	json_t *prov = json_pack("{s:s, s:s, s:s, s:o, s:o, s:o}", "run_id", r->id, "campaign_file",
				 p->campaign_file, "campaign_sha256", sha, "repositories", repos,
				 "not_git", p->not_git ? json_string(p->not_git) : json_null(),
				 "host", host_json());
	if (p->variant)
		json_object_set(prov, "variant", p->variant);
	if (p->bisect)
		json_object_set(prov, "bisect", p->bisect);
	if (rc == 0) {
		strbuf_reset(&path);
		strbuf_addf(&path, "%s/" RUN_PROVENANCE, r->dir);
		rc = jsonio_write(path.buf, prov);
	}
	if (rc == 0)
		rc = store_run_set_sha256(r->st, sha);
	for (size_t i = 0; rc == 0 && i < r->c.n_scenarios; i++)
		rc = annotate_job(r, &r->c.scenarios[i], prov);
	json_decref(prov);
	strbuf_free(&path);
	return rc;
}
