/* scaling_text: scaling in words: a scenario's mode and its note against the baseline
 * (why no speedup, what is odd about it), and a series' fitted model: what limits
 * it, how well it fits, and contention. The model (scaling.c) keeps the numbers.
 * SPDX-License-Identifier: MIT */
#ifndef ANALYZERS_WRITE_SCALING_TEXT_H
#define ANALYZERS_WRITE_SCALING_TEXT_H

#include "analyzers/analysis.h"

#include <stddef.h>

struct strbuf;

/* "weak", "strong"; "" unknown. */
const char *scaling_text_mode(enum scaling_mode m);
/* s's scaling note, one clause without a period (nothing when there is none). */
void scaling_text_note(struct strbuf *sb, const struct ana_scenario *s);
/* s's speedup with its 95 % interval and what it says: "speedup 0.83x (95 % CI
 * 0.80-0.86; slower than the baseline)", "... (95 % CI 0.91-1.04; no measurable change
 * from the baseline)", or "(no interval: fewer than 5 steps)" when there is none. */
void scaling_text_speedup(struct strbuf *sb, const struct ana_scenario *s);
/* The same of its efficiency: "42 % (95 % CI 40-43 %)", "103 % (95 % CI 96-110 %; no
 * measurable change from 100 %)". */
void scaling_text_efficiency(struct strbuf *sb, const struct ana_scenario *s);
/* A series table's cells: "0.83x (0.80-0.86)" and "42 % (40-43 %)"; the baseline's
 * without an interval, "CI n/a" without one. */
void scaling_text_cells(const struct ana_scenario *s, char *sp, size_t nsp, char *ef,
			size_t nef);
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
/* " (95 % CI LO-HIx)" of c's per-rank compute growth, or why it has none, into out. */
void scaling_text_growth_ci(char *out, size_t n, const struct model_contention *c);
void scaling_text_contention(struct strbuf *sb, const struct ana_model *m, int host_cpus);

#endif
