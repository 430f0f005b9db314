// SPDX-License-Identifier: GPL-2.0
/*
 * Host unit tests for the pure logic of the userspace tools: hex and key
 * parsing, table lines (build, parse, round trip, checks), LUKS header to
 * table mapping, the command line, fscrypt policy options. Table-driven;
 * a mismatch prints got/want. No device, no ioctl, no root needed.
 *
 * Output: "ok N name" / "not ok N name" lines and "N passed, N failed".
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "fscrypt-policy.h"
#include "luks-map.h"
#include "table.h"
#include "util.h"

static int n_run, n_failed;

static void report(int pass, const char *name)
{
	n_run++;
	if (!pass)
		n_failed++;
	printf("%sok %d %s\n", pass ? "" : "not ", n_run, name);
}

static void check(int cond, const char *name)
{
	report(cond, name);
}

static void check_str(const char *got, const char *want, const char *name)
{
	int pass = got && want && strcmp(got, want) == 0;

	report(pass, name);
	if (!pass) {
		printf("#   got:  '%s'\n", got ? got : "(null)");
		printf("#   want: '%s'\n", want ? want : "(null)");
	}
}

/* A message must mention @part (we do not freeze whole messages). */
static void check_err(int ret, const char *err, const char *part, const char *name)
{
	int pass = ret != 0 && strstr(err, part) != NULL;

	report(pass, name);
	if (!pass)
		printf("#   ret %d, error '%s', want it to contain '%s'\n", ret, err, part);
}

/* 64 bytes 00 01 02 .. 3f: XTS halves differ. */
static const char *key64_hex =
	"000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f"
	"202122232425262728292a2b2c2d2e2f303132333435363738393a3b3c3d3e3f";

static void test_hex(void)
{
	uint8_t buf[8];
	char out[17];

	check(hex_decode("00ff7Fa0", buf, 4) == 0 && buf[0] == 0 && buf[1] == 0xff &&
	      buf[2] == 0x7f && buf[3] == 0xa0, "hex_decode mixed case");
	check(hex_decode("00ff7", buf, 3) == -1, "hex_decode odd length rejected");
	check(hex_decode("00ff", buf, 3) == -1, "hex_decode wrong length rejected");
	check(hex_decode("0g", buf, 1) == -1, "hex_decode non-hex rejected");
	check(hex_decode_any("", buf, 8) == 0, "hex_decode_any empty is 0 bytes");
	check(hex_decode_any("000000000000000000", buf, 8) == -1, "hex_decode_any overflow");
	hex_encode((const uint8_t *)"\x01\xab\xff", 3, out);
	check_str(out, "01abff", "hex_encode lowercase");
}

static void test_parse_u64(void)
{
	static const struct {
		const char *s;
		int ret;
		uint64_t v;
	} v[] = {
		{ "0", 0, 0 }, { "4294967296", 0, 4294967296ULL },
		{ "18446744073709551615", 0, UINT64_MAX }, { "0x10", 0, 16 },
		{ "010", 0, 10 }, { "18446744073709551616", -1, 0 }, { "", -1, 0 },
		{ "-1", -1, 0 }, { "+1", -1, 0 }, { " 1", -1, 0 }, { "1 ", -1, 0 },
		{ "12k", -1, 0 }, { "0x", -1, 0 },
	};
	char name[80];
	size_t i;

	for (i = 0; i < sizeof(v) / sizeof(v[0]); i++) {
		uint64_t got = 0;
		int r = parse_u64(v[i].s, &got);

		snprintf(name, sizeof(name), "parse_u64 '%s'", v[i].s);
		check(r == v[i].ret && (r || got == v[i].v), name);
	}
}

static void test_ciphers(void)
{
	static const struct {
		const char *name;
		unsigned int key_size;
	} v[] = {
		{ "aes-xts-plain64", 64 }, { "aes-cbc-essiv:sha256", 16 },
		{ "xchacha12,aes-adiantum-plain64", 32 }, { "sm4-xts-plain64", 32 },
	};
	char name[80];
	size_t i;

	check(ic_n_ciphers == 4, "four ciphers");
	for (i = 0; i < sizeof(v) / sizeof(v[0]); i++) {
		const struct ic_cipher *c = ic_cipher_lookup(v[i].name);

		snprintf(name, sizeof(name), "cipher %s has a %u-byte key", v[i].name,
			 v[i].key_size);
		check(c && c->key_size == v[i].key_size, name);
	}
	check(!ic_cipher_lookup("aes-xts-plain"), "cipher aes-xts-plain unknown");
	check(!ic_cipher_lookup("AES-XTS-PLAIN64"), "cipher names are case-sensitive");
	check(!ic_cipher_lookup("xchacha20,aes-adiantum-plain64"), "xchacha20 unknown");
}

