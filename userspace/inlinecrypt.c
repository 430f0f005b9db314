// SPDX-License-Identifier: GPL-2.0
/*
 * inlinecrypt: open, close and show dm-inlinecrypt mappings, in the manner of
 * cryptsetup(8); `open --luks` maps an existing LUKS volume through
 * blk-crypto instead of dm-crypt, without re-encrypting it.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/fs.h>
#include <stdio.h>
#include <string.h>
#include <stdlib.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "cli.h"
#include "dm.h"
#include "keyring.h"
#include "luks.h"
#include "table.h"
#include "util.h"

#define PROG "inlinecrypt"

static void usage(FILE *f)
{
	fprintf(f,
		"Usage:\n"
		" " PROG " [options] open <device> <name>\n"
		" " PROG " [options] open --luks <device> <name>\n"
		" " PROG " [--deferred] close <name>\n"
		" " PROG " status <name>\n"
		" " PROG " suspend <name>\n"
		" " PROG " [options] resume <name>\n"
		" " PROG " [--size <n>] resize <name>\n"
		"\n"
		"Map a block device through dm-inlinecrypt: encryption by the inline\n"
		"crypto engine of the device below (blk-crypto), or by\n"
		"blk-crypto-fallback, with dm-crypt's on-disk format.\n"
		"\n"
		"Plain mapping (key given as is, not hashed):\n"
		" -c, --cipher <cipher>       aes-xts-plain64 (default, 512-bit key),\n"
		"                             aes-cbc-essiv:sha256 (128),\n"
		"                             xchacha12,aes-adiantum-plain64 (256),\n"
		"                             sm4-xts-plain64 (256)\n"
		" -d, --key-file <file>       raw key bytes; '-' reads standard input\n"
		"     --keyfile-offset <n>    skip n bytes of the key file\n"
		" -l, --keyfile-size <n>      bytes of key to read (the cipher's key size)\n"
		"     --key-desc <desc>       key in the kernel keyring: logon:<desc>,\n"
		"                             user:<desc> or :<size>:<type>:<desc>\n"
		" -s, --key-size <bits>       check the key size of the cipher\n"
		"     --sector-size <n>       data unit size: 512, 1024, 2048 or 4096\n"
		"     --iv-large-sectors      IV counts data units, not 512-byte sectors\n"
		" -o, --offset <n>            start at sector n of the device (512-byte)\n"
		" -p, --skip, --iv-offset <n> add n to the IV sector number\n"
		"     --size <n>              map n sectors (default: to the end)\n"
		"     --shared                allow other mappings of the same device\n"
		"\n"
		"LUKS volume (made by cryptsetup luksFormat):\n"
		"     --luks, --type luks     read cipher, key and layout from the header\n"
		"     --header <file>         detached LUKS header\n"
		"     --disable-keyring       volume key in the table in hex, not passed\n"
		"                             through the kernel keyring\n"
		" -d, --key-file <file>       passphrase file ('-': standard input, all of it)\n"
		" -T, --tries <n>             passphrase attempts on a terminal (default 3)\n"
		" -S, --key-slot <n>          use only keyslot n\n"
		"     --type luks1|luks2      accept only this LUKS version\n"
		"     --test-passphrase       check the passphrase, map nothing\n"
		"\n"
		"suspend: flush and suspend I/O, then wipe the key from the kernel and\n"
		"the inline encryption hardware (dm-crypt's 'key wipe'). resume: the\n"
		"key again (LUKS: passphrase, key file or token; plain: --key-file or\n"
		"--key-desc), then resume I/O.\n"
		"\n"
		"Both:\n"
		" -r, --readonly              read-only mapping\n"
		"     --allow-discards        pass discards down\n"
		"     --inline-only           fail unless the device has the crypto engine\n"
		"     --passthrough           leave bios that carry a crypto context alone\n"
		"     --dry-run               print the table instead of creating it\n"
		"     --deferred              close: remove when the last user closes it\n"
		"     --show-keys             print keys in --dry-run and status output\n"
		" -v, --verbose               more messages\n"
		" -h, --help                  display this help\n"
		" -V, --version               display version\n"
		"\n"
		"Without --key-file, a LUKS passphrase is read from the terminal, or one\n"
		"line of standard input. Exit status: 0 ok, 1 wrong parameters, 2 bad\n"
		"passphrase, 3 out of memory, 4 wrong device, 5 device exists or busy.\n");
}

static int errno_exit(int e)
{
	switch (e) {
	case 0:
		return IC_EXIT_OK;
	case EPERM: case EACCES:
		return IC_EXIT_PERM;
	case ENOMEM:
		return IC_EXIT_NOMEM;
	case ENODEV: case ENOENT: case ENXIO: case ENOTBLK:
		return IC_EXIT_DEVICE;
	case EBUSY: case EEXIST:
		return IC_EXIT_BUSY;
	default:
		return IC_EXIT_USAGE;
	}
}

/*
 * Size of @device in 512-byte sectors and how the table names it
 * (major:minor). A regular file is accepted only by --dry-run. With
 * @exclusive, the device must not be held by anyone else: cryptsetup opens
 * it O_EXCL first (device_check_access() with DEV_EXCL), which fails with
 * EBUSY when a mounted filesystem or a device-mapper table (dm-crypt, or
 * a dm-inlinecrypt mapping under another name) holds it. dm's own open of
 * the device (dm_get_device()) is shared between all dm tables, so without
 * this check the same disk could be mapped twice, with two page caches over
 * one medium. The check and the table load are not atomic: as with
 * cryptsetup, a mapping created in between wins.
 */
