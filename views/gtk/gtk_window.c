/*
 * gtk_window.c — the main window's widgets and what its buttons do: the
 * board with the status line and banner above it and the Ready / Sit /
 * Stand / Leave / Games / History buttons below; beside it the players, the
 * log and the chat entry. Every command is an action with an accelerator
 * (Ctrl+R: ready, Ctrl+H: history, Ctrl+L: chat, Ctrl+Q: quit, ...), shown
 * in its button's tooltip. Over the players, who we are (gtk_account.c),
 * with Sign out (Ctrl+O) and Password (Ctrl+P) while signed in. Leaving or
 * closing during a running game asks first, since it loses the game.
 *
 * The window is an AdwApplicationWindow: a header bar (the game's title,
 * the primary menu of gtk_menu.c) over an AdwFlap holding the board's
 * column and the side pane. The rows of buttons under the board wrap
 * (GtkFlowBox) and show only the commands that apply, so that in any
 * language every control fits the default 960x640 window; under the width
 * both columns need, the side pane folds away behind a header bar button
 * and the board keeps the window. Every button's accessible name is its
 * label without the mnemonic's underscore (gview_set_button_label).
 */
#include <stdio.h>
#include <string.h>

#include "gtk_view_internal.h"

/* The side pane's widest (players, moves, log, chat): wider lines wrap. */
#define PANE_MAX_WIDTH 320

/* --------------------------------------------------------- small parts */

void gview_close_on_escape(GtkWidget *w)
{
    GtkEventController *keys = gtk_shortcut_controller_new();
    gtk_shortcut_controller_add_shortcut(
        GTK_SHORTCUT_CONTROLLER(keys),
        gtk_shortcut_new(gtk_keyval_trigger_new(GDK_KEY_Escape, 0),
                         gtk_named_action_new("window.close")));
    gtk_widget_add_controller(w, keys);
}

GtkWidget *gview_dialog(gview *v, const char *title)
{
    GtkWidget *w = gtk_window_new();
    gtk_window_set_title(GTK_WINDOW(w), title);
    gtk_window_set_transient_for(GTK_WINDOW(w), GTK_WINDOW(v->window));
    gtk_window_set_modal(GTK_WINDOW(w), TRUE);
    gtk_window_set_destroy_with_parent(GTK_WINDOW(w), TRUE);
    gview_close_on_escape(w);
    return w;
}

void gview_set_button_label(GtkWidget *button, const char *mnemonic_label)
{
    if (GTK_IS_CHECK_BUTTON(button)) {
        gtk_check_button_set_label(GTK_CHECK_BUTTON(button), mnemonic_label);
        gtk_check_button_set_use_underline(GTK_CHECK_BUTTON(button), TRUE);
    } else {
        gtk_button_set_label(GTK_BUTTON(button), mnemonic_label);
        gtk_button_set_use_underline(GTK_BUTTON(button), TRUE);
    }
    /* "_Ready" read out as "Ready": the underscore only marks Alt+R */
    GString *name = g_string_new(NULL);
    for (const char *c = mnemonic_label; *c; c++)
        if (*c != '_' || c[1] == '_')
            g_string_append_c(name, *c == '_' ? *c++ : *c);
    gtk_accessible_update_property(GTK_ACCESSIBLE(button), GTK_ACCESSIBLE_PROPERTY_LABEL,
                                   name->str, -1);
    g_string_free(name, TRUE);
}

GtkWidget *gview_padded_column(int spacing, int margin)
{
    GtkWidget *box = gtk_box_new(GTK_ORIENTATION_VERTICAL, spacing);
    gtk_widget_set_margin_start(box, margin);
    gtk_widget_set_margin_end(box, margin);
    gtk_widget_set_margin_top(box, margin);
    gtk_widget_set_margin_bottom(box, margin);
    return box;
}

/* ------------------------------------------------------------ commands */

/* The window's commands are actions — win.NAME on the window, app.quit on
 * the application — so that a button, an accelerator and the test hook
 * reach them alike, and a button is usable exactly when its action is
 * enabled (gview_update_buttons). */

static void act_ready(GSimpleAction *a, GVariant *p, gpointer data)
{
    (void)a;
    (void)p;
    gview *v = data;
    const agent_model *m = gview_model(v);
    const agent_person *me = gview_find_person(m, m->my_name);
    agent_ready(v->ag, !(me && me->ready));
}

