// SPDX-License-Identifier: GPL-2.0-only
/*
 * dm-inlinecrypt: a device-mapper target that encrypts a volume through
 * blk-crypto instead of the crypto API.
 *
 * The target attaches the volume key and a data unit number (DUN) to every
 * bio it remaps and leaves the work to the device below: its inline
 * encryption hardware when it has a keyslot for the configuration, or
 * blk-crypto-fallback otherwise (applied by submit_bio()). The table line,
 * the key formats and the IV of each data unit are those of dm-crypt, so
 * the ciphertext on the medium is byte-identical to dm-crypt's and a volume
 * (a LUKS2 one included) can be opened by either target.
 *
 * See Documentation/admin-guide/device-mapper/dm-inlinecrypt.rst.
 */

#include <linux/bio.h>
#include <linux/blk-crypto.h>
#include <linux/blkdev.h>
#include <linux/ctype.h>
#include <linux/device-mapper.h>
#include <linux/key.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/percpu.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/u64_stats_sync.h>
#include <crypto/utils.h>
#include <keys/user-type.h>

#define DM_MSG_PREFIX "inlinecrypt"

/**
 * struct inlinecrypt_cipher - a dm-crypt cipher string blk-crypto can do
 * @name: the cipher as dm-crypt (and cryptsetup) spells it
 * @mode: the blk-crypto mode that computes the same ciphertext
 * @key_size: key size in bytes; dm-crypt derives the AES key size from it,
 *	      blk-crypto modes have exactly one
 * @xts: the key is two halves (data key, tweak key) that must differ
 */
struct inlinecrypt_cipher {
	const char *name;
	enum blk_crypto_mode_num mode;
	unsigned int key_size;
	bool xts;
};

static const struct inlinecrypt_cipher inlinecrypt_ciphers[] = {
	{ "aes-xts-plain64", BLK_ENCRYPTION_MODE_AES_256_XTS, 64, true },
	{ "aes-cbc-essiv:sha256", BLK_ENCRYPTION_MODE_AES_128_CBC_ESSIV, 16, false },
	{ "xchacha12,aes-adiantum-plain64", BLK_ENCRYPTION_MODE_ADIANTUM, 32, false },
	{ "sm4-xts-plain64", BLK_ENCRYPTION_MODE_SM4_XTS, 32, true },
};

/*
 * Boolean optional parameters, in the order the table status prints them
 * (dm-crypt's order first). The five dm-crypt performance flags tune
 * dm-crypt's workqueues, which this target does not have: they are accepted
 * and printed back so that a table cryptsetup loaded for dm-crypt also loads
 * here, and have no effect.
 */
enum inlinecrypt_flag {
	INLINECRYPT_ALLOW_DISCARDS,
	INLINECRYPT_SAME_CPU_CRYPT,
	INLINECRYPT_HIGH_PRIORITY,
	INLINECRYPT_SUBMIT_FROM_CRYPT_CPUS,
	INLINECRYPT_NO_READ_WORKQUEUE,
	INLINECRYPT_NO_WRITE_WORKQUEUE,
	/* sector_size:<n> is printed here */
	INLINECRYPT_IV_LARGE_SECTORS,
	INLINECRYPT_INLINE_ONLY,
	INLINECRYPT_PASSTHROUGH,
	INLINECRYPT_NR_FLAGS,
};

static const char * const inlinecrypt_flag_names[INLINECRYPT_NR_FLAGS] = {
	[INLINECRYPT_ALLOW_DISCARDS] = "allow_discards",
	[INLINECRYPT_SAME_CPU_CRYPT] = "same_cpu_crypt",
	[INLINECRYPT_HIGH_PRIORITY] = "high_priority",
	[INLINECRYPT_SUBMIT_FROM_CRYPT_CPUS] = "submit_from_crypt_cpus",
	[INLINECRYPT_NO_READ_WORKQUEUE] = "no_read_workqueue",
	[INLINECRYPT_NO_WRITE_WORKQUEUE] = "no_write_workqueue",
	[INLINECRYPT_IV_LARGE_SECTORS] = "iv_large_sectors",
	[INLINECRYPT_INLINE_ONLY] = "inline_only",
	[INLINECRYPT_PASSTHROUGH] = "passthrough",
};

/* Each bio counter but the last is followed by its byte counter. */
enum inlinecrypt_stat {
	INLINECRYPT_BIOS_ENCRYPTED,
	INLINECRYPT_BYTES_ENCRYPTED,
	INLINECRYPT_BIOS_DECRYPTED,
	INLINECRYPT_BYTES_DECRYPTED,
	INLINECRYPT_BIOS_PASSED_THROUGH,
	INLINECRYPT_NR_STATS,
};

/**
 * struct inlinecrypt_stats - one CPU's counters of the INFO status
 * @val: completed bios and their bytes, enum inlinecrypt_stat
 * @syncp: lets a reader on a 32-bit machine see whole 64-bit values
 *
 * Per CPU so that the completion path, where most bios are counted, never
 * writes a cache line other CPUs write too; the status sums the CPUs.
 */
struct inlinecrypt_stats {
	u64_stats_t val[INLINECRYPT_NR_STATS];
	struct u64_stats_sync syncp;
};

