/* Unit tests for PyTorch-profiler traces as step data (analyzers/torchtrace.c
 * over kineto.c): Kineto objects, the legacy array form, gzip, GPU work
 * kept in the step of its launch, and the shared DLRM trace when present.
 * SPDX-License-Identifier: MIT */
#include "harness.h"

#include "analyzers/read/kineto.h"
#include "analyzers/read/rules.h"
#include "analyzers/shard.h"
#include "analyzers/timeline_fragment.h"
#include "analyzers/torchtrace.h"
#include "analyzers/trace_names.h"
#include "util/err.h"
#include "util/fsio.h"
#include "util/strbuf.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static struct rules phases;

static void kineto_steps_and_phases(void)
{
	struct gpu_trace t;
	CHECK(kineto_load("tests/fixtures/kineto_steps.pt.trace.json", 1, &t) == 0);
	struct rank_metrics r = { 0 };
	struct op_table ops = { 0 };
	trace_reduce_rank(&t, &phases, 0, &r, &ops);
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
	op_table_free(&ops);
	gpu_trace_free(&t);
}

/* Host time by what ran: an operator under no phase range is compute, be it
 * aten::* or any range with device work (one that encloses a launch call on
 * its thread); time under no operator is other. */
static void operators_with_device_work_are_compute(void)
{
	struct gpu_trace t;
	memset(&t, 0, sizeof t);
	t.rank = -1;
	t.want_cpu = 1;
	gpu_trace_add_cpu(&t, 0, 100, "ProfilerStep#1", "1", 0);
	gpu_trace_add_cpu(&t, 10, 40, "my_ext::fused_op", "1", 0); /* launches: compute */
	gpu_trace_add_cpu(&t, 20, 25, "cudaLaunchKernel", "1", 0);
	gpu_trace_add_cpu(&t, 50, 70, "python_glue", "1", 0);      /* no launch: other */
	gpu_trace_add_cpu(&t, 60, 65, "cudaLaunchKernel", "2", 0); /* another thread's */
	gpu_trace_add_cpu(&t, 90, 95, "aten::add", "1", 0);        /* an aten operator */
	gpu_trace_add_cpu(&t, 72, 88, "nn.Module: Net", "1", 0);   /* forward */
	gpu_trace_add_cpu(&t, 75, 80, "my_ext::inner", "1", 0);    /* ... whose it is */
	gpu_trace_add_cpu(&t, 76, 77, "cudaLaunchKernel", "1", 0);
	struct rank_metrics r = { 0 };
	trace_reduce_rank(&t, &phases, 0, &r, NULL);
	CHECK(r.n == 1);
	CHECK_NEAR(r.steps[0].ops_ms, 0.035, 1e-12); /* [10, 40) and [90, 95) */
	CHECK_NEAR(r.steps[0].forward_ms, 0.016, 1e-12);
	rank_metrics_free(&r);
	gpu_trace_free(&t);
}

/* Four steps of 10 ms (1 GFLOP each) and the trace's last, of `tail` µs (0.5 GFLOP), on
 * one thread; into r (torchtrace_rank). */
static void tail_trace(struct gpu_trace *t, double tail, struct rank_metrics *r)
{
	char name[32];
	memset(t, 0, sizeof *t);
	t->rank = -1;
	t->want_cpu = 1;
	for (int k = 0; k < 5; k++) {
		snprintf(name, sizeof name, "ProfilerStep#%d", k + 1);
		gpu_trace_add_cpu(t, k * 1e4, k * 1e4 + (k < 4 ? 1e4 : tail), name, "1", 0);
		gpu_trace_add_cpu(t, k * 1e4 + 10, k * 1e4 + 20, "aten::mm", "1",
				  k < 4 ? 1e9 : 5e8);
	}
	memset(r, 0, sizeof *r);
	trace_reduce_rank(t, &phases, 0, r, NULL);
}

/* The tail after the last prof.step() that the profiler cut as its context closed: the
 * last step, under a third of the median of the others, with no collective, is left out
 * (its FLOPs with it); one of a third or more, or one holding a collective, is a step. */
