// SPDX-License-Identifier: GPL-2.0
/*
 * The device-mapper side of inlinecrypt, through libdevmapper.
 */
#include <errno.h>
#include <fcntl.h>
#include <libdevmapper.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "dm.h"
#include "table.h"
#include "util.h"

static bool dm_verbose;

__attribute__((format(printf, 5, 6)))
static void dm_log(int level, const char *file, int line, int dm_errno_or_class,
		   const char *f, ...)
{
	va_list ap;

	(void)file;
	(void)line;
	(void)dm_errno_or_class;
	/* libdevmapper's errors are ioctl-level; we say what failed ourselves. */
	if (!dm_verbose || level > 4 /* _LOG_WARN */)
		return;
	fputs("device-mapper: ", stderr);
	va_start(ap, f);
	vfprintf(stderr, f, ap);
	va_end(ap);
	fputc('\n', stderr);
}

void ic_dm_init(bool verbose)
{
	dm_verbose = verbose;
	dm_log_with_errno_init(dm_log);
}

static int task_errno(struct dm_task *dmt)
{
	int e = dm_task_get_errno(dmt);

	return e ? -e : -EIO;
}

/*
 * The kernel logs why it refused a table ("device-mapper: table: 254:0:
 * inlinecrypt: Invalid key size (-EINVAL)"); the ioctl only says EINVAL.
 * Open the log at its end before the ioctl, read what came after it.
 */
static int kmsg_open(void)
{
	int fd = open("/dev/kmsg", O_RDONLY | O_NONBLOCK | O_CLOEXEC);

	if (fd >= 0)
		lseek(fd, 0, SEEK_END);
	return fd;
}

/* Drop the " (-95)" or " (-EOPNOTSUPP)" the kernel appends to ti->error. */
static void strip_errno(char *why)
{
	char *p = strrchr(why, '(');

	if (p && p > why && p[-1] == ' ' && p[1] == '-' && strchr(p, ')') &&
	    strchr(p, ')')[1] == '\0')
		p[-1] = '\0';
}

static void kmsg_reason(int fd, char *why, size_t whylen)
{
	char rec[1024];
	const char *msg, *p;

	if (fd < 0)
		return;
	for (;;) {
		ssize_t n = read(fd, rec, sizeof(rec) - 1);
		if (n < 0 && errno == EPIPE)	/* overwritten records: go on */
			continue;
		if (n <= 0)
			break;
		rec[n] = '\0';
		rec[strcspn(rec, "\n")] = '\0';
		msg = strchr(rec, ';');
		if (!msg || !strstr(msg, "device-mapper: "))
			continue;
		p = strstr(msg, IC_TARGET_NAME ": ");
		if (p)
			snprintf(why, whylen, "%s", p + strlen(IC_TARGET_NAME ": "));
		else if (!*why)
			snprintf(why, whylen, "%s", msg + 1);
	}
	close(fd);
	strip_errno(why);
}

int ic_dm_create(const char *name, const char *uuid, uint64_t length,
		 const char *params, bool readonly, char *why, size_t whylen)
{
	struct dm_task *dmt;
	uint32_t cookie = 0;
	int ret = 0, kmsg;

	if (whylen)
		why[0] = '\0';
	dmt = dm_task_create(DM_DEVICE_CREATE);
	if (!dmt)
		return -ENOMEM;
	if (!dm_task_set_name(dmt, name) || (uuid && !dm_task_set_uuid(dmt, uuid)) ||
	    !dm_task_secure_data(dmt) ||
	    !dm_task_add_target(dmt, 0, length, IC_TARGET_NAME, params) ||
	    (readonly && !dm_task_set_ro(dmt)) ||
	    !dm_task_set_cookie(dmt, &cookie, 0)) {
		ret = -ENOMEM;
		goto out;
	}
	kmsg = kmsg_open();
	/* libdevmapper creates, loads and resumes; a failed load removes the device. */
	if (!dm_task_run(dmt)) {
		ret = task_errno(dmt);
		kmsg_reason(kmsg, why, whylen);
	} else if (kmsg >= 0) {
		close(kmsg);
	}
	dm_udev_wait(cookie);
out:
	dm_task_destroy(dmt);
	return ret;
}

