/* backend_slurm: runs a campaign on SLURM through libslurm only (no sbatch,
 * squeue or scancel): one slurm_submit_batch_job per scenario, the state of
 * all of a run's jobs in one controller RPC per refresh, slurm_kill_job to
 * cancel, and an aggregation job that depends on every scenario's job.
 * libslurm's fatal() would end the process when no configuration exists,
 * so the configuration is checked before slurm_init.
 * SPDX-License-Identifier: MIT */
#include "backend.h"
#include "orchestrator/backend/prose.h"
#include "util/run_layout.h"
#include "backend_slurm.h"
#include "decision.h"
#include "orchestrator/campaign/jobspec.h"

#include "util/err.h"
#include "util/fault.h"
#include "orchestrator/store/snapshot.h"
#include "orchestrator/store/store.h"
#include "orchestrator/variant.h"
#include "util/jsonio.h"
#include "util/fsio.h"
#include "statusfile.h"
#include "requeue.h"
#include "slurm_health.h"
#include "orchestrator/campaign/placeholder.h"
#include "util/quote.h"
#include "util/slurmconf.h"
#include "orchestrator/campaign/render.h"
#include "util/strbuf.h"

#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <poll.h>
#include <signal.h>
#include <slurm/slurm.h>
#include <slurm/slurm_errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

/* Exported by libslurm.so but not declared in its 22.05 headers. */
extern char *slurm_job_reason_string(enum job_state_reason inx);

extern char **environ;

/* ---- configuration and controller ------------------------------------- */


int slurm_controller_answers(const char *conf, int timeout_ms)
{
	char host[256], port_s[16];
	int port, ok = 0;
	slurm_controller_addr(conf, host, sizeof host, &port);
	snprintf(port_s, sizeof port_s, "%d", port);
	struct addrinfo hints = { .ai_socktype = SOCK_STREAM }, *res = NULL;
	if (getaddrinfo(host, port_s, &hints, &res) != 0)
		return 0;
	for (struct addrinfo *a = res; a && !ok; a = a->ai_next) {
		int fd = socket(a->ai_family, a->ai_socktype | SOCK_NONBLOCK | SOCK_CLOEXEC,
				a->ai_protocol);
		if (fd < 0)
			continue;
		if (connect(fd, a->ai_addr, a->ai_addrlen) == 0) {
			ok = 1;
		} else if (errno == EINPROGRESS) {
			struct pollfd p = { .fd = fd, .events = POLLOUT };
			int e = 0;
			socklen_t el = sizeof e;
			if (poll(&p, 1, timeout_ms) == 1 &&
			    getsockopt(fd, SOL_SOCKET, SO_ERROR, &e, &el) == 0 && e == 0)
				ok = 1;
		}
		close(fd);
	}
	freeaddrinfo(res);
	return ok;
}

static int unreachable_error(const char *what, const char *why)
{
	char host[256];
	int port;
	const char *conf = slurm_conf_path();
	slurm_controller_addr(conf, host, sizeof host, &port);
	return err_set(ERR_BACKEND,
		       PROSE_SLURMCTLD_UNREACHABLE,
		       what, host, port, why, conf ? conf : "slurm.conf");
}

static int controller_error(const char *what)
{
	int e = slurm_get_errno();
	if (e == SLURM_COMMUNICATIONS_CONNECTION_ERROR ||
	    e == SLURMCTLD_COMMUNICATIONS_CONNECTION_ERROR ||
	    e == SLURM_PROTOCOL_SOCKET_IMPL_TIMEOUT || e == SLURMCTLD_COMMUNICATIONS_SEND_ERROR ||
	    e == SLURMCTLD_COMMUNICATIONS_RECEIVE_ERROR)
		return unreachable_error(what, slurm_strerror(e));
	return err_set(ERR_BACKEND, "%s: %s (slurm error %d)", what, slurm_strerror(e), e);
}

/* ---- the true end state ----------------------------------------------- */

static enum job_state from_status_file(const struct status_file *js, int *exit_code, char *reason,
				       size_t n)
{
	*exit_code = js->exit_code;
	if (js->exit_code == 0) {
		snprintf(reason, n,
			 "decided from job.status (the controller no longer knows the job)");
		return JS_COMPLETED;
	}
	if (js->exit_code > 128)
		snprintf(
			reason, n,
			"job ended by signal %d (SIGTERM: cancelled or time limit); decided from job.status, the controller had already forgotten the job",
			js->exit_code - 128);
	else
		snprintf(
			reason, n,
			"exit status %d (decided from job.status; the controller no longer knows the job)",
			js->exit_code);
	return JS_FAILED;
}

static int wait_status_code(uint32_t ws)
{
	if (ws & 0x7f)
		return 128 + (int)(ws & 0x7f);
	return (int)((ws >> 8) & 0xff);
}

