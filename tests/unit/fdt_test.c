/* SPDX-License-Identifier: MIT */
/*
 * boot/fdt/fdt.c and the memory, chosen and GIC parts of dt_parse() on the
 * DT fixtures and on corrupted blobs. NUMA: fdt_numa_test.c; CPUs and
 * cpu-map: fdt_cpus_test.c; ACPI facts: acpi_dt_test.c. Fixture:
 * fdt_fixture.h.
 */
#include <unistd.h>

#include <keel/report.h>

#include "fdt_fixture.h"

/* test_virt_2node(), continued: PSCI, UART, GIC and distances. */
static void expect_virt_2node_arch(void)
{
	assert_int_equal(ai.psci_method, DT_PSCI_HVC);
	assert_true(ai.psci_v0_2);
	assert_int_equal(ai.psci_cpu_on, PSCI_FN_CPU_ON);
	assert_true(ai.uart_is_pl011);
	assert_int_equal(pa_val(ai.uart_base), 0x9000000);
	assert_int_equal(ai.timer_freq, 0);
	assert_int_equal(pa_val(ai.gicd_base), 0x8000000);
	assert_int_equal(ai.gicr_count, 2);
	assert_int_equal(pa_val(ai.gicr[0].base), 0x80a0000);
	assert_int_equal(ai.gicr[0].size, 0xf60000);
	assert_int_equal(pa_val(ai.gicr[1].base), 0x4000000000ULL);
	assert_int_equal(ai.gicr[1].size, 0x4000000);

	assert_true(bi.have_distance);
	assert_int_equal(bi.distance[0][1], 20);
	assert_int_equal(bi.distance[1][0], 20);
	assert_int_equal(bi.distance[1][1], 10);
}

static void test_virt_2node(void **state)
{
	const struct region *r;

	assert_int_equal(parse_name("dt-virt-2node"), 0);
	assert_int_equal(test_console_warnings(), 0);
	assert_int_equal(bi.fixups, 0);
	assert_string_equal(bi.loader, "qemu");
	assert_true(ai.qemu_virt);
	assert_string_equal(bi.cmdline, "after=poweroff bootscrub=off");

	/* Memory in DT order (node 1 first), each with its node. */
	assert_int_equal(bi.ram.count, 2);
	assert_int_equal(pa_val(bi.ram.regions[0].start), 0x60000000);
	assert_int_equal(pa_val(bi.ram.regions[0].end), 0x80000000);
	assert_int_equal(bi.ram.regions[0].node, 1);
	assert_int_equal(pa_val(bi.ram.regions[1].start), 0x40000000);
	assert_int_equal(pa_val(bi.ram.regions[1].end), 0x60000000);
	assert_int_equal(bi.ram.regions[1].node, 0);

	r = find_reserved("dtb");
	assert_non_null(r);
	assert_int_equal(pa_val(r->start), 0x48000000);
	assert_true(pa_val(r->end) > pa_val(r->start));
	assert_int_equal(pa_val(r->end) - pa_val(r->start), ai.totalsize);
	r = find_reserved("initrd");
	assert_non_null(r);
	assert_int_equal(pa_val(r->start), 0x48200000);
	assert_int_equal(pa_val(r->end), 0x48300000);
	assert_int_equal(pa_val(ai.initrd_start), 0x48200000);
	r = find_reserved("memreserve");
	assert_non_null(r);
	assert_int_equal(pa_val(r->start), 0x40000000);
	assert_int_equal(pa_val(r->end), 0x40010000);
	r = find_reserved("fw@5f000000");
	assert_non_null(r);
	assert_int_equal(pa_val(r->start), 0x5f000000);
	assert_int_equal(pa_val(r->end), 0x5f100000);
	/* no-map: kept for the arch's RAM mapping too, and only it */
	assert_int_equal(ai.nomap_count, 1);
	assert_int_equal(pa_val(ai.nomap[0].start), 0x5f000000);
	assert_int_equal(pa_val(ai.nomap[0].end), 0x5f100000);
	/* size-only and disabled children are not reservations */
	assert_null(find_reserved("pool"));
	assert_null(find_reserved("off@5e000000"));
	assert_int_equal(bi.reserved.count, 4);

	assert_int_equal(bi.cpu_count, 4);
	assert_true(ai.cpu_map); /* QEMU's: socket0 and socket1, 2 cores */
	assert_int_equal(bi.cpus[0].hwid, 0);
	assert_int_equal(bi.cpus[2].hwid, 0x100);
	assert_int_equal(bi.cpus[2].node, 1);
	assert_int_equal(bi.cpus[2].package, 1);
	assert_int_equal(bi.cpus[3].core, 1);
	assert_int_equal(bi.cpus[3].thread, 0);
	for (unsigned int i = 0; i < 4; i++)
		assert_true(bi.cpus[i].usable);

	expect_virt_2node_arch();
}

