# campaign: the only build entry. `make` builds bin/; `make check` installs
# what is missing, builds, and runs every test; `make demo` runs the demo.
# SPDX-License-Identifier: MIT
PREFIX    ?= /usr/local
CC        ?= cc
CXX       ?= c++
CUDA_HOME ?= /usr/local/cuda
NVCC      ?= $(CUDA_HOME)/bin/nvcc
OPT       ?= -O2 -g

DEB_PACKAGES := gcc g++ make pkg-config libyaml-dev libsqlite3-dev libjansson-dev \
                libpcre2-dev zlib1g-dev libgit2-dev libgloo-dev libopenblas-dev gnuplot-nox \
                libslurm-dev libssl-dev libyajl-dev libsimdjson-dev help2man clang python3 python3-torch \
                bsdutils linux-perf valgrind
# What each layer links: the analyzers need neither libslurm nor libgit2.
UTIL_PKGS := jansson
ANA_PKGS  := $(UTIL_PKGS) sqlite3 yajl libpcre2-8 zlib
PKGS      := $(ANA_PKGS) yaml-0.1 libgit2 libcrypto
# -Werror for developers (make check sets DEVELOPER=1), so that a user's newer
# compiler with new warnings cannot break `make`.
WARN      := -Wall -Wextra $(if $(DEVELOPER),-Werror,)
# CPPFLAGS, CFLAGS, CXXFLAGS and LDFLAGS are the user's (dpkg-buildflags' in the Debian package:
# hardening), added after the project's own.
CFLAGS_ALL = -std=c11 -D_GNU_SOURCE $(WARN) $(OPT) -pthread -I. -I$(B) $(CPPFLAGS) $(CFLAGS)
# pkg-config's answers, each asked once by a make that needs it (not once per compile: over
# a thousand calls in `make check`'s build), and never by one that does not (`make deps`):
# $(call once,CACHE,COMMAND) is COMMAND's output, run the first time only
once = $(if $(filter undefined,$(origin $(1))),$(eval $(1) := $$(shell $(2))))$($(1))
PKG_CFLAGS = $(call once,PC_CFLAGS,pkg-config --cflags $(PKGS) 2>/dev/null)
PKG_LIBS   = $(call once,PC_LIBS,pkg-config --libs $(PKGS) 2>/dev/null) -lsimdjson -lstdc++
ANA_LIBS   = $(call once,PC_ANA_LIBS,pkg-config --libs $(ANA_PKGS) 2>/dev/null) -lsimdjson -lstdc++
# campaign-analyze starts once per analysis (about 20 ms for a 10 MB trace): it links the C
# libraries from their Debian archives (.a) where installed, 0.45 ms less of dynamic loading
# per start; each one's shared library otherwise, and always with ANALYZE_SHARED=1 (the
# Debian package: a library's security update then reaches it). $(call archive,FILE,-lNAME)
archive    = $(or $(if $(ANALYZE_SHARED),,$(filter /%,$(shell $(CC) -print-file-name=$(1)))),$(2))
ANA_STATIC = $(call once,ANA_STATIC_LIBS,echo $(foreach l,jansson sqlite3 pcre2-8 z,\
             $(call archive,lib$(l).a,-l$(l))) $(call archive,libyajl_s.a,-lyajl)) \
             -lsimdjson -lstdc++
BLAS_CFLAGS = $(call once,PC_BLAS_CFLAGS,pkg-config --cflags openblas 2>/dev/null)
BLAS_LIBS   = $(call once,PC_BLAS_LIBS,pkg-config --libs openblas 2>/dev/null)

