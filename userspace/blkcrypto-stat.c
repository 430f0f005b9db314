// SPDX-License-Identifier: GPL-2.0
/*
 * blkcrypto-stat: show what inline encryption keyslots are doing.
 *
 * Without arguments: a table of every disk with a crypto profile
 * (/sys/block/X/queue/crypto) and every device-mapper device stacked on one,
 * with the keyslot counters of /sys/block/X/queue/crypto/stats/.
 *
 * With --trace -- CMD: enable the blk_crypto trace events in a private
 * tracefs instance, run CMD, and print per profile the keyslot timeline
 * (which key in which slot, acquired and released) and a summary that checks
 * the keyslot invariants. --record saves the raw trace; --replay reads one.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "util.h"

#define PROG "blkcrypto-stat"

/* Exit codes: 0 success, 1 failure, 2 usage; --trace returns CMD's status. */
enum { EXIT_OK = 0, EXIT_FAIL = 1, EXIT_USAGE = 2 };

#define NAME_LEN 128
#define DEFAULT_LINES 200
#define DEFAULT_BUFFER_KB 16384

static void usage(FILE *f)
{
	fprintf(f,
		"Usage:\n"
		" " PROG "                           keyslot table of all crypto devices\n"
		" " PROG " --trace [options] -- CMD [ARG...]\n"
		" " PROG " --replay FILE [options]\n"
		"\n"
		"Show inline encryption keyslot use. The table lists every disk with a\n"
		"crypto profile and every device-mapper device stacked on one: whether it\n"
		"owns keyslots (hardware) or passes crypto down (passthrough), keyslots\n"
		"total/in use, and the counters of /sys/block/X/queue/crypto/stats/.\n"
		"\n"
		"--trace runs CMD with the blk_crypto trace events on (a private tracefs\n"
		"instance) and prints, per crypto profile, the keyslot timeline and a\n"
		"summary that checks the keyslot invariants. Exit status: CMD's.\n"
		"\n"
		"Options:\n"
		" -t, --trace           trace CMD (after --)\n"
		" -r, --record FILE     with --trace: save the raw trace to FILE\n"
		" -R, --replay FILE     print the timeline of a saved record\n"
		" -n, --lines N         timeline lines per profile (default %d, 0: all)\n"
		" -s, --summary         with --trace/--replay: summaries only\n"
		" -b, --buffer-kb N     trace buffer per CPU (default %d)\n"
		" -c, --clock CLOCK     trace clock: counter (default: one global\n"
		"                       order of events across CPUs, no times) or a\n"
		"                       tracefs clock with times, e.g. mono (events of\n"
		"                       different CPUs may then come out of order)\n"
		" -h, --help            display this help\n"
		" -V, --version         display version\n"
		"\n"
		"Environment: BLKCRYPTO_STAT_SYSFS (default /sys) for the table.\n",
		DEFAULT_LINES, DEFAULT_BUFFER_KB);
}

/* ---- sysfs ------------------------------------------------------------ */

/* fmt - snprintf that says whether the result fit. */
__attribute__((format(printf, 3, 4)))
static bool fmt(char *buf, size_t size, const char *f, ...)
{
	va_list ap;
	int n;

	va_start(ap, f);
	n = vsnprintf(buf, size, f, ap);
	va_end(ap);
	return n >= 0 && (size_t)n < size;
}

static const char *sysfs_root(void)
{
	const char *s = getenv("BLKCRYPTO_STAT_SYSFS");

	return s && *s ? s : "/sys";
}

/* read_line - first line of a file, newline stripped. Return: 0 or -1. */
static int read_line(const char *path, char *buf, size_t size)
{
	FILE *f = fopen(path, "re");
	size_t len;

	if (!f)
		return -1;
	if (!fgets(buf, (int)size, f)) {
		fclose(f);
		return -1;
	}
	fclose(f);
	len = strlen(buf);
	while (len > 0 && (buf[len - 1] == '\n' || buf[len - 1] == '\r'))
		buf[--len] = '\0';
	return 0;
}

static int read_u64(const char *path, uint64_t *val)
{
	char buf[64];

	if (read_line(path, buf, sizeof(buf)) != 0)
		return -1;
	return parse_u64(buf, val);
}

enum stat_idx {
	ST_PROGRAMS, ST_EVICTIONS, ST_REPLACEMENTS, ST_HITS, ST_WAITS,
	ST_SLOTS_IN_USE, ST_MAX_IN_USE, ST_SLOTS_PROGRAMMED, ST_NR
};

static const char *const stat_files[ST_NR] = {
	[ST_PROGRAMS] = "programs",
	[ST_EVICTIONS] = "evictions",
	[ST_REPLACEMENTS] = "replacements",
	[ST_HITS] = "hits",
	[ST_WAITS] = "waits",
	[ST_SLOTS_IN_USE] = "slots_in_use",
	[ST_MAX_IN_USE] = "max_slots_in_use",
	[ST_SLOTS_PROGRAMMED] = "slots_programmed",
};

struct blockdev {
	char name[NAME_LEN];
	char dm_name[NAME_LEN];		/* "" unless device-mapper */
	char profile[NAME_LEN];		/* "" if unknown */
	char slaves[256];		/* comma separated, "" if none */
	bool has_crypto;		/* queue/crypto exists */
	bool shown;
	uint64_t keyslots;
	uint64_t stat[ST_NR];
	bool stat_ok[ST_NR];
};

