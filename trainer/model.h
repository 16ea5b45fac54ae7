/* model: an MLP (GEMM-heavy, OpenBLAS) with forward, backward and SGD with
 * momentum. Parameters and gradients each live in one flat buffer so that
 * gradient synchronisation can all-reduce them whole or in slices.
 * SPDX-License-Identifier: MIT */
#ifndef TRAINER_MODEL_H
#define TRAINER_MODEL_H

#include <stddef.h>
#include <stdint.h>

struct mlp {
	int nlayers;      /* weight layers */
	int *dims;        /* nlayers + 1 sizes: input, hidden..., output */
	size_t nparams;
	float *params, *grads, *velocity;
	float **W, **b, **dW, **db; /* views into params / grads per layer */
	float **act;      /* activations per layer boundary, batch x dims[l] */
	float **dact;     /* their gradients */
	int batch;        /* rows the activation buffers hold */
	int elementwise;  /* extra elementwise passes per activation (memory-bound knob) */
	float unit;       /* 1.0, read at run time so the passes cannot be optimised away */
	double gemm_ms, elementwise_ms; /* time in GEMMs and in elementwise work, since reset */
	/* per layer: when the last mlp_backward made its gradients final (clock.h, ms) */
	double *grads_final_ms;
	/* called by mlp_backward once layer l's gradients are final */
	void (*layer_done)(void *ctx, int layer);
	void *layer_ctx;
};

int mlp_init(struct mlp *m, int in, int hidden, int depth, int out, int batch, uint64_t seed);
void mlp_free(struct mlp *m);
/* Forward over rows x (batch x in); returns the summed squared error
 * against t, and leaves d(loss)/d(output) scaled by 1/(scale) in dact. */
double mlp_forward(struct mlp *m, const float *x, const float *t, int rows, double scale);
/* Backward from the output gradient left by mlp_forward; fills grads. */
void mlp_backward(struct mlp *m, int rows);
/* SGD with momentum; clips the gradient norm to clip when clip > 0.
 * Returns the checksum of the updated parameters (computed in the same
 * pass, so that replicas can be compared every step at no extra sweep). */
uint64_t mlp_sgd(struct mlp *m, float lr, float momentum, float clip);
/* Offset in params/grads of layer l's weights, and the end of its bias. */
size_t mlp_layer_begin(const struct mlp *m, int l);
size_t mlp_layer_end(const struct mlp *m, int l);

#endif
