/* SPDX-License-Identifier: MIT */
/*
 * arm64 EFI stub: keel started as a UEFI application (firmware boot
 * manager, UEFI shell, GRUB's linux / xen_hypervisor loaders).
 *
 * What it owns: struct efi_boot (in .bss), everything keel keeps from the
 * firmware: the UEFI memory map, the command line, the ACPI RSDP and DTB
 * addresses, the firmware vendor. efi_main() runs on the firmware's stack
 * with UEFI's MMU state (identity map, caches on); it writes only to keel's
 * own .bss, so nothing it saves lives in boot-services memory that the
 * heap later hands out. Then ExitBootServices() and efi_enter_kernel()
 * (head.S), which cleans the image to the PoC, turns the MMU off and takes
 * the normal boot path. After that only setup.c calls in here
 * (efi_fill_ram(), efi_from_dt()), with keel's own MMU on, and a live
 * update (efi_lu_chosen()), which passes this boot on in the DTB copy's
 * /chosen; the next image reads it back with efi_from_dt(), as if its
 * own stub had run (boot/fdt/fdt_uefi.c holds the property rules). Translating what was saved
 * (memory map, LoadOptions) is boot/uefi.c's job, a host-tested parser.
 *
 * Console: UEFI ConOut until ExitBootServices(); from then on console.c
 * buffers lines until setup.c knows the UART (DT stdout-path or SPCR).
 *
 * Invariants: no firmware call after ExitBootServices() succeeded; the
 * memory map is the one whose key ExitBootServices() accepted. No lock:
 * only the boot CPU runs here, before SMP.
 */
#include <arch/mm.h>
#include <asm/arm64.h>
#include <keel/bootinfo.h>
#include <keel/errno.h>
#include <keel/fdt.h>
#include <keel/compiler.h>
#include <keel/escape.h>
#include <keel/printk.h>
#include <keel/string.h>
#include <keel/uefi.h>

#define EFI_SUCCESS	      0ULL
#define EFI_ERR		      (1ULL << 63)
#define EFI_LOAD_ERROR	      (EFI_ERR | 1)
#define EFI_INVALID_PARAMETER (EFI_ERR | 2)
#define EFI_BUFFER_TOO_SMALL  (EFI_ERR | 5)

#define EFI_MMAP_BYTES	      (48u << 10)
#define EFI_EXIT_RETRIES      4
#define EFI_SYSTEM_TABLE_SIG  0x5453595320494249ULL /* "IBI SYST" */
#define EFI_TABLES_MAX	      256 /* configuration tables believed */

struct efi_guid {
	uint32_t d1;
	uint16_t d2, d3;
	uint8_t d4[8];
};

struct efi_table_header {
	uint64_t signature;
	uint32_t revision, header_size, crc32, reserved;
};

struct efi_text_output {
	void *reset;
	uint64_t (*output_string)(struct efi_text_output *self,
				  const uint16_t *s);
};

/* EFI_BOOT_SERVICES, only the entries keel calls are typed. */
struct efi_boot_services {
	struct efi_table_header hdr;
	void *raise_tpl, *restore_tpl;
	void *allocate_pages, *free_pages;
	uint64_t (*get_memory_map)(uint64_t *size, void *map, uint64_t *key,
				   uint64_t *desc_size, uint32_t *desc_ver);
	void *allocate_pool, *free_pool;
	void *create_event, *set_timer, *wait_for_event, *signal_event;
	void *close_event, *check_event;
	void *install_protocol, *reinstall_protocol, *uninstall_protocol;
	uint64_t (*handle_protocol)(void *handle, const struct efi_guid *guid,
				    void **iface);
	void *reserved, *register_protocol_notify;
	void *locate_handle, *locate_device_path;
	void *install_configuration_table;
	void *load_image, *start_image, *exit, *unload_image;
	uint64_t (*exit_boot_services)(void *image, uint64_t map_key);
};

