// SPDX-License-Identifier: GPL-2.0
/*
 * fscrypt-key: add, remove and query fscrypt v2 keys and set v2 policies,
 * the few ioctls the guest tests need (fscryptctl is not in bookworm).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "fscrypt-policy.h"
#include "util.h"

#define PROG "fscrypt-key"

/* Exit codes: 0 success, 1 operation failed, 2 usage error. */
enum { EXIT_OK = 0, EXIT_FAIL = 1, EXIT_USAGE = 2 };

static void usage(FILE *f)
{
	fprintf(f,
		"Usage:\n"
		" " PROG " add <mountpoint>                 < raw key (16..64 bytes)\n"
		" " PROG " remove <mountpoint> <identifier> [--all-users]\n"
		" " PROG " status <mountpoint> <identifier>\n"
		" " PROG " set-policy <dir> <identifier> [options]\n"
		" " PROG " get-policy <path>\n"
		"\n"
		"Manage fscrypt v2 keys and policies.\n"
		"\n"
		"set-policy options:\n"
		" --contents <mode>    contents mode (default aes-256-xts)\n"
		" --filenames <mode>   filenames mode (default aes-256-cts)\n"
		" --padding <n>        filename padding 4, 8, 16 or 32 (default 32)\n"
		" --direct-key         FSCRYPT_POLICY_FLAG_DIRECT_KEY\n"
		" --iv-ino-lblk-64     FSCRYPT_POLICY_FLAG_IV_INO_LBLK_64\n"
		" --iv-ino-lblk-32     FSCRYPT_POLICY_FLAG_IV_INO_LBLK_32\n"
		"\n"
		"Modes: aes-256-xts aes-256-cts aes-128-cbc aes-128-cts sm4-xts\n"
		"       sm4-cts adiantum aes-256-hctr2\n"
		"<identifier> is the 32 hex digits printed by 'add'.\n"
		"\n"
		" -h, --help     display this help\n"
		" -V, --version  display version\n");
}

/*
 * path_ioctl - open @path, issue @req with @arg, close it.
 * Return: 0, or -1 after a message naming @path and the ioctl @name.
 */
static int path_ioctl(const char *path, unsigned long req, void *arg, const char *name)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	int ret = 0;

	if (fd < 0) {
		fprintf(stderr, PROG ": %s: cannot open: %s\n", path, strerror(errno));
		return -1;
	}
	if (ioctl(fd, req, arg) != 0) {
		fprintf(stderr, PROG ": %s: %s failed: %s\n", path, name, strerror(errno));
		ret = -1;
	}
	close(fd);
	return ret;
}

static int parse_identifier(const char *hex, struct fscrypt_key_specifier *spec)
{
	memset(spec, 0, sizeof(*spec));
	spec->type = FSCRYPT_KEY_SPEC_TYPE_IDENTIFIER;
	if (hex_decode(hex, spec->u.identifier, FSCRYPT_KEY_IDENTIFIER_SIZE) != 0) {
		fprintf(stderr, PROG ": invalid key identifier '%s': want %d hex digits\n",
			hex, 2 * FSCRYPT_KEY_IDENTIFIER_SIZE);
		return -1;
	}
	return 0;
}

static int cmd_add(int argc, char *argv[])
{
	struct fscrypt_add_key_arg *arg;
	char idhex[2 * FSCRYPT_KEY_IDENTIFIER_SIZE + 1];
	size_t argsize = sizeof(*arg) + MAX_KEY_SIZE;
	long len;
	int ret = EXIT_FAIL;

	if (argc != 1) {
		usage(stderr);
		return EXIT_USAGE;
	}
	arg = calloc(1, argsize);
	if (!arg) {
		fprintf(stderr, PROG ": out of memory\n");
		return EXIT_FAIL;
	}
	len = read_fd_all(STDIN_FILENO, arg->raw, MAX_KEY_SIZE);
	if (len == -2 || (len >= 0 && len < 16)) {
		fprintf(stderr, PROG ": key on standard input must be 16 to %d bytes\n",
			MAX_KEY_SIZE);
		goto out;
	}
	if (len < 0) {
		fprintf(stderr, PROG ": cannot read key from standard input: %s\n",
			strerror(errno));
		goto out;
	}
	arg->raw_size = (__u32)len;
	arg->key_spec.type = FSCRYPT_KEY_SPEC_TYPE_IDENTIFIER;

	if (path_ioctl(argv[0], FS_IOC_ADD_ENCRYPTION_KEY, arg,
		       "FS_IOC_ADD_ENCRYPTION_KEY") == 0) {
		hex_encode(arg->key_spec.u.identifier, FSCRYPT_KEY_IDENTIFIER_SIZE, idhex);
		printf("%s\n", idhex);
		ret = EXIT_OK;
	}
out:
	wipe(arg, argsize);
	free(arg);
	return ret;
}

static int cmd_remove(int argc, char *argv[])
{
	struct fscrypt_remove_key_arg arg;
	unsigned long req = FS_IOC_REMOVE_ENCRYPTION_KEY;
	__u32 flags;

	if (argc == 3 && strcmp(argv[2], "--all-users") == 0)
		req = FS_IOC_REMOVE_ENCRYPTION_KEY_ALL_USERS;
	else if (argc != 2) {
		usage(stderr);
		return EXIT_USAGE;
	}
	memset(&arg, 0, sizeof(arg));
	if (parse_identifier(argv[1], &arg.key_spec) != 0)
		return EXIT_USAGE;
	if (path_ioctl(argv[0], req, &arg, "FS_IOC_REMOVE_ENCRYPTION_KEY") != 0)
		return EXIT_FAIL;
	flags = arg.removal_status_flags;
	printf("removal_status_flags: 0x%x", flags);
	if (flags & FSCRYPT_KEY_REMOVAL_STATUS_FLAG_FILES_BUSY)
		printf(" files_busy");
	if (flags & FSCRYPT_KEY_REMOVAL_STATUS_FLAG_OTHER_USERS)
		printf(" other_users");
	printf("\n");
	return EXIT_OK;
}

