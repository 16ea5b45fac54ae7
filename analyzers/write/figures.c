/* SPDX-License-Identifier: MIT */
#include "analyzers/write/prose.h"
#include "analyzers/write/figures.h"

#include "analyzers/summary_keys.h"
#include "util/err.h"
#include "util/fsio.h"
#include "util/jsonio.h"
#include "util/strbuf.h"
#include "util/tempname.h"
#include "util/words.h"

#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

struct fig {
	const char *run_dir, *dir;
	json_t *summary;
	long epoch;
	int formats;
	struct argv timelines; /* scenarios in timeline.dat, in block order */
	struct argv series;    /* series in scaling.dat, in block order */
	int models;            /* series blocks in model.dat */
	struct argv model_names;
	char phases_of[80];    /* the scenario in phases.dat, or "" */
	int breakdowns;        /* analysed scenarios in breakdown.dat */
	int gpu_breakdowns;    /* of them, shares of the GPU's time (gpu_shares_pct) */
	struct argv colls;     /* scenarios in collectives.dat (known sizes), in block order */
	struct argv probes;    /* fabric probes in fabric.dat, in block order */
};

static int put(struct fig *f, const char *rel, const struct strbuf *sb)
{
	return fsio_write_in(f->dir, rel, sb->buf, sb->len, 0644);
}

/* The analysed scenarios scaled against baseline b (b's own among them). */
static size_t series_members(json_t *scen, json_t *b)
{
	size_t j, n = 0;
	json_t *s;
	json_array_foreach(scen, j, s)
		n += json_is_true(json_object_get(s, SK_ANALYSED)) &&
		     !strcmp(jsonio_str(s, SK_BASELINE), jsonio_str(b, SK_NAME));
	return n;
}

/* scaling.dat: one block per series of two scenarios or more (nodes efficiency speedup name
 * steps; a series of one is its own baseline, 1.00 by definition, nothing scaled), steps
 * "mean" where the speedup is by the means (steps not alike), else "median". */
static void scaling_data(struct fig *f, struct strbuf *sc)
{
	size_t i, j;
	json_t *b, *s, *scen = json_object_get(f->summary, SK_SCENARIOS);
	strbuf_adds(
		sc,
		"# per series of two scenarios or more (gnuplot index): nodes efficiency speedup scenario steps (median, or mean: by the means, the steps not alike)\n");
	json_array_foreach(scen, i, b) {
		if (!json_is_true(json_object_get(b, SK_ANALYSED)) ||
		    strcmp(jsonio_str(b, SK_BASELINE), jsonio_str(b, SK_NAME)) ||
		    series_members(scen, b) < 2)
			continue;
		strbuf_addf(sc, "%s# %s\n", f->series.n ? "\n\n" : "", jsonio_str(b, SK_NAME));
		argv_push(&f->series, jsonio_str(b, SK_NAME));
		json_array_foreach(
			scen, j, s) if (json_is_true(json_object_get(s, SK_ANALYSED)) &&
					!strcmp(jsonio_str(s, SK_BASELINE), jsonio_str(b, SK_NAME)))
			strbuf_addf(sc, "%d %.4f %.4f %s %s\n", (int) jsonio_num(s, SK_NODES),
				    jsonio_num(s, SK_EFFICIENCY), jsonio_num(s, SK_SPEEDUP),
				    jsonio_str(s, SK_NAME),
				    json_is_true(json_object_get(s, SK_SPEEDUP_BY_MEANS)) ? "mean"
											: "median");
	}
}

/* model.dat: the fitted efficiency from 1 to 16 nodes, one block per series whose
 * model predicts (a model that does not fit, or fits contention, draws no curve). */
static void model_data(struct fig *f, struct strbuf *md)
{
	size_t i;
	json_t *m;
	strbuf_adds(
		md,
		"# per series whose model predicts (gnuplot index): nodes predicted_efficiency (T(N) = b/N + a + c log2 N)\n");
	json_array_foreach(json_object_get(f->summary, SK_SCALING_MODELS), i, m) {
		if (!json_is_number(json_object_get(m, "efficiency_16_nodes")))
			continue;
		double a = jsonio_num(m, SK_A_MS), b = jsonio_num(m, SK_B_MS),
		       c = jsonio_num(m, SK_C_MS), n0 = jsonio_num(m, SK_BASE_NODES);
		double t0 = b / n0 + a + c * log2(n0);
		strbuf_addf(md, "%s# %s\n", f->models++ ? "\n\n" : "", jsonio_str(m, SK_SERIES));
		argv_push(&f->model_names, jsonio_str(m, SK_SERIES));
		for (int n = 1; n <= 16; n++) {
			double t = b / n + a + c * log2((double)n);
			strbuf_addf(md, "%d %.4f\n", n, t > 0 ? t0 * n0 / (t * n) : 0);
		}
	}
}