static int device_info(const char *device, bool dry_run, bool exclusive, uint64_t *sectors,
		       char *path, size_t pathlen)
{
	struct stat st;
	uint64_t bytes = 0;
	int fd, e;

	fd = open(device, O_RDONLY | O_CLOEXEC);
	if (fd < 0 || fstat(fd, &st) != 0) {
		e = errno;
		fprintf(stderr, PROG ": device %s does not exist or access denied: %s\n",
			device, strerror(e));
		if (fd >= 0)
			close(fd);
		return IC_EXIT_DEVICE;
	}
	if (S_ISBLK(st.st_mode)) {
		if (ioctl(fd, BLKGETSIZE64, &bytes) != 0) {
			e = errno;
			fprintf(stderr, PROG ": %s: cannot get device size: %s\n", device,
				strerror(e));
			close(fd);
			return IC_EXIT_DEVICE;
		}
		snprintf(path, pathlen, "%u:%u", major(st.st_rdev), minor(st.st_rdev));
	} else if (S_ISREG(st.st_mode) && dry_run) {
		bytes = (uint64_t)st.st_size;
		snprintf(path, pathlen, "%s", device);
	} else {
		fprintf(stderr, PROG ": %s is not a block device\n", device);
		close(fd);
		return IC_EXIT_DEVICE;
	}
	close(fd);
	if (exclusive && S_ISBLK(st.st_mode)) {
		fd = open(device, O_RDONLY | O_EXCL | O_CLOEXEC);
		if (fd < 0) {
			e = errno;
			if (e == EBUSY) {
				fprintf(stderr, PROG ": cannot use device %s, which is in use "
					"(already mapped or mounted)\n", device);
				return IC_EXIT_BUSY;
			}
			fprintf(stderr, PROG ": cannot open device %s exclusively: %s\n",
				device, strerror(e));
			return IC_EXIT_DEVICE;
		}
		close(fd);
	}
	*sectors = bytes >> IC_SECTOR_SHIFT;
	return IC_EXIT_OK;
}

/* The key of a plain mapping: from a key file or a keyring reference. */
static int plain_key(const struct ic_args *a, struct ic_table *t)
{
	unsigned int size = t->cipher->key_size;
	long n;

	if (a->key_desc) {
		char err[512];
		int r;

		if (ic_key_parse_desc(a->key_desc, size, &t->key, err, sizeof(err)) != 0) {
			fprintf(stderr, PROG ": --key-desc %s: %s\n", a->key_desc, err);
			return IC_EXIT_USAGE;
		}
		if (a->dry_run)
			return IC_EXIT_OK;
		r = ic_keyring_check(&t->key, err, sizeof(err));
		if (r) {
			fprintf(stderr, PROG ": %s\n", err);
			return r == -ENOKEY ? IC_EXIT_PERM : IC_EXIT_USAGE;
		}
		return IC_EXIT_OK;
	}
	n = read_key_file(a->key_file, a->keyfile_offset, t->key.raw, size);
	if (n < 0) {
		fprintf(stderr, PROG ": cannot read key file %s: %s\n",
			strcmp(a->key_file, "-") ? a->key_file : "(stdin)", strerror((int)-n));
		return IC_EXIT_USAGE;
	}
	if ((unsigned long)n != size) {
		wipe(t->key.raw, sizeof(t->key.raw));
		fprintf(stderr, PROG ": key file %s holds %ld bytes, %s needs %u\n",
			strcmp(a->key_file, "-") ? a->key_file : "(stdin)", n,
			t->cipher->name, size);
		return IC_EXIT_USAGE;
	}
	t->key.type = IC_KEY_RAW;
	t->key.size = size;
	return IC_EXIT_OK;
}

/* Replace the hex key in a parameter line by dashes, as dmsetup does. */
static void mask_key(char *params)
{
	char *key = strchr(params, ' ');
	size_t n;

	if (!key || key[1] == ':')
		return;
	key++;
	n = strcspn(key, " ");
	memset(key, '-', n);
}

