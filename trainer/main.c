/* campaign-trainer: the reference data-parallel workload on CPU. Each rank
 * trains a replica of the MLP on its slice of the global batch; gradients
 * (and the loss) are summed with gloo; telemetry goes to rank_<r>.jsonl, and
 * beside it each thread's phases to rank_<r>.trace.json (trace.h).
 * SPDX-License-Identifier: MIT */
#include "bucket.h"
#include "clock.h"
#include "checkpoint.h"
#include "comm.h"
#include "fabric_probe.h"
#include "data.h"
#include "model.h"
#include "options.h"
#include "telemetry.h"
#include "trace.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/stat.h>
#include <unistd.h>

static struct cgloo *connect_ranks(const struct trainer_opts *o)
{
	char dir[4096], prefix[512], err[512] = "";
	const char *jd = getenv("CAMPAIGN_JOB_DIR");
	if (o->rendezvous)
		snprintf(dir, sizeof dir, "%s", o->rendezvous);
	else
		snprintf(dir, sizeof dir, "%s/rendezvous", jd ? jd : "/tmp");
	const char *launch = getenv("CAMPAIGN_LAUNCH_ID");
	const char *job = getenv("SLURM_JOB_ID");
	snprintf(prefix, sizeof prefix, "trainer-%s-%s", job ? job : "0",
		 launch ? launch : "nolaunch");
	char mk[4200];
	snprintf(mk, sizeof mk, "%s", dir);
	for (char *p = mk + 1; *p; p++)
		if (*p == '/') {
			*p = '\0';
			mkdir(mk, 0755);
			*p = '/';
		}
	mkdir(mk, 0755);
	const char *iface = getenv("GLOO_SOCKET_IFNAME");
	const char *ex = getenv("CAMPAIGN_EXECUTOR");
	const char *host =
		(ex && !strcmp(ex, "local")) || !getenv("SLURM_JOB_ID") ? "127.0.0.1" : NULL;
	char hostname[256];
	if (!host && !iface && gethostname(hostname, sizeof hostname) == 0)
		host = hostname;
	struct cgloo *g = cgloo_connect(dir, prefix, o->rank, o->world, iface, host,
					(int) o->timeout_s * 1000, err, sizeof err);
	if (!g)
		fprintf(stderr, "campaign-trainer: rank %d: rendezvous in %s failed: %s\n", o->rank,
			dir, err);
	return g;
}

/* The ranks' connections closed: after a barrier where the run went well (a rank that closed
 * at once could leave a peer's last all-reduce without its data); the rank's exit status,
 * TRAINER_EXIT_COMM where the barrier failed. */
static int disconnect_ranks(struct cgloo *g, int rc)
{
	char err[512] = "";
	if (g && rc == TRAINER_EXIT_OK && cgloo_finish(g, err, sizeof err) < 0) {
		fprintf(stderr, "campaign-trainer: the closing barrier failed: %s\n", err);
		rc = TRAINER_EXIT_COMM;
	}
	cgloo_free(g);
	return rc;
}

#define ERR_LEN 512

/* One all-reduce on the calling thread, traced in tl as carrying part (index: its layer);
 * err holds ERR_LEN bytes. */
static int allreduce(struct cgloo *g, float *buf, size_t n, const struct trainer_opts *o,
		     struct trace_lane *tl, enum trace_part part, long index, char *err)
{
	double t0 = now_ms();
	int rc = cgloo_allreduce(g, buf, n, o->gloo_algo, err, ERR_LEN);
	trace_allreduce(tl, t0, now_ms(), part, index, (long)n);
	return rc;
}

