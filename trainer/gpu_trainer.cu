// gpu_trainer: the MLP of model.c on the GPU (see gpu.h). Row-major host
// layouts are kept; cuBLAS (column-major) sees every matrix transposed.
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include <cublas_v2.h>
#include <cuda_runtime.h>
#include <nccl.h>
#include <nvtx3/nvToolsExt.h>

extern "C" {
#include "bucket_plan.h"
#include "gpu.h"
#include "rng.h"
}

struct gpu_model {
	int nlayers;
	std::vector<int> dims;
	size_t nparams;
	float *params, *grads, *velocity; // grads has nparams + 1: the loss rides along
	std::vector<float *> W, b, dW, db, act, dact;
	float *ones, *target;
	double *sse;
	int rows;
	cublasHandle_t blas;
	cudaStream_t stream;
	ncclComm_t comm;
	int world;
	cudaEvent_t ev[6];
	std::vector<float> host; // for checksums
	int elementwise;         // memory-bound knob
	cudaStream_t comm_stream; // bucketed DDP
	cudaEvent_t layer_ev, comm_start, comm_end;
	struct bucket_plan plan;
	int comm_started;
	float *probe;             // the fabric probe's buffer (--fabric-probe)
	size_t probe_n;
};

#define CU(call, what)                                                                            \
	do {                                                                                      \
		cudaError_t e_ = (call);                                                          \
		if (e_ != cudaSuccess) {                                                          \
			std::snprintf(err, n, "%s: %s", what, cudaGetErrorString(e_));            \
			return -1;                                                                \
		}                                                                                 \
	} while (0)
#define CB(call, what)                                                                            \
	do {                                                                                      \
		if ((call) != CUBLAS_STATUS_SUCCESS) {                                            \
			std::snprintf(err, n, "%s: cuBLAS error", what);                         \
			return -1;                                                                \
		}                                                                                 \
	} while (0)
#define NC(call, what)                                                                            \
	do {                                                                                      \
		ncclResult_t r_ = (call);                                                         \
		if (r_ != ncclSuccess) {                                                          \
			std::snprintf(err, n, "%s: %s", what, ncclGetErrorString(r_));            \
			return -1;                                                                \
		}                                                                                 \
	} while (0)

__global__ void k_bias_rows(float *z, const float *b, int rows, int out)
{
	size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
	if (i < (size_t)rows * out)
		z[i] = b[i % out];
}

__global__ void k_relu(float *z, size_t len)
{
	size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
	if (i < len && z[i] < 0)
		z[i] = 0;
}

__global__ void k_scale(float *x, size_t len, float unit)
{
	size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
	if (i < len)
		x[i] *= unit;
}

__global__ void k_relu_back(float *dx, const float *h, size_t len)
{
	size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
	if (i < len && h[i] <= 0)
		dx[i] = 0;
}

__global__ void k_mse(const float *y, const float *t, float *dy, size_t len, float g, double *sse)
{
	__shared__ double part[256];
	size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
	double v = 0;
	if (i < len) {
		float d = y[i] - t[i];
		dy[i] = g * d;
		v = (double)d * d;
	}
	part[threadIdx.x] = v;
	__syncthreads();
	for (int s = blockDim.x / 2; s > 0; s >>= 1) {
		if (threadIdx.x < s)
			part[threadIdx.x] += part[threadIdx.x + s];
		__syncthreads();
	}
	if (threadIdx.x == 0)
		atomicAdd(sse, part[0]);
}

__global__ void k_set_loss(float *slot, const double *sse, double div)
{
	*slot = (float)(*sse / div);
}

__global__ void k_sgd(float *p, float *v, const float *g, size_t len, float lr, float mom,
		      float scale)
{
	size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
	if (i < len) {
		v[i] = mom * v[i] + scale * g[i];
		p[i] -= lr * v[i];
	}
}

static unsigned blocks(size_t len)
{
	return (unsigned)((len + 255) / 256);
}

extern "C" int gpu_probe(int local_rank, char *why, size_t n)
{
	int count = 0;
	cudaError_t e = cudaGetDeviceCount(&count);
	if (e != cudaSuccess) {
		std::snprintf(why, n, "%s", cudaGetErrorString(e));
		return -1;
	}
	if (count <= 0) {
		std::snprintf(why, n, "no CUDA device visible");
		return -1;
	}
	e = cudaSetDevice(local_rank % count);
	if (e != cudaSuccess) {
		std::snprintf(why, n, "cudaSetDevice: %s", cudaGetErrorString(e));
		return -1;
	}
	return 0;
}

