/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer target: handover_parse() (boot/handover.c), the live-update
 * reader, over the input as the handover at 0x20000000 of a fixed machine
 * (RAM [0, 1G) node 0 and [4G, 5G) node 1; bios and kernel reserved below
 * 3M). Twice: as given (the checksum almost never matches, so this walks
 * the header checks), then a copy with the checksum made right, so that
 * the fuzzer reaches the records. libFuzzer's buffer is exactly @size
 * bytes: ASan catches any read past it. A handover taken must keep what
 * the reader promises: preserved ranges sorted, disjoint, page aligned,
 * in RAM, off the reserved ranges; every extent and table range inside
 * them; every root inside its tables; every vCPU naming a domain record,
 * a CPU of the machine and its arch's tag and size; the frame table's
 * placement inside the bytes, each piece page aligned and not empty. The
 * input is also a new image's
 * file for the header parsers of boot/handover_image.c, whose result must
 * lie inside the file.
 */
#include <keel/handover.h>

#include "fuzz_util.h"

#define HO_PA 0x20000000ull
#define G4    0x100000000ull

static struct bootinfo bi;
static uint8_t copy[HANDOVER_MAX_BYTES / 64];

static void machine(void)
{
	bootinfo_early_pool_reset();
	bootinfo_init(&bi, BOOT_SANDBOX);
	bootinfo_add_ram(&bi, pa(0), pa(1ull << 30), 0);
	bootinfo_add_ram(&bi, pa(G4), pa(G4 + (1ull << 30)), 1);
	bootinfo_add_reserved(&bi, pa(0), pa(1 << 20), "bios");
	bootinfo_add_reserved(&bi, pa(1 << 20), pa(3 << 20), "kernel");
	bootinfo_add_cpu(&bi, 0, 0, 0, 0, 0, true);
	bi.cpus[0].boot_cpu = true;
	bootinfo_sanitise(&bi);
	/* vCPU records (version 2): arm64's tag and 488-byte state. */
	bi.handover.vcpu_arch = HANDOVER_VCPU_ARM64;
	bi.handover.vcpu_state_bytes = HANDOVER_ARM64_STATE_BYTES;
}

static bool in_pres(const struct bi_handover *h, uint64_t s, uint64_t e)
{
	for (unsigned int i = 0; i < h->preserved_count; i++) {
		struct handover_range r = handover_preserved_range(h, i);

		if (r.start <= s && e <= r.end)
			return true;
	}
	return false;
}

/* The frame table's placement: inside the bytes, each piece sane. */
static void check_ft(const struct bi_handover *h, const uint8_t *buf)
{
	const size_t bytes = h->ft_count * sizeof(struct handover_ft_piece);

	FUZZ_CHECK(h->ft_count <= HANDOVER_FT_PIECES_MAX);
	if (h->ft_count)
		FUZZ_CHECK(h->ft_pieces >= buf &&
			   h->ft_pieces + bytes <= buf + h->hdr.size);
	for (unsigned int i = 0; i < h->ft_count; i++) {
		struct handover_ft_piece f = handover_ft_piece(h, i);

		FUZZ_CHECK(f.start < f.end &&
			   IS_ALIGNED(f.start | f.end, PAGE_SIZE));
		FUZZ_CHECK(f.node == HANDOVER_FT_SECTIONS ||
			   f.node < MAX_NUMNODES);
	}
}

static void check_taken(const struct bi_handover *h, const uint8_t *buf)
{
	uint64_t last = 0;

	FUZZ_CHECK(h->state == HANDOVER_TAKEN);
	for (unsigned int i = 0; i < h->preserved_count; i++) {
		struct handover_range r = handover_preserved_range(h, i);

		FUZZ_CHECK(r.start < r.end && r.start >= last);
		FUZZ_CHECK(IS_ALIGNED(r.start | r.end, PAGE_SIZE));
		FUZZ_CHECK(r.start >= (3 << 20));
		FUZZ_CHECK(r.end <= (1ull << 30) ||
			   (r.start >= G4 && r.end <= G4 + (1ull << 30)));
		FUZZ_CHECK(r.end <= HO_PA ||
			   r.start >= HO_PA + ALIGN_UP(h->hdr.size, PAGE_SIZE));
		last = r.end;
	}
	for (unsigned int d = 0; d < h->domain_count; d++) {
		const struct bi_handover_domain *bd = &h->domains[d];

		FUZZ_CHECK(bd->id && bd->node < bi.node_count);
		FUZZ_CHECK(memchr(bd->name, 0, sizeof(bd->name)));
		FUZZ_CHECK(memchr(bd->kernel, 0, sizeof(bd->kernel)));
		FUZZ_CHECK(bd->vcpus <= HANDOVER_DOMAIN_VCPUS_MAX);
		for (uint32_t i = 0; i < bd->extent_count; i++) {
			struct handover_extent x =
				handover_domain_extent(bd, i);

			FUZZ_CHECK(
				in_pres(h, x.pa, x.pa + x.pages * PAGE_SIZE));
		}
		for (uint32_t i = 0; i < bd->table_count; i++) {
			struct handover_range t = handover_domain_tables(bd, i);

			FUZZ_CHECK(in_pres(h, t.start, t.end));
		}
	}
	for (unsigned int v = 0; v < h->vcpu_count; v++) {
		const struct bi_handover_vcpu *bv = &h->vcpus[v];
		bool dom = false;

		for (unsigned int d = 0; d < h->domain_count; d++)
			dom |= h->domains[d].id == bv->domain;
		FUZZ_CHECK(dom && bv->cpu < bi.cpu_count);
		FUZZ_CHECK(bv->arch == HANDOVER_VCPU_ARM64 &&
			   bv->state_bytes == HANDOVER_ARM64_STATE_BYTES);
		FUZZ_CHECK(h->hdr.version >= 2);
		/* The state lies inside the handover's bytes. */
		FUZZ_CHECK(bv->state >= buf &&
			   bv->state + bv->state_bytes <= buf + h->hdr.size);
	}
	check_ft(h, buf);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_images(const uint8_t *data, size_t size)
{
	struct lu_image img;
	char why[128];

	if (!lu_image_multiboot1(data, size, &img, why, sizeof(why)))
		FUZZ_CHECK(img.file_off + (img.load_end - img.load) <= size &&
			   img.load <= img.entry && img.entry < img.load_end &&
			   img.load_end <= img.mem_end);
	if (!lu_image_arm64(data, size, &img, why, sizeof(why)))
		FUZZ_CHECK(img.load_end - img.load == size &&
			   img.load_end <= img.mem_end);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct handover_header hd;

	fuzz_console_quiet();
	check_images(data, size);
	if (!bi.ram.count)
		machine();
	if (!handover_parse(&bi, data, size, pa(HO_PA)))
		check_taken(&bi.handover, data);
	else
		FUZZ_CHECK(!strncmp(bi.handover.why, "handover: ", 10));
	if (size < sizeof(hd) || size > sizeof(copy))
		return 0;
	memcpy(copy, data, size);
	memcpy(&hd, copy, sizeof(hd));
	if (hd.size <= size) {
		hd.checksum = handover_checksum(copy, hd.size);
		memcpy(copy, &hd, sizeof(hd));
	}
	if (!handover_parse(&bi, copy, size, pa(HO_PA)))
		check_taken(&bi.handover, copy);
	return 0;
}
