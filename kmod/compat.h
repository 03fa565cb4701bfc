/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Kernel API differences between the kernels kprof builds against
 * (Debian 6.1, 6.1-rt and 6.12). Nothing else in kprof tests versions.
 */
#ifndef _KPROF_COMPAT_H
#define _KPROF_COMPAT_H

#include <linux/version.h>

/* 6.10 dropped __assign_str()'s source argument: it now uses __string()'s. */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 10, 0)
#define kprof_assign_str(dst, src)	__assign_str(dst)
#else
#define kprof_assign_str(dst, src)	__assign_str(dst, src)
#endif

#endif /* _KPROF_COMPAT_H */