extern "C" int gpu_nccl_unique_id(unsigned char id[GPU_NCCL_ID_BYTES], char *err, size_t n)
{
	ncclUniqueId u;
	NC(ncclGetUniqueId(&u), "ncclGetUniqueId");
	std::memcpy(id, u.internal, GPU_NCCL_ID_BYTES);
	return 0;
}

static int alloc_model(gpu_model *m, char *err, size_t n)
{
	CU(cudaMalloc(&m->params, m->nparams * sizeof(float)), "cudaMalloc params");
	CU(cudaMalloc(&m->grads, (m->nparams + 1) * sizeof(float)), "cudaMalloc grads");
	CU(cudaMalloc(&m->velocity, m->nparams * sizeof(float)), "cudaMalloc velocity");
	CU(cudaMemset(m->velocity, 0, m->nparams * sizeof(float)), "cudaMemset");
	CU(cudaMalloc(&m->sse, sizeof(double)), "cudaMalloc");
	CU(cudaMalloc(&m->ones, m->rows * sizeof(float)), "cudaMalloc");
	CU(cudaMalloc(&m->target, (size_t) m->rows * m->dims[m->nlayers] * sizeof(float)),
	   "cudaMalloc");
	std::vector<float> ones(m->rows, 1.0f);
	CU(cudaMemcpy(m->ones, ones.data(), m->rows * sizeof(float), cudaMemcpyHostToDevice),
	   "cudaMemcpy");
	m->act.resize(m->nlayers + 1);
	m->dact.resize(m->nlayers + 1);
	for (int l = 0; l <= m->nlayers; l++) {
		CU(cudaMalloc(&m->act[l], (size_t) m->rows * m->dims[l] * sizeof(float)),
		   "cudaMalloc activations");
		CU(cudaMalloc(&m->dact[l], (size_t) m->rows * m->dims[l] * sizeof(float)),
		   "cudaMalloc activations");
	}
	CU(cudaStreamCreate(&m->stream), "cudaStreamCreate");
	for (auto &e : m->ev)
		CU(cudaEventCreate(&e), "cudaEventCreate");
	CU(cudaStreamCreate(&m->comm_stream), "cudaStreamCreate");
	CU(cudaEventCreateWithFlags(&m->layer_ev, cudaEventDisableTiming), "cudaEventCreate");
	CU(cudaEventCreate(&m->comm_start), "cudaEventCreate");
	CU(cudaEventCreate(&m->comm_end), "cudaEventCreate");
	CB(cublasCreate(&m->blas), "cublasCreate");
	CB(cublasSetStream(m->blas, m->stream), "cublasSetStream");
	return 0;
}

extern "C" struct gpu_model *gpu_model_new(int in, int hidden, int depth, int out, int rows,
					   uint64_t seed, char *err, size_t n)
{
	gpu_model *m = new gpu_model();
	std::memset(&m->plan, 0, sizeof m->plan);
	m->nlayers = depth;
	m->rows = rows;
	m->dims.assign(depth + 1, hidden);
	m->dims[0] = in;
	m->dims[depth] = out;
	m->nparams = 0;
	for (int l = 0; l < depth; l++)
		m->nparams += (size_t)m->dims[l] * m->dims[l + 1] + m->dims[l + 1];
	if (alloc_model(m, err, n) < 0) {
		gpu_model_free(m);
		return nullptr;
	}
	// Same initialisation as model.c, so CPU and GPU runs start alike.
	std::vector<float> host(m->nparams, 0.0f);
	struct rng r;
	rng_seed(&r, seed, 0x6d6f64656cULL);
	size_t off = 0;
	for (int l = 0; l < depth; l++) {
		size_t nw = (size_t)m->dims[l] * m->dims[l + 1];
		float sd = sqrtf(2.0f / (float)m->dims[l]);
		for (size_t i = 0; i < nw; i++)
			host[off + i] = sd * (float)rng_normal(&r);
		m->W.push_back(m->params + off);
		m->dW.push_back(m->grads + off);
		off += nw;
		m->b.push_back(m->params + off);
		m->db.push_back(m->grads + off);
		off += m->dims[l + 1];
	}
	if (cudaMemcpy(m->params, host.data(), m->nparams * sizeof(float),
		       cudaMemcpyHostToDevice) != cudaSuccess) {
		std::snprintf(err, n, "cannot copy the initial weights to the GPU");
		gpu_model_free(m);
		return nullptr;
	}
	return m;
}