static void act_sit(GSimpleAction *a, GVariant *p, gpointer data)
{
    (void)a;
    (void)p;
    gview *v = data;
    agent_sit(v->ag, -1);
}

static void act_stand(GSimpleAction *a, GVariant *p, gpointer data)
{
    (void)a;
    (void)p;
    gview *v = data;
    agent_stand(v->ag);
}

/* A small yes/no question (GtkAlertDialog is newer than GTK 4.8). */
typedef void (*answer_fn)(gview *v);

static void on_ask_yes(GtkButton *b, gpointer data)
{
    GtkWidget *d = gtk_widget_get_ancestor(GTK_WIDGET(b), GTK_TYPE_WINDOW);
    answer_fn fn = (answer_fn)g_object_get_data(G_OBJECT(d), "answer");
    gview *v = data;
    gtk_window_destroy(GTK_WINDOW(d));
    fn(v);
}

static void on_ask_no(GtkButton *b, gpointer data)
{
    (void)data;
    gtk_window_destroy(GTK_WINDOW(gtk_widget_get_ancestor(GTK_WIDGET(b), GTK_TYPE_WINDOW)));
}

static void ask(gview *v, const char *question, const char *yes, answer_fn fn)
{
    GtkWidget *d = gview_dialog(v, _("Sungka"));
    gtk_window_set_modal(GTK_WINDOW(d), TRUE);
    g_object_set_data(G_OBJECT(d), "answer", (gpointer)fn);
    GtkWidget *box = gview_padded_column(12, 18);
    GtkWidget *label = gtk_label_new(question);
    gtk_label_set_wrap(GTK_LABEL(label), TRUE);
    GtkWidget *row = gtk_box_new(GTK_ORIENTATION_HORIZONTAL, 6);
    gtk_widget_set_halign(row, GTK_ALIGN_END);
    GtkWidget *no = gtk_button_new_with_label(_("Cancel"));
    GtkWidget *ok = gtk_button_new_with_label(yes);
    gtk_widget_add_css_class(ok, "destructive-action");
    g_signal_connect(no, "clicked", G_CALLBACK(on_ask_no), v);
    g_signal_connect(ok, "clicked", G_CALLBACK(on_ask_yes), v);
    gtk_box_append(GTK_BOX(row), no);
    gtk_box_append(GTK_BOX(row), ok);
    gtk_box_append(GTK_BOX(box), label);
    gtk_box_append(GTK_BOX(box), row);
    gtk_window_set_child(GTK_WINDOW(d), box);
    gtk_window_present(GTK_WINDOW(d));
}

static void do_leave(gview *v)
{
    char id[32];
    snprintf(id, sizeof id, "%s", agent_game_id(v->ag));
    gview_anim_jump(v);
    gview_close_over_dialog(v);
    if (agent_leave(v->ag) == 0)
        gview_log(v, _("You left game %s."), id);
    else
        gview_log(v, _("Could not tell the service that you left."));
    v->flash[0] = '\0';
    v->connection[0] = '\0';      /* that game's stream is over */
    gview_sync_shown(v);
    gview_refresh(v);
    globby_show(v->lobby);
}

static void act_leave(GSimpleAction *a, GVariant *p, gpointer data)
{
    (void)a;
    (void)p;
    gview *v = data;
    if (gview_playing(v))
        ask(v, _("Leaving now loses the game, as resigning does. Leave?"), _("Leave"),
            do_leave);
    else
        do_leave(v);
}

/* -------------------------------------------- leaving a game the fair way */

static void do_resign(gview *v)
{
    agent_resign(v->ag);
}

static void act_resign(GSimpleAction *a, GVariant *p, gpointer data)
{
    (void)a;
    (void)p;
    gview *v = data;
    ask(v, game_seats(&gview_model(v)->state) == 2
               ? _("Resign? The other player wins.")
               : _("Resign? You are out of the game; the others play on."),
        _("Resign"), do_resign);
}

static void do_abort(gview *v)
{
    agent_abort(v->ag);
}

static void act_abort(GSimpleAction *a, GVariant *p, gpointer data)
{
    (void)a;
    (void)p;
    ask(data, _("Abort the game? It ends with no result."), _("Abort"), do_abort);
}

static void act_offer_draw(GSimpleAction *a, GVariant *p, gpointer data)
{
    (void)a;
    (void)p;
    gview *v = data;
    agent_offer_draw(v->ag);
}

static void act_accept_draw(GSimpleAction *a, GVariant *p, gpointer data)
{
    (void)a;
    (void)p;
    gview *v = data;
    agent_answer_draw(v->ag, true);
}

