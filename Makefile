# SPDX-License-Identifier: GPL-2.0
# Entry points; 'make help' says what each is for.  BASE=7.2 (default) is
# the series posted upstream, BASE=6.12 the stable backport
# (backport/6.12/); perf is build/perf/perf and build/6.12/perf/perf.

BASE ?= 7.2
SCENARIO ?= trace-summary
RUNS ?= 1
export BASE

.PHONY: build check demo bench series series-proof tip checkpatch torture regression \
	edit writeback roundtrip move-pin help clean

# the first target: plain 'make' builds
build:
	@scripts/build.sh

help:
	@echo "make [BASE=7.2|6.12] TARGET; BASE=7.2 (default) is the upstream series, 6.12 the backport"
	@echo "  build         fetch and check the pinned base, assemble it with the series, build perf"
	@echo "  check         build if needed and run the series' tests (RUNS=N [LOAD=1]: N times, loaded)"
	@echo "  demo          build and run the headline demo"
	@echo "  bench         run a benchmark scenario (SCENARIO=name, scripts/bench/)"
	@echo "  series        export the series for posting: build/series/NN-name/, one dir per series"
	@echo "  series-proof  git am the export onto the pristine base, compare, build every prefix"
	@echo "  tip           git am the upstream series onto the newest upstream reachable and build"
	@echo "  checkpatch    checkpatch.pl --strict of the base on every exported patch"
	@echo "  torture       bad input, unprivileged use, kills, ^C, concurrent sessions (TORTURE=--quick)"
	@echo "  regression    the base's own perf tests that pass without the series pass with it"
	@echo "  edit          a git tree of the series to edit: build/edit (one commit per patch)"
	@echo "  writeback     write build/edit back into tools/ and patches/"
	@echo "  roundtrip     prove edit + writeback is exact"
	@echo "  move-pin      move the base's pin to the newest version Debian serves (VERSION=...)"
	@echo "  clean         remove build/"

check: build
ifeq ($(RUNS),1)
	@scripts/test.sh
else
	@scripts/test.sh --loop $(RUNS) $(if $(filter 1,$(LOAD)),--load)
endif

demo:
	@scripts/demo.sh

bench: build
	@scripts/bench.sh $(SCENARIO)

series:
	@scripts/series.sh export

series-proof:
	@scripts/series.sh proof

tip:
	@scripts/series.sh tip

checkpatch:
	@scripts/series.sh checkpatch

torture:
	@scripts/torture.sh $(TORTURE)

regression:
	@scripts/regression.sh

edit:
	@scripts/tree.sh edit

writeback:
	@scripts/tree.sh writeback

roundtrip:
	@scripts/tree.sh roundtrip

move-pin:
	@scripts/base.sh move $(VERSION)

clean:
	rm -rf build