struct devlist {
	struct blockdev *d;
	size_t n;
};

static void devlist_free(struct devlist *l)
{
	free(l->d);
	l->d = NULL;
	l->n = 0;
}

static void read_slaves(const char *dir, struct blockdev *bd)
{
	struct dirent *de;
	DIR *d = opendir(dir);
	size_t len = 0;

	bd->slaves[0] = '\0';
	if (!d)
		return;
	while ((de = readdir(d))) {
		size_t n = strlen(de->d_name);

		if (de->d_name[0] == '.')
			continue;
		if (len + n + 2 > sizeof(bd->slaves))
			break;
		if (len)
			bd->slaves[len++] = ',';
		memcpy(bd->slaves + len, de->d_name, n + 1);
		len += n;
	}
	closedir(d);
}

static int name_cmp(const void *a, const void *b)
{
	const struct blockdev *x = a, *y = b;
	bool xdm = x->dm_name[0], ydm = y->dm_name[0];

	/* Devices that own keyslots first, the layers above them after. */
	if (xdm != ydm)
		return xdm ? 1 : -1;
	return strcmp(x->name, y->name);
}

static int scan_block(struct devlist *l)
{
	char dir[PATH_MAX], path[PATH_MAX + 64];
	struct dirent *de;
	DIR *d;

	(void)fmt(dir, sizeof(dir), "%s/block", sysfs_root());
	d = opendir(dir);
	if (!d) {
		fprintf(stderr, PROG ": %s: cannot open: %s\n", dir, strerror(errno));
		return -1;
	}
	while ((de = readdir(d))) {
		struct blockdev *bd, *grown;
		struct stat st;
		int i;

		if (de->d_name[0] == '.')
			continue;
		grown = realloc(l->d, (l->n + 1) * sizeof(*l->d));
		if (!grown) {
			closedir(d);
			return -1;
		}
		l->d = grown;
		bd = &l->d[l->n++];
		memset(bd, 0, sizeof(*bd));
		(void)fmt(bd->name, sizeof(bd->name), "%s", de->d_name);

		(void)fmt(path, sizeof(path), "%s/%s/dm/name", dir, bd->name);
		if (read_line(path, bd->dm_name, sizeof(bd->dm_name)) != 0)
			bd->dm_name[0] = '\0';
		(void)fmt(path, sizeof(path), "%s/%s/slaves", dir, bd->name);
		read_slaves(path, bd);

		(void)fmt(path, sizeof(path), "%s/%s/queue/crypto", dir, bd->name);
		bd->has_crypto = stat(path, &st) == 0 && S_ISDIR(st.st_mode);
		if (!bd->has_crypto)
			continue;
		(void)fmt(path, sizeof(path), "%s/%s/queue/crypto/num_keyslots",
			 dir, bd->name);
		if (read_u64(path, &bd->keyslots) != 0)
			bd->keyslots = 0;
		(void)fmt(path, sizeof(path), "%s/%s/queue/crypto/profile",
			 dir, bd->name);
		if (read_line(path, bd->profile, sizeof(bd->profile)) != 0)
			bd->profile[0] = '\0';
		for (i = 0; i < ST_NR; i++) {
			(void)fmt(path, sizeof(path), "%s/%s/queue/crypto/stats/%s",
				 dir, bd->name, stat_files[i]);
			bd->stat_ok[i] = read_u64(path, &bd->stat[i]) == 0;
		}
	}
	closedir(d);
	qsort(l->d, l->n, sizeof(*l->d), name_cmp);
	return 0;
}

static struct blockdev *devlist_find(struct devlist *l, const char *name)
{
	size_t i;

	for (i = 0; i < l->n; i++)
		if (strcmp(l->d[i].name, name) == 0)
			return &l->d[i];
	return NULL;
}

/* Show crypto devices, then (repeatedly) every device stacked on a shown one. */
static void mark_shown(struct devlist *l)
{
	bool changed = true;
	size_t i;

	for (i = 0; i < l->n; i++)
		l->d[i].shown = l->d[i].has_crypto;
	while (changed) {
		changed = false;
		for (i = 0; i < l->n; i++) {
			char buf[sizeof(l->d[i].slaves)], *tok, *save = NULL;

			if (l->d[i].shown || !l->d[i].slaves[0])
				continue;
			memcpy(buf, l->d[i].slaves, sizeof(buf));
			for (tok = strtok_r(buf, ",", &save); tok;
			     tok = strtok_r(NULL, ",", &save)) {
				struct blockdev *below = devlist_find(l, tok);

				if (below && below->shown) {
					l->d[i].shown = true;
					changed = true;
					break;
				}
			}
		}
	}
}

static const char *dev_type(const struct blockdev *bd)
{
	if (!bd->has_crypto)
		return "none";
	if (bd->keyslots > 0)
		return "hardware";
	return bd->dm_name[0] ? "passthrough" : "hardware";
}

static void fmt_stat(const struct blockdev *bd, int i, char *buf, size_t size)
{
	if (bd->has_crypto && bd->stat_ok[i])
		(void)fmt(buf, size, "%" PRIu64, bd->stat[i]);
	else
		(void)fmt(buf, size, "-");
}

