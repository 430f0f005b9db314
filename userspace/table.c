// SPDX-License-Identifier: GPL-2.0
/*
 * dm-inlinecrypt table lines: build, parse, check.
 */
#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "table.h"
#include "util.h"

/* Every blk-crypto mode of Linux 6.12, under dm-crypt's names. */
const struct ic_cipher ic_ciphers[] = {
	{ "aes-xts-plain64", 64, "AES-256-XTS" },
	{ "aes-cbc-essiv:sha256", 16, "AES-128-CBC-ESSIV" },
	{ "xchacha12,aes-adiantum-plain64", 32, "Adiantum" },
	{ "sm4-xts-plain64", 32, "SM4-XTS" },
};

const size_t ic_n_ciphers = sizeof(ic_ciphers) / sizeof(ic_ciphers[0]);

static const char *const perf_flag_names[] = {
	"same_cpu_crypt",
	"high_priority",
	"submit_from_crypt_cpus",
	"no_read_workqueue",
	"no_write_workqueue",
};

#define N_PERF_FLAGS (sizeof(perf_flag_names) / sizeof(perf_flag_names[0]))

const struct ic_cipher *ic_cipher_lookup(const char *name)
{
	size_t i;

	for (i = 0; i < ic_n_ciphers; i++)
		if (strcmp(name, ic_ciphers[i].name) == 0)
			return &ic_ciphers[i];
	return NULL;
}

static bool cipher_is_xts(const struct ic_cipher *c)
{
	return strstr(c->name, "-xts-") != NULL;
}

void ic_key_wipe(struct ic_key *key)
{
	wipe(key, sizeof(*key));
}

void ic_table_init(struct ic_table *t)
{
	memset(t, 0, sizeof(*t));
	t->sector_size = IC_SECTOR_SIZE;
}

void ic_table_wipe(struct ic_table *t)
{
	wipe(t, sizeof(*t));
}

/* A description goes into a whitespace-separated table: no blanks, no control characters. */
static int check_desc(const char *desc, char *err, size_t errlen)
{
	const char *p;

	if (!*desc)
		return set_error(err, errlen, "empty key description");
	if (strlen(desc) >= IC_KEY_DESC_MAX)
		return set_error(err, errlen, "key description longer than %d characters",
			    IC_KEY_DESC_MAX - 1);
	for (p = desc; *p; p++)
		if (isspace((unsigned char)*p) || iscntrl((unsigned char)*p))
			return set_error(err, errlen,
				    "key description contains a blank or control character");
	return 0;
}

static int set_ref(struct ic_key *key, const char *type, const char *desc,
		   unsigned int size, char *err, size_t errlen)
{
	if (strcmp(type, "logon") == 0)
		key->type = IC_KEY_LOGON;
	else if (strcmp(type, "user") == 0)
		key->type = IC_KEY_USER;
	else
		return set_error(err, errlen, "key type '%s' not supported (logon or user)", type);
	if (check_desc(desc, err, errlen) != 0)
		return -1;
	key->size = size;
	snprintf(key->desc, sizeof(key->desc), "%s", desc);
	return 0;
}

/* ":<size>:<type>:<desc>" into @key. */
static int parse_ref(const char *s, struct ic_key *key, char *err, size_t errlen)
{
	char sizebuf[16], type[16];
	const char *p = s + 1, *colon;
	uint64_t size;
	size_t n;

	colon = strchr(p, ':');
	if (!colon || (n = (size_t)(colon - p)) == 0 || n >= sizeof(sizebuf))
		return set_error(err, errlen, "keyring reference must be :<size>:<type>:<description>");
	memcpy(sizebuf, p, n);
	sizebuf[n] = '\0';
	if (parse_u64(sizebuf, &size) != 0 || size == 0 || size > MAX_KEY_SIZE)
		return set_error(err, errlen, "invalid key size '%s' in keyring reference", sizebuf);
	p = colon + 1;
	colon = strchr(p, ':');
	if (!colon || (n = (size_t)(colon - p)) == 0 || n >= sizeof(type))
		return set_error(err, errlen, "keyring reference must be :<size>:<type>:<description>");
	memcpy(type, p, n);
	type[n] = '\0';
	return set_ref(key, type, colon + 1, (unsigned int)size, err, errlen);
}