static void partial_last_step_left_out(void)
{
	struct gpu_trace t;
	struct rank_metrics r;
	tail_trace(&t, 400, &r);
	CHECK(r.n == 5);
	CHECK_NEAR(r.flops_per_step, 4.5e9 / 5, 1);
	CHECK(trace_reduce_drop_partial_step(&t, &r) == 1 && r.n == 4);
	CHECK_NEAR(r.flops_per_step, 1e9, 1);
	CHECK_NEAR(r.steps[3].step_ms, 10, 1e-9);
	CHECK(trace_reduce_drop_partial_step(&t, &r) == 0 && r.n == 4); /* a whole step now */
	rank_metrics_free(&r);
	gpu_trace_free(&t);

	tail_trace(&t, 3300, &r); /* under 10 / 3 ms */
	CHECK(trace_reduce_drop_partial_step(&t, &r) == 1 && r.n == 4);
	rank_metrics_free(&r);
	gpu_trace_free(&t);
	tail_trace(&t, 3400, &r);
	CHECK(trace_reduce_drop_partial_step(&t, &r) == 0 && r.n == 5);
	rank_metrics_free(&r);
	gpu_trace_free(&t);

	tail_trace(&t, 400, &r); /* a collective in it: a step, however short */
	XGROW(r.coll, r.ncoll, r.collcap, 4);
	r.coll[r.ncoll++] = (struct coll_rec){ 4, 0, 0, 1, 2, -1, 0.1, 40300 };
	CHECK(trace_reduce_drop_partial_step(&t, &r) == 0 && r.n == 5);
	rank_metrics_free(&r);
	gpu_trace_free(&t);

	memset(&t, 0, sizeof t); /* one step: nothing to measure it against */
	t.rank = -1;
	t.want_cpu = 1;
	gpu_trace_add_cpu(&t, 0, 100, "ProfilerStep#1", "1", 0);
	memset(&r, 0, sizeof r);
	trace_reduce_rank(&t, &phases, 0, &r, NULL);
	CHECK(r.n == 1 && trace_reduce_drop_partial_step(&t, &r) == 0 && r.n == 1);
	rank_metrics_free(&r);
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
	trace_reduce_rank(&t, &phases, 0, &r, NULL);
	CHECK(r.n == 3 && !t.legacy);
	rank_metrics_free(&r);
	gpu_trace_free(&t);
	unlink(gz);

	CHECK(kineto_load("tests/fixtures/legacy_steps.pt.trace.json", 1, &t) == 0);
	CHECK(t.legacy);
	trace_reduce_rank(&t, &phases, 0, &r, NULL);
	CHECK(r.n == 2 && r.rank == -1);
	CHECK_NEAR(r.steps[0].step_ms, 2.0, 1e-9);
	CHECK_NEAR(r.steps[0].data_ms, 0.5, 1e-9);
	/* gloo on its own thread, nothing else running */
	CHECK_NEAR(r.steps[0].comm_exposed_ms, 0.3, 1e-9);
	CHECK_NEAR(r.steps[0].comm_ms, 0.3, 1e-9);
	CHECK_NEAR(r.steps[0].optimizer_ms, 0.4, 1e-9);
	rank_metrics_free(&r);
	gpu_trace_free(&t);
	CHECK(trace_rank_of_name("rank3.1234.pt.trace.json") == 3);
	CHECK(trace_rank_of_name("worker_12_step_3.json") == 12);
	CHECK(trace_rank_of_name("trace.json") == -1);
}

