/* Unit tests for PyTorch-profiler traces as step data (analyzers/torchtrace.c
 * over kineto.c): Kineto objects, the legacy array form, gzip, GPU work
 * kept in the step of its launch, and the shared DLRM trace when present. */
#include "harness.h"

#include "analyzers/kineto.h"
#include "analyzers/rules.h"
#include "analyzers/torchtrace.h"

#include <stdlib.h>
#include <unistd.h>

static struct rules phases;

static void kineto_steps_and_phases(void)
{
	struct gpu_trace t;
	CHECK(kineto_load("tests/fixtures/kineto_steps.pt.trace.json", 1, &t) == 0);
	struct rank_metrics r = { 0 };
	struct op_table ops = { 0 };
	torchtrace_rank(&t, &phases, 0, &r, &ops);
	CHECK(r.rank == 1 && r.format == METRICS_TORCH_TRACE);
	CHECK(r.n == 3);
	for (size_t i = 0; i < r.n; i++) {
		const struct step_rec *s = &r.steps[i];
		CHECK(s->step == (long)i + 1 && s->active);
		CHECK_NEAR(s->step_ms, 1.0, 1e-9);
		CHECK_NEAR(s->data_ms, 0.1, 1e-9);
		CHECK_NEAR(s->forward_ms, 0.3, 1e-9);  /* aten::addmm inside counts once */
		CHECK_NEAR(s->backward_ms, 0.4, 1e-9); /* on the autograd thread */
		CHECK_NEAR(s->comm_exposed_ms, 0.01, 1e-9);
		CHECK_NEAR(s->optimizer_ms, 0.1, 1e-9);
	}
	CHECK_NEAR(r.flops_per_step, 2e9, 1);
	op_table_sort(&ops);
	CHECK(ops.n > 0);
	CHECK_STR(ops.v[0].name, "aten::mm"); /* 300 us of self time per step */
	CHECK_NEAR(ops.v[0].self_ms, 0.9, 1e-9);
	rank_metrics_free(&r);
	for (size_t i = 0; i < ops.n; i++)
		free(ops.v[i].name);
	free(ops.v);
	gpu_trace_free(&t);
}

static void gpu_work_stays_in_the_step_of_its_launch(void)
{
	/* Three steps: the last is dropped (as HTA does). The kernel launched
	 * in step 2 runs after step 3 began: kept; the one launched in step 3
	 * is dropped. */
	struct gpu_trace t;
	CHECK(kineto_load("tests/fixtures/kineto_steps.pt.trace.json", 0, &t) == 0);
	CHECK(t.steps == 3);
	CHECK(t.n == 2);
	CHECK(t.dropped == 1);
	int late = 0;
	for (size_t i = 0; i < t.n; i++)
		late |= t.ev[i].corr == 7 && t.ev[i].start == 3500;
	CHECK(late);
	gpu_trace_free(&t);
}

static void gzip_and_legacy_forms(void)
{
	char gz[] = "/tmp/test_torchtrace.XXXXXX";
	int fd = mkstemp(gz);
	CHECK(fd >= 0);
	close(fd);
	char cmd[256];
	snprintf(cmd, sizeof cmd, "gzip -c tests/fixtures/kineto_steps.pt.trace.json > %s", gz);
	CHECK(system(cmd) == 0);
	struct gpu_trace t;
	CHECK(kineto_load(gz, 1, &t) == 0);
	struct rank_metrics r = { 0 };
	torchtrace_rank(&t, &phases, 0, &r, NULL);
	CHECK(r.n == 3 && !t.legacy);
	rank_metrics_free(&r);
	gpu_trace_free(&t);
	unlink(gz);

	CHECK(kineto_load("tests/fixtures/legacy_steps.pt.trace.json", 1, &t) == 0);
	CHECK(t.legacy);
	torchtrace_rank(&t, &phases, 0, &r, NULL);
	CHECK(r.n == 2 && r.rank == -1);
	CHECK_NEAR(r.steps[0].step_ms, 2.0, 1e-9);
	CHECK_NEAR(r.steps[0].data_ms, 0.5, 1e-9);
	CHECK_NEAR(r.steps[0].comm_exposed_ms, 0.3, 1e-9); /* gloo on its own thread, nothing else running */
	CHECK_NEAR(r.steps[0].comm_ms, 0.3, 1e-9);
	CHECK_NEAR(r.steps[0].optimizer_ms, 0.4, 1e-9);
	rank_metrics_free(&r);
	gpu_trace_free(&t);
	CHECK(torchtrace_rank_of_name("rank3.1234.pt.trace.json") == 3);
	CHECK(torchtrace_rank_of_name("worker_12_step_3.json") == 12);
	CHECK(torchtrace_rank_of_name("trace.json") == -1);
}

static void shared_dlrm_kineto_trace(void)
{
	const char *f = "../shared/traces/kineto/param_dlrm_8rank/worker0_step_12.1694128201545.pt.trace.json";
	if (access(f, R_OK) != 0) {
		printf("SKIP shared_dlrm_kineto_trace: ../shared/traces is absent\n");
		return;
	}
	struct gpu_trace t;
	CHECK(kineto_load(f, 1, &t) == 0);
	struct rank_metrics r = { 0 };
	torchtrace_rank(&t, &phases, 0, &r, NULL);
	CHECK(r.rank == 0 && r.n == 1);
	const struct step_rec *s = &r.steps[0];
	CHECK(s->step == 10);
	CHECK_NEAR(s->step_ms, 14.455, 1e-9);
	CHECK(s->data_ms > 0 && s->forward_ms > 0 && s->backward_ms > 0 && s->optimizer_ms > 0);
	CHECK(s->comm_ms > 0); /* nccl:all_to_all, nccl:all_reduce */
	double sum = s->data_ms + s->forward_ms + s->backward_ms + s->optimizer_ms + s->comm_exposed_ms + s->io_ms;
	CHECK(sum <= s->step_ms + 1e-9);
	rank_metrics_free(&r);
	gpu_trace_free(&t);
}

int main(void)
{
	if (rules_load("analyzers/phase_rules.txt", &phases) < 0)
		return 1;
	RUN(kineto_steps_and_phases);
	RUN(gpu_work_stays_in_the_step_of_its_launch);
	RUN(gzip_and_legacy_forms);
	RUN(shared_dlrm_kineto_trace);
	rules_free(&phases);
	HARNESS_END();
}
