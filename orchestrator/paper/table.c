/* SPDX-License-Identifier: MIT */
#include "table.h"

#include "util/fsio.h"
#include "util/strbuf.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

char **paper_table_row(struct paper_table *t)
{
	XGROW(t->rows, t->nrows, t->cap, 8);
	return t->rows[t->nrows++] = xcalloc((size_t)t->ncols, sizeof **t->rows);
}

void paper_table_free(struct paper_table *t)
{
	for (size_t r = 0; r < t->nrows; r++) {
		for (int c = 0; c < t->ncols; c++)
			free(t->rows[r][c]);
		free(t->rows[r]);
	}
	free(t->rows);
	t->rows = NULL;
	t->nrows = t->cap = 0;
}

void paper_tex_escape(struct strbuf *sb, const char *s)
{
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;
		if (strchr("_%&#${}", c))
			strbuf_addch(sb, '\\');
		if (c == '\\')
			strbuf_adds(sb, "\\textbackslash{}");
		else if (c == '~')
			strbuf_adds(sb, "\\textasciitilde{}");
		else if (c == '^')
			strbuf_adds(sb, "\\textasciicircum{}");
		else if (c == '<' || c == '>')
			strbuf_adds(sb, c == '<' ? "\\textless{}" : "\\textgreater{}");
		else
			strbuf_addch(sb, c < 0x20 || c == 0x7f ? ' ' : (char)c);
	}
}

char *paper_cell_num(const char *fmt, double v)
{
	char buf[64];
	snprintf(buf, sizeof buf, fmt, v);
	return xstrdup(buf);
}

/* The caption in the LaTeX file's first line, a comment: on one line. */
static void comment_line(struct strbuf *sb, const char *s)
{
	strbuf_adds(sb, "% ");
	for (; *s; s++)
		strbuf_addch(sb, (unsigned char)*s < 0x20 ? ' ' : *s);
	strbuf_addch(sb, '\n');
}

static void tex_head(struct strbuf *tex, const struct paper_table *t)
{
	comment_line(tex, t->caption);
	strbuf_adds(tex, "\\begin{table}\n\\centering\n\\caption{");
	paper_tex_escape(tex, t->caption);
	/* (scaled to the text's width: a wide table would overflow it; graphicx's \resizebox) */
	/* (the run's id in the label: a parent's and a variant's tables in one paper differ) */
	strbuf_addf(
		tex,
		"}\n\\label{tab:%s%s%s}\n\\resizebox{\\linewidth}{!}{%%\n\\begin{tabular}{%s}\n\\toprule\n",
		t->run ? t->run : "", t->run ? "-" : "", t->name, t->align);
}

/* A CSV cell (RFC 4180): quoted, its quotes doubled, where it holds a comma or a quote. */
static void csv_cell(struct strbuf *csv, const char *cell)
{
	if (!strpbrk(cell, ",\"\n")) {
		strbuf_adds(csv, cell);
		return;
	}
	strbuf_addch(csv, '"');
	for (; *cell; cell++) {
		if (*cell == '"')
			strbuf_addch(csv, '"');
		strbuf_addch(csv, *cell);
	}
	strbuf_addch(csv, '"');
}

/* One line of each form: the head (r < 0) or row r. */
static void add_line(struct strbuf *csv, struct strbuf *md, struct strbuf *tex,
		     const struct paper_table *t, long r)
{
	for (int c = 0; c < t->ncols; c++) {
		const char *cell = r < 0 ? t->head[c] : t->rows[r][c];
		strbuf_adds(csv, c ? "," : "");
		csv_cell(csv, cell);
		strbuf_addf(md, "| %s ", cell);
		if (c)
			strbuf_adds(tex, " & ");
		paper_tex_escape(tex, cell);
	}
	strbuf_adds(csv, "\n");
	strbuf_adds(md, "|\n");
	strbuf_adds(tex, " \\\\\n");
}

int paper_table_write(const char *out, const struct paper_table *t)
{
	struct strbuf csv = STRBUF_INIT, md = STRBUF_INIT, tex = STRBUF_INIT, rel = STRBUF_INIT;
	tex_head(&tex, t);
	add_line(&csv, &md, &tex, t, -1);
	for (int c = 0; c < t->ncols; c++)
		strbuf_adds(&md, t->align[c] == 'r' ? "|---:" : "|---");
	strbuf_adds(&md, "|\n");
	strbuf_adds(&tex, "\\midrule\n");
	for (size_t r = 0; r < t->nrows; r++)
		add_line(&csv, &md, &tex, t, (long)r);
	/* the caption under the Markdown table, as pandoc reads one */
	strbuf_adds(&md, "\nTable: ");
	for (const char *c = t->caption; *c; c++)
		strbuf_addch(&md, (unsigned char)*c < 0x20 ? ' ' : *c);
	strbuf_addch(&md, '\n');
	strbuf_adds(&tex, "\\bottomrule\n\\end{tabular}}\n\\end{table}\n");
	int rc = 0;
	const char *ext[] = { "csv", "md", "tex" };
	struct strbuf *body[] = { &csv, &md, &tex };
	for (int i = 0; i < 3 && rc == 0; i++) {
		strbuf_reset(&rel);
		strbuf_addf(&rel, "tables/%s.%s", t->name, ext[i]);
		rc = fsio_write_in(out, rel.buf, body[i]->buf, body[i]->len, 0644);
	}
	strbuf_free(&csv);
	strbuf_free(&md);
	strbuf_free(&tex);
	strbuf_free(&rel);
	return rc;
}
