/* campaign_load: libyaml document -> struct campaign, checking the schema of
 * docs/campaign-format.md. Every problem becomes a diagnostic with its place;
 * the walk goes on after a problem so that all of them are reported at once.
 * This file holds the top level's table and the whole file's walk; the rest of
 * the loader is in load_*.c (load_internal.h says what they share).
 * SPDX-License-Identifier: MIT */
#include "load_internal.h"

#include "util/err.h"
#include "util/fsio.h"
#include "util/strbuf.h"
#include "orchestrator/campaign/prose.h"

#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define MAX_FILE_BYTES (4u << 20)

const struct key_spec root_keys[] = {
	{ "campaign", KEY_LOAD, .off = AT(name), .load = load_name,
	  .need = "missing required key 'campaign' (the campaign's name)",
	  .doc = { "name", NULL,
		   "the campaign's name; results go to `results/<campaign>/<run-id>/`" } },
	{ "description", KEY_STRING, .off = AT(description), .doc = { NULL, NULL, "free text" } },
	{ "slurm", KEY_MAP, .pass = 1, .sub = slurm_keys },
	{ "workload", KEY_MAP, .pass = 1, .sub = workload_keys },
	{ "profile", KEY_MAP, .pass = 1, .sub = profile_keys },
	{ "scenarios", KEY_LOAD, .load = load_scenarios, .pass = 3,
	  .need = "missing required key 'scenarios' (a list of scenarios)",
	  .doc = { "list (1 to " STR(CAMPAIGN_MAX_SCENARIOS) ")", NULL, "see below" } },
	{ "matrix", KEY_LOAD, .load = load_matrix, .pass = 2,
	  .doc = { "map of lists", NULL,
		   "cross product applied to every scenario (see [Matrix](#matrix))" } },
	{ "analysis", KEY_MAP, .pass = 1, .sub = analysis_keys, .after = analysis_batch },
	{ "store_journal", KEY_LOAD, .off = AT(store_journal), .load = load_journal,
	  .doc = { "`auto`, `wal` or `delete`", "`auto`", PROSE_KEY_STORE_JOURNAL } },
	{ "allow_literal_secrets", KEY_BOOL, .off = AT(allow_literal_secrets),
	  .doc = { NULL, NULL,
		   "lets an `env` value whose name or content looks secret be written literally (refused otherwise)" } },
	{ "knobs", KEY_LOAD, .load = load_knobs, .pass = 2, .sub = knob_keys,
	  .doc = { "map: kind → change", NULL, PROSE_KEY_KNOBS }, .each = ".<kind>" },
	{ "variant", KEY_MAP, .pass = 2, .sub = variant_keys, .after = load_variant_change,
	  .doc = { "`{of, kind, <change>}`", NULL, PROSE_KEY_VARIANT } },
	{ "bisect", KEY_MAP, .pass = 2, .sub = bisect_keys,
	  .doc = { "`{of, commit, scenario, active_steps}`", NULL, PROSE_KEY_BISECT } },
	KEYS_END
};

static void load_root(struct loader *L, yaml_node_t *root)
{
	if (load_keys(L, root, "", root_keys, L->c) < 0)
		return;
	if (L->d->n == 0)
		campaign_expand(L, root);
	if (L->d->n == 0)
		check_knobs(L, root);
	if (L->d->n == 0 && L->c->bisect.scenario)
		bisect_keep(L, root);
}

static int parse_document(struct loader *L, const char *data, size_t len)
{
	yaml_parser_t parser;
	yaml_parser_initialize(&parser);
	yaml_parser_set_input_string(&parser, (const unsigned char *)data, len);
	int ok = yaml_parser_load(&parser, &L->doc);
	if (!ok) {
		size_t at = parser.problem_mark.index;
		diags_add(L->d, (int) parser.problem_mark.line + 1,
			  (int) parser.problem_mark.column + 1, "", "YAML syntax error: %s%s%s%s",
			  parser.problem ? parser.problem : "malformed input",
			  parser.context ? " " : "", parser.context ? parser.context : "",
			  at < len && data[at] == '\t' ? " (a tab: YAML indents with spaces)" : "");
		yaml_parser_delete(&parser);
		return -1;
	}
	if (!yaml_document_get_root_node(&L->doc)) {
		diags_add(L->d, 1, 1, "", "the campaign file is empty");
		yaml_document_delete(&L->doc);
		yaml_parser_delete(&parser);
		return -1;
	}
	yaml_document_t extra;
	if (yaml_parser_load(&parser, &extra)) {
		yaml_node_t *r = yaml_document_get_root_node(&extra);
		if (r)
			diags_add(L->d, (int) r->start_mark.line + 1,
				  (int) r->start_mark.column + 1, "",
				  "a campaign file holds one YAML document; found another here");
		yaml_document_delete(&extra);
	} else {
		diags_add(L->d, (int) parser.problem_mark.line + 1,
			  (int) parser.problem_mark.column + 1, "", "YAML syntax error: %s",
			  parser.problem ? parser.problem : "malformed input");
	}
	yaml_parser_delete(&parser);
	if (L->d->n) {
		yaml_document_delete(&L->doc);
		return -1;
	}
	return 0;
}

int campaign_load_buffer(const char *name, const char *data, size_t len,
			 struct campaign *c, struct diags *d)
{
	struct loader L = { .d = d, .c = c };
	memset(c, 0, sizeof *c);
	if (parse_document(&L, data, len) < 0)
		return ERR_USAGE;
	key_defaults(c, root_keys);
	if (check_aliases(&L) == 0 && check_tags(&L) == 0)
		load_root(&L, yaml_document_get_root_node(&L.doc));
	yaml_document_delete(&L.doc);
	for (size_t i = 0; i < L.n_axes; i++) {
		free(L.axes[i].key);
		argv_free(&L.axes[i].values);
	}
	free(L.axes);
	for (size_t i = 0; i < L.n_raw; i++) {
		free(L.raw[i].name);
		free(L.raw[i].backend);
		free(L.raw[i].time);
		kvlist_free(&L.raw[i].env);
		kvlist_free(&L.raw[i].params);
	}
	free(L.raw);
	if (d->n) {
		campaign_free(c);
		return ERR_USAGE;
	}
	c->path = xstrdup(name);
	return 0;
}

int campaign_load(const char *file, struct campaign *c, struct diags *d)
{
	char *data;
	size_t len;
	memset(c, 0, sizeof *c);
	struct stat st;
	if (stat(file, &st) == 0 && st.st_size > (off_t)MAX_FILE_BYTES) {
		diags_add(
			d, 0, 0, "",
			PROSE_FILE_TOO_BIG,
			(long long) st.st_size);
		return ERR_USAGE;
	}
	int rc = fsio_read(file, MAX_FILE_BYTES, &data, &len);
	if (rc < 0) {
		diags_add(d, 0, 0, "", "cannot read it: %s", err_last());
		return ERR_USAGE;
	}
	rc = campaign_load_buffer(file, data, len, c, d);
	free(data);
	return rc;
}
