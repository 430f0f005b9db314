/* SPDX-License-Identifier: GPL-2.0 */
/* open --luks: read a LUKS header with libcryptsetup and unlock the volume key. */
#ifndef INLINECRYPT_LUKS_H
#define INLINECRYPT_LUKS_H

#include <stddef.h>
#include <stdint.h>

#include "cli.h"
#include "table.h"

/* Keyring name of a LUKS volume key while its table loads (cf. cryptsetup:). */
#define IC_LUKS_KEY_PREFIX "inlinecrypt:"

/*
 * ic_luks_prepare - load the LUKS header of @device (or --header), refuse
 * what dm-inlinecrypt cannot express, unlock the volume key with a
 * passphrase (terminal, standard input, --key-file, or a LUKS2 keyring
 * token) and fill @t (all but dev_path), @uuid (the dm uuid for the
 * mapping @name; not touched if @name is NULL, for --test-passphrase) and
 * @key_desc (the keyring description for the volume key,
 * "inlinecrypt:<LUKS uuid>-d0").
 * @device_sectors: size of the data device in 512-byte sectors.
 * Return: an IC_EXIT_* code; messages already printed.
 */
int ic_luks_prepare(const struct ic_args *a, const char *device, const char *name,
		    uint64_t device_sectors, struct ic_table *t,
		    char *uuid, size_t uuidlen, char *key_desc, size_t desclen);

/*
 * ic_luks_volume_key - for a mapping that is active (resume, resize):
 * load the LUKS header of @device (or --header), check that it is the
 * mapping's (its uuid is in @dm_uuid, cryptsetup's CRYPT-LUKS2-<uuid>-...),
 * unlock the volume key into @t->key (@t->cipher set by the caller from
 * the table) and fill @key_desc as ic_luks_prepare() does.
 * Return: an IC_EXIT_* code; messages already printed.
 */
int ic_luks_volume_key(const struct ic_args *a, const char *device, const char *dm_uuid,
		       struct ic_table *t, char *key_desc, size_t desclen);

/*
 * ic_luks_fixed_size - the size in bytes of the LUKS2 data segment of
 * @device (or --header) if it is fixed, 0 if it is "dynamic" (to the end
 * of the device) or the header is LUKS1.
 * Return: an IC_EXIT_* code; messages already printed.
 */
int ic_luks_fixed_size(const struct ic_args *a, const char *device, uint64_t *bytes);

/* ic_luks_exit_code - cryptsetup's exit code for a libcryptsetup -errno. */
int ic_luks_exit_code(int r);

#endif
