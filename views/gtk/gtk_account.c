/*
 * gtk_account.c — the account in the main window (issue 15): a line over
 * the players saying who we are — the account as registered ("Signed in as
 * Alice", whatever case was typed) or the guest's name — and the two
 * commands of a signed-in user: sign out (win.sign-out, this session only:
 * the seats already held keep their own tokens) and change the password
 * (win.password), in a small dialog of its own.
 *
 * Passwords are read from GtkPasswordEntry fields (no echo) and handed to
 * the agent for the one call; the fields are emptied after it, so nothing
 * keeps them. The calls block briefly (the agent's deadline), as the lobby's
 * do.
 */
#include <stdio.h>
#include <string.h>

#include "gtk_view_internal.h"

void gview_update_account(gview *v)
{
    const char *account = v->ag ? agent_account(v->ag) : NULL;
    char *text = account  ? g_strdup_printf(_("Signed in as %s"), account)
                 : v->ag ? g_strdup_printf(_("Playing as a guest: %s"), agent_name(v->ag))
                         : g_strdup("");
    gtk_label_set_text(GTK_LABEL(v->account), text);
    g_free(text);
}

void gview_sign_out(gview *v)
{
    if (!v->ag || !agent_account(v->ag))
        return;
    char account[AGENT_NAME_BYTES], err[AGENT_TEXT_BYTES];
    snprintf(account, sizeof account, "%s", agent_account(v->ag));
    if (agent_sign_out(v->ag, false, err, sizeof err) == 0)
        gview_log(v, _("Signed out of %s. New games are played as the guest %s."), account,
                  agent_name(v->ag));
    else                        /* forgotten here all the same (agent.h) */
        gview_log(v, _("Signed out here; the service did not hear it: %s"), err);
    if (v->password)           /* nothing left to change */
        gtk_window_close(GTK_WINDOW(gpassword_window(v->password)));
    gview_refresh(v);
}

/* ------------------------------------------------ change-password dialog */

struct gpassword {
    gview *v;
    GtkWidget *window;
    GtkWidget *old, *new1, *new2;   /* GtkPasswordEntry */
    GtkWidget *message;             /* the refusal in red, or "" */
    GtkWidget *btn_change;
    char error[AGENT_TEXT_BYTES];
};

static void say(gpassword *p, const char *text)
{
    snprintf(p->error, sizeof p->error, "%s", text);
    gtk_label_set_text(GTK_LABEL(p->message), text);
}

static const char *text_of(GtkWidget *e)
{
    return gtk_editable_get_text(GTK_EDITABLE(e));
}

static void clear(gpassword *p)
{
    gtk_editable_set_text(GTK_EDITABLE(p->old), "");
    gtk_editable_set_text(GTK_EDITABLE(p->new1), "");
    gtk_editable_set_text(GTK_EDITABLE(p->new2), "");
}

/* 0 when changed (the dialog is then closed), -1 with the reason shown. */
static int change(gpassword *p)
{
    gview *v = p->v;
    if (!*text_of(p->old) || !*text_of(p->new1)) {
        say(p, _("Type your password, then the new one twice."));
        return -1;
    }
    if (strcmp(text_of(p->new1), text_of(p->new2)) != 0) {
        say(p, _("The two new passwords differ: type the same one in both fields."));
        gtk_widget_grab_focus(p->new2);
        return -1;
    }
    char err[AGENT_TEXT_BYTES];
    int rc = agent_change_password(v->ag, text_of(p->old), text_of(p->new1), err, sizeof err);
    clear(p);
    if (rc != 0) {
        char *text = g_strdup_printf("%s.", err);   /* as a sentence, like the connect dialog's */
        text[0] = (char)g_ascii_toupper(text[0]);
        say(p, text);
        g_free(text);
        gtk_widget_grab_focus(p->old);
        gview_refresh(v);          /* the session may have been forgotten */
        return -1;
    }
    gview_log(v, _("Your password was changed; your other sessions were signed out."));
    gtk_window_close(GTK_WINDOW(p->window));
    return 0;
}

static void on_change(GtkWidget *w, gpointer data)
{
    (void)w;
    change(data);
}

static void on_cancel(GtkButton *b, gpointer data)
{
    (void)b;
    gpassword *p = data;
    gtk_window_close(GTK_WINDOW(p->window));
}

/* Closed: GTK destroys the window, after which nothing calls us with p. */
static gboolean on_close_request(GtkWindow *w, gpointer data)
{
    (void)w;
    gpassword *p = data;
    p->v->password = NULL;
    clear(p);
    g_free(p);
    return FALSE;
}

