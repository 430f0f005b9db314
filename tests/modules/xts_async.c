// SPDX-License-Identifier: GPL-2.0
/*
 * xts_async.ko - an "xts(aes)" that completes every request later
 *
 * Test-only. blk-crypto-fallback allocates its tfms with
 * crypto_alloc_skcipher() and waits for each request with crypto_wait_req(),
 * so it must cope with an implementation that returns -EINPROGRESS or -EBUSY
 * and completes the request from another thread. On x86 nothing in the
 * kernel does that on the fallback's path (the SIMD helper calls its
 * synchronous child directly in process context). This module registers an
 * "xts(aes)" above every other implementation, flagged CRYPTO_ALG_ASYNC,
 * that never completes a request in the caller: it queues the request and
 * returns -EINPROGRESS (or -EBUSY when the request was backlogged), and a
 * worker later runs a synchronous child tfm on it and calls the request's
 * completion with bottom halves disabled, as cryptd does, so that the
 * caller's callback runs atomic, in BH context, as under a driver that
 * completes from a softirq or tasklet (hard interrupt context is not
 * covered). tests/fallback-async loads it, in a boot of its own, before
 * anything sets up the fallback's AES-256-XTS mode. Nothing else loads it:
 * qemu/init loads only /lib/modules/<release>/extra/, this lives in test/.
 *
 *   insmod xts_async.ko [qlen=N] [child=NAME] [corrupt=encrypt|decrypt|both]
 *                       [corrupt_at=N]
 *
 * qlen is the queue length past which a request is backlogged (-EBUSY, if
 * the caller allows it with CRYPTO_TFM_REQ_MAY_BACKLOG; -ENOSPC if not). The
 * child is allocated by name with CRYPTO_ALG_ASYNC masked out, so it is
 * synchronous and never this module's own algorithm. corrupt= is for the
 * test's negative check only: the corrupt_at-th completed request of that
 * direction gets one byte of its output flipped.
 *
 * /sys/kernel/debug/xts_async/stats counts what happened: requests completed
 * by the worker per direction, requests backlogged and told -EINPROGRESS
 * when they left the backlog, requests refused, child errors, corruptions,
 * the most requests queued at once, requests queued now and live tfms.
 *
 * Forward progress, so that the fallback cannot deadlock on this driver:
 *
 * - Who waits for the worker: fallback writes sleep in the submitting task,
 *   which may be the flusher or a task doing writeback for memory reclaim,
 *   so reclaim can wait for this worker; fallback reads sleep in a
 *   blk_crypto_wq worker.
 * - The worker runs on a workqueue of its own allocated with WQ_MEM_RECLAIM:
 *   it has a rescuer thread from the start, so the work item runs even when
 *   no new kworker can be created because memory is short (creating one
 *   allocates, and the allocation may wait for the writeback that waits for
 *   us). Not system_wq, which has no rescuer, and not blk_crypto_wq: its
 *   active work items may all be reads waiting for this worker, which then
 *   would never get to run. It is also WQ_CPU_INTENSIVE: the work item
 *   burns CPU for as long as requests keep coming (it drains the queue), so
 *   it is kept out of the concurrency management that would otherwise hold
 *   back the other work items of its CPU meanwhile.
 * - The worker allocates nothing itself: the child's request lives in this
 *   request's context, which the caller allocated (the fallback from its
 *   mempools), and it runs the child inside memalloc_noio_save(), so an
 *   allocation the child might make cannot recurse into I/O (the fallback's
 *   own allocations are GFP_NOIO for the same reason).
 * - The worker waits for nothing: the child is synchronous (and may sleep:
 *   its request always gets CRYPTO_TFM_REQ_MAY_SLEEP), the queue lock is
 *   a spinlock held only to add or take a request, never across the child
 *   or a completion, and the worker never waits for the block layer, for
 *   blk_crypto_wq, or for another request. Every request it takes is
 *   completed before it takes the next one, and it runs until the queue is
 *   empty. The waits form a chain (submitter or blk_crypto_wq -> this worker
 *   -> the child's CPU work) with no cycle.
 * - A backlogged request is not dropped: it stays on the queue's list in
 *   order, is told -EINPROGRESS when it moves out of the backlog (which
 *   crypto_req_done() ignores) and is completed like any other, so a caller
 *   that got -EBUSY sleeps until its own request is done.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <crypto/aes.h>
#include <crypto/algapi.h>
#include <crypto/internal/skcipher.h>
#include <crypto/scatterwalk.h>
#include <linux/atomic.h>
#include <linux/bottom_half.h>
#include <linux/debugfs.h>
#include <linux/module.h>
#include <linux/sched/mm.h>
#include <linux/seq_file.h>
#include <linux/spinlock.h>
#include <linux/string.h>
#include <linux/workqueue.h>

static unsigned int qlen = 1;
module_param(qlen, uint, 0444);
MODULE_PARM_DESC(qlen, "Requests queued before the next is backlogged (-EBUSY), at least 1");
static char *child = "xts(aes)";
module_param(child, charp, 0444);
MODULE_PARM_DESC(child, "Name of the synchronous skcipher that does the work");
static char *corrupt = "";
module_param(corrupt, charp, 0444);
MODULE_PARM_DESC(corrupt, "Negative checks only: encrypt, decrypt or both: flip a byte of one request's output");
static unsigned int corrupt_at = 64;
module_param(corrupt_at, uint, 0444);
MODULE_PARM_DESC(corrupt_at, "Which completed request of a direction corrupt= spoils (1 = the first)");

static bool corrupt_enc, corrupt_dec;

static struct xtsa_stats {
	atomic_long_t encrypted;	/* completed by the worker */
	atomic_long_t decrypted;
	atomic_long_t backlogged;	/* -EBUSY returned */
	atomic_long_t promoted;		/* backlogged ones told -EINPROGRESS */
	atomic_long_t refused;		/* -ENOSPC returned */
	atomic_long_t errors;		/* the child failed a request */
	atomic_long_t corrupted;
	atomic_t tfms;
} xtsa_stats;