static int cmd_table(void)
{
	struct devlist l = { 0 };
	size_t i, shown = 0;

	if (scan_block(&l) != 0) {
		devlist_free(&l);
		return EXIT_FAIL;
	}
	mark_shown(&l);
	printf("%-8s %-12s %-11s %-14s %-9s %8s %9s %8s %10s %6s  %s\n",
	       "DEVICE", "NAME", "TYPE", "PROFILE", "SLOTS", "PROGRAMS",
	       "EVICTIONS", "REPLACED", "HITS", "WAITS", "ON");
	for (i = 0; i < l.n; i++) {
		const struct blockdev *bd = &l.d[i];
		char slots[48], st[ST_NR][24];
		int j;

		if (!bd->shown)
			continue;
		shown++;
		for (j = 0; j < ST_NR; j++)
			fmt_stat(bd, j, st[j], sizeof(st[j]));
		if (bd->has_crypto && bd->keyslots > 0)
			(void)fmt(slots, sizeof(slots), "%" PRIu64 "/%s",
				 bd->keyslots, st[ST_SLOTS_IN_USE]);
		else
			(void)fmt(slots, sizeof(slots), "-");
		printf("%-8s %-12s %-11s %-14s %-9s %8s %9s %8s %10s %6s  %s\n",
		       bd->name, bd->dm_name[0] ? bd->dm_name : "-",
		       dev_type(bd), bd->profile[0] ? bd->profile : "-", slots,
		       st[ST_PROGRAMS], st[ST_EVICTIONS], st[ST_REPLACEMENTS],
		       st[ST_HITS], st[ST_WAITS],
		       bd->slaves[0] ? bd->slaves : "-");
	}
	if (!shown)
		fprintf(stderr, PROG ": no block device has an inline encryption profile\n");
	devlist_free(&l);
	return EXIT_OK;
}

/* ---- trace records ---------------------------------------------------- */

enum ev_kind {
	EV_HIT, EV_WAIT, EV_RELEASE, EV_EVICT, EV_REPROGRAM, EV_PROGRAM,
	EV_ENCRYPT, EV_DECRYPT, EV_NR
};

static const char *const ev_names[EV_NR] = {
	[EV_HIT] = "blk_crypto_keyslot_hit",
	[EV_WAIT] = "blk_crypto_keyslot_wait",
	[EV_RELEASE] = "blk_crypto_keyslot_release",
	[EV_EVICT] = "blk_crypto_keyslot_evict",
	[EV_REPROGRAM] = "blk_crypto_keyslot_reprogram",
	[EV_PROGRAM] = "blk_crypto_keyslot_program",
	[EV_ENCRYPT] = "blk_crypto_fallback_encrypt",
	[EV_DECRYPT] = "blk_crypto_fallback_decrypt",
};

struct event {
	double t;
	enum ev_kind kind;
	char who[NAME_LEN];	/* profile, or disk for fallback events */
	int slot;
	uint32_t key, prev;
	char mode[24];
	unsigned int dus;
	int err;
	uint64_t bytes;
};

/* get_field - the value of " name=value" in @args, copied to @out. */
static bool get_field(const char *args, const char *name, char *out, size_t size)
{
	size_t n = strlen(name);
	const char *p = args;

	while ((p = strstr(p, name))) {
		if ((p == args || p[-1] == ' ') && p[n] == '=') {
			size_t len = strcspn(p + n + 1, " ");

			if (len >= size)
				len = size - 1;
			memcpy(out, p + n + 1, len);
			out[len] = '\0';
			return true;
		}
		p += n;
	}
	return false;
}

static long field_long(const char *args, const char *name, long def)
{
	char buf[32];

	return get_field(args, name, buf, sizeof(buf)) ? strtol(buf, NULL, 10) : def;
}

static uint32_t field_hex(const char *args, const char *name)
{
	char buf[32];

	return get_field(args, name, buf, sizeof(buf)) ?
	       (uint32_t)strtoul(buf, NULL, 16) : 0;
}

/*
 * parse_event - one line of a tracefs "trace" file:
 *   TASK-PID [CPU] FLAGS TIMESTAMP: EVENT: WHO key=value ...
 * Return: true if it is a blk_crypto event.
 */
static bool parse_event(const char *line, struct event *ev)
{
	const char *p = strstr(line, ": blk_crypto_"), *ts, *name, *args;
	size_t n;
	int k;

	if (!p || line[0] == '#')
		return false;
	ts = p;
	while (ts > line && (ts[-1] == '.' || (ts[-1] >= '0' && ts[-1] <= '9')))
		ts--;
	memset(ev, 0, sizeof(*ev));
	ev->t = strtod(ts, NULL);
	name = p + 2;
	n = strcspn(name, ":");
	for (k = 0; k < EV_NR; k++)
		if (strlen(ev_names[k]) == n && strncmp(name, ev_names[k], n) == 0)
			break;
	if (k == EV_NR || name[n] != ':')
		return false;
	ev->kind = (enum ev_kind)k;
	args = name + n + 1;
	while (*args == ' ')
		args++;
	n = strcspn(args, " \n");
	if (n >= sizeof(ev->who))
		n = sizeof(ev->who) - 1;
	memcpy(ev->who, args, n);
	ev->who[n] = '\0';
	ev->slot = (int)field_long(args, "slot", -1);
	ev->key = field_hex(args, "key");
	ev->prev = field_hex(args, "evicted");
	if (!get_field(args, "mode", ev->mode, sizeof(ev->mode)))
		(void)fmt(ev->mode, sizeof(ev->mode), "?");
	ev->dus = (unsigned int)field_long(args, "dus", 0);
	ev->err = (int)field_long(args, "err", 0);
	ev->bytes = (uint64_t)field_long(args, "bytes", 0);
	return true;
}

