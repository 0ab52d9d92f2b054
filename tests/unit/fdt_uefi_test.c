/* SPDX-License-Identifier: MIT */
/*
 * boot/fdt/fdt_uefi.c (a UEFI boot described in /chosen, what a live update
 * passes on) and dt_parse_loader() (the loader's /chosen read when ACPI
 * describes the machine), on the dt-virt-2node fixture: a write read back,
 * every field of the description broken alone, and a loader DT without
 * memory or CPUs.
 */
#include "fdt_fixture.h"
#include <keel/handover.h>

enum { ROOM = 64 << 10 };

/* How many times @word appears in the captured console output. */
static unsigned int console_count(const char *word)
{
	unsigned int n = 0;

	for (const char *p = sandbox_console_buffer();
	     (p = strstr(p, word)) != NULL; p += strlen(word))
		n++;
	return n;
}

/* dt-virt-2node opened into a buffer with @room bytes to spare. */
static uint8_t *open_fixture(size_t room, size_t *total)
{
	size_t n;
	uint8_t *blob = load_dtb("dt-virt-2node", &n);
	uint8_t *b = malloc(n + room);

	assert_non_null(b);
	assert_int_equal(fdt_open_into(blob, b, (int)(n + room)), 0);
	free(blob);
	*total = n + room;
	return b;
}

/* A map of @n 48-byte descriptors whose bytes are not zero. */
static uint8_t *make_map(unsigned int n)
{
	uint8_t *m = malloc(48 * n);

	assert_non_null(m);
	for (unsigned int i = 0; i < 48 * n; i++)
		m[i] = (uint8_t)(i * 7 + 1);
	return m;
}

static const struct dt_uefi good = {
	.system_table = 0x7ffd0018,
	.mmap_size = 48 * 34,
	.desc_size = 48,
	.desc_ver = 1,
	.loader = "grub",
};

/*
 * The write read back: every value, linux,uefi-mmap-start pointing at the
 * map's bytes inside the blob (here the blob's "physical" address is its
 * host address), the command line in bootargs, no warning.
 */
static void test_round_trip(void **state)
{
	size_t total;
	uint8_t *b = open_fixture(ROOM, &total);
	uint8_t *map = make_map(34);
	struct dt_uefi u;

	assert_int_equal(dt_uefi_write(b, (uintptr_t)b, &good, map,
				       "liveupdate=2 domain=64M"),
			 0);
	sandbox_console_clear();
	bootinfo_init(&bi, BOOT_DT);
	assert_int_equal(dt_uefi_read(b, total, &bi, &u), 1);
	assert_int_equal(test_console_warnings(), 0);
	assert_int_equal(u.system_table, good.system_table);
	assert_int_equal(u.mmap_size, good.mmap_size);
	assert_int_equal(u.desc_size, 48);
	assert_int_equal(u.desc_ver, 1);
	assert_string_equal(u.loader, "grub");
	assert_true(u.mmap_start >= (uintptr_t)b &&
		    u.mmap_start + u.mmap_size <= (uintptr_t)b + total);
	assert_memory_equal((const void *)(uintptr_t)u.mmap_start, map,
			    good.mmap_size);
	assert_true(dt_read_cmdline(b, total, &bi));
	assert_string_equal(bi.cmdline, "liveupdate=2 domain=64M");

	/* Written again (a second update): replaced, not repeated. */
	map[0] ^= 0xff;
	assert_int_equal(dt_uefi_write(b, 0x48000000, &good, map, "x=1"), 0);
	assert_int_equal(dt_uefi_read(b, total, &bi, &u), 1);
	assert_true(u.mmap_start >= 0x48000000 &&
		    u.mmap_start < 0x48000000 + total);
	assert_int_equal(b[u.mmap_start - 0x48000000], map[0]);
	free(map);
	free(b);
}

/*
 * A loader's blob with 8 bytes between its header and its memory
 * reservation block (U-Boot's copies have them): fdt_open_into() keeps the
 * gap and fdt_pack() closes it, moving every property. The address written
 * must be where the map lies after the move.
 */
