// SPDX-License-Identifier: GPL-2.0
/*
 * Helpers shared by the userspace tools: hex, reading key material, wiping.
 */
#include <stdarg.h>
#include <stdio.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util.h"

static int hex_nibble(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

long hex_decode_any(const char *hex, uint8_t *out, size_t max)
{
	size_t len = strlen(hex), i;

	if (len % 2 != 0 || len / 2 > max)
		return -1;
	for (i = 0; i < len / 2; i++) {
		int hi = hex_nibble(hex[2 * i]);
		int lo = hex_nibble(hex[2 * i + 1]);

		if (hi < 0 || lo < 0) {
			wipe(out, i);
			return -1;
		}
		out[i] = (uint8_t)(hi << 4 | lo);
	}
	return (long)(len / 2);
}

int hex_decode(const char *hex, uint8_t *out, size_t out_len)
{
	if (strlen(hex) != 2 * out_len)
		return -1;
	return hex_decode_any(hex, out, out_len) == (long)out_len ? 0 : -1;
}

void hex_encode(const uint8_t *in, size_t len, char *out)
{
	static const char digits[] = "0123456789abcdef";
	size_t i;

	for (i = 0; i < len; i++) {
		out[2 * i] = digits[in[i] >> 4];
		out[2 * i + 1] = digits[in[i] & 0xf];
	}
	out[2 * len] = '\0';
}

long read_fd_all(int fd, uint8_t *buf, size_t max)
{
	size_t got = 0;
	uint8_t extra;
	ssize_t n;

	while (got < max) {
		n = read(fd, buf + got, max - got);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		if (n == 0)
			return (long)got;
		got += (size_t)n;
	}
	do
		n = read(fd, &extra, 1);
	while (n < 0 && errno == EINTR);
	if (n < 0)
		return -1;
	if (n > 0) {
		wipe(&extra, sizeof(extra));
		return -2;
	}
	return (long)got;
}

int parse_u64(const char *s, uint64_t *out)
{
	unsigned long long v;
	char *end;

	/* strtoull accepts leading space and a sign; a size never has them. */
	if (!s || !*s || *s == '-' || *s == '+' || *s == ' ' || *s == '\t')
		return -1;
	errno = 0;
	if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
		if (!s[2] || s[2] == '-' || s[2] == '+' || s[2] == ' ')
			return -1;
		v = strtoull(s + 2, &end, 16);
	} else {
		v = strtoull(s, &end, 10);
	}
	if (errno || *end)
		return -1;
	*out = v;
	return 0;
}

void wipe(void *p, size_t len)
{
	if (p && len)
		explicit_bzero(p, len);
}

/* Skip @offset bytes of @fd, by reading when it cannot seek (a pipe). */
static int skip_bytes(int fd, uint64_t offset)
{
	uint8_t junk[4096];

	if (!offset)
		return 0;
	if (lseek(fd, (off_t)offset, SEEK_CUR) >= 0)
		return 0;
	while (offset) {
		ssize_t n = read(fd, junk, offset < sizeof(junk) ? (size_t)offset : sizeof(junk));
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			wipe(junk, sizeof(junk));
			return n < 0 ? -errno : -EIO;
		}
		offset -= (uint64_t)n;
	}
	wipe(junk, sizeof(junk));
	return 0;
}

long read_key_file(const char *path, uint64_t offset, uint8_t *buf, size_t max)
{
	int fd, ret;
	size_t got = 0;

	if (strcmp(path, "-") == 0)
		fd = STDIN_FILENO;
	else
		fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	ret = skip_bytes(fd, offset);
	while (!ret && got < max) {
		ssize_t n = read(fd, buf + got, max - got);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			ret = -errno;
		} else if (n == 0) {
			break;
		} else {
			got += (size_t)n;
		}
	}
	if (fd != STDIN_FILENO)
		close(fd);
	if (ret) {
		wipe(buf, got);
		return ret;
	}
	return (long)got;
}

int set_error(char *err, size_t errlen, const char *fmt, ...)
{
	if (err && errlen) {
		va_list ap;

		va_start(ap, fmt);
		vsnprintf(err, errlen, fmt, ap);
		va_end(ap);
	}
	return -1;
}