static void shared_dlrm_kineto_trace(void)
{
	const char *f =
		"../shared/traces/kineto/param_dlrm_8rank/worker0_step_12.1694128201545.pt.trace.json";
	if (access(f, R_OK) != 0) {
		printf("SKIP shared_dlrm_kineto_trace: ../shared/traces is absent\n");
		return;
	}
	struct gpu_trace t;
	CHECK(kineto_load(f, 1, &t) == 0);
	struct rank_metrics r = { 0 };
	trace_reduce_rank(&t, &phases, 0, &r, NULL);
	CHECK(r.rank == 0 && r.n == 1);
	const struct step_rec *s = &r.steps[0];
	CHECK(s->step == 10);
	CHECK_NEAR(s->step_ms, 14.455, 1e-9);
	CHECK(s->data_ms > 0 && s->forward_ms > 0 && s->backward_ms > 0 && s->optimizer_ms > 0);
	CHECK(s->comm_ms > 0); /* nccl:all_to_all, nccl:all_reduce */
	double sum = s->data_ms + s->forward_ms + s->backward_ms + s->optimizer_ms +
		s->comm_exposed_ms + s->io_ms;
	CHECK(sum <= s->step_ms + 1e-9);
	rank_metrics_free(&r);
	gpu_trace_free(&t);
}

static int same_sets(const struct trace_set *a, const struct trace_set *b)
{
	int same = a->m.n == b->m.n && a->ops.n == b->ops.n && a->ops.total_ms == b->ops.total_ms &&
		a->unreadable == b->unreadable && a->no_steps == b->no_steps &&
		a->partial_steps == b->partial_steps &&
		!strcmp(a->problem, b->problem);
	for (size_t i = 0; same && i < a->m.n; i++)
		same = a->m.ranks[i].n == b->m.ranks[i].n &&
			a->m.ranks[i].rank == b->m.ranks[i].rank &&
			!memcmp(a->m.ranks[i].steps, b->m.ranks[i].steps,
				a->m.ranks[i].n * sizeof *a->m.ranks[i].steps);
	for (size_t i = 0; same && i < a->ops.n; i++)
		same = !strcmp(a->ops.v[i].name, b->ops.v[i].name) &&
			a->ops.v[i].self_ms == b->ops.v[i].self_ms &&
			a->ops.v[i].count == b->ops.v[i].count;
	return same;
}

/* A trace whose last step is the profiler's tail: the count of partial steps left out comes
 * back from the map step's result as from reading the file here. */
static void partial_steps_through_the_map_step(void)
{
	char dir[] = "/tmp/test_partial.XXXXXX", res[] = "/tmp/test_partial_res.XXXXXX";
	CHECK(mkdtemp(dir) != NULL && mkdtemp(res) != NULL);
	struct strbuf f = STRBUF_INIT;
	strbuf_addf(&f, "%s/rank0.pt.trace.json", dir);
	static const char trace[] =
		"{\"traceEvents\": [\n"
		"{\"ph\": \"X\", \"name\": \"ProfilerStep#1\", \"tid\": 1, \"ts\": 0, \"dur\": 1000},\n"
		"{\"ph\": \"X\", \"name\": \"ProfilerStep#2\", \"tid\": 1, \"ts\": 1000, \"dur\": 1000},\n"
		"{\"ph\": \"X\", \"name\": \"ProfilerStep#3\", \"tid\": 1, \"ts\": 2000, \"dur\": 20}]}\n";
	CHECK(fsio_write_atomic(f.buf, trace, sizeof trace - 1, 0644) == 0);
	struct shard_plan p = { .dir = res }, q;
	XGROW(p.v, p.n, p.cap, 1);
	p.v[p.n++] = (struct shard_item){ dir, "rank0.pt.trace.json", 0, 0 };
	struct shard_done d;
	CHECK(shard_plan_write(&p) == 0 && shard_plan_read(res, &q) == 0);
	CHECK(shard_run(&q, 0, 1, 1, 1, &d) == 0);
	struct strbuf tl = STRBUF_INIT;
	shard_timeline_dir(&q, &tl);
	struct trace_source src = { shard_part, &q, tl.buf };
	struct trace_set direct, mapped;
	CHECK(torchtrace_load_dir(dir, &phases, NULL, 1, NULL, &direct) == 0);
	CHECK(torchtrace_load_dir(dir, &phases, NULL, 1, &src, &mapped) == 0);
	CHECK(direct.partial_steps == 1 && direct.m.n == 1 && direct.m.ranks[0].n == 2);
	CHECK(mapped.not_analysed == 0 && mapped.partial_steps == 1 && same_sets(&direct, &mapped));
	trace_set_free(&direct);
	trace_set_free(&mapped);
	shard_plan_free(&q);
	free(p.v);
	strbuf_free(&tl);
	strbuf_free(&f);
	CHECK(fsio_remove_tree(dir) == 0 && fsio_remove_tree(res) == 0);
}

