/* campaign-trainer-gpu: the reference workload on GPUs (CUDA, cuBLAS, NCCL).
 * Same command line, data and telemetry as campaign-trainer; without a
 * usable GPU it exits with status 69 and a one-line reason.
 * SPDX-License-Identifier: MIT */
#include "checkpoint.h"
#include "clock.h"
#include "data.h"
#include "fabric_probe.h"
#include "gpu.h"
#include "options.h"
#include "telemetry.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* Rank 0 publishes the NCCL id in a file of the rendezvous directory; the
 * others wait for it (tmp file + rename: readers never see half an id). */
static int exchange_id(const struct trainer_opts *o, unsigned char id[GPU_NCCL_ID_BYTES])
{
	char dir[4096], path[4300], tmp[4400], err[256];
	const char *jd = getenv("CAMPAIGN_JOB_DIR"), *launch = getenv("CAMPAIGN_LAUNCH_ID"),
		   *job = getenv("SLURM_JOB_ID");
	snprintf(dir, sizeof dir, "%s", o->rendezvous ? o->rendezvous : jd ? jd : "/tmp");
	if (!o->rendezvous && jd)
		snprintf(dir, sizeof dir, "%s/rendezvous", jd);
	mkdir(dir, 0755);
	snprintf(path, sizeof path, "%s/nccl-%s-%s.id", dir, job ? job : "0",
		 launch ? launch : "nolaunch");
	if (o->rank == 0) {
		if (gpu_nccl_unique_id(id, err, sizeof err) < 0) {
			fprintf(stderr, "campaign-trainer-gpu: %s\n", err);
			return -1;
		}
		snprintf(tmp, sizeof tmp, "%s.tmp", path);
		FILE *f = fopen(tmp, "wb");
		if (!f || fwrite(id, 1, GPU_NCCL_ID_BYTES, f) != GPU_NCCL_ID_BYTES ||
		    fclose(f) != 0 || rename(tmp, path) < 0) {
			fprintf(stderr,
				"campaign-trainer-gpu: cannot publish the NCCL id in %s: %s\n", dir,
				strerror(errno));
			return -1;
		}
		return 0;
	}
	for (double waited = 0; waited < (double)o->timeout_s * 1000; waited += 50) {
		FILE *f = fopen(path, "rb");
		if (f) {
			size_t got = fread(id, 1, GPU_NCCL_ID_BYTES, f);
			fclose(f);
			if (got == GPU_NCCL_ID_BYTES)
				return 0;
		}
		usleep(50000);
	}
	fprintf(stderr, "campaign-trainer-gpu: rank %d: no NCCL id from rank 0 in %s after %ld s\n",
		o->rank, path, o->timeout_s);
	return -1;
}

/* The checkpoint of step: parameters and momentum copied to the host's staging buffer (the
 * snapshot), then written as the CPU trainer's are (checkpoint.h). */
static int write_checkpoint(const struct trainer_opts *o, struct gpu_model *m, struct ckpt *ck,
			    long step)
{
	float *p, *v;
	double t0;
	int rc = ckpt_begin(ck, &p, &v, &t0);
	if (rc == 0)
		rc = gpu_model_state(m, p, v) == 0 ? ckpt_commit(ck, step, t0) : (errno = EIO, -1);
	if (rc < 0)
		fprintf(stderr,
			"campaign-trainer-gpu: rank %d: cannot write a checkpoint in %s: %s\n",
			o->rank, ck->dir, strerror(errno));
	return rc;
}

/* The checkpoints' directory and writer (with --checkpoint-every): 0, or -1 after saying why. */
static int open_checkpoints(const struct trainer_opts *o, struct gpu_model *m, struct ckpt *ck)
{
	char dir[4096];
	if (o->checkpoint_every <= 0)
		return 0;
	options_checkpoint_dir(o, dir, sizeof dir);
	if (ckpt_open(ck, dir, o->rank, gpu_model_params(m),
		      (size_t) (o->checkpoint_extra_mb * 1024 * 1024), o->checkpoint_async, NULL,
		      NULL) == 0 &&
	    ckpt_prewarm(ck, CKPT_PREWARM) == 0)
		return 0;
	fprintf(stderr, "campaign-trainer-gpu: rank %d: cannot set up checkpoints in %s: %s\n",
		o->rank, dir, strerror(errno));
	return -1;
}

/* Waits for the checkpoint in flight: rc, or TRAINER_EXIT_IO when its write failed. */
static int close_checkpoints(const struct trainer_opts *o, struct ckpt *ck, int rc)
{
	if (ckpt_close(ck) == 0 || rc != TRAINER_EXIT_OK)
		return rc;
	fprintf(stderr, "campaign-trainer-gpu: rank %d: cannot write a checkpoint in %s: %s\n",
		o->rank, ck->dir, strerror(errno));
	return TRAINER_EXIT_IO;
}

