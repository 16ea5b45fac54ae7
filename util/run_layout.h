/* run_layout: the names of the files and folders campaign keeps in a run
 * directory (<results>/<campaign>/<run-id>/) and in each scenario's job
 * directory beneath it; docs/formats.md describes what each holds.
 * SPDX-License-Identifier: MIT */
#ifndef UTIL_RUN_LAYOUT_H
#define UTIL_RUN_LAYOUT_H

/* the run directory */
#define RUN_STATE_DB "state.db"                 /* the SQLite state store */
#define RUN_CAMPAIGN "campaign.yaml"            /* the campaign file as submitted */
#define RUN_PROVENANCE "provenance.json"
#define RUN_SUMMARY "summary.json"
#define RUN_REPORT "BOTTLENECK_ANALYSIS.md"
#define RUN_TIMELINE "timeline.json"
#define RUN_FIGURES "figures"
#define RUN_SUPERVISOR_LOG "supervisor.log"     /* the local executor's detached supervisor */
#define RUN_SUBMIT_LOCK ".submit.lock" /* held by a submit or resume while it plans and queues */
#define RUN_VARIANT "variant.json"             /* campaign try: parent, knob, predictions */
#define RUN_ANALYSIS_INPUT "analysis_input.json" /* what the last aggregation analysed */
#define RUN_ANALYSIS_LOCK ".aggregate.lock"     /* held while the analysis is written */
#define RUN_AGGREGATE_SCRIPT "aggregate.sbatch" /* the aggregation job's script as submitted */
#define RUN_PARTIAL ".partial" /* the map step's plan and per-file results (analyzers/shard.h) */
/* in RUN_PARTIAL: the timeline fragments of the traces timeline.json shows
 * (analyzers/timeline_fragment.h), from the map step until timeline.json is written */
#define RUN_PARTIAL_TIMELINE "timeline"

/* Files that may hold env values (the campaign file, job scripts, job
 * metadata, provenance patches) are the submitting user's alone, whatever
 * the umask: on a shared file system others read nothing of them. */
#define RUN_PRIVATE_MODE 0600
#define RUN_PRIVATE_SCRIPT_MODE 0700

/* a scenario's job directory */
#define JOB_SCRIPT "job.sbatch"                 /* exactly what ran */
#define JOB_STATUS "job.status"                 /* written by the job script at its end */
#define JOB_METADATA "job_metadata.json"
#define JOB_METRICS "metrics"  /* rank_<r>.jsonl, rank_<r>.trace.json, fabric.json */
/* in JOB_METRICS: the reference trainer's trace of rank %d, beside its telemetry */
#define JOB_TRAINER_TRACE "rank_%d.trace.json"
#define JOB_TRACES "traces"                     /* the workload's profiler traces, collected */
#define JOB_NSYS "nsys"                         /* Nsight Systems reports and exports */
#define JOB_LOGS "logs"                         /* rank_<r>.out */
#define JOB_RANKS "ranks"                       /* rank_<r>.json, launcher_<n>.json: processes */
#define JOB_FAILED_RANK "failed.json"           /* in JOB_RANKS: the task that failed first */
#define JOB_MONITOR "monitor"                   /* <node>/cpu_monitor.csv, gpu_monitor.csv */
#define JOB_NCCL_INSPECTOR "nccl_inspector"     /* NCCL Inspector dumps, <host>-pid<pid>.log */
#define JOB_ANALYSIS "analysis.json"
#define JOB_REPORT "report.txt"

#endif