/* Parse dt-virt-2node with the GIC's #redistributor-regions set to @n. */
static int parse_gic_regions(uint32_t n, bool v2)
{
	size_t len;
	uint8_t *blob = load_dtb("dt-virt-2node", &len);
	size_t big = len + 256;
	uint8_t *b = malloc(big);
	int node, r;

	assert_non_null(b);
	assert_int_equal(fdt_open_into(blob, b, (int)big), 0);
	node = fdt_node_offset_by_compatible(b, -1, "arm,gic-v3");
	assert_true(node >= 0);
	assert_int_equal(fdt_setprop_u32(b, node, "#redistributor-regions", n),
			 0);
	if (v2)
		assert_int_equal(fdt_setprop_string(b, node, "compatible",
						    "arm,gic-400"),
				 0);
	sandbox_console_clear();
	memset(&ai, 0, sizeof(ai));
	r = parse_buf(b, big);
	free(b);
	free(blob);
	return r;
}

/*
 * #redistributor-regions must leave the distributor its reg entry: with
 * 3 entries, 1 and 2 regions are fine, 0 and 3 give one warning and no
 * GIC (idle CPUs then spin); a GICv2 is not looked at.
 */
static void test_gic_regions(void **state)
{
	assert_int_equal(parse_gic_regions(1, false), 0);
	assert_int_equal(test_console_warnings(), 0);
	assert_int_equal(ai.gicr_count, 1);
	assert_int_equal(pa_val(ai.gicr[0].base), 0x80a0000);

	for (uint32_t n = 0; n <= 3; n += 3) {
		assert_int_equal(parse_gic_regions(n, false), 0);
		assert_int_equal(test_console_warnings(), 1);
		assert_true(test_console_contains("with 3 reg entries"));
		assert_int_equal(pa_val(ai.gicd_base), 0);
		assert_int_equal(ai.gicr_count, 0);
	}

	assert_int_equal(parse_gic_regions(2, true), 0);
	assert_int_equal(test_console_warnings(), 0);
	assert_int_equal(pa_val(ai.gicd_base), 0);
}

static void test_3node(void **state)
{
	assert_int_equal(parse_name("dt-3node"), 0);
	assert_int_equal(test_console_warnings(), 0);
	assert_int_equal(bi.ram.count, 2);
	assert_int_equal(bi.cpu_count, 3);
	/* 64-bit reg: Aff0 core, Aff1 | Aff2 << 8 | Aff3 << 16 package */
	assert_int_equal(bi.cpus[2].hwid, 0x100000100ULL);
	assert_int_equal(bi.cpus[2].thread, 0);
	assert_int_equal(bi.cpus[2].core, 0);
	assert_int_equal(bi.cpus[2].package, 1 | 1 << 16);
	assert_int_equal(bi.cpus[1].core, 1);
	assert_int_equal(bi.cpus[2].node, 2);
	assert_int_equal(ai.psci_method, DT_PSCI_SMC);
	assert_int_equal(ai.timer_freq, 100000000);
	/* stdout-path through an alias, options after ':' ignored */
	assert_true(ai.uart_is_pl011);
	assert_int_equal(pa_val(ai.uart_base), 0x9000000);
	/* 32-bit initrd properties */
	assert_int_equal(pa_val(ai.initrd_start), 0x48200000);
	assert_int_equal(pa_val(ai.initrd_end), 0x48280000);

	/* One-direction distances are mirrored. */
	assert_int_equal(bi.distance[2][0], 30);
	assert_int_equal(bi.distance[0][2], 30);
	assert_int_equal(bi.distance[2][1], 25);

	bootinfo_sanitise(&bi);
	assert_int_equal(bi.node_count, 3);
	assert_true(bi.have_distance);
	assert_int_equal(bi.distance[1][2], 25);
	assert_int_equal(bootinfo_ram_bytes(&bi), 768 * MB);
}

