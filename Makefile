# SPDX-License-Identifier: GPL-2.0
#
# Entry point for every task. Each step is idempotent and skips itself when
# its inputs have not changed (see scripts/lib.sh for the cache).
#
#   make check   build what is missing, run host and guest tests
#   make demo    the showcase run
#   make shell   a guest shell with a crypto-capable UFS disk
#   make bench   benchmarks against dm-crypt (QUICK=1 for a short run)
#   make stress  the long stress, fault and fuzz runs; docs/reliability.md
#                (hours under TCG, in parts: STRESS_ARGS=--resume goes on
#                with a run that stopped, STRESS_ARGS=--new starts over)

TOP := $(CURDIR)
BUILD := $(TOP)/build
CACHE ?= $(or $(INLINECRYPT_CACHE),$(or $(XDG_CACHE_HOME),$(HOME)/.cache)/inlinecrypt)

.PHONY: all setup kernel qemu module userspace initramfs check check-host \
	check-guest demo shell bench stress dm-target-patch clean qemu-asan

all: kernel qemu initramfs

setup:
	@bash scripts/setup

kernel: setup
	@bash scripts/build-kernel

qemu: setup
	@bash scripts/build-qemu

# The same QEMU tree with AddressSanitizer and UBSan, for the UFS qtests
# (tests/host/040, 041): a second QEMU build, cached like the first (about
# 10 minutes from scratch on 2 cores). QEMU_ASAN=0 leaves it out, for a
# machine where the sanitizers cannot run: 040 and 041 then skip, saying so.
qemu-asan: setup
	@if [ "$(QEMU_ASAN)" = 0 ]; then \
		echo ">>> QEMU_ASAN=0: no ASan + UBSan QEMU (tests/host/040, 041 skip)"; \
	else \
		QEMU_ASAN=1 bash scripts/build-qemu; \
	fi

module: kernel
	@bash scripts/build-modules

userspace: setup
	@if [ -f userspace/Makefile ]; then \
		$(MAKE) -s -C userspace O=$(BUILD)/userspace; \
	fi

initramfs: module userspace
	@bash qemu/mkinitramfs

check: all qemu-asan
	@bash tests/run

check-host: userspace
	@bash tests/run --host-only

check-guest: all
	@bash tests/run --guest-only

demo: all
	@bash scripts/demo

shell: all
	@bash qemu/run --ufs 512M --ufs-crypto on --virtio 256M

bench: all
	@bash scripts/bench $(if $(QUICK),--quick)

stress: all
	@bash scripts/stress --no-build $(STRESS_ARGS)

dm-target-patch: kernel
	@bash scripts/dm-target-patch

clean:
	rm -rf $(BUILD)