static void test_key_parse(void)
{
	struct ic_key k;
	char err[256] = "";
	int r;

	r = ic_key_parse_table(key64_hex, &k, err, sizeof(err));
	check(r == 0 && k.type == IC_KEY_RAW && k.size == 64 && k.raw[63] == 0x3f,
	      "table key: 64-byte hex");
	r = ic_key_parse_table(":64:logon:cryptsetup:abc-d0", &k, err, sizeof(err));
	check(r == 0 && k.type == IC_KEY_LOGON && k.size == 64 &&
	      !strcmp(k.desc, "cryptsetup:abc-d0"), "table key: logon reference, ':' in desc");
	r = ic_key_parse_table(":32:user:k1", &k, err, sizeof(err));
	check(r == 0 && k.type == IC_KEY_USER && k.size == 32, "table key: user reference");
	r = ic_key_parse_table(":32:trusted:k1", &k, err, sizeof(err));
	check_err(r, err, "trusted", "table key: trusted type rejected");
	r = ic_key_parse_table(":0:logon:k1", &k, err, sizeof(err));
	check_err(r, err, "size", "table key: zero size rejected");
	r = ic_key_parse_table(":65:logon:k1", &k, err, sizeof(err));
	check_err(r, err, "size", "table key: size 65 rejected");
	r = ic_key_parse_table(":x:logon:k1", &k, err, sizeof(err));
	check_err(r, err, "size", "table key: non-numeric size rejected");
	r = ic_key_parse_table(":32:logon:", &k, err, sizeof(err));
	check_err(r, err, "empty", "table key: empty description rejected");
	r = ic_key_parse_table(":32:logon", &k, err, sizeof(err));
	check_err(r, err, "reference", "table key: missing description rejected");
	r = ic_key_parse_table("0011zz", &k, err, sizeof(err));
	check_err(r, err, "hex", "table key: bad hex rejected");
	check(k.type == IC_KEY_NONE && k.raw[0] == 0, "table key: bad hex leaves no bytes");
	r = ic_key_parse_table("-", &k, err, sizeof(err));
	check(r == 0 && k.type == IC_KEY_WIPED, "table key: '-' is a wiped key");

	r = ic_key_parse_desc("logon:vol1", 64, &k, err, sizeof(err));
	check(r == 0 && k.type == IC_KEY_LOGON && k.size == 64 && !strcmp(k.desc, "vol1"),
	      "--key-desc logon:NAME");
	r = ic_key_parse_desc("user:vol1", 32, &k, err, sizeof(err));
	check(r == 0 && k.type == IC_KEY_USER && k.size == 32, "--key-desc user:NAME");
	r = ic_key_parse_desc("vol1", 16, &k, err, sizeof(err));
	check(r == 0 && k.type == IC_KEY_LOGON && !strcmp(k.desc, "vol1"),
	      "--key-desc bare NAME is logon");
	r = ic_key_parse_desc("cryptsetup:x", 16, &k, err, sizeof(err));
	check(r == 0 && k.type == IC_KEY_LOGON && !strcmp(k.desc, "cryptsetup:x"),
	      "--key-desc bare NAME with ':' is logon");
	r = ic_key_parse_desc(":64:logon:vol1", 64, &k, err, sizeof(err));
	check(r == 0 && k.type == IC_KEY_LOGON, "--key-desc full reference");
	r = ic_key_parse_desc(":32:logon:vol1", 64, &k, err, sizeof(err));
	check_err(r, err, "needs 64", "--key-desc size mismatch rejected");
	r = ic_key_parse_desc("logon:has space", 64, &k, err, sizeof(err));
	check_err(r, err, "blank", "--key-desc with a blank rejected");
}

static void make_table(struct ic_table *t, const char *cipher)
{
	char err[256];

	ic_table_init(t);
	t->cipher = ic_cipher_lookup(cipher);
	ic_key_parse_table(key64_hex, &t->key, err, sizeof(err));
	t->key.size = t->cipher->key_size;
	if (t->cipher->key_size == 32)	/* keep the XTS halves different */
		t->key.raw[16] ^= 0x80;
	snprintf(t->dev_path, sizeof(t->dev_path), "8:16");
	t->length = 8192;
}

/* @tmpl with its "%s" replaced by @key. */
static void subst_key(char *out, size_t len, const char *tmpl, const char *key)
{
	const char *at = strstr(tmpl, "%s");

	snprintf(out, len, "%.*s%s%s", (int)(at - tmpl), tmpl, key, at + 2);
}