/*
 * Like cryptsetup with LUKS2, hand the volume key to the kernel through the
 * thread keyring, so the table names the key instead of holding its bytes
 * (`dmsetup table` prints inlinecrypt's hex keys as they are). If the
 * keyring cannot take it, the key stays in the table in hex.
 * Return: the key's serial to drop after the load, or 0.
 */
static long luks_key_to_keyring(struct ic_table *t, const char *desc, bool verbose)
{
	long id = ic_keyring_add_thread(desc, t->key.raw, t->key.size);

	if (id < 0) {
		if (verbose)
			fprintf(stderr, "Kernel keyring not usable (%s): volume key in the table.\n",
				strerror((int)-id));
		return 0;
	}
	wipe(t->key.raw, sizeof(t->key.raw));
	t->key.type = IC_KEY_LOGON;
	snprintf(t->key.desc, sizeof(t->key.desc), "%s", desc);
	return id;
}

/* A table on the heap (it holds a key: never a static), wiped when freed. */
static struct ic_table *table_alloc(void)
{
	struct ic_table *t = malloc(sizeof(*t));

	if (!t) {
		fprintf(stderr, PROG ": out of memory\n");
		return NULL;
	}
	ic_table_init(t);
	return t;
}

static void table_free(struct ic_table *t)
{
	if (!t)
		return;
	ic_table_wipe(t);
	free(t);
}

static int cmd_open(const struct ic_args *a, bool show_keys)
{
	const char *device = a->pos[0], *name = a->npos > 1 ? a->pos[1] : NULL;
	struct ic_table *t;
	char dev_path[sizeof(t->dev_path)];
	struct ic_dm_device dev;
	char params[IC_PARAMS_MAX], uuid[IC_DM_UUID_LEN], why[512], err[512];
	char key_desc[IC_KEY_DESC_MAX];
	uint64_t sectors = 0;
	long key_id = 0;
	int ret, r;

	if (!a->dry_run && name) {
		r = ic_dm_query(name, &dev);
		if (r == 0) {
			ic_dm_device_free(&dev);
			fprintf(stderr, PROG ": device %s already exists\n", name);
			return IC_EXIT_BUSY;
		}
	}
	ret = device_info(device, a->dry_run,
			  !a->dry_run && !a->test_passphrase && !a->shared,
			  &sectors, dev_path, sizeof(dev_path));
	if (ret)
		return ret;
	t = table_alloc();
	if (!t)
		return IC_EXIT_NOMEM;

	if (a->type == IC_TYPE_LUKS) {
		ret = ic_luks_prepare(a, device, name, sectors, t, uuid, sizeof(uuid),
				      key_desc, sizeof(key_desc));
		if (ret || a->test_passphrase)
			goto out;
		if (!a->dry_run && !a->disable_keyring)
			key_id = luks_key_to_keyring(t, key_desc, a->verbose);
		snprintf(t->dev_path, sizeof(t->dev_path), "%s", dev_path);
	} else {
		snprintf(uuid, sizeof(uuid), IC_UUID_PREFIX "PLAIN-%s", name);
		if (ic_plain_table(a, dev_path, sectors, t, err, sizeof(err)) != 0) {
			fprintf(stderr, PROG ": %s: %s\n", device, err);
			ret = IC_EXIT_USAGE;
			goto out;
		}
		ret = plain_key(a, t);
		if (ret)
			goto out;
	}
	if (ic_table_check(t, err, sizeof(err)) != 0) {
		fprintf(stderr, PROG ": %s: %s\n", device, err);
		ret = IC_EXIT_USAGE;
		goto out;
	}
	if (ic_table_params(t, params, sizeof(params)) != 0) {
		fprintf(stderr, PROG ": %s: table line too long\n", device);
		ret = IC_EXIT_USAGE;
		goto out;
	}
	if (a->dry_run) {
		if (!show_keys)
			mask_key(params);
		printf("0 %llu " IC_TARGET_NAME " %s\n", (unsigned long long)t->length, params);
		ret = IC_EXIT_OK;
		goto wipe_params;
	}
	r = ic_dm_create(name, uuid, t->length, params, a->readonly, why, sizeof(why));
	/* The target copied the key when it loaded the table. */
	ic_keyring_drop(key_id);
	key_id = 0;
	if (r) {
		fprintf(stderr, PROG ": cannot open %s as %s: %s\n", device, name,
			*why ? why : strerror(-r));
		ret = errno_exit(-r);
	} else if (a->verbose) {
		fprintf(stderr, "Device %s created (%llu sectors).\n", name,
			(unsigned long long)t->length);
	}
wipe_params:
	wipe(params, sizeof(params));
out:
	ic_keyring_drop(key_id);
	table_free(t);
	return ret;
}