int ic_key_parse_table(const char *s, struct ic_key *key, char *err, size_t errlen)
{
	long n;

	memset(key, 0, sizeof(*key));
	if (s[0] == ':')
		return parse_ref(s, key, err, errlen);
	if (strcmp(s, "-") == 0) {
		key->type = IC_KEY_WIPED;
		return 0;
	}
	n = hex_decode_any(s, key->raw, sizeof(key->raw));
	if (n <= 0) {
		ic_key_wipe(key);
		return set_error(err, errlen, "key is not hex digits or is longer than %d bytes",
			    MAX_KEY_SIZE);
	}
	key->type = IC_KEY_RAW;
	key->size = (unsigned int)n;
	return 0;
}

int ic_key_parse_desc(const char *s, unsigned int key_size, struct ic_key *key,
		      char *err, size_t errlen)
{
	const char *colon;

	memset(key, 0, sizeof(*key));
	if (s[0] == ':') {
		if (parse_ref(s, key, err, errlen) != 0)
			return -1;
		if (key->size != key_size)
			return set_error(err, errlen,
				    "keyring reference says %u bytes, the cipher needs %u",
				    key->size, key_size);
		return 0;
	}
	colon = strchr(s, ':');
	if (colon && (strncmp(s, "logon:", 6) == 0 || strncmp(s, "user:", 5) == 0)) {
		char type[8];

		snprintf(type, sizeof(type), "%.*s", (int)(colon - s), s);
		return set_ref(key, type, colon + 1, key_size, err, errlen);
	}
	return set_ref(key, "logon", s, key_size, err, errlen);
}

static bool is_pow2(unsigned int x)
{
	return x && !(x & (x - 1));
}

int ic_table_check(const struct ic_table *t, char *err, size_t errlen)
{
	const struct ic_cipher *c = t->cipher;
	uint64_t mask;

	if (!c)
		return set_error(err, errlen, "no cipher");
	if (t->key.type == IC_KEY_NONE || t->key.type == IC_KEY_WIPED)
		return set_error(err, errlen, "no key");
	if (t->key.size != c->key_size)
		return set_error(err, errlen, "%s needs a %u-byte (%u-bit) key, got %u bytes",
			    c->name, c->key_size, c->key_size * 8, t->key.size);
	if (t->key.type == IC_KEY_RAW && cipher_is_xts(c) &&
	    memcmp(t->key.raw, t->key.raw + c->key_size / 2, c->key_size / 2) == 0)
		return set_error(err, errlen, "the two halves of the XTS key are equal");
	if (!is_pow2(t->sector_size) || t->sector_size < 512 || t->sector_size > 4096)
		return set_error(err, errlen, "sector size %u is not 512, 1024, 2048 or 4096",
			    t->sector_size);
	if (!t->dev_path[0])
		return set_error(err, errlen, "no device");
	if (t->length == 0)
		return set_error(err, errlen, "mapping size is zero");
	mask = (t->sector_size >> IC_SECTOR_SHIFT) - 1;
	if (t->iv_offset & mask)
		return set_error(err, errlen, "IV offset %llu is not a multiple of the sector size %u",
			    (unsigned long long)t->iv_offset, t->sector_size);
	if (t->start & mask)
		return set_error(err, errlen, "offset %llu is not a multiple of the sector size %u",
			    (unsigned long long)t->start, t->sector_size);
	if (t->length & mask)
		return set_error(err, errlen, "size %llu is not a multiple of the sector size %u",
			    (unsigned long long)t->length, t->sector_size);
	if (t->iv_large_sectors && t->sector_size == IC_SECTOR_SIZE)
		return set_error(err, errlen, "iv_large_sectors needs a sector size above 512");
	return 0;
}