static void test_table_build(void)
{
	static const struct {
		const char *cipher;
		unsigned int sector_size;
		uint64_t iv_offset, start;
		bool discards, large, inline_only, passthrough;
		const char *want;
	} v[] = {
		{ "aes-xts-plain64", 512, 0, 0, 0, 0, 0, 0,
		  "aes-xts-plain64 %s 0 8:16 0" },
		{ "aes-xts-plain64", 4096, 4294967288ULL, 2048, 1, 1, 1, 1,
		  "aes-xts-plain64 %s 4294967288 8:16 2048 5 allow_discards "
		  "sector_size:4096 iv_large_sectors inline_only passthrough" },
		{ "aes-xts-plain64", 4096, 8, 0, 0, 0, 0, 0,
		  "aes-xts-plain64 %s 8 8:16 0 1 sector_size:4096" },
		{ "aes-cbc-essiv:sha256", 1024, 2, 2, 0, 0, 0, 0,
		  "aes-cbc-essiv:sha256 %s 2 8:16 2 1 sector_size:1024" },
		{ "xchacha12,aes-adiantum-plain64", 512, 0, 0, 0, 0, 0, 1,
		  "xchacha12,aes-adiantum-plain64 %s 0 8:16 0 1 passthrough" },
		{ "sm4-xts-plain64", 2048, 0, 4, 0, 1, 1, 0,
		  "sm4-xts-plain64 %s 0 8:16 4 3 sector_size:2048 iv_large_sectors "
		  "inline_only" },
	};
	static struct ic_table t, back;
	char params[IC_PARAMS_MAX], again[IC_PARAMS_MAX], want[IC_PARAMS_MAX];
	char hex[2 * MAX_KEY_SIZE + 1], name[128], err[256];
	size_t i;

	for (i = 0; i < sizeof(v) / sizeof(v[0]); i++) {
		make_table(&t, v[i].cipher);
		t.sector_size = v[i].sector_size;
		t.iv_offset = v[i].iv_offset;
		t.start = v[i].start;
		t.allow_discards = v[i].discards;
		t.iv_large_sectors = v[i].large;
		t.inline_only = v[i].inline_only;
		t.passthrough = v[i].passthrough;
		hex_encode(t.key.raw, t.key.size, hex);
		subst_key(want, sizeof(want), v[i].want, hex);

		snprintf(name, sizeof(name), "table %zu %s/%u: check passes", i, v[i].cipher,
			 v[i].sector_size);
		err[0] = '\0';
		check(ic_table_check(&t, err, sizeof(err)) == 0, name);
		if (err[0])
			printf("#   %s\n", err);
		snprintf(name, sizeof(name), "table %zu %s/%u: parameters fit", i, v[i].cipher,
			 v[i].sector_size);
		check(ic_table_params(&t, params, sizeof(params)) == 0, name);
		snprintf(name, sizeof(name), "table %zu %s/%u: parameters as documented", i,
			 v[i].cipher, v[i].sector_size);
		check_str(params, want, name);
		snprintf(name, sizeof(name), "table %zu %s/%u: parses back", i,
			 v[i].cipher, v[i].sector_size);
		check(ic_table_parse(params, &back, err, sizeof(err)) == 0 &&
		      ic_table_params(&back, again, sizeof(again)) == 0, name);
		snprintf(name, sizeof(name), "table %zu %s/%u: round trip unchanged", i,
			 v[i].cipher, v[i].sector_size);
		check_str(again, params, name);
	}
	/* Keyring references print as references, never as bytes. */
	make_table(&t, "aes-xts-plain64");
	ic_key_parse_desc("logon:cryptsetup:0123-d0", 64, &t.key, err, sizeof(err));
	ic_table_params(&t, params, sizeof(params));
	check_str(params, "aes-xts-plain64 :64:logon:cryptsetup:0123-d0 0 8:16 0",
		  "table with a logon key reference");
	check(ic_table_params(&t, params, 20) == -1 && params[0] == '\0',
	      "table parameters too long for the buffer: error, buffer wiped");
}

static void test_table_parse(void)
{
	static const char *const good[] = {
		/* What cryptsetup loads for a LUKS2 volume, target renamed. */
		"aes-xts-plain64 :64:logon:cryptsetup:21ed00a358ae44ebbd90c319374d6aff-d0 0 "
		"7:0 32768 1 sector_size:4096",
		/* dm-crypt's performance flags load and print back in its order. */
		"aes-xts-plain64 :64:logon:k 0 7:0 0 4 allow_discards same_cpu_crypt "
		"no_read_workqueue no_write_workqueue",
		"aes-cbc-essiv:sha256 :16:user:k 18446744073709551615 /dev/sda 1",
	};
	static const struct {
		const char *line, *part;
	} bad[] = {
		{ "aes-xts-plain64 :64:logon:k 0 7:0", "at least 5" },
		{ "aes-ecb :64:logon:k 0 7:0 0", "unknown cipher" },
		{ "aes-xts-plain64 :64:logon:k x 7:0 0", "iv_offset" },
		{ "aes-xts-plain64 :64:logon:k 0 7:0 -1", "start" },
		{ "aes-xts-plain64 :64:logon:k 0 7:0 0 2 allow_discards", "count" },
		{ "aes-xts-plain64 :64:logon:k 0 7:0 0 1 bogus", "unknown option" },
		{ "aes-xts-plain64 :64:logon:k 0 7:0 0 1 sector_size:x", "sector_size" },
		{ "aes-xts-plain64 zz 0 7:0 0", "hex" },
	};
	static struct ic_table t;
	char params[IC_PARAMS_MAX], err[256], name[160];
	size_t i;

	for (i = 0; i < sizeof(good) / sizeof(good[0]); i++) {
		snprintf(name, sizeof(name), "parse good table %zu", i);
		err[0] = '\0';
		check(ic_table_parse(good[i], &t, err, sizeof(err)) == 0 &&
		      ic_table_params(&t, params, sizeof(params)) == 0, name);
		snprintf(name, sizeof(name), "good table %zu builds back unchanged", i);
		check_str(params, good[i], name);
	}
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		snprintf(name, sizeof(name), "parse bad table %zu rejected (%s)", i, bad[i].part);
		err[0] = '\0';
		check_err(ic_table_parse(bad[i].line, &t, err, sizeof(err)), err, bad[i].part,
			  name);
	}
}

