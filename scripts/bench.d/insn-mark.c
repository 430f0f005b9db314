// SPDX-License-Identifier: GPL-2.0
/*
 * insn-mark: execute one x87 FNOP, the mark of scripts/bench.
 *
 * Nothing else in the guest executes FNOP, so the TCG plugin of
 * scripts/bench.d/insnmark-plugin.c logs one line per run of this program
 * with the guest instructions executed so far (all vCPUs). scripts/bench
 * runs it right before and after every benchmark cell and so gets the
 * instruction count of each cell from one boot. Built statically on the
 * host by scripts/bench.
 */
int main(void)
{
	__asm__ volatile("fnop");
	return 0;
}
