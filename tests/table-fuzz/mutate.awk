# SPDX-License-Identifier: GPL-2.0
#
# mutate.awk: seeded mutations of dm table lines.
#   awk -v seed=S -v n=N -f mutate.awk SEEDS
# SEEDS holds valid table lines ("start length inlinecrypt args..."), one
# per line. Prints N lines, each a seed line with 1 to 3 mutations of its
# fields: numbers at and past their limits, cipher strings, key lengths,
# hex and keyring forms, device names, option counts and values, deleted,
# duplicated, swapped and appended fields, junk. The same seed gives the
# same lines.

function pick(arr, cnt) { return arr[int(rand() * cnt) + 1] }

function hexstr(len,    s, i) {
	s = ""
	for (i = 0; i < len; i++) s = s substr("0123456789abcdef", int(rand() * 16) + 1, 1)
	return s
}

function mutate_number(v) {
	return pick(numbers, nnumbers)
}

function mutate_cipher(v,    r, i) {
	r = rand()
	if (r < 0.5) return pick(ciphers, nciphers)
	if (r < 0.7) { i = int(rand() * length(v)) + 1; return substr(v, 1, i - 1) substr(v, i + 1) }
	if (r < 0.85) return toupper(v)
	return v pick(suffixes, nsuffixes)
}

function mutate_key(v,    r) {
	r = rand()
	if (r < 0.35) return hexstr(pick(keylens, nkeylens))
	if (r < 0.45) return hexstr(64) hexstr(0) "zz"
	if (r < 0.55) { r = hexstr(64); return r r }	# XTS halves equal
	if (r < 0.9) return pick(keyrings, nkeyrings)
	return pick(junk, njunk)
}

function mutate_option(v,    r) {
	r = rand()
	if (r < 0.6) return pick(options, noptions)
	return pick(junk, njunk)
}

BEGIN {
	srand(seed)
	nnumbers = split("0 1 7 8 9 511 512 4095 4096 4104 2047 2048 2049 262143 262144 262145 4294967295 4294967296 9223372036854775807 9223372036854775808 18446744073709551615 18446744073709551616 99999999999999999999999 -1 -8 +8 0x10 010 1e3 8a 8.0", numbers, " ")
	nciphers = split("aes-xts-plain64 aes-cbc-essiv:sha256 xchacha12,aes-adiantum-plain64 sm4-xts-plain64 aes-xts-plain aes-xts-essiv:sha256 aes-cbc-plain64 aes-xts-benbi aes-xts-null capi:xts(aes)-plain64 aes des-xts-plain64 xchacha20,aes-adiantum-plain64 aes-cbc-essiv:sha512 aes-cbc-essiv sm4-xts-plain aes-lrw-plain64 cipher_null-ecb aes-xts-plain64:sha256 twofish-xts-plain64", ciphers, " ")
	nsuffixes = split(": :sha256 -plain64 ,x -", suffixes, " ")
	nkeylens = split("0 1 2 31 32 33 63 64 65 96 127 128 129 256 1024", keylens, " ")
	nkeyrings = split(":64:logon:fuzz:k64 :32:logon:fuzz:k32 :64:logon:fuzz:k32 :32:logon:fuzz:k64 :64:user:fuzz:k64 :64:logon: :64:logon:fuzz:nosuchkey :abc:logon:fuzz:k64 :0:logon:fuzz:k64 :99999:logon:fuzz:k64 :64:encrypted:fuzz:k64 :64:trusted:fuzz:k64 :64::fuzz:k64 ::logon:fuzz:k64 :-64:logon:fuzz:k64 :64:logon:fuzz:k64:extra : - :64", keyrings, " ")
	noptions = split("allow_discards sector_size:512 sector_size:1024 sector_size:2048 sector_size:4096 sector_size:0 sector_size:511 sector_size:513 sector_size:4095 sector_size:8192 sector_size:65536 sector_size:-4096 sector_size: sector_size:abc sector_size iv_large_sectors inline_only passthrough same_cpu_crypt high_priority submit_from_crypt_cpus no_read_workqueue no_write_workqueue integrity:32:aead integrity_no_journal ALLOW_DISCARDS allow_discards:1 iv_large_sectors:1", options, " ")
	njunk = split("x - -- # % %s %n \\ ' \" ; $(true) 0:0 253:999 /dev/nonexistent /dev/null ffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff", junk, " ")
	ndevices = split("/dev/nonexistent 253:999 0:0 1:3 /dev/null /dev/mapper/control", devices, " ")
}

{ seeds[++nseeds] = $0 }

END {
	for (l = 0; l < n; l++) {
		nf = split(seeds[int(rand() * nseeds) + 1], f, " ")
		muts = int(rand() * 3) + 1
		for (m = 0; m < muts; m++) {
			i = int(rand() * (nf + 1)) + 1	# nf + 1: the end of the line
			r = rand()
			if (i > nf) {			# append
				f[++nf] = rand() < 0.5 ? pick(options, noptions) : pick(junk, njunk)
				continue
			}
			if (r < 0.08) {			# delete field i
				for (j = i; j < nf; j++) f[j] = f[j + 1]
				delete f[nf--]
				continue
			}
			if (r < 0.12) {			# duplicate field i
				for (j = nf; j >= i; j--) f[j + 1] = f[j]
				nf++
				continue
			}
			if (r < 0.16 && i < nf) {	# swap with the next one
				t = f[i]; f[i] = f[i + 1]; f[i + 1] = t
				continue
			}
			# Field kinds: 1 start, 2 length, 3 target, 4 cipher, 5 key,
			# 6 iv_offset, 7 device, 8 offset, 9 option count, 10+ options.
			if (i == 1 || i == 2 || i == 6 || i == 8 || i == 9) f[i] = mutate_number(f[i])
			else if (i == 3) f[i] = rand() < 0.7 ? "inlinecrypt" : pick(junk, njunk)
			else if (i == 4) f[i] = mutate_cipher(f[i])
			else if (i == 5) f[i] = mutate_key(f[i])
			else if (i == 7) f[i] = pick(devices, ndevices)
			else f[i] = mutate_option(f[i])
		}
		line = ""
		for (j = 1; j <= nf; j++) line = line (j > 1 ? " " : "") f[j]
		print line
	}
}