static void test_single_node_is_quiet(void **state)
{
	assert_int_equal(parse_name("dt-single"), 0);
	assert_int_equal(test_console_warnings(), 0);
	assert_int_equal(bi.fixups, 0);
	assert_int_equal(bi.ram.count, 1); /* the 0-size entry is skipped */
	assert_int_equal(pa_val(bi.ram.regions[0].start), 0x80000000);
	assert_int_equal(pa_val(bi.ram.regions[0].end), 0x88000000);
	assert_int_equal(bi.ram.regions[0].node, 0);
	assert_int_equal(bi.cpu_count, 1);
	assert_true(bi.cpus[0].usable);
	assert_false(bi.have_distance);
	/* PSCI 0.1: ids from the node, no SYSTEM_OFF */
	assert_false(ai.psci_v0_2);
	assert_int_equal(ai.psci_cpu_on, 0x95c1ba60);
	assert_int_equal(ai.psci_method, DT_PSCI_HVC);
	assert_int_equal(pa_val(ai.uart_base), 0);
	assert_string_equal(bi.loader, "");
	assert_false(ai.qemu_virt);
}

static void test_quirks(void **state)
{
	assert_int_equal(parse_name("dt-quirks"), 0);
	assert_true(test_console_contains("/ has no #size-cells, assuming 1"));
	assert_true(
		test_console_contains("memory@50000000 has no numa-node-id"));
	/* Node id 999: only 3 ids, nothing folds; it becomes node 2. */
	assert_true(test_console_contains(
		"dt: firmware node ids 0..999 are keel nodes 0..2"));
	assert_true(test_console_contains(
		"memory@60000000 reg length 20 is not a multiple of 12"));
	assert_true(test_console_contains("enable-method \"spin-table\""));
	assert_true(test_console_contains("psci method \"foo\""));
	assert_int_equal(test_console_warnings(), 5);
	assert_int_equal(bi.fixups, 5);

	/* Fallbacks */
	assert_int_equal(bi.ram.count, 3);
	assert_int_equal(bi.ram.regions[0].node, 1);
	assert_int_equal(bi.ram.regions[1].node, 0);
	assert_int_equal(bi.ram.regions[2].node, 2);
	assert_int_equal(pa_val(bi.ram.regions[2].end), 0x70000000);
	assert_int_equal(bi.cpu_count, 3);
	assert_true(bi.cpus[0].usable);
	assert_false(bi.cpus[1].usable); /* spin-table */
	assert_false(bi.cpus[2].usable); /* disabled */
	assert_int_equal(ai.psci_method, DT_PSCI_NONE);
	/* The asymmetric matrix is valid (ACPI semantics): kept. */
	assert_true(bi.have_distance);
	assert_int_equal(bi.distance[0][1], 20);
	assert_int_equal(bi.distance[1][0], 30);
	assert_false(ai.uart_is_pl011);
	assert_int_equal(pa_val(ai.uart_base), 0x9000000);
	assert_string_equal(bi.cmdline, "loglevel=3");
}

static void test_bad_headers(void **state)
{
	size_t len;
	uint8_t *good = load_dtb("dt-virt-2node", &len);
	uint8_t *b;

	/* Too small for a header. */
	b = copy_exact(good, 16);
	assert_int_equal(parse_buf(b, 16), -EINVAL);
	free(b);
	assert_true(test_console_contains("smaller than a header"));
	assert_int_equal(bi.ram.count, 0);

	/* Bad magic. */
	sandbox_console_clear();
	b = copy_exact(good, len);
	b[0] ^= 0xff;
	assert_int_equal(parse_buf(b, len), -EINVAL);
	assert_true(test_console_contains("bad magic"));
	assert_int_equal(test_console_warnings(), 1);
	free(b);

	/* Truncated: totalsize says more than we have. */
	sandbox_console_clear();
	b = copy_exact(good, len / 2);
	assert_int_equal(parse_buf(b, len / 2), -EINVAL);
	assert_true(test_console_contains("exceeds the"));
	assert_int_equal(test_console_warnings(), 1);
	assert_int_equal(bi.reserved.count, 0);
	free(b);

	/* totalsize field larger than the buffer, full buffer given. */
	sandbox_console_clear();
	b = copy_exact(good, len);
	b[4] = 0x7f;
	assert_int_equal(parse_buf(b, len), -EINVAL);
	assert_int_equal(test_console_warnings(), 1);
	free(b);

	/* Structure block offset pointing outside the blob. */
	sandbox_console_clear();
	b = copy_exact(good, len);
	b[8] = 0x7f;
	assert_int_equal(parse_buf(b, len), -EINVAL);
	assert_true(test_console_contains("malformed"));
	assert_int_equal(test_console_warnings(), 1);
	free(b);

	/* NULL blob. */
	sandbox_console_clear();
	assert_int_equal(parse_buf(NULL, 0), -EINVAL);
	assert_int_equal(test_console_warnings(), 1);
	free(good);
}

