# The Debian package and the Lmod module (issue 37): `make deb`'s build (tests/tools/deb.sh,
# in a copy: the tree stays clean) gives campaign_<version>_<arch>.deb, lintian-clean but
# for the overrides debian/ explains; extracted into a scratch root, the demo campaign (made
# small) runs from its files alone; installed over /usr (an overlay in a mount namespace of its own, as
# root), `module load campaign` works with Debian's Lmod as it comes; and the modulefile that
# `make install PREFIX=` writes puts campaign on PATH, MANPATH and bash-completion's path,
# reads the site's file, and `module unload` gives PATH back as it was.
# SPDX-License-Identifier: MIT
source "$(dirname "$0")/../lib.sh"
# What goes into the package: the tracked files (as they are now), never an untracked one
# (a campaign of one's own, a key): deb.sh --list in a scratch clone with one of each
git clone -q "$ROOT" "$SCRATCH/clone"
echo "token: not-for-the-package" >"$SCRATCH/clone/campaigns/mine.yaml"
echo "# changed, not committed" >>"$SCRATCH/clone/campaigns/local-demo.yaml"
"$SCRATCH/clone/tests/tools/deb.sh" --list >"$SCRATCH/list.txt"
check deb_list_untracked_left_out bash -c '! grep -qx campaigns/mine.yaml "$1"' _ "$SCRATCH/list.txt"
check deb_list_tracked_taken grep -qx campaigns/local-demo.yaml "$SCRATCH/list.txt"
check deb_list_is_git_ls_files [ "$(wc -l <"$SCRATCH/list.txt")" = "$(git -C "$SCRATCH/clone" ls-files | wc -l)" ]
for tool in dpkg-buildpackage dh lintian help2man; do
	if ! command -v "$tool" >/dev/null; then
		skip packaging_deb "$tool is not installed (make check-packaging installs debhelper, lintian, lmod)"
		exit 0
	fi
done
cd "$SCRATCH"
version=$("$CAMPAIGN" --version | awk '{ print $2 }')
arch=$(dpkg --print-architecture)
cuda=no
[ -x /usr/local/cuda/bin/nvcc ] && [ -f /usr/local/cuda/include/nccl.h ] && cuda=yes

# --- the build: in a copy, on one core (the other lane has the other)
# the tree as git sees it, and what dpkg-buildpackage would leave in debian/ (ignored) and
# beside the tree (its .deb files go to the source folder's parent) were it run in place
tree() {
	git -C "$ROOT" status --porcelain --untracked-files=all
	git -C "$ROOT" status --porcelain --ignored --untracked-files=all -- debian
	ls "$(dirname "$ROOT")" | grep '^campaign.*\.\(deb\|changes\|buildinfo\)$'
}
tree_before=$(tree)
start=$SECONDS
# unoptimised (noopt), without the -dbgsym packages (noddebs: debhelper's own, which the
# test would only lint) and the GPU trainer for one architecture: what is checked is how the
# package is made and what it holds, not the compilers' optimisers, which would double the
# build's CPU time; two make jobs: the suite's longest script, it then takes the core that the
# other lanes leave idle as they end
DEB_BUILD_OPTIONS="noopt noddebs" NVCC_ARCH="-gencode arch=compute_90,code=sm_90" \
	HAVE_CUDA=$cuda DEB_JOBS=2 "$ROOT/tests/tools/deb.sh" "$SCRATCH/deb" >deb.out 2>&1
rc=$?
echo "deb build: $((SECONDS - start)) s (campaign-gpu: $cuda)"
[ "$rc" -eq 0 ] || sed 's/^/  deb: /' deb.out | tail -n 30
deb=$SCRATCH/deb/campaign_${version}_$arch.deb
check deb_built [ "$rc" -eq 0 ] && [ -s "$deb" ]
check deb_tree_untouched [ "$(tree)" = "$tree_before" ]
if [ "$cuda" = yes ]; then
	check deb_gpu_package [ -s "$SCRATCH/deb/campaign-gpu_${version}_$arch.deb" ]
	check deb_gpu_trainer_there bash -c 'dpkg-deb -c "$1" | grep -q " ./usr/bin/campaign-trainer-gpu$"' _ \
		"$SCRATCH/deb/campaign-gpu_${version}_$arch.deb"
else
	check deb_no_gpu_package_without_cuda [ -z "$(ls "$SCRATCH"/deb/campaign-gpu_* 2>/dev/null)" ]