/* Append to @buf at *@pos; Return: 0, or -1 when truncated. */
__attribute__((format(printf, 4, 5)))
static int append(char *buf, size_t buflen, size_t *pos, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (*pos >= buflen)
		return -1;
	va_start(ap, fmt);
	n = vsnprintf(buf + *pos, buflen - *pos, fmt, ap);
	va_end(ap);
	if (n < 0 || (size_t)n >= buflen - *pos)
		return -1;
	*pos += (size_t)n;
	return 0;
}

int ic_table_params(const struct ic_table *t, char *buf, size_t buflen)
{
	char hex[2 * MAX_KEY_SIZE + 1];
	size_t pos = 0;
	unsigned int nopt = 0;
	size_t i;
	int ret = 0;

	if (!buflen)
		return -1;
	buf[0] = '\0';
	if (append(buf, buflen, &pos, "%s ", t->cipher->name))
		return -1;
	switch (t->key.type) {
	case IC_KEY_RAW:
		hex_encode(t->key.raw, t->key.size, hex);
		ret = append(buf, buflen, &pos, "%s", hex);
		wipe(hex, sizeof(hex));
		break;
	case IC_KEY_LOGON:
	case IC_KEY_USER:
		ret = append(buf, buflen, &pos, ":%u:%s:%s", t->key.size,
			     t->key.type == IC_KEY_LOGON ? "logon" : "user", t->key.desc);
		break;
	case IC_KEY_WIPED:
		ret = append(buf, buflen, &pos, "-");
		break;
	default:
		ret = -1;
		break;
	}
	if (ret)
		goto bad;

	nopt = t->allow_discards + (t->sector_size != IC_SECTOR_SIZE) +
	       t->iv_large_sectors + t->inline_only + t->passthrough;
	for (i = 0; i < N_PERF_FLAGS; i++)
		nopt += !!(t->perf_flags & (1u << i));
	ret = append(buf, buflen, &pos, " %llu %s %llu",
		     (unsigned long long)t->iv_offset, t->dev_path,
		     (unsigned long long)t->start);
	if (!ret && nopt)
		ret = append(buf, buflen, &pos, " %u", nopt);
	if (!ret && t->allow_discards)
		ret = append(buf, buflen, &pos, " allow_discards");
	for (i = 0; !ret && i < N_PERF_FLAGS; i++)
		if (t->perf_flags & (1u << i))
			ret = append(buf, buflen, &pos, " %s", perf_flag_names[i]);
	if (!ret && t->sector_size != IC_SECTOR_SIZE)
		ret = append(buf, buflen, &pos, " sector_size:%u", t->sector_size);
	if (!ret && t->iv_large_sectors)
		ret = append(buf, buflen, &pos, " iv_large_sectors");
	if (!ret && t->inline_only)
		ret = append(buf, buflen, &pos, " inline_only");
	if (!ret && t->passthrough)
		ret = append(buf, buflen, &pos, " passthrough");
	if (!ret)
		return 0;
bad:
	wipe(buf, buflen);
	return -1;
}

/* Split @s (modified in place) at blanks into at most @max words. */
static int split_words(char *s, char **words, int max)
{
	int n = 0;

	while (*s) {
		while (*s && isspace((unsigned char)*s))
			*s++ = '\0';
		if (!*s)
			break;
		if (n == max)
			return -1;
		words[n++] = s;
		while (*s && !isspace((unsigned char)*s))
			s++;
	}
	return n;
}

