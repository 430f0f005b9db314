# SPDX-License-Identifier: GPL-2.0
#
# tests/common/kmemleak.awk: blame each kmemleak report on the test whose
# window holds its allocation time (tests/guest-run, kmemleak_check).
#   awk -f kmemleak.awk WINDOWS REPORT
# WINDOWS: "NAME JIFFIES" at a test's begin, "JIFFIES" at its end (guest-run's
# jiffies()); REPORT: /sys/kernel/debug/kmemleak as read after two scans.
# Prints one "@@AMEND not ok NAME # N kmemleak report(s): FIRST" line per
# test with a report, "@boot" for what no window holds.
# By name, not FNR == NR: with no window (every test of the boot skipped)
# the windows file is empty, and the report would be read as windows.
FILENAME == ARGV[1] {
	# windows: "NAME JIFFIES" at a begin, "JIFFIES" at an end;
	# "?" where the tick count could not be read: a window
	# with a "?" end or start holds nothing (its leaks go to
	# @boot, still a failure, not to a neighbour)
	if (NF == 2) { n++; name[n] = $1; start[n] = $2; stop[n] = -1; if ($2 == "?") bad[n] = 1 }
	else if ($1 == "?") bad[n] = 1
	else stop[n] = $1
	next
}
/^unreferenced object/ { obj = $3 " " $4 " " $5 }
/^  comm / {
	j = $NF; who = ""; c = $0; sub(/^ +/, "", c)
	for (i = 1; i <= n; i++)
		if (!bad[i] && j >= start[i] && (stop[i] < 0 || j <= stop[i])) who = name[i]
	if (who == "") who = "@boot"
	if (!(who in first)) first[who] = "unreferenced object " obj " " c
	count[who]++
}
END {
	for (w in count) {
		printf "@@AMEND not ok %s # %d kmemleak report(s): %s\n", w, count[w], first[w]
	}
}
