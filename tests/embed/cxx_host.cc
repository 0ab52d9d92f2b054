// SPDX-License-Identifier: MIT
/*
 * A C++ host (make embed: embed-cxx): every header a host includes, beside
 * <zlib.h>, compiled as C++ and linked against libkeel-heap. Without the
 * headers' extern "C" the calls below would name C++-mangled symbols that
 * the archive does not have, and the link would fail.
 */
#include <keel/bootmem.h>
#include <keel/cachemaint.h>
#include <keel/frametable.h>
#include <keel/heap.h>
#include <keel/heap_boot.h>
#include <keel/heap_check.h>
#include <keel/hooks.h>
#include <keel/numa.h>

#include <cstdio>
#include <zlib.h>

int main()
{
	/* Linked, not called: opening the heap is embed.c's test. */
	decltype(&keel_numa_init) volatile open = keel_numa_init;
	decltype(&bootmem_init) volatile init = bootmem_init;
	decltype(&heap_alloc) volatile alloc = heap_alloc;

	struct heap_stats st; /* the struct beside the call, as in C */

	if (!open || !init || !alloc ||
	    heap_stats(HEAP_ALL_NODES, 0, &st) != 0 || st.total_pages != 0 ||
	    st.free_pages != 0) {
		std::printf("embed-cxx: FAIL (a closed heap has pages)\n");
		return 1;
	}
	std::printf("embed-cxx: PASS (zlib %s beside keel's headers)\n",
		    ZLIB_VERSION);
	return 0;
}
