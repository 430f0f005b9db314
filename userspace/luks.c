// SPDX-License-Identifier: GPL-2.0
/*
 * open --luks: read a LUKS header with libcryptsetup and unlock the volume key.
 */
#include <errno.h>
#include <libcryptsetup.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <termios.h>
#include <unistd.h>

#include "dm.h"
#include "luks-map.h"
#include "luks.h"
#include "util.h"

#define PROG "inlinecrypt"
/* cryptsetup's limits: 512 characters typed, 8 MiB from a key file. */
#define PASS_MAX_TYPED 512
#define PASS_MAX_FILE (8u << 20)

static void log_cb(int level, const char *msg, void *usrptr)
{
	const struct ic_args *a = usrptr;

	if (level == CRYPT_LOG_ERROR || (a->verbose && level != CRYPT_LOG_DEBUG))
		fprintf(stderr, "%s", msg);
}

static int exit_code(int r)
{
	switch (r) {
	case 0:
		return IC_EXIT_OK;
	case -EPERM:
		return IC_EXIT_PERM;
	case -ENOMEM:
		return IC_EXIT_NOMEM;
	case -ENODEV: case -ENOENT: case -ENXIO: case -ENOTBLK:
		return IC_EXIT_DEVICE;
	case -EBUSY: case -EEXIST:
		return IC_EXIT_BUSY;
	default:
		return IC_EXIT_USAGE;
	}
}

/*
 * A line from standard input, with echo off on a terminal. Like cryptsetup,
 * the newline ends the passphrase and is not part of it.
 * Return: length, or -errno.
 */
static long read_passphrase(const char *prompt, char *buf, size_t max)
{
	struct termios old, quiet;
	bool tty = isatty(STDIN_FILENO);
	size_t len = 0;
	long ret = 0;
	char c;

	if (tty) {
		fputs(prompt, stderr);
		fflush(stderr);
		if (tcgetattr(STDIN_FILENO, &old) == 0) {
			quiet = old;
			quiet.c_lflag &= (tcflag_t)~ECHO;
			tcsetattr(STDIN_FILENO, TCSAFLUSH, &quiet);
		} else {
			tty = false;
		}
	}
	for (;;) {
		ssize_t n = read(STDIN_FILENO, &c, 1);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			ret = -errno;
			break;
		}
		if (n == 0 || c == '\n')
			break;
		if (len == max) {
			ret = -E2BIG;
			break;
		}
		buf[len++] = c;
	}
	wipe(&c, sizeof(c));
	if (tty) {
		tcsetattr(STDIN_FILENO, TCSAFLUSH, &old);
		fputc('\n', stderr);
	}
	if (ret) {
		wipe(buf, len);
		return ret;
	}
	return (long)len;
}

/* Unlock the volume key into @vk; Return: keyslot >= 0 or -errno. */
static int unlock(struct crypt_device *cd, const struct ic_args *a, const char *device,
		  char *vk, size_t *vk_size)
{
	char prompt[4200];
	char *pass;
	size_t max = a->key_file ? (a->keyfile_size_set ? a->keyfile_size : PASS_MAX_FILE)
				 : PASS_MAX_TYPED;
	unsigned int tries = (a->key_file || !isatty(STDIN_FILENO)) ? 1 : a->tries;
	long len;
	int r = -EPERM;

	if (max > PASS_MAX_FILE)
		max = PASS_MAX_FILE;
	pass = malloc(max ? max : 1);
	if (!pass)
		return -ENOMEM;
	snprintf(prompt, sizeof(prompt), "Enter passphrase for %s: ", device);
	while (tries--) {
		if (a->key_file) {
			len = read_key_file(a->key_file, a->keyfile_offset, (uint8_t *)pass, max);
			if (len < 0) {
				fprintf(stderr, PROG ": cannot read key file %s: %s\n",
					a->key_file, strerror((int)-len));
				r = (int)len == -ENOENT ? -ENOENT : -EINVAL;
				break;
			}
		} else {
			len = read_passphrase(prompt, pass, max);
			if (len < 0) {
				fprintf(stderr, PROG ": cannot read passphrase: %s\n",
					len == -E2BIG ? "longer than 512 characters" :
					strerror((int)-len));
				r = -EINVAL;
				break;
			}
		}
		r = crypt_volume_key_get(cd, CRYPT_ANY_SLOT, vk, vk_size, pass, (size_t)len);
		wipe(pass, (size_t)len);
		if (r != -EPERM)
			break;
		fprintf(stderr, "No key available with this passphrase.\n");
	}
	wipe(pass, max ? max : 1);
	free(pass);
	return r;
}

static uint64_t flags_get(struct crypt_device *cd, crypt_flags_type type)
{
	uint32_t flags = 0;

	if (crypt_persistent_flags_get(cd, type, &flags) < 0)
		return 0;
	return flags;
}

