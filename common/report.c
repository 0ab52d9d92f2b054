/* SPDX-License-Identifier: MIT */
/*
 * The boot report (DESIGN §7).
 *
 * Owns: the human summary lines, the single "KEEL-REPORT {json}" line and
 * the "KEEL: PASS" / "KEEL: FAIL <reason>" verdict, plus the benchmark row
 * table the self-benchmark fills (empty until it exists).
 *
 * The JSON is produced by the streaming writer of common/json.c (no heap,
 * no large buffer, one line). It must stay carriable by a 115200-baud
 * serial console on big machines (DESIGN §9: <= 32 KiB at 256 CPUs), so:
 * every list of same-shaped objects is a table (column names once, rows of
 * values), scrub units are summed per node unless trace=full, the reserved
 * list is cut to REPORT_RESERVED_MAX rows, and the document ends with its
 * own length (report_bytes). The human lines stay per node; per-CPU and
 * per-range lines are debug (loglevel=3).
 *
 * Runs on the boot CPU only, after every other CPU is parked: no lock.
 * Keys are never renamed (tools parse them); new keys may be added.
 */
#include <arch/cpu.h>
#include <arch/scrub.h>
#include <keel/bootinfo.h>
#include <keel/bootmem.h>
#include <keel/cachemaint.h>
#include <keel/compiler.h>
#include <keel/frametable.h>
#include <keel/heap.h>
#include <keel/json.h>
#include <keel/options.h>
#include <keel/printk.h>
#include <keel/report.h>
#include <keel/scrub.h>
#include <keel/smp.h>
#include <keel/string.h>
#include <keel/stress.h>
#include <keel/trace.h>

struct bench_row bench_rows[BENCH_MAX_ROWS];
unsigned int bench_row_count;

/* ---- helpers ----------------------------------------------------------- */

/* Bytes per ns is GB/s; in thousandths. Fits: 1 TiB * 1000 < 2^64. */
static uint64_t gbps_milli(uint64_t bytes, uint64_t ns)
{
	return ns ? bytes * 1000 / ns : 0;
}

/* ns since entry of an absolute tick stamp; 0 stays 0 (never happened). */
static uint64_t at_ns(uint64_t ticks)
{
	return ticks ? ticks_to_ns_since_entry(ticks) : 0;
}

static int64_t signed_ticks_to_ns(int64_t t)
{
	if (t < 0)
		return -(int64_t)ticks_to_ns((uint64_t)0 - (uint64_t)t);
	return (int64_t)ticks_to_ns((uint64_t)t);
}

static uint64_t heap_init_ns(void)
{
	if (boot_times.heap_init_end < boot_times.heap_init_begin)
		return 0;
	return ticks_to_ns(boot_times.heap_init_end -
			   boot_times.heap_init_begin);
}

static uint64_t heap_dirty_pages(unsigned int node_count)
{
	uint64_t sum = 0;

	for (unsigned int n = 0; n < node_count; n++) {
		const struct heap_node_stats *st = heap_node_stats(n);

		if (st)
			sum += st->dirty_pages;
	}
	return sum;
}

static const char *trace_kind_name(uint8_t kind)
{
	switch (kind) {
	case TRACE_BEGIN:
		return "begin";
	case TRACE_END:
		return "end";
	default:
		return "mark";
	}
}

/* ---- human lines --------------------------------------------------------- */

/*
 * ", CPUs x.xxx-y.yyy GB/s": the spread of the busy-time rates of the
 * workers whose main node is @node, or "" when none scrubbed. It stands in
 * for the per-CPU lines, which are debug only.
 */
static const char *node_cpu_rates(unsigned int node, char *buf, size_t size)
{
	uint64_t lo = ~0ull, hi = 0;

	for (unsigned int c = 0; c < cpu_count && c < NR_CPUS; c++) {
		const struct scrub_cpu_stats *s = &scrub_stats.cpu[c];
		uint64_t r;

		if (!s->bytes || s->node != node)
			continue;
		r = gbps_milli(s->bytes, ticks_to_ns(s->ticks));
		lo = r < lo ? r : lo;
		hi = r > hi ? r : hi;
	}
	if (lo > hi)
		return "";
	snprintf(buf, size, ", CPUs %llu.%03llu-%llu.%03llu GB/s",
		 (unsigned long long)(lo / 1000),
		 (unsigned long long)(lo % 1000),
		 (unsigned long long)(hi / 1000),
		 (unsigned long long)(hi % 1000));
	return buf;
}

