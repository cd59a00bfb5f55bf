/*
 * gtk_connect.c — the connect dialog: where to play (a board service's
 * HOST:PORT, or nothing for a private service on this computer) and under
 * which name. run_connect shows it over the main window when the command
 * line said neither where nor what. It starts the agent through main.c's
 * launcher, shows a failure in red under the fields for another try, and
 * hands the agent to the main window on success. Closing it before that
 * quits the program.
 *
 * The fields are remembered (gtk_prefs.c) after each successful connect:
 *     [connect]
 *     server=games.example.org:7070
 *     name=alice
 * A --name on the command line wins over the remembered name; with
 * neither, the name is $USER's.
 *
 * Starting blocks this thread (a private service's start-up, or the call
 * deadline), so "Connecting…" is put up first and the attempt runs a moment
 * later, once GTK has had time to draw it.
 */
#include <stdio.h>
#include <string.h>

#include "gtk_view_internal.h"

#define SHOW_MS 80             /* for "Connecting…" to be drawn before we block */

struct gconnect {
    gview *v;
    GtkWidget *window;
    GtkWidget *server;         /* GtkEntry: HOST:PORT, or empty */
    GtkWidget *name;           /* GtkEntry */
    GtkWidget *message;        /* "Connecting…", or the failure in red */
    GtkWidget *btn_connect, *btn_quit;
    guint attempt;             /* the timeout that will make the attempt, or 0 */
    bool done;                 /* connected: the agent went to the main window */
    char error[1024];          /* the failure shown, or "" (room for the agent's
                                * changed-certificate warning) */
};

static void set_message(gconnect *c, const char *text, bool is_error)
{
    snprintf(c->error, sizeof c->error, "%s", is_error ? text : "");
    gtk_label_set_text(GTK_LABEL(c->message), text);
    if (is_error)
        gtk_widget_add_css_class(c->message, "error");
    else
        gtk_widget_remove_css_class(c->message, "error");
}

static void set_busy(gconnect *c, bool busy)
{
    gtk_widget_set_sensitive(c->server, !busy);
    gtk_widget_set_sensitive(c->name, !busy);
    gtk_widget_set_sensitive(c->btn_connect, !busy);
}

/* The field's text without surrounding blanks (g_free it). */
static char *field(GtkWidget *entry)
{
    return g_strstrip(g_strdup(gtk_editable_get_text(GTK_EDITABLE(entry))));
}

static void remember(gconnect *c, const char *server, const char *name)
{
    GKeyFile *kf = gprefs_load();
    g_key_file_set_string(kf, "connect", "server", server);
    g_key_file_set_string(kf, "connect", "name", name);
    char err[512];
    if (gprefs_save(kf, err, sizeof err) != 0)
        gview_log(c->v, "%s", err);
    g_key_file_free(kf);
}

static gboolean attempt(gpointer data)
{
    gconnect *c = data;
    c->attempt = 0;
    char *server = field(c->server), *name = field(c->name);
    view_launcher *l = c->v->launcher;
    l->cfg->server = server;   /* start copies both */
    l->cfg->name = name;
    agent *ag = NULL;
    char err[1024];            /* a changed certificate is said at length */
    if (l->start(l, &ag, err, sizeof err) != 0) {
        char *text = g_strdup_printf(_("Could not connect: %s"), err);
        set_message(c, text, true);
        g_free(text);
        set_busy(c, false);
        gtk_widget_grab_focus(c->server);
    } else {
        c->done = true;
        set_message(c, "", false);
        remember(c, server, name);
        gtk_widget_set_visible(c->window, FALSE);
        gview_connected(c->v, ag);
    }
    l->cfg->server = NULL;     /* ours are freed now */
    l->cfg->name = NULL;
    g_free(server);
    g_free(name);
    return G_SOURCE_REMOVE;
}