int ic_luks_prepare(const struct ic_args *a, const char *device, const char *name,
		    uint64_t device_sectors, struct ic_table *t,
		    char *uuid, size_t uuidlen, char *key_desc, size_t desclen)
{
	struct crypt_params_integrity ip;
	struct ic_luks_segment seg;
	struct ic_luks_info info;
	struct crypt_device *cd = NULL;
	char err[512], vk[MAX_KEY_SIZE];
	const char *type, *json, *id;
	uint64_t segment_bytes = 0;
	size_t vk_size = sizeof(vk);
	bool dynamic = true;
	uint32_t flags;
	int r, ret = IC_EXIT_USAGE;
	char compact[64];
	size_t i = 0;

	r = crypt_init_data_device(&cd, a->header ? a->header : device, a->header ? device : NULL);
	if (r < 0) {
		fprintf(stderr, PROG ": cannot use %s: %s\n", a->header ? a->header : device,
			strerror(-r));
		return exit_code(r);
	}
	crypt_set_log_callback(cd, log_cb, (void *)a);
	r = crypt_load(cd, CRYPT_LUKS, NULL);
	if (r < 0) {
		fprintf(stderr, PROG ": %s is not a valid LUKS device\n",
			a->header ? a->header : device);
		ret = exit_code(r == -EINVAL ? -EINVAL : r);
		goto out;
	}
	type = crypt_get_type(cd);

	flags = (uint32_t)flags_get(cd, CRYPT_FLAGS_REQUIREMENTS);
	if (flags) {
		fprintf(stderr, PROG ": %s: %s volume has requirements this tool does not "
			"meet (0x%x: reencryption in progress?)\n", device, type, flags);
		goto out;
	}

	memset(&ip, 0, sizeof(ip));
	if (crypt_get_integrity_info(cd, &ip) < 0)
		memset(&ip, 0, sizeof(ip));
	flags = (uint32_t)flags_get(cd, CRYPT_FLAGS_ACTIVATION);
	memset(&info, 0, sizeof(info));
	info.type = type;
	info.cipher = crypt_get_cipher(cd);
	info.cipher_mode = crypt_get_cipher_mode(cd);
	info.key_size = (unsigned int)crypt_get_volume_key_size(cd);
	info.sector_size = (unsigned int)crypt_get_sector_size(cd);
	info.data_offset = crypt_get_data_offset(cd);
	info.iv_offset = crypt_get_iv_offset(cd);
	info.integrity = ip.integrity;
	info.iv_large_sectors = flags & CRYPT_ACTIVATE_IV_LARGE_SECTORS;
	info.allow_discards = flags & CRYPT_ACTIVATE_ALLOW_DISCARDS;
	if (!info.sector_size)
		info.sector_size = IC_SECTOR_SIZE;

	/* Refuse before asking for a passphrase. */
	if (ic_luks_fill_table(&info, t, err, sizeof(err)) != 0) {
		fprintf(stderr, PROG ": %s: %s\n", device, err);
		goto out;
	}
	if (strcmp(type, CRYPT_LUKS2) == 0) {
		if (crypt_dump_json(cd, &json, 0) < 0) {
			fprintf(stderr, PROG ": %s: cannot read the LUKS2 metadata\n", device);
			goto out;
		}
		if (ic_luks_json_segment(json, &seg, err, sizeof(err)) != 0 ||
		    ic_luks_check_segment(&seg, info.data_offset, err, sizeof(err)) != 0) {
			fprintf(stderr, PROG ": %s: %s\n", device, err);
			goto out;
		}
		dynamic = seg.dynamic;
		segment_bytes = seg.size;
	}
	if (ic_luks_length(device_sectors, info.data_offset, dynamic, segment_bytes,
			   info.sector_size, &t->length, err, sizeof(err)) != 0) {
		fprintf(stderr, PROG ": %s: %s\n", device, err);
		ret = IC_EXIT_DEVICE;
		goto out;
	}
	ic_apply_flags(a, t);

	r = unlock(cd, a, device, vk, &vk_size);
	if (r < 0) {
		ret = exit_code(r);
		goto out;
	}
	if (a->verbose)
		fprintf(stderr, "Key slot %d unlocked.\n", r);
	if (vk_size != t->cipher->key_size) {
		fprintf(stderr, PROG ": %s: volume key is %zu bytes, %s needs %u\n",
			device, vk_size, t->cipher->name, t->cipher->key_size);
		goto out;
	}
	t->key.type = IC_KEY_RAW;
	t->key.size = (unsigned int)vk_size;
	memcpy(t->key.raw, vk, vk_size);

	/* Like cryptsetup's "CRYPT-LUKS2-<uuid without dashes>-<name>". */
	id = crypt_get_uuid(cd);
	snprintf(key_desc, desclen, IC_LUKS_KEY_PREFIX "%s-d0", id ? id : "");
	for (i = 0; id && *id && i < sizeof(compact) - 1; id++)
		if (*id != '-')
			compact[i++] = *id;
	compact[i] = '\0';
	snprintf(uuid, uuidlen, IC_UUID_PREFIX "%s-%s-%s", type, compact, name);
	ret = IC_EXIT_OK;
out:
	wipe(vk, sizeof(vk));
	crypt_free(cd);
	return ret;
}