static bool all_inlinecrypt(const struct ic_dm_device *dev)
{
	int i;

	for (i = 0; i < dev->ntargets; i++)
		if (strcmp(dev->targets[i].type, IC_TARGET_NAME) != 0)
			return false;
	return dev->ntargets > 0;
}

/*
 * Query @name and check that it is a dm-inlinecrypt mapping (every target).
 * Return: IC_EXIT_OK with @dev filled (free it), or an exit code.
 */
static int query_ours(const char *name, struct ic_dm_device *dev)
{
	int r = ic_dm_query(name, dev);

	if (r == -ENODEV) {
		fprintf(stderr, PROG ": device %s is not active\n", name);
		return IC_EXIT_DEVICE;
	}
	if (r) {
		fprintf(stderr, PROG ": cannot query %s: %s\n", name, strerror(-r));
		return errno_exit(-r);
	}
	if (!all_inlinecrypt(dev)) {
		ic_dm_device_free(dev);
		fprintf(stderr, PROG ": device %s is not a dm-inlinecrypt mapping\n", name);
		return IC_EXIT_USAGE;
	}
	return IC_EXIT_OK;
}

static int cmd_close(const struct ic_args *a, bool show_keys)
{
	const char *name = a->pos[0];
	struct ic_dm_device dev;
	int r, open_count;

	(void)show_keys;
	r = query_ours(name, &dev);
	if (r)
		return r;
	open_count = dev.open_count;
	ic_dm_device_free(&dev);
	if (open_count > 0 && !a->deferred) {
		fprintf(stderr, PROG ": device %s is still in use\n", name);
		return IC_EXIT_BUSY;
	}
	r = ic_dm_remove(name, a->deferred);
	if (r) {
		fprintf(stderr, PROG ": cannot close %s: %s\n", name,
			r == -EBUSY ? "device is busy" : strerror(-r));
		return errno_exit(-r);
	}
	if (open_count > 0 && a->verbose)
		fprintf(stderr, "Device %s is still in use: it will be removed when closed.\n",
			name);
	return IC_EXIT_OK;
}

/* "LUKS2" of "CRYPT-LUKS2-<uuid>-<name>" (or of the older INLINECRYPT-...). */
static const char *mapping_type(const char *uuid)
{
	static char type[16];
	size_t n;

	if (strncmp(uuid, IC_UUID_PREFIX, strlen(IC_UUID_PREFIX)) == 0)
		uuid += strlen(IC_UUID_PREFIX);
	else if (strncmp(uuid, IC_UUID_PREFIX_OLD, strlen(IC_UUID_PREFIX_OLD)) == 0)
		uuid += strlen(IC_UUID_PREFIX_OLD);
	else
		return "n/a";
	n = strcspn(uuid, "-");
	if (!n || n >= sizeof(type))
		return "n/a";
	memcpy(type, uuid, n);
	type[n] = '\0';
	return type;
}

static void print_flags(const struct ic_table *t, bool readonly)
{
	printf("  mode:    %s\n", readonly ? "readonly" : "read/write");
	if (!t->allow_discards && !t->iv_large_sectors && !t->inline_only && !t->passthrough)
		return;
	printf("  flags:  ");
	if (t->allow_discards)
		printf(" discards");
	if (t->iv_large_sectors)
		printf(" iv_large_sectors");
	if (t->inline_only)
		printf(" inline_only");
	if (t->passthrough)
		printf(" passthrough");
	printf("\n");
}

static void print_target_status(const char *status)
{
	struct ic_target_status st;

	if (!status || ic_status_parse(status, &st) != 0) {
		printf("  target status: %s\n", status ? status : "");
		return;
	}
	printf("  inline crypto: %s\n",
	       strcmp(st.engine, "hw") == 0 ? "hw (inline encryption hardware)" :
	       "fallback (blk-crypto-fallback, software)");
	printf("  data unit size: %u\n", st.data_unit_size);
	printf("  encrypted: %llu bios, %llu bytes\n",
	       (unsigned long long)st.bios_encrypted, (unsigned long long)st.bytes_encrypted);
	printf("  decrypted: %llu bios, %llu bytes\n",
	       (unsigned long long)st.bios_decrypted, (unsigned long long)st.bytes_decrypted);
	printf("  passed through: %llu bios\n", (unsigned long long)st.bios_passed_through);
}

