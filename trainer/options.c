/* SPDX-License-Identifier: MIT */
#include "options.h"

#include "comm.h"
#include "util/trainer_options.h"

#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char usage_text[] =
	"usage: campaign-trainer [--backend gloo] [--ddp sync|bucketed|per-param] --steps N --metrics-dir DIR [knobs]\n"
	"\n"
	"A real data-parallel MLP training loop; gradients are all-reduced with gloo.\n"
	"Rank and world size come from RANK/WORLD_SIZE or SLURM_PROCID/SLURM_NTASKS.\n"
	"\n"
	"  --backend NAME        gloo (this binary); nccl runs campaign-trainer-gpu\n"
	"  --ddp MODE            sync: one all-reduce after backward (default); bucketed: buckets of\n"
	"                        --bucket-mb all-reduced while backward goes on; per-param: one per tensor\n"
	"  --bucket-mb X         bucket size for --ddp bucketed (default 4)\n"
	"  --steps N             total steps, warm-up included (default 25)\n"
	"  --warmup-steps N      steps marked warmup in telemetry; LR warm-up and clipping (default 5)\n"
	"  --metrics-dir DIR     where rank_<r>.jsonl goes (default ./metrics)\n"
	"  --batch B             global batch, divided over ranks (default 64)\n"
	"  --batch-per-rank N    per-rank batch instead (global = N x ranks): weak scaling\n"
	"  --input N --hidden N --depth N --output N   MLP shape (default 256 512 3 16)\n"
	"  --lr X --momentum X --clip X                SGD (default 0.05 0.9 1.0)\n"
	"  --seed N              weights and data seed (default 1)\n"
	"  --workers N --prefetch N   loader threads and prefetch depth (default 2 4)\n"
	"  --decode-us N         CPU work per sample in the loader, microseconds (default 0)\n"
	"  --read-us N           read latency per sample in the loader (sleeps: slow storage; default 0)\n"
	"  --dataset FILE        read samples from FILE (made by --make-dataset) instead of generating them\n"
	"  --make-dataset FILE --samples N   write N samples of the task to FILE and exit\n"
	"  --checkpoint-every N  every N steps each rank writes its parameters with fsync (I/O knob);\n"
	"                        3 more before the first step, so that the steps' are steady ones\n"
	"  --checkpoint-async 0|1   1: a thread of its own writes each checkpoint, one in flight (default 0)\n"
	"  --checkpoint-dir DIR  where (default $CAMPAIGN_JOB_DIR/checkpoints, else ./checkpoints)\n"
	"  --checkpoint-extra-mb X   X MB of further state per checkpoint (I/O intensity; default 0)\n"
	"  --elementwise N       N extra elementwise passes over every activation (memory-bound knob)\n"
	"  --no-telemetry        write no JSONL and no checksums (to measure telemetry overhead)\n"
	"  --gloo-algo NAME      ring, bcube or halving-doubling (default ring)\n"
	"  --rendezvous DIR      gloo FileStore directory (default $CAMPAIGN_JOB_DIR/rendezvous)\n"
	"  --timeout-s N         rendezvous and collective timeout (default 120)\n"
	"  --die-at-step N [--die-rank R]   fault injection: rank R kills itself at step N\n"
	"  --slow-rank R[,R...] --slow-ms MS  stragglers: these ranks compute MS milliseconds more in every forward\n"
	"  --fabric-probe        instead of training: all-reduce bus bandwidth from 4 KiB to --probe-max-mb\n"
	"                        (default 64) in steps of x4, --probe-iters (default 10) timed each, like\n"
	"                        nccl-tests' all_reduce_perf; rank 0 writes METRICS_DIR/fabric.json\n"
	"\n"
	"exit status: 0 ok, 2 usage, 3 communication failure, 4 I/O error, 69 no GPU (GPU binary)\n";

