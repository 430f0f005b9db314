/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What a LUKS header says, turned into a dm-inlinecrypt table (or a reason
 * why it cannot be). Pure logic: luks.c asks libcryptsetup, this decides.
 */
#ifndef INLINECRYPT_LUKS_MAP_H
#define INLINECRYPT_LUKS_MAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "table.h"

/**
 * struct ic_luks_info - the header fields that decide the mapping.
 * @type: "LUKS1" or "LUKS2" (for messages).
 * @cipher: crypt_get_cipher(), e.g. "aes".
 * @cipher_mode: crypt_get_cipher_mode(), e.g. "xts-plain64".
 * @key_size: crypt_get_volume_key_size(), bytes.
 * @sector_size: crypt_get_sector_size(), bytes.
 * @data_offset: crypt_get_data_offset(), 512-byte sectors.
 * @iv_offset: crypt_get_iv_offset(), 512-byte sectors (0 for LUKS; the
 *	LUKS2 segment's iv_tweak is checked by ic_luks_check_segment()).
 * @integrity: crypt_get_integrity_info().integrity, NULL or "" when none.
 * @iv_large_sectors: CRYPT_ACTIVATE_IV_LARGE_SECTORS among the persistent
 *	activation flags (cryptsetup never sets it for LUKS; kept so a header
 *	that has it is mapped faithfully).
 * @allow_discards: CRYPT_ACTIVATE_ALLOW_DISCARDS among the persistent flags.
 */
struct ic_luks_info {
	const char *type;
	const char *cipher;
	const char *cipher_mode;
	unsigned int key_size;
	unsigned int sector_size;
	uint64_t data_offset;
	uint64_t iv_offset;
	const char *integrity;
	bool iv_large_sectors;
	bool allow_discards;
};

/*
 * ic_luks_cipher - the dm-inlinecrypt cipher for a LUKS cipher, mode and key
 * size ("aes", "xts-plain64", 64 -> aes-xts-plain64).
 * Return: the cipher, or NULL with the reason in @err.
 */
const struct ic_cipher *ic_luks_cipher(const char *cipher, const char *mode,
				       unsigned int key_size, char *err, size_t errlen);

/*
 * ic_luks_fill_table - set cipher, iv_offset, start, sector_size,
 * iv_large_sectors and allow_discards of @t from @info. Key, device and
 * length are the caller's.
 * Return: 0, or -1 with the reason the volume cannot be mapped in @err.
 */
int ic_luks_fill_table(const struct ic_luks_info *info, struct ic_table *t,
		       char *err, size_t errlen);

/**
 * struct ic_luks_segment - the data segment of a LUKS2 header (its JSON).
 * @type: "crypt" (checked).
 * @offset: where the data starts on the device, bytes.
 * @size: segment size in bytes, unless @dynamic (to the end of the device).
 * @iv_tweak: the IV of the segment's first sector.
 * @encryption: the cipher spec, e.g. "aes-xts-plain64".
 * @sector_size: bytes.
 */
struct ic_luks_segment {
	char type[16];
	uint64_t offset;
	bool dynamic;
	uint64_t size;
	uint64_t iv_tweak;
	char encryption[64];
	unsigned int sector_size;
};

/*
 * ic_luks_json_segment - parse a LUKS2 header's JSON (crypt_dump_json())
 * with json-c and return its one data segment.
 * Return: 0, or -1 with the reason in @err (not JSON, no or several
 * segments, a field missing or not a number).
 */
int ic_luks_json_segment(const char *json, struct ic_luks_segment *seg, char *err,
			 size_t errlen);

/*
 * ic_luks_check_segment - the segment agrees with what libcryptsetup said
 * (@data_offset, 512-byte sectors) and can be mapped the way cryptsetup
 * maps it: iv_tweak must be 0 (see luks-map.c).
 * Return: 0, or -1 with the reason in @err.
 */
int ic_luks_check_segment(const struct ic_luks_segment *seg, uint64_t data_offset,
			  char *err, size_t errlen);

/*
 * ic_luks_length - the mapping length in 512-byte sectors: a fixed segment
 * size, or the device size minus the data offset, which must be whole
 * data units (cryptsetup refuses a misaligned device the same way).
 * Return: 0, or -1 with a reason in @err.
 */
int ic_luks_length(uint64_t device_sectors, uint64_t data_offset,
		   bool dynamic, uint64_t segment_bytes, unsigned int sector_size,
		   uint64_t *length, char *err, size_t errlen);

#endif
