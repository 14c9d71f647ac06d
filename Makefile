# MultiSet VPS — build, test, demo and benchmarks.
# `make demo` and `make test` are the two commands a newcomer needs (see README.md).

SWIFT        ?= swift
PYTHON       ?= python3
VENV         ?= .venv
BENCH_DATA   ?= bench/data
# Debian packages the build and tests need (C libraries arrive with the modules that use them).
DEB_PACKAGES ?= pkg-config zlib1g-dev libturbojpeg0-dev libpng-dev libopencv-dev libssl-dev libsqlite3-dev libpq-dev libmicrohttpd-dev python3-venv
SWIFT_FLAGS  ?=
# One CPU for the latency benchmarks that claim one core (empty where taskset is missing).
ONE_CORE     ?= $(shell command -v taskset >/dev/null 2>&1 && echo taskset -c 0)
# The tests' build: optimized, with testable imports, in its own scratch directory (the plain release build
# of the demo, benchmarks and evaluations stays as it is). Unoptimized, the localizer's and simulator's
# fixtures made `make test` take 75 min on 2 cores; optimized, a few minutes. The suites that start servers
# (hostile, cluster, browser) run this build's `multiset`.
TEST_BUILD   ?= --scratch-path .build/testing -c release -Xswiftc -enable-testing
TEST_BIN     ?= .build/testing/release

.PHONY: all deps build test test-asan test-postgres test-hostile test-browser test-cluster console-assets fuzz fuzz-build lint parse-apple format demo bench bench-solvers bench-features bench-mapfile bench-server bench-localize bench-jpeg bench-patches eval-motorcycle eval-calibration eval-real eval-seeds clean

all: build

## deps: install missing Debian packages (as root), or print the apt-get line and stop.
deps:
	@missing=""; for p in $(DEB_PACKAGES); do \
	  dpkg-query -W -f='$${Status}' $$p 2>/dev/null | grep -q "install ok installed" || missing="$$missing $$p"; \
	done; \
	if [ -n "$$missing" ]; then \
	  if [ "$$(id -u)" = 0 ]; then \
	    echo "installing:$$missing"; \
	    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $$missing; \
	  else \
	    echo "missing Debian packages; run:"; echo "  sudo apt-get install -y$$missing"; exit 1; \
	  fi; \
	fi

## build: the tests' build (optimized, testable) of every target and test, failing on any compiler warning.
build: SHELL := /bin/bash
build: deps
	@$(SWIFT) build --build-tests $(TEST_BUILD) $(SWIFT_FLAGS) 2>&1 | tee .build-log.txt | grep -E "error|warning:|Compiling|Build" | grep -v "^\[" ; \
	status=$${PIPESTATUS[0]}; \
	if grep -q "warning:" .build-log.txt; then echo "build: compiler warnings are errors here"; exit 1; fi; \
	exit $$status

## test: build, run every test, check formatting.
test: SHELL := /bin/bash
test: build
	@set -o pipefail; $(SWIFT) test --skip-build $(TEST_BUILD) $(SWIFT_FLAGS) --skip SDKEndToEndTests 2>&1 | tee .test-log.txt
	@# The SDK end-to-end tests run on their own: they drive a real server over a socket on real time,
	@# and two cores busy with the localizer's fixtures can starve their network callbacks.
	@set -o pipefail; $(SWIFT) test --skip-build $(TEST_BUILD) $(SWIFT_FLAGS) --filter SDKEndToEndTests 2>&1 | tee -a .test-log.txt
	$(MAKE) --no-print-directory parse-apple
	$(MAKE) --no-print-directory lint
	@# A plain closing line for CI: the Swift Testing totals of both runs.
	@n=$$(grep -oE "Test run with [0-9]+ tests?" .test-log.txt | grep -oE "[0-9]+" | awk '{s += $$1} END {print s}'); \
	f=$$(grep -cE "^✘ Test .* (failed|recorded an issue)" .test-log.txt || true); \
	echo "tests: $${n:-0} passed, $${f:-0} failed"

