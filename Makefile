# SPDX-License-Identifier: GPL-2.0
# Entry points.  The perf that everything uses is build/perf/perf.
#
#   make            build perf from the pinned base + tools/ + patches/
#   make check      build if needed, then run all tests (the README's test command)
#   make demo       build if needed, then run the headline demo
#   make bench [SCENARIO=name]   run a benchmark scenario (scripts/bench/)
#   make checkpatch checkpatch.pl --strict over every exported patch, sign-offs included
#   make series     export the series for posting or git am (build/series/)
#   make series-proof  git am the export onto the pristine base, compare with
#                   the assembled tree, build every prefix
#   make roundtrip  prove assemble + write back is exact
#   make regression the base's own perf tests that pass without the series
#   make check-loop [RUNS=20] [LOAD=1]  make check RUNS times in a row, as CI
#                   runs it; LOAD=1 with perf bench sched messaging looping
#   make torture    bad input, unprivileged use, SIGKILL, SIGINT and concurrent
#                   sessions for each feature (TORTURE=--quick: the CI bound)
#   make edit       git work tree of the assembled source in build/edit
#   make writeback  write build/edit back into tools/ and patches/
#   make clean      remove build/

SCENARIO ?= trace-summary
RUNS ?= 20

.PHONY: all build check check-loop demo bench checkpatch series series-proof torture roundtrip regression edit writeback clean

all: build

build:
	@scripts/build.sh

check: build
	@scripts/test.sh

check-loop: build
	@scripts/check-loop.sh $(if $(filter 1,$(LOAD)),--load) $(RUNS)

demo: build
	@scripts/demo.sh

bench: build
	@scripts/bench.sh $(SCENARIO)

checkpatch:
	@scripts/checkpatch.sh

series:
	@scripts/series.sh

series-proof:
	@scripts/series-proof.sh

roundtrip:
	@scripts/roundtrip.sh

torture: build
	@scripts/torture.sh $(TORTURE)

regression: build
	@scripts/regression.sh

edit:
	@scripts/edit-tree.sh

writeback:
	@scripts/writeback.sh

clean:
	rm -rf build
