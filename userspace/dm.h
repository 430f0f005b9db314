/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The device-mapper side of inlinecrypt, through libdevmapper: create and
 * remove a one-target mapping, read back table and status.
 */
#ifndef INLINECRYPT_DM_H
#define INLINECRYPT_DM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define IC_DM_MAX_TARGETS 16
/* dm uuids of the mappings this tool makes start with this. */
/*
 * dm uuids of the mappings this tool makes: cryptsetup's form
 * (CRYPT-<TYPE>-[<uuid without dashes>-]<name>), so that tools that know
 * cryptsetup's mappings (lsblk, systemd, cryptsetup status) know ours;
 * older versions of the tool used INLINECRYPT-.
 */
#define IC_UUID_PREFIX "CRYPT-"
#define IC_UUID_PREFIX_OLD "INLINECRYPT-"
/* dm's DM_UUID_LEN, the NUL included. */
#define IC_DM_UUID_LEN 129

struct ic_dm_target {
	uint64_t start, length;
	char type[32];
	char *params;	/* table (may hold a key: freed with a wipe) */
	char *status;	/* INFO status line of the target */
};

struct ic_dm_device {
	uint32_t major, minor;
	int open_count;
	bool readonly, suspended;
	char uuid[IC_DM_UUID_LEN];
	int ntargets;
	struct ic_dm_target targets[IC_DM_MAX_TARGETS];
};

/* ic_dm_init - quiet libdevmapper's own messages unless @verbose. */
void ic_dm_init(bool verbose);

/*
 * ic_dm_create - create @name with one inlinecrypt target of @length
 * sectors. On failure the kernel's reason for refusing the table (from
 * the kernel log, when readable) is put in @why.
 * Return: 0 or -errno (-EEXIST if @name exists).
 */
int ic_dm_create(const char *name, const char *uuid, uint64_t length,
		 const char *params, bool readonly, char *why, size_t whylen);

/*
 * ic_dm_remove - remove @name; @deferred: if it is open, remove it when
 * the last user closes it (DM_DEFERRED_REMOVE).
 * Return: 0 or -errno (-ENODEV, -EBUSY).
 */
int ic_dm_remove(const char *name, bool deferred);

/* ic_dm_suspend - suspend @name (flushing its I/O). Return: 0 or -errno. */
int ic_dm_suspend(const char *name);

/*
 * ic_dm_resume - resume @name; a target's refusal (from the kernel log)
 * goes to @why. Return: 0 or -errno.
 */
int ic_dm_resume(const char *name, char *why, size_t whylen);

/*
 * ic_dm_message - send @msg to the target of @name that covers @sector
 * (with libdevmapper's secure-data flag: the message may hold a key); the
 * target's complaint from the kernel log goes to @why. Return: 0 or -errno.
 */
int ic_dm_message(const char *name, uint64_t sector, const char *msg, char *why,
		  size_t whylen);

/*
 * ic_dm_reload - load a one-target table into @name's inactive slot and
 * resume it (the new table becomes live). Return: 0 or -errno.
 */
int ic_dm_reload(const char *name, uint64_t length, const char *params, bool readonly,
		 char *why, size_t whylen);

/*
 * ic_dm_query - info, table and status of @name.
 * Return: 0, -ENODEV if there is no such mapping, or -errno.
 */
int ic_dm_query(const char *name, struct ic_dm_device *dev);

/* ic_dm_device_free - free and wipe what ic_dm_query() allocated. */
void ic_dm_device_free(struct ic_dm_device *dev);

/* ic_dm_devname - "/dev/sda" for 8:0 (or "8:0" if unknown) into @buf. */
void ic_dm_devname(uint32_t major, uint32_t minor, char *buf, size_t len);

/* ic_dm_dir - where the mapping nodes are ("/dev/mapper"). */
const char *ic_dm_dir(void);

#endif