static void act_decline_draw(GSimpleAction *a, GVariant *p, gpointer data)
{
    (void)a;
    (void)p;
    gview *v = data;
    agent_answer_draw(v->ag, false);
}

static void act_rematch(GSimpleAction *a, GVariant *p, gpointer data)
{
    (void)a;
    (void)p;
    gview *v = data;
    agent_rematch(v->ag, false);
}

static void act_decline_rematch(GSimpleAction *a, GVariant *p, gpointer data)
{
    (void)a;
    (void)p;
    gview *v = data;
    agent_rematch(v->ag, true);
}

static void act_export(GSimpleAction *a, GVariant *p, gpointer data)
{
    (void)a;
    (void)p;
    gmoves_export_dialog(data);
}

static void act_claim(GSimpleAction *a, GVariant *p, gpointer data)
{
    (void)a;
    (void)p;
    gview *v = data;
    agent_claim(v->ag);
}

static void act_sign_out(GSimpleAction *a, GVariant *p, gpointer data)
{
    (void)a;
    (void)p;
    gview_sign_out(data);
}

static void act_password(GSimpleAction *a, GVariant *p, gpointer data)
{
    (void)a;
    (void)p;
    gpassword_show(data);
}

static void act_block(GSimpleAction *a, GVariant *p, gpointer data)
{
    (void)a;
    (void)p;
    gview *v = data;
    char name[AGENT_NAME_BYTES];
    if (!gsocial_chosen(v, name, sizeof name))
        return;
    char *q = g_strdup_printf(_("Block %s? You will read nothing more from them, and you will "
                                "not be paired with them."), name);
    ask(v, q, _("Block"), gsocial_block);
    g_free(q);
}

static void act_report(GSimpleAction *a, GVariant *p, gpointer data)
{
    (void)a;
    (void)p;
    gsocial_report(data);
}

static void act_games(GSimpleAction *a, GVariant *p, gpointer data)
{
    (void)a;
    (void)p;
    gview *v = data;
    globby_show(v->lobby);
}

static void act_history(GSimpleAction *a, GVariant *p, gpointer data)
{
    (void)a;
    (void)p;
    gview *v = data;
    if (!v->history)
        v->history = ghistory_new(v);
    ghistory_show(v->history);
}

/* The chat entry, ready to type into. */
static void act_chat(GSimpleAction *a, GVariant *p, gpointer data)
{
    (void)a;
    (void)p;
    gview *v = data;
    gtk_widget_grab_focus(v->entry);
}

/* The board, for the arrow keys and Enter; drawn again. */
static void act_board(GSimpleAction *a, GVariant *p, gpointer data)
{
    (void)a;
    (void)p;
    gview *v = data;
    gtk_widget_grab_focus(v->area);
    gtk_widget_queue_draw(v->area);
}

/* Quitting during a running game loses it: ask first. */
static void quit_asking(gview *v)
{
    if (gview_playing(v) && !v->quitting)
        ask(v, _("Closing now loses the game, as resigning does. Quit?"), _("Quit"),
            gview_quit);
    else
        gview_quit(v);
}

static void act_quit(GSimpleAction *a, GVariant *p, gpointer data)
{
    (void)a;
    (void)p;
    quit_asking(data);
}

static gboolean on_close_request(GtkWindow *w, gpointer data)
{
    (void)w;
    quit_asking(data);
    return TRUE;                /* kept until answered; gtk_view.c destroys it */
}

static const GActionEntry win_actions[] = {
    {.name = "ready", .activate = act_ready},
    {.name = "sit", .activate = act_sit},
    {.name = "stand", .activate = act_stand},
    {.name = "leave", .activate = act_leave},
    {.name = "games", .activate = act_games},
    {.name = "history", .activate = act_history},
    {.name = "chat", .activate = act_chat},
    {.name = "board", .activate = act_board},
    {.name = "resign", .activate = act_resign},
    {.name = "abort", .activate = act_abort},
    {.name = "offer-draw", .activate = act_offer_draw},
    {.name = "accept-draw", .activate = act_accept_draw},
    {.name = "decline-draw", .activate = act_decline_draw},
    {.name = "claim", .activate = act_claim},
    {.name = "rematch", .activate = act_rematch},
    {.name = "export", .activate = act_export},
    {.name = "decline-rematch", .activate = act_decline_rematch},
    {.name = "sign-out", .activate = act_sign_out},
    {.name = "password", .activate = act_password},
    {.name = "block", .activate = act_block},
    {.name = "report", .activate = act_report},
};

