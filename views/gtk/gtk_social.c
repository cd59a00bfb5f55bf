/*
 * gtk_social.c — blocking and reporting in the main window (docs/rules.md,
 * "Blocking and reporting"): two commands, win.block and win.report, on the
 * person chosen in the chat's recipient list (the one a private message
 * would go to), for a signed-in user. Block asks first; Report asks for the
 * reason in a small dialog. The calls block briefly (the agent's deadline),
 * as the account's do; what the service answered goes to the game's log.
 */
#include <stdio.h>
#include <string.h>

#include "gtk_view_internal.h"

bool gsocial_chosen(gview *v, char *name, size_t len)
{
    guint sel = gtk_drop_down_get_selected(GTK_DROP_DOWN(v->recipient));
    guint n = g_list_model_get_n_items(G_LIST_MODEL(v->recipients));
    if (sel == GTK_INVALID_LIST_POSITION || sel == 0 || sel >= n)   /* 0: Everyone */
        return false;
    snprintf(name, len, "%s", gtk_string_list_get_string(v->recipients, sel));
    return true;
}

void gsocial_block(gview *v)
{
    char name[AGENT_NAME_BYTES], shown[AGENT_NAME_BYTES], err[AGENT_TEXT_BYTES];
    if (!v->ag || !gsocial_chosen(v, name, sizeof name))
        return;
    if (agent_block(v->ag, name, true, shown, err, sizeof err) == 0)
        gview_log(v, _("Blocked %s: you will not read them, and you will not be paired with "
                       "them."), shown);
    else
        gview_log(v, "%s", err);
}

/* ------------------------------------------------------------ the report */

static void on_report_send(GtkButton *b, gpointer data)
{
    gview *v = data;
    GtkWidget *d = gtk_widget_get_ancestor(GTK_WIDGET(b), GTK_TYPE_WINDOW);
    GtkWidget *entry = g_object_get_data(G_OBJECT(d), "reason");
    const char *name = g_object_get_data(G_OBJECT(d), "name");
    char err[AGENT_TEXT_BYTES];
    int64_t id = 0;
    if (agent_report(v->ag, name, gtk_editable_get_text(GTK_EDITABLE(entry)), &id, err,
                     sizeof err) == 0)
        gview_log(v, _("Reported %s to the operator (report %lld)."), name, (long long)id);
    else
        gview_log(v, "%s", err);
    gtk_window_destroy(GTK_WINDOW(d));
}

static void on_report_cancel(GtkButton *b, gpointer data)
{
    (void)data;
    gtk_window_destroy(GTK_WINDOW(gtk_widget_get_ancestor(GTK_WIDGET(b), GTK_TYPE_WINDOW)));
}

void gsocial_report(gview *v)
{
    char name[AGENT_NAME_BYTES];
    if (!v->ag || !gsocial_chosen(v, name, sizeof name))
        return;
    GtkWidget *d = gview_dialog(v, _("Report a player"));
    gtk_window_set_modal(GTK_WINDOW(d), TRUE);
    g_object_set_data_full(G_OBJECT(d), "name", g_strdup(name), g_free);
    GtkWidget *box = gview_padded_column(12, 18);
    char *question = g_strdup_printf(_("Report %s to the operator of this service, about this "
                                       "game. Why?"), name);
    GtkWidget *label = gtk_label_new(question);
    g_free(question);
    gtk_label_set_wrap(GTK_LABEL(label), TRUE);
    GtkWidget *entry = gtk_entry_new();
    gtk_accessible_update_property(GTK_ACCESSIBLE(entry), GTK_ACCESSIBLE_PROPERTY_LABEL,
                                   _("Reason"), -1);
    g_object_set_data(G_OBJECT(d), "reason", entry);
    GtkWidget *row = gtk_box_new(GTK_ORIENTATION_HORIZONTAL, 6);
    gtk_widget_set_halign(row, GTK_ALIGN_END);
    GtkWidget *no = gtk_button_new_with_label(_("Cancel"));
    GtkWidget *ok = gtk_button_new_with_label(_("Report"));
    gtk_widget_add_css_class(ok, "destructive-action");
    g_signal_connect(no, "clicked", G_CALLBACK(on_report_cancel), v);
    g_signal_connect(ok, "clicked", G_CALLBACK(on_report_send), v);
    gtk_box_append(GTK_BOX(row), no);
    gtk_box_append(GTK_BOX(row), ok);
    gtk_box_append(GTK_BOX(box), label);
    gtk_box_append(GTK_BOX(box), entry);
    gtk_box_append(GTK_BOX(box), row);
    gtk_window_set_child(GTK_WINDOW(d), box);
    gtk_window_present(GTK_WINDOW(d));
}

int gsocial_report_answer(gview *v, const char *reason)
{
    GListModel *tops = gtk_window_get_toplevels();
    GtkWidget *entry = NULL, *dialog = NULL;
    for (guint i = 0; !entry && i < g_list_model_get_n_items(tops); i++) {
        GtkWindow *w = g_list_model_get_item(tops, i);
        entry = g_object_get_data(G_OBJECT(w), "reason");
        if (entry)
            dialog = GTK_WIDGET(w);
        g_object_unref(w);
    }
    if (!entry)
        return -1;
    gtk_editable_set_text(GTK_EDITABLE(entry), reason);
    GtkWidget *box = gtk_window_get_child(GTK_WINDOW(dialog));
    GtkWidget *row = gtk_widget_get_last_child(box);
    on_report_send(GTK_BUTTON(gtk_widget_get_last_child(row)), v);
    return 0;
}
