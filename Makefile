# pgbench-operator build. See docs/design.md for the layout.
#   make            programs under build/bin
#   make test       everything again under ASan/UBSan, unit tests, then end-to-end tests
#   make deps       install missing Debian/npm dependencies (idempotent)
#   make images     the operator and runner container images (scripts/images.sh)
#   make lint       clang-format + clang-tidy
#   make generate   CRD status schema, printer columns and docs tables from pkg/bench/fields.c
#   make fuzz       libFuzzer targets, briefly
#   make bench      speed and memory figures
#   make demo       the README's demo on the simulated cluster
#   make sim        the simulated cluster in the foreground
#   make install-plugin   kubectl-pgbench into $(PREFIX)/bin (default /usr/local)
#   make test-cluster [K8S=kind]  the chart and the images on a real cluster (../shared/k8s)

BUILD ?= build
CC ?= gcc
WERROR ?= 0

WARN := -std=c11 -D_GNU_SOURCE -Wall -Wextra -Wpedantic -Wshadow -Wstrict-prototypes \
        -Wmissing-prototypes -Wvla -Wformat=2
ifeq ($(WERROR),1)
WARN += -Werror
endif
PG_INC := $(shell pg_config --includedir 2>/dev/null || echo /usr/include/postgresql)
CFLAGS ?= -O2 -g
CPPFLAGS += -I. -I$(PG_INC)
LIBS := -lcurl -luv -lcjson -lyaml -lz -lm -lpthread
# libpq: only pkg/pg needs it (the runner, and the tests); the operator and the plugin do not link it
PQ_LIBS := -lpq
# one version for every program, image, chart and manifest: the VERSION file (pkg/util/version.h);
# the commit comes from git, or from PGBO_COMMIT given to make (an image build has no .git)
PGBO_VERSION := $(shell cat VERSION 2>/dev/null || echo 0.0.0-dev)
PGBO_COMMIT ?= $(shell git describe --always --dirty --abbrev=7 --exclude='*' 2>/dev/null || echo unknown)

PKGS := util kube bench pg api controller plugin
# package -> packages it links against (itself first)
deps_util := util
deps_kube := kube util
deps_bench := bench util
deps_pg := pg bench util
deps_api := api kube bench util
deps_controller := controller api kube bench util
deps_plugin := plugin api kube bench util

pkg_srcs = $(wildcard pkg/$(1)/*.c)
pkg_objs = $(patsubst %.c,$(BUILD)/obj/%.o,$(call pkg_srcs,$(1)))
pkg_lib = $(BUILD)/lib/libpgbo-$(1).a
libs_for = $(foreach p,$(deps_$(1)),$(call pkg_lib,$(p)))

PROGRAMS := $(BUILD)/bin/pgbench-operator $(BUILD)/bin/pgbench-runner $(BUILD)/bin/pgbench-gen-contract \
            $(BUILD)/bin/kubectl-pgbench
UNIT_SRCS := $(wildcard test/unit/*/test_*.c)
UNIT_BINS := $(patsubst test/unit/%.c,$(BUILD)/test/%,$(UNIT_SRCS))

.PHONY: all deps test unit e2e lint fuzz bench demo sim clean format generate install-plugin images print-version \
        release-dry-run test-cluster
all: $(PROGRAMS)

$(BUILD)/obj/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(WARN) $(CFLAGS) $(CPPFLAGS) -MMD -MP -c $< -o $@

define pkg_rule
$(call pkg_lib,$(1)): $(call pkg_objs,$(1))
	@mkdir -p $$(dir $$@)
	rm -f $$@ && ar rcs $$@ $$^
endef
$(foreach p,$(PKGS),$(eval $(call pkg_rule,$(p))))

# only version.o sees the version, so a new commit recompiles one file; it is rebuilt when either changes
VERSION_STAMP := $(BUILD)/version.stamp
$(VERSION_STAMP): FORCE
	@mkdir -p $(dir $@)
	@echo '$(PGBO_VERSION) $(PGBO_COMMIT)' | cmp -s - $@ || echo '$(PGBO_VERSION) $(PGBO_COMMIT)' >$@
$(BUILD)/obj/pkg/util/version.o: CPPFLAGS += -DPGBO_VERSION='"$(PGBO_VERSION)"' -DPGBO_COMMIT='"$(PGBO_COMMIT)"'
$(BUILD)/obj/pkg/util/version.o: $(VERSION_STAMP)
.PHONY: FORCE
FORCE:

$(BUILD)/bin/pgbench-operator: $(BUILD)/obj/cmd/operator/main.o $(call libs_for,controller)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -o $@ $^ $(LIBS)

RUNNER_OBJS := $(patsubst %.c,$(BUILD)/obj/%.o,cmd/runner/main.c cmd/runner/pgbench.c cmd/runner/fio.c cmd/runner/output.c cmd/runner/child.c cmd/runner/txstream.c)
$(BUILD)/bin/pgbench-runner: $(RUNNER_OBJS) $(call libs_for,pg)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -o $@ $^ $(LIBS) $(PQ_LIBS)

GEN_OBJS := $(BUILD)/obj/cmd/gen-contract/main.o $(BUILD)/obj/cmd/gen-contract/gen.o
$(BUILD)/bin/pgbench-gen-contract: $(GEN_OBJS) $(call libs_for,api)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -o $@ $^ $(LIBS)

