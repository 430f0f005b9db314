// SPDX-License-Identifier: GPL-2.0
/*
 * LUKS header -> dm-inlinecrypt table.
 */
#include <json-c/json.h>
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

/*
 * A LUKS2 number: a JSON string of decimal digits (the format stores
 * 64-bit values as strings so that every JSON parser keeps them exact).
 */
static int json_u64(json_object *obj, const char *key, bool required, uint64_t *out,
		    char *err, size_t errlen)
{
	json_object *v;
	const char *s;
	size_t i;

	if (!json_object_object_get_ex(obj, key, &v)) {
		if (!required) {
			*out = 0;
			return 0;
		}
		return set_error(err, errlen, "segment has no \"%s\"", key);
	}
	if (!json_object_is_type(v, json_type_string))
		return set_error(err, errlen, "segment \"%s\" is not a string", key);
	s = json_object_get_string(v);
	for (i = 0; s[i]; i++)
		if (s[i] < '0' || s[i] > '9')
			break;
	if (!i || s[i] || parse_u64(s, out) != 0)
		return set_error(err, errlen, "segment \"%s\" is not a number: '%s'", key, s);
	return 0;
}

int ic_luks_json_segment(const char *json, struct ic_luks_segment *seg, char *err,
			 size_t errlen)
{
	enum json_tokener_error jerr;
	json_object *root, *segs, *obj = NULL, *v;
	const char *size;
	int ret = -1, n = 0;

	memset(seg, 0, sizeof(*seg));
	root = json_tokener_parse_verbose(json, &jerr);
	if (!root)
		return set_error(err, errlen, "LUKS2 metadata is not JSON: %s",
				 json_tokener_error_desc(jerr));
	if (!json_object_is_type(root, json_type_object) ||
	    !json_object_object_get_ex(root, "segments", &segs) ||
	    !json_object_is_type(segs, json_type_object)) {
		set_error(err, errlen, "LUKS2 metadata has no segments object");
		goto out;
	}
	json_object_object_foreach(segs, key, val) {
		(void)key;
		n++;
		obj = val;
	}
	/* More than one: a reencryption's hot zone and backup segments. */
	if (n != 1) {
		set_error(err, errlen, "LUKS2 metadata has %d data segments, this tool maps "
			  "exactly one (reencryption in progress?)", n);
		goto out;
	}
	if (!json_object_is_type(obj, json_type_object) ||
	    !json_object_object_get_ex(obj, "type", &v) ||
	    !json_object_is_type(v, json_type_string)) {
		set_error(err, errlen, "LUKS2 segment has no type");
		goto out;
	}
	snprintf(seg->type, sizeof(seg->type), "%s", json_object_get_string(v));
	if (strcmp(seg->type, "crypt") != 0) {
		set_error(err, errlen, "LUKS2 segment is of type '%s', not 'crypt'", seg->type);
		goto out;
	}
	if (json_u64(obj, "offset", true, &seg->offset, err, errlen) ||
	    json_u64(obj, "iv_tweak", true, &seg->iv_tweak, err, errlen))
		goto out;
	if (!json_object_object_get_ex(obj, "size", &v) ||
	    !json_object_is_type(v, json_type_string)) {
		set_error(err, errlen, "LUKS2 segment has no size");
		goto out;
	}
	size = json_object_get_string(v);
	if (strcmp(size, "dynamic") == 0)
		seg->dynamic = true;
	else if (json_u64(obj, "size", true, &seg->size, err, errlen))
		goto out;
	if (!json_object_object_get_ex(obj, "encryption", &v) ||
	    !json_object_is_type(v, json_type_string)) {
		set_error(err, errlen, "LUKS2 segment has no encryption");
		goto out;
	}
	snprintf(seg->encryption, sizeof(seg->encryption), "%s", json_object_get_string(v));
	if (!json_object_object_get_ex(obj, "sector_size", &v) ||
	    !json_object_is_type(v, json_type_int) || json_object_get_int64(v) <= 0 ||
	    json_object_get_int64(v) > 65536) {
		set_error(err, errlen, "LUKS2 segment has no valid sector_size");
		goto out;
	}
	seg->sector_size = (unsigned int)json_object_get_int64(v);
	ret = 0;
out:
	json_object_put(root);
	return ret;
}

int ic_luks_check_segment(const struct ic_luks_segment *seg, uint64_t data_offset,
			  char *err, size_t errlen)
{
	if (seg->offset != data_offset << IC_SECTOR_SHIFT)
		return set_error(err, errlen, "LUKS2 segment offset %llu bytes differs from the "
				 "data offset libcryptsetup reports (%llu sectors)",
				 (unsigned long long)seg->offset,
				 (unsigned long long)data_offset);
	/*
	 * iv_tweak is where the segment's IVs start. cryptsetup honours it
	 * only in the multi-segment tables of a reencryption
	 * (LUKS2_assembly_multisegment_dmd()); for a single segment it loads
	 * dm-crypt with crypt_get_iv_offset(), which is 0 for LUKS2
	 * (LUKS2_activate()). A volume whose header says otherwise was
	 * written by something else, and any choice may read garbage or
	 * write data the other tools cannot read: refuse it.
	 */
	if (seg->iv_tweak)
		return set_error(err, errlen, "LUKS2 segment has iv_tweak %llu: cryptsetup maps "
				 "it with IV offset 0, the header says %llu; refusing to choose",
				 (unsigned long long)seg->iv_tweak,
				 (unsigned long long)seg->iv_tweak);
	return 0;
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
