/* SPDX-License-Identifier: MIT */
/* Arch hook: the serial console. Must work from the first line of C. */
#ifndef ARCH_CONSOLE_H
#define ARCH_CONSOLE_H

#include <keel/types.h>

/* Write len bytes; "\n" is sent as "\r\n" by the arch driver where needed. */
void arch_console_write(const char *s, size_t len);

#endif