struct efi_config_table {
	struct efi_guid guid;
	void *table;
};

struct efi_system_table {
	struct efi_table_header hdr;
	const uint16_t *firmware_vendor;
	uint32_t firmware_revision;
	void *con_in_handle, *con_in;
	void *con_out_handle;
	struct efi_text_output *con_out;
	void *stderr_handle, *std_err;
	void *runtime_services;
	struct efi_boot_services *boot_services;
	uint64_t nr_tables;
	struct efi_config_table *tables;
};

struct efi_loaded_image {
	uint32_t revision;
	void *parent, *system_table, *device, *file_path, *reserved;
	uint32_t load_options_size;
	const void *load_options;
	void *image_base;
	uint64_t image_size;
};

static const struct efi_guid acpi20_guid = {
	0x8868e871,
	0xe4f1,
	0x11d3,
	{0xbc, 0x22, 0x00, 0x80, 0xc7, 0x3c, 0x88, 0x81}};
static const struct efi_guid acpi10_guid = {
	0xeb9d2d30,
	0x2d88,
	0x11d3,
	{0x9a, 0x16, 0x00, 0x90, 0x27, 0x3f, 0xc1, 0x4d}};
static const struct efi_guid dtb_guid = {
	0xb1b621d5,
	0xf19c,
	0x41a5,
	{0x83, 0x0b, 0xd9, 0x15, 0x2c, 0x69, 0xaa, 0xe0}};
static const struct efi_guid loaded_image_guid = {
	0x5b1b31a1,
	0x9562,
	0x11d2,
	{0x8e, 0x3f, 0x00, 0xa0, 0xc9, 0x69, 0x72, 0x3b}};

struct efi_boot efi_boot;

static uint8_t efi_mmap[EFI_MMAP_BYTES] __aligned(16);
static uint32_t efi_desc_ver; /* the map's DescriptorVersion */
static struct efi_text_output *con_out;

void efi_enter_kernel(uint64_t dtb) __attribute__((noreturn));
uint64_t efi_main(void *image, struct efi_system_table *st);

/* console.c's hook while boot services run: UCS-2 through ConOut. */
static void efi_con_write(const char *s, size_t len)
{
	uint16_t buf[129];
	size_t n = 0;

	for (size_t i = 0; i < len; i++) {
		if (s[i] == '\n')
			buf[n++] = '\r';
		buf[n++] = (uint8_t)s[i];
		if (n >= ARRAY_SIZE(buf) - 2 || i + 1 == len) {
			buf[n] = 0;
			con_out->output_string(con_out, buf);
			n = 0;
		}
	}
}

static bool guid_eq(const struct efi_guid *a, const struct efi_guid *b)
{
	return !memcmp(a, b, sizeof(*a));
}

/* LoadOptions -> efi_boot.cmdline; GRUB's BOOT_IMAGE= names the loader. */
static void copy_cmdline(const struct efi_loaded_image *li)
{
	if (uefi_load_options(li->load_options, li->load_options_size,
			      efi_boot.cmdline, sizeof(efi_boot.cmdline)))
		strlcpy(efi_boot.loader, "grub", sizeof(efi_boot.loader));
}

static void find_tables(struct efi_system_table *st)
{
	uint64_t acpi10 = 0;

	for (uint64_t i = 0; i < st->nr_tables; i++) {
		const struct efi_config_table *t = &st->tables[i];
		uint64_t p = (uint64_t)(uintptr_t)t->table;

		if (guid_eq(&t->guid, &acpi20_guid))
			efi_boot.rsdp = p;
		else if (guid_eq(&t->guid, &acpi10_guid))
			acpi10 = p;
		else if (guid_eq(&t->guid, &dtb_guid))
			efi_boot.dtb = p;
	}
	if (!efi_boot.rsdp)
		efi_boot.rsdp = acpi10;
}

