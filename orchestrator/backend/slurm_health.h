/* slurm_health: what the controller says of a running job's nodes (not
 * responding, down, failing, draining: from one slurm_load_node), and the
 * memory of a controller outage: its first failed contact, kept in the run
 * directory so that a one-shot `status` can say since when.
 * SPDX-License-Identifier: MIT */
#ifndef CAMPAIGN_SLURM_HEALTH_H
#define CAMPAIGN_SLURM_HEALTH_H

#include "orchestrator/run.h"

#include <slurm/slurm.h>
#include <stddef.h>

/* "n2 not responding since 04:42:07" for each node of nodelist that is not
 * healthy ("; " between them), "" when all are. A condition already in prev
 * (the job's earlier words) keeps its "since"; else the node's reason time,
 * else now. */
void slurm_nodes_health(const node_info_msg_t *nodes, const char *nodelist, const char *prev,
			double now, char *out, size_t n);
/* The nodes of nodelist that are down, failing or not responding, "n2,n3";
 * else those prev (words slurm_nodes_health wrote) names; "" for none. */
void slurm_nodes_failed(const node_info_msg_t *nodes, const char *nodelist, const char *prev,
			char *out, size_t n);

/* Records whether the controller answered this run's poll: the first failed
 * contact is written to RUN_DIR/.controller-down (kept across processes),
 * an answer removes it; sets r->ctl_down_since and r->ctl_addr. */
void slurm_outage_note(struct run *r, const char *conf, int down);
/* 1 when an outage is on record for r (a poll may then probe before an RPC). */
int slurm_outage_known(const struct run *r);

#endif