enum job_state slurm_decide(const struct slurm_seen *seen, const struct status_file *js,
			    int *exit_code, char *reason, size_t n)
{
	*exit_code = -1;
	reason[0] = '\0';
	if (!seen->found) {
		if (js)
			return from_status_file(js, exit_code, reason, n);
		snprintf(
			reason, n,
			"the controller no longer knows the job (older than MinJobAge) and it left no job.status: it was killed before its exit trap ran, or its node failed");
		return JS_LOST;
	}
	uint32_t base = seen->job_state & JOB_STATE_BASE;
	if (seen->job_state & JOB_REQUEUE) {
		snprintf(reason, n, "requeued by the controller");
		return JS_REQUEUED;
	}
	switch (base) {
	case JOB_PENDING:
		snprintf(reason, n, "%s", seen->reason ? seen->reason : "");
		return JS_PENDING;
	case JOB_RUNNING:
	case JOB_SUSPENDED:
		return JS_RUNNING;
	case JOB_PREEMPTED:
		snprintf(reason, n, "preempted");
		return JS_PREEMPTED;
	default:
		break;
	}
	/* Final on the controller; while it completes, wait for job.status. */
	if ((seen->job_state & JOB_COMPLETING) && !js)
		return JS_RUNNING;
	*exit_code = js ? js->exit_code : wait_status_code(seen->exit_code);
	switch (base) {
	case JOB_COMPLETE:
		return JS_COMPLETED;
	case JOB_CANCELLED:
	case JOB_TIMEOUT:
	case JOB_DEADLINE:
		/* it completed before the cancel or the limit reached it; a script that
		 * ended at its time limit with 0 (its step stopped by the limit, the
		 * script then leaving normally) did not */
		if (base == JOB_TIMEOUT && js && js->exit_code == 0 && seen->limit_at > 0 &&
		    js->end >= seen->limit_at - 1)
			*exit_code = wait_status_code(seen->exit_code);
		else if (js && js->exit_code == 0) {
			snprintf(reason, n, "completed before the %s reached it",
				 base == JOB_CANCELLED ? "cancel" : "time limit");
			return JS_COMPLETED;
		}
		snprintf(reason, n, base == JOB_CANCELLED ? "cancelled" : "time limit reached");
		return base == JOB_CANCELLED ? JS_CANCELLED : JS_TIMEOUT;
	case JOB_NODE_FAIL:
	case JOB_BOOT_FAIL:
		snprintf(reason, n, "node failure");
		return JS_NODE_FAIL;
	case JOB_OOM:
		snprintf(reason, n, "out of memory (the kernel's OOM killer ended a task)");
		return JS_OUT_OF_MEMORY;
	default:
		snprintf(reason, n, "exit status %d", *exit_code);
		return JS_FAILED;
	}
}

/* ---- submission ------------------------------------------------------- */

/* The submitter's environment (as sbatch's --export=ALL), without the
 * SLURM_* variables of any allocation it runs in (and without a test's
 * CAMPAIGN_FAULT, which concerns the submitting process only). */
static char **job_environment(const char *attempt, uint32_t *n)
{
	size_t cnt = 0;
	for (char **e = environ; *e; e++)
		cnt++;
	char **env = xcalloc(cnt + 2, sizeof *env);
	*n = 0;
	for (char **e = environ; *e; e++)
		if ((strncmp(*e, "SLURM_", 6) || !strncmp(*e, "SLURM_CONF=", 11)) &&
		    strncmp(*e, "CAMPAIGN_FAULT=", 15) && strncmp(*e, "CAMPAIGN_ATTEMPT=", 17))
			env[(*n)++] = *e;
	/* the store's attempt the job starts as: a requeued run of it is this + its restart
	 * count, which its script archives under (and libslurm needs one entry at least) */
	env[(*n)++] = (char *)attempt;
	return env;
}


static int parse_mem_mb(const char *s, uint64_t *mb)
{
	char *end;
	unsigned long long v = strtoull(s, &end, 10);
	if (end == s)
		return -1;
	switch (*end) {
	case '\0': case 'M': case 'm': break;
	case 'K': case 'k': v = (v + 1023) / 1024; break;
	case 'G': case 'g': v *= 1024; break;
	case 'T': case 't': v *= 1024 * 1024; break;
	default: return -1;
	}
	*mb = v;
	return 0;
}