static int env_int(const char *a, const char *b, int dflt)
{
	const char *v = getenv(a);
	if (!v)
		v = getenv(b);
	return v ? atoi(v) : dflt;
}

static int bad(const char *fmt, const char *what)
{
	fprintf(stderr, "campaign-trainer: ");
	fprintf(stderr, fmt, what);
	fprintf(stderr, "\nTry 'campaign-trainer --help'.\n");
	return TRAINER_EXIT_USAGE;
}

static int parse_long(const char *s, long min, long max, long *out)
{
	char *end;
	long v = strtol(s, &end, 10);
	if (!*s || *end || v < min || v > max)
		return -1;
	*out = v;
	return 0;
}

/* --slow-rank R[,R...] */
static int slow_ranks(const char *a, struct trainer_opts *o)
{
	char buf[256];
	long v;
	snprintf(buf, sizeof buf, "%s", a);
	o->n_slow = 0;
	for (char *save = NULL, *t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
		if (o->n_slow == 16 || parse_long(t, 0, 1 << 20, &v) < 0)
			return -1;
		o->slow_rank[o->n_slow++] = (int)v;
	}
	return o->n_slow ? 0 : -1;
}

int options_is_slow(const struct trainer_opts *o)
{
	for (int i = 0; i < o->n_slow; i++)
		if (o->slow_rank[i] == o->rank)
			return 1;
	return 0;
}

static void defaults(struct trainer_opts *o)
{
	memset(o, 0, sizeof *o);
	o->backend = "gloo";
	o->ddp = DDP_SYNC;
	o->ddp_name = "sync";
	o->steps = 25;
	o->warmup_steps = 5;
	o->metrics_dir = "metrics";
	o->batch = 64;
	o->input = 256;
	o->hidden = 512;
	o->depth = 3;
	o->output = 16;
	o->lr = 0.05;
	o->momentum = 0.9;
	o->clip = 1.0;
	o->seed = 1;
	o->workers = TRAINER_DEFAULT_WORKERS;
	o->prefetch = TRAINER_DEFAULT_PREFETCH;
	o->gloo_algo_name = "ring";
	o->timeout_s = 120;
	o->die_at_step = -1;
	o->probe_max_mb = 64;
	o->probe_iters = 10;
	o->bucket_mb = 4;
	o->samples = 4096;
	o->telemetry = 1;
	o->rank = env_int("RANK", "SLURM_PROCID", 0);
	o->world = env_int("WORLD_SIZE", "SLURM_NTASKS", 1);
	o->local_rank = env_int("LOCAL_RANK", "SLURM_LOCALID", 0);
}