/**
 * struct inlinecrypt_ctx - the state of one dm-inlinecrypt target
 * @dev: the device below
 * @start: first sector of the mapping on @dev
 * @iv_offset: added to the target's sector number to give the IV, in
 *	       512-byte sectors (dm-crypt's <iv_offset>)
 * @cipher: the cipher, from inlinecrypt_ciphers[]
 * @sector_size: the data unit size in bytes
 * @sector_shift: log2(@sector_size) - SECTOR_SHIFT
 * @iv_shift: how far a 512-byte sector number is shifted right to give the
 *	      DUN: @sector_shift with iv_large_sectors, else 0 (the IV counts
 *	      512-byte sectors and each bio carries a single data unit)
 * @dun_bytes: DUN size the key is initialised with (for "key set")
 * @fallback: the device below cannot do this configuration natively, so
 *	      blk-crypto-fallback does the crypto
 * @flags: the boolean optional parameters, bits of enum inlinecrypt_flag
 * @stats: per-CPU counters of completed bios and bytes
 * @key_lock: serialises the key messages, suspend/resume and the table
 *	      status against each other (never taken on the I/O path)
 * @suspended: between postsuspend and a successful preresume: no bio is in
 *	       the target or below it, so "key wipe" and "key set" may run
 * @key_valid: @key holds the volume key and blk_crypto_start_using_key()
 *	       succeeded on @dev, so it must be evicted before it is dropped;
 *	       false after "key wipe", and then preresume refuses
 * @key_string: "<logon|user>:<description>" for a keyring key, printed back
 *		in the table instead of the key; NULL for a hex key
 * @key: the volume key as blk-crypto uses it; wiped by "key wipe" and when
 *	 the context is freed
 */
struct inlinecrypt_ctx {
	struct dm_dev *dev;
	sector_t start;
	u64 iv_offset;
	const struct inlinecrypt_cipher *cipher;
	unsigned int sector_size;
	unsigned int sector_shift;
	unsigned int iv_shift;
	unsigned int dun_bytes;
	bool fallback;
	unsigned long flags;
	struct inlinecrypt_stats __percpu *stats;

	struct mutex key_lock; /* see @key_lock above */
	bool suspended;
	bool key_valid;
	char *key_string;
	struct blk_crypto_key key;
};

/**
 * struct inlinecrypt_io - per-bio data
 * @bytes: payload the target attached its key to, counted on completion;
 *	   0 for bios without data and bios passed through
 */
struct inlinecrypt_io {
	unsigned int bytes;
};

static struct target_type inlinecrypt_passthrough_target;

static const struct inlinecrypt_cipher *inlinecrypt_find_cipher(const char *name)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(inlinecrypt_ciphers); i++)
		if (!strcmp(name, inlinecrypt_ciphers[i].name))
			return &inlinecrypt_ciphers[i];
	return NULL;
}

#ifdef CONFIG_KEYS

static bool inlinecrypt_has_space(const char *s)
{
	for (; *s; s++)
		if (isspace(*s))
			return true;
	return false;
}

/*
 * Read a key given as dm-crypt's keyring reference, ":<size>:<type>:<desc>",
 * into @raw (the cipher's key size), and return "<type>:<desc>" in
 * *@key_string for the table status.
 */
static int inlinecrypt_get_keyring_key(const struct inlinecrypt_cipher *cipher,
				       const char *arg, u8 *raw,
				       char **key_string, char **error)
{
	const struct user_key_payload *payload;
	struct key_type *type;
	const char *ref, *desc;
	unsigned int size;
	struct key *key;
	char dummy;
	int ret;

	if (sscanf(arg + 1, "%u%c", &size, &dummy) != 2 || dummy != ':') {
		*error = "Cannot parse key size";
		return -EINVAL;
	}
	if (size != cipher->key_size) {
		*error = "Key size does not match cipher";
		return -EINVAL;
	}

	ref = strchr(arg + 1, ':') + 1;
	/*
	 * dm core has no escaping for whitespace in the table status, so a
	 * description with whitespace could not be printed back.
	 */
	if (inlinecrypt_has_space(ref)) {
		*error = "Whitespace in key description";
		return -EINVAL;
	}
	desc = strchr(ref, ':');
	if (!desc || !desc[1]) {
		*error = "Missing key description";
		return -EINVAL;
	}
	desc++;
	if (!strncmp(ref, "logon:", desc - ref)) {
		type = &key_type_logon;
	} else if (!strncmp(ref, "user:", desc - ref)) {
		type = &key_type_user;
	} else {
		*error = "Unsupported key type";
		return -EINVAL;
	}

	key = request_key(type, desc, NULL);
	if (IS_ERR(key)) {
		*error = "Key not found in keyring";
		return PTR_ERR(key);
	}

	down_read(&key->sem);
	payload = user_key_payload_locked(key);
	if (!payload) {
		*error = "Key was revoked";
		ret = -EKEYREVOKED;
	} else if (payload->datalen != size) {
		*error = "Keyring key size does not match cipher";
		ret = -EINVAL;
	} else {
		memcpy(raw, payload->data, size);
		ret = 0;
	}
	up_read(&key->sem);
	key_put(key);
	if (ret)
		return ret;

	*key_string = kstrdup(ref, GFP_KERNEL);
	if (!*key_string) {
		memzero_explicit(raw, size);
		*error = "Cannot allocate key reference";
		return -ENOMEM;
	}
	return 0;
}

