/* rules: kernel/op categories from a rules file of PCRE2 regexes
 * (analyzers/kernel_rules.txt; first match wins, then the default).
 * SPDX-License-Identifier: MIT */
#ifndef ANALYZERS_RULES_H
#define ANALYZERS_RULES_H

#include <stddef.h>

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
/* An empty rule set, to add rules to before loading a file after them. */
void rules_init(struct rules *r);
/* Adds one rule; -1 with why ("OFFSET: message" for a bad pattern). */
int rules_add(struct rules *r, const char *category, const char *pattern, char *why, size_t whylen);
/* Adds the rules of path after those r has; frees r on failure. */
int rules_load_more(const char *path, struct rules *r);
/* The category of name (never NULL). Safe from several threads at once. */
const char *rules_classify(const struct rules *r, const char *name);
void rules_free(struct rules *r);
/* Every PCRE2 match of campaign's (rules, step-log patterns) runs under a
 * budget, so no pattern, however it backtracks, costs more than a few
 * milliseconds a subject: at most RULES_MATCH_LIMIT backtracking steps and
 * RULES_DEPTH_LIMIT nested ones; a match over budget is no match. */
#define RULES_MATCH_LIMIT 100000
#define RULES_DEPTH_LIMIT 10000
/* A match context with those limits (pcre2_match_context *); free with
 * rules_context_free. */
void *rules_bounded_context(void);
void rules_context_free(void *mctx);
/* analyzers/kernel_rules.txt next to the binaries, or $CAMPAIGN_RULES. */
char *rules_default_path(void);
/* analyzers/phase_rules.txt (step phases of host ranges), or $CAMPAIGN_PHASE_RULES. */
char *rules_phase_path(void);

#endif