static void connect_now(gconnect *c)
{
    if (c->attempt || c->done)
        return;
    char *server = field(c->server), *name = field(c->name);
    if (!*name) {
        set_message(c, _("Say who you are: type a name to play under."), true);
        gtk_widget_grab_focus(c->name);
    } else {
        char *text = *server ? g_strdup_printf(_("Connecting to %s\u2026"), server)
                             : g_strdup(_("Starting a board service on this computer\u2026"));
        set_message(c, text, false);
        g_free(text);
        set_busy(c, true);
        c->attempt = g_timeout_add(SHOW_MS, attempt, c);
    }
    g_free(server);
    g_free(name);
}

static void on_connect(GtkWidget *w, gpointer data)
{
    (void)w;
    connect_now(data);
}

static void on_quit(GtkButton *b, gpointer data)
{
    (void)b;
    gconnect *c = data;
    gtk_window_close(GTK_WINDOW(c->window));
}

/* Closing the dialog before connecting quits, with status 0. */
static gboolean on_close_request(GtkWindow *w, gpointer data)
{
    (void)w;
    gconnect *c = data;
    if (c->attempt) {
        g_source_remove(c->attempt);
        c->attempt = 0;
    }
    if (!c->done) {
        c->v->exit_status = 0;
        gview_quit(c->v);
    }
    return TRUE;               /* gconnect_free destroys it */
}

static GtkWidget *entry(const char *accessible, const char *placeholder)
{
    GtkWidget *e = gtk_entry_new();
    gtk_widget_set_hexpand(e, TRUE);
    gtk_entry_set_placeholder_text(GTK_ENTRY(e), placeholder);
    gtk_accessible_update_property(GTK_ACCESSIBLE(e), GTK_ACCESSIBLE_PROPERTY_LABEL, accessible,
                                   -1);
    return e;
}

static GtkWidget *field_label(const char *text, GtkWidget *for_entry)
{
    GtkWidget *l = gtk_label_new_with_mnemonic(text);
    gtk_label_set_xalign(GTK_LABEL(l), 0);
    gtk_label_set_mnemonic_widget(GTK_LABEL(l), for_entry);
    return l;
}

/* The remembered server; --name, else the remembered name, else $USER. */
static void prefill(gconnect *c)
{
    GKeyFile *kf = gprefs_load();
    char *server = g_key_file_get_string(kf, "connect", "server", NULL);
    char *name = g_key_file_get_string(kf, "connect", "name", NULL);
    const char *given = c->v->launcher->cfg->name;
    gtk_editable_set_text(GTK_EDITABLE(c->server), server ? server : "");
    if (!given || !*given)
        given = name && *name ? name : g_get_user_name();
    gtk_editable_set_text(GTK_EDITABLE(c->name), given ? given : "");
    g_free(server);
    g_free(name);
    g_key_file_free(kf);
}

