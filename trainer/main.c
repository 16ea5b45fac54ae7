/* campaign-trainer: the reference data-parallel workload on CPU. Each rank
 * trains a replica of the MLP on its slice of the global batch; gradients
 * (and the loss) are summed with gloo; telemetry goes to rank_<r>.jsonl. */
#include "comm.h"
#include "data.h"
#include "model.h"
#include "options.h"
#include "telemetry.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/stat.h>
#include <unistd.h>

static double now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

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
	snprintf(prefix, sizeof prefix, "trainer-%s-%s", job ? job : "0", launch ? launch : "nolaunch");
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
	const char *host = (ex && !strcmp(ex, "local")) || !getenv("SLURM_JOB_ID") ? "127.0.0.1" : NULL;
	char hostname[256];
	if (!host && !iface && gethostname(hostname, sizeof hostname) == 0)
		host = hostname;
	struct cgloo *g = cgloo_connect(dir, prefix, o->rank, o->world, iface, host, (int)o->timeout_s * 1000, err, sizeof err);
	if (!g)
		fprintf(stderr, "campaign-trainer: rank %d: rendezvous in %s failed: %s\n", o->rank, dir, err);
	return g;
}

static int sync_grads(struct cgloo *g, struct mlp *m, const struct trainer_opts *o, double *bytes)
{
	char err[512];
	*bytes = 0;
	if (!g)
		return 0;
	if (o->ddp == DDP_SYNC) {
		*bytes = (double)(m->nparams + 1) * sizeof(float);
		if (cgloo_allreduce(g, m->grads, m->nparams + 1, o->gloo_algo, err, sizeof err) == 0)
			return 0;
	} else {
		int ok = 1;
		/* per-param: W and b of each layer on their own, the loss last */
		for (int l = m->nlayers - 1; l >= 0 && ok; l--) {
			size_t nw = (size_t)m->dims[l] * (size_t)m->dims[l + 1], nb = (size_t)m->dims[l + 1];
			ok = cgloo_allreduce(g, m->dW[l], nw, o->gloo_algo, err, sizeof err) == 0 &&
			     cgloo_allreduce(g, m->db[l], nb, o->gloo_algo, err, sizeof err) == 0;
			*bytes += (double)(nw + nb) * sizeof(float);
		}
		if (ok && cgloo_allreduce(g, m->grads + m->nparams, 1, o->gloo_algo, err, sizeof err) == 0) {
			*bytes += sizeof(float);
			return 0;
		}
	}
	fprintf(stderr, "campaign-trainer: rank %d: all-reduce failed: %s\n", o->rank, err);
	return -1;
}

static int train(const struct trainer_opts *o, struct mlp *m, struct loader *ld, struct cgloo *g, struct telemetry *t)
{
	int rows = (int)(o->batch / o->world);
	for (long step = 0; step < o->steps; step++) {
		struct step_times st = { .step = step, .active = step >= o->warmup_steps, .samples = rows };
		if (step == o->die_at_step && o->rank == o->die_rank) {
			fprintf(stderr, "campaign-trainer: rank %d: --die-at-step %ld: killing myself\n", o->rank, step);
			telemetry_close(t);
			raise(SIGKILL);
		}
		double t0 = now_ms();
		const struct batch *b = loader_get(ld, step, &st.data_wait_ms);
		double t1 = now_ms();
		double sse = mlp_forward(m, b->x, b->t, rows, (double)o->batch);
		double t2 = now_ms();
		mlp_backward(m, rows);
		m->grads[m->nparams] = (float)(sse / (double)o->batch);
		double t3 = now_ms();
		if (sync_grads(g, m, o, &st.bytes_allreduced) < 0)
			return TRAINER_EXIT_COMM;
		double t4 = now_ms();
		float clip, lr = options_lr(o, step, &clip);
		mlp_sgd(m, lr, (float)o->momentum, clip);
		double t5 = now_ms();
		loader_release(ld, step);
		st.loss = m->grads[m->nparams];
		st.forward_ms = t2 - t1;
		st.backward_ms = t3 - t2;
		st.comm_ms = t4 - t3;
		st.optimizer_ms = t5 - t4;
		st.step_ms = t5 - t0;
		st.checksum = mlp_checksum(m);
		telemetry_step(t, &st);
	}
	return TRAINER_EXIT_OK;
}

int main(int argc, char **argv)
{
	struct trainer_opts o;
	int rc = options_parse(argc, argv, &o);
	if (rc)
		return rc < 0 ? 0 : rc;
	if (!strcmp(o.backend, "nccl")) {
		fprintf(stderr, "campaign-trainer: --backend nccl is the GPU trainer: run campaign-trainer-gpu\n");
		return TRAINER_EXIT_USAGE;
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	int rows = (int)(o.batch / o.world);
	struct mlp m;
	struct loader ld;
	struct telemetry t;
	if (mlp_init(&m, o.input, o.hidden, o.depth, o.output, rows, o.seed) < 0) {
		fprintf(stderr, "campaign-trainer: out of memory for the model\n");
		return TRAINER_EXIT_IO;
	}
	if (telemetry_open(&t, o.metrics_dir, o.rank, o.steps) < 0) {
		perror("campaign-trainer: cannot open the metrics file");
		return TRAINER_EXIT_IO;
	}
	struct loader_cfg lc;
	char meta[2048];
	loader_cfg_from_opts(&lc, &o);
	if (loader_start(&ld, &lc) < 0) {
		fprintf(stderr, "campaign-trainer: cannot start the data loader\n");
		return TRAINER_EXIT_IO;
	}
	options_meta_json(&o, m.nparams, meta, sizeof meta);
	telemetry_meta(&t, meta);
	struct cgloo *g = o.world > 1 ? connect_ranks(&o) : NULL;
	if (o.world > 1 && !g)
		rc = TRAINER_EXIT_COMM;
	else
		rc = train(&o, &m, &ld, g, &t);
	loader_stop(&ld);
	telemetry_close(&t);
	cgloo_free(g);
	mlp_free(&m);
	return rc;
}