static void test_table_check(void)
{
	static struct ic_table t;
	char err[256];

	make_table(&t, "aes-xts-plain64");
	t.key.size = 32;
	check_err(ic_table_check(&t, err, sizeof(err)), err, "64-byte",
		  "check: wrong key size for the cipher");
	make_table(&t, "aes-xts-plain64");
	memcpy(t.key.raw + 32, t.key.raw, 32);
	check_err(ic_table_check(&t, err, sizeof(err)), err, "halves",
		  "check: equal XTS halves");
	make_table(&t, "sm4-xts-plain64");
	memcpy(t.key.raw + 16, t.key.raw, 16);
	check_err(ic_table_check(&t, err, sizeof(err)), err, "halves",
		  "check: equal SM4-XTS halves");
	make_table(&t, "aes-cbc-essiv:sha256");
	check(ic_table_check(&t, err, sizeof(err)) == 0, "check: CBC key has no halves rule");
	make_table(&t, "aes-xts-plain64");
	t.sector_size = 8192;
	check_err(ic_table_check(&t, err, sizeof(err)), err, "sector size",
		  "check: sector size 8192");
	t.sector_size = 3072;
	check_err(ic_table_check(&t, err, sizeof(err)), err, "sector size",
		  "check: sector size 3072");
	make_table(&t, "aes-xts-plain64");
	t.sector_size = 4096;
	t.iv_offset = 4;
	check_err(ic_table_check(&t, err, sizeof(err)), err, "IV offset",
		  "check: misaligned iv_offset");
	t.iv_offset = 0;
	t.start = 1;
	check_err(ic_table_check(&t, err, sizeof(err)), err, "offset",
		  "check: misaligned start");
	t.start = 0;
	t.length = 8193;
	check_err(ic_table_check(&t, err, sizeof(err)), err, "size",
		  "check: misaligned length");
	t.length = 0;
	check_err(ic_table_check(&t, err, sizeof(err)), err, "zero", "check: zero length");
	make_table(&t, "aes-xts-plain64");
	t.iv_large_sectors = true;
	check_err(ic_table_check(&t, err, sizeof(err)), err, "iv_large_sectors",
		  "check: iv_large_sectors with 512-byte sectors");
	make_table(&t, "aes-xts-plain64");
	t.key.type = IC_KEY_LOGON;
	memcpy(t.key.raw + 32, t.key.raw, 32);
	snprintf(t.key.desc, sizeof(t.key.desc), "k");
	check(ic_table_check(&t, err, sizeof(err)) == 0,
	      "check: keyring key bytes are not ours to check");
}

static void test_status(void)
{
	struct ic_target_status st;

	check(ic_status_parse("hw aes-xts-plain64 4096 3 12288 5 20480 0", &st) == 0 &&
	      !strcmp(st.engine, "hw") && st.data_unit_size == 4096 &&
	      st.bios_encrypted == 3 && st.bytes_encrypted == 12288 &&
	      st.bios_decrypted == 5 && st.bytes_decrypted == 20480 &&
	      st.bios_passed_through == 0, "status: hw line parsed");
	check(ic_status_parse("fallback sm4-xts-plain64 512 0 0 0 0 7", &st) == 0 &&
	      !strcmp(st.engine, "fallback") && st.bios_passed_through == 7,
	      "status: fallback line parsed");
	check(ic_status_parse("hw aes-xts-plain64 4096 3 12288 5 20480", &st) == -1,
	      "status: short line is raw");
	check(ic_status_parse("sw aes-xts-plain64 4096 3 12288 5 20480 0", &st) == -1,
	      "status: unknown engine is raw");
	check(ic_status_parse("hw aes-xts-plain64 4096 3 12288 5 20480 0 9", &st) == -1,
	      "status: longer line is raw");
}

static void test_luks_cipher(void)
{
	static const struct {
		const char *cipher, *mode;
		unsigned int key_size;
		const char *want;	/* dm-inlinecrypt cipher, or part of the error */
		bool ok;
	} v[] = {
		{ "aes", "xts-plain64", 64, "aes-xts-plain64", true },
		{ "aes", "cbc-essiv:sha256", 16, "aes-cbc-essiv:sha256", true },
		{ "xchacha12,aes", "adiantum-plain64", 32, "xchacha12,aes-adiantum-plain64", true },
		{ "sm4", "xts-plain64", 32, "sm4-xts-plain64", true },
		{ "aes", "xts-plain64", 32, "256-bit key", false },
		{ "aes", "cbc-essiv:sha256", 32, "takes only 128-bit", false },
		{ "aes", "xts-plain", 64, "32-bit 'plain'", false },
		{ "aes", "xts-plain64be", 64, "no blk-crypto mode", false },
		{ "serpent", "xts-plain64", 64, "no blk-crypto mode", false },
		{ "twofish", "cbc-essiv:sha256", 16, "no blk-crypto mode", false },
		{ "aes", "cbc-essiv:sha512", 16, "no blk-crypto mode", false },
		{ "xchacha20,aes", "adiantum-plain64", 32, "no blk-crypto mode", false },
		{ "capi:xts(aes)", "plain64", 64, "crypto API", false },
		{ "aes", "gcm-random", 32, "no blk-crypto mode", false },
		{ "", "", 0, "no cipher", false },
	};
	char err[512], name[160];
	size_t i;

	for (i = 0; i < sizeof(v) / sizeof(v[0]); i++) {
		const struct ic_cipher *c;

		err[0] = '\0';
		c = ic_luks_cipher(v[i].cipher, v[i].mode, v[i].key_size, err, sizeof(err));
		snprintf(name, sizeof(name), "LUKS cipher %s-%s/%u bits %s", v[i].cipher,
			 v[i].mode, v[i].key_size * 8, v[i].ok ? "maps" : "refused");
		if (v[i].ok)
			check_str(c ? c->name : NULL, v[i].want, name);
		else
			check_err(c != NULL ? 0 : -1, err, v[i].want, name);
	}
}

