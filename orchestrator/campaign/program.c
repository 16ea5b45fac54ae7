/* SPDX-License-Identifier: MIT */
#include "program.h"

#include "util/strbuf.h"
#include "orchestrator/campaign/prose.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static int executable(const char *p)
{
	struct stat st;
	return stat(p, &st) == 0 && S_ISREG(st.st_mode) && access(p, X_OK) == 0;
}

int program_resolve(const char *name, const char *path, char *buf, size_t n)
{
	if (strchr(name, '/')) {
		snprintf(buf, n, "%s", name);
		return executable(name) ? 0 : -1;
	}
	const char *p = path ? path : "";
	for (;;) {
		size_t len = strcspn(p, ":");
		snprintf(buf, n, "%.*s/%s", (int)len, len ? p : ".", name);
		if (executable(buf))
			return 0;
		if (!p[len])
			return -1;
		p += len + 1;
	}
}

/* value with $NAME and ${NAME} taken from this process's environment. */
static char *expand(const char *value)
{
	struct strbuf sb = STRBUF_INIT;
	for (const char *s = value; *s;) {
		int brace = s[0] == '$' && s[1] == '{';
		const char *name = s + 1 + brace;
		size_t len = 0;
		while (s[0] == '$' && (isalnum((unsigned char)name[len]) || name[len] == '_'))
			len++;
		if (!len || (brace && name[len] != '}')) {
			strbuf_addch(&sb, *s++);
			continue;
		}
		char var[128];
		snprintf(var, sizeof var, "%.*s", (int)len, name);
		const char *v = getenv(var);
		strbuf_adds(&sb, v ? v : "");
		s = name + len + brace;
	}
	return strbuf_detach(&sb);
}

static int shim(const char *resolved)
{
	return strstr(resolved, "/shims/") != NULL;
}

/* One scenario's PATH (NULL: this shell's) against this shell's. */
static int check_one(const char *prog, const char *job_path, const char *who, FILE *out)
{
	char here[4096] = "", there[4096] = "";
	const char *shell_path = getenv("PATH");
	int in_here = program_resolve(prog, shell_path, here, sizeof here) == 0;
	int in_job =
		program_resolve(prog, job_path ? job_path : shell_path, there, sizeof there) == 0;
	if (!in_job) {
		fprintf(out,
			PROSE_PROGRAM_NOT_FOUND_WARNING,
			who, prog, strchr(prog, '/') ? "an executable file" : "on the job's PATH",
			job_path ? " (workload.env PATH)" : "",
			job_path ? " or fix PATH" : " or set workload.env.PATH");
		return 1;
	}
	if (in_here && strcmp(here, there)) {
		fprintf(out,
			PROSE_PROGRAM_RESOLVES_ELSEWHERE,
			who, prog, there, here);
		return 1;
	}
	if (shim(there)) {
		fprintf(out,
			PROSE_PROGRAM_SHIM,
			who, prog, there, prog);
		return 1;
	}
	return 0;
}

int program_check(const struct campaign *c, const char *who, FILE *out)
{
	const char *prog = c->workload.command.n ? c->workload.command.v[0] : NULL;
	if (!prog || strstr(prog, "{{") || !*prog)
		return 0; /* {{trainer}} and other placeholders are campaign's own */
	int warned = 0;
	struct argv seen = { 0 };
	for (size_t i = 0; i < c->n_scenarios; i++) {
		if (c->scenarios[i].probe)
			continue;
		const char *p = kvlist_get(&c->scenarios[i].env, "PATH");
		char *path = p ? expand(p) : NULL;
		if (!argv_has(&seen, path ? path : "")) {
			argv_push(&seen, path ? path : "");
			warned += check_one(prog, path, who, out);
		}
		free(path);
	}
	if (warned && c->workload.n_setup)
		fprintf(out,
			"%s: note: workload.setup runs before the program and may change PATH (module load ...); the check above used the PATH before it\n",
			who);
	argv_free(&seen);
	return warned;
}
