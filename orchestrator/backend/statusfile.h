/* statusfile: a job's status file, the job.status every job writes on exit
 * (see templates/job.sbatch): reading it, whose it is, and the end state it
 * says. It writes nothing; the job states are jobstate.h's, the snapshot of
 * job rows snapshot.h's.
 * SPDX-License-Identifier: MIT */
#ifndef CAMPAIGN_STATUSFILE_H
#define CAMPAIGN_STATUSFILE_H

#include "orchestrator/store/jobstate.h"

struct status_file {
	int exit_code;
	double start, end;
	char nodelist[256];
	char host[256];
	char job_id[32]; /* the scheduler's id of the job that wrote it ("" unknown) */
	int restart;     /* SLURM_RESTART_COUNT of the run that wrote it (-1 unknown) */
};

/* 0 when job_dir/job.status exists and parses; ERR_NOTFOUND when absent. */
int statusfile_read(const char *job_dir, struct status_file *out);
/* 1 when the file was written by job_id (or says nothing about its job):
 * a job.status left by another attempt must not decide this one. */
int statusfile_is_of(const struct status_file *js, const char *job_id);
/* The same, and written by the run with this restart count (a requeued job
 * runs again under its id; a file that does not say its restart is taken). */
int statusfile_is_of_run(const struct status_file *js, const char *job_id, int restart);
/* COMPLETED for exit 0 (the job's own completion wins over a cancel or time
 * limit that came as it ended); else TIMEOUT/CANCELLED when the executor
 * says so; else FAILED. */
enum job_state statusfile_decide(const struct status_file *js, int timed_out, int cancelled);

#endif