static void test_gap_after_header(void **state)
{
	size_t n, total = 0;
	uint8_t *blob = load_dtb("dt-virt-2node", &n);
	uint8_t *gap = calloc(1, n + 8), *b = malloc(n + ROOM);
	uint8_t *map = make_map(34);
	struct fdt_header *h = (struct fdt_header *)gap;
	struct dt_uefi u;

	assert_non_null(gap);
	assert_non_null(b);
	memcpy(gap, blob, sizeof(*h));
	memcpy(gap + sizeof(*h) + 8, blob + sizeof(*h), n - sizeof(*h));
	h->off_mem_rsvmap = cpu_to_fdt32(fdt_off_mem_rsvmap(blob) + 8);
	h->off_dt_struct = cpu_to_fdt32(fdt_off_dt_struct(blob) + 8);
	h->off_dt_strings = cpu_to_fdt32(fdt_off_dt_strings(blob) + 8);
	h->totalsize = cpu_to_fdt32((uint32_t)n + 8);
	assert_int_equal(fdt_check_header(gap), 0);
	assert_int_equal(fdt_open_into(gap, b, (int)(n + ROOM)), 0);
	assert_int_equal(fdt_off_mem_rsvmap(b), fdt_off_mem_rsvmap(gap));
	assert_int_equal(dt_uefi_write(b, (uintptr_t)b, &good, map, "a"), 0);
	assert_int_equal(dt_copy_pack(b), 0);
	total = fdt_totalsize(b);
	assert_true(total < n + 8 + 4096);
	bootinfo_init(&bi, BOOT_DT);
	assert_int_equal(dt_uefi_read(b, total, &bi, &u), 1);
	assert_memory_equal((const void *)(uintptr_t)u.mmap_start, map,
			    good.mmap_size);
	free(map);
	free(b);
	free(gap);
	free(blob);
}

/* A loader's xen,xen-bootargs is read first: the line goes there. */
static void test_cmdline_xen(void **state)
{
	size_t total;
	uint8_t *b = open_fixture(ROOM, &total);
	uint8_t *map = make_map(2);
	struct dt_uefi u = good;
	int chosen = fdt_path_offset(b, "/chosen");

	u.mmap_size = 96;
	assert_int_equal(
		fdt_setprop_string(b, chosen, "xen,xen-bootargs", "old"), 0);
	assert_int_equal(dt_uefi_write(b, 0x48000000, &u, map, "new line"), 0);
	bootinfo_init(&bi, BOOT_DT);
	assert_true(dt_read_cmdline(b, total, &bi));
	assert_string_equal(bi.cmdline, "new line");
	free(map);
	free(b);
}

/* No room for the map: refused, as the old image refuses the update. */
static void test_no_room(void **state)
{
	size_t total;
	uint8_t *b = open_fixture(256, &total);
	uint8_t *map = make_map(34);

	assert_int_equal(dt_uefi_write(b, 0x48000000, &good, map, "a"),
			 -EINVAL);
	free(map);
	free(b);
}

/*
 * A live update's DTB copy from a blob whose totalsize is mostly free
 * space (QEMU's virt DTB says 1 MiB and holds about 8 KiB): the copy
 * needs its blocks only, so it fits a buffer far smaller than totalsize
 * and reads back with keel,handover; dt_used_bytes() is at most
 * totalsize, and 0 for what is no DTB. Before, the copy asked for all of
 * totalsize: 1 MiB in one free block.
 */
static void test_copy_loose_blob(void **state)
{
	size_t total, used;
	uint8_t *b = open_fixture(1 << 20, &total);
	uint8_t *out = malloc(total);
	const fdt32_t *c;
	int len;

	(void)state;
	assert_non_null(out);
	used = dt_used_bytes(b, total);
	assert_true(used > sizeof(struct fdt_header));
	assert_true(used + (1 << 20) <= total);
	/* Room for the property, and not a byte of the free space. */
	assert_int_equal(dt_handover_copy(b, total, out, used + 4096,
					  0x12345678000ULL, 0x5000),
			 0);
	assert_int_equal(fdt_check_header(out), 0);
	assert_int_equal(fdt_totalsize(out), used + 4096);
	c = fdt_getprop(out, fdt_path_offset(out, "/chosen"), "keel,handover",
			&len);
	assert_non_null(c);
	assert_int_equal(len, 16);
	assert_int_equal(fdt32_to_cpu(c[1]), 0x45678000);
	assert_int_equal(fdt32_to_cpu(c[3]), 0x5000);
	/* The fixture's nodes came along. */
	assert_true(fdt_path_offset(out, "/memory@40000000") >= 0 ||
		    fdt_path_offset(out, "/cpus") >= 0);
	/* Too small for its blocks: refused, not written past. */
	assert_int_equal(dt_handover_copy(b, total, out, used - 8, 0, 0),
			 -EINVAL);
	assert_int_equal(dt_used_bytes(b, used - 1), 0);
	memset(out, 0, 64);
	assert_int_equal(dt_used_bytes(out, total), 0);
	free(out);
	free(b);
}

