// SPDX-License-Identifier: GPL-2.0
/*
 * bioprobe.ko - submit one bio as asked, from the kernel
 *
 * Test-only. Userspace cannot send a block device a bio that breaks its
 * queue limits: the block layer refuses a direct I/O smaller than the
 * logical block size before any driver sees it. A target's own checks of
 * such bios are defence in depth, and this module is how a test reaches
 * them: it submits one bio of the given size at the given 512-byte sector
 * and fails its own init with the bio's status, so insmod's exit status is
 * the answer.
 *
 *   insmod bioprobe.ko dev=/dev/mapper/x sector=1 bytes=512 op=write
 *
 * A write carries 0x5a bytes. Loaded only by the tests that use it
 * (tests/dm-inlinecrypt); on success (status 0) the test unloads it.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/bio.h>
#include <linux/blkdev.h>
#include <linux/fs.h>
#include <linux/gfp.h>
#include <linux/module.h>
#include <linux/string.h>

static char *dev = "";
module_param(dev, charp, 0444);
MODULE_PARM_DESC(dev, "Path of the block device");
static unsigned long long sector;
module_param(sector, ullong, 0444);
MODULE_PARM_DESC(sector, "First 512-byte sector of the bio");
static unsigned int bytes = 512;
module_param(bytes, uint, 0444);
MODULE_PARM_DESC(bytes, "Size of the bio, 1..PAGE_SIZE");
static char *op = "read";
module_param(op, charp, 0444);
MODULE_PARM_DESC(op, "read or write");

static int __init bioprobe_init(void)
{
	struct file *bdev_file;
	struct page *page;
	struct bio *bio;
	bool write;
	int err;

	if (strcmp(op, "read") && strcmp(op, "write")) {
		pr_err("op must be read or write, not '%s'\n", op);
		return -EINVAL;
	}
	if (!bytes || bytes > PAGE_SIZE) {
		pr_err("bytes must be 1..%lu, not %u\n", PAGE_SIZE, bytes);
		return -EINVAL;
	}
	write = !strcmp(op, "write");
	bdev_file = bdev_file_open_by_path(dev, write ? BLK_OPEN_READ | BLK_OPEN_WRITE :
					   BLK_OPEN_READ, NULL, NULL);
	if (IS_ERR(bdev_file)) {
		pr_err("%s: cannot open: %pe\n", dev, bdev_file);
		return PTR_ERR(bdev_file);
	}
	page = alloc_page(GFP_KERNEL);
	if (!page) {
		err = -ENOMEM;
		goto out_close;
	}
	memset(page_address(page), 0x5a, PAGE_SIZE);
	bio = bio_alloc(file_bdev(bdev_file), 1,
			write ? REQ_OP_WRITE | REQ_SYNC : REQ_OP_READ, GFP_KERNEL);
	bio->bi_iter.bi_sector = sector;
	__bio_add_page(bio, page, bytes, 0);
	err = submit_bio_wait(bio);
	pr_info("%s %u bytes at sector %llu of %s: %d\n", op, bytes, sector,
		dev, err);
	bio_put(bio);
	__free_page(page);
out_close:
	fput(bdev_file);
	return err;
}

static void __exit bioprobe_exit(void)
{
}

module_init(bioprobe_init);
module_exit(bioprobe_exit);

MODULE_DESCRIPTION("Test-only: submit one bio as asked and return its status");
MODULE_LICENSE("GPL");