fi
[ -s "$deb" ] || exit 1
dpkg-deb -c "$deb" | awk '{ print $6 }' | sed 's|^\./|/|' >contents.txt
missing=""
for f in /usr/bin/campaign /usr/bin/campaign-analyze /usr/bin/campaign-trainer /usr/bin/campaign-monitor \
	/usr/share/campaign/templates/job.sbatch /usr/share/campaign/templates/aggregate.sbatch \
	/usr/share/campaign/kernel_rules.txt /usr/share/campaign/phase_rules.txt \
	/usr/share/man/man1/campaign.1.gz /usr/share/man/man1/campaign-analyze.1.gz \
	/usr/share/bash-completion/completions/campaign /usr/share/zsh/vendor-completions/_campaign \
	"/usr/share/modulefiles/campaign/$version.lua" /etc/lmod/modules/campaign \
	/usr/share/doc/campaign/copyright /usr/share/doc/campaign/README.md.gz \
	/usr/share/doc/campaign/examples/local-demo.yaml /usr/share/doc/campaign/examples/ddp_train.py; do
	grep -qx "$f" contents.txt || missing="$missing $f"
done
check deb_contents bash -c '[ -z "$1" ] || { echo "not in the package:$1"; exit 1; }' _ "$missing"
check deb_no_gpu_trainer_in_campaign bash -c '! grep -q "campaign-trainer-gpu" "$1"' _ contents.txt
depends=$(dpkg-deb -f "$deb" Depends)
check deb_depends_computed bash -c 'for p in libslurm libgit2 libyaml libpcre2 libsqlite3 libjansson \
	libyajl libsimdjson libgloo libopenblas; do [[ "$1" == *"$p"* ]] || exit 1; done' _ "$depends"
check deb_depends_gnuplot bash -c '[[ "$1" == *"gnuplot-nox | gnuplot"* ]]' _ "$depends"

