// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * insnmark: a QEMU TCG plugin that counts executed guest instructions (like
 * QEMU's tests/tcg/plugins/insn.c) and can be read from inside the guest.
 *
 * Every time a guest CPU executes the x87 instruction FNOP (bytes d9 d0),
 * it logs one line:
 *
 *   insnmark: mark <seq> cpu <c> insns <all vCPUs> kernel <of which in the kernel>
 *
 * Nothing in the guest executes FNOP but scripts/bench.d/insn-mark, which
 * scripts/bench runs right before and after each benchmark cell; the
 * difference of two marks is the guest instructions executed in the cell,
 * kernel and user, on every vCPU. At exit it prints, as insn.c does,
 * "cpu N insns: X" per vCPU and "total insns: X" (qemu/run parses the
 * latter into <results>/insn-count).
 *
 * QEMU 10's x86 plugin disassembly is empty without capstone (Debian's
 * source build has none), so insn.c's match= option cannot find an
 * instruction by name: this plugin matches the raw bytes instead.
 *
 * Counting is per translation block (its instruction count is added when the
 * block starts): a block left early by an exception is counted whole, as in
 * QEMU's bb plugin. A block is "kernel" when its address is in the upper
 * half (x86-64). Built by scripts/bench against QEMU's qemu-plugin.h.
 *
 * Option profile=on: also count the instructions of every kernel block
 * executed between marks 2k+1 and 2k+2 (the begin and end of a cell; marks
 * 0 and 1 are scripts/bench's calibration) and print at exit one line per
 * block, "insnprof: <address> <instructions>", for scripts/bench --profile
 * to resolve with System.map. Slower (a callback per block).
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <glib.h>

#include <qemu-plugin.h>

QEMU_PLUGIN_EXPORT int qemu_plugin_version = QEMU_PLUGIN_VERSION;

static qemu_plugin_u64 insns, kinsns;
static uint64_t seq;
static GMutex lock;
static bool profile;
static volatile bool armed;
static GHashTable *blocks; /* vaddr -> struct block */

struct block {
	uint64_t vaddr;
	uint64_t n;
	uint64_t count;
};

static bool is_kernel(uint64_t vaddr)
{
	return vaddr >= 0xffff800000000000ULL;
}

static void mark(unsigned int cpu, void *udata)
{
	g_autoptr(GString) s = g_string_new(NULL);
	int n = qemu_plugin_num_vcpus();

	g_mutex_lock(&lock);
	g_string_printf(s, "insnmark: mark %" PRIu64 " cpu %u insns %" PRIu64
			" kernel %" PRIu64 " vcpus %d\n", seq, cpu,
			qemu_plugin_u64_sum(insns), qemu_plugin_u64_sum(kinsns), n);
	armed = profile && seq >= 2 && !(seq & 1);
	seq++;
	qemu_plugin_outs(s->str);
	g_mutex_unlock(&lock);
}

static void block_exec(unsigned int cpu, void *udata)
{
	struct block *b = udata;

	if (armed)
		__atomic_fetch_add(&b->count, b->n, __ATOMIC_RELAXED);
}

static void tb_trans(qemu_plugin_id_t id, struct qemu_plugin_tb *tb)
{
	size_t n = qemu_plugin_tb_n_insns(tb);
	uint64_t vaddr = qemu_plugin_tb_vaddr(tb);

	qemu_plugin_register_vcpu_tb_exec_inline_per_vcpu(
		tb, QEMU_PLUGIN_INLINE_ADD_U64, insns, n);
	if (is_kernel(vaddr)) {
		qemu_plugin_register_vcpu_tb_exec_inline_per_vcpu(
			tb, QEMU_PLUGIN_INLINE_ADD_U64, kinsns, n);
		if (profile) {
			struct block *b;

			/* One record per (address, length): a block is
			 * translated again after a TB flush. */
			g_mutex_lock(&lock);
			b = g_hash_table_lookup(blocks, &vaddr);
			if (!b || b->n != n) {
				b = g_new0(struct block, 1);
				b->vaddr = vaddr;
				b->n = n;
				g_hash_table_insert(blocks, &b->vaddr, b);
			}
			g_mutex_unlock(&lock);
			qemu_plugin_register_vcpu_tb_exec_cb(
				tb, block_exec, QEMU_PLUGIN_CB_NO_REGS, b);
		}
	}
	for (size_t i = 0; i < n; i++) {
		struct qemu_plugin_insn *insn = qemu_plugin_tb_get_insn(tb, i);
		uint8_t b[3];

		if (qemu_plugin_insn_size(insn) == 2 &&
		    qemu_plugin_insn_data(insn, b, sizeof(b)) == 2 &&
		    b[0] == 0xd9 && b[1] == 0xd0)
			qemu_plugin_register_vcpu_insn_exec_cb(
				insn, mark, QEMU_PLUGIN_CB_NO_REGS, NULL);
	}
}

static void plugin_exit(qemu_plugin_id_t id, void *p)
{
	g_autoptr(GString) s = g_string_new(NULL);

	for (int i = 0; i < qemu_plugin_num_vcpus(); i++)
		g_string_append_printf(s, "cpu %d insns: %" PRIu64 "\n", i,
				       qemu_plugin_u64_get(insns, i));
	g_string_append_printf(s, "total insns: %" PRIu64 "\n",
			       qemu_plugin_u64_sum(insns));
	qemu_plugin_outs(s->str);
	if (profile) {
		GHashTableIter it;
		struct block *b;

		/* Blocks replaced in the table (same address, new length)
		 * are leaked and their counts lost: rare, and only a profile. */
		g_hash_table_iter_init(&it, blocks);
		while (g_hash_table_iter_next(&it, NULL, (void **)&b)) {
			if (!b->count)
				continue;
			g_string_printf(s, "insnprof: %" PRIx64 " %" PRIu64 "\n",
					b->vaddr, b->count);
			qemu_plugin_outs(s->str);
		}
	}
}

QEMU_PLUGIN_EXPORT int qemu_plugin_install(qemu_plugin_id_t id,
					   const qemu_info_t *info,
					   int argc, char **argv)
{
	for (int i = 0; i < argc; i++) {
		g_auto(GStrv) t = g_strsplit(argv[i], "=", 2);

		if (g_strcmp0(t[0], "profile") != 0 ||
		    !qemu_plugin_bool_parse(t[0], t[1], &profile)) {
			fprintf(stderr, "insnmark: unknown option %s (profile=on|off)\n",
				argv[i]);
			return -1;
		}
	}
	blocks = g_hash_table_new(g_int64_hash, g_int64_equal);
	insns = qemu_plugin_scoreboard_u64(qemu_plugin_scoreboard_new(sizeof(uint64_t)));
	kinsns = qemu_plugin_scoreboard_u64(qemu_plugin_scoreboard_new(sizeof(uint64_t)));
	qemu_plugin_register_vcpu_tb_trans_cb(id, tb_trans);
	qemu_plugin_register_atexit_cb(id, plugin_exit, NULL);
	return 0;
}