/* Maps the campaign's slurm.extra options (jobspec.h's table) onto the job description. */
static int apply_extra(job_desc_msg_t *d, const struct argv *extra, struct strbuf *tres)
{
	for (size_t i = 0; extra && i < extra->n; i++) {
		const char *o = extra->v[i], *v = "";
		uint64_t mb;
		int kind = job_spec_extra(o, &v), ok = 1;
		switch (kind) {
		case JX_EXCLUSIVE: d->shared = JOB_SHARED_NONE; break;
		case JX_MEM:
			ok = parse_mem_mb(v, &mb) == 0;
			d->pn_min_memory = ok ? mb : d->pn_min_memory;
			break;
		case JX_MEM_PER_CPU:
			ok = parse_mem_mb(v, &mb) == 0;
			d->pn_min_memory = ok ? mb | MEM_PER_CPU : d->pn_min_memory;
			break;
		case JX_CPUS_PER_TASK:
			ok = atoi(v) > 0;
			d->cpus_per_task = ok ? (uint16_t) atoi(v) : d->cpus_per_task;
			break;
		case JX_GRES: strbuf_addf(tres, "%sgres:%s", tres->len ? "," : "", v); break;
		case JX_RESERVATION: d->reservation = (char *)v; break;
		case JX_NODELIST: d->req_nodes = (char *)v; break;
		case JX_EXCLUDE: d->exc_nodes = (char *)v; break;
		case JX_REQUEUE: d->requeue = 1; break;
		case JX_NO_REQUEUE: d->requeue = 0; break;
		default: ok = 0; break;
		}
		if (!ok) {
			char list[256];
			return err_set(
				ERR_USAGE,
				"slurm.extra: %s is not supported by the libslurm backend (supported: %s)",
				o, job_spec_extras(list, sizeof list));
		}
	}
	return 0;
}

struct submit_req {
	const char *name, *comment, *script, *work_dir, *std_out, *dependency;
	const char *attempt_env; /* "CAMPAIGN_ATTEMPT=<n>" */
	const struct job_spec *spec; /* what the rendered #SBATCH lines say too */
};

static int submit_one(const struct submit_req *q, uint32_t *job_id)
{
	const struct job_spec *js = q->spec;
	job_desc_msg_t d;
	submit_response_msg_t *resp = NULL;
	struct strbuf tres = STRBUF_INIT;
	slurm_init_job_desc_msg(&d);
	d.name = (char *)q->name;
	d.comment = (char *)q->comment;
	d.script = (char *)q->script;
	d.work_dir = (char *)q->work_dir;
	d.std_out = (char *)q->std_out;
	d.dependency = (char *)q->dependency;
	d.min_nodes = d.max_nodes = (uint32_t)js->nodes;
	d.ntasks_per_node = (uint16_t)js->tasks_per_node;
	d.num_tasks = (uint32_t)(js->nodes * js->tasks_per_node);
	d.time_limit = js->time_limit_s > 0 ? (uint32_t)((js->time_limit_s + 59) / 60) : INFINITE;
	d.partition = (char *)js->partition;
	d.account = (char *)js->account;
	d.qos = (char *)js->qos;
	d.features = (char *)js->constraint;
	d.user_id = getuid();
	d.group_id = getgid();
	/* appended to, not truncated, when SLURM requeues the job: its script splits it */
	d.open_mode = OPEN_MODE_APPEND;
	d.environment = job_environment(q->attempt_env, &d.env_size);
	if (js->gpus_per_node > 0)
		strbuf_addf(&tres, "gres:gpu:%d", js->gpus_per_node);
	if (js->exclusive)
		d.shared = JOB_SHARED_NONE;
	int rc = apply_extra(&d, js->extra, &tres);
	if (js->cpus_per_task > 0)
		d.cpus_per_task = (uint16_t)js->cpus_per_task;
	if (tres.len)
		d.tres_per_node = tres.buf;
	if (rc == 0 && slurm_submit_batch_job(&d, &resp) != SLURM_SUCCESS)
		rc = controller_error("submit");
	if (rc == 0 && resp->error_code != SLURM_SUCCESS) {
		/* Accepted but unrunnable (e.g. more nodes than exist): it would
		 * pend forever, so take it back and say why. */
		slurm_kill_job(resp->job_id, SIGKILL, 0);
		rc = err_set(ERR_BACKEND, "the controller accepted job %u but it can never run: %s",
			     resp->job_id, slurm_strerror((int)resp->error_code));
	}
	if (rc == 0)
		*job_id = resp->job_id;
	slurm_free_submit_response_response_msg(resp);
	free(d.environment);
	strbuf_free(&tres);
	return rc;
}

/* What the controller's copy of a job carries to find it again after a
 * crash: its comment, "campaign:<campaign>/<run>/" then what the job is
 * (<scenario>/attempt-<n>, or aggregate/of-<attempts>), which callers add. */
static void job_comment(const struct run *r, struct strbuf *sb)
{
	strbuf_addf(sb, "campaign:%s/%s/", r->c.name, r->id);
}