static void print_target(const struct ic_dm_target *tg, bool readonly, bool show_keys)
{
	struct ic_table *t;
	char devname[4096], err[256];
	unsigned int maj, min;
	char junk;

	if (strcmp(tg->type, IC_TARGET_NAME) != 0) {
		printf("  target:  %s (not dm-inlinecrypt)\n", tg->type);
		return;
	}
	t = table_alloc();
	if (!t)
		return;
	if (ic_table_parse(tg->params, t, err, sizeof(err)) != 0) {
		printf("  table:   cannot parse (%s)\n", err);
		print_target_status(tg->status);
		table_free(t);
		return;
	}
	printf("  cipher:  %s\n", t->cipher->name);
	if (t->key.type == IC_KEY_WIPED) {
		printf("  keysize: %u bits\n", t->cipher->key_size * 8);
		printf("  key location: none (wiped while suspended; resume sets it)\n");
	} else {
		printf("  keysize: %u bits\n", t->key.size * 8);
	}
	if (t->key.type == IC_KEY_RAW) {
		printf("  key location: dm-inlinecrypt\n");
		if (show_keys) {
			char hex[2 * MAX_KEY_SIZE + 1];

			hex_encode(t->key.raw, t->key.size, hex);
			printf("  key:     %s\n", hex);
			wipe(hex, sizeof(hex));
		}
	} else if (t->key.type != IC_KEY_WIPED) {
		printf("  key location: keyring (%s:%s)\n",
		       t->key.type == IC_KEY_LOGON ? "logon" : "user", t->key.desc);
	}
	if (sscanf(t->dev_path, "%u:%u%c", &maj, &min, &junk) == 2)
		ic_dm_devname(maj, min, devname, sizeof(devname));
	else
		snprintf(devname, sizeof(devname), "%s", t->dev_path);
	printf("  device:  %s\n", devname);
	printf("  sector size:  %u\n", t->sector_size);
	printf("  offset:  %llu sectors\n", (unsigned long long)t->start);
	if (t->iv_offset)
		printf("  skipped: %llu sectors\n", (unsigned long long)t->iv_offset);
	printf("  size:    %llu sectors\n", (unsigned long long)tg->length);
	print_flags(t, readonly);
	print_target_status(tg->status);
	table_free(t);
}

static int cmd_status(const struct ic_args *a, bool show_keys)
{
	const char *name = a->pos[0];
	struct ic_dm_device dev;
	int r, i;

	r = ic_dm_query(name, &dev);
	if (r == -ENODEV) {
		printf("%s/%s is inactive.\n", ic_dm_dir(), name);
		return IC_EXIT_DEVICE;
	}
	if (r) {
		fprintf(stderr, PROG ": cannot query %s: %s\n", name, strerror(-r));
		return errno_exit(-r);
	}
	printf("%s/%s is active%s.\n", ic_dm_dir(), name,
	       dev.open_count > 0 ? " and is in use" : "");
	printf("  type:    %s\n", mapping_type(dev.uuid));
	if (dev.suspended)
		printf("  suspended\n");
	for (i = 0; i < dev.ntargets; i++) {
		if (dev.ntargets > 1)
			printf("  segment %d: start %llu, length %llu, %s\n", i,
			       (unsigned long long)dev.targets[i].start,
			       (unsigned long long)dev.targets[i].length,
			       dev.targets[i].type);
		print_target(&dev.targets[i], dev.readonly, show_keys);
	}
	ic_dm_device_free(&dev);
	return IC_EXIT_OK;
}

/* The <key> field of @t, as "key set" takes it; wipe @buf after use. */
static int key_field(const struct ic_table *t, char *buf, size_t len)
{
	int n;

	if (t->key.type == IC_KEY_RAW) {
		if (len < 2 * (size_t)t->key.size + 1)
			return -1;
		hex_encode(t->key.raw, t->key.size, buf);
		return 0;
	}
	n = snprintf(buf, len, ":%u:%s:%s", t->key.size,
		     t->key.type == IC_KEY_LOGON ? "logon" : "user", t->key.desc);
	return n < 0 || (size_t)n >= len ? -1 : 0;
}

/*
 * The device below a one-target mapping, as a path: "/dev/sda" for the
 * table's "8:0", for libcryptsetup and for its size.
 */
static void target_device(const struct ic_table *t, char *buf, size_t len)
{
	unsigned int maj, min;
	char junk;

	if (sscanf(t->dev_path, "%u:%u%c", &maj, &min, &junk) == 2)
		ic_dm_devname(maj, min, buf, len);
	else
		snprintf(buf, len, "%s", t->dev_path);
}

/*
 * Suspend @name and wipe its key (cryptsetup luksSuspend): dm suspends the
 * mapping, waiting for the I/O in flight and holding new I/O back; then
 * each target gets "key wipe", which evicts the key from every keyslot of
 * the hardware (or of blk-crypto-fallback) and clears it from memory.
 */
