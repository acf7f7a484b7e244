# hmtt: the two set-up commands and their parts.
#   make demo   install what is missing, build, run the main job on its built-in default
#   make test   install what is missing, build, run the whole test suite (ctest)
#   make fuzz   long libFuzzer runs of every fuzz target (opt-in)
# Variables: BUILD (build dir), JOBS, CTEST_ARGS (e.g. CTEST_ARGS="-L unit").
BUILD ?= build
JOBS ?= $(shell nproc)
CTEST_ARGS ?=

.PHONY: all deps deps-core configure build demo test fuzz clean

all: build

deps:
	@scripts/deps.sh all

deps-core:
	@scripts/deps.sh core

configure: deps-core
	@cmake -S . -B $(BUILD) -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo $(CMAKE_ARGS) >/dev/null

build: configure
	@cmake --build $(BUILD) -j $(JOBS)

demo: build
	@$(BUILD)/apps/hmtt/hmtt demo --workdir $(BUILD)/demo

test: deps build
	@cd $(BUILD) && ctest --output-on-failure -j $(JOBS) $(CTEST_ARGS)

# Long coverage-guided fuzzing with libFuzzer (opt-in): FUZZ_SECONDS per target.
FUZZ_SECONDS ?= 60
fuzz:
	@scripts/fuzz.sh $(FUZZ_SECONDS)

clean:
	@rm -rf $(BUILD)