/* "scrub: primitive movnti (measured): movnti 9.1, rep stosb 0.8 GB/s". */
static void report_calibration(void)
{
	char buf[160];
	size_t used = 0;

	buf[0] = '\0';
	for (unsigned int i = 0; i < scrub_stats.calib_count; i++) {
		const struct scrub_calib *c = &scrub_stats.calib[i];
		uint64_t ns = ticks_to_ns(c->ticks);
		uint64_t r = gbps_milli(c->bytes, ns ? ns : 1);
		int n = snprintf(buf + used, sizeof(buf) - used,
				 "%s%s %llu.%01llu", i ? ", " : ": ",
				 c->primitive, (unsigned long long)(r / 1000),
				 (unsigned long long)(r % 1000 / 100));

		if (n < 0 || (size_t)n >= sizeof(buf) - used)
			break;
		used += (size_t)n;
	}
	pr_info("scrub: primitive %s (%s)%s%s, calibration %llu us\n",
		arch_scrub_primitive(), scrub_choice_name(scrub_stats.choice),
		buf, scrub_stats.calib_count ? " GB/s" : "",
		(unsigned long long)(ticks_to_ns(scrub_stats.calib_ticks) /
				     1000));
}

static void report_human(const struct bootinfo *bi,
			 const struct audit_result *a)
{
	unsigned int nodes = bi->node_count;
	uint64_t init_ns = heap_init_ns();

	pr_info("heap: %llu pages free in %llu chunks, init %llu us (%s)\n",
		(unsigned long long)heap_free_pages(),
		(unsigned long long)heap_chunk_count(),
		(unsigned long long)(init_ns / 1000),
		heap_mode_name(heap_mode()));
	for (unsigned int n = 0; n < nodes; n++) {
		const struct heap_node_stats *st = heap_node_stats(n);

		if (!st)
			continue;
		pr_info("heap: node %u: %llu of %llu pages free, %llu chunks, "
			"%llu dirty, init %llu us\n",
			n, (unsigned long long)st->free_pages,
			(unsigned long long)st->total_pages,
			(unsigned long long)st->chunks,
			(unsigned long long)st->dirty_pages,
			(unsigned long long)(ticks_to_ns(st->init_ticks) /
					     1000));
	}

	if (scrub_stats.mode != SCRUB_OFF) {
		uint64_t ns = ticks_to_ns(scrub_stats.ticks);
		uint64_t r = gbps_milli(scrub_stats.bytes, ns);
		char rates[64];

		pr_info("scrub: %s, %llu MiB by %u workers in %llu us "
			"(%llu.%03llu GB/s, %s)\n",
			scrub_mode_name(scrub_stats.mode),
			(unsigned long long)(scrub_stats.bytes >> 20),
			scrub_stats.workers, (unsigned long long)(ns / 1000),
			(unsigned long long)(r / 1000),
			(unsigned long long)(r % 1000), arch_scrub_primitive());
		report_calibration();
		for (unsigned int n = 0; n < nodes; n++) {
			const struct scrub_node_stats *s = &scrub_stats.node[n];
			char by[48] = "";

			if (s->helper_of != NUMA_NO_NODE)
				snprintf(by, sizeof(by),
					 " (no CPUs: node %u's workers)",
					 s->helper_of);
			ns = ticks_to_ns(s->ticks);
			r = gbps_milli(s->bytes, ns);
			pr_info("scrub: node %u: %llu MiB in %llu us "
				"(%llu.%03llu GB/s) by %u CPUs%s%s\n",
				n, (unsigned long long)(s->bytes >> 20),
				(unsigned long long)(ns / 1000),
				(unsigned long long)(r / 1000),
				(unsigned long long)(r % 1000),
				cpumask_weight(&s->cpus), by,
				node_cpu_rates(n, rates, sizeof(rates)));
		}
		/* One line per CPU: only at loglevel=3 (the JSON has them). */
		for (unsigned int c = 0; c < cpu_count && c < NR_CPUS; c++) {
			const struct scrub_cpu_stats *s = &scrub_stats.cpu[c];

			if (!s->worker && !s->bytes)
				continue;
			ns = ticks_to_ns(s->ticks);
			r = gbps_milli(s->bytes, ns);
			pr_debug("scrub: cpu %u (node %u): %llu MiB in %u "
				 "units, %llu us (%llu.%03llu GB/s)\n",
				 c, s->node,
				 (unsigned long long)(s->bytes >> 20), s->units,
				 (unsigned long long)(ns / 1000),
				 (unsigned long long)(r / 1000),
				 (unsigned long long)(r % 1000));
		}
	}

	if (stress_stats.ran)
		pr_info("stress: %llu ops in %llu ms on %u CPUs (%llu ops/s), "
			"%llu bytes verified, %llu corruptions%s\n",
			(unsigned long long)stress_stats.ops,
			(unsigned long long)(ticks_to_ns(stress_stats.ticks) /
					     1000000),
			stress_stats.cpus,
			(unsigned long long)stress_ops_per_s(
				stress_stats.ops, stress_stats.ticks),
			(unsigned long long)stress_stats.bytes_verified,
			(unsigned long long)stress_stats.corruptions,
			stress_ok() ? "" : " (FAILED)");

	pr_info("audit: %llu RAM pages = %llu free + %llu allocated + %llu "
		"reserved, %lld lost%s\n",
		(unsigned long long)a->ram_pages,
		(unsigned long long)a->free_pages,
		(unsigned long long)a->allocated_pages,
		(unsigned long long)a->reserved_pages, (long long)a->lost_pages,
		a->ok ? "" : " (NOT OK)");
}