struct record {
	struct event *ev;
	size_t n;
	/* "# blkcrypto-stat profile NAME disks A,B keyslots N" lines */
	char (*pnames)[NAME_LEN];
	char (*pdisks)[NAME_LEN];
	long *pslots;
	size_t np;
	unsigned long lost;
	/* the trace clock: "counter" stamps are a global event sequence */
	char clock[16];
};

static void record_free(struct record *r)
{
	free(r->ev);
	free(r->pnames);
	free(r->pdisks);
	free(r->pslots);
	memset(r, 0, sizeof(*r));
}

static int record_add_profile(struct record *r, const char *name,
			      const char *disks, long keyslots)
{
	char (*pn)[NAME_LEN], (*pd)[NAME_LEN];
	long *ps;

	pn = realloc(r->pnames, (r->np + 1) * sizeof(*pn));
	if (!pn)
		return -1;
	r->pnames = pn;
	pd = realloc(r->pdisks, (r->np + 1) * sizeof(*pd));
	if (!pd)
		return -1;
	r->pdisks = pd;
	ps = realloc(r->pslots, (r->np + 1) * sizeof(*ps));
	if (!ps)
		return -1;
	r->pslots = ps;
	r->pslots[r->np] = keyslots;
	(void)fmt(r->pnames[r->np], NAME_LEN, "%s", name);
	(void)fmt(r->pdisks[r->np], NAME_LEN, "%s", disks);
	r->np++;
	return 0;
}

static int record_read(FILE *f, struct record *r)
{
	char line[1024];
	size_t cap = 0;

	while (fgets(line, sizeof(line), f)) {
		struct event ev;
		char pname[NAME_LEN], pdisks[NAME_LEN];
		unsigned long in_buf, written;
		long keyslots = -1;

		if (sscanf(line, "# blkcrypto-stat profile %127s disks %127s keyslots %ld",
			   pname, pdisks, &keyslots) >= 2) {
			if (record_add_profile(r, pname, pdisks, keyslots) != 0)
				return -1;
			continue;
		}
		if (sscanf(line, "# blkcrypto-stat clock %15s", r->clock) == 1)
			continue;
		if (sscanf(line, "# entries-in-buffer/entries-written: %lu/%lu",
			   &in_buf, &written) == 2 && written > in_buf)
			r->lost += written - in_buf;
		if (!parse_event(line, &ev))
			continue;
		if (r->n == cap) {
			struct event *grown;

			cap = cap ? 2 * cap : 1024;
			grown = realloc(r->ev, cap * sizeof(*grown));
			if (!grown)
				return -1;
			r->ev = grown;
		}
		r->ev[r->n++] = ev;
	}
	return 0;
}

static long profile_index(const struct record *r, const char *name)
{
	size_t i;

	for (i = 0; i < r->np; i++)
		if (strcmp(r->pnames[i], name) == 0)
			return (long)i;
	return -1;
}

/* ---- timeline --------------------------------------------------------- */

struct slot_state {
	uint32_t key;		/* 0: empty */
	bool busy;
	unsigned long requests;	/* since acquired */
};

struct profile_sum {
	unsigned long programs, replaced, acquires, releases, hits, waits;
	unsigned long evictions, evict_requests, reprograms, errors;
	unsigned long unmatched_releases, dup_keys, busy_evictions;
	unsigned long busy, max_busy;
};

/* Counter stamps print as event numbers, clock times as seconds. */
static bool clock_is_counter;

static void print_line(unsigned long *lines, unsigned long max, double t0,
		       const struct event *ev, const char *what, const char *note)
{
	char when[32];

	if (max && *lines >= max) {
		(*lines)++;
		return;
	}
	(*lines)++;
	if (clock_is_counter)
		(void)fmt(when, sizeof(when), "%10.0f", ev->t - t0);
	else
		(void)fmt(when, sizeof(when), "%10.6f", ev->t - t0);
	if (ev->slot >= 0)
		printf("  %s  slot %3d  %-9s key %08" PRIx32 "  %s/%u%s%s\n",
		       when, ev->slot, what, ev->key, ev->mode, ev->dus,
		       note[0] ? "  " : "", note);
	else
		printf("  %s  slot   -  %-9s key %08" PRIx32 "  %s/%u%s%s\n",
		       when, what, ev->key, ev->mode, ev->dus,
		       note[0] ? "  " : "", note);
}

static int grow_slots(struct slot_state **slots, int *nslots, int slot)
{
	struct slot_state *grown;

	if (slot < *nslots)
		return 0;
	grown = realloc(*slots, (size_t)(slot + 1) * sizeof(*grown));
	if (!grown)
		return -1;
	memset(grown + *nslots, 0, (size_t)(slot + 1 - *nslots) * sizeof(*grown));
	*slots = grown;
	*nslots = slot + 1;
	return 0;
}

