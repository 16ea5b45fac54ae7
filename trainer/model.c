/* SPDX-License-Identifier: MIT */
#include "model.h"
#include "clock.h"

#include "rng.h"

#include <cblas.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* The memory-bound knob: passes that read and write a whole activation
 * buffer and leave it unchanged (x * unit, unit == 1 at run time). */
static void elementwise_passes(const struct mlp *m, float *x, size_t len)
{
	for (int p = 0; p < m->elementwise; p++)
		for (size_t i = 0; i < len; i++)
			x[i] *= m->unit;
}

int mlp_init(struct mlp *m, int in, int hidden, int depth, int out, int batch, uint64_t seed)
{
	memset(m, 0, sizeof *m);
	m->unit = 1.0f;
	m->nlayers = depth;
	m->batch = batch;
	m->dims = calloc((size_t)depth + 1, sizeof *m->dims);
	m->dims[0] = in;
	for (int l = 1; l < depth; l++)
		m->dims[l] = hidden;
	m->dims[depth] = out;
	for (int l = 0; l < depth; l++)
		m->nparams += (size_t)m->dims[l] * (size_t)m->dims[l + 1] + (size_t)m->dims[l + 1];
	m->params = calloc(m->nparams, sizeof(float));
	m->grads = calloc(m->nparams + 1, sizeof(float)); /* +1: the loss rides along */
	m->velocity = calloc(m->nparams, sizeof(float));
	m->W = calloc((size_t)depth, sizeof(float *));
	m->b = calloc((size_t)depth, sizeof(float *));
	m->dW = calloc((size_t)depth, sizeof(float *));
	m->db = calloc((size_t)depth, sizeof(float *));
	m->grads_final_ms = calloc((size_t)depth, sizeof(double));
	m->act = calloc((size_t)depth + 1, sizeof(float *));
	m->dact = calloc((size_t)depth + 1, sizeof(float *));
	if (!m->dims || !m->params || !m->grads || !m->velocity || !m->W || !m->act || !m->dact ||
	    !m->grads_final_ms)
		return -1;
	struct rng r;
	rng_seed(&r, seed, 0x6d6f64656cULL);
	size_t off = 0;
	for (int l = 0; l < depth; l++) {
		size_t nw = (size_t)m->dims[l] * (size_t)m->dims[l + 1];
		m->W[l] = m->params + off;
		m->dW[l] = m->grads + off;
		off += nw;
		m->b[l] = m->params + off;
		m->db[l] = m->grads + off;
		off += (size_t)m->dims[l + 1];
		float sd = sqrtf(2.0f / (float)m->dims[l]); /* He initialisation */
		for (size_t i = 0; i < nw; i++)
			m->W[l][i] = sd * (float)rng_normal(&r);
	}
	for (int l = 0; l <= depth; l++) {
		m->act[l] = calloc((size_t)batch * (size_t)m->dims[l], sizeof(float));
		m->dact[l] = calloc((size_t)batch * (size_t)m->dims[l], sizeof(float));
		if (!m->act[l] || !m->dact[l])
			return -1;
	}
	return 0;
}

void mlp_free(struct mlp *m)
{
	for (int l = 0; m->act && l <= m->nlayers; l++) {
		free(m->act[l]);
		free(m->dact[l]);
	}
	free(m->act);
	free(m->dact);
	free(m->W);
	free(m->b);
	free(m->dW);
	free(m->db);
	free(m->params);
	free(m->grads);
	free(m->velocity);
	free(m->dims);
	free(m->grads_final_ms);
	memset(m, 0, sizeof *m);
}