static DEFINE_SPINLOCK(xtsa_lock);
static struct crypto_queue xtsa_queue;	/* under xtsa_lock */
static unsigned int xtsa_max_queued;	/* under xtsa_lock */
static struct workqueue_struct *xtsa_wq;

static void xtsa_work_fn(struct work_struct *work);
static DECLARE_WORK(xtsa_work, xtsa_work_fn);

struct xtsa_tfm_ctx {
	struct crypto_skcipher *child;
};

struct xtsa_req_ctx {
	bool encrypt;
	/* Must be last: followed by the child's request context. */
	struct skcipher_request subreq;
};

static int xtsa_setkey(struct crypto_skcipher *tfm, const u8 *key,
		       unsigned int keylen)
{
	struct xtsa_tfm_ctx *ctx = crypto_skcipher_ctx(tfm);

	/* CRYPTO_TFM_REQ_FORBID_WEAK_KEYS, which the fallback sets, included */
	crypto_skcipher_clear_flags(ctx->child, CRYPTO_TFM_REQ_MASK);
	crypto_skcipher_set_flags(ctx->child, crypto_skcipher_get_flags(tfm) &
				  CRYPTO_TFM_REQ_MASK);
	return crypto_skcipher_setkey(ctx->child, key, keylen);
}

static int xtsa_enqueue(struct skcipher_request *req, bool encrypt)
{
	struct xtsa_req_ctx *rctx = skcipher_request_ctx(req);
	int err;

	rctx->encrypt = encrypt;
	spin_lock_bh(&xtsa_lock);
	err = crypto_enqueue_request(&xtsa_queue, &req->base);
	if (err != -ENOSPC)
		xtsa_max_queued = max(xtsa_max_queued, xtsa_queue.qlen);
	spin_unlock_bh(&xtsa_lock);
	/* From here on the worker may complete the request: don't touch it. */
	switch (err) {
	case -EINPROGRESS:
		break;
	case -EBUSY:
		atomic_long_inc(&xtsa_stats.backlogged);
		break;
	default:
		atomic_long_inc(&xtsa_stats.refused);
		return err;
	}
	queue_work(xtsa_wq, &xtsa_work);
	return err;
}

static int xtsa_encrypt(struct skcipher_request *req)
{
	return xtsa_enqueue(req, true);
}

static int xtsa_decrypt(struct skcipher_request *req)
{
	return xtsa_enqueue(req, false);
}

/* Negative checks: flip the first output byte of one request. */
static void xtsa_maybe_corrupt(struct skcipher_request *req, bool encrypt,
			       long n)
{
	u8 b;

	if (!(encrypt ? corrupt_enc : corrupt_dec) || n != corrupt_at ||
	    !req->cryptlen)
		return;
	scatterwalk_map_and_copy(&b, req->dst, 0, 1, 0);
	b ^= 0x01;
	scatterwalk_map_and_copy(&b, req->dst, 0, 1, 1);
	atomic_long_inc(&xtsa_stats.corrupted);
	pr_info("corrupted the output of %s request %ld (negative check)\n",
		encrypt ? "encrypt" : "decrypt", n);
}

