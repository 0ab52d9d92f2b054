/* SPDX-License-Identifier: MIT */
/*
 * The boot report (DESIGN §7).
 *
 * Owns: the human summary lines, the single "KEEL-REPORT {json}" line and
 * the "KEEL: PASS" / "KEEL: FAIL <reason>" verdict, plus the benchmark row
 * table the self-benchmark fills (empty until it exists).
 *
 * The JSON is produced by a tiny streaming writer: a 256-byte staging buffer
 * flushed to console_write(), so the report needs no heap and no large
 * buffer, and the whole JSON document is one line (no newline until the
 * end). Comma state lives on a small stack, one entry per open container.
 * No floating point: the kernel may be built without FP/SIMD registers, so
 * rates are printed as fixed-point thousandths ("1.234").
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

/* ---- streaming JSON writer ------------------------------------------- */

#define JW_MAX_DEPTH 8
#define JW_BUF	     256

struct jw {
	char buf[JW_BUF];
	size_t len;
	unsigned int depth;
	bool first[JW_MAX_DEPTH]; /* next item is the first of its level */
};

static void jw_flush(struct jw *w)
{
	if (w->len)
		console_write(w->buf, w->len);
	w->len = 0;
}

static void jw_raw(struct jw *w, const char *s, size_t n)
{
	while (n) {
		size_t room = JW_BUF - w->len;
		size_t k = n < room ? n : room;

		memcpy(w->buf + w->len, s, k);
		w->len += k;
		s += k;
		n -= k;
		if (w->len == JW_BUF)
			jw_flush(w);
	}
}

static void jw_ch(struct jw *w, char c)
{
	jw_raw(w, &c, 1);
}

