# SPDX-License-Identifier: GPL-2.0
# kprof top level. Kernel modules build through Kbuild (ci/build-modules.sh),
# kprofctl through CMake; everything kernel-side is tested in QEMU guests.
#
#   make deps        install what is missing (root; Debian 12)
#   make check       deps + build + every unit and VM test (ctest)
#   make demo        boot the 6.1 guest and show what kprof reports
#   make help        all targets and variables

BUILD    := $(CURDIR)/build
JOBS     ?= $(shell nproc)
KERNEL   ?= 6.1
# One kernel instead of the matrix, e.g. a board's tree:
#   make modules KDIR=/path/to/linux-build [KERNELRELEASE=6.6.0-board]
KDIR     ?=
PREFIX   ?= /usr/local
CMAKE    ?= cmake

# Kbuild must not see these on its command line (ci/build-modules.sh unsets
# the inherited make state); hand them over as plain environment variables.
MOD_ENV := KDIR="$(KDIR)" KREL="$(KERNELRELEASE)" JOBS="$(JOBS)"
ifneq ($(KERNELRELEASE),)
ifeq ($(KDIR),)
MOD_ENV := KDIR="/lib/modules/$(KERNELRELEASE)/build" KREL="$(KERNELRELEASE)" JOBS="$(JOBS)"
endif
endif

.PHONY: all help deps modules userspace static build check unit vm demo vm-shell install clean

all: build

help:
	@sed -n '2,/^$$/s/^# \{0,1\}//p' $(firstword $(MAKEFILE_LIST))
	@echo 'Targets: deps modules userspace static build check unit vm demo vm-shell install clean'
	@echo 'Variables: KERNEL=<an id of ci/kernels.list, e.g. 6.1 or 7.3> (vm-shell), KDIR= KERNELRELEASE= (modules, install),'
	@echo '           PREFIX=/usr/local (install), JOBS=N'

deps:
	bash ci/deps.sh

modules:
	$(MOD_ENV) bash ci/build-modules.sh

$(BUILD)/host/CMakeCache.txt:
	$(CMAKE) -S . -B $(BUILD)/host -DCMAKE_BUILD_TYPE=RelWithDebInfo

userspace: $(BUILD)/host/CMakeCache.txt
	$(CMAKE) --build $(BUILD)/host -j $(JOBS)

# A fully static kprofctl for the test guests and for target boards.
$(BUILD)/static/CMakeCache.txt:
	$(CMAKE) -S . -B $(BUILD)/static -DCMAKE_BUILD_TYPE=Release -DKPROF_STATIC=ON -DKPROF_TESTS=OFF

static: $(BUILD)/static/CMakeCache.txt
	$(CMAKE) --build $(BUILD)/static -j $(JOBS) --target kprofctl

build: modules userspace static

check: deps
	$(MAKE) build
	cd $(BUILD)/host && ctest --output-on-failure

unit: userspace
	cd $(BUILD)/host && ctest --output-on-failure -L unit

vm: modules static userspace
	cd $(BUILD)/host && ctest --output-on-failure -L vm

demo: deps
	$(MAKE) modules static
	bash ci/vm-run.sh 6.1 demo

vm-shell: modules static
	bash ci/vm-run.sh $(KERNEL) shell

# Install onto this machine (a target board): kprof's modules for
# KERNELRELEASE (default: the running kernel) and kprofctl.
install:
	bash ci/install.sh "$(if $(KERNELRELEASE),$(KERNELRELEASE),$(shell uname -r))" "$(DESTDIR)" "$(PREFIX)"

clean:
	rm -rf $(BUILD)