## test-asan: every test on an optimized build under AddressSanitizer (.build/asan; ~10 min to build and
## ~15 to run on 2 cores): heap and stack overruns in our Swift, our C shims and what they hand to the
## C libraries. Not in `.ci/run` (its real-time suites are slower there); run it after touching unsafe code.
ASAN_BUILD ?= --scratch-path .build/asan -c release -Xswiftc -enable-testing -Xswiftc -sanitize=address
test-asan: SHELL := /bin/bash
test-asan: deps
	$(SWIFT) build --build-tests $(ASAN_BUILD)
	@set -o pipefail; ASAN_OPTIONS=detect_leaks=0 $(SWIFT) test --skip-build $(ASAN_BUILD) --skip SDKEndToEndTests 2>&1 | tee .test-asan-log.txt
	@set -o pipefail; ASAN_OPTIONS=detect_leaks=0 $(SWIFT) test --skip-build $(ASAN_BUILD) --filter SDKEndToEndTests 2>&1 | tee -a .test-asan-log.txt

lint:
	$(SWIFT) format lint --strict --recursive Sources Tests Package.swift Apps Fuzz/Package.swift Fuzz/Sources

## parse-apple: the Apple-only files (SwiftUI, ARKit, RealityKit, ImageIO, Security) cannot be compiled on
## Linux; they must at least parse (inactive #if branches included).
APPLE_SOURCES = $(shell find Sources/MultiSetSampleApp Apps -name '*.swift') $(shell grep -rl 'canImport(ImageIO)' Sources --include='*.swift')
parse-apple:
	@swiftc -parse $(APPLE_SOURCES) && echo "parse-apple: $(words $(APPLE_SOURCES)) Apple-only files parse"

## test-postgres: the store, build-job and cluster (blobs, secrets, rate limits) suites against PostgreSQL too (installs the Debian
## server package as root; each test starts a throwaway cluster with initdb/pg_ctl in /tmp, on a Unix
## socket only, run by the `postgres` user when we are root, and stops it). `make test` runs the same
## suites without PostgreSQL when it is not installed; here its absence is a failure.
test-postgres: deps
	@command -v /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1 || { [ "$$(id -u)" = 0 ] && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq postgresql; } || { echo "install PostgreSQL: sudo apt-get install -y postgresql"; exit 1; }
	$(SWIFT) build --build-tests $(TEST_BUILD) $(SWIFT_FLAGS)
	VPS_REQUIRE_POSTGRES=1 $(SWIFT) test --skip-build $(TEST_BUILD) $(SWIFT_FLAGS) --filter "StoreTests|BuildJobTests|ClusterTests|ClusterMapExtensionTests"

## test-hostile: the hostile-load suite (Tests/Hostile/hostile.py) on a release server: token flood, slow
## bodies, idle connections, pathological queries, kill -9 during upload and build, the CLI during a build,
## schemathesis --checks all; each asserting the numbers of docs/SECURITY.md. A few minutes.
HOSTILE_WORK ?= .build/hostile
$(VENV)/.hostile-ok: Tests/Hostile/requirements.txt
	$(PYTHON) -m venv $(VENV)
	$(VENV)/bin/pip install -q -r Tests/Hostile/requirements.txt
	touch $@

test-hostile: deps $(VENV)/.hostile-ok
	@command -v wrk >/dev/null || { [ "$$(id -u)" = 0 ] && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq wrk; } || { echo "install wrk: sudo apt-get install -y wrk"; exit 1; }
	$(SWIFT) build $(TEST_BUILD) --product multiset
	$(PYTHON) Tests/Hostile/hostile.py --multiset $(TEST_BIN)/multiset --work $(HOSTILE_WORK) --st $(VENV)/bin/st

