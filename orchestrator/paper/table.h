/* paper/table: one table of the paper in its three forms, written side by
 * side as tables/NAME.{tex,csv,md}: LaTeX (booktabs, with a caption and a
 * label tab:NAME), CSV and Markdown, from the same cells in the same order.
 * Owns the escaping of text for LaTeX; knows nothing of what the cells say.
 * SPDX-License-Identifier: MIT */
#ifndef CAMPAIGN_PAPER_TABLE_H
#define CAMPAIGN_PAPER_TABLE_H

#include <stddef.h>

struct strbuf;

struct paper_table {
	const char *name;    /* tables/NAME.*: letters, digits and _ */
	const char *run;     /* the run's id: the LaTeX label is tab:RUN-NAME (NULL: tab:NAME) */
	const char *caption; /* plain text, escaped here */
	int ncols;
	const char *const *head;
	const char *align;   /* LaTeX column spec, one l or r per column */
	char ***rows;        /* nrows x ncols malloc'ed cells */
	size_t nrows, cap;
};

/* Room for one more row of ncols cells (NULL), returned to be filled. */
char **paper_table_row(struct paper_table *t);
/* Writes out/tables/NAME.{csv,md,tex} (atomically, 0644). */
int paper_table_write(const char *out, const struct paper_table *t);
/* Frees the rows (and their cells). */
void paper_table_free(struct paper_table *t);
/* s as LaTeX text: the characters LaTeX treats as commands escaped,
 * control characters (a line break in a value) as spaces. */
void paper_tex_escape(struct strbuf *sb, const char *s);
/* printf of one number into a malloc'ed cell. */
char *paper_cell_num(const char *fmt, double v);

#endif
