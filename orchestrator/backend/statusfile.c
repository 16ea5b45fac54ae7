/* SPDX-License-Identifier: MIT */
#include "statusfile.h"
#include "util/run_layout.h"

#include "util/err.h"
#include "util/fsio.h"
#include "util/strbuf.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int statusfile_read(const char *job_dir, struct status_file *out)
{
	struct strbuf p = STRBUF_INIT;
	char *text;
	memset(out, 0, sizeof *out);
	strbuf_addf(&p, "%s/" JOB_STATUS, job_dir);
	int rc = fsio_read(p.buf, 65536, &text, NULL);
	if (rc < 0) {
		strbuf_free(&p);
		return rc;
	}
	json_error_t jerr;
	json_t *j = json_loads(text, 0, &jerr);
	free(text);
	json_t *ec = j ? json_object_get(j, "exit_code") : NULL;
	if (!json_is_integer(ec)) {
		rc = err_set(ERR_IO, "%s: not a valid job.status file", p.buf);
	} else {
		out->exit_code = (int)json_integer_value(ec);
		out->start = json_number_value(json_object_get(j, "start"));
		out->end = json_number_value(json_object_get(j, "end"));
		const char *s = json_string_value(json_object_get(j, "nodelist"));
		snprintf(out->nodelist, sizeof out->nodelist, "%s", s ? s : "");
		s = json_string_value(json_object_get(j, "host"));
		snprintf(out->host, sizeof out->host, "%s", s ? s : "");
		s = json_string_value(json_object_get(j, "job_id"));
		snprintf(out->job_id, sizeof out->job_id, "%s", s ? s : "");
		json_t *rs = json_object_get(j, "restart");
		out->restart = json_is_integer(rs) ? (int)json_integer_value(rs) : -1;
	}
	json_decref(j);
	strbuf_free(&p);
	return rc;
}

int statusfile_is_of(const struct status_file *js, const char *job_id)
{
	return !js->job_id[0] || !job_id || !strcmp(js->job_id, job_id);
}

int statusfile_is_of_run(const struct status_file *js, const char *job_id, int restart)
{
	return statusfile_is_of(js, job_id) && (js->restart < 0 || js->restart == restart);
}

enum job_state statusfile_decide(const struct status_file *js, int timed_out, int cancelled)
{
	/* the job finished by itself before a cancel or the limit reached it */
	if (js && js->exit_code == 0)
		return JS_COMPLETED;
	if (timed_out)
		return JS_TIMEOUT;
	if (cancelled)
		return JS_CANCELLED;
	return js && js->exit_code == 0 ? JS_COMPLETED : JS_FAILED;
}
