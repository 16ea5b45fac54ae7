#define PCRE2_CODE_UNIT_WIDTH 8
#include "rules.h"

#include "../orchestrator/err.h"
#include "../orchestrator/fsio.h"
#include "../orchestrator/strbuf.h"

#include <pcre2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int rules_load(const char *path, struct rules *r)
{
	memset(r, 0, sizeof *r);
	FILE *f = fopen(path, "r");
	if (!f)
		return err_sys(ERR_NOTFOUND, "cannot open the kernel rules %s", path);
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
		if (r->n == RULES_MAX) {
			rc = err_set(ERR_USAGE, "%s:%d: more than %d rules", path, lineno, RULES_MAX);
			break;
		}
		int code;
		PCRE2_SIZE off;
		pcre2_code *re = pcre2_compile((PCRE2_SPTR)(tab + 1), PCRE2_ZERO_TERMINATED, 0, &code, &off, NULL);
		if (!re) {
			PCRE2_UCHAR msg[256];
			pcre2_get_error_message(code, msg, sizeof msg);
			rc = err_set(ERR_USAGE, "%s:%d:%zu: %s", path, lineno, (size_t)off + strlen(line) + 2, (char *)msg);
			break;
		}
		pcre2_jit_compile(re, PCRE2_JIT_COMPLETE);
		r->category[r->n] = xstrdup(line);
		r->re[r->n++] = re;
	}
	fclose(f);
	if (!r->fallback)
		r->fallback = xstrdup("COMPUTATION");
	r->md = pcre2_match_data_create(1, NULL);
	if (rc < 0)
		rules_free(r);
	return rc;
}

/* PCRE2's JIT code reads the subject 16 bytes at a time, past its end
 * (harmless, but memcheck reports it): the subject is matched from a copy
 * with zeroed slack behind it. */
#define JIT_SLACK 32

const char *rules_classify(const struct rules *r, const char *name)
{
	size_t len = strlen(name);
	char small[512], *subject = len + JIT_SLACK <= sizeof small ? small : xmalloc(len + JIT_SLACK);
	memcpy(subject, name, len);
	memset(subject + len, 0, JIT_SLACK);
	const char *cat = r->fallback;
	for (int i = 0; i < r->n; i++)
		if (pcre2_match(r->re[i], (PCRE2_SPTR)subject, len, 0, 0, r->md, NULL) >= 0) {
			cat = r->category[i];
			break;
		}
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

char *rules_default_path(void)
{
	const char *env = getenv("CAMPAIGN_RULES");
	if (env && *env)
		return xstrdup(env);
	char *bin = fsio_self_dir();
	const char *rel[] = { "/../analyzers/kernel_rules.txt", "/../share/campaign/kernel_rules.txt", NULL };
	for (int i = 0; rel[i]; i++) {
		struct strbuf sb = STRBUF_INIT;
		strbuf_addf(&sb, "%s%s", bin, rel[i]);
		if (fsio_exists(sb.buf)) {
			free(bin);
			return strbuf_detach(&sb);
		}
		strbuf_free(&sb);
	}
	free(bin);
	return xstrdup("analyzers/kernel_rules.txt");
}
