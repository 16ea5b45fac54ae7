/* SPDX-License-Identifier: MIT */
#include "telemetry.h"
#include "clock.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

int telemetry_open(struct telemetry *t, const char *dir, int rank, long steps)
{
	char path[4096];
	memset(t, 0, sizeof *t);
	t->rank = rank;
	t->steps = steps;
	struct timespec rt;
	clock_gettime(CLOCK_REALTIME, &rt);
	t->unix_off_us = (double)rt.tv_sec * 1e6 + (double)rt.tv_nsec / 1e3 - now_ms() * 1e3;
	if (mkdir(dir, 0755) < 0 && errno != EEXIST)
		return -1;
	snprintf(path, sizeof path, "%s/rank_%d.jsonl", dir, rank);
	t->f = fopen(path, "w");
	return t->f ? 0 : -1;
}

void telemetry_meta(struct telemetry *t, const char *json_fields)
{
	if (!t->f)
		return;
	fprintf(t->f, "{\"type\": \"meta\", \"version\": 1, %s}\n", json_fields);
	fflush(t->f);
}

void telemetry_step(struct telemetry *t, const struct step_times *s)
{
	if (!t->f)
		return;
	char loss[32] = "null"; /* JSON has no NaN: a diverged run logs null */
	/* the step just ended: it started step_ms ago */
	double start_us = (now_ms() - s->step_ms) * 1e3 + t->unix_off_us;
	/* the end of its last all-reduce, on the same clock (what times a step of coupled ranks:
	 * docs/analysis.md, "What a step's time is") */
	char coll[64] = "";
	if (s->coll_end_ms > 0)
		snprintf(coll, sizeof coll, ", \"coll_end_us\": %.0f",
			 s->coll_end_ms * 1e3 + t->unix_off_us);
	if (isfinite(s->loss))
		snprintf(loss, sizeof loss, "%.9g", s->loss);
	/* one line, written in three parts: the step, its phases, the rest */
	fprintf(t->f, "{\"type\": \"step\", \"step\": %ld, \"phase\": \"%s\", ", s->step,
		s->active ? "active" : "warmup");
	fprintf(t->f, "\"data_wait_ms\": %.4f, \"forward_ms\": %.4f, \"backward_ms\": %.4f, ",
		s->data_wait_ms, s->forward_ms, s->backward_ms);
	fprintf(t->f, "\"comm_ms\": %.4f, \"comm_exposed_ms\": %.4f, \"overlap\": %.4f, ",
		s->comm_ms, s->comm_exposed_ms, s->overlap);
	fprintf(t->f, "\"optimizer_ms\": %.4f, \"io_ms\": %.4f, \"gemm_ms\": %.4f, ",
		s->optimizer_ms, s->io_ms, s->gemm_ms);
	fprintf(t->f, "\"elementwise_ms\": %.4f, \"step_ms\": %.4f, \"samples\": %ld, ",
		s->elementwise_ms, s->step_ms, s->samples);
	fprintf(t->f, "\"loss\": %s, \"bytes_allreduced\": %.0f, \"param_checksum\": \"%016" PRIx64,
		loss, s->bytes_allreduced, s->checksum);
	fprintf(t->f, "\", \"start_us\": %.0f%s}\n", start_us, coll);
	if (++t->lines % 16 == 0)
		fflush(t->f);
	if (t->rank == 0 && t->f && (s->step % 10 == 0 || s->step + 1 == t->steps))
		printf("step %ld/%ld loss %.6f step %.2f ms\n", s->step + 1, t->steps, s->loss,
		       s->step_ms);
}

void telemetry_close(struct telemetry *t)
{
	if (t->f)
		fclose(t->f);
	t->f = NULL;
}
