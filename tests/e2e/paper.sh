# campaign paper: figures (PDF, SVG, PNG + data + gnuplot scripts), tables
# (LaTeX, CSV, Markdown), analysis, provenance appendix, reproduce.sh and
# MANIFEST.sha256; byte-identical when run again; --verify passes, and
# fails once a results file has changed.
# SPDX-License-Identifier: MIT
source "$(dirname "$0")/../lib.sh"
cd "$SCRATCH"
# (the run of demo_run.sh: tests/lib.sh shared_submit)
shared_submit out.txt "$SCRATCH/res" "$ROOT/campaigns/local-demo.yaml"
run=$(rundir out.txt)
"$CAMPAIGN" paper --results "$SCRATCH/res" "$(basename "$run")" >p1.txt; rc=$?
P=$run/paper
check paper_exit0 [ "$rc" -eq 0 ]
for f in figures/scaling figures/breakdown figures/timeline; do
	for ext in pdf svg png gp; do check "paper_${f#figures/}_$ext" [ -s "$P/$f.$ext" ]; done
done
check paper_pdf_is_pdf bash -c 'head -c 5 "$1" | grep -q "%PDF-"' _ "$P/figures/scaling.pdf"
check paper_png_is_png bash -c 'head -c 8 "$1" | od -An -c | grep -q "P   N   G"' _ "$P/figures/breakdown.png"
check paper_figure_data [ "$(grep -vc '^#' "$P/figures/data/scaling.dat")" -eq 3 ]
# each point says whether its speedup is the medians' or the means' (summary.json's word)
check paper_figure_data_steps python3 - "$P/figures/data/scaling.dat" "$run/summary.json" <<'PY'
import json, sys
rows = [l.split() for l in open(sys.argv[1]) if l.strip() and not l.startswith("#")]
by = {s["name"]: s for s in json.load(open(sys.argv[2]))["scenarios"]}
assert rows and all(len(r) == 5 and r[4] == ("mean" if by[r[3]].get("speedup_by_means") else "median") for r in rows), rows
PY
for t in scenarios scaling; do
	for ext in tex csv md; do check "paper_table_${t}_$ext" [ -s "$P/tables/$t.$ext" ]; done
done
check paper_no_checked_table [ ! -e "$P/tables/checked_predictions.tex" ] # no campaign try here
check paper_booktabs grep -q '\\toprule' "$P/tables/scenarios.tex"
check paper_csv_rows [ "$(wc -l <"$P/tables/scenarios.csv")" -eq 4 ]
# the paper's scenarios table prints what the report's does, cell for cell (times and shares
# from summary.json's values to 0.001, both of them: never a cell rounded twice in one only)
check paper_cells_as_report python3 - "$run/BOTTLENECK_ANALYSIS.md" "$P/tables/scenarios.md" <<'PY'
import sys
cells = lambda l: [x.strip() for x in l.strip().strip("|").split("|")]
rep = {c[0]: c for c in map(cells, open(sys.argv[1])) if len(c) == 14 and c[3] == "COMPLETED"}
pap = [c for c in map(cells, open(sys.argv[2])) if len(c) == 14 and c[3] == "COMPLETED"]
assert pap and len(pap) == len(rep), (pap, rep)
for c in pap:
    r = rep[c[0]]
    assert [r[k].replace("–", "-") for k in (4, 5, 7, 8, 9, 10, 11, 12)] == [c[k] for k in (4, 5, 7, 8, 9, 10, 11, 12)], (r, c)
PY
# each LaTeX table's label names its run: a parent's and a variant's differ in one paper
check paper_tex_label_has_run grep -qxF "\\label{tab:$(basename "$run")-scenarios}" "$P/tables/scenarios.tex"
check paper_analysis cmp -s "$P/BOTTLENECK_ANALYSIS.md" "$run/BOTTLENECK_ANALYSIS.md"
check paper_provenance_appendix grep -q "^## Repository" "$P/provenance.md"
check paper_reproduce_script bash -c 'sh -n "$1" && grep -q "campaign submit" "$1"' _ "$P/reproduce.sh"
check paper_manifest_checks bash -c 'cd "$1" && sha256sum -c --quiet MANIFEST.sha256'  _ "$P"
check paper_manifest_covers_all [ "$(wc -l <"$P/MANIFEST.sha256")" -eq "$(find "$P" -type f ! -name MANIFEST.sha256 | wc -l)" ]
cp -r "$P" first
sleep 1.1   # a second later: nothing may depend on the clock
"$CAMPAIGN" paper --results "$SCRATCH/res" "$(basename "$run")" >/dev/null
check paper_twice_same_manifest cmp -s first/MANIFEST.sha256 "$P/MANIFEST.sha256"
check paper_twice_same_bytes diff -r first "$P"
"$CAMPAIGN" paper --verify --results "$SCRATCH/res" "$(basename "$run")" >v.txt; rc=$?
check paper_verify_passes [ "$rc" -eq 0 ]
check paper_verify_says grep -q "identical to a fresh regeneration" v.txt
SOURCE_DATE_EPOCH=1700000000 "$CAMPAIGN" paper --out "$SCRATCH/p2" --results "$SCRATCH/res" "$(basename "$run")" >/dev/null
check paper_source_date_epoch_in_pdf grep -aq "CreationDate (D:20231114221320Z)" "$SCRATCH/p2/figures/scaling.pdf"
sed -i 's/"median": \([0-9]\)/"median": 9\1/' "$run/summary.json"   # the results change
"$CAMPAIGN" paper --verify --results "$SCRATCH/res" "$(basename "$run")" >v.txt; rc=$?
check paper_verify_fails_after_change [ "$rc" -eq 1 ]
check paper_verify_names_files grep -q "^differs: summary.json" v.txt
check paper_verify_left_paper_alone diff -r first "$P"
"$CAMPAIGN" paper --verify --out "$SCRATCH/nothing" --results "$SCRATCH/res" "$(basename "$run")" >/dev/null 2>&1
check paper_verify_without_paper_exit3 [ $? -eq 3 ]