static void test_luks_table(void)
{
	static struct ic_table t;
	struct ic_luks_info info = {
		.type = "LUKS2", .cipher = "aes", .cipher_mode = "xts-plain64",
		.key_size = 64, .sector_size = 4096, .data_offset = 32768,
	};
	char err[512];

	ic_table_init(&t);
	check(ic_luks_fill_table(&info, &t, err, sizeof(err)) == 0 &&
	      t.sector_size == 4096 && !t.iv_large_sectors && t.start == 32768 &&
	      t.iv_offset == 0 && !t.allow_discards,
	      "LUKS2 4096: sector_size:4096 without iv_large_sectors (cryptsetup's IV)");
	info.iv_large_sectors = true;
	ic_table_init(&t);
	check(ic_luks_fill_table(&info, &t, err, sizeof(err)) == 0 && t.iv_large_sectors,
	      "LUKS2 with the IV_LARGE_SECTORS flag keeps it");
	info.sector_size = 512;
	ic_table_init(&t);
	check(ic_luks_fill_table(&info, &t, err, sizeof(err)) == 0 && !t.iv_large_sectors &&
	      t.sector_size == 512, "LUKS 512: no iv_large_sectors even if flagged");
	info.iv_large_sectors = false;
	info.allow_discards = true;
	info.iv_offset = 16;
	ic_table_init(&t);
	check(ic_luks_fill_table(&info, &t, err, sizeof(err)) == 0 && t.allow_discards &&
	      t.iv_offset == 16, "LUKS2 persistent allow-discards and iv_tweak");
	info.integrity = "hmac(sha256)";
	ic_table_init(&t);
	check_err(ic_luks_fill_table(&info, &t, err, sizeof(err)), err, "integrity",
		  "LUKS2 with integrity refused");
	info.integrity = "";
	info.sector_size = 8192;
	check_err(ic_luks_fill_table(&info, &t, err, sizeof(err)), err, "sector size",
		  "LUKS2 with 8192-byte sectors refused");
	info.sector_size = 512;
	info.cipher = "serpent";
	check_err(ic_luks_fill_table(&info, &t, err, sizeof(err)), err, "serpent",
		  "LUKS2 with serpent refused, naming it");
}

static void test_luks_json(void)
{
	static const char *head = "{\"keyslots\":{\"0\":{\"type\":\"luks2\",\"key_size\":64}},"
				  "\"segments\":{";
	static const struct {
		const char *segments, *part;
	} bad[] = {
		{ "}}", "0 data segments" },
		{ "\"0\":{\"type\":\"crypt\"},\"1\":{\"type\":\"crypt\"}}}", "2 data segments" },
		{ "\"0\":{\"type\":\"linear\",\"offset\":\"0\"}}}", "'linear'" },
		{ "\"0\":{\"type\":\"crypt\",\"offset\":\"12x\",\"size\":\"dynamic\","
		  "\"iv_tweak\":\"0\",\"encryption\":\"aes-xts-plain64\",\"sector_size\":512}}}",
		  "\"offset\" is not a number" },
		{ "\"0\":{\"type\":\"crypt\",\"offset\":\"4096\",\"size\":\"-1\","
		  "\"iv_tweak\":\"0\",\"encryption\":\"aes-xts-plain64\",\"sector_size\":512}}}",
		  "\"size\" is not a number" },
		{ "\"0\":{\"type\":\"crypt\",\"offset\":\"4096\",\"size\":\"dynamic\","
		  "\"encryption\":\"aes-xts-plain64\",\"sector_size\":512}}}", "no \"iv_tweak\"" },
		{ "\"0\":{\"type\":\"crypt\",\"offset\":4096,\"size\":\"dynamic\","
		  "\"iv_tweak\":\"0\",\"encryption\":\"aes-xts-plain64\",\"sector_size\":512}}}",
		  "not a string" },
		{ "\"0\":{\"type\":\"crypt\",\"offset\":\"4096\",\"size\":\"dynamic\","
		  "\"iv_tweak\":\"0\",\"encryption\":\"aes-xts-plain64\"}}}", "sector_size" },
	};
	struct ic_luks_segment seg;
	char json[1024], err[256], name[160];
	size_t i;
	int r;

	/* A "size" of a keyslot area before the segment must not be taken for it. */
	r = ic_luks_json_segment(
		"{\"keyslots\":{\"0\":{\"type\":\"luks2\",\"area\":{\"size\":\"258048\"}}},"
		"\"segments\":{\"0\":{\"type\":\"crypt\",\"offset\":\"16777216\","
		"\"size\":\"dynamic\",\"iv_tweak\":\"0\",\"encryption\":\"aes-xts-plain64\","
		"\"sector_size\":4096}}}", &seg, err, sizeof(err));
	check(r == 0 && seg.dynamic && seg.offset == 16777216 && seg.iv_tweak == 0 &&
	      seg.sector_size == 4096 && !strcmp(seg.encryption, "aes-xts-plain64"),
	      "LUKS2 JSON: dynamic segment");
	r = ic_luks_json_segment(
		"{\"segments\": {\"0\": {\"type\": \"crypt\", \"offset\": \"4096\",\n"
		"  \"size\" : \"1048576\", \"iv_tweak\": \"8\", \"encryption\": \"aes-xts-plain64\",\n"
		"  \"sector_size\": 512}}}", &seg, err, sizeof(err));
	check(r == 0 && !seg.dynamic && seg.size == 1048576 && seg.iv_tweak == 8,
	      "LUKS2 JSON: fixed segment, spaces, iv_tweak");
	check(ic_luks_check_segment(&seg, 8, err, sizeof(err)) == -1 && strstr(err, "iv_tweak 8"),
	      "LUKS2 segment: non-zero iv_tweak refused");
	seg.iv_tweak = 0;
	check(ic_luks_check_segment(&seg, 8, err, sizeof(err)) == 0,
	      "LUKS2 segment: iv_tweak 0, offset agrees");
	check_err(ic_luks_check_segment(&seg, 16, err, sizeof(err)), err, "differs",
		  "LUKS2 segment: offset disagreeing with libcryptsetup refused");
	check_err(ic_luks_json_segment("{\"segments\":", &seg, err, sizeof(err)), err,
		  "not JSON", "LUKS2 JSON: truncated");
	check_err(ic_luks_json_segment("{\"keyslots\":{\"size\":\"1\"}}", &seg, err,
				       sizeof(err)), err, "no segments", "LUKS2 JSON: no segments");
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		snprintf(json, sizeof(json), "%s%s", head, bad[i].segments);
		snprintf(name, sizeof(name), "LUKS2 JSON refused: %s", bad[i].part);
		check_err(ic_luks_json_segment(json, &seg, err, sizeof(err)), err, bad[i].part,
			  name);
	}
}

