// SPDX-License-Identifier: GPL-2.0
/*
 * inlinecrypt command line parsing and checks.
 */
#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "util.h"

enum {
	OPT_KEYFILE_OFFSET = 256,
	OPT_KEY_DESC,
	OPT_SECTOR_SIZE,
	OPT_SIZE,
	OPT_ALLOW_DISCARDS,
	OPT_IV_LARGE_SECTORS,
	OPT_INLINE_ONLY,
	OPT_PASSTHROUGH,
	OPT_LUKS,
	OPT_TYPE,
	OPT_HEADER,
	OPT_DRY_RUN,
	OPT_DISABLE_KEYRING,
	OPT_TEST_PASSPHRASE,
	OPT_DEFERRED,
	OPT_SHARED,
};

static const struct option long_options[] = {
	{ "help", no_argument, NULL, 'h' },
	{ "version", no_argument, NULL, 'V' },
	{ "verbose", no_argument, NULL, 'v' },
	{ "cipher", required_argument, NULL, 'c' },
	{ "key-file", required_argument, NULL, 'd' },
	{ "keyfile-offset", required_argument, NULL, OPT_KEYFILE_OFFSET },
	{ "keyfile-size", required_argument, NULL, 'l' },
	{ "key-desc", required_argument, NULL, OPT_KEY_DESC },
	{ "key-size", required_argument, NULL, 's' },
	{ "sector-size", required_argument, NULL, OPT_SECTOR_SIZE },
	{ "offset", required_argument, NULL, 'o' },
	{ "skip", required_argument, NULL, 'p' },
	{ "iv-offset", required_argument, NULL, 'p' },
	{ "size", required_argument, NULL, OPT_SIZE },
	{ "readonly", no_argument, NULL, 'r' },
	{ "allow-discards", no_argument, NULL, OPT_ALLOW_DISCARDS },
	{ "iv-large-sectors", no_argument, NULL, OPT_IV_LARGE_SECTORS },
	{ "inline-only", no_argument, NULL, OPT_INLINE_ONLY },
	{ "passthrough", no_argument, NULL, OPT_PASSTHROUGH },
	{ "luks", no_argument, NULL, OPT_LUKS },
	{ "type", required_argument, NULL, OPT_TYPE },
	{ "header", required_argument, NULL, OPT_HEADER },
	{ "tries", required_argument, NULL, 'T' },
	{ "dry-run", no_argument, NULL, OPT_DRY_RUN },
	{ "disable-keyring", no_argument, NULL, OPT_DISABLE_KEYRING },
	{ "key-slot", required_argument, NULL, 'S' },
	{ "test-passphrase", no_argument, NULL, OPT_TEST_PASSPHRASE },
	{ "deferred", no_argument, NULL, OPT_DEFERRED },
	{ "shared", no_argument, NULL, OPT_SHARED },
	{ NULL, 0, NULL, 0 },
};

static int number(const char *opt, const char *val, uint64_t *out, char *err, size_t errlen)
{
	if (parse_u64(val, out) != 0)
		return set_error(err, errlen, "option --%s: '%s' is not a number", opt, val);
	return 0;
}

/* Name of the long option for messages, from the short one or the index. */
static const char *opt_name(int c, int idx)
{
	size_t i;

	if (idx >= 0)
		return long_options[idx].name;
	for (i = 0; long_options[i].name; i++)
		if (long_options[i].val == c)
			return long_options[i].name;
	return "?";
}