static int sync_grads(struct cgloo *g, struct mlp *m, const struct trainer_opts *o, double *bytes,
		      struct trace_lane *tl)
{
	char err[ERR_LEN];
	*bytes = 0;
	if (!g)
		return 0;
	if (o->ddp == DDP_SYNC) {
		*bytes = (double)(m->nparams + 1) * sizeof(float);
		if (allreduce(g, m->grads, m->nparams + 1, o, tl, TRACE_ALL, -1, err) == 0)
			return 0;
	} else {
		int ok = 1;
		/* per-param: W and b of each layer on their own, the loss last */
		for (int l = m->nlayers - 1; l >= 0 && ok; l--) {
			size_t nw = (size_t) m->dims[l] * (size_t) m->dims[l + 1],
			       nb = (size_t) m->dims[l + 1];
			ok = allreduce(g, m->dW[l], nw, o, tl, TRACE_WEIGHT, l, err) == 0 &&
			     allreduce(g, m->db[l], nb, o, tl, TRACE_BIAS, l, err) == 0;
			*bytes += (double)(nw + nb) * sizeof(float);
		}
		if (ok && allreduce(g, m->grads + m->nparams, 1, o, tl, TRACE_LOSS, -1, err) == 0) {
			*bytes += sizeof(float);
			return 0;
		}
	}
	fprintf(stderr, "campaign-trainer: rank %d: all-reduce failed: %s\n", o->rank, err);
	return -1;
}

struct trainer {
	const struct trainer_opts *o;
	struct mlp *m;
	struct loader *ld;
	struct cgloo *g;
	struct telemetry *t;
	struct bucketer *bk;      /* --ddp bucketed, else NULL */
	struct trace *trace;      /* with telemetry, else NULL */
	struct trace_lane *tl;    /* the step thread's lane of it */
	char ckpt_dir[4096];
	struct ckpt ck;           /* with --checkpoint-every */
};

/* Backward as one range per layer, in the order run (the last layer first), each up to its
 * gradients being final: where a bucket's all-reduce may start. */
static void trace_backward(struct trace_lane *tl, const struct mlp *m, double t0, double t1)
{
	for (int l = m->nlayers - 1; tl && l >= 0; l--)
		trace_backward_layer(tl, l == m->nlayers - 1 ? t0 : m->grads_final_ms[l + 1],
				     l == 0 ? t1 : m->grads_final_ms[l], l,
				     (long)m->dims[l] * m->dims[l + 1] + m->dims[l + 1]);
}

/* Backward (from t0) and gradient synchronisation; fills the step's comm fields. */
static int backward_and_sync(struct trainer *tr, int rows, struct step_times *st, double t0)
{
	if (tr->bk)
		bucketer_begin_step(tr->bk);
	mlp_backward(tr->m, rows);
	double t1 = now_ms();
	st->backward_ms = t1 - t0;
	trace_backward(tr->tl, tr->m, t0, t1);
	if (tr->bk) {
		if (bucketer_finish_step(tr->bk, t1, &st->comm_ms, &st->comm_exposed_ms,
					 &st->bytes_allreduced, &st->coll_end_ms) < 0) {
			fprintf(stderr, "campaign-trainer: rank %d: all-reduce failed: %s\n",
				tr->o->rank, tr->bk->err);
			return -1;
		}
	} else {
		if (sync_grads(tr->g, tr->m, tr->o, &st->bytes_allreduced, tr->tl) < 0)
			return -1;
		double t2 = now_ms();
		st->comm_ms = st->comm_exposed_ms = t2 - t1;
		st->coll_end_ms = tr->g ? t2 : 0; /* (its last all-reduce's end, to the µs) */
	}
	st->overlap = st->comm_ms > 0 ? 1.0 - st->comm_exposed_ms / st->comm_ms : 0;
	if (st->overlap < 0)
		st->overlap = 0;
	return 0;
}