static int cmd_suspend(const struct ic_args *a, bool show_keys)
{
	const char *name = a->pos[0];
	struct ic_dm_device dev;
	char why[512];
	int r, i, ret = IC_EXIT_OK;

	(void)show_keys;
	r = query_ours(name, &dev);
	if (r)
		return r;
	if (dev.suspended) {
		fprintf(stderr, PROG ": device %s is already suspended\n", name);
		ret = IC_EXIT_USAGE;
		goto out;
	}
	r = ic_dm_suspend(name);
	if (r) {
		fprintf(stderr, PROG ": cannot suspend %s: %s\n", name, strerror(-r));
		ret = errno_exit(-r);
		goto out;
	}
	for (i = 0; i < dev.ntargets; i++) {
		r = ic_dm_message(name, dev.targets[i].start, "key wipe", why, sizeof(why));
		if (!r)
			continue;
		fprintf(stderr, PROG ": cannot wipe the key of %s: %s\n", name,
			*why ? why : strerror(-r));
		/* Nothing wiped yet: give the device back as it was. */
		if (i == 0 && ic_dm_resume(name, why, sizeof(why)) != 0)
			fprintf(stderr, PROG ": %s stays suspended: %s\n", name, why);
		ret = errno_exit(-r);
		goto out;
	}
	if (a->verbose)
		fprintf(stderr, "Device %s suspended, key wiped.\n", name);
out:
	ic_dm_device_free(&dev);
	return ret;
}

/*
 * The key of a suspended mapping whose key was wiped, into @t: from the
 * LUKS header of the device below (the mapping's dm uuid says LUKS1/2), or
 * from --key-file / --key-desc for a plain mapping. *@key_id: a keyring key
 * to drop once the key is set.
 */
static int resume_key(const struct ic_args *a, const struct ic_dm_device *dev,
		      struct ic_table *t, long *key_id)
{
	const char *type = mapping_type(dev->uuid);

	if (!strcmp(type, "LUKS1") || !strcmp(type, "LUKS2")) {
		char device[4096], key_desc[IC_KEY_DESC_MAX];
		int ret;

		target_device(t, device, sizeof(device));
		if (a->key_desc) {
			fprintf(stderr, PROG ": --key-desc is for plain mappings; %s is %s\n",
				a->pos[0], type);
			return IC_EXIT_USAGE;
		}
		ret = ic_luks_volume_key(a, device, dev->uuid, t, key_desc, sizeof(key_desc));
		if (!ret && !a->disable_keyring)
			*key_id = luks_key_to_keyring(t, key_desc, a->verbose);
		return ret;
	}
	if (a->header || a->key_slot >= 0) {
		fprintf(stderr, PROG ": --header and --key-slot are for LUKS mappings; %s is %s\n",
			a->pos[0], type);
		return IC_EXIT_USAGE;
	}
	if (!a->key_file && !a->key_desc) {
		fprintf(stderr, PROG ": %s is a plain mapping: give its key with --key-file or "
			"--key-desc\n", a->pos[0]);
		return IC_EXIT_USAGE;
	}
	/* A plain key cannot be checked: a wrong one reads garbage. */
	return plain_key(a, t);
}

/* Set the key of a suspended mapping ("key set") and resume it. */
static int cmd_resume(const struct ic_args *a, bool show_keys)
{
	const char *name = a->pos[0];
	struct ic_dm_device dev;
	struct ic_table *t = NULL;
	char why[512], err[512], key[IC_KEY_DESC_MAX + 32], msg[IC_KEY_DESC_MAX + 48];
	long key_id = 0;
	int r, ret;

	(void)show_keys;
	ret = query_ours(name, &dev);
	if (ret)
		return ret;
	ret = IC_EXIT_USAGE;
	if (!dev.suspended) {
		fprintf(stderr, PROG ": device %s is not suspended\n", name);
		goto out;
	}
	if (dev.ntargets != 1) {
		fprintf(stderr, PROG ": %s has %d targets: resume handles one (use dmsetup "
			"message %s <sector> key set <key>, then dmsetup resume)\n", name,
			dev.ntargets, name);
		goto out;
	}
	t = table_alloc();
	if (!t) {
		ret = IC_EXIT_NOMEM;
		goto out;
	}
	if (ic_table_parse(dev.targets[0].params, t, err, sizeof(err)) != 0) {
		fprintf(stderr, PROG ": %s: cannot parse its table: %s\n", name, err);
		goto out;
	}
	if (t->key.type == IC_KEY_WIPED) {
		ret = resume_key(a, &dev, t, &key_id);
		if (ret)
			goto out;
		ret = IC_EXIT_USAGE;
		if (key_field(t, key, sizeof(key)) != 0) {
			fprintf(stderr, PROG ": %s: key reference too long\n", name);
			goto out;
		}
		snprintf(msg, sizeof(msg), "key set %s", key);
		wipe(key, sizeof(key));
		r = ic_dm_message(name, dev.targets[0].start, msg, why, sizeof(why));
		wipe(msg, sizeof(msg));
		/* The target copied the key; the keyring need not keep it. */
		ic_keyring_drop(key_id);
		key_id = 0;
		if (r) {
			fprintf(stderr, PROG ": cannot set the key of %s: %s\n", name,
				*why ? why : strerror(-r));
			ret = errno_exit(-r);
			goto out;
		}
	} else if (a->key_file || a->key_desc || a->header || a->key_slot >= 0) {
		fprintf(stderr, PROG ": %s was suspended without wiping its key: resuming it "
			"as it is\n", name);
	}
	r = ic_dm_resume(name, why, sizeof(why));
	if (r) {
		fprintf(stderr, PROG ": cannot resume %s: %s\n", name, *why ? why : strerror(-r));
		ret = errno_exit(-r);
		goto out;
	}
	ret = IC_EXIT_OK;
	if (a->verbose)
		fprintf(stderr, "Device %s resumed.\n", name);
out:
	ic_keyring_drop(key_id);
	table_free(t);
	ic_dm_device_free(&dev);
	return ret;
}

