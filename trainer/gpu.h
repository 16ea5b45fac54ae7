/* gpu: the GPU half of campaign-trainer-gpu behind a C interface: the same
 * MLP as model.c on cuBLAS, gradients all-reduced with NCCL, phases timed
 * with CUDA events and marked with NVTX ranges (forward_pass, backward_pass,
 * gradient_sync, optimizer_step). Implemented in gpu_trainer.cu.
 * SPDX-License-Identifier: MIT */
#ifndef TRAINER_GPU_H
#define TRAINER_GPU_H

#include <stddef.h>
#include <stdint.h>

#define GPU_NCCL_ID_BYTES 128

struct gpu_model;

struct gpu_step {
	double h2d_ms, forward_ms, backward_ms, comm_ms, comm_exposed_ms, optimizer_ms;
	double loss, bytes;
	/* how long before the step's last event its last all-reduce ended (GPU clock): the host
	 * places that end on its own clock from the moment the step synchronised */
	double coll_end_ago_ms;
};

enum gpu_ddp { GPU_DDP_SYNC, GPU_DDP_BUCKETED, GPU_DDP_PER_PARAM };

/* 0 when a usable GPU exists for local_rank (and selects it); else -1 with
 * the reason in why. */
int gpu_probe(int local_rank, char *why, size_t n);
int gpu_nccl_unique_id(unsigned char id[GPU_NCCL_ID_BYTES], char *err, size_t n);
struct gpu_model *gpu_model_new(int in, int hidden, int depth, int out, int rows, uint64_t seed,
				char *err, size_t n);
/* Knobs: elementwise passes per activation; bucketed DDP bucket size. */
int gpu_model_configure(struct gpu_model *m, int elementwise, double bucket_mb, char *err,
			size_t n);
/* Copies parameters and momentum to the host (checkpoints). */
int gpu_model_state(struct gpu_model *m, float *params, float *momentum);
int gpu_model_connect(struct gpu_model *m, const unsigned char id[GPU_NCCL_ID_BYTES], int rank,
		      int world, char *err, size_t n);
int gpu_train_step(struct gpu_model *m, const float *x, const float *t, float lr, float momentum,
		   float clip, double scale, enum gpu_ddp ddp, struct gpu_step *out, char *err,
		   size_t n);
/* One in-place NCCL all-reduce of nfloats floats (a device buffer kept
 * from call to call), synchronised: the fabric probe's operation. */
int gpu_fabric_allreduce(struct gpu_model *m, size_t nfloats, char *err, size_t n);
uint64_t gpu_model_checksum(struct gpu_model *m);
size_t gpu_model_params(const struct gpu_model *m);
void gpu_model_free(struct gpu_model *m);

#endif