static int timeline_profile(const struct record *r, const char *name,
			    double t0, unsigned long max_lines, bool summary_only)
{
	struct slot_state *slots = NULL;
	struct profile_sum s = { 0 };
	unsigned long lines = 0, max = summary_only ? 1 : max_lines;
	long pi = profile_index(r, name);
	const char *disks = pi >= 0 ? r->pdisks[pi] : NULL;
	long keyslots = pi >= 0 ? r->pslots[pi] : -1;
	const char *no_slot = keyslots == 0 ? "(passed down)" :
			      keyslots > 0 ? "(in no slot)" : "(no slot)";
	int nslots = 0, i;
	size_t k;

	printf("%s%s%s%s", name, disks ? " (" : "", disks ? disks : "",
	       disks ? ")" : "");
	if (keyslots > 0)
		printf(", %ld keyslots", keyslots);
	else if (keyslots == 0)
		printf(", passthrough");
	printf(":\n");
	if (summary_only)
		lines = 1;	/* print nothing below */
	for (k = 0; k < r->n; k++) {
		const struct event *ev = &r->ev[k];
		char note[96] = "";
		struct slot_state *st;

		if (ev->kind >= EV_ENCRYPT || strcmp(ev->who, name) != 0)
			continue;
		if (ev->slot >= 0 && grow_slots(&slots, &nslots, ev->slot) != 0) {
			free(slots);
			return -1;
		}
		st = ev->slot >= 0 ? &slots[ev->slot] : NULL;
		switch (ev->kind) {
		case EV_PROGRAM:
			if (ev->err) {
				s.errors++;
				(void)fmt(note, sizeof(note), "FAILED err=%d", ev->err);
				print_line(&lines, max, t0, ev, "program", note);
				break;
			}
			for (i = 0; i < nslots; i++)
				if (i != ev->slot && slots[i].key == ev->key)
					s.dup_keys++;
			/* Only an idle keyslot may be given another key. */
			if (st->busy)
				s.busy_evictions++;
			s.programs++;
			s.acquires++;
			if (ev->prev) {
				s.replaced++;
				(void)fmt(note, sizeof(note), "evicted key %08" PRIx32,
					 ev->prev);
			} else {
				(void)fmt(note, sizeof(note), "slot was empty");
			}
			print_line(&lines, max, t0, ev, "program", note);
			st->key = ev->key;
			st->busy = true;
			st->requests = 1;
			s.busy++;
			break;
		case EV_HIT:
			s.hits++;
			st->key = ev->key;
			if (st->busy) {
				st->requests++;
				break;
			}
			st->busy = true;
			st->requests = 1;
			s.acquires++;
			s.busy++;
			print_line(&lines, max, t0, ev, "acquire", "");
			break;
		case EV_RELEASE:
			if (!st->busy) {
				s.unmatched_releases++;
				print_line(&lines, max, t0, ev, "release",
					   "(acquired before the trace began)");
				break;
			}
			(void)fmt(note, sizeof(note), "%lu request%s", st->requests,
				 st->requests == 1 ? "" : "s");
			print_line(&lines, max, t0, ev, "release", note);
			st->busy = false;
			s.releases++;
			s.busy--;
			break;
		case EV_WAIT:
			s.waits++;
			print_line(&lines, max, t0, ev, "wait", "no idle keyslot");
			break;
		case EV_EVICT:
			if (ev->err)
				s.errors++;
			if (!st) {
				s.evict_requests++;
				print_line(&lines, max, t0, ev, "evict", no_slot);
				break;
			}
			s.evictions++;
			if (st->busy)
				s.busy_evictions++;
			print_line(&lines, max, t0, ev, "evict",
				   ev->err ? "FAILED" : "");
			st->key = 0;
			break;
		case EV_REPROGRAM:
			s.reprograms++;
			if (ev->err)
				s.errors++;
			print_line(&lines, max, t0, ev, "reprogram",
				   ev->err ? "FAILED" : "after reset");
			break;
		default:
			break;
		}
		if (s.busy > s.max_busy)
			s.max_busy = s.busy;
	}
	if (!summary_only && max && lines > max)
		printf("  ... %lu more lines (--lines 0 shows all)\n", lines - max);
	printf("  summary: programs=%lu replaced=%lu acquires=%lu releases=%lu "
	       "hits=%lu waits=%lu evictions=%lu evict_requests=%lu "
	       "reprograms=%lu errors=%lu\n",
	       s.programs, s.replaced, s.acquires, s.releases, s.hits, s.waits,
	       s.evictions, s.evict_requests, s.reprograms, s.errors);
	printf("  keyslots: max_in_use=%lu in_use_at_end=%lu\n", s.max_busy, s.busy);
	printf("  invariants: unreleased=%lu key_in_two_slots=%lu "
	       "busy_evictions=%lu unmatched_releases=%lu\n",
	       s.busy, s.dup_keys, s.busy_evictions, s.unmatched_releases);
	free(slots);
	return 0;
}

struct fallback_sum {
	char disk[NAME_LEN];
	unsigned long enc, dec;
	uint64_t enc_bytes, dec_bytes;
	uint32_t keys[8];
	int nkeys;
};

