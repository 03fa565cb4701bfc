# SPDX-License-Identifier: GPL-2.0
# kprof top level. Kernel modules build through Kbuild (ci/build-modules.sh),
# kprofctl through CMake; everything kernel-side is tested in QEMU guests.
#
#   make deps        install what is missing (root; Debian 12)
#   make check       deps + build + every unit and VM test (ctest)
#   make demo        boot the 6.1 guest and show what kprof reports
#   make bench       performance figures into BENCH.md (not part of check)
#   make soak        the 100-cycle soak on the debug kernel (not part of check)
#   make help        all targets and variables

BUILD    := $(CURDIR)/build
JOBS     ?= $(shell nproc)
KERNEL   ?= 6.1
# One kernel instead of the matrix, e.g. a board's tree:
#   make modules KDIR=/path/to/linux-build [KERNELRELEASE=6.6.0-board]
KDIR     ?=
# The matrix entries that deps and modules work on, by id (default: all of
# ci/kernels.list), e.g. make modules KERNELS="6.1 arm64-6.12"
KERNELS  ?=
export KPROF_KERNEL_IDS := $(KERNELS)
# The kernel make demo boots: the matrix's first entry.
DEMO_KERNEL := $(shell bash -c '. ci/common.sh && demo_kernel')
PREFIX   ?= /usr/local
CMAKE    ?= cmake

# A board of another architecture: Kbuild's ARCH (arm64, arm, s390) and the cross
# compiler's prefix, which defaults to Debian's cross compiler for ARCH.
ARCH          ?=
ifeq ($(ARCH),arm64)
CROSS_COMPILE ?= aarch64-linux-gnu-
endif
ifeq ($(ARCH),arm)
CROSS_COMPILE ?= arm-linux-gnueabihf-
endif
ifeq ($(ARCH),s390)
CROSS_COMPILE ?= s390x-linux-gnu-
endif
CROSS_COMPILE ?=

# Kbuild must not see these on its command line (ci/build-modules.sh unsets
# the inherited make state); hand them over as plain environment variables.
MOD_KDIR := $(if $(KDIR),$(KDIR),$(if $(KERNELRELEASE),/lib/modules/$(KERNELRELEASE)/build))
MOD_ENV := KDIR="$(MOD_KDIR)" KREL="$(KERNELRELEASE)" JOBS="$(JOBS)" ARCH="$(ARCH)" CROSS_COMPILE="$(CROSS_COMPILE)"

.PHONY: all help deps modules userspace static dyn boards build check unit sanitize vm demo vm-shell install clean bench soak deb dkms

all: build

help:
	@sed -n '2,/^$$/s/^# \{0,1\}//p' $(firstword $(MAKEFILE_LIST))
	@echo 'Targets: deps modules userspace static dyn boards build check unit sanitize vm demo vm-shell install clean bench soak deb dkms'
	@echo 'Variables: KERNEL=<an id of ci/kernels.list, e.g. 6.1 or arm64-6.12> (vm-shell),'
	@echo '           KERNELS="<ids>" (deps, modules: those entries only; default all),'
	@echo '           KDIR= KERNELRELEASE= (modules, install, dkms), ARCH=arm64|arm|s390 CROSS_COMPILE= (modules, static, install),'
	@echo '           DESTDIR= PREFIX=/usr/local (install), JOBS=N'

deps:
	bash ci/deps.sh

modules:
	$(MOD_ENV) bash ci/build-modules.sh

$(BUILD)/host/CMakeCache.txt:
	$(CMAKE) -S . -B $(BUILD)/host -DCMAKE_BUILD_TYPE=RelWithDebInfo

userspace: $(BUILD)/host/CMakeCache.txt
	$(CMAKE) --build $(BUILD)/host -j $(JOBS)

# A fully static kprofctl for the test guests and for target boards. With
# CROSS_COMPILE=<triplet>- it is cross-built into build/static-$(ARCH)/,
# against Debian's multiarch libtracefs-dev:<arch> and libtraceevent-dev:<arch>.
ifneq ($(CROSS_COMPILE),)
STATIC     := $(BUILD)/static-$(if $(ARCH),$(ARCH),$(patsubst %-,%,$(CROSS_COMPILE)))
TRIPLET    := $(patsubst %-,%,$(CROSS_COMPILE))
# Debian's multiarch directory: the triplet, but i386's for i686.
MULTIARCH  := $(patsubst i686-%,i386-%,$(TRIPLET))
STATIC_ENV := PKG_CONFIG_LIBDIR=/usr/lib/$(MULTIARCH)/pkgconfig:/usr/share/pkgconfig
STATIC_OPT := -DCMAKE_SYSTEM_NAME=Linux -DCMAKE_C_COMPILER=$(CROSS_COMPILE)gcc -DCMAKE_CXX_COMPILER=$(CROSS_COMPILE)g++ \
	-DCMAKE_FIND_ROOT_PATH=/usr/lib/$(MULTIARCH)
else
STATIC     := $(BUILD)/static
endif

$(STATIC)/CMakeCache.txt:
	$(STATIC_ENV) $(CMAKE) -S . -B $(STATIC) -DCMAKE_BUILD_TYPE=Release -DKPROF_STATIC=ON -DKPROF_TESTS=OFF $(STATIC_OPT)

static: $(STATIC)/CMakeCache.txt
	$(CMAKE) --build $(STATIC) -j $(JOBS) --target kprofctl kprof-wfuzz kprof-gpioev kprof-pingpong

