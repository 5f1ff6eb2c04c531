# HyperHeurist. `make demo` and `make test` are all a new user needs.
VENV    ?= .venv
PY      := $(VENV)/bin/python
HH      := $(VENV)/bin/hh
RUFF    := $(VENV)/bin/ruff
MYPY    := $(VENV)/bin/mypy
SEEDS   ?= 3
ITERATIONS ?=
JOBS    ?= 2
PYTEST_ARGS ?=
# pytest-xdist workers; --dist loadscope keeps a module on one worker, so its module fixtures run once; the slowest
# modules go first (tests/conftest.py SLOWEST_FIRST; --no-loadscope-reorder keeps that order). Three on two cores:
# a worker waiting on a kill, a poll or a stub server leaves its core to the third (docs/testing.md has the figures)
TEST_JOBS ?= 3
# the tests start hh (and pytest's workers import every test module) hundreds of times: compiled modules are kept
# even where the environment says not to write them (PYTHONDONTWRITEBYTECODE=1: each hh compiled its ~240 modules
# again, ~0.3 CPU s, and pytest re-rewrote every test module's asserts in each worker)
check test: export PYTHONDONTWRITEBYTECODE =

.PHONY: setup demo check test sweep sweep-quick bench formal qor costmodel lint clean

setup:
	@bash tools/setup.sh

demo: setup
	$(HH) run benchmarks/adder32/design.yaml --out runs --quiet

# the fast tier (under 3 minutes on 2 cores): ruff, then the trust-critical tests listed in tests/conftest.py
check: setup
	$(RUFF) check hyperheurist tests tools
	$(PY) -m pytest -q -m check -n $(TEST_JOBS) --dist loadscope --no-loadscope-reorder $(PYTEST_ARGS)

# mypy runs beside the suite, on the CPU the workers leave idle (a cold mypy is ~20 CPU s); its verdict is printed
# after the suite's, and either failing fails the target
test:
	@HH_WITH_CHROMIUM=1 bash tools/setup.sh   # the report screenshot test needs headless Chromium
	$(RUFF) check hyperheurist tests tools
	@$(MYPY) > .mypy.log 2>&1 & types=$$!; \
	$(PY) -m pytest -q -n $(TEST_JOBS) --dist loadscope --no-loadscope-reorder $(PYTEST_ARGS); suite=$$?; \
	wait $$types; typed=$$?; echo "$(MYPY)"; cat .mypy.log; rm -f .mypy.log; \
	exit $$(( suite || typed ))

sweep: setup
	$(PY) tools/sweep.py --seeds $(SEEDS) --jobs $(JOBS) $(if $(ITERATIONS),--iterations $(ITERATIONS)) --out results

sweep-quick: setup
	$(PY) tools/sweep.py --seeds 1 --jobs $(JOBS) --iterations 6 --benchmarks adder32,fifo8 --out results-quick

qor: setup   # the QoR suite: hand-optimised pairs vs hh, every accepted RTL change proven (results/qor.md)
	$(PY) tools/qor.py $(if $(ITERATIONS),--iterations $(ITERATIONS)) --out results

# the rewrite engine's per-node cost, re-fitted on single-operator syntheses (hyperheurist/egraph/costs.json,
# results/costmodel.md); rerun when the synthesis flow, Yosys or the liberty changes
costmodel: setup
	$(PY) tools/calibrate_cost.py

# ruff (pyflakes, pycodestyle, isort, bugbear, pyupgrade) on everything; mypy --strict on the package
lint: setup
	$(RUFF) check hyperheurist tests tools
	$(MYPY)

bench: setup
	$(PY) tools/bench.py

# the equivalence gate's mutation battery and reference/seed proofs; fails on any escape
formal: setup
	$(PY) tools/mutants.py --jobs $(JOBS) --out results

clean:
	rm -rf runs results-quick .pytest_cache