int ic_args_parse(int argc, char *argv[], struct ic_args *a, char *err, size_t errlen)
{
	memset(a, 0, sizeof(*a));
	a->tries = IC_DEFAULT_TRIES;
	a->key_slot = -1;
	optind = 0;	/* GNU: full reinitialisation, so tests may parse twice */
	opterr = 0;
	for (;;) {
		uint64_t v;
		int idx = -1;
		int c = getopt_long(argc, argv, ":hVvc:d:l:s:o:p:rT:S:", long_options, &idx);
		if (c == -1)
			break;
		switch (c) {
		case 'h':
			a->help = true;
			break;
		case 'V':
			a->version = true;
			break;
		case 'v':
			a->verbose = true;
			break;
		case 'c':
			a->cipher = optarg;
			break;
		case 'd':
			a->key_file = optarg;
			break;
		case OPT_KEYFILE_OFFSET:
			if (number(opt_name(c, idx), optarg, &a->keyfile_offset, err, errlen))
				return -1;
			break;
		case 'l':
			if (number(opt_name(c, idx), optarg, &a->keyfile_size, err, errlen))
				return -1;
			a->keyfile_size_set = true;
			break;
		case OPT_KEY_DESC:
			a->key_desc = optarg;
			break;
		case 's':
			if (number(opt_name(c, idx), optarg, &v, err, errlen))
				return -1;
			if (v == 0 || v % 8 || v > 8 * MAX_KEY_SIZE)
				return set_error(err, errlen, "option --key-size: %s bits is not a "
					    "key size", optarg);
			a->key_size_bits = (unsigned int)v;
			break;
		case OPT_SECTOR_SIZE:
			if (number(opt_name(c, idx), optarg, &v, err, errlen))
				return -1;
			if (v != 512 && v != 1024 && v != 2048 && v != 4096)
				return set_error(err, errlen, "option --sector-size: %s is not 512, "
					    "1024, 2048 or 4096", optarg);
			a->sector_size = (unsigned int)v;
			break;
		case 'o':
			if (number(opt_name(c, idx), optarg, &a->offset, err, errlen))
				return -1;
			a->offset_set = true;
			break;
		case 'p':
			if (number(opt_name(c, idx), optarg, &a->skip, err, errlen))
				return -1;
			a->skip_set = true;
			break;
		case OPT_SIZE:
			if (number(opt_name(c, idx), optarg, &a->size, err, errlen))
				return -1;
			if (a->size == 0)
				return set_error(err, errlen, "option --size: size must not be zero");
			a->size_set = true;
			break;
		case 'r':
			a->readonly = true;
			break;
		case OPT_ALLOW_DISCARDS:
			a->allow_discards = true;
			break;
		case OPT_IV_LARGE_SECTORS:
			a->iv_large_sectors = true;
			break;
		case OPT_INLINE_ONLY:
			a->inline_only = true;
			break;
		case OPT_PASSTHROUGH:
			a->passthrough = true;
			break;
		case OPT_LUKS:
			a->type = IC_TYPE_LUKS;
			break;
		case OPT_TYPE:
			a->luks_type = NULL;
			if (strcmp(optarg, "plain") == 0) {
				a->type = IC_TYPE_PLAIN;
			} else if (strcmp(optarg, "luks") == 0) {
				a->type = IC_TYPE_LUKS;
			} else if (strcmp(optarg, "luks1") == 0) {
				a->type = IC_TYPE_LUKS;
				a->luks_type = "LUKS1";
			} else if (strcmp(optarg, "luks2") == 0) {
				a->type = IC_TYPE_LUKS;
				a->luks_type = "LUKS2";
			} else
				return set_error(err, errlen, "option --type: '%s' is not plain, luks, "
					    "luks1 or luks2", optarg);
			break;
		case OPT_HEADER:
			a->header = optarg;
			break;
		case 'T':
			if (number(opt_name(c, idx), optarg, &v, err, errlen))
				return -1;
			if (v == 0 || v > 100)
				return set_error(err, errlen, "option --tries: %s is not 1 to 100",
					    optarg);
			a->tries = (unsigned int)v;
			break;
		case OPT_DRY_RUN:
			a->dry_run = true;
			break;
		case OPT_DISABLE_KEYRING:
			a->disable_keyring = true;
			break;
		case 'S':
			if (number(opt_name(c, idx), optarg, &v, err, errlen))
				return -1;
			if (v > IC_MAX_KEYSLOT)
				return set_error(err, errlen, "option --key-slot: %s is not a keyslot "
						 "(0 to %d)", optarg, IC_MAX_KEYSLOT);
			a->key_slot = (int)v;
			break;
		case OPT_TEST_PASSPHRASE:
			a->test_passphrase = true;
			break;
		case OPT_DEFERRED:
			a->deferred = true;
			break;
		case OPT_SHARED:
			a->shared = true;
			break;
		case ':':
			return set_error(err, errlen, "option %s needs an argument",
				    argv[optind - 1]);
		default:
			if (optopt && optopt < 256)
				return set_error(err, errlen, "unknown option -%c", optopt);
			return set_error(err, errlen, "unknown option %s", argv[optind - 1]);
		}
	}
	if (optind < argc)
		a->action = argv[optind++];
	while (optind < argc) {
		if (a->npos == (int)(sizeof(a->pos) / sizeof(a->pos[0])))
			return set_error(err, errlen, "too many arguments");
		a->pos[a->npos++] = argv[optind++];
	}
	return 0;
}

/*
 * Each command, how many words it takes after its name, and its usage line;
 * inlinecrypt.c has the matching function in commands[].
 */
static const struct {
	const char *name;
	int nargs;
	const char *usage;
} actions[] = {
	{ "open", 2, "open <device> <name>" },
	{ "close", 1, "close <name>" },
	{ "status", 1, "status <name>" },
	{ "suspend", 1, "suspend <name>" },
	{ "resume", 1, "resume <name>" },
	{ "resize", 1, "resize <name>" },
};