static void test_luks_length(void)
{
	char err[256];
	uint64_t len = 0;

	check(ic_luks_length(65536, 32768, true, 0, 4096, &len, err, sizeof(err)) == 0 &&
	      len == 32768, "LUKS length: dynamic");
	check_err(ic_luks_length(65537, 32768, true, 0, 4096, &len, err, sizeof(err)),
		  err, "multiple", "LUKS length: dynamic, misaligned device refused");
	check(ic_luks_length(65537, 32768, true, 0, 512, &len, err, sizeof(err)) == 0 &&
	      len == 32769, "LUKS length: dynamic, 512-byte sectors");
	check(ic_luks_length(65536, 32768, false, 1 << 20, 4096, &len, err, sizeof(err)) == 0
	      && len == 2048, "LUKS length: fixed segment");
	check_err(ic_luks_length(65536, 32768, false, 1ULL << 30, 4096, &len, err,
				 sizeof(err)), err, "larger", "LUKS length: segment too big");
	check_err(ic_luks_length(32768, 32768, true, 0, 512, &len, err, sizeof(err)), err,
		  "ends before", "LUKS length: device only holds the header");
}

/* Parse a space-separated command line. */
static int parse_line(const char *line, struct ic_args *a, char *err, size_t errlen)
{
	static char buf[512];
	static char *argv[32];
	int argc = 0, r;
	char *tok, *save = NULL;

	snprintf(buf, sizeof(buf), "inlinecrypt %s", line);
	for (tok = strtok_r(buf, " ", &save); tok && argc < 31; tok = strtok_r(NULL, " ", &save))
		argv[argc++] = tok;
	argv[argc] = NULL;
	err[0] = '\0';
	r = ic_args_parse(argc, argv, a, err, errlen);
	if (!r)
		r = ic_args_check(a, err, errlen);
	return r;
}

