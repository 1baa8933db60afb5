/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The dpi code option (codeopts/dpi, docs/dpi.md): an IPv4 router whose key
 * also says which of the slice's regular expressions the packet's payload
 * matches, so filters can steer, queue or drop by content. No DPDK here.
 *
 * The key is the ipv4 code option's (slicepath/ipv4.h) with its last byte
 * the content class: bytes 0-3 destination, 4-7 source, 8-9 source port,
 * 10-11 destination port, 12 protocol, 13 class.
 *
 * The patterns come as text through codeopt.load, one per line:
 *
 *   CLASS:/EXPRESSION/FLAGS
 *
 * CLASS 0 to 254 (several patterns may share one), EXPRESSION in
 * Hyperscan's (PCRE) syntax, FLAGS any of i (caseless), s (dot matches
 * newlines), m (multi-line anchors). Blank lines and lines starting with
 * '#' are skipped. A packet whose payload matches patterns of several
 * classes gets the lowest; one that matches none gets SP_DPI_NO_CLASS.
 */
#ifndef SLICEPATH_DPI_H
#define SLICEPATH_DPI_H

#ifdef __cplusplus
extern "C" {
#endif

#define SP_DPI_KEY_CLASS 13  /* byte of the key */
#define SP_DPI_NO_CLASS 0xff /* no pattern matched */
#define SP_DPI_MAX_CLASS 254
#define SP_DPI_MAX_PATTERNS 10000

#ifdef __cplusplus
}
#endif

#endif /* SLICEPATH_DPI_H */
