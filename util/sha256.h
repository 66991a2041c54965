/*
 * util/sha256.h: SHA-256 (FIPS 180-4), for spec and env hashes.
 */
#ifndef SRT_UTIL_SHA256_H
#define SRT_UTIL_SHA256_H

#include <stddef.h>
#include <stdint.h>

struct srt_sha256 {
	uint32_t h[8];
	uint64_t len; /* bytes hashed so far */
	unsigned char block[64];
	size_t fill;
};

void srt_sha256_init(struct srt_sha256 *s);
void srt_sha256_update(struct srt_sha256 *s, const void *data, size_t n);
void srt_sha256_final(struct srt_sha256 *s, unsigned char out[32]);
/* Hash `n` bytes into 64 lowercase hex digits + NUL. */
void srt_sha256_hex(const void *data, size_t n, char out[65]);

#endif