static int controller_jobs(struct run *r, job_info_msg_t **msg)
{
	r->rpcs++;
	if (slurm_load_job_user(msg, getuid(), SHOW_ALL) != SLURM_SUCCESS) {
		*msg = NULL;
		return controller_error("job status");
	}
	return 0;
}

/* The lowest id among the controller's jobs with this comment (0: none);
 * a later duplicate that is still alive is cancelled, so that one job is
 * left whatever happened before. */
static uint32_t adopt_by_comment(struct run *r, job_info_msg_t *msg, const char *comment)
{
	uint32_t best = 0;
	for (uint32_t i = 0; msg && i < msg->record_count; i++) {
		const slurm_job_info_t *j = &msg->job_array[i];
		if (j->comment && !strcmp(j->comment, comment) && (!best || j->job_id < best))
			best = j->job_id;
	}
	for (uint32_t i = 0; msg && i < msg->record_count; i++) {
		const slurm_job_info_t *j = &msg->job_array[i];
		if (j->comment && !strcmp(j->comment, comment) && j->job_id != best &&
		    (j->job_state & JOB_STATE_BASE) <= JOB_SUSPENDED) {
			r->rpcs++;
			slurm_kill_job(j->job_id, SIGKILL, 0);
			fprintf(stderr, "campaign: cancelled job %u, a duplicate of job %u (%s)\n",
				j->job_id, best, comment);
		}
	}
	return best;
}

static int submit_scenario(struct run *r, const struct job_row *j, job_info_msg_t *known)
{
	const struct scenario *s = campaign_find(&r->c, j->scenario);
	if (!s)
		return err_set(ERR_IO, "run %s: scenario %s is not in its campaign", r->id,
			       j->scenario);
	char *dir = run_job_dir(r, s->name), *script = NULL;
	struct strbuf p = STRBUF_INIT, name = STRBUF_INIT, comment = STRBUF_INIT, out = STRBUF_INIT;
	strbuf_addf(&p, "%s/" JOB_SCRIPT, dir);
	strbuf_addf(&name, "campaign-%s-%s", r->id, s->name);
	job_comment(r, &comment);
	strbuf_addf(&comment, "%s/attempt-%d", s->name, j->attempt);
	strbuf_addf(&out, "%s/slurm-%%j.out", dir);
	uint32_t id = j->submit_tries > 0 ? adopt_by_comment(r, known, comment.buf) : 0;
	const char *how = "submitted";
	int rc = 0;
	if (id) {
		how = "adopted: the controller already had the job of an interrupted submit";
		fprintf(stderr,
			"campaign: %s: job %u was submitted before the interruption: adopted, not submitted again\n",
			s->name, id);
	} else if ((rc = fsio_read(p.buf, 1 << 20, &script, NULL)) == 0 &&
		   (rc = store_job_submitting(r->st, j->scenario, j->attempt)) == 0) {
		struct job_spec js;
		job_spec_scenario(&r->c, s, &js); /* as render.c wrote it into the script */
		char env[48];
		snprintf(env, sizeof env, "CAMPAIGN_ATTEMPT=%d", j->attempt);
		struct submit_req q = {
			name.buf, comment.buf, script, dir, out.buf, NULL, env, &js
		};
		fault_point("before-submit", s->name);
		rc = submit_one(&q, &id);
		if (rc == 0)
			fault_point("after-submit", s->name);
	}
	if (rc == 0) {
		char ids[32];
		snprintf(ids, sizeof ids, "%u", id);
		rc = store_job_submitted(r->st, j->scenario, j->attempt, ids, how);
		fault_point("after-record", s->name);
	}
	free(script);
	free(dir);
	strbuf_free(&p);
	strbuf_free(&name);
	strbuf_free(&comment);
	strbuf_free(&out);
	return rc;
}

/* Asks the controller once for what an interrupted submit may have left. */
static int known_jobs(struct run *r, const struct snapshot *js, job_info_msg_t **msg)
{
	*msg = NULL;
	for (size_t i = 0; i < js->n; i++)
		if (js->latest[i]->state == JS_PLANNED && js->latest[i]->submit_tries > 0)
			return controller_jobs(r, msg);
	return 0;
}

