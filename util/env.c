/* SPDX-License-Identifier: MIT */
#include "env.h"

#include <stdlib.h>

long env_long(const char *name)
{
	const char *v = getenv(name);
	return v ? strtol(v, NULL, 10) : 0;
}