/* phases.dat: per rank, the phases of the widest scenario's median step. */
static void phases_data(struct fig *f, struct strbuf *ph)
{
	size_t i, r;
	json_t *s, *best = NULL, *row;
	json_array_foreach(json_object_get(f->summary, SK_SCENARIOS), i,
			   s) if (json_is_object(json_object_get(s, SK_MEDIAN_STEP)) &&
				  (!best || jsonio_num(s, SK_RANKS) > jsonio_num(best, SK_RANKS)))
		best = s;
	strbuf_adds(
		ph,
		"# rank data_loading forward backward communication+wait optimizer compute_outside_phases other (ms)\n");
	if (!best)
		return;
	snprintf(f->phases_of, sizeof f->phases_of, "%.60s step %lld", jsonio_str(best, SK_NAME),
		 (long long) json_integer_value(
			 json_object_get(json_object_get(best, SK_MEDIAN_STEP), SK_STEP)));
	json_array_foreach(json_object_get(json_object_get(best, SK_MEDIAN_STEP), SK_RANKS), r, row)
	{
		strbuf_addf(ph, "%zu", r);
		for (size_t k = 0; k < 7; k++)
			strbuf_addf(ph, " %.4f", json_number_value(json_array_get(row, k)));
		strbuf_adds(ph, "\n");
	}
}

/* A scenario's title in the collectives figure: its name, and where its rows are a step's
 * collectives together (summary.json's step_total), that its points are not calls. */
static void colls_title(struct fig *f, json_t *s, json_t *c)
{
	char t[160];
	snprintf(t, sizeof t, "%s%s", jsonio_str(s, SK_NAME),
		 json_is_true(json_object_get(c, "step_total")) ? " (per-step totals)" : "");
	argv_push(&f->colls, t);
}

/* collectives.dat: per scenario, each collective of known size: bytes busbw op. */
static void collectives_data(struct fig *f, struct strbuf *cd)
{
	size_t i, k;
	json_t *s, *c;
	strbuf_adds(cd, "# per scenario (gnuplot index): bytes busbw_gbps op size_class\n");
	json_array_foreach(json_object_get(f->summary, SK_SCENARIOS), i, s) {
		int first = 1;
		json_array_foreach(json_object_get(s, SK_COLLECTIVES), k, c) {
			if (!json_is_number(json_object_get(c, SK_BYTES)))
				continue;
			if (first) {
				strbuf_addf(cd, "%s# %s\n", f->colls.n ? "\n\n" : "",
					    jsonio_str(s, SK_NAME));
				colls_title(f, s, c);
			}
			first = 0;
			strbuf_addf(cd, "%.0f %.4f %s \"%s\"\n", jsonio_num(c, SK_BYTES),
				    jsonio_num(c, SK_BUSBW_GBPS), jsonio_str(c, SK_OP),
				    jsonio_str(c, SK_SIZE_CLASS));
		}
	}
}

/* fabric.dat: per fabric probe, bytes busbw_gbps per size. */
static void fabric_data(struct fig *f, struct strbuf *fd)
{
	size_t i, k;
	json_t *p, *row;
	strbuf_adds(fd, "# per fabric probe (gnuplot index): bytes busbw_gbps\n");
	json_array_foreach(json_object_get(f->summary, SK_FABRIC_PROBES), i, p) {
		if (!json_array_size(json_object_get(p, SK_SIZES)))
			continue;
		strbuf_addf(fd, "%s# %s\n", f->probes.n ? "\n\n" : "", jsonio_str(p, SK_NAME));
		argv_push(&f->probes, jsonio_str(p, SK_NAME));
		json_array_foreach(json_object_get(p, SK_SIZES), k, row)
			strbuf_addf(fd, "%.0f %.4f\n", jsonio_num(row, SK_BYTES),
				    jsonio_num(row, SK_BUSBW_GBPS));
	}
}

/* The scenario's bar of the breakdown figure (its GPU's shares on a GPU, else its step's);
 * 1 when it has one. */