static uint64_t get_map(struct efi_boot_services *bs, uint64_t *key)
{
	uint64_t size = sizeof(efi_mmap), dsize = 0;
	uint32_t dver = 0;
	uint64_t s;

	s = bs->get_memory_map(&size, efi_mmap, key, &dsize, &dver);
	if (s != EFI_SUCCESS)
		return s;
	if (dsize < sizeof(struct uefi_mem_desc) || dsize > 1024)
		return EFI_LOAD_ERROR;
	efi_boot.mmap_size = size;
	efi_boot.desc_size = dsize;
	efi_desc_ver = dver;
	return EFI_SUCCESS;
}

/* The firmware's vendor (printable ASCII) and revision, for the report. */
static void save_vendor(const struct efi_system_table *st)
{
	unsigned int i;

	for (i = 0; st->firmware_vendor && st->firmware_vendor[i] &&
		    i + 1 < sizeof(efi_boot.fw_vendor);
	     i++) {
		uint16_t c = st->firmware_vendor[i];

		efi_boot.fw_vendor[i] = (c >= 0x20 && c < 0x7f) ? (char)c : '?';
	}
	efi_boot.fw_vendor[i] = '\0';
	efi_boot.fw_revision = st->firmware_revision;
}

/*
 * The final memory map, then ExitBootServices(). It fails with
 * EFI_INVALID_PARAMETER when the map changed since GetMemoryMap() (an
 * event allocated memory): fetch a fresh map and key and try again. No
 * printing in between: the console may allocate.
 * Return: EFI_SUCCESS (boot services gone, efi_boot.exit_tries set) or
 * the failing status.
 */
static uint64_t leave_boot_services(void *image, struct efi_boot_services *bs)
{
	uint64_t key = 0, s;
	unsigned int i;

	s = get_map(bs, &key);
	if (s != EFI_SUCCESS) {
		pr_err("efi: GetMemoryMap failed (%#llx)\n",
		       (unsigned long long)s);
		return s;
	}
	pr_info("efi: %llu memory descriptors of %llu bytes, leaving boot "
		"services\n",
		(unsigned long long)(efi_boot.mmap_size / efi_boot.desc_size),
		(unsigned long long)efi_boot.desc_size);
	s = get_map(bs, &key);
	for (i = 1; s == EFI_SUCCESS; i++) {
		s = bs->exit_boot_services(image, key);
		if (s != EFI_INVALID_PARAMETER || i == EFI_EXIT_RETRIES)
			break;
		s = get_map(bs, &key);
	}
	/* On failure boot services may be half torn down: no console. */
	if (s == EFI_SUCCESS)
		efi_boot.exit_tries = i;
	return s;
}

/**
 * efi_main() - C entry from head.S efi_entry, boot services running.
 * @image: our EFI_HANDLE.
 * @st: the EFI system table.
 *
 * Return: an EFI error status when keel cannot start (the firmware or
 * GRUB regains control); on success it does not return.
 */