static const GActionEntry app_actions[] = {
    {.name = "quit", .activate = act_quit},
};

/* "Ctrl+H" for win.history, in the user's words; NULL when it has none.
 * Free with g_free. */
static char *accel_label(const char *action)
{
    for (size_t i = 0; i < gview_n_accels; i++) {
        guint key;
        GdkModifierType mods;
        if (strcmp(gview_accels[i].action, action) == 0 &&
            gtk_accelerator_parse(gview_accels[i].keys[0], &key, &mods))
            return gtk_accelerator_get_label(key, mods);
    }
    return NULL;
}

static void set_enabled(gview *v, const char *name, bool on)
{
    GAction *a = g_action_map_lookup_action(G_ACTION_MAP(v->window), name);
    g_simple_action_set_enabled(G_SIMPLE_ACTION(a), on);
}

/* Show or hide the button of an action in one of the rows under the board:
 * a button that does not apply now leaves room for those that do (the rows
 * wrap, so every shown one stays on screen in any language). */
static void show_command(gview *v, const char *action, bool on)
{
    GtkWidget *rows[] = {gtk_widget_get_ancestor(v->btn_ready, GTK_TYPE_FLOW_BOX), v->fair_row,
                         v->rematch_row};
    for (size_t i = 0; i < G_N_ELEMENTS(rows); i++)
        for (GtkWidget *c = gtk_widget_get_first_child(rows[i]); c;
             c = gtk_widget_get_next_sibling(c)) {
            GtkWidget *b = gtk_flow_box_child_get_child(GTK_FLOW_BOX_CHILD(c));
            const char *name = gtk_actionable_get_action_name(GTK_ACTIONABLE(b));
            if (name && strcmp(name, action) == 0)
                gtk_widget_set_visible(c, on);
        }
}

void gview_update_buttons(gview *v)
{
    const agent_model *m = gview_model(v);
    bool in = gview_in_game(v);
    bool waiting = in && m->status == AGENT_GAME_WAITING;
    const agent_person *me = gview_find_person(m, m->my_name);
    bool ready = me && me->ready;
    const char *ready_label = waiting && ready ? _("_Not ready") : _("_Ready");
    if (strcmp(gtk_button_get_label(GTK_BUTTON(v->btn_ready)), ready_label) != 0)
        gview_set_button_label(v->btn_ready, ready_label);
    set_enabled(v, "ready", waiting && m->my_seat >= 0);
    set_enabled(v, "sit", waiting && m->my_seat < 0);
    set_enabled(v, "stand", waiting && m->my_seat >= 0);
    /* taking or leaving a seat, and being ready: before the start only */
    show_command(v, "win.ready", !in || waiting);
    show_command(v, "win.sit", !in || waiting);
    show_command(v, "win.stand", !in || waiting);
    set_enabled(v, "leave", in);
    set_enabled(v, "games", v->ag && !gview_playing(v));
    set_enabled(v, "history", v->ag != NULL);
    set_enabled(v, "export", in && m->status != AGENT_GAME_WAITING);
    set_enabled(v, "chat", in);
    /* Leaving fairly: a seated player still in a running game. */
    bool playing = in && m->status == AGENT_GAME_RUNNING && m->my_seat >= 0 &&
                   m->have_state && !game_is_out(&m->state, m->my_seat);
    bool two = playing && game_seats(&m->state) == 2;
    bool offered_to_me = two && m->draw_offer >= 0 && !agent_holds_seat(v->ag, m->draw_offer);
    bool claimable = playing && (m->claimable & ~(1u << m->my_seat)) != 0;
    set_enabled(v, "resign", playing);
    set_enabled(v, "abort", playing);
    set_enabled(v, "offer-draw", two && m->draw_offer < 0);
    set_enabled(v, "accept-draw", offered_to_me);
    set_enabled(v, "decline-draw", offered_to_me);
    set_enabled(v, "claim", claimable);
    show_command(v, "win.accept-draw", offered_to_me);
    show_command(v, "win.decline-draw", offered_to_me);
    show_command(v, "win.claim", claimable);
    /* After the end: a rematch, seats rotated. */
    bool ended = in && (m->status == AGENT_GAME_FINISHED || m->status == AGENT_GAME_ABANDONED);
    bool over = ended && m->my_seat >= 0;
    bool i_accepted = over && ((m->rematch_accepted >> m->my_seat) & 1);
    set_enabled(v, "rematch", over && !i_accepted);
    set_enabled(v, "decline-rematch", over && m->rematch_accepted && !i_accepted);
    gtk_widget_set_visible(v->rematch_row, ended);
    bool signed_in = v->ag && agent_account(v->ag);
    set_enabled(v, "sign-out", signed_in);
    set_enabled(v, "password", signed_in);
    gtk_widget_set_visible(v->btn_sign_out, signed_in);
    gtk_widget_set_visible(v->btn_password, signed_in);
    char chosen[AGENT_NAME_BYTES];
    bool someone = signed_in && in && gsocial_chosen(v, chosen, sizeof chosen);
    set_enabled(v, "block", someone);
    set_enabled(v, "report", someone);
    gtk_widget_set_visible(v->social_row, signed_in && in);
    gtk_widget_set_visible(v->fair_row, playing);
    gtk_widget_set_sensitive(v->entry, in);
    gtk_widget_set_sensitive(v->recipient, in);
}