extern "C" int gpu_model_connect(struct gpu_model *m, const unsigned char id[GPU_NCCL_ID_BYTES],
				 int rank, int world, char *err, size_t n)
{
	m->world = world;
	if (world <= 1)
		return 0;
	ncclUniqueId u;
	std::memcpy(u.internal, id, GPU_NCCL_ID_BYTES);
	NC(ncclCommInitRank(&m->comm, world, u, rank), "ncclCommInitRank");
	return 0;
}

static int forward(gpu_model *m, const float *t, double scale, char *err, size_t n)
{
	const float one = 1.0f;
	for (int l = 0; l < m->nlayers; l++) {
		int in = m->dims[l], out = m->dims[l + 1];
		size_t len = (size_t)m->rows * out;
		k_bias_rows<<<blocks(len), 256, 0, m->stream>>>(m->act[l + 1], m->b[l], m->rows,
								out);
		CB(cublasSgemm(m->blas, CUBLAS_OP_T, CUBLAS_OP_N, out, m->rows, in, &one, m->W[l],
			       in, m->act[l], in, &one, m->act[l + 1], out),
		   "forward sgemm");
		if (l + 1 < m->nlayers) {
			k_relu<<<blocks(len), 256, 0, m->stream>>>(m->act[l + 1], len);
			for (int p = 0; p < m->elementwise; p++)
				k_scale<<<blocks(len), 256, 0, m->stream>>>(m->act[l + 1], len,
									    1.0f);
		}
	}
	int out = m->dims[m->nlayers];
	size_t len = (size_t)m->rows * out;
	CU(cudaMemsetAsync(m->sse, 0, sizeof(double), m->stream), "cudaMemset");
	k_mse<<<blocks(len), 256, 0, m->stream>>>(m->act[m->nlayers], t, m->dact[m->nlayers], len,
						   (float)(2.0 / (out * scale)), m->sse);
	k_set_loss<<<1, 1, 0, m->stream>>>(m->grads + m->nparams, m->sse, (double)out * scale);
	return 0;
}

/* Bucketed DDP: once backward has produced a bucket's gradients, the
 * communication stream waits for them and all-reduces the bucket while the
 * compute stream goes on with the layers below. */
static int post_bucket(gpu_model *m, int l, char *err, size_t n)
{
	if (!m->plan.closes || !m->plan.closes[l])
		return 0;
	int k = 0;
	for (int j = m->nlayers - 1; j > l; j--)
		k += m->plan.closes[j];
	CU(cudaEventRecord(m->layer_ev, m->stream), "event");
	CU(cudaStreamWaitEvent(m->comm_stream, m->layer_ev, 0), "stream wait");
	if (!m->comm_started) {
		CU(cudaEventRecord(m->comm_start, m->comm_stream), "event");
		m->comm_started = 1;
	}
	size_t len = m->plan.end[k] - m->plan.begin[k];
	NC(ncclAllReduce(m->grads + m->plan.begin[k], m->grads + m->plan.begin[k], len, ncclFloat,
			 ncclSum, m->comm, m->comm_stream),
	   "ncclAllReduce (bucket)");
	return 0;
}

static int backward(gpu_model *m, int bucketed, char *err, size_t n)
{
	const float one = 1.0f, zero = 0.0f;
	for (int l = m->nlayers - 1; l >= 0; l--) {
		int in = m->dims[l], out = m->dims[l + 1];
		CB(cublasSgemm(m->blas, CUBLAS_OP_N, CUBLAS_OP_T, in, out, m->rows, &one, m->act[l],
			       in, m->dact[l + 1], out, &zero, m->dW[l], in),
		   "dW sgemm");
		CB(cublasSgemv(m->blas, CUBLAS_OP_N, out, m->rows, &one, m->dact[l + 1], out,
			       m->ones, 1, &zero, m->db[l], 1),
		   "db sgemv");
		if (bucketed && post_bucket(m, l, err, n) < 0)
			return -1;
		if (l == 0)
			break;
		CB(cublasSgemm(m->blas, CUBLAS_OP_N, CUBLAS_OP_N, in, m->rows, out, &one, m->W[l],
			       in, m->dact[l + 1], out, &zero, m->dact[l], in),
		   "dX sgemm");
		size_t len = (size_t)m->rows * in;
		k_relu_back<<<blocks(len), 256, 0, m->stream>>>(m->dact[l], m->act[l], len);
		for (int p = 0; p < m->elementwise; p++)
			k_scale<<<blocks(len), 256, 0, m->stream>>>(m->dact[l], len, 1.0f);
	}
	return 0;
}

