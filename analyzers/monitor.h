/* monitor: ingest of campaign-monitor's cpu_monitor.csv files (one per
 * node under <job>/monitor/<node>/), streamed line by line: mean CPU
 * utilisation and iowait, and the memory peak, over all nodes. */
#ifndef ANALYZERS_MONITOR_H
#define ANALYZERS_MONITOR_H

struct monitor_summary {
	int nodes;
	long samples;
	double cpu_util_mean_pct, iowait_mean_pct, mem_peak_pct, mem_peak_mib;
};

/* 0 with *out filled, or ERR_NOTFOUND when the job has no monitor data. */
int monitor_summarise(const char *job_dir, struct monitor_summary *out);

#endif