static int breakdown_row(struct strbuf *br, json_t *s)
{
	json_t *g = json_object_get(s, SK_GPU_SHARES_PCT), *h = json_object_get(s, SK_SHARES_PCT);
	if (json_is_object(g)) /* on a GPU: what the GPU did */
		strbuf_addf(br, "%s %.3f %.3f %.3f 0 0 %.3f %.3f %.3f\n", jsonio_str(s, SK_NAME),
			    jsonio_num(g, SK_IDLE_DATA_LOADING), jsonio_num(g, SK_COMPUTE),
			    jsonio_num(g, SK_COMMUNICATION), jsonio_num(g, SK_MEMCPY),
			    jsonio_num(g, SK_IDLE_HOST_WAIT) + jsonio_num(g, SK_IDLE_KERNEL_WAIT) +
				    jsonio_num(g, SK_IDLE_OTHER),
			    jsonio_num(g, SK_OTHER_KERNELS));
	else if (json_is_object(h))
		strbuf_addf(br, "%s %.3f %.3f %.3f %.3f %.3f 0 0 %.3f\n", jsonio_str(s, SK_NAME),
			    jsonio_num(h, SK_DATA_LOADING), jsonio_num(h, SK_COMPUTE),
			    jsonio_num(h, SK_COMMUNICATION), jsonio_num(h, SK_PEER_WAIT),
			    jsonio_num(h, SK_IO), jsonio_num(h, SK_OTHER));
	else /* unknown shares are no bar of zeros */
		strbuf_addf(br, "# %s: shares n/a (step times only)\n", jsonio_str(s, SK_NAME));
	return json_is_object(g) || json_is_object(h);
}

static int data_files(struct fig *f)
{
	struct strbuf sc = STRBUF_INIT, md = STRBUF_INIT, br = STRBUF_INIT, tl = STRBUF_INIT,
		      ph = STRBUF_INIT;
	struct strbuf cd = STRBUF_INIT, fd = STRBUF_INIT;
	size_t i;
	json_t *s;
	scaling_data(f, &sc);
	model_data(f, &md);
	phases_data(f, &ph);
	collectives_data(f, &cd);
	fabric_data(f, &fd);
	strbuf_adds(&br,
		    PROSE_FIGURES_SCENARIO_DATA_LOADING);
	strbuf_adds(
		&tl,
		"# the analysed step time per active step (summary.json step_times_ms, what the median is of), one block per scenario (gnuplot index)\n");
	json_array_foreach(json_object_get(f->summary, SK_SCENARIOS), i, s) {
		if (!json_is_true(json_object_get(s, SK_ANALYSED)))
			continue;
		int row = breakdown_row(&br, s);
		f->breakdowns += row;
		f->gpu_breakdowns += row && json_is_object(json_object_get(s, SK_GPU_SHARES_PCT));
		json_t *steps = json_object_get(s, SK_STEP_TIMES_MS), *st;
		size_t k;
		if (!json_array_size(steps))
			continue;
		strbuf_addf(&tl, "%s# %s\n", f->timelines.n ? "\n\n" : "", jsonio_str(s, SK_NAME));
		argv_push(&f->timelines, jsonio_str(s, SK_NAME));
		json_array_foreach(steps, k, st)
			strbuf_addf(&tl, "%zu %.4f\n", k, json_number_value(st));
	}
	const char *names[] = { "data/scaling.dat",  "data/model.dat",  "data/breakdown.dat",
				"data/timeline.dat", "data/phases.dat", "data/collectives.dat",
				"data/fabric.dat" };
	struct strbuf *bufs[] = { &sc, &md, &br, &tl, &ph, &cd, &fd };
	int rc = 0;
	for (int k = 0; k < 7; k++) {
		if (rc == 0)
			rc = put(f, names[k], bufs[k]);
		strbuf_free(bufs[k]);
	}
	return rc;
}

static const char gp_head[] =
	"# Drawn by campaign; edit the style here and run `gnuplot %s.gp` in this directory.\n"
	"reset\nset encoding utf8\nset datafile commentschars '#'\nset grid ytics lc rgb '#dddddd'\nset key top left\n";
static const char empty_plot[] = "unset key\nplot [0:1] [0:1] 1/0\n";