static int sync_grads(gpu_model *m, int per_param, double *bytes, char *err, size_t n)
{
	*bytes = 0;
	if (m->world <= 1)
		return 0;
	if (!per_param) {
		NC(ncclAllReduce(m->grads, m->grads, m->nparams + 1, ncclFloat, ncclSum, m->comm,
				 m->stream),
		   "ncclAllReduce");
		*bytes = (double)(m->nparams + 1) * sizeof(float);
		return 0;
	}
	for (int l = m->nlayers - 1; l >= 0; l--) {
		size_t nw = (size_t)m->dims[l] * m->dims[l + 1], nb = m->dims[l + 1];
		NC(ncclAllReduce(m->dW[l], m->dW[l], nw, ncclFloat, ncclSum, m->comm, m->stream),
		   "ncclAllReduce");
		NC(ncclAllReduce(m->db[l], m->db[l], nb, ncclFloat, ncclSum, m->comm, m->stream),
		   "ncclAllReduce");
		*bytes += (double)(nw + nb) * sizeof(float);
	}
	NC(ncclAllReduce(m->grads + m->nparams, m->grads + m->nparams, 1, ncclFloat, ncclSum,
			 m->comm, m->stream),
	   "ncclAllReduce");
	*bytes += sizeof(float);
	return 0;
}

extern "C" int gpu_model_configure(struct gpu_model *m, int elementwise, double bucket_mb,
				   char *err, size_t n)
{
	m->elementwise = elementwise;
	std::vector<size_t> lb(m->nlayers), le(m->nlayers);
	for (int l = 0; l < m->nlayers; l++) {
		lb[l] = (size_t)(m->W[l] - m->params);
		le[l] = (size_t)(m->b[l] - m->params) + m->dims[l + 1];
	}
	if (bucket_plan_make(&m->plan, m->nlayers, lb.data(), le.data(), m->nparams,
			     bucket_mb * 1024 * 1024) < 0) {
		std::snprintf(err, n, "out of memory for the bucket plan");
		return -1;
	}
	return 0;
}

extern "C" int gpu_model_state(struct gpu_model *m, float *params, float *momentum)
{
	if (cudaMemcpy(params, m->params, m->nparams * sizeof(float), cudaMemcpyDeviceToHost) !=
		    cudaSuccess ||
	    cudaMemcpy(momentum, m->velocity, m->nparams * sizeof(float), cudaMemcpyDeviceToHost) !=
		    cudaSuccess)
		return -1;
	return 0;
}