#else

static int inlinecrypt_get_keyring_key(const struct inlinecrypt_cipher *cipher,
				       const char *arg, u8 *raw,
				       char **key_string, char **error)
{
	*error = "Keyring keys need CONFIG_KEYS";
	return -EINVAL;
}

#endif /* CONFIG_KEYS */

/*
 * Read a <key> argument, hex or a keyring reference, into @raw, and check
 * it fits @cipher; *@key_string is set for a keyring reference (NULL for
 * hex). The hex string is overwritten, as dm-crypt does, so no copy of the
 * key outlives the call in the table line or the message buffer.
 */
static int inlinecrypt_get_key(const struct inlinecrypt_cipher *cipher,
			       char *arg, u8 *raw, char **key_string,
			       char **error)
{
	unsigned int size = cipher->key_size;
	size_t len = strlen(arg);
	int ret;

	*key_string = NULL;
	if (arg[0] == ':') {
		ret = inlinecrypt_get_keyring_key(cipher, arg, raw, key_string,
						  error);
		if (ret)
			return ret;
	} else {
		ret = -EINVAL;
		if (len != 2 * size)
			*error = "Key size does not match cipher";
		else if (hex2bin(raw, arg, size))
			*error = "Invalid hex key";
		else
			ret = 0;
		memset(arg, '0', len);
		if (ret)
			return ret;
	}

	/*
	 * IEEE 1619 requires the two halves of an XTS key to differ; the
	 * crypto API's xts template refuses such keys in FIPS mode only, so
	 * refuse them here for every device, hardware included.
	 */
	if (cipher->xts && !crypto_memneq(raw, raw + size / 2, size / 2)) {
		*error = "XTS key halves must differ";
		memzero_explicit(raw, size);
		kfree_sensitive(*key_string);
		*key_string = NULL;
		return -EINVAL;
	}
	return 0;
}

/*
 * Take the key out of every keyslot that may hold it, then out of memory.
 * The eviction comes first: the engine keeps the key in its keyslot
 * registers until the slot is evicted or reused, blk-crypto-fallback keeps
 * the expanded key in its tfm, and a slot still linked to the key is
 * reprogrammed from @ctx->key after a host reset
 * (blk_crypto_reprogram_all_keys()); blk_crypto_evict_key() clears the slot
 * and unlinks it. For a dm device below with a passthrough profile the
 * eviction goes to every device below it; without native support it goes
 * to blk-crypto-fallback's keyslots. Only called when no bio can be using
 * the key: from the destructor, or while suspended.
 */
static void inlinecrypt_wipe_key(struct inlinecrypt_ctx *ctx)
{
	if (ctx->key_valid) {
		/*
		 * blk_crypto_evict_key() returns nothing: a failed eviction
		 * is logged by it ("error %d evicting key") and the key is
		 * unlinked from the keyslot all the same.
		 */
		blk_crypto_evict_key(ctx->dev->bdev, &ctx->key);
		ctx->key_valid = false;
	}
	memzero_explicit(ctx->key.raw, sizeof(ctx->key.raw));
	kfree_sensitive(ctx->key_string);
	ctx->key_string = NULL;
}

static void inlinecrypt_dtr(struct dm_target *ti)
{
	struct inlinecrypt_ctx *ctx = ti->private;

	if (!ctx)
		return;
	inlinecrypt_wipe_key(ctx);
	if (ctx->dev)
		dm_put_device(ti, ctx->dev);
	free_percpu(ctx->stats);
	mutex_destroy(&ctx->key_lock);
	kfree_sensitive(ctx);
	ti->private = NULL;
}

static int inlinecrypt_ctr_optional(struct dm_target *ti, unsigned int argc,
				    char **argv)
{
	struct inlinecrypt_ctx *ctx = ti->private;
	static const struct dm_arg _args[] = {
		{0, INLINECRYPT_NR_FLAGS + 1, "Invalid number of feature args"},
	};
	bool have_sector_size = false;
	struct dm_arg_set as;
	unsigned int opt_params, val, flag;
	const char *opt_string;
	char dummy;
	int ret;

	as.argc = argc;
	as.argv = argv;

	ret = dm_read_arg_group(_args, &as, &opt_params, &ti->error);
	if (ret)
		return ret;
	if (as.argc > opt_params) {
		ti->error = "Too many arguments";
		return -EINVAL;
	}

	while (opt_params--) {
		opt_string = dm_shift_arg(&as);
		if (!opt_string) {
			ti->error = "Not enough feature arguments";
			return -EINVAL;
		}

		for (flag = 0; flag < INLINECRYPT_NR_FLAGS; flag++)
			if (!strcasecmp(opt_string, inlinecrypt_flag_names[flag]))
				break;
		if (flag < INLINECRYPT_NR_FLAGS) {
			if (test_and_set_bit(flag, &ctx->flags)) {
				ti->error = "Duplicate feature argument";
				return -EINVAL;
			}
		} else if (sscanf(opt_string, "sector_size:%u%c", &val, &dummy) == 1) {
			if (have_sector_size) {
				ti->error = "Duplicate feature argument";
				return -EINVAL;
			}
			have_sector_size = true;
			if (val < SECTOR_SIZE || val > 4096 || !is_power_of_2(val)) {
				ti->error = "Invalid feature value for sector_size";
				return -EINVAL;
			}
			ctx->sector_size = val;
			ctx->sector_shift = __ffs(val) - SECTOR_SHIFT;
		} else {
			ti->error = "Invalid feature arguments";
			return -EINVAL;
		}
	}

	if (ti->len & ((ctx->sector_size >> SECTOR_SHIFT) - 1)) {
		ti->error = "Device size is not multiple of sector_size feature";
		return -EINVAL;
	}
	return 0;
}

