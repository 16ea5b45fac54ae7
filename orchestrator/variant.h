/* variant: a run that applies one knob to every scenario of another run, to
 * check a recommendation's predicted gain (`campaign try`). Owns the
 * variant's campaign text (the parent's frozen campaign with a `variant:`
 * key holding the change), its RUN/variant.json (parent, kind, knob,
 * recommendation, predictions) and reading that back for the analysis; and
 * how other commands show a variant's checked predictions (compare, paper):
 * as its summary.json holds them, never decided again.
 * SPDX-License-Identifier: MIT */
#ifndef CAMPAIGN_VARIANT_H
#define CAMPAIGN_VARIANT_H

#include "orchestrator/campaign/campaign.h"
#include "util/strbuf.h"
#include "util/words.h"

#include <jansson.h>

/* What a run recommends of one kind: the scenarios and their predictions. */
struct variant_plan {
	char *kind;
	char *text;         /* the first recommendation's sentence */
	json_t *predictions; /* [{scenario, step_ms, predicted_step_ms}] (null: no ceiling) */
};

/* The recommendations of kind in summary (summary.json); 0, or ERR_NOTFOUND
 * when the run recommends nothing of that kind. */
int variant_plan_of(json_t *summary, const char *kind, struct variant_plan *out);
void variant_plan_free(struct variant_plan *p);
/* The kinds summary recommends, in order, each once, into out (emptied first). */
void variant_kinds(json_t *summary, struct argv *out);
/* Into out: the parent's campaign text with `variant:` (of parent_id, the
 * knob k) appended. The parent is no variant itself (its campaign's
 * variant.kind is NULL: campaign try refuses one before). */
void variant_campaign_text(const char *parent_text, const char *parent_id, const struct knob *k,
			   struct strbuf *out);
/* What a variant's provenance.json (and its jobs' metadata) say of it: the parent
 * run, the kind, the knob (its env as names only), the recommendation and the
 * predictions. */
json_t *variant_provenance(const char *parent_id, const struct knob *k,
			   const struct variant_plan *p);
/* Writes child_dir/variant.json; control_id and control_dir: the control run its checks are
 * set against (campaign try --control), NULL: none. */
int variant_write(const char *child_dir, const char *parent_id, const char *parent_dir,
		  const struct knob *k, const struct variant_plan *p, const char *control_id,
		  const char *control_dir);
struct ana_variant;
/* The checks of a variant run for its analysis (analyzers/prediction_check.h): its
 * predictions with the parent's step times and shares (from the parent's
 * summary.json), its knob with env as names only; out->of NULL when run_dir is
 * not a variant's. */
int variant_checks(const char *run_dir, struct ana_variant *out);
/* run_dir/variant.json, or NULL when the run is not a variant (or it cannot be read). */
json_t *variant_read(const char *run_dir);

/* What makes a run a variant, {of, kind, knob}: its summary.json's variant
 * (sv), else its variant.json (in run_dir dv: analysed before summary.json
 * said so); NULL when neither (a new reference). */
json_t *variant_info(json_t *sv, const char *dv);
/* A knob (summary.json's variant.knob) in one line, each value at its dotted
 * path in the order the file holds them: "params.ddp=bucketed, tasks_per_node=4". */
void variant_knob_text(json_t *knob, struct strbuf *out);

#endif
