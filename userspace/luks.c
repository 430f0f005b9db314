// SPDX-License-Identifier: GPL-2.0
/*
 * open --luks and resume: read a LUKS header with libcryptsetup and unlock
 * the volume key (passphrase, key file or a LUKS2 keyring token).
 */
#include <errno.h>
#include <libcryptsetup.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <termios.h>
#include <unistd.h>

#include "dm.h"
#include "keyring.h"
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

int ic_luks_exit_code(int r)
{
	switch (r) {
	case 0:
		return IC_EXIT_OK;
	case -EPERM:
	case -EACCES:
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
 * The terminal as it was before echo went off, for the signal handler: a
 * Ctrl-C at the prompt must not leave the terminal without echo.
 */
static struct termios saved_tty;
static volatile sig_atomic_t tty_saved;

static void restore_tty_and_die(int sig)
{
	if (tty_saved)
		tcsetattr(STDIN_FILENO, TCSAFLUSH, &saved_tty);
	signal(sig, SIG_DFL);
	raise(sig);
}

static const int prompt_signals[] = { SIGINT, SIGTERM, SIGHUP, SIGQUIT };
#define N_PROMPT_SIGNALS (sizeof(prompt_signals) / sizeof(prompt_signals[0]))

/*
 * A line from standard input, with echo off on a terminal. Like cryptsetup,
 * the newline ends the passphrase and is not part of it.
 * Return: length, or -errno.
 */
static long read_passphrase(const char *prompt, char *buf, size_t max)
{
	struct sigaction sa, old_sa[N_PROMPT_SIGNALS];
	struct termios quiet;
	bool tty = isatty(STDIN_FILENO);
	size_t len = 0, i;
	long ret = 0;
	char c;

	if (tty) {
		fputs(prompt, stderr);
		fflush(stderr);
		if (tcgetattr(STDIN_FILENO, &saved_tty) == 0) {
			memset(&sa, 0, sizeof(sa));
			sa.sa_handler = restore_tty_and_die;
			sigemptyset(&sa.sa_mask);
			tty_saved = 1;
			for (i = 0; i < N_PROMPT_SIGNALS; i++)
				sigaction(prompt_signals[i], &sa, &old_sa[i]);
			quiet = saved_tty;
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
		tcsetattr(STDIN_FILENO, TCSAFLUSH, &saved_tty);
		tty_saved = 0;
		for (i = 0; i < N_PROMPT_SIGNALS; i++)
			sigaction(prompt_signals[i], &old_sa[i], NULL);
		fputc('\n', stderr);
	}
	if (ret) {
		wipe(buf, len);
		return ret;
	}
	return (long)len;
}

/*
 * The builtin LUKS2 keyring token ("luks2-keyring", `cryptsetup token add
 * --key-description`): the passphrase is a user key in the kernel keyring.
 * Try each such token whose key is there, as cryptsetup open does before it
 * asks for a passphrase. External tokens (systemd's TPM2, FIDO2) need
 * libcryptsetup's token plugins, which this tool does not load.
 * Return: keyslot >= 0, -ENOENT if no token could unlock, or -errno.
 */
static int unlock_by_token(struct crypt_device *cd, const struct ic_args *a, char *vk,
			   size_t *vk_size)
{
	struct crypt_token_params_luks2_keyring params;
	int token, max = crypt_token_max(CRYPT_LUKS2), r;
	const char *type;
	char *pass;
	long len;

	if (strcmp(crypt_get_type(cd), CRYPT_LUKS2) != 0 || max <= 0)
		return -ENOENT;
	pass = malloc(PASS_MAX_TYPED);
	if (!pass)
		return -ENOMEM;
	r = -ENOENT;
	for (token = 0; token < max; token++) {
		if (crypt_token_status(cd, token, &type) != CRYPT_TOKEN_INTERNAL ||
		    strcmp(type, "luks2-keyring") != 0)
			continue;
		if (crypt_token_luks2_keyring_get(cd, token, &params) < 0)
			continue;
		len = ic_keyring_read_user(params.key_description, pass, PASS_MAX_TYPED);
		if (len < 0) {
			if (a->verbose)
				fprintf(stderr, "Token %d: key %s not in the keyring (%s).\n",
					token, params.key_description, strerror((int)-len));
			continue;
		}
		r = crypt_volume_key_get(cd, a->key_slot, vk, vk_size, pass, (size_t)len);
		wipe(pass, (size_t)len);
		if (r >= 0) {
			if (a->verbose)
				fprintf(stderr, "Token %d unlocked key slot %d.\n", token, r);
			break;
		}
		r = -ENOENT;
	}
	wipe(pass, PASS_MAX_TYPED);
	free(pass);
	return r;
}

static void unlock_message(int r)
{
	if (r == -EPERM)
		fprintf(stderr, "No key available with this passphrase.\n");
	else if (r == -EACCES)
		/* libcryptsetup: the crypto backend refused (e.g. FIPS mode) */
		fprintf(stderr, PROG ": the keyslot cannot be used: operation not permitted "
			"by the crypto backend (FIPS mode?)\n");
	else if (r == -ENOENT)
		fprintf(stderr, PROG ": no usable keyslot\n");
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

	if (!a->key_file) {
		r = unlock_by_token(cd, a, vk, vk_size);
		if (r != -ENOENT)
			return r;
	}
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
		r = crypt_volume_key_get(cd, a->key_slot, vk, vk_size, pass, (size_t)len);
		wipe(pass, (size_t)len);
		if (r >= 0)
			break;
		unlock_message(r);
		if (r != -EPERM)
			break;
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

/*
 * Open the header of @device (or --header) as the LUKS version the command
 * line allows, refuse an unmet requirement (an interrupted reencryption).
 * Return: IC_EXIT_OK with *@cdp set, or an exit code (message printed).
 */
static int load_header(const struct ic_args *a, const char *device, struct crypt_device **cdp)
{
	const char *hdr = a->header ? a->header : device;
	struct crypt_device *cd = NULL;
	uint32_t flags;
	int r;

	r = crypt_init_data_device(&cd, hdr, a->header ? device : NULL);
	if (r < 0) {
		fprintf(stderr, PROG ": cannot use %s: %s\n", hdr, strerror(-r));
		return ic_luks_exit_code(r);
	}
	crypt_set_log_callback(cd, log_cb, (void *)a);
	r = crypt_load(cd, a->luks_type ? a->luks_type : CRYPT_LUKS, NULL);
	if (r < 0) {
		fprintf(stderr, PROG ": %s is not a valid %s device\n", hdr,
			a->luks_type ? a->luks_type : "LUKS");
		crypt_free(cd);
		return ic_luks_exit_code(r == -EINVAL ? -EINVAL : r);
	}
	flags = (uint32_t)flags_get(cd, CRYPT_FLAGS_REQUIREMENTS);
	if (flags) {
		fprintf(stderr, PROG ": %s: %s volume has requirements this tool does not "
			"meet (0x%x: reencryption in progress?)\n", device, crypt_get_type(cd),
			flags);
		crypt_free(cd);
		return IC_EXIT_USAGE;
	}
	*cdp = cd;
	return IC_EXIT_OK;
}

/* "<uuid without dashes>" of the header, as cryptsetup puts it in dm uuids. */
static void compact_uuid(struct crypt_device *cd, char *buf, size_t len)
{
	const char *id = crypt_get_uuid(cd);
	size_t i = 0;

	for (; id && *id && i + 1 < len; id++)
		if (*id != '-')
			buf[i++] = *id;
	buf[i] = '\0';
}

/*
 * The volume key: unlock it, check its size against the cipher, put it in
 * @t->key, and name its keyring description (cf. cryptsetup's
 * "cryptsetup:<uuid>-d0").
 */
static int volume_key(struct crypt_device *cd, const struct ic_args *a, const char *device,
		      struct ic_table *t, char *key_desc, size_t desclen)
{
	char vk[MAX_KEY_SIZE];
	size_t vk_size = sizeof(vk);
	const char *id;
	int r, ret = IC_EXIT_USAGE;

	r = unlock(cd, a, device, vk, &vk_size);
	if (r < 0) {
		ret = ic_luks_exit_code(r);
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
	id = crypt_get_uuid(cd);
	snprintf(key_desc, desclen, IC_LUKS_KEY_PREFIX "%s-d0", id ? id : "");
	ret = IC_EXIT_OK;
out:
	wipe(vk, sizeof(vk));
	return ret;
}

int ic_luks_prepare(const struct ic_args *a, const char *device, const char *name,
		    uint64_t device_sectors, struct ic_table *t,
		    char *uuid, size_t uuidlen, char *key_desc, size_t desclen)
{
	struct crypt_params_integrity ip;
	struct ic_luks_segment seg;
	struct ic_luks_info info;
	struct crypt_device *cd = NULL;
	char err[512], compact[64];
	const char *type, *json;
	uint64_t segment_bytes = 0;
	bool dynamic = true;
	uint32_t flags;
	int ret;

	ret = load_header(a, device, &cd);
	if (ret)
		return ret;
	ret = IC_EXIT_USAGE;
	type = crypt_get_type(cd);

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

	ret = volume_key(cd, a, device, t, key_desc, desclen);
	if (ret)
		goto out;

	/*
	 * cryptsetup's dm uuid, "CRYPT-LUKS2-<uuid without dashes>-<name>"
	 * (dm_prepare_uuid()), truncated to dm's 128 characters as there.
	 */
	if (name) {
		compact_uuid(cd, compact, sizeof(compact));
		snprintf(uuid, uuidlen, IC_UUID_PREFIX "%s-%s-%s", type, compact, name);
	}
out:
	crypt_free(cd);
	return ret;
}

int ic_luks_volume_key(const struct ic_args *a, const char *device, const char *dm_uuid,
		       struct ic_table *t, char *key_desc, size_t desclen)
{
	struct crypt_device *cd = NULL;
	char compact[64], want[IC_DM_UUID_LEN];
	int ret;

	ret = load_header(a, device, &cd);
	if (ret)
		return ret;
	/* The header must be this mapping's: its uuid is in the dm uuid. */
	compact_uuid(cd, compact, sizeof(compact));
	snprintf(want, sizeof(want), "%s%s-%s-", IC_UUID_PREFIX, crypt_get_type(cd), compact);
	if (strncmp(dm_uuid, want, strlen(want)) != 0) {
		fprintf(stderr, PROG ": %s: LUKS header %s does not belong to this mapping "
			"(dm uuid %s)\n", device, crypt_get_uuid(cd), dm_uuid);
		crypt_free(cd);
		return IC_EXIT_DEVICE;
	}
	ret = volume_key(cd, a, device, t, key_desc, desclen);
	crypt_free(cd);
	return ret;
}

int ic_luks_fixed_size(const struct ic_args *a, const char *device, uint64_t *bytes)
{
	struct crypt_device *cd = NULL;
	int ret;

	*bytes = 0;
	ret = load_header(a, device, &cd);
	if (ret)
		return ret;
	ret = IC_EXIT_OK;
	if (strcmp(crypt_get_type(cd), CRYPT_LUKS2) == 0) {
		struct ic_luks_segment seg;
		const char *json;
		char err[512];

		if (crypt_dump_json(cd, &json, 0) < 0 ||
		    ic_luks_json_segment(json, &seg, err, sizeof(err)) != 0) {
			fprintf(stderr, PROG ": %s: cannot read the LUKS2 data segment\n", device);
			ret = IC_EXIT_USAGE;
		} else if (!seg.dynamic) {
			*bytes = seg.size;
		}
	}
	crypt_free(cd);
	return ret;
}
