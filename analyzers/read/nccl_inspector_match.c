/* nccl_inspector_match.c: the dump files read in step and their records matched into
 * collective instances. Each round reads every file up to the same dump time (a window
 * sized so that a round reads about a thousand records of the busiest file), so the ranks
 * of one instance arrive within a round or two of each other; an instance waits in its
 * communicator's list (sorted by coll_sn) until its last rank comes, or until a rank it
 * lacks records a later coll_sn: the plugin writes a communicator's collectives in order,
 * skipping those completed between two dumps, so that rank will never record it.
 * SPDX-License-Identifier: MIT */
#include "analyzers/read/nccl_inspector.h"

#include "util/fsio.h"
#include "util/strbuf.h"

#include <stdlib.h>
#include <string.h>

struct insp_pend {
	unsigned long long sn;
	int have;                  /* ranks recorded */
	char coll[24];
	struct insp_rank_rec *r;   /* n_ranks, proc -1 until recorded */
};

/* One file being read: where it goes on, and the record read ahead (past the round). */
struct file_state {
	const char *path;
	long off;
	int done, line_start, have_ahead;
	size_t proc;               /* the process of its last record (a file is mostly one) */
	struct insp_rec ahead;
	double last_us;            /* the dump time of its last record */
};

struct matcher {
	struct insp_read *r;
	insp_instance_fn fn;
	void *ctx;
};

/* The index of (host, pid) in r's processes, added when new; hint: the likely one. */
static size_t proc_of(struct insp_read *r, const struct insp_rec *rec, size_t hint)
{
	for (size_t k = 0; k <= r->nprocs; k++) {
		size_t i = k == 0 ? hint : k - 1;
		if (i < r->nprocs && r->procs[i].pid == rec->pid &&
		    !strcmp(r->procs[i].host, rec->host))
			return i;
	}
	XGROW(r->procs, r->nprocs, r->proccap, 16);
	r->procs[r->nprocs].pid = rec->pid;
	memcpy(r->procs[r->nprocs].host, rec->host, sizeof rec->host);
	return r->nprocs++;
}

static const char *comm_name(const void *comms, size_t i)
{
	return ((const struct insp_comm *)comms)[i].id;
}

/* The communicator of rec (added when new); -1 when rec's size differs from its own. */
static long comm_of(struct insp_read *r, const struct insp_rec *rec)
{
	size_t *slot = strindex_slot(&r->comm_index, rec->comm_id, r->comms, r->ncomms, comm_name);
	if (*slot)
		return r->comms[*slot - 1].n_ranks == rec->n_ranks ? (long)*slot - 1 : -1;
	XGROW(r->comms, r->ncomms, r->commcap, 8);
	struct insp_comm *c = &r->comms[r->ncomms];
	memset(c, 0, sizeof *c);
	memcpy(c->id, rec->comm_id, sizeof c->id);
	c->n_ranks = rec->n_ranks;
	c->member = xmalloc((size_t)c->n_ranks * sizeof *c->member);
	for (int i = 0; i < c->n_ranks; i++)
		c->member[i] = -1;
	c->frontier = xcalloc((size_t)c->n_ranks, sizeof *c->frontier);
	*slot = ++r->ncomms;
	return (long)r->ncomms - 1;
}

/* The waiting instance sn of c, inserted (in sn order) when new. */
static struct insp_pend *pend_of(struct insp_comm *c, unsigned long long sn, const char *coll)
{
	size_t lo = 0, hi = c->npend;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (c->pend[mid].sn < sn)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo < c->npend && c->pend[lo].sn == sn)
		return &c->pend[lo];
	XGROW(c->pend, c->npend, c->pendcap, 16);
	memmove(&c->pend[lo + 1], &c->pend[lo], (c->npend - lo) * sizeof *c->pend);
	c->npend++;
	struct insp_pend *p = &c->pend[lo];
	p->sn = sn;
	p->have = 0;
	snprintf(p->coll, sizeof p->coll, "%s", coll);
	p->r = xmalloc((size_t)c->n_ranks * sizeof *p->r);
	for (int i = 0; i < c->n_ranks; i++)
		p->r[i].proc = -1;
	return p;
}

static void pend_drop(struct insp_comm *c, size_t i)
{
	free(c->pend[i].r);
	memmove(&c->pend[i], &c->pend[i + 1], (c->npend - i - 1) * sizeof *c->pend);
	c->npend--;
}

/* One record into its instance; the instance handed on when it is whole. */
static void add_record(struct matcher *x, struct file_state *f, const struct insp_rec *rec)
{
	struct insp_read *r = x->r;
	long ci = comm_of(r, rec);
	f->proc = proc_of(r, rec, f->proc);
	struct insp_comm *c = ci < 0 ? NULL : &r->comms[ci];
	if (!c || (c->member[rec->rank] >= 0 && c->member[rec->rank] != (int)f->proc)) {
		r->st.malformed++; /* another size, or another process in the same rank */
		return;
	}
	c->member[rec->rank] = (int)f->proc;
	if (rec->sn + 1 > c->frontier[rec->rank])
		c->frontier[rec->rank] = rec->sn + 1;
	struct insp_pend *p = pend_of(c, rec->sn, rec->coll);
	if (p->r[rec->rank].proc >= 0) {
		r->st.duplicates++;
		return;
	}
	r->st.objects++;
	r->st.timing[rec->timing]++;
	r->st.verbose += rec->kernel_stop_us > 0;
	p->r[rec->rank] = (struct insp_rank_rec){ (int) f->proc, rec->exec_us, rec->msg_bytes,
						  rec->algbw,    rec->busbw,   rec->kernel_stop_us,
						  rec->timing };
	if (++p->have < c->n_ranks)
		return;
	struct insp_instance in = { c, (size_t)ci, p->sn, p->coll, p->r };
	r->st.instances++;
	c->instances++;
	x->fn(x->ctx, &in);
	pend_drop(c, (size_t)(p - c->pend));
}