# --- lintian: no error or warning that debian/*.lintian-overrides does not explain, and no
# override left that matches nothing (--show-overrides would count the overridden as failing)
lintian --fail-on error,warning --display-info "$SCRATCH"/deb/*.deb >lintian.out 2>&1
rc=$?
grep -v "running with root privileges" lintian.out | sed 's/^/  lintian: /'
check lintian_clean [ "$rc" -eq 0 ]
check lintian_overrides_all_used bash -c '! grep -qE "unused-override|mismatched-override" "$1"' _ lintian.out

# --- the demo from the installed files only: the package extracted into a scratch root,
# run from a folder outside the tree with a bare environment (no CAMPAIGN_* variable)
R=$SCRATCH/root
dpkg-deb -x "$deb" "$R"
# a mark in the installed template: the job scripts must be rendered from it
echo "# rendered from the packaged template" >>"$R/usr/share/campaign/templates/job.sbatch"
mkdir -p demo home
# the packaged example is the tree's demo (demo_run.sh runs that whole); here its three
# scenarios run with a smaller model and fewer steps (2 CPU seconds, not 20): what is checked is
# where the installed campaign finds its files, not the training
E=$R/usr/share/doc/campaign/examples/local-demo.yaml
check installed_demo_example_is_the_demo cmp -s "$E" "$ROOT/campaigns/local-demo.yaml"
sed -e 's/warmup_steps: 5/warmup_steps: 1/' -e 's/active_steps: 30/active_steps: 3/' \
	-e 's/hidden: "768"/hidden: "64"/' -e 's/batch_per_rank: "64"/batch_per_rank: "8"/' "$E" >"$E.small"
check installed_demo_example_made_small bash -c '[ "$(diff "$1" "$1.small" | grep -c "^>")" = 4 ]' _ "$E"
(cd demo && env -i HOME="$SCRATCH/home" PATH="$R/usr/bin:/usr/bin:/bin" LANG=C.UTF-8 \
	campaign submit --wait --backend local "$E.small") >demo.out 2>&1
rc=$?
tail -n 4 demo.out
run=$(rundir demo.out)
[ "$rc" -eq 0 ] || [ -z "$run" ] || failed_run_said "$run"
check installed_demo_ran [ "$rc" -eq 0 ] && [ -s "$run/BOTTLENECK_ANALYSIS.md" ]
check installed_demo_in_cwd_results [ "${run#"$SCRATCH/demo/results/local-demo/"}" != "$run" ]
check installed_demo_figures bash -c 'ls "$1"/figures/*.svg >/dev/null' _ "$run"
check installed_demo_packaged_template grep -qx "# rendered from the packaged template" "$run/gloo-1n/job.sbatch"
check installed_demo_packaged_binaries grep -q "$R/usr/bin/campaign-trainer" "$run/gloo-1n/job.sbatch"
check installed_demo_nothing_from_tree bash -c '! grep -rlF "$1" "$2"' _ "$ROOT" "$run"
# without its templates the installed campaign says so, never finding the tree's
mv "$R/usr/share/campaign/templates" "$R/usr/share/campaign/templates.off"
(cd "$ROOT" && env -i HOME="$SCRATCH/home" PATH="$R/usr/bin:/usr/bin:/bin" \
	campaign render --out "$SCRATCH/render" campaigns/local-demo.yaml) >render.out 2>&1
rc=$?
mv "$R/usr/share/campaign/templates.off" "$R/usr/share/campaign/templates"
check installed_no_tree_templates bash -c '[ "$1" -ne 0 ] && grep -q "cannot find templates/job.sbatch" "$2"' _ "$rc" render.out

# --- Lmod, as the package installs it: its files over /usr and /etc/lmod (overlays in a
# mount namespace of this script's own), Debian's lmod with its default MODULEPATH, a
# login shell with a bare environment
# shellcheck disable=SC2016
lmod_pkg='before=$PATH
module load campaign || exit 1
echo "which=$(command -v campaign)"
echo "version=$(campaign --version)"
echo "man=$(man -w campaign)"
echo "avail=$(module -t avail campaign 2>&1 | tr "\n" " ")"
echo "results=${CAMPAIGN_RESULTS-unset}"
module unload campaign
[ "$PATH" = "$before" ] && echo path_restored'
if [ "$(id -u)" != 0 ] || [ ! -d /etc/lmod/modules ] || ! unshare -m true 2>/dev/null; then
	skip lmod_package "needs root, Debian's lmod and a mount namespace (unshare -m) to lay the package over /usr"
else
	unshare -m bash -c 'mount -t overlay overlay -o "lowerdir=$1/usr:/usr" /usr &&
		mount -t overlay overlay -o "lowerdir=$1/etc/lmod:/etc/lmod" /etc/lmod &&
		env -i HOME="$2" USER=tester TERM=dumb bash -lc "$3"' _ "$R" "$SCRATCH/home" "$lmod_pkg" \
		>lmod_pkg.out 2>&1
	sed 's/^/  lmod (package): /' lmod_pkg.out
	check lmod_package_loads grep -qx "which=/usr/bin/campaign" lmod_pkg.out
	check lmod_package_version grep -qx "version=campaign $version" lmod_pkg.out
	check lmod_package_man grep -qx "man=/usr/share/man/man1/campaign.1.gz" lmod_pkg.out
	check lmod_package_avail grep -q "^avail=.*campaign/$version" lmod_pkg.out
	check lmod_package_sets_no_results grep -qx "results=unset" lmod_pkg.out
	check lmod_package_unload_path grep -qx path_restored lmod_pkg.out
fi

# --- Lmod, a site's own prefix: `make install PREFIX=` writes the modulefile from
# lmod/campaign.lua.in; `module use` its folder in a clean login shell
if [ ! -f /usr/share/lmod/lmod/init/bash ]; then
	skip lmod_site "Debian's lmod is not installed (make check-packaging installs it)"
	exit 0
fi
S=$SCRATCH/site
make -s -C "$ROOT" install PREFIX="$S" >install.out 2>&1
check lmod_site_installed [ -f "$S/share/modulefiles/campaign/$version.lua" ]
# shellcheck disable=SC2016
lmod_site='before=$PATH before_man=${MANPATH-unset}
module use "$1/share/modulefiles"
module load campaign || exit 1
echo "which=$(command -v campaign)"
echo "version=$(campaign --version)"
echo "man=$(man -w campaign)"
echo "completion=$(for d in ${XDG_DATA_DIRS//:/ }; do f=$d/bash-completion/completions/campaign; [ -f "$f" ] && { echo "$f"; break; }; done)"
echo "results=${CAMPAIGN_RESULTS-unset}"
module unload campaign
[ "$PATH" = "$before" ] && echo path_restored
# (once Lmod has edited MANPATH it writes the empty entry, the system path, as "::")
[ "$(echo "${MANPATH-unset}" | tr -s :)" = "$(echo "$before_man" | tr -s :)" ] && echo manpath_restored
echo "results_after=${CAMPAIGN_RESULTS-unset}"'
site() { env -i HOME="$SCRATCH/home" USER=tester TERM=dumb bash -lc "$lmod_site" _ "$S" >"$1" 2>&1; }
site lmod_site.out
sed 's/^/  lmod (site): /' lmod_site.out
check lmod_site_path grep -qx "which=$S/bin/campaign" lmod_site.out
check lmod_site_version grep -qx "version=campaign $version" lmod_site.out
check lmod_site_man grep -qx "man=$S/share/man/man1/campaign.1" lmod_site.out
check lmod_site_completion grep -qx "completion=$S/share/bash-completion/completions/campaign" lmod_site.out
check lmod_site_sets_no_results grep -qx "results=unset" lmod_site.out
check lmod_site_unload_path grep -qx path_restored lmod_site.out
check lmod_site_unload_manpath grep -qx manpath_restored lmod_site.out
# the site's file, when there is one, sets the results root; unload takes it away
mkdir -p "$S/etc/campaign"
sed 's|"/scratch"|"/tmp/site-scratch"|' "$ROOT/lmod/lmod-site.lua.example" >"$S/etc/campaign/lmod-site.lua"
site lmod_site_file.out
sed 's/^/  lmod (site file): /' lmod_site_file.out
check lmod_site_file_results grep -qx "results=/tmp/site-scratch/tester/campaign-results" lmod_site_file.out
check lmod_site_file_unload grep -qx "results_after=unset" lmod_site_file.out