/* ---- JSON sections ------------------------------------------------------ */

#define TABLE(w, key, cols) jw_table((w), (key), (cols), ARRAY_SIZE(cols))

static void json_cpus(struct jw *w)
{
	static const char *const cols[] = {
		"id",	       "hwid",	      "node",	     "package",
		"core",	       "thread",      "online",	     "scrubber",
		"smt_sibling", "fail_reason", "tsc_skew_ns",
	};

	TABLE(w, "cpus", cols);
	for (unsigned int c = 0; c < cpu_count && c < NR_CPUS; c++) {
		const struct cpu_info *ci = &cpu_table[c];

		jw_row(w);
		jw_u64(w, NULL, c);
		jw_u64(w, NULL, ci->hwid);
		jw_u64(w, NULL, ci->node);
		jw_u64(w, NULL, ci->package);
		jw_u64(w, NULL, ci->core);
		jw_u64(w, NULL, ci->thread);
		jw_bool(w, NULL, ci->online);
		jw_bool(w, NULL, scrub_stats.cpu[c].worker);
		jw_bool(w, NULL, ci->smt_sibling);
		jw_str(w, NULL, ci->online ? NULL : ci->fail_reason);
		jw_i64(w, NULL, signed_ticks_to_ns(ci->tsc_skew_ticks));
		jw_row_end(w);
	}
	jw_table_end(w);
}

static void json_nodes(struct jw *w, const struct bootinfo *bi)
{
	static const char *const cols[] = {
		"id",	    "mem_bytes",  "ranges", "cpus",
		"distance", "free_bytes", "fw_id",
	};

	TABLE(w, "nodes", cols);
	for (unsigned int n = 0; n < bi->node_count; n++) {
		const struct heap_node_stats *st = heap_node_stats(n);

		jw_row(w);
		jw_u64(w, NULL, n);
		jw_u64(w, NULL, bootinfo_node_ram_bytes(bi, n));
		jw_arr(w, NULL);
		for (unsigned int i = 0; i < bi->ram_count; i++) {
			if (bi->ram[i].node != n)
				continue;
			jw_arr(w, NULL);
			jw_u64(w, NULL, pa_val(bi->ram[i].start));
			jw_u64(w, NULL, pa_val(bi->ram[i].end));
			jw_arr_end(w);
		}
		jw_arr_end(w);
		jw_arr(w, NULL);
		for (unsigned int c = 0; c < cpu_count && c < NR_CPUS; c++)
			if (cpu_table[c].node == n)
				jw_u64(w, NULL, c);
		jw_arr_end(w);
		jw_arr(w, NULL);
		for (unsigned int m = 0; m < bi->node_count; m++)
			jw_u64(w, NULL, bi->distance[n][m]);
		jw_arr_end(w);
		jw_u64(w, NULL, st ? st->free_pages * PAGE_SIZE : 0);
		if (bi->node_fw_id[n] == NODE_FW_ID_NONE)
			jw_str(w, NULL, NULL); /* null */
		else
			jw_u64(w, NULL, bi->node_fw_id[n]);
		jw_row_end(w);
	}
	jw_table_end(w);
}