static int slurm_submit(struct run *r)
{
	int rc = slurm_ready();
	if (rc < 0)
		return rc;
	struct snapshot js = SNAPSHOT_INIT;
	job_info_msg_t *known;
	if ((rc = snapshot_load(r->st, &js)) < 0)
		return rc;
	if ((rc = known_jobs(r, &js, &known)) < 0) {
		snapshot_free(&js);
		return rc;
	}
	int refused = 0;
	for (size_t i = 0; i < js.n && rc == 0; i++) {
		const struct job_row *j = js.latest[i];
		if (j->state != JS_PLANNED)
			continue;
		int one = submit_scenario(r, j, known);
		if (one == ERR_BACKEND && strstr(err_last(), "cannot reach slurmctld")) {
			rc = one; /* the rest stay PLANNED: nothing is lost */
		} else if (one < 0) {
			refused++;
			char *why = xstrdup(err_last());
			fprintf(stderr, "campaign: %s: %s\n", j->scenario, why);
			struct job_decision d;
			decision_set(&d, JS_FAILED, why, "submission refused");
			rc = decision_apply(r->st, j, &d);
			free(why);
		}
	}
	slurm_free_job_info_msg(known);
	snapshot_free(&js);
	if (rc == 0 && refused)
		rc = err_set(ERR_BACKEND, "%d scenario%s could not be submitted (see above)",
			     refused, refused == 1 ? "" : "s");
	return rc;
}

/* afterany:<every unfinished job>; *key names this set of attempts (the
 * number of attempts so far: attempts count from 1 in each scenario), so a
 * resume finds the same aggregation job and a resubmit asks for a new one. */
static int aggregate_dependency(struct run *r, struct strbuf *dep, struct strbuf *key)
{
	struct snapshot js = SNAPSHOT_INIT;
	long attempts = 0;
	int rc = snapshot_load(r->st, &js);
	if (rc < 0)
		return rc;
	for (size_t i = 0; i < js.n; i++) {
		const struct job_row *j = js.latest[i];
		attempts += j->attempt;
		if (j->job_id && !job_state_is_final(j->state))
			strbuf_addf(dep, "%s%s", dep->len ? ":" : "afterany:", j->job_id);
	}
	strbuf_addf(key, "aggregate/of-%ld", attempts);
	snapshot_free(&js);
	return 0;
}

static int submit_aggregate(struct run *r, const char *key, const char *dep, int adopt_first)
{
	struct strbuf name = STRBUF_INIT, comment = STRBUF_INIT, out = STRBUF_INIT,
		      script = STRBUF_INIT;
	strbuf_addf(&name, "campaign-%s-aggregate", r->id);
	job_comment(r, &comment);
	strbuf_adds(&comment, key);
	strbuf_addf(&out, "%s/aggregate-%%j.out", r->dir);
	struct render_aggregate_ctx ctx = { .run_id = r->id, .run_dir = r->dir,
					    .bin_dir = r->bin_dir, .job_name = name.buf,
					    .comment = comment.buf, .output = out.buf,
					    .dependency = dep };
	uint32_t id = 0;
	int rc = 0;
	if (adopt_first) {
		job_info_msg_t *known;
		if ((rc = controller_jobs(r, &known)) == 0)
			id = adopt_by_comment(r, known, comment.buf);
		slurm_free_job_info_msg(known);
		if (id)
			fprintf(stderr,
				"campaign: the aggregation job %u was submitted before the interruption: adopted, not submitted again\n",
				id);
	} else {
		rc = store_run_set_aggregate_intent(r->st, key);
	}
	if (rc == 0 && !id &&
	    (rc = render_aggregate(&r->c, &ctx, &script)) == 0) {
		struct job_spec js;
		job_spec_aggregate(&r->c, &js);
		struct submit_req q = { name.buf, comment.buf, script.buf,           r->dir,
					out.buf,  dep,         "CAMPAIGN_ATTEMPT=1", &js };
		fault_point("before-aggregate-submit", NULL);
		rc = submit_one(&q, &id);
		if (rc == 0)
			fault_point("after-aggregate-submit", NULL);
		struct strbuf sp = STRBUF_INIT;
		strbuf_addf(&sp, "%s/" RUN_AGGREGATE_SCRIPT, r->dir);
		/* a copy: the job is submitted */
		if (rc == 0 && fsio_write_atomic(sp.buf, script.buf, script.len, 0755) < 0)
			fprintf(stderr,
				"campaign: warning: the aggregation job's script was not kept: %s\n",
				err_last());
		strbuf_free(&sp);
	}
	if (rc == 0) {
		char ids[32];
		snprintf(ids, sizeof ids, "%u", id);
		rc = store_run_set_aggregate_job(r->st, ids);
	}
	strbuf_free(&name);
	strbuf_free(&comment);
	strbuf_free(&out);
	strbuf_free(&script);
	return rc;
}

static slurm_job_info_t *find_job(job_info_msg_t *msg, const char *id);

/* The aggregation job of the control run a variant is set against (campaign try --control),
 * while the controller still has it pending or running: 0 when there is none, or the control
 * is analysed already (its summary.json there). */