/*
 * Construct an inline encryption mapping (dm-crypt's table syntax):
 * <cipher> <key> <iv_offset> <dev_path> <start> [<#opt_params> <opt_params>...]
 *
 * <cipher>: aes-xts-plain64, aes-cbc-essiv:sha256,
 *	     xchacha12,aes-adiantum-plain64 or sm4-xts-plain64
 * <key>: hex, or :<key_size>:<logon|user>:<key_description>
 * <opt_params>: allow_discards, sector_size:<512|1024|2048|4096>,
 *		 iv_large_sectors, inline_only, passthrough, and dm-crypt's
 *		 performance flags (accepted, no effect)
 */
static int inlinecrypt_ctr(struct dm_target *ti, unsigned int argc, char **argv)
{
	struct inlinecrypt_ctx *ctx;
	u8 raw_key[BLK_CRYPTO_MAX_KEY_SIZE];
	unsigned long long tmpll;
	unsigned int dus_sectors;
	u64 max_dun;
	char dummy;
	int ret, cpu;

	if (argc < 5) {
		ti->error = "Not enough arguments";
		return -EINVAL;
	}

	ctx = kzalloc(sizeof(*ctx), GFP_KERNEL);
	if (!ctx) {
		ti->error = "Cannot allocate encryption context";
		return -ENOMEM;
	}
	mutex_init(&ctx->key_lock);
	ctx->sector_size = SECTOR_SIZE;
	ti->private = ctx;

	ctx->stats = alloc_percpu(struct inlinecrypt_stats);
	if (!ctx->stats) {
		ti->error = "Cannot allocate status counters";
		ret = -ENOMEM;
		goto bad;
	}
	for_each_possible_cpu(cpu)
		u64_stats_init(&per_cpu_ptr(ctx->stats, cpu)->syncp);

	if (argc > 5) {
		ret = inlinecrypt_ctr_optional(ti, argc - 5, &argv[5]);
		if (ret)
			goto bad;
	}
	dus_sectors = ctx->sector_size >> SECTOR_SHIFT;
	if (test_bit(INLINECRYPT_IV_LARGE_SECTORS, &ctx->flags))
		ctx->iv_shift = ctx->sector_shift;

	ctx->cipher = inlinecrypt_find_cipher(argv[0]);
	if (!ctx->cipher) {
		ti->error = "Unknown or unsupported cipher";
		ret = -EINVAL;
		goto bad;
	}

	ret = inlinecrypt_get_key(ctx->cipher, argv[1], raw_key,
				  &ctx->key_string, &ti->error);
	if (ret)
		goto bad;

	ret = -EINVAL;
	if (sscanf(argv[2], "%llu%c", &tmpll, &dummy) != 1 ||
	    (tmpll & (dus_sectors - 1))) {
		ti->error = "Invalid iv_offset sector";
		goto bad;
	}
	if (ti->len - 1 > U64_MAX - tmpll) {
		ti->error = "iv_offset too large for the device size";
		goto bad;
	}
	ctx->iv_offset = tmpll;

	ret = dm_get_device(ti, argv[3], dm_table_get_mode(ti->table), &ctx->dev);
	if (ret) {
		ti->error = "Device lookup failed";
		goto bad;
	}

	/*
	 * dm-crypt has no zoned support either; without this the table
	 * would fail later, in dm core, with a message about zone models.
	 */
	if (bdev_is_zoned(ctx->dev->bdev)) {
		ti->error = "Zoned devices are not supported";
		ret = -EINVAL;
		goto bad;
	}

	ret = -EINVAL;
	if (sscanf(argv[4], "%llu%c", &tmpll, &dummy) != 1 ||
	    tmpll != (sector_t)tmpll) {
		ti->error = "Invalid device sector";
		goto bad;
	}
	if (tmpll & (dus_sectors - 1)) {
		ti->error = "Device sector is not a multiple of sector_size";
		goto bad;
	}
	ctx->start = tmpll;

	/* The DUN of the last data unit sets how many DUN bytes are needed. */
	max_dun = (ctx->iv_offset + ti->len - dus_sectors) >> ctx->iv_shift;
	ctx->dun_bytes = max_t(unsigned int, 1, DIV_ROUND_UP(fls64(max_dun), 8));
	ret = blk_crypto_init_key(&ctx->key, raw_key, ctx->cipher->mode,
				  ctx->dun_bytes, ctx->sector_size);
	if (ret) {
		ti->error = "Cannot initialize blk-crypto key";
		goto bad;
	}

	ctx->fallback = !blk_crypto_config_supported_natively(ctx->dev->bdev,
							      &ctx->key.crypto_cfg);
	if (test_bit(INLINECRYPT_INLINE_ONLY, &ctx->flags) && ctx->fallback) {
		ti->error = "No inline encryption hardware for this config (inline_only)";
		ret = -EOPNOTSUPP;
		goto bad;
	}

	ret = blk_crypto_start_using_key(ctx->dev->bdev, &ctx->key);
	if (ret) {
		/*
		 * -ENOMEM: blk-crypto-fallback could not allocate its
		 * keyslots, tfms or bounce pages for this mode.
		 */
		ti->error = ret == -ENOMEM ?
			"Cannot allocate blk-crypto-fallback resources" :
			"Neither the device nor blk-crypto-fallback can use this cipher";
		goto bad;
	}
	ctx->key_valid = true;

	/*
	 * With sector_size > 512 and without iv_large_sectors the IV counts
	 * 512-byte sectors, so consecutive data units have DUNs that differ
	 * by sector_size / 512, while blk-crypto (and the hardware) add one
	 * per data unit. Every bio then carries a single data unit, whose DUN
	 * is its own sector number; blk-crypto never merges two of them
	 * because their DUNs are not contiguous.
	 */
	if (ctx->sector_size > SECTOR_SIZE && !ctx->iv_shift) {
		ret = dm_set_target_max_io_len(ti, dus_sectors);
		if (ret) {
			ti->error = "Cannot limit I/O to one data unit";
			goto bad;
		}
	}

	ti->num_flush_bios = 1;
	/*
	 * A flush carries no data and the map function would only remap it
	 * to the one device below, so dm core may send it there directly, as
	 * for dm-linear (__send_empty_flush()); the device list never changes
	 * after the constructor.
	 */
	ti->flush_bypasses_map = true;
	if (test_bit(INLINECRYPT_ALLOW_DISCARDS, &ctx->flags))
		ti->num_discard_bios = 1;
	ti->per_io_data_size = sizeof(struct inlinecrypt_io);

	/*
	 * DM_TARGET_PASSES_CRYPTO lets the dm device advertise the inline
	 * encryption capabilities of the devices below, so that fscrypt
	 * above sends bios that already carry its own key. Only passthrough
	 * asks for that: without it the device must not advertise anything,
	 * so that blk-crypto-fallback does the upper layer's encryption
	 * above this target and every byte this target writes is encrypted
	 * with the volume key.
	 *
	 * The feature is a property of the target type, so a passthrough
	 * table uses a copy of the type that has it. That copy is safe
	 * because of how dm core (6.12) uses ti->type:
	 *  - dm_table_add_target() reads the type's features before calling
	 *    the constructor (singleton, always-writeable, immutable) from
	 *    the registered type; the copy only differs in
	 *    DM_TARGET_PASSES_CRYPTO, which none of them involves;
	 *  - DM_TARGET_PASSES_CRYPTO is read by one function only,
	 *    dm_table_construct_crypto_profile(), from dm_table_complete(),
	 *    after every constructor of the table has run;
	 *  - every other use after the constructor calls a method (the same
	 *    functions in the copy), reads name/version (the same), or puts
	 *    the module reference (dm_put_target_type() uses ->module, the
	 *    same module, which stays loaded while the table holds it);
	 *  - nothing compares ti->type with the registered type, except the
	 *    immutable-target checks, which do not apply to this target.
	 * tests/dm-inlinecrypt-hw/003 fails if dm core starts reading the
	 * feature elsewhere (the advertised capabilities, table reloads,
	 * mixed tables, the module reference count).
	 */
	if (test_bit(INLINECRYPT_PASSTHROUGH, &ctx->flags))
		ti->type = &inlinecrypt_passthrough_target;

	memzero_explicit(raw_key, sizeof(raw_key));
	return 0;

bad:
	memzero_explicit(raw_key, sizeof(raw_key));
	inlinecrypt_dtr(ti);
	return ret;
}

