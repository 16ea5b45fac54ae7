/* inspector_text: what a scenario's NCCL Inspector dumps gave, in the report (a paragraph
 * after the collectives table) and in summary.json (nccl_inspector: present only when the
 * scenario has dumps).
 * SPDX-License-Identifier: MIT */
#include "analyzers/write/prose.h"
#include "analyzers/analysis.h"
#include "analyzers/inspector.h"
#include "analyzers/write/summary_objects.h"
#include "util/strbuf.h"

#include <jansson.h>
#include <stdio.h>

#include "analyzers/write/report_parts.h"

static const char *plural(size_t n)
{
	return n == 1 ? "" : "s";
}

/* What was read and matched. */
static void md_read(struct strbuf *md, const struct insp_summary *s)
{
	strbuf_addf(
		md,
		"NCCL Inspector: %zu record%s from %zu dump file%s (%zu process%s, %zu communicator%s); %zu collective instance%s recorded by every rank of %s communicator",
		s->st.objects, plural(s->st.objects), s->st.files, plural(s->st.files), s->procs,
		s->procs == 1 ? "" : "es", s->comms, plural(s->comms), s->st.instances,
		plural(s->st.instances), s->st.instances == 1 ? "its" : "their");
	if (s->st.partial)
		strbuf_addf(
			md,
			PROSE_INSPECTOR_RECORDED_ONLY_SOME,
			s->st.partial);
	if (s->st.malformed)
		strbuf_addf(md, "; %zu malformed or truncated object%s skipped", s->st.malformed,
			    plural(s->st.malformed));
	if (s->st.duplicates)
		strbuf_addf(md, "; %zu record%s seen twice ignored", s->st.duplicates,
			    plural(s->st.duplicates));
	if (s->st.unreadable)
		strbuf_addf(md, "; %zu file%s could not be read", s->st.unreadable,
			    plural(s->st.unreadable));
	strbuf_adds(md, ".");
	size_t cpu = s->st.timing[INSP_KERNEL_CPU] + s->st.timing[INSP_COLLECTIVE_CPU];
	if (cpu)
		strbuf_addf(
			md,
			" %zu record%s timed on the host (coll_timing_source kernel_cpu or collective_cpu), not by the GPU's clock.",
			cpu, plural(cpu));
	if (s->st.verbose)
		strbuf_addf(
			md,
			" %zu record%s carry the kernels' stop times (verbose dumps), kept per instance for the clock offsets between nodes.",
			s->st.verbose, plural(s->st.verbose));
}

/* What the collectives table and the stragglers took from it. */
static void md_used(struct strbuf *md, const struct insp_summary *s)
{
	if (s->colls_used)
		strbuf_adds(
			md,
			PROSE_INSPECTOR_COLLECTIVES_TABLE_ABOVE);
	else if (s->st.instances)
		strbuf_adds(
			md,
			" The collectives table comes from the traces' own collectives; the Inspector's are not used for it.");
	if (s->stragglers_used)
		strbuf_addf(
			md,
			PROSE_INSPECTOR_STRAGGLERS_COME_FROM,
			s->judged, plural(s->judged));
}

/* Records whose own bandwidths differ from those their size and time give. */
static void md_mismatches(struct strbuf *md, const struct insp_summary *s)
{
	if (!s->mismatches) {
		if (s->checked)
			strbuf_addf(
				md,
				" Its own algbw and busbw agree with their size and time in all %zu record%s checked.",
				s->checked, plural(s->checked));
		return;
	}
	strbuf_addf(
		md,
		" **%zu of %zu record%s give bandwidths their size and time do not** (GB/s, the file's against recomputed):",
		s->mismatches, s->checked, plural(s->checked));
	for (size_t i = 0; i < s->mismatches && i < INSP_SHOWN; i++) {
		const struct insp_mismatch *m = &s->shown[i];
		strbuf_addf(
			md,
			"%s %s coll_sn %llu, rank %d: algbw %.6f against %.6f, busbw %.6f against %.6f",
			i ? ";" : "", coll_op_name(m->op), m->sn, m->rank, m->file_algbw, m->algbw,
			m->file_busbw, m->busbw);
	}
	strbuf_addf(md, "%s.", s->mismatches > INSP_SHOWN ? "; ..." : "");
}

void md_inspector(struct strbuf *md, const struct ana_scenario *sc)
{
	const struct insp_summary *s = &sc->comm.insp;
	if (!s->found)
		return;
	md_read(md, s);
	md_used(md, s);
	md_mismatches(md, s);
	strbuf_adds(md, "\n\n");
}

static json_t *mismatches_json(const struct insp_summary *s)
{
	json_t *a = json_array();
	for (size_t i = 0; i < s->mismatches && i < INSP_SHOWN; i++) {
		const struct insp_mismatch *m = &s->shown[i];
		json_array_append_new(
			a,
			json_pack("{s:s, s:I, s:o, s:o, s:o, s:o, s:o}", "op", coll_op_name(m->op),
				  "coll_sn", (json_int_t) m->sn, "rank",
				  m->rank >= 0 ? json_integer(m->rank) : json_null(),
				  "file_algbw_gbps",
				  m->file_algbw >= 0 ? jsonio_real3(m->file_algbw) : json_null(),
				  "file_busbw_gbps",
				  m->file_busbw >= 0 ? jsonio_real3(m->file_busbw) : json_null(),
				  "algbw_gbps", jsonio_real3(m->algbw), "busbw_gbps",
				  jsonio_real3(m->busbw)));
	}
	return a;
}

json_t *summary_inspector_json(const struct insp_summary *s)
{
	const struct insp_stats *st = &s->st;
	json_t *o = json_pack(
		"{s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:b, s:b, s:I, s:I, s:I}", "files",
		(json_int_t)st->files, "unreadable_files", (json_int_t)st->unreadable, "processes",
		(json_int_t)s->procs, "communicators", (json_int_t)s->comms, "records",
		(json_int_t)st->objects, "malformed_objects", (json_int_t)st->malformed,
		"duplicate_records", (json_int_t)st->duplicates, "instances",
		(json_int_t)st->instances, "partial_instances", (json_int_t)st->partial,
		"collectives_from_inspector", s->colls_used, "stragglers_from_inspector",
		s->stragglers_used, "straggler_instances", (json_int_t)s->judged,
		"bandwidth_checked", (json_int_t)s->checked, "bandwidth_mismatches",
		(json_int_t)s->mismatches);
	json_object_set_new(o, "mismatches", mismatches_json(s));
	json_object_set_new(o, "verbose_records", json_integer((json_int_t)st->verbose));
	json_object_set_new(
		o, "timing_sources",
		json_pack("{s:I, s:I, s:I, s:I}", "kernel_gpu", (json_int_t)st->timing[0],
			  "kernel_cpu", (json_int_t)st->timing[1], "collective_cpu",
			  (json_int_t)st->timing[2], "unknown", (json_int_t)st->timing[3]));
	return o;
}

json_t *inspector_json(const struct ana_scenario *sc)
{
	return summary_inspector_json(&sc->comm.insp);
}
