/* ranklines: the launch's records of which process each rank is
 * (<job>/ranks/), and from them whose each line of a job's rank logs is. A
 * rank campaign starts itself writes <job>/logs/rank_<r>.out of its own.
 * Under a per-node launcher (the job's ranks/ holds launcher_<n>.json)
 * logs/rank_<n>.out is node n's launcher's output: torchrun copies each
 * worker's lines there (--tee) prefixed "[<role><LOCAL_RANK>]:"
 * ("[default1]:"), so such a line is the output of the worker of that local
 * rank on node n, whose global rank its record says (ranks/rank_<RANK>.json:
 * node_rank, local_rank). Lines without a prefix stay the node's: its
 * launcher's own, or workers' that torchrun did not tee. It only reads: the
 * records and logs stay as they were written.
 * SPDX-License-Identifier: MIT */
#ifndef ANALYZERS_RANKLINES_H
#define ANALYZERS_RANKLINES_H

#include <stddef.h>

/* A launcher's record of a rank (<job_dir>/ranks/rank_<r>.json: docs/formats.md). */
struct rank_record {
	long rank, pid;
	long local_rank, node_rank; /* a per-node launcher's worker's; -1 otherwise */
	int worker; /* a per-node launcher's worker, recorded with the RANK it was given */
	char host[256], node[256];
};
/* The launcher's records of ranks in job_dir/ranks/ (rank_<r>.json; a per-node
 * launcher's own launcher_<n>.json is no rank) into *out (xmalloc'd); how many. */
size_t ranklines_records(const char *job_dir, struct rank_record **out);

struct ranklines_worker {
	long node, local, rank;
};

struct ranklines {
	int per_node;   /* the logs are node logs (launcher records exist) */
	long launchers; /* launcher_<n>.json found */
	long workers;   /* workers per node: the world launched over the launchers; 0 unknown */
	struct ranklines_worker *w; /* the worker records (rank_<r>.json with a local_rank) */
	size_t n;
};

/* The records of job_dir/ranks/ into rl; world: the ranks launched (0 unknown),
 * which gives the workers per node. Never fails: no records, the ranks mode. */
void ranklines_load(const char *job_dir, long world, struct ranklines *rl);
void ranklines_free(struct ranklines *rl);
/* The global rank of the worker of local rank local on node: its record's,
 * else (a worker that ended before it was found) node x workers + local, as
 * torchrun's static rendezvous numbers them; -1 when neither is known. */
long ranklines_rank(const struct ranklines *rl, long node, long local);
/* Where rank's lines are under a per-node launcher: its node's log and its
 * local rank there (its record, else as ranklines_rank numbers them).
 * Returns 0, or -1 when neither is known. */
int ranklines_where(const struct ranklines *rl, long rank, long *node, long *local);
/* Torchrun's prefix of line (len bytes): its length ("[default1]:" 11),
 * the local rank it names in *local; 0 when line has none. */
size_t ranklines_prefix(const char *line, size_t len, long *local);
/* Whose line (len bytes) of logs/rank_<file>.out is: a rank (>= 0), else -1
 * (a node's own line, or a worker's no record or world size numbers);
 * *skip: the length of its prefix, where its text starts (0: none). */
long ranklines_of(const struct ranklines *rl, long file, const char *line, size_t len,
		  size_t *skip);

#endif
