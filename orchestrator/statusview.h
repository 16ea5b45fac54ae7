/* statusview: the status table of a run (text or JSON), shared by status,
 * watch and submit --wait, so every view of a run says the same thing. */
#ifndef CAMPAIGN_STATUSVIEW_H
#define CAMPAIGN_STATUSVIEW_H

#include "run.h"

#include <stdio.h>

int statusview_print(struct run *r, FILE *out, int json);
/* 1 when every job of the run is final, 0 otherwise; *failed counts jobs
 * that are final but not COMPLETED. */
int statusview_done(struct run *r, int *failed);

#endif