/* Rows printed for memmap.reserved at most (docs/report-format.md). */
#define REPORT_RESERVED_MAX 64

/*
 * How much the boundary between regions @i and @i + 1 is worth keeping: a
 * change of name first (so a few named regions - kernel, initrd, mem= -
 * survive among hundreds of firmware ones), then the width of the gap.
 */
static uint64_t reserved_gap(const struct bootmem_region *r, unsigned int i)
{
	const uint64_t name_change = 1ull << 63;
	uint64_t gap = pa_val(r[i + 1].start) - pa_val(r[i].end);

	if (gap >= name_change)
		gap = name_change - 1;
	if (strncmp(r[i].name, r[i + 1].name, sizeof(r[i].name)))
		gap |= name_change;
	return gap;
}

/*
 * How many of the gaps between the @count regions of @r to keep as row
 * boundaries so that at most REPORT_RESERVED_MAX rows remain, and which:
 * every gap wider than *@thresh, then gaps equal to it, lowest address
 * first, up to *@ties of them. The widest gaps (reserved_gap()) are kept,
 * so the rows that merge are regions of one name, closest together first. Found by bisecting the width
 * instead of sorting: no scratch array.
 */
static void reserved_cuts(const struct bootmem_region *r, unsigned int count,
			  uint64_t *thresh, unsigned int *ties)
{
	const unsigned int want = REPORT_RESERVED_MAX - 1;
	uint64_t lo = 0, hi = ~0ull; /* count(gap >= lo) >= want */
	unsigned int above = 0;

	while (lo < hi) {
		uint64_t mid = lo + (hi - lo) / 2 + 1;
		unsigned int n = 0;

		for (unsigned int i = 0; i + 1 < count; i++)
			n += reserved_gap(r, i) >= mid;
		if (n >= want)
			lo = mid;
		else
			hi = mid - 1;
	}
	for (unsigned int i = 0; i + 1 < count; i++)
		above += reserved_gap(r, i) > lo;
	*thresh = lo;
	*ties = want - above;
}

/*
 * memmap.reserved: bootmem's reserved table, one row per region; beyond
 * REPORT_RESERVED_MAX regions (real firmware can describe hundreds),
 * neighbours are merged into one row [first start, last end, name]: those
 * of one name first, closest together first; the name is kept when they
 * share it, else "merged". Every reserved
 * byte stays inside some row; memmap.reserved_regions has the true count.
 * report=full lists every region.
 */
static void json_reserved(struct jw *w)
{
	unsigned int count = 0, ties = 0;
	const struct bootmem_region *r = bootmem_reserved_regions(&count);
	uint64_t thresh = ~0ull;
	unsigned int first = 0;

	bool bounded;

	if (!r)
		count = 0;
	bounded = opts.report != REPORT_FULL && count > REPORT_RESERVED_MAX;
	if (bounded)
		reserved_cuts(r, count, &thresh, &ties);
	jw_arr(w, "reserved");
	for (unsigned int i = 0; i < count; i++) {
		bool cut = i + 1 == count || !bounded;
		bool same = true;

		if (!cut) {
			uint64_t gap = reserved_gap(r, i);

			cut = gap > thresh || (gap == thresh && ties);
			if (gap == thresh && ties)
				ties--;
		}
		if (!cut)
			continue;
		for (unsigned int j = first + 1; j <= i; j++)
			same &= !strncmp(r[j].name, r[first].name,
					 sizeof(r[j].name));
		jw_arr(w, NULL);
		jw_u64(w, NULL, pa_val(r[first].start));
		jw_u64(w, NULL, pa_val(r[i].end));
		if (same)
			jw_strn(w, NULL, r[first].name, sizeof(r[first].name));
		else
			jw_str(w, NULL, "merged");
		jw_arr_end(w);
		first = i + 1;
	}
	jw_arr_end(w);
	jw_u64(w, "reserved_regions", count);
}