/*
 * Count a completed (or passed-through) bio. Called from bio completion,
 * which may run in hard or soft interrupt context; preemption stays off
 * so that the CPU's counters cannot change under us, and on 32-bit
 * machines u64_stats also keeps interrupts off while a value is
 * half-written (on 64-bit both are no-ops besides the preempt count).
 */
static void inlinecrypt_count(struct inlinecrypt_ctx *ctx,
			      enum inlinecrypt_stat bios, unsigned int bytes)
{
	struct inlinecrypt_stats *stats = get_cpu_ptr(ctx->stats);
	unsigned long flags;

	flags = u64_stats_update_begin_irqsave(&stats->syncp);
	u64_stats_inc(&stats->val[bios]);
	if (bytes)
		u64_stats_add(&stats->val[bios + 1], bytes);
	u64_stats_update_end_irqrestore(&stats->syncp, flags);
	put_cpu_ptr(ctx->stats);
}

static void inlinecrypt_read_stats(struct inlinecrypt_ctx *ctx,
				   u64 sum[INLINECRYPT_NR_STATS])
{
	u64 val[INLINECRYPT_NR_STATS];
	unsigned int start, i;
	int cpu;

	memset(sum, 0, sizeof(u64) * INLINECRYPT_NR_STATS);
	for_each_possible_cpu(cpu) {
		struct inlinecrypt_stats *stats = per_cpu_ptr(ctx->stats, cpu);

		do {
			start = u64_stats_fetch_begin(&stats->syncp);
			for (i = 0; i < INLINECRYPT_NR_STATS; i++)
				val[i] = u64_stats_read(&stats->val[i]);
		} while (u64_stats_fetch_retry(&stats->syncp, start));
		for (i = 0; i < INLINECRYPT_NR_STATS; i++)
			sum[i] += val[i];
	}
}

