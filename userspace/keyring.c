// SPDX-License-Identifier: GPL-2.0
/*
 * Kernel keyring look-ups for --key-desc.
 */
#include <errno.h>
#include <linux/keyctl.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "keyring.h"
#include "util.h"

long ic_keyring_add_thread(const char *desc, const void *key, size_t len)
{
	long id = syscall(SYS_add_key, "logon", desc, key, len, KEY_SPEC_THREAD_KEYRING);

	return id < 0 ? -errno : id;
}

void ic_keyring_drop(long id)
{
	if (id <= 0)
		return;
	if (syscall(SYS_keyctl, KEYCTL_INVALIDATE, id) != 0)
		syscall(SYS_keyctl, KEYCTL_UNLINK, id, KEY_SPEC_THREAD_KEYRING);
}

int ic_keyring_check(const struct ic_key *key, char *err, size_t errlen)
{
	const char *type = key->type == IC_KEY_LOGON ? "logon" : "user";
	long id, len;

	if (key->type != IC_KEY_LOGON && key->type != IC_KEY_USER)
		return 0;
	/* No callout: look in the thread, process, session and user keyrings. */
	id = syscall(SYS_request_key, type, key->desc, NULL, 0);
	if (id < 0) {
		int e = errno;

		snprintf(err, errlen, "%s key '%s' not usable from the keyrings of this "
			 "process: %s", type, key->desc,
			 e == ENOKEY ? "no such key" : strerror(e));
		return -e;
	}
	if (key->type != IC_KEY_USER)
		return 0;
	len = syscall(SYS_keyctl, KEYCTL_READ, id, NULL, 0);
	if (len >= 0 && (unsigned long)len != key->size) {
		snprintf(err, errlen, "user key '%s' holds %ld bytes, the cipher needs %u",
			 key->desc, len, key->size);
		return -EINVAL;
	}
	return 0;
}

long ic_keyring_read_user(const char *desc, void *buf, size_t max)
{
	long id, len;

	id = syscall(SYS_request_key, "user", desc, NULL, 0);
	if (id < 0)
		return -errno;
	len = syscall(SYS_keyctl, KEYCTL_READ, id, buf, max);
	if (len < 0)
		return -errno;
	if ((size_t)len > max) {
		wipe(buf, max);
		return -E2BIG;
	}
	return len;
}