static void timeline_fallback(const struct record *r)
{
	struct fallback_sum sums[32];
	int nsums = 0, i, j;
	size_t k;

	for (k = 0; k < r->n; k++) {
		const struct event *ev = &r->ev[k];
		struct fallback_sum *f = NULL;

		if (ev->kind != EV_ENCRYPT && ev->kind != EV_DECRYPT)
			continue;
		for (i = 0; i < nsums; i++)
			if (strcmp(sums[i].disk, ev->who) == 0)
				f = &sums[i];
		if (!f) {
			if (nsums == (int)(sizeof(sums) / sizeof(sums[0])))
				continue;
			f = &sums[nsums++];
			memset(f, 0, sizeof(*f));
			(void)fmt(f->disk, sizeof(f->disk), "%s", ev->who);
		}
		if (ev->kind == EV_ENCRYPT) {
			f->enc++;
			f->enc_bytes += ev->bytes;
		} else {
			f->dec++;
			f->dec_bytes += ev->bytes;
		}
		for (j = 0; j < f->nkeys && f->keys[j] != ev->key; j++)
			;
		if (j == f->nkeys && f->nkeys < 8)
			f->keys[f->nkeys++] = ev->key;
	}
	if (!nsums)
		return;
	printf("Software en/decryption by blk-crypto-fallback, per disk:\n");
	for (i = 0; i < nsums; i++) {
		printf("  %s: encrypted %lu bios (%" PRIu64 " bytes), decrypted %lu bios (%"
		       PRIu64 " bytes), keys", sums[i].disk, sums[i].enc,
		       sums[i].enc_bytes, sums[i].dec, sums[i].dec_bytes);
		for (j = 0; j < sums[i].nkeys; j++)
			printf(" %08" PRIx32, sums[i].keys[j]);
		printf("\n");
	}
}

static int print_timeline(const struct record *r, unsigned long max_lines,
			  bool summary_only)
{
	char (*seen)[NAME_LEN] = NULL;
	size_t nseen = 0, k, j;
	double t0 = r->n ? r->ev[0].t : 0;
	int ret = 0;

	if (r->lost)
		fprintf(stderr, PROG ": warning: %lu trace events were lost "
			"(buffer too small; try --buffer-kb)\n", r->lost);
	clock_is_counter = strcmp(r->clock, "counter") == 0;
	if (clock_is_counter)
		printf("Keyslot timeline (trace events since the first, one order "
		       "across all CPUs; key = key id, never the key):\n");
	else if (r->clock[0])
		printf("Keyslot timeline (seconds since the first event, clock %s; "
		       "key = key id, never the key):\n", r->clock);
	else
		printf("Keyslot timeline (seconds since the first event; key = key id, "
		       "never the key):\n");
	if (!r->n)
		printf("  no blk_crypto events\n");
	for (k = 0; k < r->n && ret == 0; k++) {
		if (r->ev[k].kind >= EV_ENCRYPT)
			continue;
		for (j = 0; j < nseen; j++)
			if (strcmp(seen[j], r->ev[k].who) == 0)
				break;
		if (j < nseen)
			continue;
		{
			char (*grown)[NAME_LEN] = realloc(seen, (nseen + 1) * sizeof(*seen));

			if (!grown) {
				ret = -1;
				break;
			}
			seen = grown;
		}
		(void)fmt(seen[nseen++], NAME_LEN, "%s", r->ev[k].who);
		ret = timeline_profile(r, r->ev[k].who, t0, max_lines, summary_only);
	}
	free(seen);
	if (ret == 0)
		timeline_fallback(r);
	return ret;
}

static int replay_stream(FILE *f, unsigned long max_lines, bool summary_only)
{
	struct record r = { 0 };
	int ret;

	ret = record_read(f, &r);
	if (ret == 0)
		ret = print_timeline(&r, max_lines, summary_only);
	record_free(&r);
	if (ret != 0) {
		fprintf(stderr, PROG ": out of memory\n");
		return EXIT_FAIL;
	}
	return EXIT_OK;
}

static int cmd_replay(const char *path, unsigned long max_lines, bool summary_only)
{
	FILE *f;
	int ret;

	if (strcmp(path, "-") == 0)
		return replay_stream(stdin, max_lines, summary_only);
	f = fopen(path, "re");
	if (!f) {
		fprintf(stderr, PROG ": %s: cannot open: %s\n", path, strerror(errno));
		return EXIT_FAIL;
	}
	ret = replay_stream(f, max_lines, summary_only);
	fclose(f);
	return ret;
}

/* ---- tracefs ---------------------------------------------------------- */

static int write_file(const char *path, const char *val)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC);
	ssize_t len = (ssize_t)strlen(val);

	if (fd < 0)
		return -1;
	if (write(fd, val, (size_t)len) != len) {
		int e = errno;

		close(fd);
		errno = e;
		return -1;
	}
	return close(fd);
}

/* find_tracefs - a tracefs mount with instances/, mounting one if needed. */
static int find_tracefs(char *out, size_t size)
{
	static const char *const dirs[] = {
		"/sys/kernel/tracing", "/sys/kernel/debug/tracing",
	};
	char path[PATH_MAX];
	struct stat st;
	size_t i;

	for (i = 0; i < 2; i++) {
		(void)fmt(path, sizeof(path), "%s/instances", dirs[i]);
		if (stat(path, &st) == 0) {
			(void)fmt(out, size, "%s", dirs[i]);
			return 0;
		}
	}
	if (mount("tracefs", dirs[0], "tracefs", 0, NULL) != 0) {
		fprintf(stderr, PROG ": cannot mount tracefs on %s: %s\n", dirs[0],
			strerror(errno));
		return -1;
	}
	(void)fmt(out, size, "%s", dirs[0]);
	return 0;
}

