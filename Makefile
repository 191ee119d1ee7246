# SPDX-License-Identifier: GPL-2.0
# Entry points; 'make help' says what each is for.  perf is build/perf/perf.

SCENARIO ?= trace-summary
# make install: where perf's own 'make install' puts perf (its default: $HOME)
prefix ?= $(HOME)

.PHONY: build check demo install bench kernels series series-proof checkpatch regression \
	edit writeback roundtrip move-pin help clean

# the first target: plain 'make' builds
build:
	@scripts/build.sh

help:
	@echo "make TARGET"
	@echo "  build         fetch and check the pinned base, assemble it with the series, build perf"
	@echo "  check         build if needed and run the series' tests and upstream's for its features"
	@echo "  demo          build and run the headline demo"
	@echo "  install       build and install perf under prefix=DIR (default \$$HOME), as perf's own does"
	@echo "  bench         run a benchmark scenario (SCENARIO=name, scripts/bench/)"
	@echo "  kernels       boot Debian's kernels in qemu with perf and smoke every feature (KERNELS=6.1,7.2)"
	@echo "  series        export the series for posting: build/series/NN-name/, one dir per series"
	@echo "  series-proof  git am the export onto the pristine base, compare, build every prefix"
	@echo "  checkpatch    checkpatch.pl --strict of the base on every exported patch"
	@echo "  regression    the base's own perf tests that pass without the series pass with it"
	@echo "  edit          a git tree of the series to edit: build/edit (one commit per patch)"
	@echo "  writeback     write build/edit back into tools/ and patches/"
	@echo "  roundtrip     prove edit + writeback is exact"
	@echo "  move-pin      move the base's pin to the newest version Debian serves (VERSION=...)"
	@echo "  clean         remove build/"

check: build
	@scripts/test.sh

demo:
	@scripts/demo.sh

install:
	@scripts/build.sh --install "$(prefix)"

bench: build
	@scripts/bench.sh $(SCENARIO)

kernels: build
	@scripts/kernels/boot.sh

series:
	@scripts/series.sh export

series-proof:
	@scripts/series.sh proof

checkpatch:
	@scripts/series.sh checkpatch

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