static uint32_t control_aggregation(struct run *r)
{
	json_t *v = variant_read(r->dir);
	const char *dir = jsonio_str(json_object_get(v, "control"), "dir");
	struct strbuf p = STRBUF_INIT;
	struct store *st = NULL;
	struct run_row row = { 0 };
	uint32_t id = 0;
	strbuf_addf(&p, "%s/" RUN_SUMMARY, dir);
	int open = *dir && !fsio_exists(p.buf);
	strbuf_reset(&p);
	strbuf_addf(&p, "%s/" RUN_STATE_DB, dir);
	if (open && store_open(p.buf, 0, STORE_JOURNAL_AUTO, &st) == 0 &&
	    store_run_get(st, &row) == 0 && row.aggregate_job_id) {
		job_info_msg_t *known = NULL;
		slurm_job_info_t *j = controller_jobs(r, &known) == 0
					      ? find_job(known, row.aggregate_job_id)
					      : NULL;
		if (j && (j->job_state & JOB_STATE_BASE) <= JOB_SUSPENDED) /* not ended */
			id = j->job_id;
		slurm_free_job_info_msg(known);
	}
	run_row_free(&row);
	if (st)
		store_close(st);
	strbuf_free(&p);
	json_decref(v);
	return id;
}

/* The aggregation job: afterany on every unfinished job of the run, once
 * per set of attempts (an interrupted submit of it is adopted, not repeated). */
static int slurm_start(struct run *r, int wait)
{
	(void)wait; /* submit --wait watches the run itself */
	struct strbuf dep = STRBUF_INIT, key = STRBUF_INIT;
	struct run_row row;
	int rc = aggregate_dependency(r, &dep, &key);
	uint32_t ctl = rc == 0 && dep.len ? control_aggregation(r) : 0;
	if (ctl) /* a variant's checks need its control analysed first */
		strbuf_addf(&dep, ":%u", ctl);
	if (rc == 0 && (rc = store_run_get(r->st, &row)) == 0) {
		int same = row.aggregate_key && !strcmp(row.aggregate_key, key.buf);
		if (dep.len && !(same && row.aggregate_job_id) && (rc = slurm_ready()) == 0)
			rc = submit_aggregate(r, key.buf, dep.buf, same);
		run_row_free(&row);
	}
	strbuf_free(&dep);
	strbuf_free(&key);
	return rc; /* with nothing left to run, status and watch aggregate */
}

/* ---- state ------------------------------------------------------------ */

static slurm_job_info_t *find_job(job_info_msg_t *msg, const char *id)
{
	uint32_t want = (uint32_t)strtoul(id, NULL, 10);
	for (uint32_t i = 0; msg && i < msg->record_count; i++)
		if (msg->job_array[i].job_id == want)
			return &msg->job_array[i];
	return NULL;
}

/* One poll's answers from the controller: every job (one RPC), and the
 * nodes (one more, only when a job runs or was requeued). */
struct poll {
	job_info_msg_t *jobs;
	node_info_msg_t *nodes;
	int nodes_asked;
};

static const node_info_msg_t *poll_nodes(struct run *r, struct poll *p)
{
	if (!p->nodes_asked) {
		p->nodes_asked = 1;
		r->rpcs++;
		if (slurm_load_node(0, &p->nodes, SHOW_ALL) != SLURM_SUCCESS)
			p->nodes = NULL; /* the nodes' health is not shown, nothing else lost */
	}
	return p->nodes;
}

/* How often the controller had restarted j's job when it ran as j: j's
 * attempt less the first attempt of its scenario under the same job id. */
static int restart_of(const struct snapshot *jobs, const struct job_row *j)
{
	int first = j->attempt;
	for (size_t i = 0; i < jobs->n_all; i++) {
		const struct job_row *o = &jobs->all[i];
		if (o->attempt < first && o->job_id && !strcmp(o->scenario, j->scenario) &&
		    !strcmp(o->job_id, j->job_id))
			first = o->attempt;
	}
	return j->attempt - first;
}

/* job.status of job_id's run `restart` (scenario folder, else the attempt's
 * archive); 1 when found. */
static int status_of_run(struct run *r, const struct job_row *j, int restart,
			 struct status_file *js)
{
	char *dir = run_job_dir(r, j->scenario);
	int have = statusfile_read(dir, js) == 0 && statusfile_is_of_run(js, j->job_id, restart);
	free(dir);
	if (!have) {
		dir = run_attempt_dir(r, j->scenario, j->attempt, 0);
		have = statusfile_read(dir, js) == 0 &&
			statusfile_is_of_run(js, j->job_id, restart);
		free(dir);
	}
	return have;
}

/* What slurmstepd wrote in the ended attempt's job log: archived by the
 * next attempt's script, else still in the live log. */