# Layers, each using only those before it: util -> analyzers -> orchestrator -> cli.
UTIL_SRC  := $(wildcard util/*.c)
# the util/ files that call libslurm (node lists, its configuration): never in what the
# analyzers link object by object
UTIL_SLURM_SRC := util/nodelist.c util/slurmconf.c
ANA_SRC   := $(filter-out analyzers/main.c,$(wildcard analyzers/*.c analyzers/read/*.c analyzers/write/*.c \
             analyzers/replay/*.c))
ANA_CXX   := $(wildcard analyzers/*.cc analyzers/read/*.cc)
ORCH_SRC  := $(wildcard orchestrator/*.c orchestrator/paper/*.c orchestrator/campaign/*.c orchestrator/store/*.c orchestrator/backend/*.c \
             orchestrator/job/*.c orchestrator/bisect/*.c)
CLI_SRC   := $(wildcard orchestrator/cli/*.c)
TRN_SRC   := $(filter-out trainer/gpu_main.c,$(wildcard trainer/*.c))
TRN_CXX   := $(wildcard trainer/*.cc)
UNIT_SRC  := $(wildcard tests/unit/test_*.c)

B := build
UTIL_OBJ  := $(UTIL_SRC:%.c=$(B)/%.o)
ANA_OBJ   := $(ANA_SRC:%.c=$(B)/%.o) $(ANA_CXX:%.cc=$(B)/%.o)
ORCH_OBJ  := $(ORCH_SRC:%.c=$(B)/%.o)
CLI_OBJ   := $(CLI_SRC:%.c=$(B)/%.o)
TRN_OBJ   := $(TRN_SRC:%.c=$(B)/%.o) $(TRN_CXX:%.cc=$(B)/%.o)

HAVE_CUDA := $(shell [ -x $(NVCC) ] && [ -f $(CUDA_HOME)/include/nccl.h ] && [ -f trainer/gpu_trainer.cu ] && echo yes)
BINS := bin/campaign bin/campaign-analyze bin/campaign-trainer bin/campaign-monitor
ifeq ($(HAVE_CUDA),yes)
BINS += bin/campaign-trainer-gpu
endif

.PHONY: all deps check-deps check check-sanitized unit e2e quick failed test demo bench fuzz install docs docs-keys \
	clean gpu-kit deb check-packaging hooks
all: $(BINS)

# What is missing, in one apt-get call (tests/tools/deps.sh, one caller at a time).
deps:
	@tests/tools/deps.sh "make deps" $(DEB_PACKAGES)
# make check's own: those, the Debian package's build tools (`make deb`'s) with lintian and
# Debian's Lmod for its test (tests/e2e/packaging_deb.sh), and, as root (the test clusters need
# it), SLURM's daemons and munge, installed here once, before any test lane starts.
SLURM_TEST_PACKAGES := slurmctld slurmd slurm-client munge
DEB_BUILD_PACKAGES  := build-essential debhelper dpkg-dev
PACKAGING_TEST_PACKAGES := $(DEB_BUILD_PACKAGES) lintian lmod
check-deps:
	@tests/tools/deps.sh "make deps" $(DEB_PACKAGES) $(PACKAGING_TEST_PACKAGES) \
	  $(if $(filter 0,$(shell id -u)),$(SLURM_TEST_PACKAGES))

$(B)/versions.h: orchestrator/versions.sh
	@mkdir -p $(B)
	@CC=$(CC) orchestrator/versions.sh $(CUDA_HOME) >$@.tmp && mv $@.tmp $@
$(B)/orchestrator/provenance.o: $(B)/versions.h

# The consumers of a verdict switch over its enums (verdicts, shares, bases,
# recommendation kinds; and write/ over the model's records) without default: a value one
# forgets is a compile error.
VERDICT_USERS := analyzers/verdict analyzers/write/evidence analyzers/advice analyzers/write/report \
	analyzers/write/share_text \
	analyzers/analysis analyzers/write/data_text analyzers/write/scaling_text \
	analyzers/write/prediction_check_text
$(VERDICT_USERS:%=$(B)/%.o) $(VERDICT_USERS:%=$(B)/asan/obj/%.o): WARN += -Wswitch-enum

# Long prose, one string macro per block (util/prose.awk): the report's
# (analyzers/write/prose.txt), the campaign keys' documentation
# (orchestrator/campaign/prose.txt) and each folder's long messages (its prose.txt)
$(B)/%/prose.h: %/prose.txt util/prose.awk
	@mkdir -p $(dir $@)
	awk -v guard=$(subst /,_,$(shell echo $* | tr a-z A-Z))_PROSE_H -f util/prose.awk $< >$@.tmp && mv $@.tmp $@
# (every folder's prose.txt: its .c and .cc files, in every build, wait for its prose.h)
PROSE_DIRS := $(patsubst %/prose.txt,%,$(wildcard */prose.txt */*/prose.txt))
define prose_users
$(foreach d,$(B) $(B)/asan/obj $(B)/tsan/obj $(B)/fuzz,$(patsubst %,$(d)/%.o,$(basename $(wildcard $(1)/*.c $(1)/*.cc)))): \
	$(B)/$(1)/prose.h
endef
$(foreach p,$(PROSE_DIRS),$(eval $(call prose_users,$(p))))

$(B)/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_ALL) $(PKG_CFLAGS) $(BLAS_CFLAGS) -MMD -MP -c $< -o $@

$(B)/%.o: %.cc
	@mkdir -p $(dir $@)
	$(CXX) -std=c++17 $(WARN) $(OPT) -pthread $(CPPFLAGS) $(CXXFLAGS) -MMD -MP -c $< -o $@

# simdjson's On-Demand API is compiled for one target: on x86-64, Haswell's
# (AVX2, BMI, PCLMUL, LZCNT); kineto.c calls it only on a CPU that has them.
SIMD_FLAGS := $(if $(filter x86_64,$(shell uname -m)),-mavx2 -mbmi -mpclmul -mlzcnt,)
$(ANA_CXX:%.cc=$(B)/%.o) $(ANA_CXX:%.cc=$(B)/asan/obj/%.o) $(ANA_CXX:%.cc=$(B)/fuzz/%.o): CXXFLAGS += $(SIMD_FLAGS)

$(B)/libutil.a: $(UTIL_OBJ)
	@rm -f $@; ar rcs $@ $^
$(B)/libanalyzers.a: $(ANA_OBJ)
	@rm -f $@; ar rcs $@ $^
$(B)/liborch.a: $(ORCH_OBJ)
	@rm -f $@; ar rcs $@ $^

# Linked in layer order; no group: nothing below calls up.
bin/campaign: $(CLI_OBJ) $(B)/liborch.a $(B)/libanalyzers.a $(B)/libutil.a
	@mkdir -p bin
	$(CC) $(CFLAGS_ALL) $(LDFLAGS) -o $@ $^ $(PKG_LIBS) -lslurm -lm

bin/campaign-analyze: $(B)/analyzers/main.o $(B)/libanalyzers.a $(B)/libutil.a
	@mkdir -p bin
	$(CC) $(CFLAGS_ALL) $(LDFLAGS) -o $@ $^ $(ANA_STATIC) -lm

MON_SRC := $(wildcard orchestrator/job/monitor/*.c) analyzers/read/gpucsv.c
bin/campaign-monitor: $(MON_SRC:%.c=$(B)/%.o)
	@mkdir -p bin
	$(CC) $(CFLAGS_ALL) $(LDFLAGS) -o $@ $^ -ldl -lm

bin/campaign-trainer: $(TRN_OBJ)
	@mkdir -p bin
	$(CXX) $(OPT) -pthread $(LDFLAGS) -o $@ $^ $(BLAS_LIBS) -L/usr/lib -lgloo -lstdc++ -lm

# The GPU trainer: its own binary, built only where CUDA and NCCL exist. It
# shares the loader, options and telemetry with the CPU trainer, and links
# neither gloo nor OpenBLAS (GPU nodes may lack them).
GPU_SHARED := $(B)/trainer/data.o $(B)/trainer/options.o $(B)/trainer/telemetry.o \
              $(B)/trainer/checkpoint.o $(B)/trainer/bucket_plan.o $(B)/trainer/fabric_probe.o \
              $(B)/trainer/trace.o
NVCC_ARCH  ?= -gencode arch=compute_80,code=sm_80 -gencode arch=compute_90,code=sm_90 \
              -gencode arch=compute_90,code=compute_90
$(B)/trainer/gpu_trainer.o: trainer/gpu_trainer.cu trainer/gpu.h trainer/rng.h trainer/bucket_plan.h
	@mkdir -p $(dir $@)
	$(NVCC) -O2 -std=c++17 $(NVCC_ARCH) -Xcompiler -Wall,-Wextra -I$(CUDA_HOME)/include -c $< -o $@
bin/campaign-trainer-gpu: $(B)/trainer/gpu_main.o $(B)/trainer/gpu_trainer.o $(GPU_SHARED)
	@mkdir -p bin
	$(CC) $(LDFLAGS) -o $@ $^ -L$(CUDA_HOME)/lib64 -Wl,-rpath,$(CUDA_HOME)/lib64 \
	  -lnccl -lcublas -lcudart -lstdc++ -ldl -lpthread -lm

# Unit tests run under AddressSanitizer + UndefinedBehaviorSanitizer (with gcc's, float casts
# out of range as well, which clang's -fsanitize=undefined has: the fuzz targets' replay
# links these objects).
SAN := -fsanitize=address,undefined,float-cast-overflow -fno-omit-frame-pointer -fno-sanitize-recover=all
LIB_SRC := $(UTIL_SRC) $(ANA_SRC) $(ORCH_SRC)
CLI_LIB_SRC := $(filter-out orchestrator/cli/main.c,$(CLI_SRC))
# The sources are compiled once with the sanitizers, into one archive: each test links what
# it calls (linking every object into each of them took 40% more CPU, binaries 6 times
# bigger).
ASAN_OBJ := $(LIB_SRC:%.c=$(B)/asan/obj/%.o) $(CLI_LIB_SRC:%.c=$(B)/asan/obj/%.o) $(ANA_CXX:%.cc=$(B)/asan/obj/%.o)
ASAN_LIB := $(B)/asan/obj/libcampaign.a
$(B)/asan/obj/%.o: %.c $(B)/versions.h
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_ALL) $(SAN) -O1 $(PKG_CFLAGS) -MMD -MP -c $< -o $@
$(B)/asan/obj/%.o: %.cc
	@mkdir -p $(dir $@)
	$(CXX) -std=c++17 $(WARN) -g $(SAN) -O1 -pthread $(CXXFLAGS) -MMD -MP -c $< -o $@
$(ASAN_LIB): $(ASAN_OBJ)
	@rm -f $@; ar rcs $@ $^
$(B)/asan/%: tests/unit/%.c $(ASAN_LIB) tests/unit/harness.h
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_ALL) $(SAN) -O1 $(PKG_CFLAGS) -o $@ $< $(UNIT_EXTRA) $(ASAN_LIB) $(PKG_LIBS) -lslurm -lm
# the trainer's trace writer, read back by the analysis' reader
$(B)/asan/test_trainer_trace: UNIT_EXTRA := $(B)/asan/obj/trainer/trace.o
$(B)/asan/test_trainer_trace: $(B)/asan/obj/trainer/trace.o
.SECONDARY: $(B)/asan/obj/trainer/trace.o
# the trainer's checkpoint writer, its trace read back by the analysis' reader
$(B)/asan/test_trainer_checkpoint: UNIT_EXTRA := $(B)/asan/obj/trainer/checkpoint.o $(B)/asan/obj/trainer/trace.o
$(B)/asan/test_trainer_checkpoint: $(B)/asan/obj/trainer/checkpoint.o $(B)/asan/obj/trainer/trace.o
.SECONDARY: $(B)/asan/obj/trainer/checkpoint.o

UNIT_BINS := $(UNIT_SRC:tests/unit/%.c=$(B)/asan/%)

# campaign-analyze under ThreadSanitizer (clang): a trace read in chunks on
# several threads, and a file's GPU view and steps side by side (tests/e2e/tsan.sh).
# (not util/userkey.c: the per-user key is the orchestrator's, and wants libcrypto linked)
TSAN_SRC := $(filter-out $(UTIL_SLURM_SRC) util/userkey.c,$(UTIL_SRC)) $(ANA_SRC) analyzers/main.c
TSAN_OBJ := $(TSAN_SRC:%.c=$(B)/tsan/obj/%.o) $(ANA_CXX:%.cc=$(B)/tsan/obj/%.o)
TSAN_FLAGS := -fsanitize=thread -fno-omit-frame-pointer -g -O1 -pthread
$(B)/tsan/obj/%.o: %.c $(B)/versions.h
	@mkdir -p $(dir $@)
	clang -std=c11 -D_GNU_SOURCE $(WARN) $(TSAN_FLAGS) -I. -I$(B) $(PKG_CFLAGS) -MMD -MP -c $< -o $@
$(B)/tsan/obj/%.o: %.cc
	@mkdir -p $(dir $@)
	clang++ -std=c++17 $(WARN) $(TSAN_FLAGS) $(CXXFLAGS) -MMD -MP -c $< -o $@
$(B)/tsan/campaign-analyze: $(TSAN_OBJ)
	clang $(TSAN_FLAGS) -o $@ $(TSAN_OBJ) $(ANA_LIBS) -lm
.SECONDARY: $(TSAN_OBJ)
.SECONDARY: $(ASAN_OBJ) # kept between builds, not removed as intermediates

# libFuzzer targets (clang): the loaders built once with the fuzzer's coverage
# and ASan + UBSan, each target linked with -fsanitize=fuzzer. `make fuzz` runs
# each for FUZZ_SECONDS. `make check` replays tests/fuzz/corpus/ and the seeds
# (tests/e2e/fuzz_replay.sh) through the same targets linked with a replay driver
# (tests/fuzz/replay_main.c) against the unit tests' ASan + UBSan archive (gcc):
# the library is not compiled a second time for it.
FUZZ_NAMES := campaign jsonl kineto csv chunks inspector run_input
FUZZ_BINS  := $(FUZZ_NAMES:%=$(B)/fuzz/fuzz_%)
REPLAY_BINS := $(FUZZ_NAMES:%=$(B)/replay/fuzz_%)
$(B)/replay/fuzz_%: tests/fuzz/fuzz_%.c tests/fuzz/replay_main.c $(ASAN_LIB)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_ALL) $(SAN) -O1 $(PKG_CFLAGS) -o $@ $< tests/fuzz/replay_main.c $(ASAN_LIB) \
	  $(PKG_LIBS) -lslurm -lm
FUZZ_SRC   := $(LIB_SRC)
FUZZ_OBJ   := $(FUZZ_SRC:%.c=$(B)/fuzz/%.o) $(ANA_CXX:%.cc=$(B)/fuzz/%.o)
FUZZ_FLAGS := -std=c11 -D_GNU_SOURCE $(WARN) -g -O1 -pthread -I. -I$(B) -fsanitize=address,undefined \
              -fno-sanitize-recover=all -fno-omit-frame-pointer
FUZZ_SECONDS ?= 600
.SECONDARY: $(FUZZ_OBJ) # kept between builds, not removed as intermediates
$(B)/fuzz/%.o: %.c $(B)/versions.h
	@mkdir -p $(dir $@)
	clang $(FUZZ_FLAGS) -fsanitize=fuzzer-no-link $(PKG_CFLAGS) -MMD -MP -c $< -o $@
$(B)/fuzz/%.o: %.cc
	@mkdir -p $(dir $@)
	clang++ -std=c++17 $(WARN) -g -O1 -pthread -fsanitize=address,undefined -fno-sanitize-recover=all \
	  -fno-sanitize=vptr,function -fno-omit-frame-pointer -fsanitize=fuzzer-no-link $(CXXFLAGS) -MMD -MP -c $< -o $@
$(B)/fuzz/fuzz_%: tests/fuzz/fuzz_%.c $(FUZZ_OBJ)
	clang $(FUZZ_FLAGS) -fsanitize=fuzzer $(PKG_CFLAGS) -o $@ $< $(FUZZ_OBJ) \
	  $(PKG_LIBS) -lslurm -lm

fuzz: deps
	@$(MAKE) --no-print-directory $(FUZZ_BINS)
	@tests/fuzz/run.sh $(FUZZ_SECONDS) $(FUZZ_NAMES)

JOBS ?= $(shell nproc 2>/dev/null || echo 2)
check: check-deps
	@$(MAKE) --no-print-directory -j$(JOBS) DEVELOPER=1 all $(UNIT_BINS) $(REPLAY_BINS) $(B)/tsan/campaign-analyze
	@tests/run.sh $(UNIT_BINS)

# Parts of the suite (one test alone: `make test T=NAME`, below): the unit tests
# alone; every end-to-end script; the quick ones (under a minute: command line,
# broken campaigns, layout, hostile inputs, traces); the scripts that failed in
# the last run.
QUICK_SCRIPTS := cli corpus layout render_quoting analyze_malformed_inputs reader_malformed_traces \
                 fsio_safe_writes analyze_hta_reference analyze_mini_fixture bounds
unit: deps
	@$(MAKE) --no-print-directory -j$(JOBS) DEVELOPER=1 $(UNIT_BINS)
	@E2E=0 tests/run.sh $(UNIT_BINS)
e2e: check-deps
	@$(MAKE) --no-print-directory -j$(JOBS) DEVELOPER=1 all $(REPLAY_BINS) $(B)/tsan/campaign-analyze
	@tests/run.sh
quick: deps
	@$(MAKE) --no-print-directory -j$(JOBS) DEVELOPER=1 all $(UNIT_BINS)
	@TEST_SCRIPTS="$(QUICK_SCRIPTS)" tests/run.sh $(UNIT_BINS)
failed: check-deps
	@$(MAKE) --no-print-directory -j$(JOBS) DEVELOPER=1 all $(UNIT_BINS) $(REPLAY_BINS) $(B)/tsan/campaign-analyze
	@if [ -s build/tests-failed.txt ]; then TEST_SCRIPTS="$$(tr '\n' ' ' <build/tests-failed.txt)" E2E=1 tests/run.sh; \
	 else echo "make failed: no failed script recorded (build/tests-failed.txt); 0 passed, 0 failed"; fi

# One test by name, built and run through tests/run.sh: `make test T=analysis` (or
# T=test_analysis: tests/unit/test_analysis.c under ASan + UBSan), `make test T=faults`
# (tests/e2e/faults.sh); a name that matches nothing lists the near ones (tests/tools/test_name.sh).
test:
	@set -e; what=$$(tests/tools/test_name.sh "$(T)") || exit 2; set -- $$what; \
	if [ "$$1" = unit ]; then \
		$(MAKE) --no-print-directory deps; \
		$(MAKE) --no-print-directory -j$(JOBS) DEVELOPER=1 $$2; E2E=0 tests/run.sh $$2; \
	else \
		case "$$2" in fuzz_replay) extra="$(REPLAY_BINS)" ;; tsan) extra=$(B)/tsan/campaign-analyze ;; *) extra= ;; esac; \
		$(MAKE) --no-print-directory check-deps; \
		$(MAKE) --no-print-directory -j$(JOBS) DEVELOPER=1 all $$extra; TEST_SCRIPTS=$$2 tests/run.sh; \
	fi

# The Debian packages (debian/), built with dpkg-buildpackage in a copy of the tree:
# build/deb/campaign_<version>_<arch>.deb, and campaign-gpu's where CUDA is (tests/tools/deb.sh).
# What it installs first: the build tools, then what debian/control's Build-Depends lists and
# dpkg-checkbuilddeps finds missing.
deb:
	@tests/tools/deps.sh "make deb" $(DEB_BUILD_PACKAGES)
	@tests/tools/deps.sh "make deb" $$(dpkg-checkbuilddeps 2>&1 | \
	  sed -n 's/^dpkg-checkbuilddeps: error: Unmet build dependencies: //p' | sed 's/([^)]*)//g')
	@$(MAKE) --no-print-directory bin/campaign
	@HAVE_CUDA=$(HAVE_CUDA) DEB_JOBS=$(JOBS) tests/tools/deb.sh build/deb
# The package built, linted, installed into a scratch root and run; its Lmod module loaded.
check-packaging:
	@tests/tools/deps.sh "make deps" $(DEB_PACKAGES) $(PACKAGING_TEST_PACKAGES)
	@$(MAKE) --no-print-directory -j$(JOBS) DEVELOPER=1 all
	@TEST_SCRIPTS=packaging_deb tests/run.sh

# The whole suite with sanitizer-built binaries (slower; not part of check).
check-sanitized: check-deps
	@tests/sanitized.sh

demo: deps
	@$(MAKE) --no-print-directory all
	@tests/demo.sh

BENCH_BINS := $(B)/bench/gemm_bare $(B)/bench/allreduce_bare $(B)/bench/simdjson_floor \
              $(B)/bench/replay_bench $(B)/bench/wall
# A command's wall time and peak RSS, the timer's own start not counted.
$(B)/bench/wall: tests/bench/wall.c
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_ALL) -o $@ $<
$(B)/bench/gemm_bare: tests/bench/gemm_bare.c
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_ALL) $(BLAS_CFLAGS) -o $@ $< $(BLAS_LIBS)
$(B)/bench/allreduce_bare: tests/bench/allreduce_bare.c $(B)/trainer/gloo_shim.o
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_ALL) -c -o $(B)/bench/allreduce_bare.o $<
	$(CXX) -pthread -o $@ $(B)/bench/allreduce_bare.o $(B)/trainer/gloo_shim.o -L/usr/lib -lgloo -lstdc++ -lm

# The replay's simulator on a random graph of 10^6 nodes (tests/unit/replay_gen.h).
$(B)/bench/replay_bench: tests/bench/replay_bench.c tests/unit/replay_gen.h $(B)/libanalyzers.a $(B)/libutil.a
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_ALL) -o $@ $< $(B)/libanalyzers.a $(B)/libutil.a $(ANA_LIBS) -lm

# The reader's floor: simdjson's bare On-Demand walk, compiled as the reader's shim is.
$(B)/bench/simdjson_floor: tests/bench/simdjson_floor.cc
	@mkdir -p $(dir $@)
	$(CXX) -std=c++17 $(WARN) $(OPT) $(SIMD_FLAGS) -o $@ $< -lsimdjson

bench: deps
	@$(MAKE) --no-print-directory all $(BENCH_BINS)
	@tests/bench.sh

# For a lent GPU machine without Debian's packages: the libraries bin/ loads
# (tests/gpu/kit.sh; tests/gpu/on_device.sh runs issue 27's checks there).
gpu-kit: all
	@tests/gpu/kit.sh

# The man pages and the shell completions: campaign's written by campaign itself from its
# command table (orchestrator/cli/docgen.c), the other binaries' by help2man from their --help.
# (Each through a file of its own: two `make install`s of the tests may write them side by side.)
MANS := $(B)/doc/campaign.1 $(patsubst bin/%,$(B)/doc/%.1,$(filter bin/campaign-%,$(BINS)))
DOCS := $(MANS) $(B)/doc/campaign.bash $(B)/doc/_campaign
docs: $(DOCS)
$(B)/doc/campaign.1: bin/campaign
	@mkdir -p $(dir $@)
	bin/campaign help --man >$@.tmp.$$$$ && mv $@.tmp.$$$$ $@
MAN_WHAT_analyze     := the analyzers of campaign, on a run or on any profiler traces
MAN_WHAT_monitor     := the node monitor of campaign's jobs (CPU, memory, GPUs)
MAN_WHAT_trainer     := campaign's reference data-parallel workload on CPUs (gloo)
MAN_WHAT_trainer-gpu := campaign's reference data-parallel workload on GPUs (CUDA, NCCL)
$(B)/doc/campaign-%.1: bin/campaign-% bin/campaign
	@mkdir -p $(dir $@)
	help2man -N --no-discard-stderr -n "$(MAN_WHAT_$*)" -S campaign \
	  --version-string="$$(bin/campaign --version | cut -d' ' -f2)" ./$< >$@.tmp.$$$$ && mv $@.tmp.$$$$ $@
$(B)/doc/campaign.bash: bin/campaign
	@mkdir -p $(dir $@)
	bin/campaign help --completion bash >$@.tmp.$$$$ && mv $@.tmp.$$$$ $@
$(B)/doc/_campaign: bin/campaign
	@mkdir -p $(dir $@)
	bin/campaign help --completion zsh >$@.tmp.$$$$ && mv $@.tmp.$$$$ $@

# The Lmod modulefile, from lmod/campaign.lua.in: installed as MODULEFILESDIR/campaign/<version>.lua
# (`module use MODULEFILESDIR; module load campaign`); it reads SYSCONFDIR/campaign/lmod-site.lua
# when a site has one (docs/install.md).
MODULEFILESDIR ?= $(PREFIX)/share/modulefiles
SYSCONFDIR     ?= $(if $(filter /usr,$(PREFIX)),/etc,$(PREFIX)/etc)

# The commit-msg hook of .githooks/ (subjects of at most 72 characters): once per clone.
hooks:
	git config core.hooksPath .githooks

# docs/campaign-format.md's key tables, written by campaign from the loader's key tables
# (campaign help --keys, orchestrator/campaign/load_doc.c) and its placeholder table
# (campaign help --placeholders, orchestrator/campaign/builtins.c); tests/e2e/cli.sh fails
# while the file holds other ones.
docs-keys: all
	@python3 tests/tools/doc_keys.py bin/campaign docs/campaign-format.md

install: all $(DOCS)
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/share/campaign/templates \
	  $(DESTDIR)$(PREFIX)/share/man/man1 $(DESTDIR)$(PREFIX)/share/bash-completion/completions \
	  $(DESTDIR)$(PREFIX)/share/zsh/vendor-completions $(DESTDIR)$(MODULEFILESDIR)/campaign
	install -m 755 $(BINS) $(DESTDIR)$(PREFIX)/bin/
	install -m 644 templates/* $(DESTDIR)$(PREFIX)/share/campaign/templates/
	install -m 644 analyzers/kernel_rules.txt analyzers/phase_rules.txt $(DESTDIR)$(PREFIX)/share/campaign/
	install -m 644 $(MANS) $(DESTDIR)$(PREFIX)/share/man/man1/
	install -m 644 $(B)/doc/campaign.bash $(DESTDIR)$(PREFIX)/share/bash-completion/completions/campaign
	install -m 644 $(B)/doc/_campaign $(DESTDIR)$(PREFIX)/share/zsh/vendor-completions/_campaign
	v=$$(bin/campaign --version | cut -d' ' -f2) && \
	  sed -e "s|@VERSION@|$$v|g" -e 's|@PREFIX@|$(PREFIX)|g' -e 's|@SYSCONFDIR@|$(SYSCONFDIR)|g' \
	    lmod/campaign.lua.in >$(DESTDIR)$(MODULEFILESDIR)/campaign/$$v.lua && \
	  chmod 644 $(DESTDIR)$(MODULEFILESDIR)/campaign/$$v.lua

clean:
	rm -rf $(B) bin

-include $(shell find $(B) -name '*.d' 2>/dev/null)
