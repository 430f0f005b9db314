/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Helpers shared by the userspace tools: hex, reading key material, wiping.
 * Pure functions except read_fd_all(); no device access here.
 */
#ifndef INLINECRYPT_UTIL_H
#define INLINECRYPT_UTIL_H

#include <stddef.h>
#include <stdint.h>

/* The largest key any tool reads: fscrypt and XTS keys are 64 bytes. */
#define MAX_KEY_SIZE 64

/*
 * hex_decode - parse exactly @out_len bytes of hex (no prefix, no spaces).
 * Return: 0, or -1 if @hex is not 2 * @out_len hex digits.
 */
int hex_decode(const char *hex, uint8_t *out, size_t out_len);

/*
 * hex_decode_any - parse an even number of hex digits, at most @max bytes.
 * Return: number of bytes written, or -1 on bad input or overflow.
 */
long hex_decode_any(const char *hex, uint8_t *out, size_t max);

/* hex_encode - write 2 * @len lowercase hex digits and a NUL to @out. */
void hex_encode(const uint8_t *in, size_t len, char *out);

/*
 * read_fd_all - read up to @max bytes from @fd until end of file.
 * Return: bytes read, or -1 with errno set; -2 if the input is longer than
 * @max (the excess is not consumed beyond one byte).
 */
long read_fd_all(int fd, uint8_t *buf, size_t max);

/*
 * parse_u64 - a decimal (or 0x hex) unsigned number with nothing after it.
 * Return: 0, or -1 for empty input, junk, a sign or overflow.
 */
int parse_u64(const char *s, uint64_t *out);

/* wipe - clear memory holding key material in a way the compiler keeps. */
void wipe(void *p, size_t len);

/*
 * read_key_file - read at most @max bytes from @path ("-" = standard input)
 * after skipping @offset bytes. A longer file is not an error: like
 * cryptsetup, only what is asked for is read.
 * Return: bytes read (0 if a file is shorter than @offset), or -errno
 * (-EIO if a pipe ends inside @offset).
 */
long read_key_file(const char *path, uint64_t offset, uint8_t *buf, size_t max);

/*
 * set_error - format a message into @err (if it is not NULL and @errlen is
 * not 0), for functions that report errors to their caller as text.
 * Return: -1, so that callers can write "return set_error(...)".
 */
__attribute__((format(printf, 3, 4)))
int set_error(char *err, size_t errlen, const char *fmt, ...);

#endif