/*
 * Put a keyring-referenced key back where the table's reference finds it,
 * for a reload: a LUKS volume key (the tool drops it from the keyring once
 * a table is loaded) is unlocked again. Return: exit code; *@key_id the key
 * to drop after the load.
 */
static int resize_key(const struct ic_args *a, const struct ic_dm_device *dev,
		      struct ic_table *t, long *key_id)
{
	const char *type = mapping_type(dev->uuid);
	char err[512], device[4096], key_desc[IC_KEY_DESC_MAX], desc[IC_KEY_DESC_MAX];
	long id;
	int ret;

	if (t->key.type == IC_KEY_RAW || ic_keyring_check(&t->key, err, sizeof(err)) == 0)
		return IC_EXIT_OK;
	if (t->key.type != IC_KEY_LOGON || (strcmp(type, "LUKS1") && strcmp(type, "LUKS2"))) {
		fprintf(stderr, PROG ": %s: %s; put the key back in the keyring first\n",
			a->pos[0], err);
		return IC_EXIT_PERM;
	}
	snprintf(desc, sizeof(desc), "%s", t->key.desc);
	target_device(t, device, sizeof(device));
	ret = ic_luks_volume_key(a, device, dev->uuid, t, key_desc, sizeof(key_desc));
	if (ret)
		return ret;
	id = ic_keyring_add_thread(desc, t->key.raw, t->key.size);
	ic_key_wipe(&t->key);
	if (id < 0) {
		fprintf(stderr, PROG ": %s: cannot add the volume key to the keyring: %s\n",
			a->pos[0], strerror((int)-id));
		return IC_EXIT_PERM;
	}
	*key_id = id;
	t->key.type = IC_KEY_LOGON;
	t->key.size = t->cipher->key_size;
	snprintf(t->key.desc, sizeof(t->key.desc), "%s", desc);
	return IC_EXIT_OK;
}

/*
 * Change the size of an active one-target mapping (--size, or to the end
 * of the device below), as cryptsetup resize: the same table with another
 * length, loaded and resumed.
 */
