/* jobspec: a SLURM job as it is submitted, computed once: the campaign's
 * values, then SBATCH_* from the environment, then defaults. The rendered
 * #SBATCH lines (render.c) and libslurm's job description (backend_slurm.c)
 * are both written from it, so the kept job.sbatch states what was
 * submitted. Also the one table of the slurm.extra options campaign passes on.
 * SPDX-License-Identifier: MIT */
#ifndef CAMPAIGN_JOBSPEC_H
#define CAMPAIGN_JOBSPEC_H

#include "campaign.h"

#include <stddef.h>

struct job_spec {
	int nodes, tasks_per_node, gpus_per_node; /* gpus 0: none asked for */
	const char *time;                          /* SLURM time string */
	long time_limit_s;                         /* 0: unlimited */
	const char *partition, *account, *qos, *constraint; /* NULL: the controller's default */
	int exclusive;                             /* nodes of its own */
	int cpus_per_task;                         /* 0: the controller's default */
	/* slurm.extra (checked with job_spec_extra); NULL: none */
	const struct argv *extra;
};

/* A scenario's job (slurm.exclusive: nodes of its own). */
void job_spec_scenario(const struct campaign *c, const struct scenario *s, struct job_spec *out);
/* The aggregation job: analysis.nodes x 1 task, analysis.cpus_per_task, 30 minutes. */
void job_spec_aggregate(const struct campaign *c, struct job_spec *out);

/* What a slurm.extra option sets. */
enum job_extra {
	JX_EXCLUSIVE,
	JX_MEM,
	JX_MEM_PER_CPU,
	JX_CPUS_PER_TASK,
	JX_GRES,
	JX_RESERVATION,
	JX_NODELIST,
	JX_EXCLUDE,
	JX_REQUEUE,
	JX_NO_REQUEUE
};
/* The kind of opt ("--mem=4G", "--exclusive") with *value after its '='
 * ("" for a flag), or -1 when campaign does not pass it on. */
int job_spec_extra(const char *opt, const char **value);
/* "--exclusive, --mem=, ..." for messages, into buf. */
const char *job_spec_extras(char *buf, size_t n);

#endif