## test-browser: the web console (/console) in headless Chromium from Debian driven by Selenium
## (Tests/Browser/browser.py): a server on loopback over a temporary data directory with two accounts, a
## capture built through the API and a 100,000-point map; sign-in (and a bad one), the map list, the viewer's
## pixels and frames per second (>= 20, printed), a keyframe's image, a curl query in the live list within
## 2 s, client management, and no leak between the accounts. Screenshots in $(BROWSER_WORK)/screenshots.
BROWSER_WORK ?= .build/browser
BROWSER_DEBS ?= chromium chromium-driver curl
$(VENV)/.browser-ok: Tests/Browser/requirements.txt
	$(PYTHON) -m venv $(VENV)
	$(VENV)/bin/pip install -q -r Tests/Browser/requirements.txt
	touch $@

test-browser: deps $(VENV)/.browser-ok
	@missing=""; for p in $(BROWSER_DEBS); do \
	  dpkg-query -W -f='$${Status}' $$p 2>/dev/null | grep -q "install ok installed" || missing="$$missing $$p"; \
	done; \
	if [ -n "$$missing" ]; then \
	  if [ "$$(id -u)" = 0 ]; then apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $$missing; \
	  else echo "install:$$missing (sudo apt-get install -y$$missing)"; exit 1; fi; \
	fi
	$(SWIFT) build $(TEST_BUILD) --product multiset $(SWIFT_FLAGS)
	$(VENV)/bin/python Tests/Browser/browser.py --multiset $(TEST_BIN)/multiset --work $(BROWSER_WORK)

## test-cluster: a throwaway cluster on loopback (Tests/Cluster/cluster.py): PostgreSQL from initdb/pg_ctl in a
## temporary directory, 3 `multiset serve --postgres`, 2 `multiset worker`, nginx with deploy/nginx/multiset.conf;
## a map uploaded through one server answers through the others, kill -9 of a worker mid-build (built once, by
## the other), kill -9 of a server under wrk load through nginx (0 failed queries), a rate limit across the
## servers within 10 %. Installs postgresql, nginx and wrk from Debian as root when missing. A few minutes.
CLUSTER_WORK ?= .build/cluster
CLUSTER_DEBS ?= postgresql nginx wrk
test-cluster: deps
	@missing=""; for p in $(CLUSTER_DEBS); do \
	  dpkg-query -W -f='$${Status}' $$p 2>/dev/null | grep -q "install ok installed" || missing="$$missing $$p"; \
	done; \
	if [ -n "$$missing" ]; then \
	  if [ "$$(id -u)" = 0 ]; then apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $$missing; \
	  else echo "install:$$missing (sudo apt-get install -y$$missing)"; exit 1; fi; \
	fi
	@# The Debian package may start its own nginx on port 80; the suite runs its own on a free port.
	$(SWIFT) build $(TEST_BUILD) --product multiset
	$(PYTHON) Tests/Cluster/cluster.py --multiset $(TEST_BIN)/multiset --work $(CLUSTER_WORK)

## console-assets: embed Console/ (the web console's HTML, CSS and ES modules) into the server binary
## (Sources/VPSServer/ConsoleAssets.swift); ConsoleAssetsTests fails while the embedded copy is stale.
console-assets:
	$(PYTHON) Console/embed.py

## fuzz: every libFuzzer target of Fuzz/ (multipart, query forms, JSON query, JPEG, PNG, map file with a valid
## CRC, COLMAP text and binary, captures.json) for FUZZ_SECONDS each, or FUZZ_RUNS executions each, under
## AddressSanitizer and LeakSanitizer; seeds in Fuzz/Corpus, new inputs in Fuzz/.corpus; a table at the end.
FUZZ_SECONDS ?= 60
FUZZ_RUNS    ?=
FUZZ_TARGETS ?= FuzzMultipart FuzzQueryForm FuzzJSONQuery FuzzJPEG FuzzPNG FuzzMapFile FuzzCOLMAPText FuzzCOLMAPBinary FuzzCaptures
FUZZ_FLAGS   ?= -c release -Xswiftc -sanitize=fuzzer,address -Xswiftc -parse-as-library -Xswiftc -enable-testing -Xswiftc -use-ld=lld