static int cmd_resize(const struct ic_args *a, bool show_keys)
{
	const char *name = a->pos[0];
	struct ic_dm_device dev;
	struct ic_table *t = NULL;
	char why[512], err[512], params[IC_PARAMS_MAX], device[4096], path[4096];
	uint64_t sectors = 0, length;
	long key_id = 0;
	int r, ret;

	(void)show_keys;
	params[0] = '\0';
	ret = query_ours(name, &dev);
	if (ret)
		return ret;
	ret = IC_EXIT_USAGE;
	if (dev.ntargets != 1) {
		fprintf(stderr, PROG ": %s has %d targets: resize handles one\n", name,
			dev.ntargets);
		goto out;
	}
	if (dev.suspended) {
		fprintf(stderr, PROG ": %s is suspended: resume it first\n", name);
		goto out;
	}
	t = table_alloc();
	if (!t) {
		ret = IC_EXIT_NOMEM;
		goto out;
	}
	if (ic_table_parse(dev.targets[0].params, t, err, sizeof(err)) != 0) {
		fprintf(stderr, PROG ": %s: cannot parse its table: %s\n", name, err);
		goto out;
	}
	target_device(t, device, sizeof(device));
	ret = device_info(device, false, false, &sectors, path, sizeof(path));
	if (ret)
		goto out;
	ret = IC_EXIT_USAGE;
	if (sectors <= t->start) {
		fprintf(stderr, PROG ": %s: device %s ends before the mapping's offset\n", name,
			device);
		goto out;
	}
	/*
	 * As cryptsetup: a LUKS2 data segment of fixed size ends where the
	 * header says, whatever the device size (what follows may be
	 * another volume's); only "dynamic" segments grow and shrink.
	 */
	if (!strcmp(mapping_type(dev.uuid), "LUKS2")) {
		uint64_t fixed;

		ret = ic_luks_fixed_size(a, device, &fixed);
		if (ret)
			goto out;
		ret = IC_EXIT_USAGE;
		if (fixed) {
			fprintf(stderr, PROG ": %s: the LUKS2 data segment has a fixed size (%llu "
				"bytes): not resized\n", name, (unsigned long long)fixed);
			goto out;
		}
	}
	length = a->size_set ? a->size : sectors - t->start;
	if (length > sectors - t->start) {
		fprintf(stderr, PROG ": %s: size %llu plus offset %llu is beyond the end of %s "
			"(%llu sectors)\n", name, (unsigned long long)length,
			(unsigned long long)t->start, device, (unsigned long long)sectors);
		goto out;
	}
	if (length == dev.targets[0].length) {
		if (a->verbose)
			fprintf(stderr, "Device %s has the requested size already.\n", name);
		ret = IC_EXIT_OK;
		goto out;
	}
	t->length = length;
	if (t->key.type == IC_KEY_RAW || t->key.type == IC_KEY_LOGON || t->key.type == IC_KEY_USER) {
		if (ic_table_check(t, err, sizeof(err)) != 0) {
			fprintf(stderr, PROG ": %s: %s\n", name, err);
			goto out;
		}
	}
	ret = resize_key(a, &dev, t, &key_id);
	if (ret)
		goto out;
	ret = IC_EXIT_USAGE;
	if (ic_table_params(t, params, sizeof(params)) != 0) {
		fprintf(stderr, PROG ": %s: table line too long\n", name);
		goto out;
	}
	r = ic_dm_reload(name, length, params, dev.readonly, why, sizeof(why));
	if (r) {
		fprintf(stderr, PROG ": cannot resize %s: %s\n", name, *why ? why : strerror(-r));
		ret = errno_exit(-r);
		goto out;
	}
	ret = IC_EXIT_OK;
out:
	wipe(params, sizeof(params));
	ic_keyring_drop(key_id);
	table_free(t);
	ic_dm_device_free(&dev);
	return ret;
}

/*
 * The commands; each also needs its line in cli.c's actions[] (arguments,
 * usage). Another command (e.g. "stat") is one more line in each.
 */
static const struct {
	const char *name;
	int (*fn)(const struct ic_args *a, bool show_keys);
} commands[] = {
	{ "open", cmd_open },
	{ "close", cmd_close },
	{ "status", cmd_status },
	{ "suspend", cmd_suspend },
	{ "resume", cmd_resume },
	{ "resize", cmd_resize },
};

/*
 * Keys and passphrases pass through this process: keep its memory out of
 * swap (mlockall, as cryptsetup's crypt_memory_lock() once did) and out of
 * core dumps and ptrace by other users (not dumpable), before any is read.
 * Neither is fatal: without CAP_IPC_LOCK or with a small RLIMIT_MEMLOCK the
 * lock may fail, and the tool still works.
 */
static void protect_memory(bool verbose)
{
	if (prctl(PR_SET_DUMPABLE, 0, 0, 0, 0) != 0 && verbose)
		fprintf(stderr, PROG ": cannot disable core dumps: %s\n", strerror(errno));
	if (mlockall(MCL_CURRENT | MCL_FUTURE) != 0 && verbose)
		fprintf(stderr, PROG ": cannot lock memory (keys may reach swap): %s\n",
			strerror(errno));
}

int main(int argc, char *argv[])
{
	struct ic_args a;
	char err[512];
	bool show_keys = false;
	int i, j;

	/* --show-keys is only for output, so it is taken out before parsing. */
	for (i = j = 1; i < argc; i++) {
		if (strcmp(argv[i], "--show-keys") == 0)
			show_keys = true;
		else
			argv[j++] = argv[i];
	}
	argc = j;
	argv[argc] = NULL;

	if (ic_args_parse(argc, argv, &a, err, sizeof(err)) != 0 ||
	    ic_args_check(&a, err, sizeof(err)) != 0) {
		fprintf(stderr, PROG ": %s\n", err);
		return IC_EXIT_USAGE;
	}
	if (a.help) {
		usage(stdout);
		return IC_EXIT_OK;
	}
	if (a.version) {
		printf(PROG " " VERSION "\n");
		return IC_EXIT_OK;
	}
	protect_memory(a.verbose);
	if (!a.dry_run)
		ic_dm_init(a.verbose);
	for (i = 0; i < (int)(sizeof(commands) / sizeof(commands[0])); i++)
		if (strcmp(a.action, commands[i].name) == 0)
			return commands[i].fn(&a, show_keys);
	/* ic_args_check() knows the same names: not reached. */
	fprintf(stderr, PROG ": command '%s' is not implemented\n", a.action);
	return IC_EXIT_USAGE;
}