/* The map step's results read back bit for bit; a shard that did not run
 * leaves its files named as not analysed; a file the plan lacks is read. */
/* A trace's rank when it does not carry one: the launcher's record of the
 * process its torch.profiler name holds, else its process's order among
 * the files; one process's several files share a rank. */
static void rank_hints_from_records_and_names(void)
{
	char tmp[] = "/tmp/test_hints.XXXXXX", p[160], worker[64], host[64];
	long pid = 0;
	CHECK(trace_worker_of_name("node-1_4242.1795433224414.pt.trace.json", worker,
					sizeof worker, host, sizeof host, &pid) == 1);
	CHECK(!strcmp(worker, "node-1_4242") && !strcmp(host, "node-1") && pid == 4242);
	CHECK(trace_worker_of_name("rank0.pt.trace.json", worker, sizeof worker, host,
					sizeof host, &pid) == 0);
	CHECK(trace_worker_of_name("h_x.12.pt.trace.json", worker, sizeof worker, host,
					sizeof host, &pid) == 0);
	char *names[] = { "h_12.100.pt.trace.json", "h_12.200.pt.trace.json",
			  "h_13.150.pt.trace.json", "other.pt.trace.json",
			  "worker_7.pt.trace.json" };
	int hints[5];
	CHECK(mkdtemp(tmp) != NULL);
	snprintf(p, sizeof p, "%s/traces", tmp);
	trace_files_rank_hints(p, names, 5, hints); /* no records: processes in file order */
	CHECK(hints[0] == 0 && hints[1] == 0 && hints[2] == 1 && hints[3] == 2 && hints[4] == 7);
	CHECK(fsio_write_in(tmp, "ranks/rank_0.json", "{\"rank\": 0, \"host\": \"h\", \"pid\": 13}",
			    36, 0644) == 0);
	CHECK(fsio_write_in(tmp, "ranks/rank_1.json", "{\"rank\": 1, \"host\": \"h\", \"pid\": 12}",
			    36, 0644) == 0);
	trace_files_rank_hints(p, names, 5, hints);
	CHECK(hints[0] == 1 && hints[1] == 1 && hints[2] == 0 && hints[3] == 2 && hints[4] == 7);
	fsio_remove_tree(tmp);
}