static int parse_option(const char *opt, struct ic_table *t, char *err, size_t errlen)
{
	uint64_t v;
	size_t i;

	for (i = 0; i < N_PERF_FLAGS; i++)
		if (strcmp(opt, perf_flag_names[i]) == 0) {
			t->perf_flags |= 1u << i;
			return 0;
		}
	if (strcmp(opt, "allow_discards") == 0)
		t->allow_discards = true;
	else if (strcmp(opt, "iv_large_sectors") == 0)
		t->iv_large_sectors = true;
	else if (strcmp(opt, "inline_only") == 0)
		t->inline_only = true;
	else if (strcmp(opt, "passthrough") == 0)
		t->passthrough = true;
	else if (strncmp(opt, "sector_size:", 12) == 0) {
		if (parse_u64(opt + 12, &v) != 0 || v > 65536)
			return set_error(err, errlen, "invalid sector_size '%s'", opt + 12);
		t->sector_size = (unsigned int)v;
	} else {
		return set_error(err, errlen, "unknown option '%s'", opt);
	}
	return 0;
}

#define MAX_WORDS 16

int ic_table_parse(const char *params, struct ic_table *t, char *err, size_t errlen)
{
	char copy[IC_PARAMS_MAX];
	char *w[MAX_WORDS];
	uint64_t nopt;
	int n, i, ret = -1;

	ic_table_init(t);
	if (strlen(params) >= sizeof(copy))
		return set_error(err, errlen, "table line too long");
	snprintf(copy, sizeof(copy), "%s", params);
	n = split_words(copy, w, MAX_WORDS);
	if (n < 5) {
		set_error(err, errlen, "table line has %s words, need at least 5",
		     n < 0 ? "too many" : "fewer");
		goto out;
	}
	t->cipher = ic_cipher_lookup(w[0]);
	if (!t->cipher) {
		set_error(err, errlen, "unknown cipher '%s'", w[0]);
		goto out;
	}
	if (ic_key_parse_table(w[1], &t->key, err, errlen) != 0)
		goto out;
	if (parse_u64(w[2], &t->iv_offset) != 0) {
		set_error(err, errlen, "invalid iv_offset '%s'", w[2]);
		goto out;
	}
	if (strlen(w[3]) >= sizeof(t->dev_path)) {
		set_error(err, errlen, "device path too long");
		goto out;
	}
	snprintf(t->dev_path, sizeof(t->dev_path), "%s", w[3]);
	if (parse_u64(w[4], &t->start) != 0) {
		set_error(err, errlen, "invalid start '%s'", w[4]);
		goto out;
	}
	if (n > 5) {
		if (parse_u64(w[5], &nopt) != 0 || nopt != (uint64_t)(n - 6)) {
			set_error(err, errlen, "optional parameter count '%s' does not match %d options",
			     w[5], n - 6);
			goto out;
		}
		for (i = 6; i < n; i++)
			if (parse_option(w[i], t, err, errlen) != 0)
				goto out;
	}
	ret = 0;
out:
	wipe(copy, sizeof(copy));
	if (ret)
		ic_table_wipe(t);
	return ret;
}

int ic_status_parse(const char *line, struct ic_target_status *st)
{
	unsigned long long v[5], bios_enc;
	unsigned int dus;
	char engine[16], cipher[64], junk;

	memset(st, 0, sizeof(*st));
	if (sscanf(line, "%15s %63s %u %llu %llu %llu %llu %llu %c", engine, cipher, &dus,
		   &bios_enc, &v[0], &v[1], &v[2], &v[3], &junk) != 8)
		return -1;
	if (strcmp(engine, "hw") != 0 && strcmp(engine, "fallback") != 0)
		return -1;
	snprintf(st->engine, sizeof(st->engine), "%s", engine);
	snprintf(st->cipher, sizeof(st->cipher), "%s", cipher);
	st->data_unit_size = dus;
	st->bios_encrypted = bios_enc;
	st->bytes_encrypted = v[0];
	st->bios_decrypted = v[1];
	st->bytes_decrypted = v[2];
	st->bios_passed_through = v[3];
	return 0;
}
