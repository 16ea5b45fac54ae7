/* scaling_text: scaling in words: a scenario's mode and its note against the baseline
 * (why no speedup, what is odd about it), and a series' fitted model: what limits
 * it, how well it fits, and contention. The model (scaling.c) keeps the numbers. */
#ifndef ANALYZERS_WRITE_SCALING_TEXT_H
#define ANALYZERS_WRITE_SCALING_TEXT_H

#include "analyzers/analysis.h"

#include <stddef.h>

struct strbuf;

/* "weak", "strong"; "" unknown. */
const char *scaling_text_mode(enum scaling_mode m);
/* s's scaling note, one clause without a period (nothing when there is none). */
void scaling_text_note(struct strbuf *sb, const struct ana_scenario *s);
/* The model's sentence with its fitted numbers: what limits scaling, from where. */
void scaling_text_limit(struct strbuf *sb, const struct ana_model *m);
/* One sentence on how well the model fits its points. */
void scaling_text_fit(struct strbuf *sb, const struct ana_model *m);
/* "No prediction is drawn from it." with the reason when it is not the fit (contention
 * on oversubscribed emulated nodes); host_cpus as below. */
void scaling_text_no_prediction(struct strbuf *sb, const struct ana_model *m, int host_cpus);
/* A share of a step as "%.0f %", with one more digit from 99.5 (never "100 %" below
 * it) and "nearly all" from 99.95 up to 100. */
void scaling_text_pct(char *buf, size_t n, double pct);
/* The contention sentence (m->contention.found); host_cpus: the local executor's CPUs
 * (0 on a cluster). */
void scaling_text_contention(struct strbuf *sb, const struct ana_model *m, int host_cpus);

#endif