static void json_memmap(struct jw *w, const struct bootinfo *bi)
{
	uint64_t fw_reserved = 0;

	for (unsigned int i = 0; i < bi->reserved_count; i++)
		fw_reserved += pa_val(bi->reserved[i].end) -
			       pa_val(bi->reserved[i].start);

	jw_obj(w, "memmap");
	jw_u64(w, "ram_bytes", bootinfo_ram_bytes(bi));
	jw_u64(w, "reserved_bytes", bootmem_reserved_ram_bytes());
	jw_u64(w, "firmware_reserved_bytes", fw_reserved);
	jw_arr(w, "ranges");
	for (unsigned int i = 0; i < bi->ram_count; i++) {
		jw_arr(w, NULL);
		jw_u64(w, NULL, pa_val(bi->ram[i].start));
		jw_u64(w, NULL, pa_val(bi->ram[i].end));
		jw_u64(w, NULL, bi->ram[i].node);
		jw_arr_end(w);
	}
	jw_arr_end(w);
	json_reserved(w);
	jw_obj_end(w);

	jw_obj(w, "bootmem");
	jw_u64(w, "allocated_bytes", bootmem_allocated_bytes());
	jw_u64(w, "allocations", bootmem_allocation_count());
	jw_u64(w, "frametable_bytes", frametable_bytes());
	jw_u64(w, "frametable_pieces", frametable_pieces());
	jw_u64(w, "frametable_left_out_bytes", frametable_left_out_bytes());
	jw_u64(w, "merged_regions", bootmem_merged_regions(NULL));
	jw_obj_end(w);
}

static void json_heap(struct jw *w, unsigned int nodes)
{
	static const char *const cols[] = {
		"node",	       "free_pages",  "chunks",
		"init_ns",     "total_pages", "dirty_pages",
		"free_chunks", "ranges",      "lock_max_ns",
	};

	jw_obj(w, "heap");
	jw_str(w, "mode", heap_mode_name(heap_mode()));
	jw_u64(w, "init_ns", heap_init_ns());
	jw_u64(w, "chunks", heap_chunk_count());
	jw_u64(w, "total_pages", heap_total_pages());
	jw_u64(w, "free_pages", heap_free_pages());
	jw_u64(w, "max_order", MAX_ORDER);
	jw_u64(w, "max_free_order", MAX_FREE_ORDER);
	jw_u64(w, "allocated_pages", heap_allocated_pages());
	jw_u64(w, "dirty_pages", heap_dirty_pages(nodes));
	TABLE(w, "per_node", cols);
	for (unsigned int n = 0; n < nodes; n++) {
		const struct heap_node_stats *st = heap_node_stats(n);
		unsigned int rc = 0;

		if (!st)
			continue;
		heap_node_ranges(n, &rc);
		jw_row(w);
		jw_u64(w, NULL, n);
		jw_u64(w, NULL, st->free_pages);
		jw_u64(w, NULL, st->chunks);
		jw_u64(w, NULL, ticks_to_ns(st->init_ticks));
		jw_u64(w, NULL, st->total_pages);
		jw_u64(w, NULL, st->dirty_pages);
		jw_u64(w, NULL, st->free_chunks);
		jw_u64(w, NULL, rc);
		jw_u64(w, NULL, ticks_to_ns(st->lock_max_ticks));
		jw_row_end(w);
	}
	jw_table_end(w);
	jw_obj_end(w);
}

