/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The key width this instance of the engine is built for (bits.h). The
 * engine is built once at SP_KEY_BYTES (14: the ipv4 and i3 code options'
 * keys, all that width's code fixed at compile time) and once at
 * SP_KEY_MAX_BYTES (-DLK_KEY_BYTES=SP_KEY_MAX_BYTES, src/lookup/meson.build);
 * the wide instance's functions and tables are named apart here, once, so
 * that both link into one program: struct sp_lookup becomes struct
 * sp_lookup_wide, the functions sp_lookup_* sp_lookup_wide_*, the internal
 * lk_* lk_wide_*. Function-like, so that the types of the same names
 * (struct sp_lookup_info, struct sp_lookup_walk) are the same in both.
 */
#ifndef SP_LOOKUP_WIDTH_H
#define SP_LOOKUP_WIDTH_H

#include <slicepath/key.h>

#ifndef LK_KEY_BYTES
#define LK_KEY_BYTES SP_KEY_BYTES
#endif

#if LK_KEY_BYTES != SP_KEY_BYTES && LK_KEY_BYTES != SP_KEY_MAX_BYTES
#error "the lookup engine is built for SP_KEY_BYTES or SP_KEY_MAX_BYTES keys"
#endif

#if LK_KEY_BYTES != SP_KEY_BYTES
/* The API (lookup.h). */
#define sp_lookup sp_lookup_wide
#define sp_lookup_create(...) sp_lookup_wide_create(__VA_ARGS__)
#define sp_lookup_free(...) sp_lookup_wide_free(__VA_ARGS__)
#define sp_lookup_slice_add(...) sp_lookup_wide_slice_add(__VA_ARGS__)
#define sp_lookup_slice_del(...) sp_lookup_wide_slice_del(__VA_ARGS__)
#define sp_lookup_write(...) sp_lookup_wide_write(__VA_ARGS__)
#define sp_lookup_write_bulk(...) sp_lookup_wide_write_bulk(__VA_ARGS__)
#define sp_lookup_delete(...) sp_lookup_wide_delete(__VA_ARGS__)
#define sp_lookup_write_bulk_nowait(...) sp_lookup_wide_write_bulk_nowait(__VA_ARGS__)
#define sp_lookup_delete_nowait(...) sp_lookup_wide_delete_nowait(__VA_ARGS__)
#define sp_lookup_finish(...) sp_lookup_wide_finish(__VA_ARGS__)
#define sp_lookup_read(...) sp_lookup_wide_read(__VA_ARGS__)
#define sp_lookup_next(...) sp_lookup_wide_next(__VA_ARGS__)
#define sp_lookup_sync(...) sp_lookup_wide_sync(__VA_ARGS__)
#define sp_lookup_info(...) sp_lookup_wide_info(__VA_ARGS__)
#define sp_lookup_walk(...) sp_lookup_wide_walk(__VA_ARGS__)
#define sp_lookup_bulk(...) sp_lookup_wide_bulk(__VA_ARGS__)
#define sp_lookup_bulk_deferred(...) sp_lookup_wide_bulk_deferred(__VA_ARGS__)
/* The engine's own. */
#define lk_slice_free(...) lk_wide_slice_free(__VA_ARGS__)
#define lk_view_retire(...) lk_wide_view_retire(__VA_ARGS__)
#define lk_view_make(...) lk_wide_view_make(__VA_ARGS__)
#define lk_wait_readers(...) lk_wide_wait_readers(__VA_ARGS__)
#define lk_tree_box_of(...) lk_wide_tree_box_of(__VA_ARGS__)
#define lk_tree_build(...) lk_wide_tree_build(__VA_ARGS__)
#define lk_tree_bytes(...) lk_wide_tree_bytes(__VA_ARGS__)
#define lk_tree_choose_path(...) lk_wide_tree_choose_path(__VA_ARGS__)
#define lk_tree_classify(...) lk_wide_tree_classify(__VA_ARGS__)
#define lk_tree_entries(...) lk_wide_tree_entries(__VA_ARGS__)
#define lk_tree_free(...) lk_wide_tree_free(__VA_ARGS__)
#define lk_tree_method(...) lk_wide_tree_method(__VA_ARGS__)
#define lk_tree_takes(...) lk_wide_tree_takes(__VA_ARGS__)
#define lk_tree_walk(...) lk_wide_tree_walk(__VA_ARGS__)
#define lk_base_alloc(...) lk_wide_base_alloc(__VA_ARGS__)
#define lk_base_classifier_bytes(...) lk_wide_base_classifier_bytes(__VA_ARGS__)
#define lk_base_classify(...) lk_wide_base_classify(__VA_ARGS__)
#define lk_base_compile(...) lk_wide_base_compile(__VA_ARGS__)
#define lk_base_find(...) lk_wide_base_find(__VA_ARGS__)
#define lk_base_free(...) lk_wide_base_free(__VA_ARGS__)
#define lk_changes_free(...) lk_wide_changes_free(__VA_ARGS__)
#define lk_changes_new(...) lk_wide_changes_new(__VA_ARGS__)
#define lk_changes_set(...) lk_wide_changes_set(__VA_ARGS__)
#define lk_compiler_start(...) lk_wide_compiler_start(__VA_ARGS__)
#define lk_compiler_stop(...) lk_wide_compiler_stop(__VA_ARGS__)
#define lk_now_ns(...) lk_wide_now_ns(__VA_ARGS__)
#endif

#endif