uint64_t efi_main(void *image, struct efi_system_table *st)
{
	struct efi_boot_services *bs = st->boot_services;
	struct efi_loaded_image *li = NULL;
	static char shown[512];
	uint64_t s;

	efi_boot.entry_ticks = read_sysreg(cntvct_el0);
	efi_boot.booted = true;
	strlcpy(efi_boot.loader, "uefi", sizeof(efi_boot.loader));
	con_out = st->con_out;
	if (con_out)
		pl011_set_hook(efi_con_write);

	efi_boot.system_table = (uint64_t)(uintptr_t)st;
	save_vendor(st);
	pr_info("efi: keel EFI stub, firmware \"%s\" rev %#x, UEFI %u.%u\n",
		efi_boot.fw_vendor, efi_boot.fw_revision,
		st->hdr.revision >> 16, (st->hdr.revision & 0xffff) / 10);

	s = bs->handle_protocol(image, &loaded_image_guid, (void **)&li);
	if (s == EFI_SUCCESS && li) {
		efi_boot.image_base = (uint64_t)(uintptr_t)li->image_base;
		copy_cmdline(li);
	} else {
		pr_warn("efi: no LoadedImage protocol on handle %p (%#llx): "
			"no command line\n",
			image, (unsigned long long)s);
	}
	find_tables(st);
	/* The loader's bytes, escaped as every other cmdline line is. */
	escape_bytes(shown, sizeof(shown), efi_boot.cmdline,
		     strnlen(efi_boot.cmdline, sizeof(efi_boot.cmdline)));
	pr_info("efi: image at %#llx, system table %#llx, ACPI RSDP %#llx, "
		"DTB %#llx, cmdline \"%s\"\n",
		(unsigned long long)efi_boot.image_base,
		(unsigned long long)efi_boot.system_table,
		(unsigned long long)efi_boot.rsdp,
		(unsigned long long)efi_boot.dtb, shown);

	s = leave_boot_services(image, bs);
	if (s != EFI_SUCCESS)
		return s;
	/* Boot services are gone: buffer the console until a UART is known. */
	con_out = NULL;
	pl011_set_hook(NULL);
	pl011_hold();
	efi_enter_kernel(efi_boot.dtb);
}

/**
 * efi_fill_ram() - the saved UEFI memory map into @bi (boot/uefi.c rules:
 * RAM with node NUMA_NO_NODE, runtime/ACPI/reserved types as reserved
 * ranges, MMIO neither).
 * @bi: bootinfo to add to.
 *
 * Return: bytes of ACPI reclaim memory (reported).
 */
uint64_t efi_fill_ram(struct bootinfo *bi)
{
	struct uefi_mmap_stats st;

	uefi_mmap_to_bootinfo(efi_mmap, efi_boot.mmap_size, efi_boot.desc_size,
			      bi, &st);
	return st.acpi_reclaim_bytes;
}

/* [p, p + len) mapped as Normal memory (firmware tables in RAM). */
static bool efi_map(uint64_t p, uint64_t len)
{
	if (!p || !len || p + len < p || p + len > (1ULL << mm_pa_bits()))
		return false;
	mm_map_normal(pa(ALIGN_DOWN(p, PAGE_SIZE)),
		      pa(ALIGN_UP(p + len, PAGE_SIZE)));
	mm_commit();
	return true;
}

/*
 * The system table a live update's /chosen names, read as efi_main()
 * read it: the ACPI RSDP and the firmware's vendor. Return: 0, or
 * -EINVAL (not a system table; said).
 */
static int read_system_table(uint64_t p)
{
	struct efi_system_table *st = (void *)(uintptr_t)p;
	uint64_t v;

	if (!efi_map(p, sizeof(*st)) ||
	    st->hdr.signature != EFI_SYSTEM_TABLE_SIG ||
	    st->hdr.header_size < sizeof(*st)) {
		pr_err("efi: chosen/linux,uefi-system-table %#llx is no EFI "
		       "system table\n",
		       (unsigned long long)p);
		return -EINVAL;
	}
	if (st->nr_tables > EFI_TABLES_MAX ||
	    !efi_map((uintptr_t)st->tables,
		     st->nr_tables * sizeof(st->tables[0]))) {
		pr_err("efi: system table %#llx: %llu configuration tables "
		       "at %p cannot be read\n",
		       (unsigned long long)p, (unsigned long long)st->nr_tables,
		       st->tables);
		return -EINVAL;
	}
	find_tables(st);
	v = (uintptr_t)st->firmware_vendor;
	if (v && !efi_map(v, sizeof(efi_boot.fw_vendor) * 2))
		st->firmware_vendor = NULL;
	save_vendor(st);
	return 0;
}