static void json_scrub(struct jw *w, unsigned int nodes)
{
	static const char *const node_cols[] = {
		"node",	     "bytes", "ns",	    "cpus",
		"helper_of", "gbps",  "unit_bytes",
	};
	static const char *const cpu_cols[] = {
		"cpu", "node", "bytes", "ns", "units", "gbps", "idle_ns",
	};
	static const char *const calib_cols[] = {
		"primitive",
		"gbps",
		"bytes",
		"ns",
	};
	const struct scrub_stats *s = &scrub_stats;
	uint64_t ns = ticks_to_ns(s->ticks);
	unsigned int c;

	jw_obj(w, "scrub");
	jw_str(w, "mode", scrub_mode_name(s->mode));
	jw_u64(w, "ns", ns);
	jw_u64(w, "bytes", s->bytes);
	jw_u64(w, "workers", s->workers);
	jw_str(w, "primitive", arch_scrub_primitive());
	jw_str(w, "primitive_by", scrub_choice_name(s->choice));
	jw_u64(w, "calibration_ns", ticks_to_ns(s->calib_ticks));
	TABLE(w, "calibration", calib_cols);
	for (unsigned int i = 0; i < s->calib_count; i++) {
		const struct scrub_calib *sc = &s->calib[i];
		uint64_t cns = ticks_to_ns(sc->ticks);

		jw_row(w);
		jw_str(w, NULL, sc->primitive);
		jw_milli(w, NULL, gbps_milli(sc->bytes, cns ? cns : 1));
		jw_u64(w, NULL, sc->bytes);
		jw_u64(w, NULL, cns);
		jw_row_end(w);
	}
	jw_table_end(w);
	jw_u64(w, "heap_ready_ns", ticks_to_ns(s->heap_ready_ticks));
	jw_u64(w, "all_clean_ns", ticks_to_ns(s->all_clean_ticks));
	jw_u64(w, "unit_bytes", s->unit_bytes);
	jw_milli(w, "gbps", gbps_milli(s->bytes, ns));
	/* inject=scrub-stop:N: the worker that quit (its units were redone). */
	if (s->stopped_cpu >= 0)
		jw_u64(w, "stopped_cpu", (uint64_t)s->stopped_cpu);
	else
		jw_null(w, "stopped_cpu");
	TABLE(w, "per_node", node_cols);
	for (unsigned int n = 0; n < nodes; n++) {
		const struct scrub_node_stats *sn = &s->node[n];
		uint64_t nns = ticks_to_ns(sn->ticks);

		jw_row(w);
		jw_u64(w, NULL, n);
		jw_u64(w, NULL, sn->bytes);
		jw_u64(w, NULL, nns);
		jw_arr(w, NULL);
		for_each_cpu_in (c, &sn->cpus)
			jw_u64(w, NULL, c);
		jw_arr_end(w);
		if (sn->helper_of == NUMA_NO_NODE)
			jw_null(w, NULL);
		else
			jw_u64(w, NULL, sn->helper_of);
		jw_milli(w, NULL, gbps_milli(sn->bytes, nns));
		jw_u64(w, NULL, sn->unit_bytes);
		jw_row_end(w);
	}
	jw_table_end(w);
	TABLE(w, "per_cpu", cpu_cols);
	for (c = 0; c < cpu_count && c < NR_CPUS; c++) {
		const struct scrub_cpu_stats *sc = &s->cpu[c];
		uint64_t cns = ticks_to_ns(sc->ticks);

		if (!sc->worker && !sc->bytes)
			continue;
		jw_row(w);
		jw_u64(w, NULL, c);
		jw_u64(w, NULL, sc->node);
		jw_u64(w, NULL, sc->bytes);
		jw_u64(w, NULL, cns);
		jw_u64(w, NULL, sc->units);
		jw_milli(w, NULL, gbps_milli(sc->bytes, cns));
		jw_u64(w, NULL, ticks_to_ns(sc->idle_ticks));
		jw_row_end(w);
	}
	jw_table_end(w);
	jw_obj_end(w);
}

static void json_bench(struct jw *w)
{
	static const char *const cols[] = {
		"order",       "node",	   "count", "ns_avg", "ns_max",
		"lock_ns_max", "maint_ns", "mode",  "dirty",
	};

	TABLE(w, "bench", cols);
	for (unsigned int i = 0; i < bench_row_count && i < BENCH_MAX_ROWS;
	     i++) {
		const struct bench_row *b = &bench_rows[i];

		jw_row(w);
		jw_u64(w, NULL, b->order);
		jw_u64(w, NULL, b->node);
		jw_u64(w, NULL, b->count);
		jw_u64(w, NULL, b->ns_avg);
		jw_u64(w, NULL, b->ns_max);
		jw_u64(w, NULL, b->lock_ns_max);
		jw_u64(w, NULL, b->maint_ns);
		jw_str(w, NULL, b->mode);
		jw_bool(w, NULL, b->dirty);
		jw_row_end(w);
	}
	jw_table_end(w);
}

