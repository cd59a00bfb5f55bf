/*
 * gtk_menu.c — the GTK view as a GNOME application: the header bar's
 * primary menu (New Game, History, Connect…, Preferences, Keyboard
 * Shortcuts, About Sungka, Quit), every accelerator of the window in one table (gview_accels: the
 * actions' keys, the buttons' tooltips and the shortcuts window are all
 * made from it), and the windows the menu opens — an AdwAboutWindow, a
 * GtkShortcutsWindow and an AdwPreferencesWindow — each transient for the
 * main window, modal, and closed by Escape.
 *
 * The colour scheme: libadwaita's style manager follows the desktop's
 * (light or dark, ADW_COLOR_SCHEME_DEFAULT) unless Preferences says light
 * or dark, remembered in gtk.ini:
 *     [appearance]
 *     style=system|light|dark
 * The board follows the style too: gview_palette (gtk_play.c) picks the
 * board's dark palette when the style manager says dark, and the board is
 * drawn again when that changes.
 */
#include <stdio.h>
#include <string.h>

#include "gtk_view_internal.h"
#include "version.h"

/* The window's keys: what each does (the shortcuts window's line), in the
 * groups the shortcuts window shows. The first key is the one a button's
 * tooltip names. Letters of the commands' names where the usual keys
 * (Ctrl+Q, Ctrl+W: close, Ctrl+N: new, F1, Ctrl+?) do not apply; the
 * buttons' mnemonics (Alt+R, ...) work as well. */
const gview_accel gview_accels[] = {
    {"win.ready", {"<Control>r"}, N_("Game"), N_("Ready (or not ready)")},
    {"win.sit", {"<Control>d"}, N_("Game"), N_("Sit down at an open seat")},
    {"win.stand", {"<Control>u"}, N_("Game"), N_("Stand up and watch")},
    {"win.leave", {"<Control>w"}, N_("Game"), N_("Leave the game")},
    {"win.export", {"<Control>e"}, N_("Game"), N_("Export the game to a file")},
    {"win.board", {"<Control>b"}, N_("Game"), N_("Go to the board (arrows and Enter play)")},
    {"win.chat", {"<Control>l"}, N_("Game"), N_("Go to the chat entry")},
    {"win.games", {"<Control>g", "<Control>n"}, N_("Sungka"), N_("New game, or join one")},
    {"win.history", {"<Control>h"}, N_("Sungka"), N_("Past matches and their replays")},
    {"win.sign-out", {"<Control>o"}, N_("Sungka"), N_("Sign out")},
    {"win.password", {"<Control>p"}, N_("Sungka"), N_("Change your password")},
    {"app.preferences", {"<Control>comma"}, N_("Sungka"), N_("Preferences")},
    {"app.shortcuts", {"<Control>question"}, N_("Sungka"), N_("Keyboard shortcuts")},
    {"app.about", {"F1"}, N_("Sungka"), N_("About Sungka")},
    {"app.quit", {"<Control>q"}, N_("Sungka"), N_("Quit")},
};
const size_t gview_n_accels = G_N_ELEMENTS(gview_accels);

/* ------------------------------------------------------------ style */

static const struct {
    const char *key;           /* in gtk.ini */
    AdwColorScheme scheme;
    const char *label;         /* in Preferences */
} styles[] = {
    {"system", ADW_COLOR_SCHEME_DEFAULT, N_("Follow the system")},
    {"light", ADW_COLOR_SCHEME_FORCE_LIGHT, N_("Light")},
    {"dark", ADW_COLOR_SCHEME_FORCE_DARK, N_("Dark")},
};

/* The remembered style's index in styles[]; the system's when none. */
static guint remembered_style(void)
{
    GKeyFile *kf = gprefs_load();
    char *key = g_key_file_get_string(kf, "appearance", "style", NULL);
    guint found = 0;
    for (guint i = 0; key && i < G_N_ELEMENTS(styles); i++)
        if (strcmp(key, styles[i].key) == 0)
            found = i;
    g_free(key);
    g_key_file_free(kf);
    return found;
}

