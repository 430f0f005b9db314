// SPDX-License-Identifier: GPL-2.0
/*
 * LUKS header -> dm-inlinecrypt table.
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "luks-map.h"
#include "util.h"

static void list_ciphers(char *buf, size_t len)
{
	size_t i, pos = 0;

	buf[0] = '\0';
	for (i = 0; i < ic_n_ciphers && pos < len; i++) {
		int n = snprintf(buf + pos, len - pos, "%s%s (%u-bit key)", i ? ", " : "",
				 ic_ciphers[i].name, ic_ciphers[i].key_size * 8);

		if (n < 0)
			break;
		pos += (size_t)n;
	}
}

const struct ic_cipher *ic_luks_cipher(const char *cipher, const char *mode,
				       unsigned int key_size, char *err, size_t errlen)
{
	const struct ic_cipher *c;
	char name[128], known[256];
	const char *iv;

	if (!cipher || !mode || !*cipher || !*mode) {
		set_error(err, errlen, "the header names no cipher");
		return NULL;
	}
	if (strncmp(cipher, "capi:", 5) == 0) {
		set_error(err, errlen, "cipher '%s' is in kernel crypto API notation, "
		     "which has no blk-crypto equivalent", cipher);
		return NULL;
	}
	snprintf(name, sizeof(name), "%s-%s", cipher, mode);
	c = ic_cipher_lookup(name);
	if (c) {
		if (c->key_size != key_size) {
			set_error(err, errlen, "cipher %s with a %u-bit key has no blk-crypto mode: "
			     "blk-crypto's %s takes only %u-bit keys",
			     name, key_size * 8, c->blk_crypto_mode, c->key_size * 8);
			return NULL;
		}
		return c;
	}
	/* Say why when a near miss is likely: the IV generator. */
	iv = strchr(mode, '-');
	if (iv && strcmp(iv + 1, "plain") == 0) {
		set_error(err, errlen, "cipher %s uses the 32-bit 'plain' IV, which wraps at 2 TiB; "
		     "blk-crypto's data unit number is 64-bit (plain64)", name);
		return NULL;
	}
	list_ciphers(known, sizeof(known));
	set_error(err, errlen, "cipher %s has no blk-crypto mode (supported: %s)", name, known);
	return NULL;
}

int ic_luks_fill_table(const struct ic_luks_info *info, struct ic_table *t,
		       char *err, size_t errlen)
{
	const char *type = info->type ? info->type : "LUKS";
	char why[512];

	if (info->integrity && *info->integrity)
		return set_error(err, errlen, "%s volume has integrity protection (%s): "
			    "blk-crypto has no authenticated encryption", type,
			    info->integrity);
	t->cipher = ic_luks_cipher(info->cipher, info->cipher_mode, info->key_size,
				   why, sizeof(why));
	if (!t->cipher)
		return set_error(err, errlen, "%s volume cannot be mapped: %s", type, why);
	switch (info->sector_size) {
	case 512: case 1024: case 2048: case 4096:
		break;
	default:
		return set_error(err, errlen, "%s volume has sector size %u: blk-crypto data units "
			    "are 512 to 4096 bytes", type, info->sector_size);
	}
	t->sector_size = info->sector_size;
	/*
	 * cryptsetup maps LUKS volumes with 4096-byte sectors without
	 * iv_large_sectors: the IV is the 512-byte sector number. The target
	 * supports that mode, so the table mirrors what cryptsetup loads.
	 */
	t->iv_large_sectors = info->iv_large_sectors && info->sector_size > 512;
	t->allow_discards = t->allow_discards || info->allow_discards;
	t->start = info->data_offset;
	t->iv_offset = info->iv_offset;
	return 0;
}

int ic_luks_json_segment_size(const char *json, bool *dynamic, uint64_t *bytes)
{
	const char *p = strstr(json, "\"segments\"");
	char num[32];
	size_t n;

	if (!p)
		return -1;
	p = strstr(p, "\"size\"");
	if (!p)
		return -1;
	p += strlen("\"size\"");
	while (*p == ' ' || *p == '\t' || *p == '\n')
		p++;
	if (*p++ != ':')
		return -1;
	while (*p == ' ' || *p == '\t' || *p == '\n')
		p++;
	if (*p++ != '"')
		return -1;
	n = strcspn(p, "\"");
	if (p[n] != '"' || n == 0 || n >= sizeof(num))
		return -1;
	memcpy(num, p, n);
	num[n] = '\0';
	if (strcmp(num, "dynamic") == 0) {
		*dynamic = true;
		*bytes = 0;
		return 0;
	}
	*dynamic = false;
	return parse_u64(num, bytes);
}

int ic_luks_length(uint64_t device_sectors, uint64_t data_offset,
		   bool dynamic, uint64_t segment_bytes, unsigned int sector_size,
		   uint64_t *length, char *err, size_t errlen)
{
	uint64_t units = sector_size >> IC_SECTOR_SHIFT;
	uint64_t len;

	if (!units)
		return set_error(err, errlen, "invalid sector size %u", sector_size);
	if (device_sectors <= data_offset)
		return set_error(err, errlen, "device (%llu sectors) ends before the data offset "
			    "(%llu sectors)", (unsigned long long)device_sectors,
			    (unsigned long long)data_offset);
	if (dynamic) {
		/* cryptsetup refuses this too rather than hide the tail. */
		len = device_sectors - data_offset;
		if (len % units)
			return set_error(err, errlen, "device size after the data offset (%llu "
				    "sectors) is not a multiple of the sector size %u",
				    (unsigned long long)len, sector_size);
	} else {
		if (segment_bytes % sector_size)
			return set_error(err, errlen, "segment size %llu bytes is not a multiple "
				    "of the sector size %u",
				    (unsigned long long)segment_bytes, sector_size);
		len = segment_bytes >> IC_SECTOR_SHIFT;
		if (len > device_sectors - data_offset)
			return set_error(err, errlen, "segment (%llu sectors) is larger than the "
				    "device after the data offset (%llu sectors)",
				    (unsigned long long)len,
				    (unsigned long long)(device_sectors - data_offset));
	}
	if (!len)
		return set_error(err, errlen, "no whole %u-byte sector after the data offset",
			    sector_size);
	*length = len;
	return 0;
}
