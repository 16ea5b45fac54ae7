/* rules: kernel/op categories from a rules file of PCRE2 regexes
 * (analyzers/kernel_rules.txt; first match wins, then the default). */
#ifndef ANALYZERS_RULES_H
#define ANALYZERS_RULES_H

#define RULES_MAX 64

struct rules {
	int n;
	char *category[RULES_MAX];
	void *re[RULES_MAX];      /* pcre2_code * */
	void *md;                 /* pcre2_match_data * */
	char *fallback;
};

/* Loads path; problems are reported as "path:line: message". */
int rules_load(const char *path, struct rules *r);
/* The category of name (never NULL). */
const char *rules_classify(const struct rules *r, const char *name);
void rules_free(struct rules *r);
/* analyzers/kernel_rules.txt next to the binaries, or $CAMPAIGN_RULES. */
char *rules_default_path(void);

#endif