void gmenu_apply_style(void)
{
    adw_style_manager_set_color_scheme(adw_style_manager_get_default(),
                                       styles[remembered_style()].scheme);
}

/* ------------------------------------------------------------ windows */

/* One of the menu's windows closed: forget it. */
static void forget(GtkWidget *w, gpointer slot)
{
    (void)w;
    *(GtkWidget **)slot = NULL;
}

/* Over the main window, modal, closed by Escape; *slot holds it while open. */
static void show_over(gview *v, GtkWidget *w, GtkWidget **slot)
{
    gtk_window_set_transient_for(GTK_WINDOW(w), GTK_WINDOW(v->window));
    gtk_window_set_modal(GTK_WINDOW(w), TRUE);
    gtk_window_set_destroy_with_parent(GTK_WINDOW(w), TRUE);
    gview_close_on_escape(w);
    *slot = w;
    g_signal_connect(w, "destroy", G_CALLBACK(forget), slot);
    gtk_window_present(GTK_WINDOW(w));
}

static void act_about(GSimpleAction *a, GVariant *p, gpointer data)
{
    (void)a;
    (void)p;
    gview *v = data;
    if (v->about) {
        gtk_window_present(GTK_WINDOW(v->about));
        return;
    }
    GtkWidget *w = adw_about_window_new();
    AdwAboutWindow *about = ADW_ABOUT_WINDOW(w);
    gtk_window_set_title(GTK_WINDOW(w), _("About Sungka"));
    adw_about_window_set_application_name(about, _("Sungka"));
    adw_about_window_set_application_icon(about, "sungka");
    adw_about_window_set_version(about, SUNGKA_VERSION);
    adw_about_window_set_developer_name(about, _("The Sungka developers"));
    adw_about_window_set_comments(
        about, _("Sungka, congklak, kalah, reversi and tic-tac-toe, played with people "
                 "anywhere through a board service."));
    adw_about_window_set_license_type(about, GTK_LICENSE_MIT_X11);
    if (SUNGKA_WEBSITE[0])          /* empty until the project has a public home */
        adw_about_window_set_website(about, SUNGKA_WEBSITE);
    /* TRANSLATORS: your names, one a line: they are shown in the About window */
    const char *credits = _("translator-credits");
    if (strcmp(credits, "translator-credits") != 0)
        adw_about_window_set_translator_credits(about, credits);
    show_over(v, w, &v->about);
}

/* The shortcuts window from the table: GtkShortcutsWindow is made from a
 * GtkBuilder description (GTK 4.8 has no calls to fill one). */
static char *shortcuts_ui(void)
{
    GString *ui = g_string_new("<interface><object class=\"GtkShortcutsWindow\" id=\"w\">"
                               "<child><object class=\"GtkShortcutsSection\">"
                               "<property name=\"section-name\">main</property>");
    const char *groups[] = {N_("Game"), N_("Sungka")};
    for (size_t g = 0; g < G_N_ELEMENTS(groups); g++) {
        char *head = g_markup_printf_escaped(
            "<child><object class=\"GtkShortcutsGroup\"><property name=\"title\">%s</property>",
            _(groups[g]));
        g_string_append(ui, head);
        g_free(head);
        for (size_t i = 0; i < gview_n_accels; i++) {
            if (strcmp(gview_accels[i].group, groups[g]) != 0)
                continue;
            char *keys = g_strjoinv(" ", (char **)gview_accels[i].keys);
            char *line = g_markup_printf_escaped(
                "<child><object class=\"GtkShortcutsShortcut\">"
                "<property name=\"title\">%s</property>"
                "<property name=\"accelerator\">%s</property></object></child>",
                _(gview_accels[i].title), keys);
            g_string_append(ui, line);
            g_free(line);
            g_free(keys);
        }
        g_string_append(ui, "</object></child>");
    }
    g_string_append(ui, "</object></child></object></interface>");
    return g_string_free(ui, FALSE);
}