static int inlinecrypt_map(struct dm_target *ti, struct bio *bio)
{
	struct inlinecrypt_ctx *ctx = ti->private;
	struct inlinecrypt_io *io = dm_per_bio_data(bio, sizeof(*io));
	sector_t offset = dm_target_offset(ti, bio->bi_iter.bi_sector);
	u64 dun[BLK_CRYPTO_DUN_ARRAY_SIZE] = { };

	io->bytes = 0;
	bio_set_dev(bio, ctx->dev->bdev);
	if (bio_sectors(bio))
		bio->bi_iter.bi_sector = ctx->start + offset;

	/* Flushes and discards carry no data to encrypt. */
	if (!bio_has_data(bio))
		return DM_MAPIO_REMAPPED;

	if (bio_has_crypt_ctx(bio)) {
		/*
		 * Only a passthrough table advertises crypto capabilities;
		 * otherwise blk-crypto-fallback has already replaced the
		 * upper layer's context before the bio reached this target.
		 */
		if (unlikely(!test_bit(INLINECRYPT_PASSTHROUGH, &ctx->flags))) {
			DMERR_LIMIT("%s: keyed bio without passthrough",
				    dm_table_device_name(ti->table));
			return DM_MAPIO_KILL;
		}
		inlinecrypt_count(ctx, INLINECRYPT_BIOS_PASSED_THROUGH, 0);
		return DM_MAPIO_REMAPPED;
	}

	/* A partial data unit would be encrypted with the wrong IV. */
	if (unlikely((offset & ((ctx->sector_size >> SECTOR_SHIFT) - 1)) ||
		     (bio->bi_iter.bi_size & (ctx->sector_size - 1)))) {
		DMERR_LIMIT("%s: bio at sector %llu, %u bytes: not aligned to %u",
			    dm_table_device_name(ti->table), (unsigned long long)offset,
			    bio->bi_iter.bi_size, ctx->sector_size);
		return DM_MAPIO_KILL;
	}
	if (unlikely(ti->max_io_len && bio->bi_iter.bi_size != ctx->sector_size)) {
		DMERR_LIMIT("%s: bio at sector %llu, %u bytes: not one data unit of %u",
			    dm_table_device_name(ti->table), (unsigned long long)offset,
			    bio->bi_iter.bi_size, ctx->sector_size);
		return DM_MAPIO_KILL;
	}

	/*
	 * Polled I/O cannot be polled through blk-crypto-fallback: it
	 * encrypts a write into a bounce bio that replaces this clone in
	 * submit_bio(), so the cookie dm core polls (dm_poll_dm_io() polls
	 * the clone) is never set, the bounce bio waits on a poll queue that
	 * nobody polls, and it completes only if the driver times it out.
	 * Sent without REQ_POLLED it goes to an interrupt-driven queue; dm
	 * core still completes the original polled bio from dm_poll_bio()
	 * once the clone has ended. The engine keeps real polling.
	 */
	if (ctx->fallback)
		bio_clear_polled(bio);
	dun[0] = (ctx->iv_offset + offset) >> ctx->iv_shift;
	bio_crypt_set_ctx(bio, &ctx->key, dun, GFP_NOIO);
	io->bytes = bio->bi_iter.bi_size;
	return DM_MAPIO_REMAPPED;
}

static int inlinecrypt_end_io(struct dm_target *ti, struct bio *bio,
			      blk_status_t *error)
{
	struct inlinecrypt_ctx *ctx = ti->private;
	struct inlinecrypt_io *io = dm_per_bio_data(bio, sizeof(*io));

	if (io->bytes && !*error)
		inlinecrypt_count(ctx, bio_data_dir(bio) == WRITE ?
				  INLINECRYPT_BIOS_ENCRYPTED :
				  INLINECRYPT_BIOS_DECRYPTED, io->bytes);
	return DM_ENDIO_DONE;
}