/*
 * Every single-byte corruption of every fixture: dt_parse() must neither
 * crash nor read outside the buffer (ASan), and what it returns must be
 * within bounds.
 */
static void test_corruptions(void **state)
{
	static const char *const names[] = {"dt-virt-2node", "dt-3node",
					    "dt-quirks",     "dt-single",
					    "dt-cpumap",     "dt-cpumap-bad"};
	static const uint8_t values[] = {0x00, 0xff, 0x01, 0x80};

	for (unsigned int f = 0; f < ARRAY_SIZE(names); f++) {
		size_t len;
		uint8_t *good = load_dtb(names[f], &len);

		for (size_t i = 0; i < len; i++) {
			for (unsigned int v = 0; v < ARRAY_SIZE(values); v++) {
				uint8_t *b = copy_exact(good, len);

				b[i] = values[v];
				sandbox_console_clear();
				parse_buf(b, len);
				assert_true(bi.ram.count <= bi.ram.cap);
				assert_true(bi.cpu_count <= NR_CPUS);
				assert_int_equal(
					bi.cmdline[sizeof(bi.cmdline) - 1], 0);
				for (unsigned int c = 0; c < bi.cpu_count; c++)
					assert_true(bi.cpus[c].node <
						    MAX_NUMNODES);
				for (unsigned int r = 0; r < bi.ram.count; r++)
					assert_true(bi.ram.regions[r].node <
						    MAX_NUMNODES);
				free(b);
			}
		}
		/* Every truncation, too. */
		for (size_t n = 0; n < len; n += 7) {
			uint8_t *b = copy_exact(good, n);

			assert_int_equal(parse_buf(b, n), -EINVAL);
			free(b);
		}
		free(good);
	}
}

/*
 * A property whose length runs past the structure block (0xfffffff4 wraps
 * Debian libfdt 1.6.1's int offset backwards): refused as malformed, at
 * once. Before dt_struct_sane(), fdt_check_full() looped for ever on it
 * (dom0less_fuzz); the alarm turns such a hang into a failed test.
 */
static void test_prop_len_wraps(void **state)
{
	static const uint32_t lens[] = {0xfffffff4, 0xfffffffc, 0x80000000,
					0x7ffffff0};
	size_t len;
	uint8_t *good = load_dtb("dt-virt-2node", &len);
	uint32_t off = fdt_off_dt_struct(good),
		 end = off + fdt_size_dt_struct(good);
	unsigned int props = 0;

	alarm(60);
	for (uint32_t o = off; o + 12 <= end; o += 4) {
		if (fdt32_to_cpu(*(const fdt32_t *)(good + o)) != FDT_PROP)
			continue;
		props++;
		for (unsigned int v = 0; v < ARRAY_SIZE(lens); v++) {
			uint8_t *b = copy_exact(good, len);

			*(fdt32_t *)(b + o + 4) = cpu_to_fdt32(lens[v]);
			sandbox_console_clear();
			assert_int_equal(parse_buf(b, len), -EINVAL);
			assert_false(dt_has_cpus(b, len));
			free(b);
		}
	}
	alarm(0);
	assert_true(props > 10);
	free(good);
}

