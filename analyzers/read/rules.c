/* SPDX-License-Identifier: MIT */
#define PCRE2_CODE_UNIT_WIDTH 8
#include "analyzers/read/rules.h"

#include "util/err.h"
#include "util/fsio.h"
#include "util/strbuf.h"

#include <pcre2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void rules_init(struct rules *r)
{
	memset(r, 0, sizeof *r);
	r->md = pcre2_match_data_create(1, NULL);
}

int rules_add(struct rules *r, const char *category, const char *pattern, char *why, size_t whylen)
{
	if (r->n == RULES_MAX) {
		snprintf(why, whylen, "more than %d rules", RULES_MAX);
		return -1;
	}
	int code;
	PCRE2_SIZE off;
	pcre2_code *re =
		pcre2_compile((PCRE2_SPTR) pattern, PCRE2_ZERO_TERMINATED, 0, &code, &off, NULL);
	if (!re) {
		PCRE2_UCHAR msg[256];
		pcre2_get_error_message(code, msg, sizeof msg);
		snprintf(why, whylen, "%zu: %s", (size_t)off, (char *)msg);
		return -1;
	}
	pcre2_jit_compile(re, PCRE2_JIT_COMPLETE);
	r->category[r->n] = xstrdup(category);
	r->re[r->n++] = re;
	return 0;
}

int rules_load(const char *path, struct rules *r)
{
	rules_init(r);
	return rules_load_more(path, r);
}

int rules_load_more(const char *path, struct rules *r)
{
	FILE *f = fopen(path, "r");
	if (!f) {
		int rc = err_sys(ERR_NOTFOUND, "cannot open the rules file %s", path);
		rules_free(r);
		return rc;
	}
	char line[2048];
	int lineno = 0, rc = 0;
	while (rc == 0 && fgets(line, sizeof line, f)) {
		lineno++;
		line[strcspn(line, "\r\n")] = '\0';
		if (!line[0] || line[0] == '#')
			continue;
		char *tab = strchr(line, '\t');
		if (!tab) {
			rc = err_set(ERR_USAGE, "%s:%d: expected CATEGORY<tab>REGEX", path, lineno);
			break;
		}
		*tab = '\0';
		if (!strcmp(line, "default")) {
			free(r->fallback);
			r->fallback = xstrdup(tab + 1);
			continue;
		}
		char why[300];
		if (rules_add(r, line, tab + 1, why, sizeof why) < 0) {
			char *colon = strchr(why, ':');
			/* the offset, as a column of the line */
			if (colon && why[0] >= '0' && why[0] <= '9')
				rc = err_set(ERR_USAGE, "%s:%d:%zu%s", path, lineno,
					     strtoul(why, NULL, 10) + strlen(line) + 2, colon);
			else
				rc = err_set(ERR_USAGE, "%s:%d: %s", path, lineno, why);
			break;
		}
	}
	fclose(f);
	if (!r->fallback)
		r->fallback = xstrdup("COMPUTATION");
	if (rc < 0)
		rules_free(r);
	return rc;
}

/* PCRE2's JIT code reads the subject 16 bytes at a time, past its end
 * (harmless, but memcheck reports it): the subject is matched from a copy
 * with zeroed slack behind it. */
#define JIT_SLACK 32

void *rules_bounded_context(void)
{
	pcre2_match_context *m = pcre2_match_context_create(NULL);
	if (m) {
		pcre2_set_match_limit(m, RULES_MATCH_LIMIT);
		pcre2_set_depth_limit(m, RULES_DEPTH_LIMIT);
	}
	return m;
}

void rules_context_free(void *mctx)
{
	pcre2_match_context_free(mctx);
}

const char *rules_classify(const struct rules *r, const char *name)
{
	size_t len = strlen(name);
	char small[512],
		*subject = len + JIT_SLACK <= sizeof small ? small : xmalloc(len + JIT_SLACK);
	memcpy(subject, name, len);
	memset(subject + len, 0, JIT_SLACK);
	const char *cat = r->fallback;
	/* match data of its own: one rule set serves every worker thread */
	pcre2_match_data *md = pcre2_match_data_create(1, NULL);
	pcre2_match_context *mctx = rules_bounded_context();
	for (int i = 0; md && i < r->n; i++)
		if (pcre2_match(r->re[i], (PCRE2_SPTR)subject, len, 0, 0, md, mctx) >= 0) {
			cat = r->category[i];
			break;
		}
	rules_context_free(mctx);
	pcre2_match_data_free(md);
	if (subject != small)
		free(subject);
	return cat;
}

void rules_free(struct rules *r)
{
	for (int i = 0; i < r->n; i++) {
		pcre2_code_free(r->re[i]);
		free(r->category[i]);
	}
	pcre2_match_data_free(r->md);
	free(r->fallback);
	memset(r, 0, sizeof *r);
}

/* A data file of the analyzers: beside the binaries in the source tree, or
 * where `make install` puts it. */
static char *data_file(const char *env_name, const char *file)
{
	const char *env = getenv(env_name);
	if (env && *env)
		return xstrdup(env);
	char *bin = fsio_self_dir();
	const char *rel[] = { "/../analyzers/", "/../share/campaign/", NULL };
	for (int i = 0; rel[i]; i++) {
		struct strbuf sb = STRBUF_INIT;
		strbuf_addf(&sb, "%s%s%s", bin, rel[i], file);
		if (fsio_exists(sb.buf)) {
			free(bin);
			return strbuf_detach(&sb);
		}
		strbuf_free(&sb);
	}
	free(bin);
	struct strbuf sb = STRBUF_INIT;
	strbuf_addf(&sb, "analyzers/%s", file);
	return strbuf_detach(&sb);
}

char *rules_default_path(void)
{
	return data_file("CAMPAIGN_RULES", "kernel_rules.txt");
}

char *rules_phase_path(void)
{
	return data_file("CAMPAIGN_PHASE_RULES", "phase_rules.txt");
}