static void xtsa_run(struct skcipher_request *req)
{
	struct xtsa_tfm_ctx *ctx = crypto_skcipher_ctx(crypto_skcipher_reqtfm(req));
	struct xtsa_req_ctx *rctx = skcipher_request_ctx(req);
	struct skcipher_request *subreq = &rctx->subreq;
	bool encrypt = rctx->encrypt;
	unsigned int noio;
	long n;
	int err;

	skcipher_request_set_tfm(subreq, ctx->child);
	/*
	 * The worker runs in process context and may sleep, whatever the
	 * caller's flags said about the caller's context (cryptd does the
	 * same).
	 */
	skcipher_request_set_callback(subreq, CRYPTO_TFM_REQ_MAY_SLEEP, NULL,
				      NULL);
	skcipher_request_set_crypt(subreq, req->src, req->dst, req->cryptlen,
				   req->iv);
	noio = memalloc_noio_save();
	err = encrypt ? crypto_skcipher_encrypt(subreq) :
			crypto_skcipher_decrypt(subreq);
	memalloc_noio_restore(noio);
	if (err) {
		atomic_long_inc(&xtsa_stats.errors);
	} else {
		n = atomic_long_inc_return(encrypt ? &xtsa_stats.encrypted :
						     &xtsa_stats.decrypted);
		xtsa_maybe_corrupt(req, encrypt, n);
	}
	/*
	 * Complete with bottom halves off, as cryptd does: a real driver
	 * completes from its interrupt's softirq or tasklet, so the caller's
	 * callback must not sleep (the debug kernel's atomic-sleep check
	 * catches one that does) and must not be preempted by softirqs on
	 * this CPU. Not a real softirq: lockdep's softirq lock-usage checks
	 * are not exercised.
	 */
	local_bh_disable();
	skcipher_request_complete(req, err);
	local_bh_enable();
}

static void xtsa_work_fn(struct work_struct *work)
{
	struct crypto_async_request *backlog, *areq;

	for (;;) {
		spin_lock_bh(&xtsa_lock);
		backlog = crypto_get_backlog(&xtsa_queue);
		areq = crypto_dequeue_request(&xtsa_queue);
		spin_unlock_bh(&xtsa_lock);
		if (!areq)
			return;
		/*
		 * The first backlogged request is now merely queued: tell it
		 * so. Outside the lock is safe: this single work item is the
		 * only dequeuer and never runs twice at once, so the
		 * backlogged request stays on the queue until a later turn of
		 * this loop takes it; nothing can complete it (and its caller
		 * free it) before this notification. That relies on qlen >= 1
		 * (init refuses 0): the backlog then lies behind the request
		 * just taken. With qlen 0 every request would be backlogged
		 * and the one notified would be the one just taken, safe here
		 * only because it is notified before xtsa_run().
		 */
		if (backlog) {
			atomic_long_inc(&xtsa_stats.promoted);
			local_bh_disable();
			crypto_request_complete(backlog, -EINPROGRESS);
			local_bh_enable();
		}
		xtsa_run(skcipher_request_cast(areq));
		cond_resched();
	}
}

static int xtsa_init_tfm(struct crypto_skcipher *tfm)
{
	struct xtsa_tfm_ctx *ctx = crypto_skcipher_ctx(tfm);
	struct crypto_skcipher *c;

	c = crypto_alloc_skcipher(child, 0, CRYPTO_ALG_ASYNC);
	if (IS_ERR(c))
		return PTR_ERR(c);
	ctx->child = c;
	crypto_skcipher_set_reqsize(tfm, sizeof(struct xtsa_req_ctx) +
				    crypto_skcipher_reqsize(c));
	atomic_inc(&xtsa_stats.tfms);
	return 0;
}

static void xtsa_exit_tfm(struct crypto_skcipher *tfm)
{
	struct xtsa_tfm_ctx *ctx = crypto_skcipher_ctx(tfm);

	crypto_free_skcipher(ctx->child);
	atomic_dec(&xtsa_stats.tfms);
}

