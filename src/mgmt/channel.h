/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The slices' exception channels (SPP's slow-path interface; the format is
 * in slicepath/proto.h): a Unix SOCK_SEQPACKET socket per slice,
 * <dir>/<slice>.sock, mode 0600, owned by the slice's owner. The management
 * thread accepts one slow path per slice, writes to it the exceptions the
 * NPEs hand up (node->exc_ring) and puts the packets it injects into its
 * NPE (npe->inject_ring). Nothing here waits for a slow path: a full
 * channel loses the packet, counted.
 */
#ifndef SP_CHANNEL_H
#define SP_CHANNEL_H

#include <poll.h>
#include <stddef.h>

#include "../node/node.h"

struct sp_channels;

/* Channels under dir (created 0755 if missing). NULL with the reason in err. */
struct sp_channels *sp_channels_create(struct sp_node *node, const char *dir, char *err,
				       size_t errlen);
/* Close every channel and remove its socket file. */
void sp_channels_free(struct sp_channels *ch);

/* Listen on s's channel. 0, or a negative errno with the reason in err. */
int sp_channel_open(struct sp_channels *ch, struct sp_slice *s, char *err, size_t errlen);
/* Close s's channel (its slow path gets end of file) and remove the socket file. */
void sp_channel_close(struct sp_channels *ch, struct sp_slice *s);
/* The channels' directory ("" when channels are off: ch NULL). */
const char *sp_channels_dir(const struct sp_channels *ch);
/* The socket path of s's channel ("" when channels are off). */
const char *sp_channel_path(const struct sp_channels *ch, const struct sp_slice *s);

/* The sockets to poll, at most max; then sp_channels_serve() with what poll() said. */
unsigned int sp_channels_pollfds(const struct sp_channels *ch, struct pollfd *fds,
				 unsigned int max);
/* Accept slow paths, take their injected packets, notice those that left. */
void sp_channels_serve(struct sp_channels *ch, const struct pollfd *fds, unsigned int n);
/* Write the exceptions waiting in node->exc_ring to their slow paths. */
void sp_channels_deliver(struct sp_channels *ch);

#endif
