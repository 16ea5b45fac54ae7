/* docgen: the texts about the command line, written once from the command
 * table: `campaign --help`, the man page (campaign help --man) and the bash
 * and zsh completion scripts (campaign help --completion bash|zsh), so the
 * three never disagree with the commands and options that exist.
 * SPDX-License-Identifier: MIT */
#ifndef CAMPAIGN_DOCGEN_H
#define CAMPAIGN_DOCGEN_H

#include "cmd.h"

#include <stdio.h>

/* commands: NULL-terminated. all: also the commands job scripts run. */
void docgen_usage(FILE *out, const struct cmd_entry *const *commands, int all);
void docgen_man(FILE *out, const struct cmd_entry *const *commands, const char *version);
/* shell: "bash" or "zsh"; -1 for another. */
int docgen_completion(FILE *out, const struct cmd_entry *const *commands, const char *shell);

#endif
