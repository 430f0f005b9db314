// SPDX-License-Identifier: GPL-2.0
/*
 * detector.ko - commit one kernel bug on command
 *
 * Test-only. The detector self-tests (tests/host: "detector self-test: ...")
 * load it on the debug kernel, in a boot of their own, to prove that each
 * detector the guest tests rely on really reports the bug it is there for,
 * and that the test runner fails the test during which it was reported.
 * Nothing else loads it: qemu/init loads only /lib/modules/<release>/extra/,
 * and this module lives in .../test/.
 *
 *   insmod detector.ko bug=uaf           KASAN: slab-use-after-free
 *   insmod detector.ko bug=atomic-sleep  might_sleep() in a spinlock section
 *   insmod detector.ko bug=abba          lockdep: A->B then B->A
 *   insmod detector.ko bug=leak          kmemleak: an unreferenced object
 *   insmod detector.ko bug=late-warn     a WARNING when the guest reboots
 *   insmod detector.ko bug=late-panic    a panic when the guest reboots
 *
 * The last two are for the runner's own self-test (tests/runner-selfcheck):
 * a report outside every test's window, and a boot that dies after its last
 * test reported, must still fail the run. The guest reboots after every
 * result is out: that is when these bugs happen.
 *
 * Every bug is committed once, in the module's init, without a real
 * deadlock, crash or corruption: the boot goes on so that the runner's
 * verdict can be checked.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/compiler.h>
#include <linux/notifier.h>
#include <linux/panic.h>
#include <linux/reboot.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/string.h>

static char *bug = "";
module_param(bug, charp, 0444);
MODULE_PARM_DESC(bug, "The bug to commit: uaf, atomic-sleep, abba, leak, late-warn or late-panic");

static DEFINE_SPINLOCK(detector_spinlock);
static DEFINE_MUTEX(detector_mutex_a);
static DEFINE_MUTEX(detector_mutex_b);

static noinline int detector_uaf(void)
{
	char *p = kmalloc(64, GFP_KERNEL);

	if (!p)
		return -ENOMEM;
	memset(p, 0x5a, 64);
	kfree(p);
	/* Hide the pointer from the compiler, which would drop the read. */
	OPTIMIZER_HIDE_VAR(p);
	pr_info("read %d from a freed object\n", READ_ONCE(p[8]));
	return 0;
}

static noinline int detector_atomic_sleep(void)
{
	spin_lock(&detector_spinlock);
	/* Uncontended, so it does not really sleep; might_sleep() objects. */
	mutex_lock(&detector_mutex_a);
	mutex_unlock(&detector_mutex_a);
	spin_unlock(&detector_spinlock);
	return 0;
}

static noinline int detector_abba(void)
{
	/* One thread, one after the other: no deadlock, but lockdep sees both orders. */
	mutex_lock(&detector_mutex_a);
	mutex_lock(&detector_mutex_b);
	mutex_unlock(&detector_mutex_b);
	mutex_unlock(&detector_mutex_a);

	mutex_lock(&detector_mutex_b);
	mutex_lock(&detector_mutex_a);
	mutex_unlock(&detector_mutex_a);
	mutex_unlock(&detector_mutex_b);
	return 0;
}

static bool detector_late_panic;

static int detector_reboot(struct notifier_block *nb, unsigned long action,
			   void *data)
{
	if (detector_late_panic)
		panic("detector: late panic");
	WARN(1, "detector: late warning\n");
	return NOTIFY_DONE;
}

static struct notifier_block detector_reboot_nb = {
	.notifier_call = detector_reboot,
};
static bool detector_reboot_registered;

static int detector_late_warn(void)
{
	int err = register_reboot_notifier(&detector_reboot_nb);

	detector_reboot_registered = !err;
	return err;
}

static int detector_late_panic_fn(void)
{
	detector_late_panic = true;
	return detector_late_warn();
}

static noinline int detector_leak(void)
{
	void *p = kmalloc(192, GFP_KERNEL);

	if (!p)
		return -ENOMEM;
	memset(p, 0x5a, 192);
	/* The only reference goes out of scope here. */
	return 0;
}

static int __init detector_init(void)
{
	static const struct {
		const char *name;
		int (*fn)(void);
	} bugs[] = {
		{ "uaf", detector_uaf },
		{ "atomic-sleep", detector_atomic_sleep },
		{ "abba", detector_abba },
		{ "leak", detector_leak },
		{ "late-warn", detector_late_warn },
		{ "late-panic", detector_late_panic_fn },
	};
	int i;

	for (i = 0; i < ARRAY_SIZE(bugs); i++) {
		if (!strcmp(bug, bugs[i].name)) {
			pr_info("committing bug '%s'\n", bug);
			return bugs[i].fn();
		}
	}
	pr_err("unknown bug '%s' (uaf, atomic-sleep, abba, leak, late-warn or late-panic)\n", bug);
	return -EINVAL;
}

static void __exit detector_exit(void)
{
	if (detector_reboot_registered)
		unregister_reboot_notifier(&detector_reboot_nb);
}

module_init(detector_init);
module_exit(detector_exit);

MODULE_DESCRIPTION("Test-only: commit one kernel bug for the detector self-tests");
MODULE_LICENSE("GPL");