/*
 * The description written, then property @name set to @len bytes of @v
 * (NULL: deleted). Return: dt_uefi_read()'s.
 */
static int read_broken(const char *name, const void *v, int len)
{
	size_t total;
	uint8_t *b = open_fixture(ROOM, &total);
	uint8_t *map = make_map(34);
	struct dt_uefi u;
	int chosen, r;

	assert_int_equal(dt_uefi_write(b, 0x48000000, &good, map, "a"), 0);
	chosen = fdt_path_offset(b, "/chosen");
	if (v)
		assert_int_equal(fdt_setprop(b, chosen, name, v, len), 0);
	else
		assert_int_equal(fdt_delprop(b, chosen, name), 0);
	sandbox_console_clear();
	bootinfo_init(&bi, BOOT_DT);
	r = dt_uefi_read(b, total, &bi, &u);
	free(map);
	free(b);
	return r;
}

static void expect_refused(const char *name, const void *v, int len,
			   const char *says)
{
	assert_int_equal(read_broken(name, v, len), -EINVAL);
	assert_int_equal(test_console_warnings(), 1);
	assert_int_equal(console_count(says), 1);
	assert_int_equal(bi.fixups, 1);
}

static void test_malformed(void **state)
{
	fdt64_t zero64 = cpu_to_fdt64(0), wrap = cpu_to_fdt64(~0ULL - 8);
	fdt32_t v2 = cpu_to_fdt32(2), d36 = cpu_to_fdt32(36),
		d2000 = cpu_to_fdt32(2000), sz = cpu_to_fdt32(48 * 34 + 8);
	uint8_t three[3] = {1, 2, 3};

	expect_refused("linux,uefi-mmap-size", NULL, 0,
		       "chosen/linux,uefi-mmap-size missing");
	expect_refused("linux,uefi-system-table", three, 3,
		       "chosen/linux,uefi-system-table has length 3");
	expect_refused("linux,uefi-system-table", &zero64, 8,
		       "chosen/linux,uefi-system-table is 0");
	expect_refused("linux,uefi-mmap-desc-ver", &v2, 4,
		       "chosen/linux,uefi-mmap-desc-ver 2, only 1");
	expect_refused("linux,uefi-mmap-desc-size", &d36, 4,
		       "chosen/linux,uefi-mmap-desc-size 36 is not");
	expect_refused("linux,uefi-mmap-desc-size", &d2000, 4,
		       "chosen/linux,uefi-mmap-desc-size 2000 is not");
	expect_refused("linux,uefi-mmap-size", &sz, 4,
		       "chosen/linux,uefi-mmap-size 1640 is not a whole");
	expect_refused("linux,uefi-mmap-start", &zero64, 8,
		       "chosen/linux,uefi-mmap-start 0");
	expect_refused("linux,uefi-mmap-start", &wrap, 8, "is no address");

	/* A bad loader name: one warning, "uefi", the rest taken. */
	assert_int_equal(read_broken("keel,uefi-loader", three, 3), 1);
	assert_int_equal(console_count("chosen/keel,uefi-loader of 3 bytes"),
			 1);
}

/* No linux,uefi-*: not a UEFI boot; an unusable blob: the same, quiet. */
static void test_absent(void **state)
{
	size_t total;
	uint8_t *b = open_fixture(ROOM, &total);
	struct dt_uefi u;

	sandbox_console_clear();
	bootinfo_init(&bi, BOOT_DT);
	assert_int_equal(dt_uefi_read(b, total, &bi, &u), 0);
	assert_int_equal(dt_uefi_read(b, 40, &bi, &u), 0);
	assert_int_equal(dt_uefi_read(NULL, 0, &bi, &u), 0);
	b[0] ^= 0xff;
	assert_int_equal(dt_uefi_read(b, total, &bi, &u), 0);
	assert_int_equal(test_console_warnings(), 0);
	free(b);
}