static int instance_set(const char *inst, const char *file, const char *val)
{
	char path[PATH_MAX + 64];

	(void)fmt(path, sizeof(path), "%s/%s", inst, file);
	if (write_file(path, val) != 0) {
		fprintf(stderr, PROG ": %s: cannot write '%s': %s\n", path, val,
			strerror(errno));
		return -1;
	}
	return 0;
}

static int run_cmd(char *const argv[])
{
	pid_t pid;
	int status;
	struct sigaction ign = { .sa_handler = SIG_IGN }, oint, oquit;

	fflush(NULL);
	pid = fork();
	if (pid < 0) {
		fprintf(stderr, PROG ": fork: %s\n", strerror(errno));
		return 127;
	}
	if (pid == 0) {
		execvp(argv[0], argv);
		fprintf(stderr, PROG ": %s: cannot run: %s\n", argv[0], strerror(errno));
		_exit(127);
	}
	/* Like system(3): ^C stops CMD, then the trace is still collected. */
	sigaction(SIGINT, &ign, &oint);
	sigaction(SIGQUIT, &ign, &oquit);
	while (waitpid(pid, &status, 0) < 0) {
		if (errno != EINTR) {
			status = 127 << 8;
			break;
		}
	}
	sigaction(SIGINT, &oint, NULL);
	sigaction(SIGQUIT, &oquit, NULL);
	if (WIFEXITED(status))
		return WEXITSTATUS(status);
	return 128 + (WIFSIGNALED(status) ? WTERMSIG(status) : 0);
}

/*
 * collect_profiles - add to @r the profile name, disks and keyslots of every
 * disk with a crypto profile now, skipping names @r already has (disks that
 * share a profile, e.g. UFS logical units, are listed together).
 */
static void collect_profiles(struct record *r)
{
	struct devlist l = { 0 };
	size_t i, j;

	if (scan_block(&l) != 0) {
		devlist_free(&l);
		return;
	}
	for (i = 0; i < l.n; i++) {
		char disks[NAME_LEN] = "";
		size_t len = 0;

		if (!l.d[i].has_crypto || !l.d[i].profile[0] ||
		    profile_index(r, l.d[i].profile) >= 0)
			continue;
		for (j = i; j < l.n; j++) {
			const char *name = l.d[j].name;

			if (!l.d[j].has_crypto || strcmp(l.d[j].profile, l.d[i].profile))
				continue;
			if (l.d[j].dm_name[0])
				name = l.d[j].dm_name;
			if (len + strlen(name) + 2 >= sizeof(disks))
				break;
			len += (size_t)snprintf(disks + len, sizeof(disks) - len,
						"%s%s", len ? "," : "", name);
		}
		if (record_add_profile(r, l.d[i].profile, disks,
				       (long)l.d[i].keyslots) != 0)
			break;
	}
	devlist_free(&l);
}

/*
 * Profiles of devices removed by CMD were seen before it ran: merge @before
 * into @r and write "# blkcrypto-stat profile NAME disks A,B keyslots N"
 * lines, which --replay and scripts/keyslot-chart read.
 */
static void write_profile_map(FILE *out, struct record *r, const struct record *before)
{
	size_t i;

	for (i = 0; i < before->np; i++)
		if (profile_index(r, before->pnames[i]) < 0 &&
		    record_add_profile(r, before->pnames[i], before->pdisks[i],
				       before->pslots[i]) != 0)
			break;
	for (i = 0; out && i < r->np; i++)
		fprintf(out, "# blkcrypto-stat profile %s disks %s keyslots %ld\n",
			r->pnames[i], r->pdisks[i], r->pslots[i]);
}