static GtkWidget *secret(gpassword *p, GtkWidget *grid, int row, const char *label,
                         const char *accessible)
{
    GtkWidget *e = gtk_password_entry_new();
    gtk_widget_set_hexpand(e, TRUE);
    gtk_password_entry_set_show_peek_icon(GTK_PASSWORD_ENTRY(e), TRUE);
    gtk_accessible_update_property(GTK_ACCESSIBLE(e), GTK_ACCESSIBLE_PROPERTY_LABEL, accessible,
                                   -1);
    g_signal_connect(e, "activate", G_CALLBACK(on_change), p);
    GtkWidget *l = gtk_label_new_with_mnemonic(label);
    gtk_label_set_xalign(GTK_LABEL(l), 0);
    gtk_label_set_mnemonic_widget(GTK_LABEL(l), e);
    gtk_grid_attach(GTK_GRID(grid), l, 0, row, 1, 1);
    gtk_grid_attach(GTK_GRID(grid), e, 1, row, 1, 1);
    return e;
}

static gpassword *gpassword_new(gview *v)
{
    gpassword *p = g_new0(gpassword, 1);
    p->v = v;
    p->window = gview_dialog(v, _("Sungka \u2014 change password"));
    gtk_window_set_modal(GTK_WINDOW(p->window), TRUE);
    gtk_window_set_default_size(GTK_WINDOW(p->window), 380, -1);
    g_signal_connect(p->window, "close-request", G_CALLBACK(on_close_request), p);
    GtkWidget *box = gview_padded_column(8, 18);
    GtkWidget *grid = gtk_grid_new();
    gtk_grid_set_row_spacing(GTK_GRID(grid), 6);
    gtk_grid_set_column_spacing(GTK_GRID(grid), 10);
    p->old = secret(p, grid, 0, _("_Password"), _("Your password now"));
    p->new1 = secret(p, grid, 1, _("_New password"), _("The new password"));
    p->new2 = secret(p, grid, 2, _("R_epeat"), _("The new password again"));
    gtk_box_append(GTK_BOX(box), grid);
    GtkWidget *note = gtk_label_new(_("Your other sessions are signed out; this one stays."));
    gtk_label_set_xalign(GTK_LABEL(note), 0);
    gtk_label_set_wrap(GTK_LABEL(note), TRUE);
    gtk_widget_add_css_class(note, "dim-label");
    gtk_box_append(GTK_BOX(box), note);
    p->message = gtk_label_new(NULL);
    gtk_label_set_xalign(GTK_LABEL(p->message), 0);
    gtk_label_set_wrap(GTK_LABEL(p->message), TRUE);
    gtk_widget_add_css_class(p->message, "error");
    gtk_box_append(GTK_BOX(box), p->message);
    GtkWidget *row = gtk_box_new(GTK_ORIENTATION_HORIZONTAL, 6);
    gtk_widget_set_halign(row, GTK_ALIGN_END);
    GtkWidget *cancel = gview_mnemonic_button(_("_Cancel"));
    p->btn_change = gview_mnemonic_button(_("C_hange"));
    gtk_widget_add_css_class(p->btn_change, "suggested-action");
    g_signal_connect(cancel, "clicked", G_CALLBACK(on_cancel), p);
    g_signal_connect(p->btn_change, "clicked", G_CALLBACK(on_change), p);
    gtk_box_append(GTK_BOX(row), cancel);
    gtk_box_append(GTK_BOX(row), p->btn_change);
    gtk_box_append(GTK_BOX(box), row);
    gtk_window_set_child(GTK_WINDOW(p->window), box);
    gtk_window_set_default_widget(GTK_WINDOW(p->window), p->btn_change);
    return p;
}

void gpassword_show(gview *v)
{
    if (!v->ag || !agent_account(v->ag))
        return;
    if (!v->password)
        v->password = gpassword_new(v);
    gtk_window_present(GTK_WINDOW(v->password->window));
    gtk_widget_grab_focus(v->password->old);
}

void gpassword_free(gpassword *p)
{
    if (!p)
        return;
    if (p->v->password == p)
        p->v->password = NULL;
    clear(p);
    gtk_window_destroy(GTK_WINDOW(p->window));
    g_free(p);
}

int gpassword_submit(gpassword *p, const char *old_password, const char *new_password,
                     const char *repeat)
{
    gtk_editable_set_text(GTK_EDITABLE(p->old), old_password);
    gtk_editable_set_text(GTK_EDITABLE(p->new1), new_password);
    gtk_editable_set_text(GTK_EDITABLE(p->new2), repeat);
    return change(p);
}

const char *gpassword_error(const gpassword *p)
{
    return p->error;
}

GtkWidget *gpassword_window(const gpassword *p)
{
    return p->window;
}
