/*
 * server_notify.h — systemd's readiness protocol (sd_notify, libsystemd)
 * for the two servers run as Type=notify units (sungka-board, sungka-relay):
 * READY=1 once they listen, RELOADING=1 and READY=1 around a reload
 * (SIGHUP), STOPPING=1 when they begin to stop. Each is one datagram on
 * $NOTIFY_SOCKET, and nothing without it (outside systemd). A library of its
 * own (sungka_notify), so that only the servers link libsystemd.
 *
 * Main (loop) thread only: sd_notify is not async-signal-safe, so a signal
 * handler sets a flag and the loop says it.
 */
#ifndef SUNGKA_SERVER_NOTIFY_H
#define SUNGKA_SERVER_NOTIFY_H

void server_notify_ready(void);       /* READY=1, STATUS=Serving */
void server_notify_reloading(void);   /* RELOADING=1, STATUS=Reloading the configuration */
void server_notify_stopping(void);    /* STOPPING=1, STATUS=Shutting down */

#endif /* SUNGKA_SERVER_NOTIFY_H */
