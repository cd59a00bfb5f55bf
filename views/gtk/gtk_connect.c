/*
 * gtk_connect.c — the connect dialog: where to play (a board service's
 * HOST:PORT, or nothing for a private service on this computer) and under
 * which name: as a guest (the default, and all a private service needs),
 * signed in to an account, or registering one (issue 15). run_connect shows
 * it over the main window when the command line said neither where nor
 * what. It starts the agent through main.c's launcher, signs in or
 * registers with it, shows a failure in red under the fields for another
 * try, and hands the agent to the main window on success. A refused sign-in
 * stops the agent again (view_launcher.stop), so the next try may go to
 * another service. Closing the dialog before success quits the program.
 *
 * A password goes nowhere agent_may_send_secret refuses (plaintext off this
 * machine): that is checked before connecting, and its sentence shown.
 *
 * The fields are remembered (gtk_prefs.c) after each successful connect,
 * and whether the user signs in; never the password:
 *     [connect]
 *     server=games.example.org:7070
 *     name=alice
 *     sign-in=true
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
    GtkWidget *name;           /* GtkEntry: the guest's or the account's name */
    GtkWidget *as_guest, *sign_in, *create;   /* GtkCheckButtons in one group */
    GtkWidget *password, *repeat;             /* GtkPasswordEntry (no echo) */
    GtkWidget *password_label, *repeat_label;
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
    GtkWidget *fields[] = {c->server, c->name, c->as_guest, c->sign_in, c->create,
                           c->password, c->repeat, c->btn_connect};
    for (size_t i = 0; i < G_N_ELEMENTS(fields); i++)
        gtk_widget_set_sensitive(fields[i], !busy);
}

gconnect_mode gconnect_get_mode(const gconnect *c)
{
    if (gtk_check_button_get_active(GTK_CHECK_BUTTON(c->sign_in)))
        return GCONNECT_SIGN_IN;
    if (gtk_check_button_get_active(GTK_CHECK_BUTTON(c->create)))
        return GCONNECT_REGISTER;
    return GCONNECT_GUEST;
}

/* The password fields are there only when a password is wanted. */
static void show_mode(gconnect *c)
{
    gconnect_mode mode = gconnect_get_mode(c);
    gtk_widget_set_visible(c->password, mode != GCONNECT_GUEST);
    gtk_widget_set_visible(c->password_label, mode != GCONNECT_GUEST);
    gtk_widget_set_visible(c->repeat, mode == GCONNECT_REGISTER);
    gtk_widget_set_visible(c->repeat_label, mode == GCONNECT_REGISTER);
}

void gconnect_set_mode(gconnect *c, gconnect_mode mode)
{
    GtkWidget *b = mode == GCONNECT_SIGN_IN    ? c->sign_in
                   : mode == GCONNECT_REGISTER ? c->create
                                               : c->as_guest;
    gtk_check_button_set_active(GTK_CHECK_BUTTON(b), TRUE);
    show_mode(c);
}

static void on_mode(GtkCheckButton *b, gpointer data)
{
    if (gtk_check_button_get_active(b))
        show_mode(data);
}

static const char *password_of(const gconnect *c)
{
    return gtk_editable_get_text(GTK_EDITABLE(c->password));
}

/* The field's text without surrounding blanks (g_free it). */
static char *field(GtkWidget *entry)
{
    return g_strstrip(g_strdup(gtk_editable_get_text(GTK_EDITABLE(entry))));
}

static void remember(gconnect *c, const char *server, const char *name, bool signs_in)
{
    GKeyFile *kf = gprefs_load();
    g_key_file_set_string(kf, "connect", "server", server);
    g_key_file_set_string(kf, "connect", "name", name);
    g_key_file_set_boolean(kf, "connect", "sign-in", signs_in);
    char err[512];
    if (gprefs_save(kf, err, sizeof err) != 0)
        gview_log(c->v, "%s", err);
    g_key_file_free(kf);
}

/* The agent's sentence as the dialog shows it: "Cannot sign in: wrong
 * name or password." */
static void say_refusal(gconnect *c, const char *sentence)
{
    char *text = g_strdup_printf("%s.", sentence);
    text[0] = (char)g_ascii_toupper(text[0]);
    set_message(c, text, true);
    g_free(text);
}

/* Sign in, register, or be a guest with the agent just started; 0, or -1
 * with the refusal shown. A session an earlier run kept is ended for a
 * guest: playing as a guest means no account. */