static void gp_script(struct fig *f, struct strbuf *sb, const char *name, const char *body)
{
	strbuf_addf(sb, gp_head, name);
	strbuf_adds(sb, "set terminal unknown\n");
	strbuf_adds(sb, body);
	if (f->formats & FIG_PDF)
		strbuf_addf(
			sb,
			"set terminal pdfcairo size 5in,3in font 'sans,9'\nset output '%s.pdf'\nreplot\n",
			name);
	if (f->formats & FIG_SVG)
		strbuf_addf(
			sb,
			"set terminal svg size 750,450 font 'sans,11' background rgb 'white'\nset output '%s.svg'\nreplot\n",
			name);
	if (f->formats & FIG_PNG)
		strbuf_addf(
			sb,
			"set terminal pngcairo size 1000,600 font 'sans,11'\nset output '%s.png'\nreplot\n",
			name);
	/* the last image is complete once its file is closed: before the next script's terminal */
	strbuf_adds(sb, "unset output\n");
}

static void scaling_body(struct fig *f, struct strbuf *b)
{
	if (!f->series.n) {
		strbuf_addf(
			b,
			"set title 'Parallel efficiency: no series of two analysed scenarios or more'\n%s",
			empty_plot);
		return;
	}
	strbuf_adds(
		b,
		"set title 'Parallel efficiency against each series baseline'\nset xlabel 'nodes'\n"
		"set ylabel 'efficiency'\nset logscale x 2\nset xrange [0.8:20]\nset yrange [0:1.2]\n"
		"set key outside bottom center horizontal\n");
	for (size_t i = 0; i < f->series.n; i++)
		strbuf_addf(
			b,
			PROSE_FIGURES_DATA_SCALING_DAT,
			i ? "     " : "plot ", i, i + 1, f->series.v[i], i,
			i + 1 < f->series.n || f->models ? ", \\\n" : "\n");
	for (int i = 0; i < f->models; i++) {
		size_t lc = 0; /* the colour of its series' measured line */
		while (lc < f->series.n && strcmp(f->series.v[lc], f->model_names.v[i]))
			lc++;
		strbuf_addf(
			b,
			"     'data/model.dat' index %d using 1:2 with lines dt 2 lw 1.5 lc %zu title '%s model'%s",
			i, lc + 1, f->model_names.v[i], i + 1 < f->models ? ", \\\n" : "\n");
	}
}

/* Bus bandwidth against message size: one point series per scenario. */
static void collectives_body(struct fig *f, struct strbuf *b)
{
	if (!f->colls.n) {
		strbuf_addf(b, "set title 'Collectives: none of known size'\n%s", empty_plot);
		return;
	}
	strbuf_adds(b,
		    PROSE_FIGURES_TITLE_BUS_BANDWIDTH
		    PROSE_FIGURES_XTICS_KIB_KIB
		    "set key outside right\n");
	for (size_t i = 0; i < f->colls.n; i++)
		strbuf_addf(
			b,
			"%s'data/collectives.dat' index %zu using 1:2 with points pt 7 ps 1 lc %zu title '%s'%s",
			i ? "     " : "plot ", i, i + 1, f->colls.v[i],
			i + 1 < f->colls.n || f->probes.n ? ", \\\n" : "\n");
	for (size_t i = 0; i < f->probes.n; i++) /* what the fabric gives: lines */
		strbuf_addf(
			b,
			"     'data/fabric.dat' index %zu using 1:2 with lines dt 2 lw 1.5 lc %zu title '%s'%s",
			i, f->colls.n + i + 1, f->probes.v[i],
			i + 1 < f->probes.n ? ", \\\n" : "\n");
}

/* The breakdown figure's script body: shares of the step, or of GPU time for GPU scenarios. */
static void breakdown_body(const struct fig *f, struct strbuf *body)
{
	if (!f->breakdowns) {
		strbuf_addf(body,
			    "set title 'Where step time goes: no scenario with a breakdown'\n%s",
			    empty_plot);
		return;
	}
	strbuf_addf(
		body,
		"set title 'Where step time goes'\nset ylabel '%s'\nset yrange [0:100]\n"
		"set style data histograms\nset style histogram rowstacked\nset style fill solid 0.8 border -1\n"
		"set boxwidth 0.7\nset xtics rotate by -30\nset key outside right\n%s",
		f->gpu_breakdowns == f->breakdowns ? "percent of GPU time (all ranks)"
			: f->gpu_breakdowns        ? "percent of step time (GPU bars: of GPU time)"
						   : "percent of step time",
		PROSE_FIGURES_PLOT_DATA_BREAKDOWN);
}

/* The timeline figure's script body: each scenario's analysed steps, a point each (a
 * scenario of one step is then still drawn). */