static int cmd_status(int argc, char *argv[])
{
	struct fscrypt_get_key_status_arg arg;

	if (argc != 2) {
		usage(stderr);
		return EXIT_USAGE;
	}
	memset(&arg, 0, sizeof(arg));
	if (parse_identifier(argv[1], &arg.key_spec) != 0)
		return EXIT_USAGE;
	if (path_ioctl(argv[0], FS_IOC_GET_ENCRYPTION_KEY_STATUS, &arg, "FS_IOC_GET_ENCRYPTION_KEY_STATUS") != 0)
		return EXIT_FAIL;
	switch (arg.status) {
	case FSCRYPT_KEY_STATUS_ABSENT:
		printf("Absent\n");
		break;
	case FSCRYPT_KEY_STATUS_PRESENT:
		printf("Present (user_count=%u%s)\n", arg.user_count,
		       arg.status_flags & FSCRYPT_KEY_STATUS_FLAG_ADDED_BY_SELF ?
		       ", added_by_self" : "");
		break;
	case FSCRYPT_KEY_STATUS_INCOMPLETELY_REMOVED:
		printf("Incompletely removed\n");
		break;
	default:
		printf("Unknown status %u\n", arg.status);
		break;
	}
	return EXIT_OK;
}

static int cmd_set_policy(int argc, char *argv[])
{
	struct fscrypt_policy_v2 pol;
	struct fscrypt_key_specifier spec;
	char err[128];

	if (argc < 2) {
		usage(stderr);
		return EXIT_USAGE;
	}
	if (parse_identifier(argv[1], &spec) != 0)
		return EXIT_USAGE;
	if (fscrypt_parse_policy_args(argc - 2, argv + 2, &pol, err, sizeof(err)) != 0) {
		fprintf(stderr, PROG ": %s\n", err);
		return EXIT_USAGE;
	}
	memcpy(pol.master_key_identifier, spec.u.identifier,
	       FSCRYPT_KEY_IDENTIFIER_SIZE);
	if (path_ioctl(argv[0], FS_IOC_SET_ENCRYPTION_POLICY, &pol, "FS_IOC_SET_ENCRYPTION_POLICY") != 0)
		return EXIT_FAIL;
	return EXIT_OK;
}

static void print_mode(const char *what, int mode)
{
	const char *name = fscrypt_mode_name(mode);

	if (name)
		printf("%s: %s\n", what, name);
	else
		printf("%s: %d\n", what, mode);
}

static int cmd_get_policy(int argc, char *argv[])
{
	struct fscrypt_get_policy_ex_arg arg;
	char idhex[2 * FSCRYPT_KEY_IDENTIFIER_SIZE + 1];

	if (argc != 1) {
		usage(stderr);
		return EXIT_USAGE;
	}
	memset(&arg, 0, sizeof(arg));
	arg.policy_size = sizeof(arg.policy);
	if (path_ioctl(argv[0], FS_IOC_GET_ENCRYPTION_POLICY_EX, &arg, "FS_IOC_GET_ENCRYPTION_POLICY_EX") != 0)
		return EXIT_FAIL;
	if (arg.policy.version != FSCRYPT_POLICY_V2) {
		printf("Policy version: %u\n", arg.policy.version);
		return EXIT_OK;
	}
	hex_encode(arg.policy.v2.master_key_identifier, FSCRYPT_KEY_IDENTIFIER_SIZE,
		   idhex);
	printf("Policy version: 2\n");
	printf("Master key identifier: %s\n", idhex);
	print_mode("Contents encryption mode", arg.policy.v2.contents_encryption_mode);
	print_mode("Filenames encryption mode", arg.policy.v2.filenames_encryption_mode);
	printf("Flags: 0x%02x\n", arg.policy.v2.flags);
	return EXIT_OK;
}

int main(int argc, char *argv[])
{
	static const struct {
		const char *name;
		int (*fn)(int argc, char *argv[]);
	} cmds[] = {
		{ "add", cmd_add },
		{ "remove", cmd_remove },
		{ "status", cmd_status },
		{ "set-policy", cmd_set_policy },
		{ "get-policy", cmd_get_policy },
	};
	size_t i;

	if (argc < 2) {
		usage(stderr);
		return EXIT_USAGE;
	}
	if (strcmp(argv[1], "-h") == 0 || strcmp(argv[1], "--help") == 0) {
		usage(stdout);
		return EXIT_OK;
	}
	if (strcmp(argv[1], "-V") == 0 || strcmp(argv[1], "--version") == 0) {
		printf(PROG " " VERSION "\n");
		return EXIT_OK;
	}
	for (i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++)
		if (strcmp(argv[1], cmds[i].name) == 0)
			return cmds[i].fn(argc - 2, argv + 2);
	fprintf(stderr, PROG ": unknown command '%s'\n", argv[1]);
	usage(stderr);
	return EXIT_USAGE;
}