/* GRUB's stand-in DT (only /chosen) has no CPUs; QEMU's has. */
static void test_has_cpus(void **state)
{
	size_t len;
	uint8_t *good = load_dtb("dt-single", &len);
	uint8_t *exact = copy_exact(good, len);
	uint8_t empty[512];

	assert_true(dt_has_cpus(exact, len));
	assert_false(dt_has_cpus(exact, len - 1)); /* totalsize > len */
	assert_false(dt_has_cpus(exact, 8));
	assert_false(dt_has_cpus(NULL, 0));
	exact[0] ^= 0xff; /* bad magic */
	assert_false(dt_has_cpus(exact, len));

	assert_int_equal(fdt_create_empty_tree(empty, sizeof(empty)), 0);
	assert_true(fdt_add_subnode(empty, 0, "chosen") >= 0);
	assert_false(dt_has_cpus(empty, sizeof(empty)));
	assert_true(fdt_add_subnode(empty, 0, "cpus") >= 0);
	assert_false(dt_has_cpus(empty, sizeof(empty))); /* no cpu child */
	assert_int_equal(test_console_warnings(), 0);
	free(exact);
	free(good);
}

/* How many times @word appears in the captured console output. */
static unsigned int console_count(const char *word)
{
	unsigned int n = 0;

	for (const char *p = sandbox_console_buffer();
	     (p = strstr(p, word)) != NULL; p += strlen(word))
		n++;
	return n;
}

/*
 * dt_read_cmdline(): an arm64 boot's command line before dt_parse(), so
 * that the options are parsed first: the line dt_parse() would copy,
 * which dt_parse() then keeps; a line already there (a UEFI loader's)
 * wins in both; quiet on a blob dt_parse() refuses; an overlong one loses
 * whole words with one counted warning, not a second one in dt_parse().
 */
static void test_read_cmdline(void **state)
{
	enum { BIG = 16 << 10 };
	size_t len;
	uint8_t *good = load_dtb("dt-virt-2node", &len);
	uint8_t *exact = copy_exact(good, len);
	uint8_t *big = malloc(BIG);
	char words[120 * 48];
	size_t n = 0;
	int chosen;

	bootinfo_init(&bi, BOOT_DT);
	assert_true(dt_read_cmdline(exact, len, &bi));
	assert_string_equal(bi.cmdline, "after=poweroff bootscrub=off");
	assert_int_equal(dt_parse(exact, len, pa(0x48000000), &bi, &ai), 0);
	assert_string_equal(bi.cmdline, "after=poweroff bootscrub=off");

	bootinfo_init(&bi, BOOT_EFI);
	snprintf(bi.cmdline, sizeof(bi.cmdline), "acpi=force");
	assert_false(dt_read_cmdline(exact, len, &bi));
	assert_int_equal(dt_parse(exact, len, pa(0x48000000), &bi, &ai), 0);
	assert_string_equal(bi.cmdline, "acpi=force");

	sandbox_console_clear();
	bootinfo_init(&bi, BOOT_DT);
	assert_false(dt_read_cmdline(exact, len - 1, &bi)); /* totalsize */
	assert_false(dt_read_cmdline(exact, 8, &bi));
	assert_false(dt_read_cmdline(NULL, 0, &bi));
	exact[0] ^= 0xff; /* bad magic */
	assert_false(dt_read_cmdline(exact, len, &bi));
	assert_string_equal(bi.cmdline, "");
	assert_int_equal(test_console_warnings(), 0);

	assert_non_null(big);
	for (unsigned int i = 0; i < 120; i++)
		n += (size_t)snprintf(words + n, sizeof(words) - n,
				      "%sw%03u=%040u", i ? " " : "", i, i);
	assert_true(n > sizeof(bi.cmdline));
	assert_int_equal(fdt_create_empty_tree(big, BIG), 0);
	chosen = fdt_add_subnode(big, 0, "chosen");
	assert_true(chosen >= 0);
	assert_int_equal(fdt_setprop_string(big, chosen, "bootargs", words), 0);
	sandbox_console_clear();
	bootinfo_init(&bi, BOOT_DT);
	assert_true(dt_read_cmdline(big, BIG, &bi));
	assert_int_equal(bi.fixups, 1);
	assert_int_equal(console_count("dt: chosen/bootargs: "), 1);
	assert_true(strlen(bi.cmdline) < sizeof(bi.cmdline));
	assert_true(!strncmp(bi.cmdline, words, strlen(bi.cmdline)));
	assert_int_equal(words[strlen(bi.cmdline)], ' '); /* whole words */
	dt_parse(big, BIG, pa(0x48000000), &bi, &ai);
	assert_int_equal(console_count("dt: chosen/bootargs: "), 1);
	free(big);
	free(exact);
	free(good);
}