static void timeline_body(const struct fig *f, struct strbuf *body)
{
	strbuf_adds(
		body,
		"set title 'Step time per active step, as analysed'\nset xlabel 'active step'\nset ylabel 'step time (ms)'\n"
		"set key outside right\nset yrange [0:*]\n");
	for (size_t i = 0; i < f->timelines.n; i++)
		strbuf_addf(
			body,
			"%s'data/timeline.dat' index %zu using 1:2 with linespoints pointtype 7 pointsize 0.4 title '%s'%s",
			i ? "     " : "plot ", i, f->timelines.v[i],
			i + 1 < f->timelines.n ? ", \\\n" : "\n");
	if (!f->timelines.n)
		strbuf_adds(body, empty_plot);
}

static int figure_scripts(struct fig *f)
{
	struct strbuf a = STRBUF_INIT, b = STRBUF_INIT, c = STRBUF_INIT, d = STRBUF_INIT,
		      body = STRBUF_INIT;
	struct strbuf e = STRBUF_INIT;
	scaling_body(f, &body);
	gp_script(f, &a, "scaling", body.buf);
	strbuf_reset(&body);
	breakdown_body(f, &body);
	gp_script(f, &b, "breakdown", body.buf);
	strbuf_reset(&body);
	timeline_body(f, &body);
	gp_script(f, &c, "timeline", body.buf);
	strbuf_reset(&body);
	if (f->phases_of[0])
		strbuf_addf(
			&body,
			"set title 'Median step of %s, per rank (phases in order)'\nset xlabel 'rank'\n"
			"set ylabel 'ms'\nset style data histograms\nset style histogram rowstacked\n"
			"set style fill solid 0.8 border -1\nset boxwidth 0.7\nset key outside right\nset yrange [0:*]\n" PROSE_FIGURES_PLOT_DATA_PHASES,
			f->phases_of);
	else
		strbuf_addf(&body,
			    "set title 'Median step per rank: no scenario with a breakdown'\n%s",
			    empty_plot);
	gp_script(f, &d, "phases", body.buf);
	strbuf_reset(&body);
	collectives_body(f, &body);
	gp_script(f, &e, "collectives", body.buf);
	const char *names[] = { "scaling.gp", "breakdown.gp", "timeline.gp", "phases.gp",
				"collectives.gp" };
	struct strbuf *bufs[] = { &a, &b, &c, &d, &e };
	int rc = 0;
	for (int k = 0; k < 5; k++) {
		if (rc == 0)
			rc = put(f, names[k], bufs[k]);
		strbuf_free(bufs[k]);
	}
	strbuf_free(&body);
	return rc;
}
/* Cairo 1.16 writes the wall clock into /CreationDate (it ignores
 * SOURCE_DATE_EPOCH): put the epoch's date there, same length. */
static int pin_pdf_date(const char *path, long epoch)
{
	char *data;
	size_t len;
	int rc = fsio_read(path, 1u << 30, &data, &len);
	if (rc < 0)
		return rc;
	char date[32];
	time_t t = (time_t)epoch;
	struct tm tm;
	gmtime_r(&t, &tm);
	strftime(date, sizeof date, "%Y%m%d%H%M%S", &tm);
	const char key[] = "/CreationDate (D:";
	for (char *q = memmem(data, len, key, sizeof key - 1); q;
	     q = memmem(q + 1, len - (size_t)(q + 1 - data), key, sizeof key - 1)) {
		char *d = q + sizeof key - 1;
		if ((size_t)(d - data) + 15 <= len && d[14] == 'Z')
			memcpy(d, date, 14);
	}
	rc = fsio_write_atomic(path, data, len, 0644);
	free(data);
	return rc;
}

/* Removes the drawing folders of killed runs in dir. */
static void sweep_draw(const char *dir)
{
	int dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dfd >= 0) {
		fsio_sweep_temps(dfd, dir, ".draw");
		close(dfd);
	}
}

/* gnuplot writes its images into a fresh private folder (mkdtemp) beside
 * the scripts, from which each is renamed into place: a link planted where
 * an image goes is named and refused, never written through. One gnuplot
 * draws every figure (each script starts with `reset`). */
/* Runs gnuplot on the scripts (NULL-ended) in the drawing folder draw (reproducible: the
 * epoch, C locale, UTC); its output in a log there, quoted when it fails. */