int options_parse(int argc, char **argv, struct trainer_opts *o)
{
	static const struct option longopts[] = {
		{ "backend", 1, 0, 'B' },        { "ddp", 1, 0, 'd' },
		{ "steps", 1, 0, 's' },          { "warmup-steps", 1, 0, 'w' },
		{ "metrics-dir", 1, 0, 'm' },    { "batch", 1, 0, 'b' },
		{ "batch-per-rank", 1, 0, 'p' }, { "input", 1, 0, 'I' },
		{ "hidden", 1, 0, 'H' },         { "depth", 1, 0, 'D' },
		{ "output", 1, 0, 'O' },         { "lr", 1, 0, 'l' },
		{ "momentum", 1, 0, 'M' },       { "clip", 1, 0, 'c' },
		{ "seed", 1, 0, 'S' },           { "workers", 1, 0, 'W' },
		{ "prefetch", 1, 0, 'P' },       { "decode-us", 1, 0, 'u' },
		{ "read-us", 1, 0, 'U' },        { "gloo-algo", 1, 0, 'a' },
		{ "rendezvous", 1, 0, 'r' },     { "timeout-s", 1, 0, 't' },
		{ "bucket-mb", 1, 0, 'z' },      { "checkpoint-every", 1, 0, 'C' },
		{ "checkpoint-dir", 1, 0, 'T' }, { "checkpoint-extra-mb", 1, 0, 'X' },
		{ "checkpoint-async", 1, 0, 'A' },
		{ "elementwise", 1, 0, 'E' },    { "dataset", 1, 0, 'F' },
		{ "make-dataset", 1, 0, 'G' },   { "samples", 1, 0, 'N' },
		{ "no-telemetry", 0, 0, 'Q' },   { "die-at-step", 1, 0, 'k' },
		{ "die-rank", 1, 0, 'K' },       { "slow-rank", 1, 0, 'y' },
		{ "slow-ms", 1, 0, 'Y' },        { "fabric-probe", 0, 0, 'f' },
		{ "probe-max-mb", 1, 0, 'x' },   { "probe-iters", 1, 0, 'i' },
		{ "help", 0, 0, 'h' },           { 0, 0, 0, 0 },
	};
	defaults(o);
	int c;
	long v;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
		const char *a = optarg;
		switch (c) {
		case 'h': fputs(usage_text, stdout); return -1;
		case 'B':
			if (strcmp(a, "gloo") && strcmp(a, "nccl"))
				return bad("--backend must be gloo or nccl, not '%s'", a);
			o->backend = a; break;
		case 'd':
			if (!strcmp(a, "sync")) o->ddp = DDP_SYNC;
			else if (!strcmp(a, "bucketed")) o->ddp = DDP_BUCKETED;
			else if (!strcmp(a, "per-param")) o->ddp = DDP_PER_PARAM;
			else return bad("--ddp must be sync, bucketed or per-param, not '%s'", a);
			o->ddp_name = a; break;
		case 's':
			if (parse_long(a, 1, 100000000, &o->steps))
				return bad("bad --steps '%s'", a);
			break;
		case 'w':
			if (parse_long(a, 0, 100000000, &o->warmup_steps))
				return bad("bad --warmup-steps '%s'", a);
			break;
		case 'm': o->metrics_dir = a; break;
		case 'b':
			if (parse_long(a, 1, 1 << 24, &o->batch))
				return bad("bad --batch '%s'", a);
			break;
		case 'p':
			if (parse_long(a, 1, 1 << 20, &v))
				return bad("bad --batch-per-rank '%s'", a);
			o->batch = v * o->world;
			break;
		case 'I':
			if (parse_long(a, 1, 1 << 16, &v))
				return bad("bad --input '%s'", a);
			o->input = (int) v;
			break;
		case 'H':
			if (parse_long(a, 1, 1 << 16, &v))
				return bad("bad --hidden '%s'", a);
			o->hidden = (int) v;
			break;
		case 'D':
			if (parse_long(a, 1, 256, &v))
				return bad("bad --depth '%s'", a);
			o->depth = (int) v;
			break;
		case 'O':
			if (parse_long(a, 1, 1 << 16, &v))
				return bad("bad --output '%s'", a);
			o->output = (int) v;
			break;
		case 'l': o->lr = atof(a); if (o->lr <= 0) return bad("bad --lr '%s'", a); break;
		case 'M':
			o->momentum = atof(a);
			if (o->momentum < 0 || o->momentum >= 1)
				return bad("bad --momentum '%s'", a);
			break;
		case 'c':
			o->clip = atof(a);
			if (o->clip < 0)
				return bad("bad --clip '%s'", a);
			break;
		case 'S':
			if (parse_long(a, 0, 0x7fffffffL, &v))
				return bad("bad --seed '%s'", a);
			o->seed = (uint64_t) v;
			break;
		case 'W':
			if (parse_long(a, 1, 256, &v))
				return bad("bad --workers '%s'", a);
			o->workers = (int) v;
			break;
		case 'P':
			if (parse_long(a, 1, 1024, &v))
				return bad("bad --prefetch '%s'", a);
			o->prefetch = (int) v;
			break;
		case 'u':
			if (parse_long(a, 0, 10000000, &o->decode_us))
				return bad("bad --decode-us '%s'", a);
			break;
		case 'U':
			if (parse_long(a, 0, 10000000, &o->read_us))
				return bad("bad --read-us '%s'", a);
			break;
		case 'a':
			if (!strcmp(a, "ring")) o->gloo_algo = COMM_RING;
			else if (!strcmp(a, "bcube")) o->gloo_algo = COMM_BCUBE;
			else if (!strcmp(a, "halving-doubling"))
				o->gloo_algo = COMM_HALVING_DOUBLING;
			else
				return bad(
					"--gloo-algo must be ring, bcube or halving-doubling, not '%s'",
					a);
			o->gloo_algo_name = a; break;
		case 'r': o->rendezvous = a; break;
		case 't':
			if (parse_long(a, 1, 86400, &o->timeout_s))
				return bad("bad --timeout-s '%s'", a);
			break;
		case 'z':
			o->bucket_mb = atof(a);
			if (o->bucket_mb <= 0 || o->bucket_mb > 65536)
				return bad("bad --bucket-mb '%s'", a);
			break;
		case 'C':
			if (parse_long(a, 0, 100000000, &o->checkpoint_every))
				return bad("bad --checkpoint-every '%s'", a);
			break;
		case 'T': o->checkpoint_dir = a; break;
		case 'A':
			if (parse_long(a, 0, 1, &v))
				return bad("bad --checkpoint-async '%s' (0 or 1)", a);
			o->checkpoint_async = (int) v;
			break;
		case 'X':
			o->checkpoint_extra_mb = atof(a);
			if (o->checkpoint_extra_mb < 0 || o->checkpoint_extra_mb > 1e6)
				return bad("bad --checkpoint-extra-mb '%s'", a);
			break;
		case 'E':
			if (parse_long(a, 0, 10000, &v))
				return bad("bad --elementwise '%s'", a);
			o->elementwise = (int) v;
			break;
		case 'F': o->dataset = a; break;
		case 'G': o->make_dataset = a; break;
		case 'N':
			if (parse_long(a, 1, 1L << 40, &o->samples))
				return bad("bad --samples '%s'", a);
			break;
		case 'Q': o->telemetry = 0; break;
		case 'k':
			if (parse_long(a, 0, 100000000, &o->die_at_step))
				return bad("bad --die-at-step '%s'", a);
			break;
		case 'K':
			if (parse_long(a, 0, 1 << 20, &v))
				return bad("bad --die-rank '%s'", a);
			o->die_rank = (int) v;
			break;
		case 'y':
			if (slow_ranks(a, o) < 0)
				return bad(
					"bad --slow-rank '%s' (ranks, comma-separated, 16 at most)",
					a);
			break;
		case 'Y':
			if (parse_long(a, 0, 100000, &v))
				return bad("bad --slow-ms '%s'", a);
			o->slow_ms = (double) v;
			break;
		case 'f': o->fabric_probe = 1; break;
		case 'x':
			o->probe_max_mb = atof(a);
			if (!(o->probe_max_mb >= 0.004 && o->probe_max_mb <= 16384))
				return bad("bad --probe-max-mb '%s'", a);
			break;
		case 'i':
			if (parse_long(a, 1, 100000, &o->probe_iters))
				return bad("bad --probe-iters '%s'", a);
			break;
		default: return bad("unknown or incomplete option '%s'", argv[optind - 1]);
		}
	}
	if (optind < argc)
		return bad("unexpected argument '%s'", argv[optind]);
	if (o->world < 1 || o->rank < 0 || o->rank >= o->world)
		return bad("rank/world size from the environment are inconsistent (%s)",
			   "RANK, WORLD_SIZE");
	if (o->batch % o->world)
		return bad("--batch must be a multiple of the number of ranks (%s)",
			   "global batch split evenly");
	return 0;
}