static void inlinecrypt_status(struct dm_target *ti, status_type_t type,
			       unsigned int status_flags, char *result,
			       unsigned int maxlen)
{
	struct inlinecrypt_ctx *ctx = ti->private;
	unsigned int sz = 0, flag, num_feature_args;
	u64 stats[INLINECRYPT_NR_STATS];
	bool hw;

	switch (type) {
	case STATUSTYPE_INFO:
		hw = blk_crypto_config_supported_natively(ctx->dev->bdev,
							  &ctx->key.crypto_cfg);
		inlinecrypt_read_stats(ctx, stats);
		DMEMIT("%s %s %u %llu %llu %llu %llu %llu",
		       hw ? "hw" : "fallback", ctx->cipher->name,
		       ctx->sector_size,
		       stats[INLINECRYPT_BIOS_ENCRYPTED],
		       stats[INLINECRYPT_BYTES_ENCRYPTED],
		       stats[INLINECRYPT_BIOS_DECRYPTED],
		       stats[INLINECRYPT_BYTES_DECRYPTED],
		       stats[INLINECRYPT_BIOS_PASSED_THROUGH]);
		break;

	case STATUSTYPE_TABLE:
		DMEMIT("%s ", ctx->cipher->name);
		/*
		 * After "key wipe" there is no key to print: "-", which no
		 * constructor of this target accepts (dm-crypt prints the
		 * zeroed key bytes instead).
		 */
		mutex_lock(&ctx->key_lock);
		if (!ctx->key_valid)
			DMEMIT("-");
		else if (ctx->key_string)
			DMEMIT(":%u:%s", ctx->key.size, ctx->key_string);
		else
			DMEMIT("%*phN", ctx->key.size, ctx->key.raw);
		mutex_unlock(&ctx->key_lock);
		DMEMIT(" %llu %s %llu", (unsigned long long)ctx->iv_offset,
		       ctx->dev->name, (unsigned long long)ctx->start);

		num_feature_args = hweight_long(ctx->flags) +
				   (ctx->sector_size != SECTOR_SIZE);
		if (!num_feature_args)
			break;
		DMEMIT(" %u", num_feature_args);
		for (flag = 0; flag < INLINECRYPT_NR_FLAGS; flag++) {
			if (flag == INLINECRYPT_IV_LARGE_SECTORS &&
			    ctx->sector_size != SECTOR_SIZE)
				DMEMIT(" sector_size:%u", ctx->sector_size);
			if (test_bit(flag, &ctx->flags))
				DMEMIT(" %s", inlinecrypt_flag_names[flag]);
		}
		break;

	case STATUSTYPE_IMA:
		DMEMIT_TARGET_NAME_VERSION(ti->type);
		for (flag = 0; flag < INLINECRYPT_NR_FLAGS; flag++)
			DMEMIT(",%s=%c", inlinecrypt_flag_names[flag],
			       test_bit(flag, &ctx->flags) ? 'y' : 'n');
		DMEMIT(",sector_size=%u", ctx->sector_size);
		DMEMIT(",cipher_string=%s", ctx->cipher->name);
		DMEMIT(",key_size=%u", ctx->key.size);
		mutex_lock(&ctx->key_lock);
		DMEMIT(",key_source=%s", !ctx->key_valid ? "none" :
		       ctx->key_string ? "keyring" : "hex");
		mutex_unlock(&ctx->key_lock);
		DMEMIT(";");
		break;
	}
}

/*
 * "key set": load a new key (hex or keyring reference) while suspended,
 * as dm-crypt's crypt_set_key(). The old key, if still valid, is evicted
 * and wiped first. The new key must fit the cipher; it cannot be checked
 * against the old one, which is gone (cryptsetup checks a LUKS volume key
 * against the header's digest before sending it).
 */
static int inlinecrypt_set_key(struct dm_target *ti, struct inlinecrypt_ctx *ctx,
			       char *arg)
{
	u8 raw_key[BLK_CRYPTO_MAX_KEY_SIZE];
	char *key_string, *error = NULL;
	int ret;

	ret = inlinecrypt_get_key(ctx->cipher, arg, raw_key, &key_string, &error);
	if (ret) {
		DMERR("%s: key set: %s", dm_table_device_name(ti->table), error);
		goto out;
	}

	inlinecrypt_wipe_key(ctx);
	ret = blk_crypto_init_key(&ctx->key, raw_key, ctx->cipher->mode,
				  ctx->dun_bytes, ctx->sector_size);
	if (!ret)
		ret = blk_crypto_start_using_key(ctx->dev->bdev, &ctx->key);
	if (ret) {
		DMERR("%s: key set: cannot use the key: %d",
		      dm_table_device_name(ti->table), ret);
		memzero_explicit(ctx->key.raw, sizeof(ctx->key.raw));
		kfree_sensitive(key_string);
		goto out;
	}
	ctx->key_string = key_string;
	ctx->key_valid = true;
out:
	memzero_explicit(raw_key, sizeof(raw_key));
	return ret;
}

/*
 * Messages, as dm-crypt's crypt_message():
 *   key wipe        evict the key from every keyslot, then wipe it
 *   key set <key>   load a key (hex or :<size>:<type>:<description>)
 * Both only while the device is suspended: postsuspend runs after dm core
 * has waited for every bio in the target (__dm_suspend()), so no bio
 * holds the key, and preresume refuses to resume without a valid key.
 */