gconnect *gconnect_new(gview *v)
{
    gconnect *c = g_new0(gconnect, 1);
    c->v = v;
    c->window = gview_dialog(v, _("Sungka \u2014 connect"));
    gtk_window_set_modal(GTK_WINDOW(c->window), TRUE);
    gtk_window_set_default_size(GTK_WINDOW(c->window), 440, -1);
    g_signal_connect(c->window, "close-request", G_CALLBACK(on_close_request), c);

    GtkWidget *box = gview_padded_column(8, 18);

    GtkWidget *grid = gtk_grid_new();
    gtk_grid_set_row_spacing(GTK_GRID(grid), 6);
    gtk_grid_set_column_spacing(GTK_GRID(grid), 10);
    c->server = entry(_("Board service address"), _("HOST:PORT, or empty"));
    c->name = entry(_("Your name"), _("the name others see"));
    GtkWidget *help = gtk_label_new(_("Leave the address empty to play on this computer: "
                                      "a board service of your own is started for you."));
    gtk_label_set_xalign(GTK_LABEL(help), 0);
    gtk_label_set_wrap(GTK_LABEL(help), TRUE);
    gtk_widget_add_css_class(help, "dim-label");
    gtk_accessible_update_property(GTK_ACCESSIBLE(c->server),
                                   GTK_ACCESSIBLE_PROPERTY_DESCRIPTION,
                                   gtk_label_get_text(GTK_LABEL(help)), -1);
    gtk_grid_attach(GTK_GRID(grid), field_label(_("_Server"), c->server), 0, 0, 1, 1);
    gtk_grid_attach(GTK_GRID(grid), c->server, 1, 0, 1, 1);
    gtk_grid_attach(GTK_GRID(grid), help, 1, 1, 1, 1);
    gtk_grid_attach(GTK_GRID(grid), field_label(_("_Name"), c->name), 0, 2, 1, 1);
    gtk_grid_attach(GTK_GRID(grid), c->name, 1, 2, 1, 1);
    g_signal_connect(c->server, "activate", G_CALLBACK(on_connect), c);
    g_signal_connect(c->name, "activate", G_CALLBACK(on_connect), c);
    gtk_box_append(GTK_BOX(box), grid);

    c->message = gtk_label_new(NULL);
    gtk_label_set_xalign(GTK_LABEL(c->message), 0);
    gtk_label_set_wrap(GTK_LABEL(c->message), TRUE);
    gtk_label_set_selectable(GTK_LABEL(c->message), TRUE);
    gtk_accessible_update_property(GTK_ACCESSIBLE(c->message), GTK_ACCESSIBLE_PROPERTY_LABEL,
                                   _("Connection status"), -1);
    gtk_box_append(GTK_BOX(box), c->message);

    GtkWidget *row = gtk_box_new(GTK_ORIENTATION_HORIZONTAL, 6);
    gtk_widget_set_halign(row, GTK_ALIGN_END);
    c->btn_quit = gtk_button_new_with_mnemonic(_("_Quit"));
    c->btn_connect = gtk_button_new_with_mnemonic(_("_Connect"));
    gtk_accessible_update_property(GTK_ACCESSIBLE(c->btn_quit), GTK_ACCESSIBLE_PROPERTY_LABEL,
                                   _("Quit without playing"), -1);
    gtk_accessible_update_property(GTK_ACCESSIBLE(c->btn_connect),
                                   GTK_ACCESSIBLE_PROPERTY_LABEL,
                                   _("Connect to the board service"), -1);
    gtk_widget_add_css_class(c->btn_connect, "suggested-action");
    g_signal_connect(c->btn_quit, "clicked", G_CALLBACK(on_quit), c);
    g_signal_connect(c->btn_connect, "clicked", G_CALLBACK(on_connect), c);
    gtk_box_append(GTK_BOX(row), c->btn_quit);
    gtk_box_append(GTK_BOX(row), c->btn_connect);
    gtk_box_append(GTK_BOX(box), row);

    gtk_window_set_child(GTK_WINDOW(c->window), box);
    gtk_window_set_default_widget(GTK_WINDOW(c->window), c->btn_connect);
    prefill(c);
    gtk_window_present(GTK_WINDOW(c->window));
    gtk_widget_grab_focus(*gtk_editable_get_text(GTK_EDITABLE(c->name)) ? c->server : c->name);
    return c;
}

void gconnect_free(gconnect *c)
{
    if (!c)
        return;
    if (c->attempt)
        g_source_remove(c->attempt);
    gtk_window_destroy(GTK_WINDOW(c->window));
    g_free(c);
}

void gconnect_submit(gconnect *c, const char *server, const char *name)
{
    gtk_editable_set_text(GTK_EDITABLE(c->server), server);
    gtk_editable_set_text(GTK_EDITABLE(c->name), name);
    g_signal_emit_by_name(c->btn_connect, "clicked");
}

bool gconnect_busy(const gconnect *c)
{
    return c->attempt != 0;
}

bool gconnect_done(const gconnect *c)
{
    return c->done;
}

const char *gconnect_error(const gconnect *c)
{
    return c->error;
}

const char *gconnect_server(const gconnect *c)
{
    return gtk_editable_get_text(GTK_EDITABLE(c->server));
}

const char *gconnect_name(const gconnect *c)
{
    return gtk_editable_get_text(GTK_EDITABLE(c->name));
}

GtkWidget *gconnect_window(const gconnect *c)
{
    return c->window;
}