static struct skcipher_alg xtsa_alg = {
	.base = {
		.cra_name		= "xts(aes)",
		.cra_driver_name	= "xts-aes-async-test",
		/* x86's fastest, xts-aes-vaes-avx10_512, has 800 */
		.cra_priority		= 4000,
		.cra_flags		= CRYPTO_ALG_ASYNC,
		.cra_blocksize		= AES_BLOCK_SIZE,
		.cra_ctxsize		= sizeof(struct xtsa_tfm_ctx),
		.cra_module		= THIS_MODULE,
	},
	.min_keysize	= 2 * AES_MIN_KEY_SIZE,
	.max_keysize	= 2 * AES_MAX_KEY_SIZE,
	.ivsize		= AES_BLOCK_SIZE,
	.chunksize	= AES_BLOCK_SIZE,
	.setkey		= xtsa_setkey,
	.encrypt	= xtsa_encrypt,
	.decrypt	= xtsa_decrypt,
	.init		= xtsa_init_tfm,
	.exit		= xtsa_exit_tfm,
};

static int xtsa_debugfs_stats_show(struct seq_file *m, void *v)
{
	unsigned int max_queued, queued;

	spin_lock_bh(&xtsa_lock);
	max_queued = xtsa_max_queued;
	queued = xtsa_queue.qlen;
	spin_unlock_bh(&xtsa_lock);
	seq_printf(m, "encrypted %ld\n", atomic_long_read(&xtsa_stats.encrypted));
	seq_printf(m, "decrypted %ld\n", atomic_long_read(&xtsa_stats.decrypted));
	seq_printf(m, "backlogged %ld\n", atomic_long_read(&xtsa_stats.backlogged));
	seq_printf(m, "promoted %ld\n", atomic_long_read(&xtsa_stats.promoted));
	seq_printf(m, "refused %ld\n", atomic_long_read(&xtsa_stats.refused));
	seq_printf(m, "errors %ld\n", atomic_long_read(&xtsa_stats.errors));
	seq_printf(m, "corrupted %ld\n", atomic_long_read(&xtsa_stats.corrupted));
	seq_printf(m, "max_queued %u\n", max_queued);
	seq_printf(m, "queued %u\n", queued);
	seq_printf(m, "tfms %d\n", atomic_read(&xtsa_stats.tfms));
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(xtsa_debugfs_stats);

static struct dentry *xtsa_debugfs;

static int __init xtsa_init(void)
{
	struct crypto_skcipher *c;
	int err;

	if (!qlen) {
		pr_err("qlen must be at least 1\n");
		return -EINVAL;
	}
	corrupt_enc = !strcmp(corrupt, "encrypt") || !strcmp(corrupt, "both");
	corrupt_dec = !strcmp(corrupt, "decrypt") || !strcmp(corrupt, "both");
	if (*corrupt && !corrupt_enc && !corrupt_dec) {
		pr_err("corrupt must be encrypt, decrypt or both, not '%s'\n",
		       corrupt);
		return -EINVAL;
	}
	/* Say now, not at the first tfm, if the child does not exist. */
	c = crypto_alloc_skcipher(child, 0, CRYPTO_ALG_ASYNC);
	if (IS_ERR(c)) {
		pr_err("no synchronous skcipher '%s': %pe\n", child, c);
		return PTR_ERR(c);
	}
	pr_info("child '%s' is %s; queue length %u%s%s\n", child,
		crypto_skcipher_driver_name(c), qlen,
		*corrupt ? "; corrupting one request to " : "", corrupt);
	crypto_free_skcipher(c);

	crypto_init_queue(&xtsa_queue, qlen);
	xtsa_wq = alloc_workqueue("xts_async",
				  WQ_MEM_RECLAIM | WQ_CPU_INTENSIVE, 1);
	if (!xtsa_wq)
		return -ENOMEM;
	err = crypto_register_skcipher(&xtsa_alg);
	if (err) {
		destroy_workqueue(xtsa_wq);
		return err;
	}
	xtsa_debugfs = debugfs_create_dir(KBUILD_MODNAME, NULL);
	debugfs_create_file("stats", 0444, xtsa_debugfs, NULL, &xtsa_debugfs_stats_fops);
	return 0;
}

static void __exit xtsa_exit(void)
{
	debugfs_remove_recursive(xtsa_debugfs);
	/* No tfm is left (each holds a module reference), so no request. */
	crypto_unregister_skcipher(&xtsa_alg);
	destroy_workqueue(xtsa_wq);
}

module_init(xtsa_init);
module_exit(xtsa_exit);

MODULE_DESCRIPTION("Test-only: an asynchronous xts(aes) that completes every request from a workqueue");
MODULE_LICENSE("GPL");
