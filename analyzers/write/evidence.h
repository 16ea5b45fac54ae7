/* evidence: the sentences that say why a scenario got its verdict, written
 * from its accounted shares, flags and basis (the numbers stay in the
 * scenario; every consumer asks here for the words).
 * SPDX-License-Identifier: MIT */
#ifndef ANALYZERS_EVIDENCE_H
#define ANALYZERS_EVIDENCE_H

#include "analyzers/analysis.h"
#include "util/strbuf.h"

/* The evidence of s's verdict, one paragraph (no trailing period). */
void evidence_write(struct strbuf *sb, const struct ana_scenario *s, const struct ana_run *run);
/* The same, malloc'd (the caller frees it). */
char *evidence_of(const struct ana_scenario *s, const struct ana_run *run);
/* With the node monitors' verdict, the figure it rests on ("CPUs busy 99.7 %", "host
 * memory peak 95.0 %", ...): 1 when written, 0 (nothing) on another basis or none saturated. */
int evidence_monitor_figure(struct strbuf *sb, const struct ana_scenario *s);
/* A share in words ("exposed communication and waiting for peers", "the GPU
 * waiting for the host" ...), for the basis it was measured on. */
const char *evidence_share_words(enum share_kind k, enum verdict_basis basis, int straggler);
/* Share k's words beside s's verdict: waiting for slower ranks holds the compute stragglers'
 * own extra compute too where they have it (outcome.excess_pct); str as above. */
const char *evidence_share_words_of(const struct ana_scenario *s, enum share_kind k, int str);
/* Compute's share less the compute stragglers' own extra (outcome.excess_pct), the
 * difference of the two as the report prints them (to 0.1): the compute verdict's share in
 * words; the share itself without such an extra. */
double evidence_compute_less_pct(const struct ana_scenario *s);
/* A share (%) as the report prints it, to 0.1: the parts a sum beside them is made of. */
double evidence_printed(double pct);
/* Share k (of pct) as a sentence prints it: where it is two parts said beside it (compute
 * less the stragglers' extra, or the waiting plus that extra), the parts' difference or sum as
 * printed, so that a reader's arithmetic holds; else pct. */
double evidence_shown_pct(const struct ana_scenario *s, enum share_kind k, double pct);
/* After a compute split (GEMM, elementwise) that leaves part of compute out (a busy loop, an
 * operator of neither kind): ", of the 11.2 % of compute timed as one or the other"; nothing
 * where it holds 95 % of compute or more. */
void evidence_split_cover(struct strbuf *sb, const struct ana_scenario *s);
/* The verb after evidence_share_words_of: "takes", or "take" for a plural. */
const char *evidence_takes_of(const struct ana_scenario *s, enum share_kind k);
/* A straggler's cause ("compute", "data loading", "I/O", "host/other", "unknown"). */
const char *evidence_cause_words(enum straggler_cause k);
/* The ranks of a straggler group (straggler_group_len: g[0..len)): "rank 7 on local4",
 * "ranks 2 and 3 on local2", "rank 2 on a and rank 5 on b". */
void evidence_straggler_names(struct strbuf *sb, const struct straggler *g, size_t len);
/* The own share of kind k (a table column: compute, data loading ...), without the waiting
 * for slower ranks counted with it; -1 for a kind with no column of its own apart from that
 * waiting (on a GPU all but communication, whose transfer it is where its waiting is known). */
double evidence_own_pct(const struct ana_scenario *s, enum share_kind k);
/* The waiting for slower ranks (the table's Wait %): the host's, or the GPU's inside its
 * exposed communication (0 where not known). */
double evidence_wait_pct(const struct ana_scenario *s);
/* Whether the verdict's share holds the other ranks' waiting (Wait %) besides its own
 * column: waiting counted with its cause or with communication (on a GPU, always with
 * communication). */
int evidence_share_holds_wait(const struct ana_scenario *s);

#endif
