# Two commands do everything on a fresh machine: `make demo` and `make test`.
BUILD ?= build
JOBS ?= $(shell nproc)
BUILD_TYPE ?= RelWithDebInfo
CMAKE_FLAGS ?=
# ccache (installed by setup) serves the repeated compilations of one `make test`: the Python wheel and the
# FetchContent consumer build the library again; paths are made relative to the checkout so that hits survive a move.
CCACHE := $(shell command -v ccache 2>/dev/null)
LAUNCHER := $(if $(CCACHE),-DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
export CCACHE_BASEDIR := $(CURDIR)

.PHONY: all setup build demo docs test check python-check gpu-check soak sanitize fuzz bench clean
FUZZ_SECONDS ?= 60
SOAK_CASES ?= 2000000
SAN_FLAGS = -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined
# wgpu-native (Rust) and Mesa keep allocations for the life of the process: not our leaks. The Vulkan loader
# unloads the driver before LeakSanitizer looks, which leaves its stacks unattributable; preloading lavapipe keeps
# it mapped so that tests/lsan.supp can name it.
LVP := $(wildcard /usr/lib/x86_64-linux-gnu/libvulkan_lvp.so)
SAN_ENV = ASAN_OPTIONS=detect_leaks=1:abort_on_error=0 LSAN_OPTIONS=suppressions=$(CURDIR)/tests/lsan.supp \
          UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
          $(if $(LVP),LD_PRELOAD="$$(g++ -print-file-name=libasan.so) $(LVP)")

all: build

setup:
	@./scripts/setup.sh

$(BUILD)/CMakeCache.txt: | setup
	cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=$(BUILD_TYPE) $(LAUNCHER) $(CMAKE_FLAGS)

build: setup $(BUILD)/CMakeCache.txt
	cmake --build $(BUILD) -j $(JOBS)

# The demo needs the command line tool alone: the tests, examples and benchmarks build under `make test`/`make build`.
demo: setup $(BUILD)/CMakeCache.txt
	cmake --build $(BUILD) -j $(JOBS) --target wgprim_cli
	$(BUILD)/wgprim demo --plot-dir $(BUILD)

# The documentation site (docs/Doxyfile): the reference from include/wgprim/*.hpp and the guides in docs/*.md, into
# $(BUILD)/docs/html/index.html. Any Doxygen warning fails it (an undocumented public declaration, a broken
# reference), so that CI keeps the reference complete.
docs:
	@command -v doxygen >/dev/null || { echo "docs: doxygen is missing (make setup installs it)"; exit 1; }
	@mkdir -p $(BUILD)/docs
	{ cat docs/Doxyfile; echo 'OUTPUT_DIRECTORY = $(BUILD)/docs'; } | doxygen -
	@echo "docs: $(BUILD)/docs/html/index.html"

# The whole suite: docs (first: it takes seconds), GoogleTest suites, CLI, examples, package (check), then the same under ASan + UBSan
# (sanitize), then a short libFuzzer run of every harness (fuzz).
# Each stage's wall time is printed at the end (scripts/stages.sh), also when one fails.
test: setup
	@scripts/stages.sh docs '$(MAKE) --no-print-directory docs' \
	  build '$(MAKE) --no-print-directory build' \
	  ctest 'cd $(BUILD) && ctest --output-on-failure --timeout 1200 -j 1' \
	  python '$(MAKE) --no-print-directory python-check' \
	  sanitize '$(MAKE) --no-print-directory sanitize' \
	  fuzz '$(MAKE) --no-print-directory fuzz FUZZ_SECONDS=15'

# The suite alone, without the sanitizer build and the fuzzers (the quick loop while developing).
check: build
	cd $(BUILD) && ctest --output-on-failure --timeout 1200 -j 1
	$(MAKE) python-check

# The Python package: a venv under $(BUILD)/python with the pinned build and test tools (downloaded once into a
# wheelhouse that both venvs install from), the wheel built from this checkout (--no-build-isolation: no second
# download; ccache when present), python/tests against NumPy, then the wheel in a fresh venv with only NumPy.
PY_DIR := $(abspath $(BUILD))/python
PY_PINS := nanobind==2.9.2 scikit-build-core==0.11.6 numpy==2.4.6 pytest==8.4.2
python-check: setup
	@test -x $(PY_DIR)/venv/bin/python || python3 -m venv $(PY_DIR)/venv
	@test -f $(PY_DIR)/wheelhouse/.pins-$(word 1,$(shell echo '$(PY_PINS)' | md5sum)) || \
	  { $(PY_DIR)/venv/bin/pip download -q -d $(PY_DIR)/wheelhouse $(PY_PINS) && \
	    touch $(PY_DIR)/wheelhouse/.pins-$(word 1,$(shell echo '$(PY_PINS)' | md5sum)); }
	$(PY_DIR)/venv/bin/pip install -q --no-index --find-links $(PY_DIR)/wheelhouse $(PY_PINS)
	rm -rf $(PY_DIR)/dist
	CCACHE_BASEDIR=$(CURDIR) CMAKE_BUILD_PARALLEL_LEVEL=$(JOBS) \
	  $(if $(shell command -v ccache),CMAKE_CXX_COMPILER_LAUNCHER=ccache) \
	  $(PY_DIR)/venv/bin/pip wheel -q --no-build-isolation --no-deps -w $(PY_DIR)/dist . -Cbuild-dir=$(PY_DIR)/build
	$(PY_DIR)/venv/bin/pip install -q --force-reinstall --no-deps $(PY_DIR)/dist/wgprim-*.whl
	cd python/tests && $(PY_DIR)/venv/bin/python -m pytest -q -p no:cacheprovider
	WGPRIM_PYTHON=$(PY_DIR)/venv/bin/python python3 tests/doc_blocks.py $(BUILD) . python
	python/tests/wheel_venv_test.sh $(PY_DIR)/dist/wgprim-*.whl $(PY_DIR)/wheelhouse $(PY_DIR)/fresh

# The whole suite on every non-CPU adapter present (CI has none: run it on a GPU machine before GPU changes land,
# and put its output in the issue's note). Fails when there is no GPU adapter, rather than passing vacuously.
gpu-check: build
	@gpus=$$($(BUILD)/wgprim info --json | python3 -c 'import json,sys; print("\n".join(a["name"] for a in json.load(sys.stdin)["adapters"] if a["type"] != "cpu"))'); \
	if [ -z "$$gpus" ]; then echo "gpu-check: no GPU adapter on this machine"; exit 1; fi; \
	echo "$$gpus" | while IFS= read -r name; do \
	  echo "gpu-check: $$name"; \
	  (cd $(BUILD) && WGPRIM_ADAPTER="$$name" ctest --output-on-failure --timeout 1200 -j 1 -E 'consumer_|package') || exit 1; \
	done

# The randomized differential test, long: SOAK_CASES cases with a seed from the clock (printed on failure).
soak: build
	WGPRIM_DIFF_CASES=$(SOAK_CASES) WGPRIM_DIFF_SEED=$$(date +%s) $(BUILD)/wgprim_tests --gtest_filter='Differential.*'

# ASan + UBSan build (at -O1 -g1: it compiles in about half the time of -O2 -g, and a sanitizer build wants -O1 anyway)
# of the library, the CLI and the GoogleTest suites, and those suites and the CLI script under it
# (the examples and README snippets are small programs over the same paths: the plain build runs them). The MPI tests (mpi_*)
# are left out: OpenMPI keeps allocations for the life of the process and its launcher is not built with ASan;
# the distributed algorithms run under ASan through the in-process communicator (the Multi suite).
sanitize: setup
	cmake -S . -B build-asan -DCMAKE_BUILD_TYPE=Sanitize -DCMAKE_CXX_FLAGS_SANITIZE="-O1 -g1 -DNDEBUG" \
	  -DCMAKE_CXX_FLAGS="$(SAN_FLAGS)" $(LAUNCHER) \
	  -DCMAKE_EXE_LINKER_FLAGS="$(SAN_FLAGS)"
	cmake --build build-asan -j $(JOBS) --target wgprim_tests wgprim_cli
	cd build-asan && $(SAN_ENV) WGPRIM_DIFF_CASES=$${WGPRIM_DIFF_CASES:-3000} WGPRIM_TEST_EDGE_MAX_LOG2=18 \
	  ctest --output-on-failure --timeout 1800 -j 1 -E 'package|cli|mpi_|example_|readme_snippet_|consumer_|StdSpellingNegative'
	# the CLI script also runs bash and python: leak checking (and the preload) for our binaries only there
	cd build-asan && ASAN_OPTIONS=detect_leaks=0 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
	  ctest --output-on-failure --timeout 1800 -R cli -E mpi_

# libFuzzer on each harness for FUZZ_SECONDS; the corpus in fuzz/corpus seeds it.
fuzz: setup
	cmake -S . -B build-fuzz -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_CXX_COMPILER=clang++ -DWGPRIM_FUZZ=ON \
	  -DWGPRIM_BUILD_TESTS=OFF -DWGPRIM_BUILD_EXAMPLES=OFF
	cmake --build build-fuzz -j $(JOBS) --target fuzz_npy fuzz_text fuzz_generate fuzz_expr fuzz_unary fuzz_arrays
	for h in npy text generate expr unary arrays; do \
	  mkdir -p build-fuzz/corpus-$$h && \
	  build-fuzz/fuzz_$$h -max_total_time=$(FUZZ_SECONDS) -max_len=4096 -print_final_stats=1 \
	    build-fuzz/corpus-$$h fuzz/corpus/$$h 2>&1 | tail -12 || exit 1; \
	done

clean:
	rm -rf $(BUILD) build-asan build-fuzz