ifneq ($(CROSS_COMPILE),)
$(STATIC)/CMakeCache.txt: | cross-check
endif
.PHONY: cross-check
cross-check:
	@command -v $(CROSS_COMPILE)g++ >/dev/null || { echo "kprof: error: no $(CROSS_COMPILE)g++; install g++-$(TRIPLET) and the board's libtracefs-dev:<arch> libtraceevent-dev:<arch> (multiarch), or build in ci/chroot.sh trixie" >&2; exit 1; }

# A dynamically linked cross-built kprofctl, with report -i (libtracecmd,
# of which Debian has no static build), into build/dyn-$(ARCH)/: the i386
# one runs in the amd64 guests. libstdc++ is linked in: a board's userland
# need only have libtracecmd and its libraries.
DYN := $(BUILD)/dyn-$(ARCH)
$(DYN)/CMakeCache.txt: | cross-check
	$(STATIC_ENV) $(CMAKE) -S . -B $(DYN) -DCMAKE_BUILD_TYPE=Release -DKPROF_TESTS=OFF $(STATIC_OPT) \
		-DCMAKE_EXE_LINKER_FLAGS="-static-libstdc++ -static-libgcc -Wl,-rpath-link,/usr/lib/$(MULTIARCH)"

dyn: $(DYN)/CMakeCache.txt
	$(CMAKE) --build $(DYN) -j $(JOBS) --target kprofctl

# The static kprofctl of every other architecture of the matrix (arm guests),
# and i386's (kprofctl32 in the amd64 guests).
boards:
	bash ci/build-boards.sh

build: modules userspace static boards

# The unit tests under ASan and UBSan, and the fuzz targets: clang.
$(BUILD)/sanitize/CMakeCache.txt:
	CC=clang CXX=clang++ $(CMAKE) -S . -B $(BUILD)/sanitize -DCMAKE_BUILD_TYPE=RelWithDebInfo -DKPROF_SANITIZE=ON

sanitize: $(BUILD)/sanitize/CMakeCache.txt
	$(CMAKE) --build $(BUILD)/sanitize -j $(JOBS)
	cd $(BUILD)/sanitize && ctest --output-on-failure -j $(JOBS)

# deps, build, sanitize and the tests, the debug kernel's build beside the
# others; each phase's time goes to build/check-times.txt, printed at the end.
check:
	JOBS="$(JOBS)" bash ci/check.sh

unit: userspace
	cd $(BUILD)/host && ctest --output-on-failure -L unit

vm: modules static boards userspace
	cd $(BUILD)/host && ctest --output-on-failure -j $(JOBS) -L vm

bench: modules static userspace
	bash ci/bench.sh
	bash ci/bench_func.sh
	bash ci/bench_scale.sh

# The soak of the Reliability section at its full length: SOAK_CYCLES (100)
# cycles on SOAK_KERNEL (the debug kernel), with no time bound; make check
# runs it bounded. Its figure line ends the output.
SOAK_CYCLES ?= 100
SOAK_KERNEL ?= 6.12-debug
soak: modules static boards
	KPROF_VM_APPEND="kprof.soak_cycles=$(SOAK_CYCLES)" KPROF_VM_TIMEOUT=$$(($(SOAK_CYCLES) * 90 + 300)) \
		KPROF_VM_LOG=kprof_soak_full bash tests/vm/harness/vm-run.sh $(SOAK_KERNEL) kprof_soak
	@grep -a 'KPROF-FIGURE: soak' $(BUILD)/vm-logs/$(SOAK_KERNEL)/kprof_soak_full.log

# Only what the demo uses: its host packages and its kernel (ci/deps.sh demo).
# make check runs the same guest test, and checks its pictures on the host.
demo:
	bash ci/deps.sh demo
	$(MAKE) modules static KERNELS=$(DEMO_KERNEL)
	KPROF_VM_HOST_CHECK=off bash tests/vm/harness/vm-run.sh $(DEMO_KERNEL) demo
	@echo "kprof demo: the pictures are $(BUILD)/vm-out/$(DEMO_KERNEL)/demo/demo-per-packet.svg and demo-batched.svg"

vm-shell: modules static boards
	bash tests/vm/harness/vm-run.sh $(KERNEL) shell

# Debian packages into build/deb/ (debian/; lintian must show no error).
deb:
	bash scripts/deb.sh

# kprof.ko (and with SAMPLES=1 the sample driver) under DKMS on this machine:
# the source into /usr/src/<module>-<version>, then dkms add, build, install,
# for the running kernel or KERNELRELEASE.
dkms:
	KREL="$(KERNELRELEASE)" bash scripts/dkms.sh kprof
	$(if $(filter 1,$(SAMPLES)),KREL="$(KERNELRELEASE)" bash scripts/dkms.sh kprof-samples)

# Install onto this machine (a target board): kprof's modules for
# KERNELRELEASE (default: the release of KDIR, else the running kernel) and
# kprofctl. For a board of another architecture, stage its files with
#   make install DESTDIR=$PWD/board ARCH=arm64 KDIR=/path/to/board/linux-build
install:
	ARCH="$(ARCH)" KDIR="$(KDIR)" bash scripts/install.sh "$(KERNELRELEASE)" "$(DESTDIR)" "$(PREFIX)"

clean:
	rm -rf $(BUILD)