static void shard_results_round_trip(void)
{
	char tmp[] = "/tmp/test_shard.XXXXXX";
	CHECK(mkdtemp(tmp) != NULL);
	setenv("CAMPAIGN_PHASE_RULES", "analyzers/phase_rules.txt", 1);
	setenv("CAMPAIGN_RULES", "analyzers/kernel_rules.txt", 1);
	struct shard_plan p = { .dir = tmp }, q;
	char **names;
	size_t n;
	CHECK(trace_files_list("tests/fixtures", 0, &names, &n) == 0 && n >= 2);
	for (size_t i = 0; i + 1 < n; i++) { /* the last file stays out of the plan */
		XGROW(p.v, p.n, p.cap, 8);
		p.v[p.n++] = (struct shard_item){ "tests/fixtures", names[i], 0, (int)i };
	}
	CHECK(shard_plan_write(&p) == 0);
	CHECK(shard_plan_read(tmp, &q) == 0 && q.n == n - 1 && !strcmp(q.v[1].name, names[1]));
	struct shard_done d;
	CHECK(shard_run(&q, 0, 2, 1, 1, &d) == 0 && d.files == (n / 2) && d.index == 0);
	CHECK(shard_done_read(&q, 0, &d) == 1 && d.count == 2 && !shard_done_read(&q, 1, &d));
	struct strbuf tl = STRBUF_INIT;
	struct argv frags;
	shard_timeline_dir(&q, &tl);
	/* the shard left the timeline fragment of its file (the plan's first) */
	CHECK(fsio_list(tl.buf, &frags) == 0 && frags.n == 1);
	argv_free(&frags);
	struct trace_source src = { shard_part, &q, tl.buf };
	struct trace_set direct, mapped;
	/* the map step reads the kernel rules too: the GPU view of the steps comes back */
	struct rules kernels;
	CHECK(rules_load("analyzers/kernel_rules.txt", &kernels) == 0);
	CHECK(torchtrace_load_dir("tests/fixtures", &phases, &kernels, 1, NULL, &direct) == 0);
	CHECK(torchtrace_load_dir("tests/fixtures", &phases, &kernels, 2, &src, &mapped) == 0);
	CHECK(mapped.not_analysed == (n - 1) / 2); /* shard 1's files: 1, 3, ... */
	CHECK(mapped.not_analysed_names &&
	      !strncmp(mapped.not_analysed_names, names[1], strlen(names[1])));
	trace_set_free(&mapped);
	/* the reduce: the file outside the plan gets its fragment, the failed
	 * shard's file one saying so (the timeline leaves it out, unread) */
	struct strbuf fp = STRBUF_INIT;
	struct timeline_fragment fr;
	CHECK(fsio_list(tl.buf, &frags) == 0 && frags.n == 3);
	timeline_fragment_path(&fp, tl.buf, "tests/fixtures", names[1]);
	CHECK(timeline_fragment_open(fp.buf, &fr) == 0 &&
	      fr.state == TIMELINE_FRAGMENT_NOT_ANALYSED);
	timeline_fragment_close(&fr);
	timeline_fragment_path(&fp, tl.buf, "tests/fixtures", names[n - 1]);
	CHECK(timeline_fragment_open(fp.buf, &fr) == 0 && fr.state == TIMELINE_FRAGMENT_EVENTS);
	timeline_fragment_close(&fr);
	argv_free(&frags);
	strbuf_free(&fp);
	CHECK(shard_run(&q, 1, 2, 2, 1, &d) == 0 && shard_done_read(&q, 1, &d) == 1 &&
	      d.attempt == 2);
	CHECK(torchtrace_load_dir("tests/fixtures", &phases, &kernels, 2, &src, &mapped) == 0);
	CHECK(mapped.not_analysed == 0 && same_sets(&direct, &mapped));
	trace_set_free(&mapped);
	trace_set_free(&direct);
	rules_free(&kernels);
	struct strbuf bad = STRBUF_INIT;
	strbuf_addf(&bad, "%s/plan.json", tmp);
	CHECK(fsio_write_atomic(bad.buf, "{\"files\": 3}", 12, 0644) == 0);
	shard_plan_free(&q);
	CHECK(shard_plan_read(tmp, &q) == ERR_IO && strstr(err_last(), "not a map-step plan"));
	shard_plan_free(&q);
	CHECK(fsio_remove_tree(tmp) == 0);
	CHECK(shard_plan_read(tmp, &q) == ERR_NOTFOUND);
	shard_plan_free(&q);
	strbuf_free(&bad);
	strbuf_free(&tl);
	free(p.v);
	for (size_t i = 0; i < n; i++)
		free(names[i]);
	free(names);
}

int main(void)
{
	if (rules_load("analyzers/phase_rules.txt", &phases) < 0)
		return 1;
	RUN(kineto_steps_and_phases);
	RUN(operators_with_device_work_are_compute);
	RUN(partial_last_step_left_out);
	RUN(gpu_work_stays_in_the_step_of_its_launch);
	RUN(gzip_and_legacy_forms);
	RUN(shared_dlrm_kineto_trace);
	RUN(shard_results_round_trip);
	RUN(partial_steps_through_the_map_step);
	RUN(rank_hints_from_records_and_names);
	rules_free(&phases);
	HARNESS_END();
}