double mlp_forward(struct mlp *m, const float *x, const float *t, int rows, double scale)
{
	memcpy(m->act[0], x, (size_t)rows * (size_t)m->dims[0] * sizeof(float));
	for (int l = 0; l < m->nlayers; l++) {
		int in = m->dims[l], out = m->dims[l + 1];
		float *z = m->act[l + 1];
		size_t len = (size_t)rows * (size_t)out;
		double t0 = now_ms();
		for (int r = 0; r < rows; r++)
			memcpy(z + (size_t)r * (size_t)out, m->b[l], (size_t)out * sizeof(float));
		double t1 = now_ms();
		cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, rows, out, in, 1.0f, m->act[l],
			    in, m->W[l], in, 1.0f, z, out);
		double t2 = now_ms();
		if (l + 1 < m->nlayers) {
			for (size_t i = 0; i < len; i++)
				z[i] = z[i] > 0 ? z[i] : 0;
			elementwise_passes(m, z, len);
		}
		m->gemm_ms += t2 - t1;
		m->elementwise_ms += (t1 - t0) + (now_ms() - t2);
	}
	int out = m->dims[m->nlayers];
	const float *y = m->act[m->nlayers];
	float *dy = m->dact[m->nlayers];
	double sse = 0, t0 = now_ms();
	float g = (float)(2.0 / ((double)out * scale));
	for (size_t i = 0; i < (size_t)rows * (size_t)out; i++) {
		float d = y[i] - t[i];
		sse += (double)d * (double)d;
		dy[i] = g * d;
	}
	m->elementwise_ms += now_ms() - t0;
	return sse / (double)out;
}

void mlp_backward(struct mlp *m, int rows)
{
	for (int l = m->nlayers - 1; l >= 0; l--) {
		int in = m->dims[l], out = m->dims[l + 1];
		const float *dz = m->dact[l + 1];
		double t0 = now_ms();
		cblas_sgemm(CblasRowMajor, CblasTrans, CblasNoTrans, out, in, rows, 1.0f, dz, out,
			    m->act[l], in, 0.0f, m->dW[l], in);
		double t1 = now_ms();
		for (int j = 0; j < out; j++)
			m->db[l][j] = 0;
		for (int r = 0; r < rows; r++)
			for (int j = 0; j < out; j++)
				m->db[l][j] += dz[(size_t)r * (size_t)out + (size_t)j];
		double t2 = now_ms();
		m->gemm_ms += t1 - t0;
		m->elementwise_ms += t2 - t1;
		m->grads_final_ms[l] = t2;
		if (m->layer_done)
			m->layer_done(m->layer_ctx, l);
		if (l == 0)
			break;
		float *dx = m->dact[l];
		cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, rows, in, out, 1.0f, dz, out,
			    m->W[l], in, 0.0f, dx, in);
		double t3 = now_ms();
		const float *h = m->act[l];
		size_t len = (size_t)rows * (size_t)in;
		for (size_t i = 0; i < len; i++)
			if (h[i] <= 0)
				dx[i] = 0;
		elementwise_passes(m, dx, len);
		m->gemm_ms += t3 - t2;
		m->elementwise_ms += now_ms() - t3;
	}
}

uint64_t mlp_sgd(struct mlp *m, float lr, float momentum, float clip)
{
	float scale = 1.0f;
	if (clip > 0) {
		double norm2 = 0;
		for (size_t i = 0; i < m->nparams; i++)
			norm2 += (double)m->grads[i] * (double)m->grads[i];
		double norm = sqrt(norm2);
		if (norm > clip)
			scale = (float)(clip / norm);
	}
	float *restrict p = m->params, *restrict v = m->velocity;
	const float *restrict g = m->grads;
	struct psum sum = { { 0 }, { 0 } };
	size_t i = 0, n = m->nparams;
	for (; i + 8 <= n; i += 8) {
		for (size_t k = i; k < i + 8; k++) {
			v[k] = momentum * v[k] + scale * g[k];
			p[k] -= lr * v[k];
		}
		psum_add8(&sum, p + i); /* the checksum costs no second sweep */
	}
	for (size_t k = i; k < n; k++) {
		v[k] = momentum * v[k] + scale * g[k];
		p[k] -= lr * v[k];
	}
	return psum_final(&sum, p + i, n - i, n);
}

size_t mlp_layer_begin(const struct mlp *m, int l)
{
	return (size_t)(m->W[l] - m->params);
}

size_t mlp_layer_end(const struct mlp *m, int l)
{
	return (size_t)(m->b[l] - m->params) + (size_t)m->dims[l + 1];
}

