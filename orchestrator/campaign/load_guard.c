/* load_guard: what the loader refuses of a parsed document before reading any key: aliases
 * that recurse or expand past a bound (alias bombs), and YAML tags other than the core
 * schema's.
 * SPDX-License-Identifier: MIT */
#include "load_internal.h"

#include "util/strbuf.h"

#include <stdlib.h>
#include <string.h>

#define MAX_EXPANDED_NODES 100000L

/* Size of the tree rooted at idx once aliases are expanded; -1 on a cycle. */
static long expanded_size(struct loader *L, int idx, long *memo, char *busy)
{
	if (memo[idx] >= 0)
		return memo[idx];
	if (busy[idx])
		return -1;
	busy[idx] = 1;
	yaml_node_t *n = node_at(L, idx);
	long total = 1;
	if (n->type == YAML_SEQUENCE_NODE) {
		for (yaml_node_item_t *it = n->data.sequence.items.start;
		     it < n->data.sequence.items.top && total >= 0; it++) {
			long s = expanded_size(L, *it, memo, busy);
			total = s < 0 ? -1 : total + s;
			if (total > MAX_EXPANDED_NODES)
				total = MAX_EXPANDED_NODES + 1;
		}
	} else if (n->type == YAML_MAPPING_NODE) {
		for (yaml_node_pair_t *p = n->data.mapping.pairs.start;
		     p < n->data.mapping.pairs.top && total >= 0; p++) {
			long a = expanded_size(L, p->key, memo, busy),
			     b = expanded_size(L, p->value, memo, busy);
			total = (a < 0 || b < 0) ? -1 : total + a + b;
			if (total > MAX_EXPANDED_NODES)
				total = MAX_EXPANDED_NODES + 1;
		}
	}
	busy[idx] = 0;
	memo[idx] = total;
	return total;
}

int check_aliases(struct loader *L)
{
	int count = (int)(L->doc.nodes.top - L->doc.nodes.start);
	long *memo = xmalloc(((size_t)count + 1) * sizeof *memo);
	char *busy = xcalloc((size_t)count + 1, 1);
	for (int i = 0; i <= count; i++)
		memo[i] = -1;
	long size = expanded_size(L, 1, memo, busy);
	free(memo);
	free(busy);
	yaml_node_t *root = node_at(L, 1);
	if (size < 0) {
		problem(L, root, "",
			"an alias refers to the node that contains it (recursive document)");
		return -1;
	}
	if (size > MAX_EXPANDED_NODES) {
		problem(L, root, "",
			"document expands to more than %ld nodes through aliases; refusing it",
			MAX_EXPANDED_NODES);
		return -1;
	}
	return 0;
}

/* A tag is never acted on: the core schema's own (!!str, !!int ...) are
 * what the value is anyway; any other (!include, !vault, !!python/...) is
 * refused where it stands rather than dropped or read as text. */
int check_tags(struct loader *L)
{
	static const char *const core[] = { "str",  "int", "float", "bool",
					    "null", "map", "seq",   NULL };
	const char prefix[] = "tag:yaml.org,2002:";
	int bad = 0;
	for (yaml_node_t *n = L->doc.nodes.start; n < L->doc.nodes.top; n++) {
		const char *tag = (const char *)n->tag;
		int k = 0;
		if (tag && !strncmp(tag, prefix, sizeof prefix - 1))
			while (core[k] && strcmp(tag + sizeof prefix - 1, core[k]))
				k++;
		if (!tag || (!strncmp(tag, prefix, sizeof prefix - 1) && core[k]))
			continue;
		int std = !strncmp(tag, prefix, sizeof prefix - 1);
		problem(L, n, "",
			"the YAML tag %s%.60s is not supported: campaign files take plain values (no !include, secrets or objects; remove the tag)",
			std ? "!!" : "", std ? tag + sizeof prefix - 1 : tag);
		bad = 1;
	}
	return bad ? -1 : 0;
}