static int plain_only(const struct ic_args *a, char *err, size_t errlen)
{
	static const char *hdr = "is read from the LUKS header";

	if (a->cipher)
		return set_error(err, errlen, "--cipher cannot be used with --luks: the cipher %s", hdr);
	if (a->key_size_bits)
		return set_error(err, errlen, "--key-size cannot be used with --luks: the key size %s",
			    hdr);
	if (a->sector_size)
		return set_error(err, errlen, "--sector-size cannot be used with --luks: the sector "
			    "size %s", hdr);
	if (a->offset_set || a->skip_set || a->size_set)
		return set_error(err, errlen, "--offset, --skip and --size cannot be used with "
			    "--luks: the data segment %s", hdr);
	if (a->key_desc)
		return set_error(err, errlen, "--key-desc cannot be used with --luks: the volume key "
			    "comes from a keyslot");
	if (a->iv_large_sectors)
		return set_error(err, errlen, "--iv-large-sectors cannot be used with --luks: LUKS "
			    "volumes count IVs in 512-byte sectors");
	return 0;
}

/* Options that shape a table: only open (and --size for resize) takes them. */
static const char *table_option(const struct ic_args *a)
{
	if (a->cipher)
		return "--cipher";
	if (a->key_size_bits)
		return "--key-size";
	if (a->sector_size)
		return "--sector-size";
	if (a->offset_set)
		return "--offset";
	if (a->skip_set)
		return "--skip";
	if (a->iv_large_sectors)
		return "--iv-large-sectors";
	if (a->readonly)
		return "--readonly";
	if (a->allow_discards)
		return "--allow-discards";
	if (a->inline_only)
		return "--inline-only";
	if (a->passthrough)
		return "--passthrough";
	if (a->dry_run)
		return "--dry-run";
	if (a->shared)
		return "--shared";
	if (a->test_passphrase)
		return "--test-passphrase";
	return NULL;
}

/* Options that give a key or passphrase: open and resume take them. */
static const char *key_option(const struct ic_args *a)
{
	if (a->key_file)
		return "--key-file";
	if (a->key_desc)
		return "--key-desc";
	if (a->header)
		return "--header";
	if (a->key_slot >= 0)
		return "--key-slot";
	if (a->disable_keyring)
		return "--disable-keyring";
	if (a->type == IC_TYPE_LUKS)
		return "--luks/--type";
	return NULL;
}

static int check_key_sources(const struct ic_args *a, char *err, size_t errlen)
{
	if (a->key_file && a->key_desc)
		return set_error(err, errlen, "--key-file and --key-desc are two key sources: give one");
	if ((a->keyfile_offset || a->keyfile_size_set) && !a->key_file)
		return set_error(err, errlen, "--keyfile-offset and --keyfile-size need --key-file");
	return 0;
}

/* The checks of the commands other than open. */
static int check_other(const struct ic_args *a, char *err, size_t errlen)
{
	const char *opt = table_option(a);
	bool resume = strcmp(a->action, "resume") == 0;
	bool resize = strcmp(a->action, "resize") == 0;

	if (opt)
		return set_error(err, errlen, "%s cannot be used with %s", opt, a->action);
	if (a->size_set && !resize)
		return set_error(err, errlen, "--size cannot be used with %s", a->action);
	if (a->deferred && strcmp(a->action, "close") != 0)
		return set_error(err, errlen, "--deferred is for close");
	if (resume) {
		if (a->type == IC_TYPE_LUKS)
			return set_error(err, errlen, "resume reads the volume type from the mapping: "
					 "no --luks or --type");
		return check_key_sources(a, err, errlen);
	}
	opt = key_option(a);
	if (opt && !(resize && (a->key_file || a->key_desc || a->header || a->key_slot >= 0 ||
				a->disable_keyring)))
		return set_error(err, errlen, "%s cannot be used with %s", opt, a->action);
	return resize ? check_key_sources(a, err, errlen) : 0;
}

