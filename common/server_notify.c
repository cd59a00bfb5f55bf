/*
 * server_notify.c — see server_notify.h.
 */
#include "server_notify.h"

#include <systemd/sd-daemon.h>

void server_notify_ready(void)
{
    sd_notify(0, "READY=1\nSTATUS=Serving");
}

void server_notify_reloading(void)
{
    sd_notify(0, "RELOADING=1\nSTATUS=Reloading the configuration");
}

void server_notify_stopping(void)
{
    sd_notify(0, "STOPPING=1\nSTATUS=Shutting down");
}