static int take_identity(gconnect *c, agent *ag, const char *name, bool *claimed)
{
    char err[AGENT_TEXT_BYTES];
    int rc = 0;
    switch (gconnect_get_mode(c)) {
    case GCONNECT_GUEST:
        if (agent_account(ag) && agent_sign_out(ag, false, err, sizeof err) != 0)
            gview_log(c->v, "%s", err);   /* forgotten here all the same */
        return 0;
    case GCONNECT_SIGN_IN:
        rc = agent_sign_in(ag, name, password_of(c), err, sizeof err);
        break;
    case GCONNECT_REGISTER:
        rc = agent_register(ag, name, password_of(c), claimed, err, sizeof err);
        break;
    }
    if (rc != 0)
        say_refusal(c, err);
    return rc;
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
    bool claimed = false;
    char err[1024];            /* a changed certificate is said at length */
    if (l->start(l, &ag, err, sizeof err) != 0) {
        char *text = g_strdup_printf(_("Could not connect: %s"), err);
        set_message(c, text, true);
        g_free(text);
        set_busy(c, false);
        gtk_widget_grab_focus(c->server);
    } else if (take_identity(c, ag, name, &claimed) != 0) {
        l->stop(l);            /* the next try may be to another service */
        set_busy(c, false);
        gtk_editable_set_text(GTK_EDITABLE(c->password), "");
        gtk_editable_set_text(GTK_EDITABLE(c->repeat), "");
        gtk_widget_grab_focus(c->password);
    } else {
        c->done = true;
        set_message(c, "", false);
        gtk_editable_set_text(GTK_EDITABLE(c->password), "");   /* kept nowhere */
        gtk_editable_set_text(GTK_EDITABLE(c->repeat), "");
        remember(c, server, name, gconnect_get_mode(c) != GCONNECT_GUEST);
        gtk_widget_set_visible(c->window, FALSE);
        gview_connected(c->v, ag);
        if (claimed)
            gview_log(c->v, _("The results kept under the name %s are now your account's."),
                      agent_account(ag));
    }
    l->cfg->server = NULL;     /* ours are freed now */
    l->cfg->name = NULL;
    g_free(server);
    g_free(name);
    return G_SOURCE_REMOVE;
}

/* What can be said wrong before connecting: no name, no password, two
 * different ones, or a password that would cross the network in plaintext.
 * true when the fields will do; otherwise the trouble is shown. */
static bool fields_will_do(gconnect *c, const char *server, const char *name)
{
    gconnect_mode mode = gconnect_get_mode(c);
    if (!*name) {
        set_message(c, _("Say who you are: type a name to play under."), true);
        gtk_widget_grab_focus(c->name);
        return false;
    }
    if (mode == GCONNECT_GUEST)
        return true;
    if (!*password_of(c)) {
        set_message(c, _("Type your password."), true);
        gtk_widget_grab_focus(c->password);
        return false;
    }
    if (mode == GCONNECT_REGISTER &&
        strcmp(password_of(c), gtk_editable_get_text(GTK_EDITABLE(c->repeat))) != 0) {
        set_message(c, _("The two passwords differ: type the same one in both fields."), true);
        gtk_widget_grab_focus(c->repeat);
        return false;
    }
    agent_config cfg = *c->v->launcher->cfg;
    cfg.server = *server ? server : NULL;     /* none: a private service, on loopback */
    char err[AGENT_TEXT_BYTES];
    if (agent_may_send_secret(&cfg, err, sizeof err) != 0) {
        char *text = g_strdup_printf(_("Your password was not sent: %s"), err);
        set_message(c, text, true);
        g_free(text);
        gtk_widget_grab_focus(c->server);
        return false;
    }
    return true;
}