/**
 * efi_from_dt() - a UEFI boot a live update's /chosen describes (see
 * asm/arm64.h and boot/fdt/fdt_uefi.c): its memory map copied into this
 * image's buffer before anything allocates, its system table read for
 * the RSDP and the vendor, its loader name. The DTB is @dtb, @len bytes.
 * @bi: counts the DT's warnings.
 *
 * Return: true when the boot is a UEFI one (efi_boot.from_dt set), false
 * when the DT says nothing of UEFI.
 */
bool efi_from_dt(uint64_t dtb, size_t len, struct bootinfo *bi)
{
	struct dt_uefi u;
	int r = dt_uefi_read((const void *)(uintptr_t)dtb, len, bi, &u);

	if (!r)
		return false;
	/* Fail closed: a plain DT boot would take firmware memory for RAM. */
	if (r < 0)
		panic("efi: the device tree's /chosen linux,uefi-* properties "
		      "are not usable (warned above): no UEFI memory map, "
		      "nothing zeroed");
	if (u.mmap_size > sizeof(efi_mmap) ||
	    !efi_map(u.mmap_start, u.mmap_size))
		panic("efi: chosen/linux,uefi-mmap-size %llu at %#llx: more "
		      "than the %zu bytes this image keeps, or no address",
		      (unsigned long long)u.mmap_size,
		      (unsigned long long)u.mmap_start, sizeof(efi_mmap));
	memcpy(efi_mmap, (const void *)(uintptr_t)u.mmap_start, u.mmap_size);
	efi_boot.mmap_size = u.mmap_size;
	efi_boot.desc_size = u.desc_size;
	efi_desc_ver = (uint32_t)u.desc_ver;
	efi_boot.system_table = u.system_table;
	if (read_system_table(u.system_table))
		panic("efi: the UEFI system table /chosen names is not "
		      "readable (said above)");
	strlcpy(efi_boot.loader, u.loader, sizeof(efi_boot.loader));
	efi_boot.dtb = dtb;
	efi_boot.from_dt = true;
	pr_info("efi: a UEFI boot described by /chosen: %llu memory "
		"descriptors of %llu bytes at %#llx, system table %#llx, "
		"firmware \"%s\"\n",
		(unsigned long long)(u.mmap_size / u.desc_size),
		(unsigned long long)u.desc_size,
		(unsigned long long)u.mmap_start,
		(unsigned long long)u.system_table, efi_boot.fw_vendor);
	return true;
}

/**
 * efi_lu_chosen() - a live update passes this UEFI boot on: the memory
 * map this image booted with, the system table, the loader's name and
 * @cmdline, into the /chosen of the DTB copy @fdt (opened with room).
 * @why: the reason on failure, @n bytes.
 *
 * Return: 0 (also when this is no UEFI boot: nothing to add), -EINVAL.
 */
int efi_lu_chosen(void *fdt, const char *cmdline, char *why, size_t n)
{
	struct dt_uefi u = {
		.system_table = efi_boot.system_table,
		.mmap_size = efi_boot.mmap_size,
		.desc_size = efi_boot.desc_size,
		.desc_ver = efi_desc_ver,
	};

	if (!efi_boot.booted && !efi_boot.from_dt)
		return 0;
	strlcpy(u.loader, efi_boot.loader, sizeof(u.loader));
	if (!u.system_table || !u.mmap_size || !u.desc_size ||
	    u.desc_ver != 1) {
		snprintf(why, n,
			 "this UEFI boot kept no memory map or system table "
			 "the next image can read (map %llu bytes, descriptor "
			 "version %llu, system table %#llx)",
			 (unsigned long long)u.mmap_size,
			 (unsigned long long)u.desc_ver,
			 (unsigned long long)u.system_table);
		return -EINVAL;
	}
	if (dt_uefi_write(fdt, (uintptr_t)fdt, &u, efi_mmap, cmdline)) {
		snprintf(why, n,
			 "the UEFI memory map (%llu bytes) and the command "
			 "line do not fit in the DTB copy's /chosen",
			 (unsigned long long)u.mmap_size);
		return -EINVAL;
	}
	return 0;
}