extern "C" int gpu_train_step(struct gpu_model *m, const float *x, const float *t, float lr,
			      float momentum, float clip, double scale, enum gpu_ddp ddp,
			      struct gpu_step *o, char *err, size_t n)
{
	int out = m->dims[m->nlayers];
	int bucketed = ddp == GPU_DDP_BUCKETED && m->world > 1;
	m->comm_started = 0;
	CU(cudaEventRecord(m->ev[0], m->stream), "event");
	CU(cudaMemcpyAsync(m->act[0], x, (size_t) m->rows * m->dims[0] * sizeof(float),
			   cudaMemcpyHostToDevice, m->stream),
	   "H2D");
	CU(cudaMemcpyAsync(m->target, t, (size_t) m->rows * out * sizeof(float),
			   cudaMemcpyHostToDevice, m->stream),
	   "H2D");
	CU(cudaEventRecord(m->ev[1], m->stream), "event");
	nvtxRangePushA("forward_pass");
	int rc = forward(m, m->target, scale, err, n);
	nvtxRangePop();
	CU(cudaEventRecord(m->ev[2], m->stream), "event");
	nvtxRangePushA("backward_pass");
	if (rc == 0)
		rc = backward(m, bucketed, err, n);
	nvtxRangePop();
	CU(cudaEventRecord(m->ev[3], m->stream), "event");
	nvtxRangePushA("gradient_sync");
	if (rc == 0 && bucketed) {
		CU(cudaEventRecord(m->comm_end, m->comm_stream), "event");
		CU(cudaStreamWaitEvent(m->stream, m->comm_end, 0), "stream wait");
		o->bytes = (double)(m->nparams + 1) * sizeof(float);
	} else if (rc == 0) {
		rc = sync_grads(m, ddp == GPU_DDP_PER_PARAM, &o->bytes, err, n);
	}
	nvtxRangePop();
	CU(cudaEventRecord(m->ev[4], m->stream), "event");
	nvtxRangePushA("optimizer_step");
	float scale_g = 1.0f;
	if (rc == 0 && clip > 0) {
		float norm = 0;
		CB(cublasSnrm2(m->blas, (int)m->nparams, m->grads, 1, &norm), "nrm2");
		if (norm > clip)
			scale_g = clip / norm;
	}
	if (rc == 0)
		k_sgd<<<blocks(m->nparams), 256, 0, m->stream>>>(m->params, m->velocity, m->grads,
								 m->nparams, lr, momentum, scale_g);
	nvtxRangePop();
	CU(cudaEventRecord(m->ev[5], m->stream), "event");
	if (rc < 0)
		return rc;
	float loss = 0;
	CU(cudaMemcpyAsync(&loss, m->grads + m->nparams, sizeof(float), cudaMemcpyDeviceToHost,
			   m->stream),
	   "D2H");
	CU(cudaStreamSynchronize(m->stream), "step");
	float ms[5];
	for (int i = 0; i < 5; i++)
		CU(cudaEventElapsedTime(&ms[i], m->ev[i], m->ev[i + 1]), "event time");
	o->h2d_ms = ms[0];
	o->forward_ms = ms[1];
	o->backward_ms = ms[2];
	o->comm_exposed_ms = ms[3]; /* what the compute stream waited for communication */
	o->comm_ms = ms[3];
	if (bucketed && m->comm_started) {
		float total = 0;
		CU(cudaEventElapsedTime(&total, m->comm_start, m->comm_end), "event time");
		o->comm_ms = total;
	}
	float ago = 0; /* the last all-reduce's end: the comm stream's, else the sync's */
	CU(cudaEventElapsedTime(&ago, bucketed && m->comm_started ? m->comm_end : m->ev[4],
				m->ev[5]),
	   "event time");
	o->coll_end_ago_ms = ago > 0 ? ago : 0;
	o->optimizer_ms = ms[4];
	o->loss = loss;
	return 0;
}

extern "C" uint64_t gpu_model_checksum(struct gpu_model *m)
{
	m->host.resize(m->nparams);
	if (cudaMemcpy(m->host.data(), m->params, m->nparams * sizeof(float),
		       cudaMemcpyDeviceToHost) != cudaSuccess)
		return 0;
	return params_checksum(m->host.data(), m->nparams);
}

extern "C" size_t gpu_model_params(const struct gpu_model *m)
{
	return m->nparams;
}

extern "C" int gpu_fabric_allreduce(struct gpu_model *m, size_t nfloats, char *err, size_t n)
{
	if (!m->comm) {
		std::snprintf(err, n, "the ranks are not connected (one rank?)");
		return -1;
	}
	if (nfloats > m->probe_n) {
		cudaFree(m->probe);
		m->probe = nullptr;
		m->probe_n = 0;
		CU(cudaMalloc((void **) &m->probe, nfloats * sizeof(float)),
		   "cudaMalloc (fabric probe)");
		CU(cudaMemset(m->probe, 0, nfloats * sizeof(float)), "cudaMemset (fabric probe)");
		m->probe_n = nfloats;
	}
	NC(ncclAllReduce(m->probe, m->probe, nfloats, ncclFloat, ncclSum, m->comm, m->stream),
	   "ncclAllReduce (probe)");
	CU(cudaStreamSynchronize(m->stream), "fabric probe");
	return 0;
}

extern "C" void gpu_model_free(struct gpu_model *m)
{
	if (!m)
		return;
	cudaFree(m->probe);
	if (m->comm)
		ncclCommDestroy(m->comm);
	for (float *p : m->act)
		cudaFree(p);
	for (float *p : m->dact)
		cudaFree(p);
	cudaFree(m->params);
	cudaFree(m->grads);
	cudaFree(m->velocity);
	cudaFree(m->ones);
	cudaFree(m->target);
	cudaFree(m->sse);
	if (m->blas)
		cublasDestroy(m->blas);
	bucket_plan_free(&m->plan);
	delete m;
}