static int log_cause(struct run *r, const struct job_row *j)
{
	int cause = -1;
	for (int latest = 0; latest < 2 && cause < 0; latest++) {
		char *dir = run_attempt_dir(r, j->scenario, j->attempt, latest), *text = NULL;
		struct strbuf p = STRBUF_INIT;
		strbuf_addf(&p, "%s/slurm-%s.out", dir, j->job_id);
		if (fsio_read(p.buf, (size_t)64 << 20, &text, NULL) == 0)
			cause = requeue_cause_from_log(text, j->job_id);
		free(text);
		free(dir);
		strbuf_free(&p);
	}
	return cause;
}

/* Records that j's attempt (the job's run `restart`) was requeued, and its next attempt. */
static int record_requeue(struct run *r, const struct job_row *j, int restart,
			  const slurm_job_info_t *info, struct poll *p)
{
	struct status_file js;
	int have = status_of_run(r, j, restart, &js);
	const char *nodes = j->nodelist && *j->nodelist ? j->nodelist
			    : have && js.nodelist[0]        ? js.nodelist
							    : NULL;
	char failed[256], reason[512];
	slurm_nodes_failed(poll_nodes(r, p), nodes, j->state == JS_RUNNING ? j->reason : NULL,
			   failed, sizeof failed);
	int cause = log_cause(r, j);
	enum job_state st = requeue_decide(cause, info->job_state, failed, reason, sizeof reason);
	struct job_requeue q = { j->scenario, j->attempt, st, reason, nodes,
				 failed[0] && st == JS_NODE_FAIL ? failed : NULL,
				 have ? js.exit_code : -1, have ? js.start : 0, have ? js.end : 0 };
	int added;
	int rc = decision_apply_requeue(r->st, &q, &added);
	if (rc == 0 && added)
		fprintf(stderr, "campaign: %s: attempt %d %s; attempt %d runs as job %s again\n",
			j->scenario, j->attempt, reason, j->attempt + 1, j->job_id);
	return rc;
}

/* Earlier attempts of j's job recorded before slurmstepd wrote their cancel
 * line (status polled in between): told again as their logs now say. 1 when
 * it wrote, 0 when nothing changed, or a negative err code. */
static int refine_requeues(struct run *r, const struct snapshot *jobs, const struct job_row *j)
{
	int wrote = 0;
	for (size_t i = 0; i < jobs->n_all; i++) {
		const struct job_row *e = &jobs->all[i];
		char reason[512];
		int cause;
		if (e->attempt >= j->attempt || !e->job_id || strcmp(e->scenario, j->scenario) ||
		    strcmp(e->job_id, j->job_id) || !requeue_unexplained(e) ||
		    (cause = log_cause(r, e)) < 0)
			continue;
		struct job_decision d;
		decision_set(&d, requeue_decide(cause, 0, NULL, reason, sizeof reason), reason,
			     "cause found in the job log");
		int rc = decision_apply(r->st, e, &d);
		if (rc < 0)
			return rc;
		fprintf(stderr, "campaign: %s: attempt %d: its job log now says: %s\n", e->scenario,
			e->attempt, reason);
		wrote = 1;
	}
	return wrote;
}

/* The job's words for a running attempt: its nodes' trouble, if any. */
static void running_words(struct run *r, const struct job_row *j, const slurm_job_info_t *info,
			  struct poll *p, char *reason, size_t n)
{
	if (info && info->nodes && *info->nodes)
		slurm_nodes_health(poll_nodes(r, p), info->nodes, j->reason, store_now(), reason,
				   n);
}

/* Records what the controller and job.status say of one job (its run
 * `restart`): 1 when it wrote to the store, 0 when nothing changed, or a
 * negative err code. */
static int update_one(struct run *r, const struct job_row *j, int restart, struct poll *p)
{
	slurm_job_info_t *info = find_job(p->jobs, j->job_id);
	struct slurm_seen seen = { 0 };
	if (info) {
		seen.found = 1;
		seen.job_state = info->job_state;
		seen.exit_code = info->exit_code;
		seen.reason =
			info->state_reason ? slurm_job_reason_string(info->state_reason) : NULL;
		if (info->start_time > 0 && info->time_limit != INFINITE &&
		    info->time_limit != NO_VAL)
			seen.limit_at = (double)info->start_time + 60.0 * info->time_limit;
	}
	struct status_file js;
	int have = status_of_run(r, j, restart, &js);
	struct job_decision d = { .write = 1 };
	d.state = slurm_decide(&seen, have ? &js : NULL, &d.exit_code, d.reason, sizeof d.reason);
	if (d.state == JS_RUNNING)
		running_words(r, j, info, p, d.reason, sizeof d.reason);
	if (d.state == JS_FAILED && d.state != j->state) {
		char *dir = run_job_dir(r, j->scenario);
		decision_explain_failure(&d, dir);
		free(dir);
	}
	int same = j->reason && !strcmp(d.reason, j->reason);
	int clear = d.state == JS_RUNNING && !d.reason[0] && j->reason && *j->reason;
	if (d.state == j->state && (!d.reason[0] || same) && !clear)
		return 0; /* nothing to write */
	d.nodelist = info && info->nodes && *info->nodes ? info->nodes
		     : have && js.nodelist[0]           ? js.nodelist
							: NULL;
	d.detail = info ? "seen on the controller" : "controller no longer knows the job";
	if (have && job_state_is_final(d.state)) {
		d.times = 1;
		d.start = js.start;
		d.end = js.end;
	} else if (info && d.state == JS_RUNNING && info->start_time > 0) {
		d.times = 1;
		d.start = (double)info->start_time;
	}
	int rc = decision_apply(r->st, j, &d);
	return rc < 0 ? rc : 1; /* written */
}

