/* load_doc: `campaign help --keys`: the key tables of docs/campaign-format.md, written from
 * the loader's tables (root_keys, scenario_keys and those they lead to).
 * SPDX-License-Identifier: MIT */
#include "load_internal.h"

#include "analyzers/advice.h"
#include "util/strbuf.h"
#include "orchestrator/campaign/prose.h"

#include <string.h>

static void doc_type(struct strbuf *sb, const struct key_spec *k)
{
	if (k->doc.type) {
		strbuf_adds(sb, k->doc.type);
	} else if (k->type == KEY_INT) {
		if (k->max >= 1e6)
			strbuf_addf(sb, "integer ≥ %g", k->min);
		else
			strbuf_addf(sb, "%g–%g", k->min, k->max);
	} else if (k->type == KEY_DOUBLE) {
		strbuf_addf(sb, "number ≥ %g", k->min);
	} else if (k->type == KEY_BOOL) {
		strbuf_adds(sb, "bool");
	} else if (k->type == KEY_SWITCH) {
		const char *keys[KEYS_MAX + 1];
		strbuf_adds(sb, "bool or `{");
		for (size_t i = 0, n = key_names(k->sub, keys, 0); i < n; i++)
			strbuf_addf(sb, "%s%s", i ? ", " : "", keys[i]);
		strbuf_adds(sb, "}`");
	} else if (k->type == KEY_THRESHOLDS) {
		strbuf_addf(sb, "number %g–%g", ana_threshold_keys[0].min,
			    ana_threshold_keys[0].max);
	} else {
		strbuf_adds(sb, "string");
	}
}

static void doc_default(struct strbuf *sb, const struct key_spec *k)
{
	if (k->doc.def) {
		strbuf_adds(sb, k->doc.def);
	} else if (k->need) {
		strbuf_adds(sb, "required");
	} else if (k->str_def) {
		strbuf_addf(sb, "`%s`", k->str_def);
	} else if (k->type == KEY_BOOL) {
		strbuf_adds(sb, k->def ? "`true`" : "`false`");
	} else if (k->type == KEY_THRESHOLDS) {
		for (size_t i = 0; i < ANA_THRESHOLDS; i++) {
			const struct ana_threshold_key *d = &ana_threshold_keys[i];
			size_t n = strlen(d->key) - (strstr(d->key, "_pct") ? 4 : 0);
			strbuf_addf(sb, "%s%.*s %g", i ? ", " : "", (int)n, d->key, d->def);
		}
	} else if (k->def) {
		strbuf_addf(sb, "%g", k->def);
	} else {
		strbuf_adds(sb, "none");
	}
}

/* A key's meaning, "@KINDS@" in it spelled as the recommendation kinds a knob may name (the
 * loader's own list, so the docs never drift from what it accepts). */
static void doc_meaning(FILE *out, const char *meaning)
{
	const char *at = strstr(meaning, "@KINDS@");
	if (!at) {
		fputs(meaning, out);
		return;
	}
	struct strbuf kinds = STRBUF_INIT;
	rec_kind_list(&kinds, "`");
	fprintf(out, "%.*s%s%s", (int)(at - meaning), meaning, strbuf_str(&kinds),
		at + strlen("@KINDS@"));
	strbuf_free(&kinds);
}

/* A row for each key of t with a meaning, its mappings' and items' keys after it. */
static void doc_rows(FILE *out, const struct key_spec *t, const char *prefix)
{
	for (; t->key; t++) {
		char path[128];
		snprintf(path, sizeof path, "%s%s%s", prefix, t->key,
			 t->type == KEY_THRESHOLDS ? ".*_pct" : "");
		if (t->doc.meaning) {
			struct strbuf type = STRBUF_INIT, def = STRBUF_INIT;
			doc_type(&type, t);
			doc_default(&def, t);
			fprintf(out, "| `%s` | %s | %s | ", path, strbuf_str(&type),
				strbuf_str(&def));
			doc_meaning(out, t->doc.meaning);
			fputs(" |\n", out);
			strbuf_free(&type);
			strbuf_free(&def);
		}
		if (t->sub && (t->type == KEY_MAP || t->type == KEY_SWITCH || t->each)) {
			char sub[160];
			snprintf(sub, sizeof sub, "%s%s.", path, t->each ? t->each : "");
			doc_rows(out, t->sub, sub);
		}
	}
}

void campaign_keys_doc(FILE *out)
{
	static const char head[] = "| key | type | default | meaning |\n|---|---|---|---|\n";
	fputs(PROSE_KEYS_GENERATED_COMMENT,
	      out);
	fputs(head, out);
	doc_rows(out, root_keys, "");
	fprintf(out, "\nA scenario:\n\n%s", head);
	doc_rows(out, scenario_keys, "");
	fputs("<!-- end of the generated key tables -->\n", out);
}
