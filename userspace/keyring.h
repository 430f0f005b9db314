/* SPDX-License-Identifier: GPL-2.0 */
/* Kernel keyring look-ups for --key-desc (raw syscalls: no libkeyutils). */
#ifndef INLINECRYPT_KEYRING_H
#define INLINECRYPT_KEYRING_H

#include <stddef.h>

#include "table.h"

/*
 * ic_keyring_check - the key @key refers to can be found the way the target
 * will find it (request_key() from this process), and a user key has the
 * size the table says. A logon key's payload cannot be read from userspace:
 * its size is checked by the target.
 * Return: 0, or -errno with a reason in @err.
 */
int ic_keyring_check(const struct ic_key *key, char *err, size_t errlen);

/*
 * ic_keyring_add_thread - put @key into this thread's keyring as a logon
 * key named @desc, so that a table can name it instead of holding its
 * bytes (what cryptsetup does for LUKS2). The thread keyring goes away with
 * the process; ic_keyring_drop() removes the key at once.
 * Return: the key serial (> 0), or -errno.
 */
long ic_keyring_add_thread(const char *desc, const void *key, size_t len);

/*
 * ic_keyring_read_user - the payload of the user key @desc (found like
 * ic_keyring_check() finds keys), at most @max bytes, into @buf.
 * Return: its length, or -errno (-E2BIG if longer than @max).
 */
long ic_keyring_read_user(const char *desc, void *buf, size_t max);

/* ic_keyring_drop - invalidate key @id (best effort). */
void ic_keyring_drop(long id);

#endif