static int checkpoint_if_due(struct trainer *tr, long step, struct step_times *st)
{
	const struct trainer_opts *o = tr->o;
	if (!options_checkpoint_due(o, step))
		return 0;
	double t0 = now_ms(), ts;
	float *p, *v;
	int rc = ckpt_begin(&tr->ck, &p, &v, &ts);
	if (rc == 0) {
		memcpy(p, tr->m->params, tr->m->nparams * sizeof *p);
		memcpy(v, tr->m->velocity, tr->m->nparams * sizeof *v);
		rc = ckpt_commit(&tr->ck, step, ts);
	}
	if (rc < 0) {
		fprintf(stderr, "campaign-trainer: rank %d: cannot write a checkpoint in %s: %s\n",
			o->rank, tr->ckpt_dir, strerror(errno));
		return -1;
	}
	st->io_ms = now_ms() - t0;
	return 0;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

/* Rank 0's closing line: the median active step, with or without telemetry. */
static void report_median(const struct trainer_opts *o, double *times, long n)
{
	if (o->rank != 0 || n == 0)
		return;
	qsort(times, (size_t)n, sizeof *times, cmp_double);
	printf("done: %ld active step%s, median step %.3f ms\n", n, n == 1 ? "" : "s",
	       times[n / 2]);
}

static int train(struct trainer *tr)
{
	const struct trainer_opts *o = tr->o;
	struct mlp *m = tr->m;
	int rows = (int)(o->batch / o->world);
	double *times = calloc((size_t)o->steps, sizeof *times);
	long ntimes = 0;
	if (!times)
		return TRAINER_EXIT_IO;
	for (long step = 0; step < o->steps; step++) {
		struct step_times st = { .step = step,
					 .active = step >= o->warmup_steps,
					 .samples = rows };
		if (step == o->die_at_step && o->rank == o->die_rank) {
			fprintf(stderr,
				"campaign-trainer: rank %d: --die-at-step %ld: killing myself\n",
				o->rank, step);
			telemetry_close(tr->t);
			ckpt_close(&tr->ck); /* (its writer records into the trace) */
			trace_abort(tr->trace);
			raise(SIGKILL);
		}
		double t0 = now_ms();
		const struct batch *b = loader_get(tr->ld, step, &st.data_wait_ms);
		double t1 = now_ms();
		trace_range(tr->tl, TRACE_WAIT_BATCH, t0, t1, step);
		m->gemm_ms = m->elementwise_ms = 0;
		double sse = mlp_forward(m, b->x, b->t, rows, (double)o->batch);
		if (options_is_slow(o)) /* the straggler knob: extra compute, on the CPU */
			for (double until = now_ms() + o->slow_ms; now_ms() < until;)
				;
		/* the loss rides with the gradients */
		m->grads[m->nparams] = (float)(sse / (double)o->batch);
		double t2 = now_ms();
		st.forward_ms = t2 - t1;
		trace_range(tr->tl, TRACE_FORWARD, t1, t2, step);
		if (backward_and_sync(tr, rows, &st, t2) < 0) {
			free(times);
			return TRAINER_EXIT_COMM;
		}
		double t4 = now_ms();
		float clip, lr = options_lr(o, step, &clip);
		st.loss = m->grads[m->nparams];
		uint64_t sum = mlp_sgd(m, lr, (float)o->momentum, clip);
		double t5 = now_ms();
		st.optimizer_ms = t5 - t4;
		trace_range(tr->tl, TRACE_OPTIMIZER, t4, t5, step);
		loader_release(tr->ld, step);
		if (checkpoint_if_due(tr, step, &st) < 0) {
			free(times);
			return TRAINER_EXIT_IO;
		}
		st.step_ms = now_ms() - t0;
		trace_step(tr->tl, t0, t0 + st.step_ms, step, st.active);
		if (st.active)
			times[ntimes++] = st.step_ms;
		st.gemm_ms = m->gemm_ms;
		st.elementwise_ms = m->elementwise_ms;
		st.checksum = o->telemetry ? sum : 0;
		telemetry_step(tr->t, &st);
	}
	report_median(o, times, ntimes);
	free(times);
	return TRAINER_EXIT_OK;
}

static int make_dataset(const struct trainer_opts *o)
{
	struct loader_cfg lc;
	loader_cfg_from_opts(&lc, o);
	if (data_write_dataset(&lc, o->make_dataset, o->samples) < 0) {
		fprintf(stderr, "campaign-trainer: cannot write %s: %s\n", o->make_dataset,
			strerror(errno));
		return TRAINER_EXIT_IO;
	}
	printf("wrote %ld sample%s (%d + %d floats each) to %s\n", o->samples,
	       o->samples == 1 ? "" : "s", o->input, o->output, o->make_dataset);
	return TRAINER_EXIT_OK;
}


/* The probe's all-reduce: gloo's, on a buffer of the largest size. */
struct gloo_probe {
	struct cgloo *g;
	float *buf;
	int algo;
};

static int gloo_probe_op(void *ctx, size_t nfloats, char *err, size_t n)
{
	struct gloo_probe *p = ctx;
	return cgloo_allreduce(p->g, p->buf, nfloats, p->algo, err, n);
}

static int run_probe(const struct trainer_opts *o)
{
	size_t sizes[16], n, max = fabric_sizes(o, sizes, 16, &n);
	struct gloo_probe p = { NULL, calloc(max + 1, sizeof(float)), o->gloo_algo };
	if (!p.buf) {
		fprintf(stderr, "campaign-trainer: out of memory for the fabric probe\n");
		return TRAINER_EXIT_IO;
	}
	p.g = o->world > 1 ? connect_ranks(o) : NULL;
	int rc = o->world > 1 && !p.g ? TRAINER_EXIT_COMM
		: o->world < 2        ? TRAINER_EXIT_OK
				      : fabric_probe(o, gloo_probe_op, &p);
	if (o->world < 2)
		fprintf(stderr,
			"campaign-trainer: the fabric probe needs two ranks or more: nothing measured\n");
	rc = disconnect_ranks(p.g, rc);
	free(p.buf);
	return rc;
}

/* The loader threads' lanes in the trace (one at least); the checkpoint writer's after them. */
#define LOADER_LANES(o) ((o)->workers > 1 ? (o)->workers : 1)

/* The checkpoint writer, with --checkpoint-every: 0, or -1 after saying why. */
static int start_checkpoints(const struct trainer_opts *o, struct trainer *tr)
{
	if (o->checkpoint_every <= 0)
		return 0;
	if (ckpt_open(&tr->ck, tr->ckpt_dir, o->rank, tr->m->nparams,
		      (size_t) (o->checkpoint_extra_mb * 1024 * 1024), o->checkpoint_async, tr->tl,
		      trace_lane(tr->trace, 2 + LOADER_LANES(o))) == 0 &&
	    ckpt_prewarm(&tr->ck, CKPT_PREWARM) == 0)
		return 0;
	fprintf(stderr, "campaign-trainer: rank %d: cannot set up checkpoints in %s: %s\n", o->rank,
		tr->ckpt_dir, strerror(errno));
	return -1;
}

/* Waits for the checkpoint in flight (tr->ck zeroed or closed: nothing): rc, or
 * TRAINER_EXIT_IO when its write failed (said unless rc says a failure already). */
static int stop_checkpoints(const struct trainer_opts *o, struct trainer *tr, int rc)
{
	if (ckpt_close(&tr->ck) == 0 || rc != TRAINER_EXIT_OK)
		return rc;
	fprintf(stderr, "campaign-trainer: rank %d: cannot write a checkpoint in %s: %s\n", o->rank,
		tr->ckpt_dir, strerror(errno));
	return TRAINER_EXIT_IO;
}

/* The trace beside the telemetry (lanes: the step thread, the communication thread, each
 * loader thread, the checkpoint writer); a rank that cannot open it trains on with its
 * telemetry alone. */
static void open_trace(const struct trainer_opts *o, struct trace *trace, struct trainer *tr)
{
	int loaders = LOADER_LANES(o);
	if (!o->telemetry)
		return;
	if (trace_open(trace, o->metrics_dir, o->rank, o->world, 3 + loaders) < 0) {
		fprintf(stderr,
			"campaign-trainer: rank %d: cannot open the trace in %s: %s; training goes on with its telemetry alone\n",
			o->rank, o->metrics_dir, strerror(errno));
		return;
	}
	tr->trace = trace;
	tr->tl = trace_lane(trace, 0);
}

int main(int argc, char **argv)
{
	struct trainer_opts o;
	int rc = options_parse(argc, argv, &o);
	if (rc)
		return rc < 0 ? 0 : rc;
	if (!strcmp(o.backend, "nccl")) {
		fprintf(stderr,
			"campaign-trainer: --backend nccl is the GPU trainer: run campaign-trainer-gpu\n");
		return TRAINER_EXIT_USAGE;
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (o.make_dataset)
		return make_dataset(&o);
	if (o.fabric_probe)
		return run_probe(&o);
	int rows = (int)(o.batch / o.world);
	struct mlp m;
	struct loader ld;
	struct telemetry t = { 0 };
	struct bucketer bk;
	struct trace trace;
	struct trainer tr = { .o = &o, .m = &m, .ld = &ld, .t = &t };
	options_checkpoint_dir(&o, tr.ckpt_dir, sizeof tr.ckpt_dir);
	if (mlp_init(&m, o.input, o.hidden, o.depth, o.output, rows, o.seed) < 0) {
		fprintf(stderr, "campaign-trainer: out of memory for the model\n");
		return TRAINER_EXIT_IO;
	}
	m.elementwise = o.elementwise;
	if (o.telemetry && telemetry_open(&t, o.metrics_dir, o.rank, o.steps) < 0) {
		fprintf(stderr, "campaign-trainer: cannot open the metrics file in %s: %s\n",
			o.metrics_dir, strerror(errno));
		mlp_free(&m);
		return TRAINER_EXIT_IO;
	}
	struct loader_cfg lc;
	char meta[2048];
	loader_cfg_from_opts(&lc, &o);
	open_trace(&o, &trace, &tr);
	lc.trace = tr.trace;
	if (loader_start(&ld, &lc) < 0) {
		fprintf(stderr, "campaign-trainer: cannot start the data loader%s%s: %s\n",
			o.dataset ? " on " : "", o.dataset ? o.dataset : "",
			errno == EINVAL ? "not a dataset of this --input/--output shape"
					: strerror(errno));
		telemetry_close(&t);
		trace_abort(tr.trace);
		mlp_free(&m);
		return TRAINER_EXIT_IO;
	}
	options_meta_json(&o, m.nparams, meta, sizeof meta);
	telemetry_meta(&t, meta);
	tr.g = o.world > 1 ? connect_ranks(&o) : NULL;
	if (start_checkpoints(&o, &tr) < 0) {
		rc = TRAINER_EXIT_IO;
	} else if (o.world > 1 && !tr.g) {
		rc = TRAINER_EXIT_COMM;
	} else {
		if (tr.g && o.ddp == DDP_BUCKETED) {
			if (bucketer_start(&bk, &m, tr.g, o.gloo_algo, o.bucket_mb,
					   trace_lane(tr.trace, 1)) < 0)
				fprintf(stderr,
					"campaign-trainer: cannot start the communication thread\n");
			else
				tr.bk = &bk;
		}
		rc = tr.g && o.ddp == DDP_BUCKETED && !tr.bk ? TRAINER_EXIT_COMM : train(&tr);
		if (tr.bk)
			bucketer_stop(tr.bk);
	}
	rc = disconnect_ranks(tr.g, stop_checkpoints(&o, &tr, rc));
	loader_stop(&ld);
	telemetry_close(&t);
	if (rc == TRAINER_EXIT_OK) /* a trace it cannot write is said; it costs no exit status */
		trace_close(tr.trace);
	else
		trace_abort(tr.trace);
	mlp_free(&m);
	return rc;
}