static void act_shortcuts(GSimpleAction *a, GVariant *p, gpointer data)
{
    (void)a;
    (void)p;
    gview *v = data;
    if (v->shortcuts) {
        gtk_window_present(GTK_WINDOW(v->shortcuts));
        return;
    }
    char *ui = shortcuts_ui();
    GtkBuilder *b = gtk_builder_new_from_string(ui, -1);
    GtkWidget *w = GTK_WIDGET(gtk_builder_get_object(b, "w"));
    gtk_window_set_title(GTK_WINDOW(w), _("Keyboard shortcuts"));
    show_over(v, w, &v->shortcuts);
    g_object_unref(b);
    g_free(ui);
}

static void on_style_chosen(GObject *row, GParamSpec *pspec, gpointer data)
{
    (void)pspec;
    gview *v = data;
    guint i = adw_combo_row_get_selected(ADW_COMBO_ROW(row));
    if (i >= G_N_ELEMENTS(styles))
        return;
    adw_style_manager_set_color_scheme(adw_style_manager_get_default(), styles[i].scheme);
    GKeyFile *kf = gprefs_load();
    g_key_file_set_string(kf, "appearance", "style", styles[i].key);
    char err[512];
    if (gprefs_save(kf, err, sizeof err) != 0)
        gview_log(v, "%s", err);
    g_key_file_free(kf);
}

static void on_sounds_chosen(GObject *sw, GParamSpec *pspec, gpointer data)
{
    (void)pspec;
    gview_sound_set(data, gtk_switch_get_active(GTK_SWITCH(sw)));
}

static void act_preferences(GSimpleAction *a, GVariant *p, gpointer data)
{
    (void)a;
    (void)p;
    gview *v = data;
    if (v->prefs) {
        gtk_window_present(GTK_WINDOW(v->prefs));
        return;
    }
    GtkWidget *w = adw_preferences_window_new();
    gtk_window_set_title(GTK_WINDOW(w), _("Preferences"));
    adw_preferences_window_set_search_enabled(ADW_PREFERENCES_WINDOW(w), FALSE);
    GtkWidget *page = adw_preferences_page_new();
    GtkWidget *group = adw_preferences_group_new();
    adw_preferences_group_set_title(ADW_PREFERENCES_GROUP(group), _("Appearance"));
    GtkStringList *names = gtk_string_list_new(NULL);
    for (size_t i = 0; i < G_N_ELEMENTS(styles); i++)
        gtk_string_list_append(names, _(styles[i].label));
    GtkWidget *row = adw_combo_row_new();
    adw_preferences_row_set_title(ADW_PREFERENCES_ROW(row), _("Style"));
    adw_action_row_set_subtitle(ADW_ACTION_ROW(row),
                                _("Light or dark, for the window and the board"));
    adw_combo_row_set_model(ADW_COMBO_ROW(row), G_LIST_MODEL(names));
    g_object_unref(names);
    adw_combo_row_set_selected(ADW_COMBO_ROW(row), remembered_style());
    g_signal_connect(row, "notify::selected", G_CALLBACK(on_style_chosen), v);
    adw_preferences_group_add(ADW_PREFERENCES_GROUP(group), row);
    adw_preferences_page_add(ADW_PREFERENCES_PAGE(page), ADW_PREFERENCES_GROUP(group));
    GtkWidget *sound_group = adw_preferences_group_new();
    adw_preferences_group_set_title(ADW_PREFERENCES_GROUP(sound_group), _("Sounds"));
    GtkWidget *sounds = adw_action_row_new();
    adw_preferences_row_set_title(ADW_PREFERENCES_ROW(sounds), _("Sounds on the board"));
    adw_action_row_set_subtitle(ADW_ACTION_ROW(sounds),
                                _("A move, a capture, low time and the end, when the "
                                  "desktop plays event sounds"));
    GtkWidget *sw = gtk_switch_new();
    gtk_widget_set_valign(sw, GTK_ALIGN_CENTER);
    gtk_switch_set_active(GTK_SWITCH(sw), !v->sound_off);
    gtk_accessible_update_property(GTK_ACCESSIBLE(sw), GTK_ACCESSIBLE_PROPERTY_LABEL,
                                   _("Sounds on the board"), -1);
    g_signal_connect(sw, "notify::active", G_CALLBACK(on_sounds_chosen), v);
    adw_action_row_add_suffix(ADW_ACTION_ROW(sounds), sw);
    adw_action_row_set_activatable_widget(ADW_ACTION_ROW(sounds), sw);
    adw_preferences_group_add(ADW_PREFERENCES_GROUP(sound_group), sounds);
    adw_preferences_page_add(ADW_PREFERENCES_PAGE(page), ADW_PREFERENCES_GROUP(sound_group));
    adw_preferences_window_add(ADW_PREFERENCES_WINDOW(w), ADW_PREFERENCES_PAGE(page));
    show_over(v, w, &v->prefs);
}

