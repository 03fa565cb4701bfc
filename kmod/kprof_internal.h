/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _KPROF_INTERNAL_H
#define _KPROF_INTERNAL_H

#define KPROF_VERSION "0.1.0"

#endif /* _KPROF_INTERNAL_H */