static void json_stress(struct jw *w)
{
	static const char *const cols[] = {
		"cpu",	       "ops",	      "ops_per_s", "start_ns",
		"ns",	       "scrub_steps", "scrub_ns",  "bytes_verified",
		"corruptions",
	};
	const struct stress_stats *st = &stress_stats;

	if (!st->ran)
		return;
	jw_obj(w, "stress");
	jw_u64(w, "seconds", st->seconds);
	jw_u64(w, "ns", ticks_to_ns(st->ticks));
	jw_u64(w, "ops", st->ops);
	jw_u64(w, "ops_per_s", stress_ops_per_s(st->ops, st->ticks));
	jw_u64(w, "allocs", st->allocs);
	jw_u64(w, "frees", st->frees);
	jw_u64(w, "alloc_failures", st->alloc_failures);
	jw_u64(w, "bytes_verified", st->bytes_verified);
	jw_u64(w, "corruptions", st->corruptions);
	jw_u64(w, "heap_problems", st->heap_problems);
	jw_u64(w, "free_pages_before", st->free_before);
	jw_u64(w, "free_pages_after", st->free_after);
	jw_bool(w, "baseline_exact", st->baseline_exact);
	jw_bool(w, "zero_check", st->zero_check);
	jw_bool(w, "ok", stress_ok());
	jw_str(w, "fail_reason", st->fail_reason);
	TABLE(w, "per_cpu", cols);
	for (unsigned int c = 0; c < cpu_count && c < NR_CPUS; c++) {
		const struct stress_cpu_stats *pc = &st->cpu[c];

		if (!pc->ran)
			continue;
		jw_row(w);
		jw_u64(w, NULL, c);
		jw_u64(w, NULL, pc->ops);
		jw_u64(w, NULL, stress_ops_per_s(pc->ops, pc->ticks));
		jw_u64(w, NULL, ticks_to_ns(pc->start_ticks));
		jw_u64(w, NULL, ticks_to_ns(pc->ticks));
		jw_u64(w, NULL, pc->scrub_steps);
		jw_u64(w, NULL, ticks_to_ns(pc->scrub_ticks));
		jw_u64(w, NULL, pc->bytes_verified);
		jw_u64(w, NULL, pc->corruptions);
		jw_row_end(w);
	}
	jw_table_end(w);
	jw_obj_end(w);
}

static void json_audit(struct jw *w, const struct audit_result *a)
{
	jw_obj(w, "audit");
	jw_u64(w, "ram_pages", a->ram_pages);
	jw_u64(w, "free_pages", a->free_pages);
	jw_u64(w, "allocated_pages", a->allocated_pages);
	jw_u64(w, "reserved_pages", a->reserved_pages);
	jw_i64(w, "lost_pages", a->lost_pages);
	jw_u64(w, "problems", a->problems);
	jw_bool(w, "ok", a->ok);
	jw_obj_end(w);
}

/*
 * trace_summary: the detail events (scrub units) summed per node, printed
 * in every trace mode; with trace=summary it is all the report has of them.
 */
static void json_trace_summary(struct jw *w, unsigned int nodes)
{
	static const char *const cols[] = {
		"name",	    "node",    "count",	  "bytes",
		"first_ns", "last_ns", "busy_ns",
	};

	TABLE(w, "trace_summary", cols);
	for (unsigned int n = 0; n < nodes; n++) {
		struct trace_summary ts;

		if (!trace_summary_node(n, &ts))
			continue;
		jw_row(w);
		jw_str(w, NULL, ts.name);
		jw_u64(w, NULL, n);
		jw_u64(w, NULL, ts.count);
		jw_u64(w, NULL, ts.arg1);
		jw_u64(w, NULL, ticks_to_ns_since_entry(ts.first_ticks));
		jw_u64(w, NULL, ticks_to_ns_since_entry(ts.last_ticks));
		jw_u64(w, NULL, ticks_to_ns(ts.busy_ticks));
		jw_row_end(w);
	}
	jw_table_end(w);
}

