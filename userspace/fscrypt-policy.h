/* SPDX-License-Identifier: GPL-2.0 */
/*
 * fscrypt v2 policy options for fscrypt-key: mode names and the option
 * parser, kept apart from the ioctls so the unit tests can reach them.
 */
#ifndef INLINECRYPT_FSCRYPT_POLICY_H
#define INLINECRYPT_FSCRYPT_POLICY_H

#include <linux/fscrypt.h>

/* Bookworm's uapi header predates these; the numbers are the kernel's ABI. */
#ifndef FSCRYPT_MODE_SM4_XTS
#define FSCRYPT_MODE_SM4_XTS 7
#endif
#ifndef FSCRYPT_MODE_SM4_CTS
#define FSCRYPT_MODE_SM4_CTS 8
#endif
#ifndef FSCRYPT_MODE_AES_256_HCTR2
#define FSCRYPT_MODE_AES_256_HCTR2 10
#endif
#ifndef FSCRYPT_POLICY_FLAG_IV_INO_LBLK_32
#define FSCRYPT_POLICY_FLAG_IV_INO_LBLK_32 0x10
#endif

/*
 * fscrypt_mode_by_name - "aes-256-xts", "AES_256_XTS" or a number.
 * Return: the FSCRYPT_MODE_* value, or -1.
 */
int fscrypt_mode_by_name(const char *name);

/* fscrypt_mode_name - canonical lowercase name, or NULL if unknown. */
const char *fscrypt_mode_name(int mode);

/*
 * fscrypt_parse_policy_args - fill @pol (version, modes, flags) from the
 * options after "set-policy <dir> <identifier>": --contents MODE,
 * --filenames MODE, --padding 4|8|16|32, --direct-key, --iv-ino-lblk-64,
 * --iv-ino-lblk-32 (also in --opt=value form). Defaults: aes-256-xts,
 * aes-256-cts, padding 32. The identifier is not touched.
 * Return: 0, or -1 with a message for the user in @err (size @errlen).
 */
int fscrypt_parse_policy_args(int argc, char *const argv[],
			      struct fscrypt_policy_v2 *pol,
			      char *err, size_t errlen);

#endif