static void test_args(void)
{
	static const struct {
		const char *line, *part;
	} bad[] = {
		{ "", "no command" },
		{ "frobnicate x", "unknown command" },
		{ "open /dev/sda", "usage: inlinecrypt open" },
		{ "close", "usage: inlinecrypt close" },
		{ "status a b", "usage: inlinecrypt status" },
		{ "open /dev/sda v", "needs a key" },
		{ "open -d k --key-desc logon:x /dev/sda v", "two key sources" },
		{ "open --bogus /dev/sda v", "unknown option --bogus" },
		{ "open -d", "needs an argument" },
		{ "open -d k --sector-size 8192 /dev/sda v", "sector-size" },
		{ "open -d k --sector-size 4k /dev/sda v", "not a number" },
		{ "open -d k -c aes-xts-plain /dev/sda v", "unknown cipher" },
		{ "open -d k -s 256 /dev/sda v", "takes 512 bits" },
		{ "open -d k -s 7 /dev/sda v", "key size" },
		{ "open -d k -l 32 /dev/sda v", "64-byte" },
		{ "open --keyfile-offset 4 --key-desc x /dev/sda v", "need --key-file" },
		{ "open -d k --iv-large-sectors /dev/sda v", "sector-size above 512" },
		{ "open -d k --size 0 /dev/sda v", "zero" },
		{ "open -d k /dev/sda a/b", "invalid mapping name" },
		{ "open -d k --header h /dev/sda v", "--header" },
		{ "open --luks -c aes-xts-plain64 /dev/sda v", "--cipher" },
		{ "open --luks --sector-size 4096 /dev/sda v", "--sector-size" },
		{ "open --luks -o 8 /dev/sda v", "--offset" },
		{ "open --luks --key-desc logon:x /dev/sda v", "--key-desc" },
		{ "open --luks --iv-large-sectors /dev/sda v", "512-byte" },
		{ "open --type luks3 /dev/sda v", "luks3" },
		{ "open --tries 0 --luks /dev/sda v", "tries" },
		{ "open --luks -S 32 /dev/sda v", "--key-slot" },
		{ "open -S 1 -d k /dev/sda v", "--key-slot is for --luks" },
		{ "open --test-passphrase -d k /dev/sda v", "--test-passphrase is for --luks" },
		{ "open --luks /dev/sda", "usage: inlinecrypt open" },
		{ "open --luks --shared /dev/sda v", "--shared is for plain" },
		{ "open --deferred -d k /dev/sda v", "--deferred is for close" },
		{ "suspend", "usage: inlinecrypt suspend" },
		{ "suspend -d k v", "--key-file cannot be used with suspend" },
		{ "status --luks v", "--luks/--type cannot be used with status" },
		{ "close --size 8 v", "--size cannot be used with close" },
		{ "resume --luks v", "no --luks" },
		{ "resume -c aes-xts-plain64 v", "--cipher cannot be used with resume" },
		{ "resume -d k --key-desc logon:x v", "two key sources" },
		{ "resume --deferred v", "--deferred is for close" },
		{ "resize --sector-size 4096 v", "--sector-size cannot be used with resize" },
		{ "resize --size 0 v", "zero" },
	};
	struct ic_args a;
	char err[512], name[160];
	size_t i;
	int r;

	r = parse_line("open --cipher sm4-xts-plain64 /dev/sdb --key-file - vol "
		       "--sector-size 4096 --iv-large-sectors -o 8 -p 16 --size 800 -r "
		       "--allow-discards --inline-only --passthrough", &a, err, sizeof(err));
	check(r == 0 && !strcmp(a.action, "open") && a.npos == 2 &&
	      !strcmp(a.pos[0], "/dev/sdb") && !strcmp(a.pos[1], "vol") &&
	      !strcmp(a.cipher, "sm4-xts-plain64") && !strcmp(a.key_file, "-") &&
	      a.sector_size == 4096 && a.iv_large_sectors && a.offset == 8 && a.skip == 16 &&
	      a.size == 800 && a.readonly && a.allow_discards && a.inline_only &&
	      a.passthrough && a.type == IC_TYPE_PLAIN, "args: plain open, options anywhere");
	if (r)
		printf("#   %s\n", err);
	r = parse_line("open --type luks2 -d pass --header hdr.img /dev/sdb vol -T 5", &a, err,
		       sizeof(err));
	check(r == 0 && a.type == IC_TYPE_LUKS && !strcmp(a.header, "hdr.img") &&
	      a.tries == 5 && !a.disable_keyring, "args: luks open with header and tries");
	r = parse_line("open --luks --disable-keyring /dev/sdb vol", &a, err, sizeof(err));
	check(r == 0 && a.disable_keyring, "args: --disable-keyring");
	r = parse_line("--luks open --key-file=pass --keyfile-offset=3 -l 10 /dev/sdb vol", &a,
		       err, sizeof(err));
	check(r == 0 && a.type == IC_TYPE_LUKS && a.keyfile_offset == 3 && a.keyfile_size == 10,
	      "args: --opt=value and option before the command");
	r = parse_line("open --iv-offset 0x100000000 --key-desc logon:k /dev/sdb v", &a, err,
		       sizeof(err));
	check(r == 0 && a.skip == 0x100000000ULL && !strcmp(a.key_desc, "logon:k"),
	      "args: --iv-offset above 2^32");
	r = parse_line("open -d k -- /dev/sdb -v", &a, err, sizeof(err));
	check(r == 0 && !strcmp(a.pos[1], "-v") && !a.verbose, "args: -- ends options");
	check(parse_line("--help", &a, err, sizeof(err)) == 0 && a.help, "args: --help");
	check(parse_line("-V", &a, err, sizeof(err)) == 0 && a.version, "args: -V");
	check(parse_line("close vol", &a, err, sizeof(err)) == 0 && !a.deferred, "args: close");
	check(parse_line("close --deferred vol", &a, err, sizeof(err)) == 0 && a.deferred,
	      "args: close --deferred");
	check(parse_line("suspend vol", &a, err, sizeof(err)) == 0, "args: suspend");
	r = parse_line("resume -d pass -S 3 --header h vol", &a, err, sizeof(err));
	check(r == 0 && a.key_slot == 3 && !strcmp(a.key_file, "pass") && !strcmp(a.header, "h"),
	      "args: resume with a passphrase file, keyslot and header");
	check(parse_line("resume --key-desc logon:k vol", &a, err, sizeof(err)) == 0,
	      "args: resume with --key-desc");
	check(parse_line("resize --size 800 vol", &a, err, sizeof(err)) == 0 && a.size == 800,
	      "args: resize --size");
	r = parse_line("open --luks --test-passphrase -d pass /dev/sdb", &a, err, sizeof(err));
	check(r == 0 && a.test_passphrase && a.npos == 1,
	      "args: open --test-passphrase without a name");
	r = parse_line("open --type luks1 --key-slot 2 /dev/sdb v", &a, err, sizeof(err));
	check(r == 0 && a.type == IC_TYPE_LUKS && !strcmp(a.luks_type, "LUKS1") && a.key_slot == 2,
	      "args: --type luks1 --key-slot 2");
	r = parse_line("open --type luks2 /dev/sdb v", &a, err, sizeof(err));
	check(r == 0 && !strcmp(a.luks_type, "LUKS2"), "args: --type luks2");
	r = parse_line("open --luks /dev/sdb v", &a, err, sizeof(err));
	check(r == 0 && !a.luks_type && a.key_slot == -1, "args: --luks takes either version");
	r = parse_line("open --shared -d k -o 8 /dev/sdb v", &a, err, sizeof(err));
	check(r == 0 && a.shared, "args: plain --shared");
	check(parse_line("status vol", &a, err, sizeof(err)) == 0, "args: status");
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		snprintf(name, sizeof(name), "args refused: '%s'", bad[i].line);
		check_err(parse_line(bad[i].line, &a, err, sizeof(err)), err, bad[i].part, name);
	}
}