int ic_dm_remove(const char *name, bool deferred)
{
	struct dm_task *dmt;
	uint32_t cookie = 0;
	int ret = 0;

	dmt = dm_task_create(DM_DEVICE_REMOVE);
	if (!dmt)
		return -ENOMEM;
	if (!dm_task_set_name(dmt, name) || !dm_task_retry_remove(dmt) ||
	    (deferred && !dm_task_deferred_remove(dmt)) ||
	    !dm_task_set_cookie(dmt, &cookie, 0)) {
		dm_task_destroy(dmt);
		return -ENOMEM;
	}
	if (!dm_task_run(dmt))
		ret = task_errno(dmt);
	dm_udev_wait(cookie);
	dm_task_destroy(dmt);
	return ret;
}

/* A task on @name that carries no data back: suspend, resume. */
static int simple_task(int type, const char *name, bool cookie_wait)
{
	struct dm_task *dmt;
	uint32_t cookie = 0;
	int ret = 0;

	dmt = dm_task_create(type);
	if (!dmt)
		return -ENOMEM;
	if (!dm_task_set_name(dmt, name) ||
	    (cookie_wait && !dm_task_set_cookie(dmt, &cookie, 0))) {
		dm_task_destroy(dmt);
		return -ENOMEM;
	}
	if (!dm_task_run(dmt))
		ret = task_errno(dmt);
	if (cookie_wait)
		dm_udev_wait(cookie);
	dm_task_destroy(dmt);
	return ret;
}

int ic_dm_suspend(const char *name)
{
	return simple_task(DM_DEVICE_SUSPEND, name, false);
}

int ic_dm_resume(const char *name, char *why, size_t whylen)
{
	int kmsg, ret;

	if (whylen)
		why[0] = '\0';
	kmsg = kmsg_open();
	ret = simple_task(DM_DEVICE_RESUME, name, true);
	if (ret)
		kmsg_reason(kmsg, why, whylen);
	else if (kmsg >= 0)
		close(kmsg);
	return ret;
}

int ic_dm_message(const char *name, uint64_t sector, const char *msg, char *why,
		  size_t whylen)
{
	struct dm_task *dmt;
	int ret = 0, kmsg;

	if (whylen)
		why[0] = '\0';
	dmt = dm_task_create(DM_DEVICE_TARGET_MSG);
	if (!dmt)
		return -ENOMEM;
	/* The message may hold a key: libdevmapper wipes its buffers. */
	if (!dm_task_set_name(dmt, name) || !dm_task_secure_data(dmt) ||
	    !dm_task_set_sector(dmt, sector) || !dm_task_set_message(dmt, msg)) {
		dm_task_destroy(dmt);
		return -ENOMEM;
	}
	kmsg = kmsg_open();
	if (!dm_task_run(dmt)) {
		ret = task_errno(dmt);
		kmsg_reason(kmsg, why, whylen);
	} else if (kmsg >= 0) {
		close(kmsg);
	}
	dm_task_destroy(dmt);
	return ret;
}

int ic_dm_reload(const char *name, uint64_t length, const char *params, bool readonly,
		 char *why, size_t whylen)
{
	struct dm_task *dmt;
	int ret = 0, kmsg;

	if (whylen)
		why[0] = '\0';
	dmt = dm_task_create(DM_DEVICE_RELOAD);
	if (!dmt)
		return -ENOMEM;
	if (!dm_task_set_name(dmt, name) || !dm_task_secure_data(dmt) ||
	    !dm_task_add_target(dmt, 0, length, IC_TARGET_NAME, params) ||
	    (readonly && !dm_task_set_ro(dmt))) {
		dm_task_destroy(dmt);
		return -ENOMEM;
	}
	kmsg = kmsg_open();
	if (!dm_task_run(dmt)) {
		ret = task_errno(dmt);
		kmsg_reason(kmsg, why, whylen);
	} else if (kmsg >= 0) {
		close(kmsg);
	}
	dm_task_destroy(dmt);
	if (ret)
		return ret;
	/* The new table becomes live on resume, as with dmsetup reload. */
	return ic_dm_resume(name, why, whylen);
}