fuzz-build: deps
	@# Product by product: a plain `swift build` would also build the main package's executable with these flags.
	cd Fuzz && for t in $(FUZZ_TARGETS); do $(SWIFT) build $(FUZZ_FLAGS) --product $$t || exit 1; done

fuzz: fuzz-build
	FUZZ_SECONDS=$(FUZZ_SECONDS) FUZZ_RUNS=$(FUZZ_RUNS) bash Fuzz/run.sh $(FUZZ_TARGETS)

format:
	$(SWIFT) format --in-place --recursive Sources Tests Package.swift Apps

## demo: the main job on the embedded default.
demo: deps
	$(SWIFT) run -c release multiset demo

## bench: every benchmark (ratios against reference peers measured in the same run).
bench: bench-solvers bench-features bench-mapfile bench-server bench-localize bench-jpeg bench-patches

$(VENV)/.ok: bench/requirements.txt
	$(PYTHON) -m venv $(VENV)
	$(VENV)/bin/pip install -q -r bench/requirements.txt
	touch $@

## bench-solvers: our LO-RANSAC vs poselib, pycolmap and OpenCV on identical correspondence sets.
bench-solvers: deps $(VENV)/.ok
	mkdir -p $(BENCH_DATA)/solvers bench/results
	$(VENV)/bin/python bench/solvers/generate.py --out $(BENCH_DATA)/solvers
	$(SWIFT) build -c release --product multiset-bench
	$(SWIFT) run -c release --skip-build multiset-bench solvers --data $(BENCH_DATA)/solvers --out $(BENCH_DATA)/solvers/ours.json
	$(VENV)/bin/python bench/solvers/peers.py --data $(BENCH_DATA)/solvers --out $(BENCH_DATA)/solvers/peers.json --min-iterations 50
	$(VENV)/bin/python bench/solvers/report.py --inputs $(BENCH_DATA)/solvers/ours.json $(BENCH_DATA)/solvers/peers.json --out bench/results/solvers.json

## bench-features: our ORB extraction, brute-force matching and LSH index vs opencv-python on identical images;
## then the renderer's frames per second.
bench-features: deps $(VENV)/.ok
	mkdir -p $(BENCH_DATA)/features bench/results
	$(SWIFT) build -c release --product multiset-bench
	$(SWIFT) run -c release --skip-build multiset-bench features --data $(BENCH_DATA)/features --out $(BENCH_DATA)/features/ours.json
	$(VENV)/bin/python bench/features/peers.py --data $(BENCH_DATA)/features --out $(BENCH_DATA)/features/peers.json
	$(VENV)/bin/python bench/features/report.py --inputs $(BENCH_DATA)/features/ours.json $(BENCH_DATA)/features/peers.json --out bench/results/features.json
	@echo "renderer (VPSSimulation), 640x480, one thread:"
	$(SWIFT) run -c release --skip-build multiset-bench render --venue room --frames 120 --seed 1

## bench-localize: end-to-end query latency (960x720 JPEG in, pose out, one core) against a ~100k-point map,
## per stage, single and 4-frame; our pose stage vs pycolmap on the same correspondences; the whole query
## vs OpenCV (decode, ORB, brute-force 2-NN, ratio) + PoseLib on the same map and JPEGs (pipeline_peer.py).
## Ours runs pinned to one CPU (taskset, util-linux): its rival search and keypoint alignment otherwise use every core.
bench-localize: deps $(VENV)/.ok
	mkdir -p $(BENCH_DATA)/localize bench/results
	$(SWIFT) build -c release --product multiset-bench
	$(ONE_CORE) $(SWIFT) run -c release --skip-build multiset-bench localize --data $(BENCH_DATA)/localize --out $(BENCH_DATA)/localize/ours.json
	$(VENV)/bin/python bench/localize/peers.py --data $(BENCH_DATA)/localize --ours $(BENCH_DATA)/localize/ours.json --out bench/results/localize.json
	$(VENV)/bin/python bench/localize/pipeline_peer.py --matcher bf --data $(BENCH_DATA)/localize --ours $(BENCH_DATA)/localize/ours.json --out bench/results/localize-pipeline.json