/* Instances that can no longer complete: a rank they lack has recorded a later coll_sn;
 * then the oldest beyond INSP_MAX_PENDING; with end, all. */
static void sweep(struct insp_read *r, int end)
{
	for (size_t k = 0; k < r->ncomms; k++) {
		struct insp_comm *c = &r->comms[k];
		for (size_t i = 0; i < c->npend;) {
			int lost = end || c->npend > INSP_MAX_PENDING;
			for (int m = 0; m < c->n_ranks && !lost; m++)
				lost = c->pend[i].r[m].proc < 0 &&
					c->frontier[m] > c->pend[i].sn + 1;
			if (lost) {
				r->st.partial++;
				pend_drop(c, i);
			} else {
				i++;
			}
		}
	}
}

/* The next record of f into f->ahead (f->done at its end). */
static void read_ahead(struct insp_read *r, struct file_state *f, FILE *fp)
{
	f->have_ahead = insp_next_record(fp, &f->line_start, &f->ahead, &r->st.malformed);
	f->done = !f->have_ahead;
	if (f->have_ahead && f->ahead.dump_us < 0)
		f->ahead.dump_us = f->last_us; /* no dump time: with the record before it */
	if (f->have_ahead)
		f->last_us = f->ahead.dump_us;
}

/* Reads f's records up to horizon (µs); how many. */
static size_t read_until(struct matcher *x, struct file_state *f, double horizon)
{
	FILE *fp = fsio_fopen_input(f->path);
	size_t n = 0;
	if (!fp || fseek(fp, f->off, SEEK_SET) != 0) {
		x->r->st.unreadable += f->off == 0;
		f->done = 1;
		f->have_ahead = 0;
		if (fp)
			fclose(fp);
		return 0;
	}
	if (!f->have_ahead)
		read_ahead(x->r, f, fp);
	while (f->have_ahead && f->ahead.dump_us <= horizon) {
		add_record(x, f, &f->ahead);
		read_ahead(x->r, f, fp);
		n++;
	}
	f->off = ftell(fp);
	fclose(fp);
	return n;
}

/* The earliest dump time read ahead; -1 when every file is done. */
static double earliest(const struct file_state *f, size_t n)
{
	double t = -1;
	for (size_t i = 0; i < n; i++)
		if (f[i].have_ahead && (t < 0 || f[i].ahead.dump_us < t))
			t = f[i].ahead.dump_us;
	return t;
}

int insp_read_files(char *const *paths, size_t n, insp_instance_fn fn, void *ctx,
		    struct insp_read *out)
{
	memset(out, 0, sizeof *out);
	out->st.files = n;
	struct file_state *f = xcalloc(n + 1, sizeof *f);
	struct matcher x = { out, fn, ctx };
	for (size_t i = 0; i < n; i++) {
		f[i] = (struct file_state){ .path = paths[i], .line_start = 1 };
		read_until(&x, &f[i], -1); /* its first record, read ahead */
	}
	double window = 1e6, t;
	while ((t = earliest(f, n)) >= 0) {
		size_t most = 0;
		for (size_t i = 0; i < n; i++) {
			size_t k = f[i].done ? 0 : read_until(&x, &f[i], t + window);
			most = k > most ? k : most;
		}
		sweep(out, 0);
		if (most > 2048 && window > 1)
			window /= 2;
		else if (most < 256 && window < 1e12)
			window *= 2;
	}
	sweep(out, 1);
	free(f);
	return 0;
}

void insp_read_free(struct insp_read *r)
{
	for (size_t k = 0; k < r->ncomms; k++) {
		for (size_t i = 0; i < r->comms[k].npend; i++)
			free(r->comms[k].pend[i].r);
		free(r->comms[k].pend);
		free(r->comms[k].member);
		free(r->comms[k].frontier);
	}
	free(r->comms);
	free(r->procs);
	strindex_clear(&r->comm_index);
	memset(r, 0, sizeof *r);
}

int insp_list_dir(const char *dir, struct argv *out)
{
	struct argv names;
	memset(out, 0, sizeof *out);
	if (fsio_list(dir, &names) < 0)
		return -1;
	for (size_t i = 0; i < names.n; i++) {
		struct strbuf p = STRBUF_INIT;
		strbuf_addf(&p, "%s/%s", dir, names.v[i]);
		if (fsio_exists(p.buf) && !fsio_is_dir(p.buf))
			argv_push(out, p.buf);
		strbuf_free(&p);
	}
	argv_free(&names);
	return 0;
}