static int gnuplot_in(const struct fig *f, const char *draw, char **scripts, const char *epoch)
{
	struct strbuf lp = STRBUF_INIT;
	strbuf_addf(&lp, "%s/gnuplot.log", draw); /* gone with the folder */
	int fd = open(lp.buf, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	pid_t pid = fork();
	if (pid == 0) {
		if (chdir(draw) < 0)
			_exit(126);
		dup2(fd, 1);
		dup2(fd, 2);
		setenv("SOURCE_DATE_EPOCH", epoch, 1);
		setenv("LC_ALL", "C", 1);
		setenv("TZ", "UTC", 1);
		execvp("gnuplot", scripts);
		_exit(127);
	}
	int st = 0, rc = 0;
	if (pid < 0 || waitpid(pid, &st, 0) < 0 || !WIFEXITED(st) || WEXITSTATUS(st) != 0) {
		char *msg = NULL;
		fsio_read(lp.buf, 4096, &msg, NULL);
		rc = err_set(ERR_IO, "gnuplot failed on the figures' scripts in %s: %s", f->dir,
			     WIFEXITED(st) && WEXITSTATUS(st) == 127
				     ? "gnuplot is not installed (apt-get install gnuplot-nox)"
				     : msg ? msg
					   : "");
		free(msg);
	}
	close(fd);
	unlink(lp.buf);
	strbuf_free(&lp);
	return rc;
}

/* Moves figure name's images from the drawing folder into place. */
static int place_images(struct fig *f, const char *draw, const char *name)
{
	static const char *const ext[] = { "pdf", "svg", "png" };
	struct strbuf from = STRBUF_INIT, to = STRBUF_INIT;
	int rc = 0;
	for (int k = 0; k < 3 && rc == 0; k++) {
		if (!(f->formats & (1 << k)))
			continue;
		strbuf_reset(&from);
		strbuf_reset(&to);
		strbuf_addf(&from, "%s/%s.%s", draw, name, ext[k]);
		strbuf_addf(&to, "%s/%s.%s", f->dir, name, ext[k]);
		if ((1 << k) == FIG_PDF)
			rc = pin_pdf_date(from.buf, f->epoch);
		if (rc == 0)
			rc = fsio_replace(from.buf, to.buf);
	}
	strbuf_free(&from);
	strbuf_free(&to);
	return rc;
}

static int run_gnuplot(struct fig *f, const char *const *names, size_t n)
{
	struct strbuf draw = STRBUF_INIT, from = STRBUF_INIT;
	struct argv args = { 0 };
	char epoch[32];
	strbuf_addf(&from, "%s/.draw", f->dir);
	tempname_make(&draw, from.buf, "XXXXXX");
	if (!mkdtemp(draw.buf)) {
		int rc = err_sys(ERR_IO, "cannot create a folder in %s", f->dir);
		strbuf_free(&draw);
		strbuf_free(&from);
		return rc;
	}
	snprintf(epoch, sizeof epoch, "%ld", f->epoch);
	argv_push(&args, "gnuplot");
	argv_push(&args, "-e");
	argv_push(&args, "set loadpath '..'");
	for (size_t i = 0; i < n; i++) {
		strbuf_reset(&from);
		strbuf_addf(&from, "../%s.gp", names[i]);
		argv_push(&args, from.buf);
	}
	strbuf_free(&from);
	int rc = gnuplot_in(f, draw.buf, args.v, epoch);
	for (size_t i = 0; i < n && rc == 0; i++)
		rc = place_images(f, draw.buf, names[i]);
	fsio_remove_tree(draw.buf);
	sweep_draw(f->dir);
	strbuf_free(&draw);
	argv_free(&args);
	return rc;
}


int figures_draw(const char *run_dir, json_t *summary, const char *dir, long epoch, int formats)
{
	struct fig f = { .run_dir = run_dir,
			 .dir = dir,
			 .summary = summary,
			 .epoch = epoch,
			 .formats = formats };
	int rc = fsio_mkdir_p(dir, 0755); /* dir itself must not be a link: */
	struct stat st;
	if (rc == 0 && lstat(dir, &st) == 0 && S_ISLNK(st.st_mode))
		rc = err_set(
			ERR_IO,
			"%s is a symbolic link: campaign does not write through links (remove it; was it made by the workload?)",
			dir);
	if (rc == 0)
		rc = data_files(&f);
	if (rc == 0)
		rc = figure_scripts(&f);
	const char *figs[] = FIGURES_NAMES;
	if (rc == 0)
		rc = run_gnuplot(&f, figs, sizeof figs / sizeof *figs);
	argv_free(&f.timelines);
	argv_free(&f.series);
	argv_free(&f.model_names);
	argv_free(&f.colls);
	argv_free(&f.probes);
	return rc;
}
