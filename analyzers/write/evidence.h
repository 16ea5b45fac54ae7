/* evidence: the sentences that say why a scenario got its verdict, written
 * from its accounted shares, flags and basis (the numbers stay in the
 * scenario; every consumer asks here for the words). */
#ifndef ANALYZERS_EVIDENCE_H
#define ANALYZERS_EVIDENCE_H

#include "analyzers/analysis.h"
#include "util/strbuf.h"

/* The evidence of s's verdict, one paragraph (no trailing period). */
void evidence_write(struct strbuf *sb, const struct ana_scenario *s, const struct ana_run *run);
/* A share in words ("exposed communication and waiting for peers", "the GPU
 * waiting for the host" ...), for the basis it was measured on. */
const char *evidence_share_words(enum share_kind k, enum verdict_basis basis, int straggler);
/* A straggler's cause ("compute", "data loading", "I/O", "host/other", "unknown"). */
const char *evidence_cause_words(enum straggler_cause k);

#endif