# kubectl finds it on PATH as `kubectl pgbench` (docs/plugin.md)
PLUGIN_OBJS := $(patsubst %.c,$(BUILD)/obj/%.o,$(wildcard cmd/kubectl-pgbench/*.c))
# LDFLAGS: the release's plugin archive links with -rpath '$$ORIGIN/../lib' (scripts/release.sh)
$(BUILD)/bin/kubectl-pgbench: $(PLUGIN_OBJS) $(call libs_for,plugin)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $^ $(LIBS)

PREFIX ?= /usr/local
install-plugin: $(BUILD)/bin/kubectl-pgbench
	install -d $(DESTDIR)$(PREFIX)/bin
	install -m 0755 $< $(DESTDIR)$(PREFIX)/bin/kubectl-pgbench

# test/unit/<pkg>/<helper>.c (not test_*.c): what several unit tests share (the fake API server),
# in an archive, so that a test links only the helpers it uses
UNIT_HELPER_SRCS := $(filter-out $(UNIT_SRCS),$(wildcard test/unit/*/*.c))
UNIT_HELPERS := $(BUILD)/lib/libpgbo-unittest.a
$(UNIT_HELPERS): $(patsubst %.c,$(BUILD)/obj/%.o,$(UNIT_HELPER_SRCS))
	@mkdir -p $(dir $@)
	rm -f $@ && ar rcs $@ $^

# test/unit/<pkg>/test_x.c links against the helpers, <pkg> and its dependencies
.SECONDEXPANSION:
$(BUILD)/test/%: $(BUILD)/obj/test/unit/%.o $(BUILD)/obj/test/unit/unit_env.o $(UNIT_HELPERS) $$(call libs_for,$$(firstword $$(subst /, ,%)))
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -o $@ $^ $(LIBS) $(PQ_LIBS) -lcmocka

# test/unit/gen/test_gen.c: the contract generator (cmd/gen-contract/gen.c), linked with what it reads
$(BUILD)/test/gen/test_gen: $(BUILD)/obj/test/unit/gen/test_gen.o $(BUILD)/obj/cmd/gen-contract/gen.o \
        $(BUILD)/obj/test/unit/unit_env.o $(UNIT_HELPERS) $(call libs_for,api)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -o $@ $^ $(LIBS) -lcmocka

# every unit test binary starts in the source tree (fixtures) and honours TEST_FILTER
$(BUILD)/obj/test/unit/unit_env.o: CPPFLAGS += -DPGBO_SOURCE_DIR='"$(CURDIR)"'


SAN := -O1 -g -fno-omit-frame-pointer -fsanitize=address,undefined -fno-sanitize-recover=all
ASAN_BUILD := build/asan

# One entry point for every test: sanitized build, unit tests, then end-to-end tests.
# Each layer prints how long it took.
test:
	@start=$$(date +%s); $(MAKE) BUILD=$(ASAN_BUILD) CFLAGS="$(SAN)" all unit-bins && \
	    echo "build: $$(($$(date +%s) - start)) s"
	BUILD=$(ASAN_BUILD) scripts/generate.sh --check
	BUILD=$(ASAN_BUILD) test/run-unit.sh
	@start=$$(date +%s); scripts/images.sh --if-missing && echo "images: $$(($$(date +%s) - start)) s"
	BUILD=$(ASAN_BUILD) test/run-e2e.sh

# The chart and the images (make images) on a real single-node Kubernetes: the kit in
# ../shared/k8s, installed into a temporary directory and always stopped (skipped when absent), or
# K8S=kind. OPERATOR_IMAGE / RUNNER_IMAGE test other images (scripts/test-cluster.sh).
K8S ?= real
test-cluster:
	K8S=$(K8S) scripts/test-cluster.sh

# test/integration/<name>.c: programs run by end-to-end tests against the simulated cluster
INTEG_SRCS := $(wildcard test/integration/*.c)
INTEG_BINS := $(patsubst test/integration/%.c,$(BUILD)/itest/%,$(INTEG_SRCS))
ALL_LIBS := $(foreach p,controller api kube pg bench util,$(call pkg_lib,$(p)))
$(BUILD)/itest/%: $(BUILD)/obj/test/integration/%.o $(ALL_LIBS)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -o $@ $^ $(LIBS) $(PQ_LIBS)

unit-bins: $(UNIT_BINS) $(INTEG_BINS)
unit: unit-bins
	BUILD=$(BUILD) test/run-unit.sh
e2e: all $(INTEG_BINS)
	BUILD=$(BUILD) test/run-e2e.sh

deps:
	@scripts/deps.sh

# the container images (podman, or ENGINE=docker for docker buildx), tagged as the chart expects
images:
	@scripts/images.sh

# every release artifact that needs no registry, under build/release (scripts/release.sh)
release-dry-run:
	@scripts/release.sh dry-run

# what scripts/images.sh and the release scripts take the version and commit from
print-version:
	@echo '$(PGBO_VERSION) $(PGBO_COMMIT)'

# the CRD's status schema and printer columns and the docs' field tables, from pkg/bench/fields.c
generate: all
	@BUILD=$(BUILD) scripts/generate.sh

lint:
	@BUILD=$(BUILD) scripts/lint.sh

FUZZ_SRCS := $(wildcard test/fuzz/fuzz_*.c)
fuzz:
	@BUILD=$(BUILD) $(foreach p,$(PKGS),FUZZ_DEPS_$(p)="$(deps_$(p))") scripts/fuzz.sh $(FUZZ_SRCS)

bench: all
	@scripts/bench.sh

demo:
	@scripts/demo.sh

sim: all
	@scripts/sim.sh

format:
	clang-format -i $$(git ls-files '*.c' '*.h')

clean:
	rm -rf build

-include $(shell find $(BUILD)/obj -name '*.d' 2>/dev/null)