/* Another service, or another name: only when the connect dialog started
 * this window's agent (run_connect), and never in the middle of our game
 * (Leave first: it asks, since that loses the game). */
static void act_connect(GSimpleAction *a, GVariant *p, gpointer data)
{
    (void)a;
    (void)p;
    gview_reconnect(data);
}

void gmenu_update(gview *v)
{
    GAction *a = g_action_map_lookup_action(G_ACTION_MAP(v->app), "connect");
    g_simple_action_set_enabled(G_SIMPLE_ACTION(a),
                                v->launcher && v->ag && !gview_playing(v));
}

static const GActionEntry menu_actions[] = {
    {.name = "connect", .activate = act_connect},
    {.name = "about", .activate = act_about},
    {.name = "shortcuts", .activate = act_shortcuts},
    {.name = "preferences", .activate = act_preferences},
};

/* ------------------------------------------------------------ the menu */

GtkWidget *gmenu_button(gview *v)
{
    g_action_map_add_action_entries(G_ACTION_MAP(v->app), menu_actions,
                                    G_N_ELEMENTS(menu_actions), v);

    GMenu *menu = g_menu_new();
    GMenu *top = g_menu_new();
    g_menu_append(top, _("_New Game\u2026"), "win.games");
    g_menu_append(top, _("_History\u2026"), "win.history");
    g_menu_append(top, _("_Connect\u2026"), "app.connect");
    g_menu_append_section(menu, NULL, G_MENU_MODEL(top));
    GMenu *app = g_menu_new();
    g_menu_append(app, _("_Preferences"), "app.preferences");
    g_menu_append(app, _("_Keyboard Shortcuts"), "app.shortcuts");
    g_menu_append(app, _("_About Sungka"), "app.about");
    g_menu_append(app, _("_Quit"), "app.quit");
    g_menu_append_section(menu, NULL, G_MENU_MODEL(app));
    g_object_unref(top);
    g_object_unref(app);

    GtkWidget *b = gtk_menu_button_new();
    gtk_menu_button_set_icon_name(GTK_MENU_BUTTON(b), "open-menu-symbolic");
    gtk_menu_button_set_menu_model(GTK_MENU_BUTTON(b), G_MENU_MODEL(menu));
    gtk_menu_button_set_primary(GTK_MENU_BUTTON(b), TRUE);   /* F10 */
    gtk_widget_set_tooltip_text(b, _("Main menu"));
    gtk_accessible_update_property(GTK_ACCESSIBLE(b), GTK_ACCESSIBLE_PROPERTY_LABEL,
                                   _("Main menu"), -1);
    g_object_unref(menu);
    return b;
}