/*
 * dt-virt-2node with /chosen/xen,xen-bootargs set to @len bytes of @xen
 * (NULL: not set) and its bootargs kept (or deleted, !@bootargs), read as
 * a DT boot reads it: dt_read_cmdline(), then dt_parse().
 */
static void read_xen_bootargs(const char *xen, int len, bool bootargs)
{
	enum { ROOM = 1024 };
	size_t n;
	uint8_t *blob = load_dtb("dt-virt-2node", &n);
	size_t big = n + ROOM;
	uint8_t *b = malloc(big);
	int chosen;

	assert_non_null(b);
	assert_int_equal(fdt_open_into(blob, b, (int)big), 0);
	chosen = fdt_path_offset(b, "/chosen");
	assert_true(chosen >= 0);
	if (xen)
		assert_int_equal(
			fdt_setprop(b, chosen, "xen,xen-bootargs", xen, len),
			0);
	if (!bootargs)
		assert_int_equal(fdt_delprop(b, chosen, "bootargs"), 0);
	sandbox_console_clear();
	bootinfo_init(&bi, BOOT_DT);
	dt_read_cmdline(b, big, &bi);
	assert_int_equal(dt_parse(b, big, pa(0x48000000), &bi, &ai), 0);
	free(b);
	free(blob);
}

/*
 * Xen's precedence (docs/misc/arm/device-tree/booting.txt): ImageBuilder's
 * xen,xen-bootargs before bootargs, even when empty; a malformed one (no
 * NUL in its length, or no bytes) is one warning and bootargs is read.
 */
static void test_xen_bootargs(void **state)
{
	static const char raw[] = {'a', 'c', 'p', 'i', '=', 'o', 'f', 'f'};

	read_xen_bootargs("domain=8M audit=full", 21, true);
	assert_string_equal(bi.cmdline, "domain=8M audit=full");
	assert_int_equal(test_console_warnings(), 0);
	assert_int_equal(bi.fixups, 0);

	read_xen_bootargs("domain=8M", 10, false);
	assert_string_equal(bi.cmdline, "domain=8M");
	assert_int_equal(test_console_warnings(), 0);

	read_xen_bootargs("", 1, true); /* present: Xen's, even empty */
	assert_string_equal(bi.cmdline, "");
	assert_int_equal(test_console_warnings(), 0);

	read_xen_bootargs(raw, sizeof(raw), true);
	assert_string_equal(bi.cmdline, "after=poweroff bootscrub=off");
	assert_int_equal(test_console_warnings(), 1);
	assert_int_equal(console_count("chosen/xen,xen-bootargs of 8 bytes "
				       "is not a NUL-terminated string"),
			 1);
	assert_int_equal(bi.fixups, 1);

	read_xen_bootargs(raw, 0, false); /* empty, no bootargs: twice read */
	assert_string_equal(bi.cmdline, "");
	assert_int_equal(console_count("chosen/xen,xen-bootargs of 0 bytes"),
			 1);
	assert_int_equal(bi.fixups, 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_virt_2node, test_setup,
						test_teardown),
		cmocka_unit_test_setup_teardown(test_gic_regions, test_setup,
						test_teardown),
		cmocka_unit_test_setup_teardown(test_3node, test_setup,
						test_teardown),
		cmocka_unit_test_setup_teardown(test_single_node_is_quiet,
						test_setup, test_teardown),
		cmocka_unit_test_setup_teardown(test_quirks, test_setup,
						test_teardown),
		cmocka_unit_test_setup_teardown(test_bad_headers, test_setup,
						test_teardown),
		cmocka_unit_test_setup_teardown(test_corruptions, test_setup,
						test_teardown),
		cmocka_unit_test_setup_teardown(test_prop_len_wraps, test_setup,
						test_teardown),
		cmocka_unit_test_setup_teardown(test_has_cpus, test_setup,
						test_teardown),
		cmocka_unit_test_setup_teardown(test_xen_bootargs, test_setup,
						test_teardown),
		cmocka_unit_test_setup_teardown(test_read_cmdline, test_setup,
						test_teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
