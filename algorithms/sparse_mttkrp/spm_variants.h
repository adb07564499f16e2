/* The variants of the sparse MTTKRP kernels, as X-lists.
 *
 * FLYCOO_VARIANTS: one X(name, order, compact) entry per FLYCOO kernel of a precision and
 * width: specialised for 3, 4 and 5 modes with either record layout (compact = 1: the
 * records carry no positions), and the generic kernel (order 0: any order and either
 * layout, read from the arguments), last because it fits every pass. With the order a
 * constant, the loops over modes unroll and every record word of the nonzeros in flight is
 * loaded before their factor rows are gathered, instead of one mode after the other; the
 * layout's constants spare registers (a stride read at run time made the kernel
 * measurably slower).
 * spm_flycoo_template.h expands the list into the kernels flycoo_<name>_<sfx>_k<width>
 * and into the launcher that runs the first entry that fits a pass.
 *
 * FLYCOO_WIDTHS: the per-lane widths, widest first, for TP_LAUNCH_WIDTH;
 * spm_kernels_template.h instantiates spm_width_template.h and spm_flycoo_template.h once
 * for each. */
#ifndef TP_SPM_VARIANTS_H
#define TP_SPM_VARIANTS_H

#define FLYCOO_VARIANTS(X) \
  X(n3, 3, 0)              \
  X(n4, 4, 0)              \
  X(n5, 5, 0)              \
  X(n3c, 3, 1)             \
  X(n4c, 4, 1)             \
  X(n5c, 5, 1)             \
  X(n0, 0, 0)

#define FLYCOO_WIDTHS(X, c) X(32, c) X(16, c) X(8, c) X(4, c) X(2, c) X(1, c)

#endif