static int inlinecrypt_message(struct dm_target *ti, unsigned int argc,
			       char **argv, char *result, unsigned int maxlen)
{
	struct inlinecrypt_ctx *ctx = ti->private;
	unsigned int i;
	int ret;

	if (argc < 2 || strcasecmp(argv[0], "key") ||
	    !((argc == 2 && !strcasecmp(argv[1], "wipe")) ||
	      (argc == 3 && !strcasecmp(argv[1], "set")))) {
		DMWARN("%s: unrecognised message received",
		       dm_table_device_name(ti->table));
		ret = -EINVAL;
		goto out;
	}

	mutex_lock(&ctx->key_lock);
	if (!ctx->suspended) {
		DMWARN("%s: not suspended during key manipulation",
		       dm_table_device_name(ti->table));
		ret = -EINVAL;
	} else if (argc == 2) {
		inlinecrypt_wipe_key(ctx);
		ret = 0;
	} else {
		ret = inlinecrypt_set_key(ti, ctx, argv[2]);
	}
	mutex_unlock(&ctx->key_lock);
out:
	/* A hex key may be in the message; no copy of it stays there. */
	for (i = 2; i < argc; i++)
		memzero_explicit(argv[i], strlen(argv[i]));
	return ret;
}

static void inlinecrypt_postsuspend(struct dm_target *ti)
{
	struct inlinecrypt_ctx *ctx = ti->private;

	mutex_lock(&ctx->key_lock);
	ctx->suspended = true;
	mutex_unlock(&ctx->key_lock);
}

/*
 * As dm-crypt's crypt_preresume(): no resume without a key. The target
 * leaves the suspended state here rather than in ->resume: a "key wipe"
 * arriving between a successful preresume and the resume would otherwise
 * let bios through with a wiped key. If dm core aborts the resume after
 * this (another target's preresume failed), key messages to this target
 * are refused until it has been resumed and suspended again; its key is
 * valid meanwhile.
 */
static int inlinecrypt_preresume(struct dm_target *ti)
{
	struct inlinecrypt_ctx *ctx = ti->private;
	int ret = 0;

	mutex_lock(&ctx->key_lock);
	if (!ctx->key_valid) {
		DMERR("%s: aborting resume - the key is not set",
		      dm_table_device_name(ti->table));
		ret = -EAGAIN;
	} else {
		ctx->suspended = false;
	}
	mutex_unlock(&ctx->key_lock);
	return ret;
}

/*
 * No .prepare_ioctl, as in dm-crypt. With one, dm_blk_ioctl() hands ioctls
 * such as SG_IO to the device below through dm_prepare_ioctl(): without any
 * privilege check when it returns 0, and with a CAP_SYS_RAWIO check only
 * when it returns > 0. A SCSI command sent that way reaches the medium
 * unencrypted: whoever can open the mapping could read the ciphertext or
 * write plaintext under the volume. Without the hook dm_prepare_ioctl()
 * returns -ENOTTY and such ioctls fail; the block layer's own ioctls
 * (BLKGETSIZE64, BLKDISCARD, BLKZEROOUT, ...) are not affected.
 */

static int inlinecrypt_iterate_devices(struct dm_target *ti,
				       iterate_devices_callout_fn fn, void *data)
{
	struct inlinecrypt_ctx *ctx = ti->private;

	return fn(ti, ctx->dev, ctx->start, ti->len, data);
}

static void inlinecrypt_io_hints(struct dm_target *ti,
				 struct queue_limits *limits)
{
	struct inlinecrypt_ctx *ctx = ti->private;

	limits->logical_block_size =
		max_t(unsigned int, limits->logical_block_size, ctx->sector_size);
	limits->physical_block_size =
		max_t(unsigned int, limits->physical_block_size, ctx->sector_size);
	limits->io_min = max_t(unsigned int, limits->io_min, ctx->sector_size);
	/*
	 * blk-crypto needs every segment aligned to the data unit size. The
	 * limits of the device below are already stacked into @limits, and
	 * unlike dm-crypt, which bounces every bio into its own pages, this
	 * target hands the caller's pages to the device: never lower the
	 * alignment the device below asked for.
	 */
	limits->dma_alignment = max_t(unsigned int, limits->dma_alignment,
				      limits->logical_block_size - 1);
}

static struct target_type inlinecrypt_target = {
	.name = "inlinecrypt",
	.version = {1, 1, 0},
	.module = THIS_MODULE,
	.ctr = inlinecrypt_ctr,
	.dtr = inlinecrypt_dtr,
	.map = inlinecrypt_map,
	.end_io = inlinecrypt_end_io,
	.postsuspend = inlinecrypt_postsuspend,
	.preresume = inlinecrypt_preresume,
	.status = inlinecrypt_status,
	.message = inlinecrypt_message,
	.iterate_devices = inlinecrypt_iterate_devices,
	.io_hints = inlinecrypt_io_hints,
};

static int __init dm_inlinecrypt_init(void)
{
	/*
	 * The type of passthrough tables, never registered: the same target
	 * with DM_TARGET_PASSES_CRYPTO set, see inlinecrypt_ctr().
	 */
	inlinecrypt_passthrough_target = inlinecrypt_target;
	inlinecrypt_passthrough_target.features |= DM_TARGET_PASSES_CRYPTO;
	return dm_register_target(&inlinecrypt_target);
}

static void __exit dm_inlinecrypt_exit(void)
{
	dm_unregister_target(&inlinecrypt_target);
}

module_init(dm_inlinecrypt_init);
module_exit(dm_inlinecrypt_exit);

MODULE_DESCRIPTION(DM_NAME " target encrypting through blk-crypto, compatible with dm-crypt");
MODULE_LICENSE("GPL");