static void json_trace(struct jw *w, unsigned int nodes)
{
	static const char *const cols[] = {
		"name", "cpu", "ns", "kind", "arg0", "arg1",
	};
	bool any_overflow = false;

	jw_str(w, "trace_mode", trace_full() ? "full" : "summary");
	TABLE(w, "trace", cols);
	for (unsigned int c = 0; c < cpu_count && c < NR_CPUS; c++) {
		unsigned int count = 0;
		bool overflowed = false;
		const struct trace_event *ev =
			trace_events(c, &count, &overflowed);

		any_overflow |= overflowed;
		for (unsigned int i = 0; ev && i < count; i++) {
			jw_row(w);
			jw_str(w, NULL, ev[i].name);
			jw_u64(w, NULL, ev[i].cpu);
			jw_u64(w, NULL, ticks_to_ns_since_entry(ev[i].ticks));
			jw_str(w, NULL, trace_kind_name(ev[i].kind));
			jw_u64(w, NULL, ev[i].arg0);
			jw_u64(w, NULL, ev[i].arg1);
			jw_row_end(w);
		}
	}
	jw_table_end(w);
	json_trace_summary(w, nodes);
	jw_bool(w, "trace_overflow", any_overflow);
	jw_arr(w, "trace_overflow_cpus");
	for (unsigned int c = 0; c < cpu_count && c < NR_CPUS; c++) {
		unsigned int count;
		bool overflowed;

		trace_events(c, &count, &overflowed);
		if (overflowed)
			jw_u64(w, NULL, c);
	}
	jw_arr_end(w);
}

/**
 * report_print() - human lines, the KEEL-REPORT JSON line, the verdict.
 * @bi: the sanitised bootinfo of this boot.
 * @a: the audit result.
 * @fail_reason: why the boot failed, or NULL.
 *
 * Return: true when the verdict printed is PASS.
 */
bool report_print(const struct bootinfo *bi, const struct audit_result *a,
		  const char *fail_reason)
{
	struct jw w;
	unsigned int nodes = bi->node_count;
	bool pass;

	if (!fail_reason && !a->ok)
		fail_reason =
			a->lost_pages ? "audit: lost pages" : "audit: not ok";
	pass = !fail_reason;

	report_human(bi, a);

	console_puts("KEEL-REPORT ");
	jw_init(&w);
	jw_obj(&w, NULL);
	jw_u64(&w, "schema", 1);
	jw_str(&w, "arch", arch_name);
	jw_str(&w, "boot", boot_protocol_name(bi->protocol));
	jw_strn(&w, "loader", bi->loader, sizeof(bi->loader));
	jw_strn(&w, "cmdline", bi->cmdline, sizeof(bi->cmdline));
	if (bi->el >= 0)
		jw_u64(&w, "el", (uint64_t)bi->el);

	jw_obj(&w, "timer");
	jw_str(&w, "source", bi->timer_source ? bi->timer_source : "unknown");
	jw_u64(&w, "hz", bi->timer_hz ? bi->timer_hz : arch_ticks_hz());
	jw_str(&w, "calibrated_by",
	       bi->timer_calibrated_by ? bi->timer_calibrated_by : "unknown");
	jw_obj_end(&w);

	json_cpus(&w);
	json_nodes(&w, bi);
	json_memmap(&w, bi);
	json_heap(&w, nodes);
	json_scrub(&w, nodes);

	jw_obj(&w, "cachemaint");
	jw_str(&w, "mode", cachemaint_mode_name(cachemaint_mode()));
	jw_u64(&w, "ops", cachemaint_stats.ops);
	jw_u64(&w, "bytes", cachemaint_stats.bytes);
	jw_u64(&w, "batches", cachemaint_stats.batches);
	jw_obj_end(&w);

	json_bench(&w);
	json_stress(&w);
	json_audit(&w, a);
	json_trace(&w, nodes);

	jw_u64(&w, "online_cpus", smp_online_count());
	jw_u64(&w, "warnings", printk_warn_count);
	jw_u64(&w, "errors", printk_err_count);
	jw_u64(&w, "fixups", bi->fixups);
	jw_u64(&w, "dropped_ram", bi->dropped_ram);
	jw_u64(&w, "dropped_reserved", bi->dropped_reserved);
	jw_u64(&w, "merged_reserved", bi->merged_reserved);
	jw_u64(&w, "dropped_cpus", bi->dropped_cpus);
	jw_u64(&w, "dropped_nodes", bi->dropped_nodes);
	jw_u64(&w, "report_ns", at_ns(boot_times.report));
	jw_str(&w, "result", pass ? "pass" : "fail");
	jw_str(&w, "fail_reason", fail_reason);
	/* Last: the length of the JSON text, this key included. */
	jw_end_with_length(&w, "report_bytes");
	jw_flush(&w);
	console_puts("\n");

	if (pass)
		console_puts("KEEL: PASS\n");
	else
		console_printf("KEEL: FAIL %s\n", fail_reason);
	return pass;
}
