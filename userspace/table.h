/* SPDX-License-Identifier: GPL-2.0 */
/*
 * dm-inlinecrypt table lines: the ciphers the target knows, key references,
 * and building/parsing
 *   <cipher> <key> <iv_offset> <dev_path> <start> [<#opt_params> <opt_params>...]
 * (dm-crypt's syntax). Pure string work: no device, no ioctl.
 */
#ifndef INLINECRYPT_TABLE_H
#define INLINECRYPT_TABLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "util.h"

#define IC_TARGET_NAME "inlinecrypt"
#define IC_SECTOR_SHIFT 9
#define IC_SECTOR_SIZE 512u

/* Longest keyring description we accept (the kernel's limit is 4095). */
#define IC_KEY_DESC_MAX 256
/* Room for any table line we build: key hex, a path, a description. */
#define IC_PARAMS_MAX 8192

/**
 * struct ic_cipher - a cipher dm-inlinecrypt accepts.
 * @name: dm-crypt's name, as in the table line.
 * @key_size: the only key length the blk-crypto mode takes, in bytes.
 * @blk_crypto_mode: the blk-crypto mode it maps to (for messages).
 */
struct ic_cipher {
	const char *name;
	unsigned int key_size;
	const char *blk_crypto_mode;
};

extern const struct ic_cipher ic_ciphers[];
extern const size_t ic_n_ciphers;

/* ic_cipher_lookup - exact dm-crypt cipher name; NULL if unknown. */
const struct ic_cipher *ic_cipher_lookup(const char *name);

enum ic_key_type {
	IC_KEY_NONE = 0,
	IC_KEY_RAW,	/* bytes in ic_key.raw, written as hex */
	IC_KEY_LOGON,	/* :<size>:logon:<desc> */
	IC_KEY_USER,	/* :<size>:user:<desc> */
	IC_KEY_WIPED,	/* "-": the target's key was wiped ("key wipe") */
};

/**
 * struct ic_key - the volume key or a reference to it in the kernel keyring.
 * @type: which of the two.
 * @size: key length in bytes (for references: the size in the table line).
 * @raw: the key bytes for IC_KEY_RAW; wipe with ic_key_wipe().
 * @desc: keyring description for IC_KEY_LOGON / IC_KEY_USER.
 */
struct ic_key {
	enum ic_key_type type;
	unsigned int size;
	uint8_t raw[MAX_KEY_SIZE];
	char desc[IC_KEY_DESC_MAX];
};

void ic_key_wipe(struct ic_key *key);

/*
 * ic_key_parse_table - the <key> field of a table line: hex, or
 * :<size>:logon:<desc> / :<size>:user:<desc>, or "-", which the target
 * prints while its key is wiped (suspended after "key wipe").
 * Return: 0, or -1 with a reason in @err.
 */
int ic_key_parse_table(const char *s, struct ic_key *key, char *err, size_t errlen);

/*
 * ic_key_parse_desc - the argument of --key-desc: "logon:DESC", "user:DESC",
 * or a whole table reference ":SIZE:TYPE:DESC". A bare "DESC" means logon
 * (the type dm-crypt and cryptsetup use). @key_size is what the cipher needs;
 * an explicit SIZE must equal it.
 * Return: 0, or -1 with a reason in @err.
 */
int ic_key_parse_desc(const char *s, unsigned int key_size, struct ic_key *key,
		      char *err, size_t errlen);

/**
 * struct ic_table - one dm-inlinecrypt target line.
 * @cipher: from ic_ciphers.
 * @key: the key or keyring reference.
 * @iv_offset: added to the sector number to form the IV, in 512-byte sectors.
 * @dev_path: the device below (path or major:minor).
 * @start: first sector used on @dev_path, 512-byte sectors.
 * @length: the target length in 512-byte sectors (not in the parameters).
 * @sector_size: data unit size in bytes; 512 when the option is absent.
 * @allow_discards, @iv_large_sectors, @inline_only, @passthrough: options.
 * @perf_flags: dm-crypt's performance flags (IC_PERF_*): the target accepts
 *	and prints them so that dm-crypt tables load; they change nothing.
 */
struct ic_table {
	const struct ic_cipher *cipher;
	struct ic_key key;
	uint64_t iv_offset;
	char dev_path[4096];
	uint64_t start;
	uint64_t length;
	unsigned int sector_size;
	bool allow_discards;
	bool iv_large_sectors;
	bool inline_only;
	bool passthrough;
	unsigned int perf_flags;
};

/* dm-crypt's performance flags, in the order the target prints them. */
enum {
	IC_PERF_SAME_CPU_CRYPT = 1 << 0,
	IC_PERF_HIGH_PRIORITY = 1 << 1,
	IC_PERF_SUBMIT_FROM_CRYPT_CPUS = 1 << 2,
	IC_PERF_NO_READ_WORKQUEUE = 1 << 3,
	IC_PERF_NO_WRITE_WORKQUEUE = 1 << 4,
};

void ic_table_init(struct ic_table *t);
void ic_table_wipe(struct ic_table *t);

/*
 * ic_table_check - the rules the target enforces, checked before the kernel
 * sees them so the user gets a precise message: key length for the cipher,
 * XTS halves differ, sector size a power of two in 512..4096, iv_offset,
 * start and length aligned to it, length not zero.
 * Return: 0, or -1 with a reason in @err.
 */
int ic_table_check(const struct ic_table *t, char *err, size_t errlen);

/*
 * ic_table_params - write the target parameters (everything after
 * "<start> <length> inlinecrypt ") into @buf, options in the order the
 * target prints them. Hex keys appear in @buf: wipe it after use.
 * Return: 0, or -1 if @buf is too small.
 */
int ic_table_params(const struct ic_table *t, char *buf, size_t buflen);

/*
 * ic_table_parse - parse target parameters as printed by the kernel (the
 * device may be major:minor); @length is not part of them and is left 0.
 * Unknown options are an error. Wipe @t after use.
 * Return: 0, or -1 with a reason in @err.
 */
int ic_table_parse(const char *params, struct ic_table *t, char *err, size_t errlen);

/**
 * struct ic_target_status - the target's INFO status line:
 * "<hw|fallback> <cipher> <data_unit_size> <bios_enc> <bytes_enc>
 *  <bios_dec> <bytes_dec> <bios_passed_through>".
 */
struct ic_target_status {
	char engine[16];
	char cipher[64];
	unsigned int data_unit_size;
	uint64_t bios_encrypted, bytes_encrypted;
	uint64_t bios_decrypted, bytes_decrypted;
	uint64_t bios_passed_through;
};

/*
 * ic_status_parse - parse the INFO status line.
 * Return: 0, or -1 if it is not in the form above (print it raw then).
 */
int ic_status_parse(const char *line, struct ic_target_status *st);

#endif
