/* failure_line: why a failed job failed, in the words of its own output, as
 * one line for `status`, the report and summary.json:
 *   rank 2: FileNotFoundError: [Errno 2] No such file or directory: 'configurator.py'
 * The rank is the one the job's status came from (the launch's record,
 * <job>/ranks/failed.json), else the lowest rank whose log holds a Python
 * traceback. The line is the exception line of its last traceback, else its
 * log's last line (with the signal that ended it), else its exit status.
 * Under a per-node launcher (torchrun) the log is its node's, and the rank is
 * the worker torchrun names as the root cause there; a launcher that failed
 * by itself is named as the launcher of its node. It reads the ends of the
 * logs only (FAILURE_TAIL bytes of each) and writes nothing; the line is
 * plain text (util/quote.h display_clean), at most FAILURE_LINE_MAX bytes.
 * SPDX-License-Identifier: MIT */
#ifndef CAMPAIGN_FAILURE_LINE_H
#define CAMPAIGN_FAILURE_LINE_H

#include "util/strbuf.h"

#include <stddef.h>

#define FAILURE_LINE_MAX 200      /* bytes of the log's line kept, "..." marking a cut */
#define FAILURE_TAIL (256 * 1024) /* bytes read from the end of each log */

/* The failure line of the job whose outputs are in job_dir, appended to out;
 * 1 when its logs say one, 0 when they say nothing (out unchanged). */
int failure_line_read(const char *job_dir, struct strbuf *out);

/* Which lines of a log failure_line_exception reads. */
enum failure_lines {
	FAILURE_ALL = -1,       /* every line as it is (a rank's own log) */
	FAILURE_UNPREFIXED = -2 /* a node's log: lines torchrun did not prefix, its own
				 * traceback left out; of several tracebacks the first */
};

/* The exception line ("SomeError: message") ending the last Python traceback
 * of text (len bytes; the end of a chain of tracebacks "During handling of the
 * above exception" ties together), cleaned, appended to out; 1 when there is
 * one. which: a failure_lines value, or a local rank (>= 0): only the lines
 * torchrun prefixed with it, the prefix taken off. */
int failure_line_exception(const char *text, size_t len, long which, struct strbuf *out);
/* The last line of text holding more than white space (of a line a carriage
 * return rewrote, what stood last), cleaned, appended to out; 1 when there is one. */
int failure_line_last(const char *text, size_t len, struct strbuf *out);
/* torchrun's "Root Cause (first observed failure)" in text: the worker's
 * global rank, its local rank and its exit code (negative: -signal);
 * 1 when found. */
int failure_line_root_cause(const char *text, size_t len, long *rank, long *local,
			    int *exit_code);

#endif
