/* SPDX-License-Identifier: MIT */
#include "slurm_health.h"

#include "backend_slurm.h"
#include "util/clock.h"
#include "util/slurmconf.h"
#include "util/err.h"
#include "util/fsio.h"
#include "util/strbuf.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define CONTROLLER_DOWN ".controller-down"

/* What is wrong with a node in words ("" when nothing), and whether it
 * ends the jobs on it (down, failing, not responding). */
static const char *node_trouble(const node_info_t *nd, int *fatal)
{
	uint32_t s = nd->node_state;
	*fatal = 1;
	if (s & NODE_STATE_NO_RESPOND)
		return "not responding";
	if ((s & NODE_STATE_BASE) == NODE_STATE_DOWN)
		return "down";
	if (s & NODE_STATE_FAIL)
		return "failing";
	*fatal = 0;
	return s & NODE_STATE_DRAIN ? "draining" : "";
}

/* The "HH:MM:SS" that prev gives for "<what> since ", into hms; 0 if none. */
static int since_in(const char *prev, const char *what, char *hms, size_t n)
{
	const char *p = prev ? strstr(prev, what) : NULL;
	size_t w = strlen(what);
	if (!p || strncmp(p + w, " since ", 7) || strlen(p + w + 7) < 8)
		return 0;
	snprintf(hms, n, "%.8s", p + w + 7);
	return 1;
}

static void one_node(const node_info_t *nd, const char *prev, double now, struct strbuf *sb)
{
	int fatal;
	const char *t = node_trouble(nd, &fatal);
	char what[320], hms[16];
	if (!*t)
		return;
	snprintf(what, sizeof what, "%s %s", nd->name, t);
	if (!since_in(prev, what, hms, sizeof hms))
		clock_hms_at(nd->reason_time > 0 && strcmp(t, "not responding")
				     ? (double)nd->reason_time : now, hms, sizeof hms);
	strbuf_addf(sb, "%s%s since %s", sb->len ? "; " : "", what, hms);
	if (nd->reason && *nd->reason && strcmp(t, "not responding"))
		strbuf_addf(sb, " (%s)", nd->reason);
}

/* Each of nodes that nodelist names, with ctx; the nodes in the controller's order. */
static void each_node_of(const node_info_msg_t *nodes, const char *nodelist,
			 void (*fn)(const node_info_t *nd, void *ctx), void *ctx)
{
	hostlist_t hl = nodelist && *nodelist ? slurm_hostlist_create(nodelist) : NULL;
	for (uint32_t i = 0; hl && nodes && i < nodes->record_count; i++) {
		const node_info_t *nd = &nodes->node_array[i];
		if (nd->name && slurm_hostlist_find(hl, nd->name) >= 0)
			fn(nd, ctx);
	}
	if (hl)
		slurm_hostlist_destroy(hl);
}

struct health_ctx {
	const char *prev;
	double now;
	struct strbuf sb;
};

static void health_of(const node_info_t *nd, void *ctx)
{
	struct health_ctx *h = ctx;
	one_node(nd, h->prev, h->now, &h->sb);
}

void slurm_nodes_health(const node_info_msg_t *nodes, const char *nodelist, const char *prev,
			double now, char *out, size_t n)
{
	struct health_ctx h = { prev, now, STRBUF_INIT };
	each_node_of(nodes, nodelist, health_of, &h);
	snprintf(out, n, "%s", h.sb.len ? h.sb.buf : "");
	strbuf_free(&h.sb);
}

/* The first word of each "; "-separated item of prev: the nodes named. */
static void named_in(const char *prev, struct strbuf *sb)
{
	for (const char *p = prev; p && *p;) {
		size_t w = strcspn(p, " ;");
		strbuf_addf(sb, "%s%.*s", sb->len ? "," : "", (int)w, p);
		const char *next = strstr(p, "; ");
		p = next ? next + 2 : NULL;
	}
}

/* A node that failed (down, not responding...) into the list in ctx. */
static void failed_of(const node_info_t *nd, void *ctx)
{
	struct strbuf *sb = ctx;
	int fatal;
	if (*node_trouble(nd, &fatal) && fatal)
		strbuf_addf(sb, "%s%s", sb->len ? "," : "", nd->name);
}

void slurm_nodes_failed(const node_info_msg_t *nodes, const char *nodelist, const char *prev,
			char *out, size_t n)
{
	struct strbuf sb = STRBUF_INIT;
	each_node_of(nodes, nodelist, failed_of, &sb);
	if (!sb.len)
		named_in(prev, &sb);
	snprintf(out, n, "%s", sb.len ? sb.buf : "");
	strbuf_free(&sb);
}

void slurm_outage_note(struct run *r, const char *conf, int down)
{
	struct strbuf p = STRBUF_INIT;
	strbuf_addf(&p, "%s/" CONTROLLER_DOWN, r->dir);
	char host[256], *text = NULL;
	int port;
	if (!down) {
		if (r->ctl_down_since > 0 || access(p.buf, F_OK) == 0)
			unlink(p.buf);
		r->ctl_down_since = 0;
		strbuf_free(&p);
		return;
	}
	double since = 0;
	char *why = xstrdup(err_last()); /* the caller reports it: kept whatever happens here */
	if (access(p.buf, F_OK) == 0 && fsio_read(p.buf, 64, &text, NULL) == 0)
		since = atof(text);
	if (since <= 0) {
		char now[64];
		since = store_now();
		snprintf(now, sizeof now, "%.3f\n", since);
		fsio_write_atomic(p.buf, now, strlen(now), 0644); /* read-only results: not kept */
	}
	free(text);
	slurm_controller_addr(conf, host, sizeof host, &port);
	snprintf(r->ctl_addr, sizeof r->ctl_addr, "%s:%d", host, port);
	r->ctl_down_since = since;
	err_set(ERR_BACKEND, "%s", why);
	free(why);
	strbuf_free(&p);
}

int slurm_outage_known(const struct run *r)
{
	struct strbuf p = STRBUF_INIT;
	strbuf_addf(&p, "%s/" CONTROLLER_DOWN, r->dir);
	int known = access(p.buf, F_OK) == 0;
	strbuf_free(&p);
	return known;
}