/* One open job: its requeues first (each a new attempt), then its state. */
static int refresh_one(struct run *r, const struct snapshot *jobs, const struct job_row *j,
		       struct poll *p)
{
	const slurm_job_info_t *info = find_job(p->jobs, j->job_id);
	int restart = restart_of(jobs, j), rc = 0;
	int wrote = refine_requeues(r, jobs, j);
	if (wrote < 0)
		return wrote;
	struct job_row now = *j;
	while (rc == 0 && info && restart < (int)info->restart_cnt) {
		if ((rc = record_requeue(r, &now, restart, info, p)) < 0)
			break;
		wrote = 1;
		restart++;
		now.attempt++;
		now.state = JS_PENDING; /* as store_job_requeued recorded it */
		now.reason = now.nodelist = NULL;
		now.started_at = 0;
	}
	if (rc == 0)
		rc = update_one(r, &now, restart, p);
	return rc < 0 ? rc : rc > 0 || wrote;
}

/* The controller's jobs, once per poll; while an outage is on record, a
 * connection probe first, so that status answers at once instead of after
 * libslurm's retries. */
static int poll_controller(struct run *r, struct poll *p)
{
	const char *conf = slurm_conf_path();
	int rc = slurm_ready();
	if (rc == 0 && slurm_outage_known(r) && !slurm_controller_answers(conf, 2000))
		rc = unreachable_error("job status", "it refuses connections");
	else if (rc == 0)
		rc = controller_jobs(r, &p->jobs);
	if (rc == 0 || strstr(err_last(), "cannot reach slurmctld"))
		slurm_outage_note(r, conf, rc < 0);
	return rc;
}

static int slurm_refresh(struct run *r, struct snapshot *jobs)
{
	size_t open = 0;
	int rc = 0;
	for (size_t i = 0; i < jobs->n; i++)
		open += jobs->latest[i]->job_id && !job_state_is_final(jobs->latest[i]->state);
	if (open == 0)
		return 0;
	struct poll p = { 0 };
	rc = poll_controller(r, &p);
	for (size_t i = 0; rc == 0 && i < jobs->n; i++) {
		struct job_row *j = jobs->latest[i];
		if (j->job_id && !job_state_is_final(j->state) &&
		    (rc = refresh_one(r, jobs, j, &p)) > 0) {
			jobs->dirty = 1;
			rc = 0;
		}
	}
	slurm_free_job_info_msg(p.jobs);
	slurm_free_node_info_msg(p.nodes);
	return rc;
}

static int slurm_cancel(struct run *r, const char *scenario)
{
	struct snapshot js = SNAPSHOT_INIT;
	int rc = slurm_ready();
	if (rc < 0 || (rc = snapshot_load(r->st, &js)) < 0)
		return rc;
	for (size_t i = 0; rc == 0 && i < js.n; i++) {
		const struct job_row *j = js.latest[i];
		if ((scenario && strcmp(scenario, j->scenario)) || job_state_is_final(j->state))
			continue;
		if ((rc = store_job_request_cancel(r->st, j->scenario, j->attempt)) < 0)
			break;
		if (!j->job_id) { /* never reached the controller */
			struct job_decision d;
			decision_set(&d, JS_CANCELLED, "cancelled before submission", "cancelled");
			rc = decision_apply(r->st, j, &d);
			continue;
		}
		r->rpcs++;
		if (slurm_kill_job((uint32_t) strtoul(j->job_id, NULL, 10), SIGKILL, 0) !=
		    SLURM_SUCCESS) {
			int e = slurm_get_errno();
			if (e != ESLURM_ALREADY_DONE && e != ESLURM_INVALID_JOB_ID)
				rc = controller_error("cancel");
		}
	}
	snapshot_free(&js);
	return rc;
}

const struct backend_ops backend_slurm = {
	.name = "slurm",
	.submit = slurm_submit,
	.start = slurm_start,
	.refresh = slurm_refresh,
	.cancel = slurm_cancel,
};
