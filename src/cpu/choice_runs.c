/*
 * fl_kernel_choice_run: a module entry's kernel choices grouped into runs of size classes
 * that agree, so that `filterlab kernels` and the Redis module's FILTERLAB.KERNEL print one
 * row per run ("all", "L1", "L2-DRAM") from one definition of the grouping.
 */
#include <stdio.h>
#include <string.h>

#include "filterlab.h"

fl_status fl_kernel_choice_run(const char *entry, int size_class, const char **kernel,
                               const char **reason, int *end, char *label, size_t cap)
{
    if (!end || !label || cap == 0)
        return FL_ERR_INVALID_ARG;
    fl_status s = fl_kernel_choice(entry, size_class, kernel, reason);
    if (s != FL_OK)
        return s;
    int d = size_class + 1;
    for (const char *k, *why; d < FL_SIZE_CLASSES; d++)
        if (fl_kernel_choice(entry, d, &k, &why) != FL_OK || strcmp(k, *kernel) != 0 ||
            strcmp(why, *reason) != 0)
            break;
    if (size_class == 0 && d == FL_SIZE_CLASSES)
        snprintf(label, cap, "all");
    else if (d == size_class + 1)
        snprintf(label, cap, "%s", fl_size_class_name(size_class));
    else
        snprintf(label, cap, "%s-%s", fl_size_class_name(size_class), fl_size_class_name(d - 1));
    *end = d;
    return FL_OK;
}