float options_lr(const struct trainer_opts *o, long step, float *clip)
{
	int warm = step < o->warmup_steps;
	*clip = warm ? (float)o->clip : 0.0f;
	return (float)(warm ? o->lr * (double)(step + 1) / (double)(o->warmup_steps + 1) : o->lr);
}

/* Forward + backward GEMM FLOPs of one rank's step. */
static double options_flops_per_step(const struct trainer_opts *o)
{
	double rows = (double)(o->batch / o->world), f = 0;
	for (int l = 0; l < o->depth; l++) {
		double in = l == 0 ? o->input : o->hidden,
		       out = l + 1 == o->depth ? o->output : o->hidden;
		/* forward, dW, and dX but for the input layer */
		f += 2.0 * rows * in * out * (l == 0 ? 2 : 3);
	}
	return f;
}

/* fmt's text appended to buf (n bytes) at k, cut to fit: where the text ends, as if whole. */
__attribute__((format(printf, 4, 5))) static size_t add_fmt(char *buf, size_t n, size_t k,
							    const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int w = vsnprintf(buf + (k < n ? k : n), k < n ? n - k : 0, fmt, ap);
	va_end(ap);
	return k + (w > 0 ? (size_t)w : 0);
}

void options_meta_json(const struct trainer_opts *o, size_t nparams, char *buf, size_t n)
{
	char host[256] = "";
	/* the scheduler's name of the node (emulated ones too) */
	const char *node = getenv("SLURMD_NODENAME");
	if (node && *node)
		snprintf(host, sizeof host, "%s", node);
	else
		gethostname(host, sizeof host);
	/* in parts, each format a line of the source: who, the model, the run, its data */
	size_t k = 0;
	k = add_fmt(
		buf, n, k,
		"\"rank\": %d, \"world_size\": %d, \"local_rank\": %d, \"host\": \"%s\", \"backend\": \"%s\", \"ddp\": \"%s\", \"gloo_algo\": \"%s\", ",
		o->rank, o->world, o->local_rank, host, o->backend, o->ddp_name, o->gloo_algo_name);
	k = add_fmt(
		buf, n, k,
		"\"global_batch\": %ld, \"batch_per_rank\": %ld, \"input\": %d, \"hidden\": %d, \"depth\": %d, \"output\": %d, \"params\": %zu, ",
		o->batch, o->batch / o->world, o->input, o->hidden, o->depth, o->output, nparams);
	k = add_fmt(
		buf, n, k,
		"\"flops_per_step\": %.0f, \"steps\": %ld, \"warmup_steps\": %ld, \"seed\": %llu, \"workers\": %d, \"prefetch\": %d, ",
		options_flops_per_step(o), o->steps, o->warmup_steps, (unsigned long long) o->seed,
		o->workers, o->prefetch);
	k = add_fmt(buf, n, k,
		    "\"decode_us\": %ld, \"read_us\": %ld, \"lr\": %g, \"bucket_mb\": %g, ",
		    o->decode_us, o->read_us, o->lr, o->bucket_mb);
	add_fmt(buf, n, k,
		"\"checkpoint_every\": %ld, \"checkpoint_async\": %s, \"elementwise\": %d, \"dataset\": %s",
		o->checkpoint_every, o->checkpoint_async ? "true" : "false", o->elementwise,
		o->dataset ? "true" : "false");
}

void options_checkpoint_dir(const struct trainer_opts *o, char *buf, size_t n)
{
	const char *jd = getenv("CAMPAIGN_JOB_DIR");
	if (o->checkpoint_dir)
		snprintf(buf, n, "%s", o->checkpoint_dir);
	else
		snprintf(buf, n, "%s/checkpoints", jd ? jd : ".");
}

int options_checkpoint_due(const struct trainer_opts *o, long step)
{
	return o->checkpoint_every > 0 && (step + 1) % o->checkpoint_every == 0;
}