static int train(const struct trainer_opts *o, struct gpu_model *m, struct loader *ld,
		 struct telemetry *t, struct ckpt *ck)
{
	char err[512];
	int rows = (int)(o->batch / o->world);
	for (long step = 0; step < o->steps; step++) {
		struct step_times st = { .step = step,
					 .active = step >= o->warmup_steps,
					 .samples = rows };
		struct gpu_step gs;
		double t0 = now_ms();
		const struct batch *b = loader_get(ld, step, &st.data_wait_ms);
		float clip, lr = options_lr(o, step, &clip);
		enum gpu_ddp ddp = o->ddp == DDP_PER_PARAM ? GPU_DDP_PER_PARAM
			: o->ddp == DDP_BUCKETED           ? GPU_DDP_BUCKETED
							   : GPU_DDP_SYNC;
		if (gpu_train_step(m, b->x, b->t, lr, (float) o->momentum, clip, (double) o->batch,
				   ddp, &gs, err, sizeof err) < 0) {
			fprintf(stderr, "campaign-trainer-gpu: rank %d: step %ld: %s\n", o->rank,
				step, err);
			return TRAINER_EXIT_COMM;
		}
		/* the step synchronised just now: its last all-reduce ended that long before (the
		 * CPU trainer's coll_end_us, on the same host clock) */
		if (o->world > 1)
			st.coll_end_ms = now_ms() - gs.coll_end_ago_ms;
		loader_release(ld, step);
		st.forward_ms = gs.forward_ms + gs.h2d_ms;
		st.backward_ms = gs.backward_ms;
		st.comm_ms = gs.comm_ms;
		st.comm_exposed_ms = gs.comm_exposed_ms;
		st.overlap = gs.comm_ms > 0 && gs.comm_exposed_ms < gs.comm_ms
			? 1.0 - gs.comm_exposed_ms / gs.comm_ms
			: 0;
		st.optimizer_ms = gs.optimizer_ms;
		st.loss = gs.loss;
		st.bytes_allreduced = gs.bytes;
		if (options_checkpoint_due(o, step)) {
			double c0 = now_ms();
			if (write_checkpoint(o, m, ck, step) < 0)
				return TRAINER_EXIT_IO;
			st.io_ms = now_ms() - c0;
		}
		st.step_ms = now_ms() - t0;
		st.checksum = gpu_model_checksum(m);
		telemetry_step(t, &st);
	}
	return TRAINER_EXIT_OK;
}

static int probe_op(void *ctx, size_t nfloats, char *err, size_t n)
{
	return gpu_fabric_allreduce(ctx, nfloats, err, n);
}

int main(int argc, char **argv)
{
	struct trainer_opts o;
	char why[512];
	int rc = options_parse(argc, argv, &o);
	if (rc)
		return rc < 0 ? 0 : rc;
	o.backend = "nccl"; /* this binary's collectives are NCCL's */
	if (gpu_probe(o.local_rank, why, sizeof why) < 0) {
		fprintf(stderr, "campaign-trainer-gpu: no GPU: %s\n", why);
		return TRAINER_EXIT_NO_GPU;
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	int rows = (int)(o.batch / o.world);
	unsigned char id[GPU_NCCL_ID_BYTES] = { 0 };
	struct gpu_model *m =
		gpu_model_new(o.input, o.hidden, o.depth, o.output, rows, o.seed, why, sizeof why);
	if (!m) {
		fprintf(stderr, "campaign-trainer-gpu: %s\n", why);
		return TRAINER_EXIT_IO;
	}
	if (gpu_model_configure(m, o.elementwise, o.bucket_mb, why, sizeof why) < 0 ||
	    (o.world > 1 &&
	     (exchange_id(&o, id) < 0 ||
	      gpu_model_connect(m, id, o.rank, o.world, why, sizeof why) < 0))) {
		fprintf(stderr, "campaign-trainer-gpu: rank %d: %s\n", o.rank, why);
		gpu_model_free(m);
		return TRAINER_EXIT_COMM;
	}
	if (o.fabric_probe) {
		rc = o.world > 1 ? fabric_probe(&o, probe_op, m) : TRAINER_EXIT_OK;
		if (o.world < 2)
			fprintf(stderr,
				"campaign-trainer-gpu: the fabric probe needs two ranks or more: nothing measured\n");
		gpu_model_free(m);
		return rc;
	}
	struct telemetry t;
	struct loader ld;
	struct loader_cfg lc;
	char meta[2048];
	loader_cfg_from_opts(&lc, &o);
	if (telemetry_open(&t, o.metrics_dir, o.rank, o.steps) < 0 || loader_start(&ld, &lc) < 0) {
		fprintf(stderr, "campaign-trainer-gpu: cannot open %s or start the loader\n",
			o.metrics_dir);
		gpu_model_free(m);
		return TRAINER_EXIT_IO;
	}
	options_meta_json(&o, gpu_model_params(m), meta, sizeof meta);
	telemetry_meta(&t, meta);
	struct ckpt ck = { 0 }; /* (closing it unopened does nothing) */
	rc = open_checkpoints(&o, m, &ck) < 0 ? TRAINER_EXIT_IO : train(&o, m, &ld, &t, &ck);
	rc = close_checkpoints(&o, &ck, rc);
	loader_stop(&ld);
	telemetry_close(&t);
	gpu_model_free(m);
	return rc;
}
