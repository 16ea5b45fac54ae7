/* nodelist: see nodelist.h.
 * SPDX-License-Identifier: MIT */
#include "nodelist.h"

#include "slurmconf.h"
#include "strbuf.h"

#include <slurm/slurm.h>
#include <stdio.h>
#include <stdlib.h>

int nodelist_shared(const char *a, const char *b, char *first, size_t n)
{
	int shared = 0;
	hostlist_t ha = a && *a ? slurm_hostlist_create(a) : NULL,
		   hb = b && *b ? slurm_hostlist_create(b) : NULL;
	char *h;
	while (ha && hb && (h = slurm_hostlist_shift(ha))) {
		if (slurm_hostlist_find(hb, h) >= 0 && shared++ == 0)
			snprintf(first, n, "%s", h);
		free(h);
	}
	if (ha)
		slurm_hostlist_destroy(ha);
	if (hb)
		slurm_hostlist_destroy(hb);
	return shared;
}

char *nodelist_first(const char *nodelist)
{
	if (!nodelist || !*nodelist)
		return NULL;
	hostlist_t hl = slurm_hostlist_create(nodelist);
	char *first = hl ? slurm_hostlist_shift(hl) : NULL;
	if (hl)
		slurm_hostlist_destroy(hl);
	if (!first)
		return NULL;
	char *name = xstrdup(first);
	free(first);
	return name;
}

char *nodelist_first_addr(const char *nodelist)
{
	char *addr = nodelist_first(nodelist);
	if (!addr)
		return NULL;
	node_info_msg_t *msg = NULL;
	if (slurm_ready() == 0 && slurm_load_node_single(&msg, addr, SHOW_ALL) == SLURM_SUCCESS &&
	    msg && msg->record_count > 0 && msg->node_array[0].node_addr &&
	    *msg->node_array[0].node_addr) {
		free(addr);
		addr = xstrdup(msg->node_array[0].node_addr);
	}
	slurm_free_node_info_msg(msg);
	return addr;
}
