/* jobstatus: reading the job.status file every job writes on exit (see
 * templates/job.sbatch) and deciding a job's true end state from it. */
#ifndef CAMPAIGN_JOBSTATUS_H
#define CAMPAIGN_JOBSTATUS_H

#include "orchestrator/store/jobstate.h"

struct job_status {
	int exit_code;
	double start, end;
	char nodelist[256];
	char host[256];
	char job_id[32]; /* the scheduler's id of the job that wrote it ("" unknown) */
	int restart;     /* SLURM_RESTART_COUNT of the run that wrote it (-1 unknown) */
};

/* 0 when job_dir/job.status exists and parses; ERR_NOTFOUND when absent. */
int jobstatus_read(const char *job_dir, struct job_status *out);
/* 1 when the file was written by job_id (or says nothing about its job):
 * a job.status left by another attempt must not decide this one. */
int jobstatus_is_of(const struct job_status *js, const char *job_id);
/* The same, and written by the run with this restart count (a requeued job
 * runs again under its id; a file that does not say its restart is taken). */
int jobstatus_is_of_run(const struct job_status *js, const char *job_id, int restart);
/* COMPLETED for exit 0 (the job's own completion wins over a cancel or time
 * limit that came as it ended); else TIMEOUT/CANCELLED when the executor
 * says so; else FAILED. */
enum job_state jobstatus_decide(const struct job_status *js, int timed_out, int cancelled);

#endif
