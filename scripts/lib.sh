# SPDX-License-Identifier: GPL-2.0
# Shared helpers for the build scripts. Sourced, never run.

TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
BUILD=${BUILD:-$TOP/build}
# Downloads and long builds live outside the clone, keyed by their inputs, so
# a fresh clone on the same machine reuses them; nothing depends on them.
CACHE=${INLINECRYPT_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/inlinecrypt}
JOBS=${JOBS:-$(nproc)}

# The tested kernel: Debian's linux-source-6.12 at this version. When the
# archive no longer carries it, the newest 6.12 is used and a note says so.
KERNEL_PIN=${KERNEL_PIN:-6.12.118-1~deb12u1}
# The tested QEMU: Debian's source package, upstream version 10.0.x.
QEMU_SERIES=${QEMU_SERIES:-10.0}

msg() { printf '>>> %s\n' "$*" >&2; }
note() { printf '    %s\n' "$*" >&2; }
die() {
	printf 'error: %s\n' "$*" >&2
	exit 1
}

# hash_inputs FILE|DIR...: a short digest of file names and contents, stable
# across clones (paths are relative to $TOP).
hash_inputs() {
	(cd "$TOP" && find "$@" -type f -print0 2>/dev/null | LC_ALL=C sort -z |
		xargs -0 sha256sum) | sha256sum | cut -c1-16
}

# apply_series SRCDIR PATCHDIR: apply PATCHDIR/series in order; the first
# patch that fails stops the build with its name.
apply_series() {
	local src=$1 dir=$2 p
	[ -f "$dir/series" ] || return 0
	while read -r p; do
		case $p in '' | '#'*) continue ;; esac
		[ -f "$dir/$p" ] || die "patch listed in $dir/series is missing: $p"
		if ! patch -d "$src" -p1 --forward --batch --silent <"$dir/$p" \
			>"$BUILD/patch.log" 2>&1; then
			sed 's/^/    /' "$BUILD/patch.log" >&2
			die "patch does not apply: ${dir#"$TOP"/}/$p"
		fi
		note "applied $p"
	done <"$dir/series"
}

# A step that may take minutes prints a line a while so nobody thinks it hung.
# progress LOG CMD...: run CMD with output to LOG, print its last line every
# 20 s; on failure show the tail of LOG.
progress() {
	local log=$1 pid rc=0
	shift
	"$@" >"$log" 2>&1 &
	pid=$!
	while kill -0 "$pid" 2>/dev/null; do
		sleep 20 &
		wait $! 2>/dev/null
		kill -0 "$pid" 2>/dev/null &&
			note "... $(tail -n 1 "$log" | cut -c1-100)"
	done
	wait "$pid" || rc=$?
	if [ "$rc" != 0 ]; then
		tail -n 30 "$log" | sed 's/^/    /' >&2
		note "full log: $log"
	fi
	return "$rc"
}

# The fragment is checked against the final .config: a line that Kconfig
# dropped or changed is named and stops the build.
verify_config() {
	local frag=$1 cfg=$2 line opt bad=0
	while IFS= read -r line; do
		case $line in
		CONFIG_*=*)
			grep -qxF "$line" "$cfg" || {
				opt=${line%%=*}
				printf 'error: config option dropped: %s (wanted %s, got %s)\n' \
					"$opt" "${line#*=}" \
					"$(grep -E "^$opt=|^# $opt is not set" "$cfg" | sed 's/^# .* is not set/not set/;s/^[^=]*=//' || echo 'absent')" >&2
				bad=1
			}
			;;
		"# CONFIG_"*" is not set")
			opt=${line#\# }
			opt=${opt%% *}
			grep -qE "^$opt=" "$cfg" && {
				printf 'error: config option should be unset: %s\n' "$opt" >&2
				bad=1
			}
			;;
		esac
	done <"$frag"
	return $bad
}

# kernel_build SRC OBJ LOG [FRAGMENT...]: configure OBJ from tinyconfig + the
# fragments (default patches/kernel.config; every option of each checked in
# the result) and build bzImage and modules, output in LOG. Shared by
# scripts/build-kernel (production and debug) and scripts/kernel-variant, so a
# variant differs from the tree's kernel in its patches only.
kernel_build() {
	local src=$1 obj=$2 log=$3 f
	shift 3
	[ $# -gt 0 ] || set -- "$TOP/patches/kernel.config"
	mkdir -p "$obj"
	make -s -C "$src" O="$obj" ARCH=x86_64 tinyconfig >/dev/null
	cat "$@" >>"$obj/.config"
	make -s -C "$src" O="$obj" ARCH=x86_64 olddefconfig >/dev/null 2>&1
	for f in "$@"; do
		verify_config "$f" "$obj/.config" ||
			die "${f#"$TOP"/}: options above were dropped by Kconfig (missing dependency?)"
	done
	msg "building bzImage and modules (-j$JOBS; 5 to 8 minutes from scratch)"
	progress "$log" make -C "$src" O="$obj" ARCH=x86_64 -j"$JOBS" bzImage modules ||
		die "kernel build failed (see $log)"
}

# head_mark FILE MARK: FILE (a host test) says '# MARK: 1' (ON_REQUEST,
# STRESS_GROUP) in its head comment, the leading '#' and blank lines
# (trailing blanks and a CR ignored). A line further down (a here-document
# writing a fixture test, say) is not the test's own; a marker in the head
# that is not written exactly so fails the layout check (tests/run).
head_mark() {
	awk -v want="# $2: 1" '{ sub(/[ \t\r]+$/, "") } /^$/ { next } !/^#/ { exit }
		$0 == want { f = 1; exit } END { exit !f }' "$1"
}

# head_value FILE NAME: the number N of a '# NAME: N' line (VCPUS) in
# FILE's head comment, read as head_mark reads; nothing if there is none.
head_value() {
	awk -v pre="# $2: " '{ sub(/[ \t\r]+$/, "") } /^$/ { next } !/^#/ { exit }
		index($0, pre) == 1 && substr($0, length(pre) + 1) ~ /^[1-9][0-9]*$/ {
			print substr($0, length(pre) + 1); exit }' "$1"
}
