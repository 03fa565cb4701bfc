// SPDX-License-Identifier: GPL-2.0
/*
 * kprof_pktproc with every kprof hook compiled out (KPROF_NO_HOOKS): the
 * baseline make bench's P1b measures the hooked driver against. Its
 * debugfs directory and IRQ are named after this module.
 */
#define KPROF_NO_HOOKS
#include "kprof_pktproc.c"
