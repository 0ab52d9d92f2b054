/* SPDX-License-Identifier: MIT */
/* Owner: lib. */
#ifndef KEEL_ERRNO_H
#define KEEL_ERRNO_H

#define EPERM	  1
#define ENOENT	  2
#define EIO	  5
#define E2BIG	  7
#define ENOMEM	  12
#define EBUSY	  16
#define EEXIST	  17
#define EINVAL	  22
#define ENOSPC	  28
#define ERANGE	  34
#define ENODEV	  19
#define ETIMEDOUT 110

/* p2m_hw_translate() where the arch or EL cannot ask the MMU. */
#define EOPNOTSUPP 95

#endif