/*
 * GRUB's DT under ACPI: /chosen only. dt_parse_loader() reserves the blob,
 * the initrd, the modules, reads the line and the handover, and nothing
 * of memory or CPUs; a bad blob is refused with dt_parse()'s warning.
 */
static void test_loader_chosen(void **state)
{
	enum { BIG = 4096 };
	uint8_t *b = malloc(BIG);
	fdt32_t reg[4] = {0, cpu_to_fdt32(0x4a000000), 0,
			  cpu_to_fdt32(0x100000)};
	fdt32_t ho[4] = {0, cpu_to_fdt32(0x6ca18000), 0, cpu_to_fdt32(408)};
	int chosen, mod;

	assert_non_null(b);
	assert_int_equal(fdt_create_empty_tree(b, BIG), 0);
	chosen = fdt_add_subnode(b, 0, "chosen");
	assert_true(chosen >= 0);
	assert_int_equal(fdt_setprop_string(b, chosen, "bootargs", "acpi=on"),
			 0);
	assert_int_equal(
		fdt_setprop_u64(b, chosen, "linux,initrd-start", 0x6ca1a000),
		0);
	assert_int_equal(
		fdt_setprop_u64(b, chosen, "linux,initrd-end", 0x6ca6f000), 0);
	assert_int_equal(
		fdt_setprop(b, chosen, "keel,handover", ho, sizeof(ho)), 0);
	assert_int_equal(fdt_setprop_u32(b, chosen, "#address-cells", 2), 0);
	assert_int_equal(fdt_setprop_u32(b, chosen, "#size-cells", 2), 0);
	mod = fdt_add_subnode(b, chosen, "module@4a000000");
	assert_true(mod >= 0);
	assert_int_equal(fdt_setprop(b, mod, "compatible",
				     "multiboot,kernel\0multiboot,module", 34),
			 0);
	assert_int_equal(fdt_setprop(b, mod, "reg", reg, sizeof(reg)), 0);

	sandbox_console_clear();
	bootinfo_init(&bi, BOOT_EFI);
	assert_int_equal(dt_parse_loader(b, BIG, pa(0x6ca00000), &bi, &ai), 0);
	assert_int_equal(test_console_warnings(), 0);
	assert_string_equal(bi.cmdline, "acpi=on");
	assert_non_null(find_reserved("dtb"));
	assert_int_equal(pa_val(find_reserved("initrd")->start), 0x6ca1a000);
	assert_int_equal(pa_val(find_reserved("module:kernel")->start),
			 0x4a000000);
	assert_int_equal(pa_val(find_reserved("module:kernel")->end),
			 0x4a100000);
	assert_int_equal(pa_val(bi.handover.pa), 0x6ca18000);
	assert_int_equal(bi.handover.size, 408);
	assert_int_equal(pa_val(bi.handover.image.start), 0x6ca1a000);
	assert_int_equal(bi.ram.count, 0);
	assert_int_equal(bi.cpu_count, 0);

	bootinfo_init(&bi, BOOT_EFI);
	b[0] ^= 0xff;
	assert_int_equal(dt_parse_loader(b, BIG, pa(0x6ca00000), &bi, &ai),
			 -EINVAL);
	assert_int_equal(console_count("dt: bad magic"), 1);
	assert_int_equal(bi.reserved.count, 0);
	free(b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_round_trip, test_setup,
						test_teardown),
		cmocka_unit_test_setup_teardown(test_gap_after_header,
						test_setup, test_teardown),
		cmocka_unit_test_setup_teardown(test_cmdline_xen, test_setup,
						test_teardown),
		cmocka_unit_test_setup_teardown(test_copy_loose_blob,
						test_setup, test_teardown),
		cmocka_unit_test_setup_teardown(test_no_room, test_setup,
						test_teardown),
		cmocka_unit_test_setup_teardown(test_malformed, test_setup,
						test_teardown),
		cmocka_unit_test_setup_teardown(test_absent, test_setup,
						test_teardown),
		cmocka_unit_test_setup_teardown(test_loader_chosen, test_setup,
						test_teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