int ic_args_check(const struct ic_args *a, char *err, size_t errlen)
{
	size_t i;
	int nargs;

	if (a->help || a->version)
		return 0;
	if (!a->action)
		return set_error(err, errlen, "no command given (try --help)");
	for (i = 0; i < sizeof(actions) / sizeof(actions[0]); i++)
		if (strcmp(a->action, actions[i].name) == 0)
			break;
	if (i == sizeof(actions) / sizeof(actions[0]))
		return set_error(err, errlen, "unknown command '%s' (try --help)", a->action);
	nargs = actions[i].nargs;
	/* cryptsetup open --test-passphrase takes the device alone. */
	if (a->test_passphrase && strcmp(a->action, "open") == 0 && a->npos == 1)
		nargs = 1;
	if (a->npos != nargs)
		return set_error(err, errlen, "usage: inlinecrypt %s", actions[i].usage);
	if (strcmp(a->action, "open") != 0)
		return check_other(a, err, errlen);

	if (a->npos == 2 &&
	    (strchr(a->pos[1], '/') || !strcmp(a->pos[1], ".") || !strcmp(a->pos[1], "..") ||
	     strlen(a->pos[1]) >= 128))
		return set_error(err, errlen, "invalid mapping name '%s'", a->pos[1]);
	if (a->deferred)
		return set_error(err, errlen, "--deferred is for close");
	if (check_key_sources(a, err, errlen))
		return -1;
	if (a->type == IC_TYPE_LUKS) {
		if (a->shared)
			return set_error(err, errlen, "--shared is for plain mappings: a LUKS "
					 "volume is mapped once");
		return plain_only(a, err, errlen);
	}
	if (a->test_passphrase)
		return set_error(err, errlen, "--test-passphrase is for --luks volumes");
	if (a->key_slot >= 0)
		return set_error(err, errlen, "--key-slot is for --luks volumes");
	if (a->header)
		return set_error(err, errlen, "--header is for --luks volumes");
	if (!a->key_file && !a->key_desc)
		return set_error(err, errlen, "a plain mapping needs a key: --key-file or --key-desc");
	if (a->cipher && !ic_cipher_lookup(a->cipher))
		return set_error(err, errlen, "unknown cipher '%s' (known: aes-xts-plain64, "
			    "aes-cbc-essiv:sha256, xchacha12,aes-adiantum-plain64, "
			    "sm4-xts-plain64)", a->cipher);
	if (a->key_size_bits && a->key_size_bits != 8 * ic_key_size(a))
		return set_error(err, errlen, "--key-size %u does not fit %s, which takes %u bits",
			    a->key_size_bits, a->cipher ? a->cipher : IC_DEFAULT_CIPHER,
			    8 * ic_key_size(a));
	if (a->keyfile_size_set && a->keyfile_size != ic_key_size(a))
		return set_error(err, errlen, "--keyfile-size %llu does not fit %s, which takes a "
			    "%u-byte key", (unsigned long long)a->keyfile_size,
			    a->cipher ? a->cipher : IC_DEFAULT_CIPHER, ic_key_size(a));
	if (a->iv_large_sectors && (!a->sector_size || a->sector_size == 512))
		return set_error(err, errlen, "--iv-large-sectors needs --sector-size above 512");
	return 0;
}

unsigned int ic_key_size(const struct ic_args *a)
{
	const struct ic_cipher *c = ic_cipher_lookup(a->cipher ? a->cipher : IC_DEFAULT_CIPHER);

	return c ? c->key_size : 0;
}

void ic_apply_flags(const struct ic_args *a, struct ic_table *t)
{
	t->allow_discards = t->allow_discards || a->allow_discards;
	t->inline_only = t->inline_only || a->inline_only;
	t->passthrough = t->passthrough || a->passthrough;
	t->iv_large_sectors = t->iv_large_sectors || a->iv_large_sectors;
}

int ic_plain_table(const struct ic_args *a, const char *device, uint64_t device_sectors,
		   struct ic_table *t, char *err, size_t errlen)
{
	t->cipher = ic_cipher_lookup(a->cipher ? a->cipher : IC_DEFAULT_CIPHER);
	if (!t->cipher)
		return set_error(err, errlen, "unknown cipher '%s'", a->cipher);
	t->sector_size = a->sector_size ? a->sector_size : IC_SECTOR_SIZE;
	t->start = a->offset;
	t->iv_offset = a->skip;
	if (strlen(device) >= sizeof(t->dev_path))
		return set_error(err, errlen, "device path too long");
	snprintf(t->dev_path, sizeof(t->dev_path), "%s", device);
	if (a->offset >= device_sectors)
		return set_error(err, errlen, "offset %llu is beyond the end of the device (%llu "
			    "sectors)", (unsigned long long)a->offset,
			    (unsigned long long)device_sectors);
	if (a->size_set) {
		if (a->size > device_sectors - a->offset)
			return set_error(err, errlen, "size %llu plus offset %llu is beyond the end "
				    "of the device (%llu sectors)",
				    (unsigned long long)a->size, (unsigned long long)a->offset,
				    (unsigned long long)device_sectors);
		t->length = a->size;
	} else {
		t->length = device_sectors - a->offset;
	}
	ic_apply_flags(a, t);
	if (t->key.type != IC_KEY_NONE)
		return ic_table_check(t, err, errlen);
	return 0;
}