/* ------------------------------------------------------------ building */

GtkWidget *gview_mnemonic_button(const char *mnemonic_label)
{
    GtkWidget *b = gtk_button_new();
    gview_set_button_label(b, mnemonic_label);
    return b;
}

GtkWidget *gview_mnemonic_check(const char *mnemonic_label)
{
    GtkWidget *b = gtk_check_button_new();
    gview_set_button_label(b, mnemonic_label);
    return b;
}

/* A button for a command: its tooltip says what it does and its key; a
 * screen reader says its label as its name and the tooltip's sentence as
 * its description. */
static GtkWidget *command_button(const char *label, const char *tip, const char *action)
{
    GtkWidget *b = gview_mnemonic_button(label);
    gtk_actionable_set_action_name(GTK_ACTIONABLE(b), action);
    char *key = accel_label(action);
    /* TRANSLATORS: a button's tooltip, then its keyboard shortcut ("Ctrl+H") */
    char *text = key ? g_strdup_printf(_("%s (%s)"), tip, key) : g_strdup(tip);
    gtk_widget_set_tooltip_text(b, text);
    gtk_accessible_update_property(GTK_ACCESSIBLE(b), GTK_ACCESSIBLE_PROPERTY_DESCRIPTION, tip,
                                   -1);
    g_free(text);
    g_free(key);
    return b;
}

/* A row of buttons that wraps onto more lines when the window is narrow or
 * the language's words are long, so that no button is ever cut off (a
 * GtkBox's minimum width is every button's side by side). */
static GtkWidget *button_row(void)
{
    GtkWidget *row = gtk_flow_box_new();
    gtk_flow_box_set_selection_mode(GTK_FLOW_BOX(row), GTK_SELECTION_NONE);
    gtk_flow_box_set_column_spacing(GTK_FLOW_BOX(row), 6);
    gtk_flow_box_set_row_spacing(GTK_FLOW_BOX(row), 6);
    gtk_flow_box_set_max_children_per_line(GTK_FLOW_BOX(row), 12);
    return row;
}

static void row_add(GtkWidget *row, GtkWidget *button)
{
    gtk_flow_box_append(GTK_FLOW_BOX(row), button);
    /* the button takes the focus, not the flow box's cell around it */
    gtk_widget_set_focusable(gtk_widget_get_parent(button), FALSE);
}

/* The window's actions and the application's, with their accelerators. */
static void add_actions(gview *v)
{
    g_action_map_add_action_entries(G_ACTION_MAP(v->window), win_actions,
                                    G_N_ELEMENTS(win_actions), v);
    g_action_map_add_action_entries(G_ACTION_MAP(v->app), app_actions,
                                    G_N_ELEMENTS(app_actions), v);
    for (size_t i = 0; i < gview_n_accels; i++)
        gtk_application_set_accels_for_action(v->app, gview_accels[i].action,
                                              gview_accels[i].keys);
}

