// SPDX-License-Identifier: GPL-2.0
/*
 * fscrypt v2 policy options for fscrypt-key.
 */
#include <ctype.h>
#include <stdio.h>
#include <string.h>

#include "fscrypt-policy.h"
#include "util.h"

static const struct {
	const char *name;
	int mode;
} fscrypt_modes[] = {
	{ "aes-256-xts", FSCRYPT_MODE_AES_256_XTS },
	{ "aes-256-cts", FSCRYPT_MODE_AES_256_CTS },
	{ "aes-128-cbc", FSCRYPT_MODE_AES_128_CBC },
	{ "aes-128-cts", FSCRYPT_MODE_AES_128_CTS },
	{ "sm4-xts", FSCRYPT_MODE_SM4_XTS },
	{ "sm4-cts", FSCRYPT_MODE_SM4_CTS },
	{ "adiantum", FSCRYPT_MODE_ADIANTUM },
	{ "aes-256-hctr2", FSCRYPT_MODE_AES_256_HCTR2 },
};

#define N_MODES (sizeof(fscrypt_modes) / sizeof(fscrypt_modes[0]))

/* Case-insensitive, and '_' matches '-', so fscryptctl's spelling works too. */
static int mode_name_eq(const char *a, const char *b)
{
	for (; *a && *b; a++, b++) {
		int ca = *a == '_' ? '-' : tolower((unsigned char)*a);
		int cb = *b == '_' ? '-' : tolower((unsigned char)*b);

		if (ca != cb)
			return 0;
	}
	return *a == *b;
}

int fscrypt_mode_by_name(const char *name)
{
	uint64_t n;
	size_t i;

	for (i = 0; i < N_MODES; i++)
		if (mode_name_eq(name, fscrypt_modes[i].name))
			return fscrypt_modes[i].mode;
	if (parse_u64(name, &n) == 0 && n > 0 && n < 256)
		return (int)n;
	return -1;
}

const char *fscrypt_mode_name(int mode)
{
	size_t i;

	for (i = 0; i < N_MODES; i++)
		if (fscrypt_modes[i].mode == mode)
			return fscrypt_modes[i].name;
	return NULL;
}

/*
 * Split "--opt=value" or take the value from the next argument.
 * Return: the value, or NULL when it is missing.
 */
static const char *option_value(const char *arg, const char *next, int *i,
				 const char *opt)
{
	size_t len = strlen(opt);

	if (arg[len] == '=')
		return arg + len + 1;
	if (!next)
		return NULL;
	++*i;
	return next;
}

static int opt_is(const char *arg, const char *opt)
{
	size_t len = strlen(opt);

	return strncmp(arg, opt, len) == 0 && (arg[len] == '\0' || arg[len] == '=');
}

int fscrypt_parse_policy_args(int argc, char *const argv[],
			      struct fscrypt_policy_v2 *pol,
			      char *err, size_t errlen)
{
	int i;

	pol->version = FSCRYPT_POLICY_V2;
	pol->contents_encryption_mode = FSCRYPT_MODE_AES_256_XTS;
	pol->filenames_encryption_mode = FSCRYPT_MODE_AES_256_CTS;
	pol->flags = FSCRYPT_POLICY_FLAGS_PAD_32;
	memset(pol->__reserved, 0, sizeof(pol->__reserved));

	for (i = 0; i < argc; i++) {
		const char *arg = argv[i];
		const char *next = i + 1 < argc ? argv[i + 1] : NULL;
		const char *val;

		if (opt_is(arg, "--contents") || opt_is(arg, "--filenames")) {
			int contents = opt_is(arg, "--contents");
			int mode;

			val = option_value(arg, next, &i,
					   contents ? "--contents" : "--filenames");
			if (!val) {
				snprintf(err, errlen, "option %s needs a mode", arg);
				return -1;
			}
			mode = fscrypt_mode_by_name(val);
			if (mode < 0) {
				snprintf(err, errlen, "unknown encryption mode '%s'", val);
				return -1;
			}
			if (contents)
				pol->contents_encryption_mode = (__u8)mode;
			else
				pol->filenames_encryption_mode = (__u8)mode;
		} else if (opt_is(arg, "--padding")) {
			uint64_t pad;

			val = option_value(arg, next, &i, "--padding");
			if (!val || parse_u64(val, &pad) != 0 ||
			    (pad != 4 && pad != 8 && pad != 16 && pad != 32)) {
				snprintf(err, errlen, "--padding must be 4, 8, 16 or 32");
				return -1;
			}
			pol->flags &= (__u8)~FSCRYPT_POLICY_FLAGS_PAD_MASK;
			pol->flags |= pad == 4 ? FSCRYPT_POLICY_FLAGS_PAD_4 :
				      pad == 8 ? FSCRYPT_POLICY_FLAGS_PAD_8 :
				      pad == 16 ? FSCRYPT_POLICY_FLAGS_PAD_16 :
						  FSCRYPT_POLICY_FLAGS_PAD_32;
		} else if (strcmp(arg, "--direct-key") == 0) {
			pol->flags |= FSCRYPT_POLICY_FLAG_DIRECT_KEY;
		} else if (strcmp(arg, "--iv-ino-lblk-64") == 0) {
			pol->flags |= FSCRYPT_POLICY_FLAG_IV_INO_LBLK_64;
		} else if (strcmp(arg, "--iv-ino-lblk-32") == 0) {
			pol->flags |= FSCRYPT_POLICY_FLAG_IV_INO_LBLK_32;
		} else {
			snprintf(err, errlen, "unknown option '%s'", arg);
			return -1;
		}
	}
	return 0;
}