static void test_plain_table(void)
{
	static struct ic_table t;
	struct ic_args a;
	char err[512];
	int r;

	parse_line("open -d k /dev/sdb v", &a, err, sizeof(err));
	ic_table_init(&t);
	r = ic_plain_table(&a, "8:16", 2048, &t, err, sizeof(err));
	check(r == 0 && !strcmp(t.cipher->name, "aes-xts-plain64") && t.length == 2048 &&
	      t.start == 0 && t.sector_size == 512 && !strcmp(t.dev_path, "8:16"),
	      "plain table: defaults, whole device");
	parse_line("open -d k -o 8 -p 4294967296 --sector-size 4096 --allow-discards "
		   "/dev/sdb v", &a, err, sizeof(err));
	ic_table_init(&t);
	r = ic_plain_table(&a, "8:16", 2056, &t, err, sizeof(err));
	check(r == 0 && t.length == 2048 && t.start == 8 && t.iv_offset == 4294967296ULL &&
	      t.sector_size == 4096 && t.allow_discards, "plain table: offset, skip, flags");
	parse_line("open -d k -o 8 --size 2049 /dev/sdb v", &a, err, sizeof(err));
	ic_table_init(&t);
	check_err(ic_plain_table(&a, "8:16", 2056, &t, err, sizeof(err)), err, "beyond",
		  "plain table: size past the end");
	parse_line("open -d k -o 2056 /dev/sdb v", &a, err, sizeof(err));
	ic_table_init(&t);
	check_err(ic_plain_table(&a, "8:16", 2056, &t, err, sizeof(err)), err, "beyond",
		  "plain table: offset at the end");
	parse_line("open -d k --sector-size 4096 /dev/sdb v", &a, err, sizeof(err));
	ic_table_init(&t);
	ic_key_parse_table(key64_hex, &t.key, err, sizeof(err));
	check_err(ic_plain_table(&a, "8:16", 2049, &t, err, sizeof(err)), err, "multiple",
		  "plain table: device not a multiple of the sector size");
}

static void test_key_file(void)
{
	char path[] = "/tmp/inlinecrypt-unit-XXXXXX";
	uint8_t buf[80];
	long n;
	int fd;

	fd = mkstemp(path);
	if (fd < 0 || write(fd, "0123456789", 10) != 10) {
		report(0, "key file: temporary file");
		if (fd >= 0)
			close(fd);
		return;
	}
	close(fd);
	n = read_key_file(path, 0, buf, 4);
	check(n == 4 && !memcmp(buf, "0123", 4), "key file: first bytes");
	n = read_key_file(path, 6, buf, 64);
	check(n == 4 && !memcmp(buf, "6789", 4), "key file: offset, short file");
	n = read_key_file(path, 20, buf, 64);
	check(n == 0, "key file: offset past the end reads nothing");
	unlink(path);
	n = read_key_file(path, 0, buf, 4);
	check(n == -ENOENT, "key file: missing file is -ENOENT");
}

static void test_fscrypt(void)
{
	struct fscrypt_policy_v2 pol;
	char *const none[] = { NULL };
	char *const opts[] = { "--contents", "aes-128-cbc", "--filenames=aes_128_cts",
			       "--padding", "16", "--iv-ino-lblk-64", NULL };
	char *const bad1[] = { "--contents", "rot13", NULL };
	char *const bad2[] = { "--padding", "3", NULL };
	char *const bad3[] = { "--contents", NULL };
	char err[128];

	check(fscrypt_parse_policy_args(0, none, &pol, err, sizeof(err)) == 0 &&
	      pol.version == FSCRYPT_POLICY_V2 &&
	      pol.contents_encryption_mode == FSCRYPT_MODE_AES_256_XTS &&
	      pol.filenames_encryption_mode == FSCRYPT_MODE_AES_256_CTS &&
	      pol.flags == FSCRYPT_POLICY_FLAGS_PAD_32, "fscrypt policy: defaults");
	check(fscrypt_parse_policy_args(6, opts, &pol, err, sizeof(err)) == 0 &&
	      pol.contents_encryption_mode == FSCRYPT_MODE_AES_128_CBC &&
	      pol.filenames_encryption_mode == FSCRYPT_MODE_AES_128_CTS &&
	      pol.flags == (FSCRYPT_POLICY_FLAGS_PAD_16 | FSCRYPT_POLICY_FLAG_IV_INO_LBLK_64),
	      "fscrypt policy: modes, padding, iv_ino_lblk_64");
	check_err(fscrypt_parse_policy_args(2, bad1, &pol, err, sizeof(err)), err, "rot13",
		  "fscrypt policy: unknown mode");
	check_err(fscrypt_parse_policy_args(2, bad2, &pol, err, sizeof(err)), err, "padding",
		  "fscrypt policy: bad padding");
	check_err(fscrypt_parse_policy_args(1, bad3, &pol, err, sizeof(err)), err, "needs",
		  "fscrypt policy: missing mode");
	check(fscrypt_mode_by_name("AES-256-XTS") == FSCRYPT_MODE_AES_256_XTS &&
	      fscrypt_mode_by_name("adiantum") == FSCRYPT_MODE_ADIANTUM &&
	      fscrypt_mode_by_name("7") == 7 && fscrypt_mode_by_name("aes") == -1,
	      "fscrypt mode names");
}

int main(void)
{
	test_hex();
	test_parse_u64();
	test_ciphers();
	test_key_parse();
	test_table_build();
	test_table_parse();
	test_table_check();
	test_status();
	test_luks_cipher();
	test_luks_table();
	test_luks_json();
	test_luks_length();
	test_args();
	test_plain_table();
	test_key_file();
	test_fscrypt();
	printf("%d passed, %d failed\n", n_run - n_failed, n_failed);
	return n_failed ? 1 : 0;
}
