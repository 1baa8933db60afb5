/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * systemd's readiness protocol (sd_notify(3)) without libsystemd: a
 * datagram to $NOTIFY_SOCKET, so that units of Type=notify start what
 * depends on a daemon only once it serves. No-op without the variable.
 */
#ifndef SP_NOTIFY_H
#define SP_NOTIFY_H

/* Send state ("READY=1\nSTATUS=...", "STOPPING=1"); 0, or -1 if it could not be sent. */
int sp_notify(const char *state);

#endif