/* Fill targets' params (table) or status from a TABLE / STATUS task. */
static int collect(const char *name, int task, struct ic_dm_device *dev)
{
	uint64_t start, length;
	char *type, *params;
	struct dm_task *dmt;
	void *next = NULL;
	int i = 0;

	dmt = dm_task_create(task);
	if (!dmt)
		return -ENOMEM;
	if (!dm_task_set_name(dmt, name) || !dm_task_secure_data(dmt)) {
		dm_task_destroy(dmt);
		return -ENOMEM;
	}
	if (!dm_task_run(dmt)) {
		int ret = task_errno(dmt);

		dm_task_destroy(dmt);
		return ret;
	}
	do {
		char *copy;

		next = dm_get_next_target(dmt, next, &start, &length, &type, &params);
		if (!type || i == IC_DM_MAX_TARGETS)
			break;
		copy = strdup(params ? params : "");
		if (task == DM_DEVICE_TABLE) {
			dev->targets[i].start = start;
			dev->targets[i].length = length;
			snprintf(dev->targets[i].type, sizeof(dev->targets[i].type), "%s", type);
			dev->targets[i].params = copy;
		} else {
			dev->targets[i].status = copy;
		}
		i++;
	} while (next);
	if (task == DM_DEVICE_TABLE)
		dev->ntargets = i;
	dm_task_destroy(dmt);
	return 0;
}

int ic_dm_query(const char *name, struct ic_dm_device *dev)
{
	struct dm_info info;
	struct dm_task *dmt;
	const char *uuid;
	int ret;

	memset(dev, 0, sizeof(*dev));
	dmt = dm_task_create(DM_DEVICE_INFO);
	if (!dmt)
		return -ENOMEM;
	if (!dm_task_set_name(dmt, name)) {
		dm_task_destroy(dmt);
		return -ENOMEM;
	}
	if (!dm_task_run(dmt) || !dm_task_get_info(dmt, &info)) {
		ret = task_errno(dmt);
		dm_task_destroy(dmt);
		return ret;
	}
	if (!info.exists) {
		dm_task_destroy(dmt);
		return -ENODEV;
	}
	dev->major = info.major;
	dev->minor = info.minor;
	dev->open_count = info.open_count;
	dev->readonly = info.read_only;
	dev->suspended = info.suspended;
	uuid = dm_task_get_uuid(dmt);
	snprintf(dev->uuid, sizeof(dev->uuid), "%s", uuid ? uuid : "");
	dm_task_destroy(dmt);

	ret = collect(name, DM_DEVICE_TABLE, dev);
	if (!ret)
		ret = collect(name, DM_DEVICE_STATUS, dev);
	if (ret)
		ic_dm_device_free(dev);
	return ret;
}

void ic_dm_device_free(struct ic_dm_device *dev)
{
	int i;

	for (i = 0; i < IC_DM_MAX_TARGETS; i++) {
		if (dev->targets[i].params) {
			wipe(dev->targets[i].params, strlen(dev->targets[i].params));
			free(dev->targets[i].params);
		}
		free(dev->targets[i].status);
	}
	memset(dev, 0, sizeof(*dev));
}

void ic_dm_devname(uint32_t major, uint32_t minor, char *buf, size_t len)
{
	char name[128];

	if (!dm_device_get_name(major, minor, 1, name, sizeof(name))) {
		snprintf(buf, len, "%u:%u", major, minor);
		return;
	}
	if (strncmp(name, "dm-", 3) == 0 &&
	    dm_device_get_name(major, minor, 0, name, sizeof(name))) {
		snprintf(buf, len, "%s/%s", dm_dir(), name);
		return;
	}
	snprintf(buf, len, "/dev/%s", name);
}

const char *ic_dm_dir(void)
{
	return dm_dir();
}
