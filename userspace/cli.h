/* SPDX-License-Identifier: GPL-2.0 */
/*
 * inlinecrypt command line: options, their checks, and the plain-mapping
 * table built from them. No device access here, so the unit tests reach it.
 */
#ifndef INLINECRYPT_CLI_H
#define INLINECRYPT_CLI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "table.h"

/* Exit codes, as cryptsetup(8) documents them. */
enum {
	IC_EXIT_OK = 0,
	IC_EXIT_USAGE = 1,	/* wrong parameters */
	IC_EXIT_PERM = 2,	/* no permission (bad passphrase) */
	IC_EXIT_NOMEM = 3,	/* out of memory */
	IC_EXIT_DEVICE = 4,	/* wrong device specified */
	IC_EXIT_BUSY = 5,	/* device already exists or device is busy */
};

#define IC_DEFAULT_CIPHER "aes-xts-plain64"
#define IC_DEFAULT_TRIES 3

enum ic_volume_type { IC_TYPE_PLAIN, IC_TYPE_LUKS };

/* LUKS keyslots: cryptsetup's limit (LUKS2; LUKS1 has 8). */
#define IC_MAX_KEYSLOT 31

/**
 * struct ic_args - everything the command line said.
 * @action: the first non-option word ("open", "close", "status", ...).
 * @pos, @npos: the words after it.
 * @help, @version: -h / -V given.
 * @luks_type: with --type luks1 or luks2, the only header version accepted
 *	("LUKS1", "LUKS2"); NULL for --luks / --type luks (either).
 * @key_slot: --key-slot N, or -1 (any keyslot).
 * The rest mirror the long options; *_set says the option was given.
 */
struct ic_args {
	const char *action;
	char *pos[4];
	int npos;
	bool help, version;

	enum ic_volume_type type;
	const char *cipher;
	const char *key_file;
	uint64_t keyfile_offset;
	uint64_t keyfile_size;
	bool keyfile_size_set;
	const char *key_desc;
	unsigned int key_size_bits;
	unsigned int sector_size;
	uint64_t offset, skip, size;
	bool offset_set, skip_set, size_set;
	bool readonly, allow_discards, iv_large_sectors, inline_only, passthrough;
	const char *header;
	unsigned int tries;
	bool dry_run, verbose;
	bool disable_keyring;
	const char *luks_type;
	int key_slot;
	bool test_passphrase;
	bool deferred;
	bool shared;
};

/*
 * ic_args_parse - fill @a from argv (options may come anywhere, as with
 * cryptsetup; "--" ends them). Does not check which options fit which
 * action: ic_args_check() does.
 * Return: 0, or -1 with a message in @err.
 */
int ic_args_parse(int argc, char *argv[], struct ic_args *a, char *err, size_t errlen);

/*
 * ic_args_check - the action exists, has its arguments, and the options
 * fit it (no --cipher with --luks, one key source, ...).
 * Return: 0, or -1 with a message in @err.
 */
int ic_args_check(const struct ic_args *a, char *err, size_t errlen);

/*
 * ic_apply_flags - copy the table flags given on the command line
 * (allow_discards, inline_only, passthrough, iv_large_sectors) into @t.
 */
void ic_apply_flags(const struct ic_args *a, struct ic_table *t);

/*
 * ic_plain_table - the table of a plain mapping: cipher, sector size,
 * offsets and size from @a, @device, its size in 512-byte sectors. The key
 * is set by the caller before or after; ic_table_check() runs at the end
 * only if a key is already there.
 * Return: 0, or -1 with a message in @err.
 */
int ic_plain_table(const struct ic_args *a, const char *device, uint64_t device_sectors,
		   struct ic_table *t, char *err, size_t errlen);

/* ic_key_size - bytes of key the command line's cipher needs (0: unknown cipher). */
unsigned int ic_key_size(const struct ic_args *a);

#endif
