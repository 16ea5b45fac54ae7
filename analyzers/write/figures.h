/* figures: the run's figures drawn with gnuplot from summary.json (and the
 * ranks' telemetry): scaling (efficiency per series with the fitted model),
 * breakdown (where step time goes), timeline (step time per step) and phases
 * (the median step of the widest scenario, per rank). Each figure is kept
 * with its data (data/NAME.dat) and script (*.gp); the same inputs give the same
 * bytes (PDF dates pinned to epoch). Used by the analysis and by `paper`.
 * SPDX-License-Identifier: MIT */
#ifndef CAMPAIGN_FIGURES_H
#define CAMPAIGN_FIGURES_H

#include <jansson.h>

enum { FIG_PDF = 1, FIG_SVG = 2, FIG_PNG = 4 };

#define FIGURES_NAMES { "scaling", "breakdown", "timeline", "phases", "collectives" }

/* Writes dir/data/NAME.dat, dir/NAME.gp and the images in formats. */
int figures_draw(const char *run_dir, json_t *summary, const char *dir, long epoch, int formats);

#endif