static int cmd_trace(char *const argv[], const char *record_path,
		     unsigned long max_lines, bool summary_only,
		     unsigned long buffer_kb, const char *clock)
{
	char tracefs[PATH_MAX], inst[PATH_MAX + 64], path[PATH_MAX + 128];
	char kb[32], line[1024];
	struct record r = { 0 }, before = { 0 };
	struct stat st;
	FILE *trace = NULL, *out = NULL;
	int status = EXIT_FAIL, ret = EXIT_FAIL;

	if (find_tracefs(tracefs, sizeof(tracefs)) != 0)
		return EXIT_FAIL;
	(void)fmt(inst, sizeof(inst), "%s/instances/" PROG ".%d", tracefs, (int)getpid());
	if (mkdir(inst, 0700) != 0) {
		fprintf(stderr, PROG ": %s: cannot create a trace instance: %s\n",
			inst, strerror(errno));
		return EXIT_FAIL;
	}
	(void)fmt(path, sizeof(path), "%s/events/blk_crypto", inst);
	if (stat(path, &st) != 0) {
		fprintf(stderr, PROG ": the kernel has no blk_crypto trace events "
			"(not built with the keyslot tracepoints patch?)\n");
		goto out_rmdir;
	}
	/*
	 * The summary's invariants (no busy slot replaced, every acquire
	 * released, ...) depend on the order of events that happen on
	 * different CPUs, but each CPU has its own ring buffer, merged by
	 * time stamp when read: with any clock that ticks coarsely (a jiffy,
	 * under TCG) or is per CPU, events of different CPUs come out of
	 * order. The "counter" clock is one atomic sequence for all CPUs.
	 */
	(void)fmt(kb, sizeof(kb), "%lu", buffer_kb);
	if (instance_set(inst, "trace_clock", clock) != 0 ||
	    instance_set(inst, "buffer_size_kb", kb) != 0 ||
	    instance_set(inst, "events/blk_crypto/enable", "1") != 0 ||
	    instance_set(inst, "tracing_on", "1") != 0)
		goto out_disable;

	collect_profiles(&before);
	status = run_cmd(argv);

	instance_set(inst, "tracing_on", "0");
	if (record_path) {
		out = fopen(record_path, "we");
		if (!out) {
			fprintf(stderr, PROG ": %s: cannot create: %s\n", record_path,
				strerror(errno));
			goto out_disable;
		}
	}
	(void)fmt(path, sizeof(path), "%s/trace", inst);
	trace = fopen(path, "re");
	if (!trace) {
		fprintf(stderr, PROG ": %s: cannot open: %s\n", path, strerror(errno));
		goto out_close;
	}
	collect_profiles(&r);
	(void)fmt(r.clock, sizeof(r.clock), "%s", clock);
	if (out)
		fprintf(out, "# blkcrypto-stat clock %s\n", clock);
	write_profile_map(out, &r, &before);
	if (out) {
		/* Keep the raw record; parse it back from the file. */
		while (fgets(line, sizeof(line), trace))
			fputs(line, out);
		if (fflush(out) != 0 || ferror(out)) {
			fprintf(stderr, PROG ": %s: write error\n", record_path);
			goto out_close;
		}
		fclose(trace);
		trace = fopen(record_path, "re");
		if (!trace)
			goto out_close;
		record_free(&r);
	}
	if (record_read(trace, &r) != 0 || print_timeline(&r, max_lines, summary_only) != 0) {
		fprintf(stderr, PROG ": out of memory\n");
		goto out_close;
	}
	ret = status;
out_close:
	if (trace)
		fclose(trace);
	if (out && fclose(out) != 0 && ret == status) {
		fprintf(stderr, PROG ": %s: %s\n", record_path, strerror(errno));
		ret = EXIT_FAIL;
	}
	record_free(&r);
out_disable:
	record_free(&before);
	instance_set(inst, "events/blk_crypto/enable", "0");
out_rmdir:
	if (rmdir(inst) != 0)
		fprintf(stderr, PROG ": %s: cannot remove: %s\n", inst, strerror(errno));
	return ret;
}

int main(int argc, char *argv[])
{
	static const struct option opts[] = {
		{ "trace", no_argument, NULL, 't' },
		{ "record", required_argument, NULL, 'r' },
		{ "replay", required_argument, NULL, 'R' },
		{ "lines", required_argument, NULL, 'n' },
		{ "summary", no_argument, NULL, 's' },
		{ "buffer-kb", required_argument, NULL, 'b' },
		{ "clock", required_argument, NULL, 'c' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 },
	};
	const char *record_path = NULL, *replay_path = NULL, *clock = "counter";
	unsigned long max_lines = DEFAULT_LINES, buffer_kb = DEFAULT_BUFFER_KB;
	bool trace = false, summary_only = false;
	uint64_t v;
	int c;

	while ((c = getopt_long(argc, argv, "+tr:R:n:sb:c:hV", opts, NULL)) != -1) {
		switch (c) {
		case 't':
			trace = true;
			break;
		case 'r':
			record_path = optarg;
			break;
		case 'R':
			replay_path = optarg;
			break;
		case 'n':
		case 'b':
			if (parse_u64(optarg, &v) != 0 || v > ULONG_MAX ||
			    (c == 'b' && v == 0)) {
				fprintf(stderr, PROG ": invalid number '%s'\n", optarg);
				return EXIT_USAGE;
			}
			if (c == 'n')
				max_lines = (unsigned long)v;
			else
				buffer_kb = (unsigned long)v;
			break;
		case 's':
			summary_only = true;
			break;
		case 'c':
			if (!optarg[0] || strlen(optarg) >= 16 ||
			    strspn(optarg, "abcdefghijklmnopqrstuvwxyz0123456789-_") != strlen(optarg)) {
				fprintf(stderr, PROG ": invalid trace clock '%s'\n", optarg);
				return EXIT_USAGE;
			}
			clock = optarg;
			break;
		case 'h':
			usage(stdout);
			return EXIT_OK;
		case 'V':
			printf(PROG " " VERSION "\n");
			return EXIT_OK;
		default:
			usage(stderr);
			return EXIT_USAGE;
		}
	}
	if (trace && replay_path) {
		fprintf(stderr, PROG ": --trace and --replay exclude each other\n");
		return EXIT_USAGE;
	}
	if (replay_path) {
		if (optind != argc || record_path) {
			usage(stderr);
			return EXIT_USAGE;
		}
		return cmd_replay(replay_path, max_lines, summary_only);
	}
	if (trace) {
		if (optind >= argc) {
			fprintf(stderr, PROG ": --trace needs a command after --\n");
			return EXIT_USAGE;
		}
		return cmd_trace(argv + optind, record_path, max_lines,
				 summary_only, buffer_kb, clock);
	}
	if (optind != argc || record_path) {
		usage(stderr);
		return EXIT_USAGE;
	}
	return cmd_table();
}