void gview_build(gview *v)
{
    v->window = adw_application_window_new(v->app);
    gtk_window_set_default_size(GTK_WINDOW(v->window), 960, 640);
    g_signal_connect(v->window, "close-request", G_CALLBACK(on_close_request), v);
    add_actions(v);

    /* The header bar: the game's title, the side pane's button (while it is
     * folded away) and the primary menu. */
    GtkWidget *outer = gtk_box_new(GTK_ORIENTATION_VERTICAL, 0);
    GtkWidget *header = adw_header_bar_new();
    v->title = adw_window_title_new(_("Sungka"), NULL);
    adw_header_bar_set_title_widget(ADW_HEADER_BAR(header), v->title);
    v->menu_button = gmenu_button(v);
    adw_header_bar_pack_end(ADW_HEADER_BAR(header), v->menu_button);
    v->pane_toggle = gtk_toggle_button_new();
    gtk_button_set_icon_name(GTK_BUTTON(v->pane_toggle), "sidebar-show-right-symbolic");
    gtk_widget_set_tooltip_text(v->pane_toggle, _("Players, moves and chat"));
    gtk_accessible_update_property(GTK_ACCESSIBLE(v->pane_toggle),
                                   GTK_ACCESSIBLE_PROPERTY_LABEL,
                                   _("Players, moves and chat"), -1);
    adw_header_bar_pack_end(ADW_HEADER_BAR(header), v->pane_toggle);
    gtk_box_append(GTK_BOX(outer), header);

    /* Below it the board, and the side pane beside it; in a narrow window
     * (under the width both need) the pane folds away behind the header
     * bar's button and slides over the board when asked for. AdwFlap: the
     * breakpoints of libadwaita 1.4 are newer than Debian 12's 1.2. */
    v->flap = adw_flap_new();
    adw_flap_set_flap_position(ADW_FLAP(v->flap), GTK_PACK_END);
    adw_flap_set_fold_policy(ADW_FLAP(v->flap), ADW_FLAP_FOLD_POLICY_AUTO);
    adw_flap_set_fold_threshold_policy(ADW_FLAP(v->flap), ADW_FOLD_THRESHOLD_POLICY_MINIMUM);
    adw_flap_set_transition_type(ADW_FLAP(v->flap), ADW_FLAP_TRANSITION_TYPE_OVER);
    adw_flap_set_separator(ADW_FLAP(v->flap), gtk_separator_new(GTK_ORIENTATION_VERTICAL));
    gtk_widget_set_vexpand(v->flap, TRUE);
    g_object_bind_property(v->flap, "folded", v->pane_toggle, "visible", G_BINDING_SYNC_CREATE);
    g_object_bind_property(v->flap, "reveal-flap", v->pane_toggle, "active",
                           G_BINDING_SYNC_CREATE | G_BINDING_BIDIRECTIONAL);
    gtk_box_append(GTK_BOX(outer), v->flap);
    adw_application_window_set_content(ADW_APPLICATION_WINDOW(v->window), outer);

    /* left: banner, status, board, buttons */
    GtkWidget *left = gview_padded_column(6, 8);
    v->banner = gtk_label_new(NULL);
    gtk_widget_set_visible(v->banner, FALSE);
    gtk_accessible_update_property(GTK_ACCESSIBLE(v->banner), GTK_ACCESSIBLE_PROPERTY_LABEL,
                                   _("Result"), -1);
    v->status = gtk_label_new(NULL);
    gtk_label_set_wrap(GTK_LABEL(v->status), TRUE);
    gtk_label_set_xalign(GTK_LABEL(v->status), 0);
    gtk_accessible_update_property(GTK_ACCESSIBLE(v->status), GTK_ACCESSIBLE_PROPERTY_LABEL,
                                   _("Status"), -1);
    v->area = gtk_drawing_area_new();
    gtk_widget_set_hexpand(v->area, TRUE);
    gtk_widget_set_vexpand(v->area, TRUE);
    gtk_drawing_area_set_content_width(GTK_DRAWING_AREA(v->area), 240);
    gtk_drawing_area_set_content_height(GTK_DRAWING_AREA(v->area), 160);
    gtk_widget_set_focusable(v->area, TRUE);
    gtk_accessible_update_property(GTK_ACCESSIBLE(v->area), GTK_ACCESSIBLE_PROPERTY_LABEL,
                                   _("Game board: click a highlighted cup or cell to play, "
                                     "or use the arrow keys and Enter"),
                                   -1);
    gview_play_attach(v);
    /* drawn again in the other palette when the style turns dark or light */
    g_signal_connect_object(adw_style_manager_get_default(), "notify::dark",
                            G_CALLBACK(gtk_widget_queue_draw), v->area, G_CONNECT_SWAPPED);

    GtkWidget *buttons = button_row();
    v->btn_ready = command_button(_("_Ready"), _("Say you are ready to start"), "win.ready");
    v->btn_sit = command_button(_("_Sit"), _("Take an open seat"), "win.sit");
    v->btn_stand = command_button(_("S_tand"), _("Give up your seat and watch"), "win.stand");
    v->btn_leave = command_button(_("_Leave"), _("Leave this game"), "win.leave");
    v->btn_games = command_button(_("_Games\u2026"), _("List, create or join games"),
                                  "win.games");
    v->btn_history = command_button(_("_History\u2026"), _("Past matches and their replays"),
                                    "win.history");
    row_add(buttons, v->btn_ready);
    row_add(buttons, v->btn_sit);
    row_add(buttons, v->btn_stand);
    row_add(buttons, v->btn_leave);
    row_add(buttons, v->btn_games);
    row_add(buttons, v->btn_history);

    /* Shown only to a player of a running game (gview_update_buttons). */
    v->fair_row = button_row();
    const struct {
        const char *label, *tip, *action;
    } fair[] = {
        {N_("Resi_gn\u2026"), N_("Give up this game"), "win.resign"},
        {N_("Offer _draw"), N_("Offer the other player a draw"), "win.offer-draw"},
        {N_("_Accept draw"), N_("Accept the draw offered to you"), "win.accept-draw"},
        {N_("De_cline draw"), N_("Decline the draw offered to you"), "win.decline-draw"},
        {N_("A_bort\u2026"), N_("End the game with no result, before everyone has moved"),
         "win.abort"},
        {N_("Clai_m"), N_("A player left and did not come back in time: take the win"),
         "win.claim"},
    };
    for (size_t i = 0; i < G_N_ELEMENTS(fair); i++)
        row_add(v->fair_row, command_button(_(fair[i].label), _(fair[i].tip), fair[i].action));
    gtk_widget_set_visible(v->fair_row, FALSE);
    v->rematch_row = button_row();
    v->btn_rematch = command_button(_("Re_match"), _("Play again, each player one seat on (or "
                                                     "accept the rematch offered)"),
                                    "win.rematch");
    v->btn_no_rematch = command_button(_("_No rematch"), _("Decline the rematch offered"),
                                       "win.decline-rematch");
    row_add(v->rematch_row, v->btn_rematch);
    row_add(v->rematch_row, v->btn_no_rematch);
    row_add(v->rematch_row,
            command_button(_("E_xport\u2026"), _("Write this game down to a file "
                                                  "(reversi: f5d6c3\u2026)"),
                           "win.export"));
    gtk_widget_set_visible(v->rematch_row, FALSE);

    gtk_box_append(GTK_BOX(left), v->banner);
    gtk_box_append(GTK_BOX(left), v->status);
    gtk_box_append(GTK_BOX(left), gclock_new(v));
    gtk_box_append(GTK_BOX(left), v->area);
    v->moves_box = gtk_box_new(GTK_ORIENTATION_HORIZONTAL, 6);
    gtk_box_append(GTK_BOX(left), v->moves_box);
    gtk_box_append(GTK_BOX(left), buttons);
    gtk_box_append(GTK_BOX(left), v->fair_row);
    gtk_box_append(GTK_BOX(left), v->rematch_row);

    /* right: who we are, players, log, chat entry */
    GtkWidget *right = gview_padded_column(6, 8);
    gtk_widget_set_size_request(right, 260, -1);
    /* The name on a line of its own: a long one is wrapped, never cut. */
    GtkWidget *account_row = gtk_box_new(GTK_ORIENTATION_HORIZONTAL, 6);
    v->account = gtk_label_new(NULL);
    gtk_label_set_xalign(GTK_LABEL(v->account), 0);
    gtk_label_set_wrap(GTK_LABEL(v->account), TRUE);
    gtk_label_set_wrap_mode(GTK_LABEL(v->account), PANGO_WRAP_WORD_CHAR);
    gtk_accessible_update_property(GTK_ACCESSIBLE(v->account), GTK_ACCESSIBLE_PROPERTY_LABEL,
                                   _("Your account"), -1);
    v->btn_sign_out = command_button(_("Sign _out"), _("Sign out of your account"),
                                     "win.sign-out");
    v->btn_password = command_button(_("_Password…"), _("Change your password"),
                                     "win.password");
    gtk_box_append(GTK_BOX(account_row), v->btn_sign_out);
    gtk_box_append(GTK_BOX(account_row), v->btn_password);
    v->people = gtk_label_new(NULL);
    gtk_label_set_xalign(GTK_LABEL(v->people), 0);
    gtk_label_set_wrap(GTK_LABEL(v->people), TRUE);
    gtk_accessible_update_property(GTK_ACCESSIBLE(v->people), GTK_ACCESSIBLE_PROPERTY_LABEL,
                                   _("Players"), -1);
    v->log = gtk_text_view_new();
    gtk_text_view_set_editable(GTK_TEXT_VIEW(v->log), FALSE);
    gtk_text_view_set_cursor_visible(GTK_TEXT_VIEW(v->log), FALSE);
    gtk_text_view_set_wrap_mode(GTK_TEXT_VIEW(v->log), GTK_WRAP_WORD_CHAR);
    gtk_accessible_update_property(GTK_ACCESSIBLE(v->log), GTK_ACCESSIBLE_PROPERTY_LABEL,
                                   _("Game events and chat"), -1);
    GtkTextBuffer *tb = gtk_text_view_get_buffer(GTK_TEXT_VIEW(v->log));
    GtkTextIter end;
    gtk_text_buffer_get_end_iter(tb, &end);
    gtk_text_buffer_create_mark(tb, "end", &end, FALSE);
    GtkWidget *scroll = gtk_scrolled_window_new();
    gtk_scrolled_window_set_child(GTK_SCROLLED_WINDOW(scroll), v->log);
    gtk_widget_set_vexpand(scroll, TRUE);

    GtkWidget *chat = gtk_box_new(GTK_ORIENTATION_HORIZONTAL, 4);
    const char *none[] = {NULL};
    v->recipients = gtk_string_list_new(none);
    v->recipient = gtk_drop_down_new(G_LIST_MODEL(v->recipients), NULL);
    gtk_widget_set_tooltip_text(v->recipient, _("Send to everyone, or privately to one person"));
    gtk_accessible_update_property(GTK_ACCESSIBLE(v->recipient), GTK_ACCESSIBLE_PROPERTY_LABEL,
                                   _("Chat recipient"), -1);
    v->entry = gtk_entry_new();
    gtk_widget_set_hexpand(v->entry, TRUE);
    gtk_entry_set_placeholder_text(GTK_ENTRY(v->entry), _("Chat (/tell NAME text: private)"));
    gtk_accessible_update_property(GTK_ACCESSIBLE(v->entry), GTK_ACCESSIBLE_PROPERTY_LABEL,
                                   _("Chat message"), -1);
    g_signal_connect(v->entry, "activate", G_CALLBACK(gview_on_chat), v);
    gtk_box_append(GTK_BOX(chat), v->recipient);
    gtk_box_append(GTK_BOX(chat), v->entry);
    /* Block and report whoever the recipient list names (gtk_social.c). */
    v->social_row = gtk_box_new(GTK_ORIENTATION_HORIZONTAL, 4);
    gtk_box_append(GTK_BOX(v->social_row),
                   command_button(_("_Block"), _("Block the person chosen for private "
                                                 "messages"), "win.block"));
    gtk_box_append(GTK_BOX(v->social_row),
                   command_button(_("Re_port…"), _("Report the person chosen for private "
                                                   "messages to the operator"), "win.report"));
    g_signal_connect_swapped(v->recipient, "notify::selected",
                             G_CALLBACK(gview_update_buttons), v);

    gtk_box_append(GTK_BOX(right), v->account);
    gtk_box_append(GTK_BOX(right), account_row);
    gtk_box_append(GTK_BOX(right), v->people);
    gtk_box_append(GTK_BOX(right), gmoves_new(v));
    gtk_box_append(GTK_BOX(right), scroll);
    gtk_box_append(GTK_BOX(right), chat);
    gtk_box_append(GTK_BOX(right), v->social_row);

    adw_flap_set_content(ADW_FLAP(v->flap), left);
    /* At most PANE_MAX_WIDTH wide, however long its lines: the board has
     * the rest. On the window's background when it slides over the board. */
    GtkWidget *clamp = adw_clamp_new();
    adw_clamp_set_maximum_size(ADW_CLAMP(clamp), PANE_MAX_WIDTH);
    adw_clamp_set_tightening_threshold(ADW_CLAMP(clamp), PANE_MAX_WIDTH);
    adw_clamp_set_child(ADW_CLAMP(clamp), right);
    gtk_widget_set_hexpand(clamp, FALSE);   /* the chat entry's expanding stops here */
    gtk_widget_add_css_class(clamp, "background");
    adw_flap_set_flap(ADW_FLAP(v->flap), clamp);
}