static void jw_udec(struct jw *w, uint64_t v)
{
	char tmp[20];
	unsigned int i = sizeof(tmp);

	do {
		tmp[--i] = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	jw_raw(w, tmp + i, sizeof(tmp) - i);
}

/*
 * Quoted, escaped string of at most @max bytes (stops at NUL). Everything
 * outside printable ASCII is \u-escaped so the line is valid JSON whatever
 * bytes the firmware or the command line contained.
 */
static void jw_qstr(struct jw *w, const char *s, size_t max)
{
	static const char hex[] = "0123456789abcdef";

	jw_ch(w, '"');
	for (size_t i = 0; s && i < max && s[i]; i++) {
		unsigned char c = (unsigned char)s[i];

		if (c == '"' || c == '\\') {
			jw_ch(w, '\\');
			jw_ch(w, (char)c);
		} else if (c < 0x20 || c >= 0x7f) {
			char e[6] = {'\\', 'u', '0', '0'};

			e[4] = hex[c >> 4];
			e[5] = hex[c & 15];
			jw_raw(w, e, sizeof(e));
		} else {
			jw_ch(w, (char)c);
		}
	}
	jw_ch(w, '"');
}

/* Separator and key for the next item (@key NULL inside arrays). */
static void jw_item(struct jw *w, const char *key)
{
	if (!w->first[w->depth])
		jw_ch(w, ',');
	w->first[w->depth] = false;
	if (key) {
		jw_qstr(w, key, 64);
		jw_ch(w, ':');
	}
}

static void jw_open(struct jw *w, const char *key, char c)
{
	jw_item(w, key);
	jw_ch(w, c);
	/* Deeper than the stack: stop tracking commas rather than overflow. */
	if (w->depth + 1 < JW_MAX_DEPTH)
		w->depth++;
	w->first[w->depth] = true;
}

static void jw_close(struct jw *w, char c)
{
	jw_ch(w, c);
	if (w->depth)
		w->depth--;
}

#define jw_obj(w, key) jw_open((w), (key), '{')
#define jw_obj_end(w)  jw_close((w), '}')
#define jw_arr(w, key) jw_open((w), (key), '[')
#define jw_arr_end(w)  jw_close((w), ']')

static void jw_u64(struct jw *w, const char *key, uint64_t v)
{
	jw_item(w, key);
	jw_udec(w, v);
}

static void jw_i64(struct jw *w, const char *key, int64_t v)
{
	jw_item(w, key);
	if (v < 0) {
		jw_ch(w, '-');
		jw_udec(w, (uint64_t)0 - (uint64_t)v);
	} else {
		jw_udec(w, (uint64_t)v);
	}
}

/* A non-negative fixed-point number given in thousandths: 1234 -> 1.234. */
static void jw_milli(struct jw *w, const char *key, uint64_t milli)
{
	uint64_t frac = milli % 1000;

	jw_item(w, key);
	jw_udec(w, milli / 1000);
	jw_ch(w, '.');
	jw_ch(w, (char)('0' + frac / 100));
	jw_ch(w, (char)('0' + frac / 10 % 10));
	jw_ch(w, (char)('0' + frac % 10));
}

static void jw_str(struct jw *w, const char *key, const char *s)
{
	jw_item(w, key);
	if (s)
		jw_qstr(w, s, ~(size_t)0);
	else
		jw_raw(w, "null", 4);
}

static void jw_strn(struct jw *w, const char *key, const char *s, size_t max)
{
	jw_item(w, key);
	jw_qstr(w, s, max);
}

static void jw_bool(struct jw *w, const char *key, bool v)
{
	jw_item(w, key);
	if (v)
		jw_raw(w, "true", 4);
	else
		jw_raw(w, "false", 5);
}

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

static uint64_t node_ram_bytes(const struct bootinfo *bi, uint32_t node)
{
	uint64_t sum = 0;

	for (unsigned int i = 0; i < bi->ram_count; i++)
		if (bi->ram[i].node == node)
			sum += pa_val(bi->ram[i].end) -
			       pa_val(bi->ram[i].start);
	return sum;
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

		pr_info("scrub: %s, %llu MiB by %u workers in %llu us "
			"(%llu.%03llu GB/s, %s)\n",
			scrub_mode_name(scrub_stats.mode),
			(unsigned long long)(scrub_stats.bytes >> 20),
			scrub_stats.workers, (unsigned long long)(ns / 1000),
			(unsigned long long)(r / 1000),
			(unsigned long long)(r % 1000), arch_scrub_primitive());
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
				"(%llu.%03llu GB/s) by %u CPUs%s\n",
				n, (unsigned long long)(s->bytes >> 20),
				(unsigned long long)(ns / 1000),
				(unsigned long long)(r / 1000),
				(unsigned long long)(r % 1000),
				cpumask_weight(&s->cpus), by);
		}
		for (unsigned int c = 0; c < cpu_count && c < NR_CPUS; c++) {
			const struct scrub_cpu_stats *s = &scrub_stats.cpu[c];

			if (!s->worker && !s->bytes)
				continue;
			ns = ticks_to_ns(s->ticks);
			r = gbps_milli(s->bytes, ns);
			pr_info("scrub: cpu %u (node %u): %llu MiB in %u "
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

static void json_cpus(struct jw *w)
{
	jw_arr(w, "cpus");
	for (unsigned int c = 0; c < cpu_count && c < NR_CPUS; c++) {
		const struct cpu_info *ci = &cpu_table[c];

		jw_obj(w, NULL);
		jw_u64(w, "id", c);
		jw_u64(w, "hwid", ci->hwid);
		jw_u64(w, "node", ci->node);
		jw_u64(w, "package", ci->package);
		jw_u64(w, "core", ci->core);
		jw_u64(w, "thread", ci->thread);
		jw_bool(w, "online", ci->online);
		jw_bool(w, "scrubber", scrub_stats.cpu[c].worker);
		jw_bool(w, "smt_sibling", ci->smt_sibling);
		jw_str(w, "fail_reason", ci->online ? NULL : ci->fail_reason);
		jw_i64(w, "tsc_skew_ns",
		       signed_ticks_to_ns(ci->tsc_skew_ticks));
		jw_obj_end(w);
	}
	jw_arr_end(w);
}

static void json_nodes(struct jw *w, const struct bootinfo *bi)
{
	jw_arr(w, "nodes");
	for (unsigned int n = 0; n < bi->node_count; n++) {
		const struct heap_node_stats *st = heap_node_stats(n);

		jw_obj(w, NULL);
		jw_u64(w, "id", n);
		jw_u64(w, "mem_bytes", node_ram_bytes(bi, n));
		jw_arr(w, "ranges");
		for (unsigned int i = 0; i < bi->ram_count; i++) {
			if (bi->ram[i].node != n)
				continue;
			jw_arr(w, NULL);
			jw_u64(w, NULL, pa_val(bi->ram[i].start));
			jw_u64(w, NULL, pa_val(bi->ram[i].end));
			jw_arr_end(w);
		}
		jw_arr_end(w);
		jw_arr(w, "cpus");
		for (unsigned int c = 0; c < cpu_count && c < NR_CPUS; c++)
			if (cpu_table[c].node == n)
				jw_u64(w, NULL, c);
		jw_arr_end(w);
		jw_arr(w, "distance");
		for (unsigned int m = 0; m < bi->node_count; m++)
			jw_u64(w, NULL, bi->distance[n][m]);
		jw_arr_end(w);
		jw_u64(w, "free_bytes", st ? st->free_pages * PAGE_SIZE : 0);
		jw_obj_end(w);
	}
	jw_arr_end(w);
}

static void json_memmap(struct jw *w, const struct bootinfo *bi)
{
	const struct bootmem_region *r;
	unsigned int count;
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
	jw_arr(w, "reserved");
	r = bootmem_reserved_regions(&count);
	for (unsigned int i = 0; r && i < count; i++) {
		jw_arr(w, NULL);
		jw_u64(w, NULL, pa_val(r[i].start));
		jw_u64(w, NULL, pa_val(r[i].end));
		jw_strn(w, NULL, r[i].name, sizeof(r[i].name));
		jw_arr_end(w);
	}
	jw_arr_end(w);
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
	jw_arr(w, "per_node");
	for (unsigned int n = 0; n < nodes; n++) {
		const struct heap_node_stats *st = heap_node_stats(n);
		unsigned int rc = 0;

		if (!st)
			continue;
		heap_node_ranges(n, &rc);
		jw_obj(w, NULL);
		jw_u64(w, "node", n);
		jw_u64(w, "free_pages", st->free_pages);
		jw_u64(w, "chunks", st->chunks);
		jw_u64(w, "init_ns", ticks_to_ns(st->init_ticks));
		jw_u64(w, "total_pages", st->total_pages);
		jw_u64(w, "dirty_pages", st->dirty_pages);
		jw_u64(w, "free_chunks", st->free_chunks);
		jw_u64(w, "ranges", rc);
		jw_u64(w, "lock_max_ns", ticks_to_ns(st->lock_max_ticks));
		jw_obj_end(w);
	}
	jw_arr_end(w);
	jw_obj_end(w);
}

static void json_scrub(struct jw *w, unsigned int nodes)
{
	const struct scrub_stats *s = &scrub_stats;
	uint64_t ns = ticks_to_ns(s->ticks);
	unsigned int c;

	jw_obj(w, "scrub");
	jw_str(w, "mode", scrub_mode_name(s->mode));
	jw_u64(w, "ns", ns);
	jw_u64(w, "bytes", s->bytes);
	jw_u64(w, "workers", s->workers);
	jw_str(w, "primitive", arch_scrub_primitive());
	jw_u64(w, "heap_ready_ns", ticks_to_ns(s->heap_ready_ticks));
	jw_u64(w, "all_clean_ns", ticks_to_ns(s->all_clean_ticks));
	jw_u64(w, "unit_bytes", s->unit_bytes);
	jw_milli(w, "gbps", gbps_milli(s->bytes, ns));
	/* inject=scrub-stop:N: the worker that quit (its units were redone). */
	if (s->stopped_cpu >= 0)
		jw_u64(w, "stopped_cpu", (uint64_t)s->stopped_cpu);
	else
		jw_str(w, "stopped_cpu", NULL);
	jw_arr(w, "per_node");
	for (unsigned int n = 0; n < nodes; n++) {
		const struct scrub_node_stats *sn = &s->node[n];
		uint64_t nns = ticks_to_ns(sn->ticks);

		jw_obj(w, NULL);
		jw_u64(w, "node", n);
		jw_u64(w, "bytes", sn->bytes);
		jw_u64(w, "ns", nns);
		jw_arr(w, "cpus");
		for_each_cpu_in (c, &sn->cpus)
			jw_u64(w, NULL, c);
		jw_arr_end(w);
		if (sn->helper_of == NUMA_NO_NODE)
			jw_str(w, "helper_of", NULL);
		else
			jw_u64(w, "helper_of", sn->helper_of);
		jw_milli(w, "gbps", gbps_milli(sn->bytes, nns));
		jw_obj_end(w);
	}
	jw_arr_end(w);
	jw_arr(w, "per_cpu");
	for (c = 0; c < cpu_count && c < NR_CPUS; c++) {
		const struct scrub_cpu_stats *sc = &s->cpu[c];
		uint64_t cns = ticks_to_ns(sc->ticks);

		if (!sc->worker && !sc->bytes)
			continue;
		jw_obj(w, NULL);
		jw_u64(w, "cpu", c);
		jw_u64(w, "node", sc->node);
		jw_u64(w, "bytes", sc->bytes);
		jw_u64(w, "ns", cns);
		jw_u64(w, "units", sc->units);
		jw_milli(w, "gbps", gbps_milli(sc->bytes, cns));
		jw_obj_end(w);
	}
	jw_arr_end(w);
	jw_obj_end(w);
}

static void json_bench(struct jw *w)
{
	jw_arr(w, "bench");
	for (unsigned int i = 0; i < bench_row_count && i < BENCH_MAX_ROWS;
	     i++) {
		const struct bench_row *b = &bench_rows[i];

		jw_obj(w, NULL);
		jw_u64(w, "order", b->order);
		jw_u64(w, "node", b->node);
		jw_u64(w, "count", b->count);
		jw_u64(w, "ns_avg", b->ns_avg);
		jw_u64(w, "ns_max", b->ns_max);
		jw_u64(w, "lock_ns_max", b->lock_ns_max);
		jw_u64(w, "maint_ns", b->maint_ns);
		jw_str(w, "mode", b->mode);
		jw_bool(w, "dirty", b->dirty);
		jw_obj_end(w);
	}
	jw_arr_end(w);
}

static void json_stress(struct jw *w)
{
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
	jw_arr(w, "per_cpu");
	for (unsigned int c = 0; c < cpu_count && c < NR_CPUS; c++) {
		const struct stress_cpu_stats *pc = &st->cpu[c];

		if (!pc->ran)
			continue;
		jw_obj(w, NULL);
		jw_u64(w, "cpu", c);
		jw_u64(w, "ops", pc->ops);
		jw_u64(w, "ops_per_s", stress_ops_per_s(pc->ops, pc->ticks));
		jw_u64(w, "start_ns", ticks_to_ns(pc->start_ticks));
		jw_u64(w, "ns", ticks_to_ns(pc->ticks));
		jw_u64(w, "scrub_steps", pc->scrub_steps);
		jw_u64(w, "scrub_ns", ticks_to_ns(pc->scrub_ticks));
		jw_u64(w, "bytes_verified", pc->bytes_verified);
		jw_u64(w, "corruptions", pc->corruptions);
		jw_obj_end(w);
	}
	jw_arr_end(w);
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

static void json_trace(struct jw *w)
{
	bool any_overflow = false;

	jw_arr(w, "trace");
	for (unsigned int c = 0; c < cpu_count && c < NR_CPUS; c++) {
		unsigned int count = 0;
		bool overflowed = false;
		const struct trace_event *ev =
			trace_events(c, &count, &overflowed);

		any_overflow |= overflowed;
		for (unsigned int i = 0; ev && i < count; i++) {
			jw_obj(w, NULL);
			jw_str(w, "name", ev[i].name);
			jw_u64(w, "cpu", ev[i].cpu);
			jw_u64(w, "ns", ticks_to_ns_since_entry(ev[i].ticks));
			jw_str(w, "kind", trace_kind_name(ev[i].kind));
			if (ev[i].arg0 || ev[i].arg1) {
				jw_u64(w, "arg0", ev[i].arg0);
				jw_u64(w, "arg1", ev[i].arg1);
			}
			jw_obj_end(w);
		}
	}
	jw_arr_end(w);
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
	struct jw w = {.len = 0, .depth = 0, .first = {true}};
	unsigned int nodes = bi->node_count;
	bool pass;

	if (!fail_reason && !a->ok)
		fail_reason =
			a->lost_pages ? "audit: lost pages" : "audit: not ok";
	pass = !fail_reason;

	report_human(bi, a);

	console_puts("KEEL-REPORT ");
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
	json_trace(&w);

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
	jw_obj_end(&w);
	jw_flush(&w);
	console_puts("\n");

	if (pass)
		console_puts("KEEL: PASS\n");
	else
		console_printf("KEEL: FAIL %s\n", fail_reason);
	return pass;
}