## eval-calibration: confidence calibration on simulated venues (room ×3, corridor, twin rooms ×2; VPS-1, VPS-2,
## 4 frames): wrong answers among those with confidence ≥ 0.3 / ≥ 0.2 (SPEC §18.2 limits 1 % / 3 %).
eval-calibration: deps
	$(SWIFT) build -c release --product multiset
	bash bench/calibration/run.sh

## eval-real: leave-one-out on every scene of ../shared/data/real-dev (real photographs with true poses): VPS-1,
## VPS-2 and 4-frame queries beside the OpenCV + PoseLib baseline (bench/real/peer.py, ORB and SIFT) measured
## in the same run; writes bench/results/real.json and prints one table with the ratios and the issue's checks.
eval-real: deps $(VENV)/.ok
	$(SWIFT) build -c release --product multiset
	MULTISET=.build/release/multiset PYTHON=$(VENV)/bin/python bash bench/real/run.sh

## eval-seeds: the development scenes' leave-one-out VPS-1 over 40 seeds of the pose and competitor searches:
## how often each image is answered and wrong, and the spread of the median errors (bench/real/seeds.py).
eval-seeds: deps $(VENV)/.ok
	$(SWIFT) build -c release --product multiset
	$(VENV)/bin/python bench/real/seeds.py --scenes $(wildcard ../shared/data/real-dev/*/) --work $(BENCH_DATA)/seeds

## bench-jpeg: the SDK's pure-Swift JPEG encoder and decoder beside libjpeg-turbo on rendered 960x720 and
## 1920x1440 frames (one thread; ratio, size, PSNR through libjpeg-turbo's decoder); bench/results/jpeg.json.
bench-jpeg: deps
	$(SWIFT) build -c release --product multiset-bench-jpeg
	$(SWIFT) run -c release --skip-build multiset-bench-jpeg bench/results/jpeg.json

## bench-patches: keypoint alignment to reference patches (docs/EVALUATION.md): microseconds per template and per
## alignment on one core, and the aligned positions' error on seeded textured pairs of known warp.
bench-patches: deps
	$(SWIFT) build -c release --product multiset-bench
	$(SWIFT) run -c release --skip-build multiset-bench patches --json bench/results/patches.json

## bench-mapfile: map file load speed (target ≥ 200 MB/s).
bench-mapfile: deps
	$(SWIFT) build -c release --product multiset-bench
	$(SWIFT) run -c release --skip-build multiset-bench mapfile

## bench-server: single-frame queries/s against `multiset serve` on loopback (wrk; target ≥ 50/s, p99 ≤ 3× p50).
bench-server: deps
	@command -v wrk >/dev/null || { [ "$$(id -u)" = 0 ] && apt-get install -y -qq wrk; } || { echo "install wrk: sudo apt-get install -y wrk"; exit 1; }
	$(SWIFT) build -c release --product multiset
	bash bench/server/run.sh

## eval-motorcycle: real data (not part of `make test`): a map from the left view of the Middlebury 2014
## motorcycle pair (scikit-image's copy, 741x500) with its true disparity as depth; the right view localized
## against it; errors against the calibrated baseline (issue target: within 1 cm / 0.1°).
eval-motorcycle: deps $(VENV)/.ok
	mkdir -p $(BENCH_DATA)/motorcycle
	$(VENV)/bin/python bench/motorcycle.py --out $(BENCH_DATA)/motorcycle
	$(SWIFT) build -c release --product multiset
	$(SWIFT) run -c release --skip-build multiset eval-stereo --left $(BENCH_DATA)/motorcycle/left.png \
	  --right $(BENCH_DATA)/motorcycle/right.png --depth $(BENCH_DATA)/motorcycle/left-depth.pfm \
	  --calib $(BENCH_DATA)/motorcycle/calib.json --json $(BENCH_DATA)/motorcycle/result.json

clean:
	$(SWIFT) package clean
	rm -rf $(BENCH_DATA) .build-log.txt
