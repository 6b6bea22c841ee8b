/*
 * fl_kernels_init_<isa>(): one ISA's table init, the calls of its modules' inits in
 * FL_KERNEL_MODULES order, skipping the modules the ISA has no file for. Compiled once into
 * each ISA's library, with FL_KERNEL_ISA=<isa> (kernels/meson.build).
 */
#include "kernels.h"

#ifndef FL_KERNEL_ISA
#error "kernels/init.c is compiled with -DFL_KERNEL_ISA=<isa> (kernels/meson.build)"
#endif

#define FL_INIT_MODULE(module, ...)                                                           \
    FL_WHEN(FL_KCAT(FL_KERNEL_ISA_COLUMN_, FL_KERNEL_ISA)(__VA_ARGS__),                       \
            FL_KCAT(fl_##module##_kernels_init_, FL_KERNEL_ISA)(t);)

void FL_KCAT(fl_kernels_init_, FL_KERNEL_ISA)(fl_kernel_table *t) {
    FL_KERNEL_MODULES(FL_INIT_MODULE)
}
