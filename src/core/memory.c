/*
 * Payload memory: zeroed, 64-byte aligned (a block512 block is one cache line).
 *
 * Payloads of 2 MiB and more are anonymous mappings aligned to 2 MiB and advised with
 * MADV_HUGEPAGE: a DRAM-sized filter probed at random otherwise takes a TLB miss on almost
 * every lookup, and 2 MiB pages cut page walks by a factor of 512 in page count. Mappings
 * are zero-filled by the kernel, so no memset touches the whole filter up front.
 */
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "core/internal.h"

size_t fl_payload_mapped(size_t bytes) {
    if (bytes > SIZE_MAX - FL_PAYLOAD_SLACK - FL_HUGE_PAGE) return 0;
    size_t need = bytes + FL_PAYLOAD_SLACK;
    return need < FL_HUGE_PAGE ? 0 : (need + FL_HUGE_PAGE - 1) & ~(size_t)(FL_HUGE_PAGE - 1);
}

fl_status fl_payload_alloc(fl_filter *f, size_t bytes) {
    f->data = NULL;
    f->bytes = bytes;
    f->mapped = 0;
    f->huge_pages = 0;
    /* FL_PAYLOAD_SLACK zero bytes follow the payload: a 12-bit cuckoo lookup loads 8 bytes
     * at its 6-byte bucket (kernels/kernels.h). They are never written nor saved. */
    if (bytes > SIZE_MAX - FL_PAYLOAD_SLACK - FL_HUGE_PAGE) return FL_ERR_TOO_LARGE;
    size_t need = bytes + FL_PAYLOAD_SLACK;
    if (!fl_payload_mapped(bytes)) {
        /* posix_memalign takes any size: the payload and its slack, not rounded up to a
         * multiple of 64 as aligned_alloc would want (that rounding cost a small filter up
         * to 63 bytes, a quarter of a 100-key Bloom filter's payload). */
        void *p = NULL;
        if (posix_memalign(&p, 64, need) != 0) return FL_ERR_NO_MEMORY;
        memset(p, 0, need);
        f->data = p;
        return FL_OK;
    }
    /* Over-map by one huge page and trim, so the payload starts on a 2 MiB boundary. */
    size_t len = fl_payload_mapped(bytes);
    if (len < need || len + FL_HUGE_PAGE < len) return FL_ERR_TOO_LARGE;
    uint8_t *raw = mmap(NULL, len + FL_HUGE_PAGE, PROT_READ | PROT_WRITE,
                        MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (raw == MAP_FAILED) return FL_ERR_NO_MEMORY;
    uintptr_t start = ((uintptr_t)raw + FL_HUGE_PAGE - 1) & ~(uintptr_t)(FL_HUGE_PAGE - 1);
    size_t head = start - (uintptr_t)raw, tail = FL_HUGE_PAGE - head;
    if (head) munmap(raw, head);
    if (tail) munmap((uint8_t *)start + len, tail);
    f->data = (void *)start;
    f->mapped = len;
#ifdef MADV_HUGEPAGE
    if (!(f->flags & FL_FLAG_NO_HUGE_PAGES))
        f->huge_pages = madvise(f->data, len, MADV_HUGEPAGE) == 0;
#endif
#ifdef MADV_NOHUGEPAGE
    if (f->flags & FL_FLAG_NO_HUGE_PAGES) madvise(f->data, len, MADV_NOHUGEPAGE);
#endif
    return FL_OK;
}

void fl_payload_free(fl_filter *f) {
    if (!f->data) return;
    if (f->mapped)
        munmap(f->data, f->mapped);
    else
        free(f->data);
    f->data = NULL;
}

fl_status fl_payload_get(size_t bytes, void **data, size_t *mapped) {
    fl_filter holder;
    memset(&holder, 0, sizeof holder);
    fl_status st = fl_payload_alloc(&holder, bytes);
    *data = holder.data;
    *mapped = holder.mapped;
    return st;
}

void fl_payload_release(void *data, size_t mapped) {
    fl_filter holder;
    memset(&holder, 0, sizeof holder);
    holder.data = data;
    holder.mapped = mapped;
    fl_payload_free(&holder);
}