static void connect_now(gconnect *c)
{
    if (c->attempt || c->done)
        return;
    char *server = field(c->server), *name = field(c->name);
    if (fields_will_do(c, server, name)) {
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

static GtkWidget *password_entry(const char *accessible)
{
    GtkWidget *e = gtk_password_entry_new();
    gtk_widget_set_hexpand(e, TRUE);
    gtk_password_entry_set_show_peek_icon(GTK_PASSWORD_ENTRY(e), TRUE);
    gtk_accessible_update_property(GTK_ACCESSIBLE(e), GTK_ACCESSIBLE_PROPERTY_LABEL, accessible,
                                   -1);
    return e;
}

static GtkWidget *mode_button(gconnect *c, const char *label, GtkWidget *group)
{
    GtkWidget *b = gview_mnemonic_check(label);
    if (group)
        gtk_check_button_set_group(GTK_CHECK_BUTTON(b), GTK_CHECK_BUTTON(group));
    g_signal_connect(b, "toggled", G_CALLBACK(on_mode), c);
    return b;
}

/* Who is at the desktop, for a first name: $USER as the session says,
 * else the account's name from the password database (g_get_user_name, which
 * reads the database only, and so says "root" in a root shell whatever
 * $USER says). */
static const char *desktop_user(void)
{
    const char *user = g_getenv("USER");
    return user && *user ? user : g_get_user_name();
}

/* The remembered server and way in (a guest unless the user signed in
 * last time); --name, else the remembered name, else $USER. */
static void prefill(gconnect *c)
{
    GKeyFile *kf = gprefs_load();
    char *server = g_key_file_get_string(kf, "connect", "server", NULL);
    char *name = g_key_file_get_string(kf, "connect", "name", NULL);
    bool signs_in = g_key_file_get_boolean(kf, "connect", "sign-in", NULL);
    gconnect_set_mode(c, signs_in ? GCONNECT_SIGN_IN : GCONNECT_GUEST);
    const char *given = c->v->launcher->cfg->name;
    gtk_editable_set_text(GTK_EDITABLE(c->server), server ? server : "");
    if (!given || !*given)
        given = name && *name ? name : desktop_user();
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
    c->as_guest = mode_button(c, _("Play as a _guest"), NULL);
    c->sign_in = mode_button(c, _("S_ign in to my account"), c->as_guest);
    c->create = mode_button(c, _("_Register a new account"), c->as_guest);
    GtkWidget *modes = gtk_box_new(GTK_ORIENTATION_VERTICAL, 2);
    gtk_box_append(GTK_BOX(modes), c->as_guest);
    gtk_box_append(GTK_BOX(modes), c->sign_in);
    gtk_box_append(GTK_BOX(modes), c->create);
    c->password = password_entry(_("Password"));
    c->repeat = password_entry(_("The password again"));
    c->password_label = field_label(_("_Password"), c->password);
    c->repeat_label = field_label(_("R_epeat"), c->repeat);
    gtk_grid_attach(GTK_GRID(grid), modes, 1, 2, 1, 1);
    gtk_grid_attach(GTK_GRID(grid), field_label(_("_Name"), c->name), 0, 3, 1, 1);
    gtk_grid_attach(GTK_GRID(grid), c->name, 1, 3, 1, 1);
    gtk_grid_attach(GTK_GRID(grid), c->password_label, 0, 4, 1, 1);
    gtk_grid_attach(GTK_GRID(grid), c->password, 1, 4, 1, 1);
    gtk_grid_attach(GTK_GRID(grid), c->repeat_label, 0, 5, 1, 1);
    gtk_grid_attach(GTK_GRID(grid), c->repeat, 1, 5, 1, 1);
    g_signal_connect(c->server, "activate", G_CALLBACK(on_connect), c);
    g_signal_connect(c->name, "activate", G_CALLBACK(on_connect), c);
    g_signal_connect(c->password, "activate", G_CALLBACK(on_connect), c);
    g_signal_connect(c->repeat, "activate", G_CALLBACK(on_connect), c);
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
    c->btn_quit = gview_mnemonic_button(_("_Quit"));
    c->btn_connect = gview_mnemonic_button(_("_Connect"));
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
    GtkWidget *first = !*gtk_editable_get_text(GTK_EDITABLE(c->name)) ? c->name
                       : gconnect_get_mode(c) != GCONNECT_GUEST   ? c->password
                                                                  : c->server;
    gtk_widget_grab_focus(first);
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
    gconnect_set_mode(c, GCONNECT_GUEST);
    gtk_editable_set_text(GTK_EDITABLE(c->server), server);
    gtk_editable_set_text(GTK_EDITABLE(c->name), name);
    g_signal_emit_by_name(c->btn_connect, "clicked");
}

void gconnect_submit_account(gconnect *c, const char *server, const char *name,
                             const char *password, const char *repeat, bool create)
{
    gconnect_set_mode(c, create ? GCONNECT_REGISTER : GCONNECT_SIGN_IN);
    gtk_editable_set_text(GTK_EDITABLE(c->server), server);
    gtk_editable_set_text(GTK_EDITABLE(c->name), name);
    gtk_editable_set_text(GTK_EDITABLE(c->password), password);
    gtk_editable_set_text(GTK_EDITABLE(c->repeat), repeat);
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
