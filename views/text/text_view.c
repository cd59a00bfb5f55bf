/*
 * text_view.c — the text view's loop: poll() on the agent's queue fd and on
 * standard input, print each event as a line (and the board after every
 * change), and turn each input line into a command.
 *
 * Lines come from text_input (edited with libedit on a terminal); output
 * printed while a line is being typed goes above it (text_input_hide and
 * _show around it).
 */
#include <ctype.h>
#include <errno.h>
#include <poll.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "text_account.h"
#include "text_charset.h"
#include "text_commands.h"
#include "text_draw.h"
#include "text_input.h"
#include "text_replay.h"
#include "text_view.h"
#include "narrate.h"
#include "view_i18n.h"
#include "xdg.h"

struct text_view {
    agent *ag;
    FILE *out;
    text_input input;          /* lines typed (edited on a terminal) */
    bool quit_armed;           /* "quit" once in a running game: ask again */
    bool resign_armed;         /* "resign" once: ask again */
    text_replay replay;        /* a recorded match being stepped through */
    text_account account;      /* register, login, passwd: a password asked for */
    int watching;              /* how many watch, as last said; -1 before a snapshot */
    bool redraw;               /* reconnected: draw the board once the events
                                * missed meanwhile are in, unless one of them did */
    bool done;
    int exit_status;
    bool bell;                 /* ring when it becomes our turn (view_io.quiet: no) */
    bool tty;                  /* out is a terminal: a ticking clock line is fine */
    bool status_shown;         /* that line is on the screen, unfinished */
};

static const agent_model *model(const text_view *tv)
{
    return agent_model_get(tv->ag);
}

static const char *seat_name(const text_view *tv, int seat, char *buf, size_t len)
{
    return view_seat_name(model(tv), seat, buf, len);
}

/* The board, with the mover's legal cells marked where the drawing can. */
static void draw(text_view *tv)
{
    int legal[GAME_MAX_MOVES];
    int n = agent_legal_moves(tv->ag, legal, GAME_MAX_MOVES);
    text_draw_board(tv->out, model(tv), legal, n, text_terminal_width(tv->out));
}

/* Hint lists longer than this are left out (a 4D board has 256 cells). */
#define HINT_MAX 64

static const agent_person *seat_person(const agent_model *m, int seat)
{
    for (int i = 0; i < m->n_people; i++)
        if (m->people[i].seat == seat)
            return &m->people[i];
    return NULL;
}

/* The seat to move, while the game runs; -1 otherwise. */
static int seat_to_move(const text_view *tv)
{
    const agent_model *m = model(tv);
    if (m->status != AGENT_GAME_RUNNING || !m->have_state)
        return -1;
    return game_to_move(&m->state);
}

/* "Clocks: alice 4:58 (running), bob 5:00." then `end`; nothing in a game
 * without clocks. */
static void print_clocks(text_view *tv, const char *end)
{
    const agent_model *m = model(tv);
    if (agent_clock_left(m, 0) < 0 || !m->have_state)
        return;
    char buf[40], left[16];
    fprintf(tv->out, _("Clocks:"));
    for (int s = 0; s < game_seats(&m->state); s++) {
        agent_format_clock(agent_clock_left(m, s), left, sizeof left);
        fprintf(tv->out, "%s %s %s%s", s ? "," : "", seat_name(tv, s, buf, sizeof buf), left,
                s == m->clock_running ? _(" (running)") : "");
    }
    fprintf(tv->out, ".%s", end);
}

/* On a terminal, while our clock runs: one line, rewritten every second
 * (never a line a second in the scrollback); wiped before other output. */
static bool clock_ticking(const text_view *tv)
{
    const agent_model *m = model(tv);
    return tv->tty && m->have_clocks && m->clock_running >= 0 &&
           agent_holds_seat(tv->ag, m->clock_running) && m->status == AGENT_GAME_RUNNING;
}

static void wipe_status(text_view *tv)
{
    if (tv->status_shown) {
        fputs("\r\033[K", tv->out);
        tv->status_shown = false;
    }
}

static void print_turn(text_view *tv)
{
    const agent_model *m = model(tv);
    char buf[40];
    int to_move = seat_to_move(tv);
    if (to_move < 0)
        return;
    if (!agent_holds_seat(tv->ag, to_move)) {
        const char *name = seat_name(tv, to_move, buf, sizeof buf);
        const agent_person *p = seat_person(m, to_move);
        int left = p ? agent_away_seconds(p) : -1;
        if (left >= 0)
            fprintf(tv->out, _("Waiting for %s, who is away \u2014 seat kept %d s.\n"), name, left);
        else if (p && p->departed)
            fprintf(tv->out, _("Waiting for %s, who is away.\n"), name);
        else
            fprintf(tv->out, _("Waiting for %s to move.\n"), name);
        print_clocks(tv, "\n");
        return;
    }
    int legal[GAME_MAX_MOVES];
    int n = agent_legal_moves(tv->ag, legal, GAME_MAX_MOVES);
    if (tv->bell)
        fputc('\a', tv->out);
    if (m->hot_seat >= 0)       /* hot seat: say whose hands are on the board */
        fprintf(tv->out, "%s: ", seat_name(tv, to_move, buf, sizeof buf));
    const game_state *st = &m->state;
    char mark = game_seat_mark(st, to_move);
    switch (game_draw_style(st)) {
    case GAME_DRAW_MANCALA:
        fprintf(tv->out, _("Your turn: choose a cup 0..%d."), st->cups - 1);
        break;
    case GAME_DRAW_DISCS: {
        /* The colour's name comes from games/ untranslated (see colour_words
         * in text_draw.c, which marks it for the catalogs). */
        const char *colour = game_seat_colour(st, to_move);
        char look[48];         /* "X, black" */
        snprintf(look, sizeof look, "%c%s%s", mark, colour ? ", " : "", colour ? _(colour) : "");
        fprintf(tv->out, _("Your turn (%s): choose a cell by letter and number."), look);
        break;
    }
    case GAME_DRAW_SLICES:
        fprintf(tv->out, _("Your turn (%c): choose an empty cell by number or x,y,... ."), mark);
        break;
    }
    if (n <= HINT_MAX) {
        fprintf(tv->out, _(" Legal:"));
        for (int i = 0; i < n; i++) {
            agent_format_move(m, legal[i], buf, sizeof buf);
            fprintf(tv->out, " %s", buf);
        }
    }
    fputc('\n', tv->out);
    print_clocks(tv, "\n");
}

static void print_scores(text_view *tv, const int *scores, int n)
{
    char buf[40];
    fprintf(tv->out, _("Scores:"));
    for (int s = 0; s < n; s++)
        fprintf(tv->out, "%s %s %d", s ? "," : "", seat_name(tv, s, buf, sizeof buf), scores[s]);
    fputc('\n', tv->out);
}

static void say_line(void *ctx, const char *sentence);

static void show_snapshot(text_view *tv)
{
    const agent_model *m = model(tv);
    fprintf(tv->out, _("Game %s: %s"), m->game_id, view_kind_title(m->title));
    if (m->kind) {
        fprintf(tv->out, " (%s", m->kind->name);
        for (int i = 0; i < m->kind->n_options; i++)
            fprintf(tv->out, " %s=%d", m->kind->options[i].name, m->opts.value[i]);
        fputc(')', tv->out);
    }
    fputc('\n', tv->out);
    view_narrate_snapshot(m, say_line, tv);   /* the clock, who we are, the end */
    text_draw_people(tv->out, m, text_terminal_width(tv->out));
    if (m->status == AGENT_GAME_WAITING)
        fprintf(tv->out, _("Waiting for every seat to be taken and every player ready%s.\n"),
                m->my_seat >= 0 ? _(" (type ready)") : "");
    draw(tv);
    print_turn(tv);
}

/* A sentence of the narrator's, as a line. */
static void say_line(void *ctx, const char *sentence)
{
    text_view *tv = ctx;
    fprintf(tv->out, "%s\n", sentence);
}

static void show_game_over(text_view *tv, const agent_msg *msg)
{
    const agent_model *m = model(tv);
    char buf[40];
    view_narrate(m, msg, say_line, tv);
    if (!msg->abandoned) {
        print_scores(tv, msg->scores, msg->n_scores);
        if (msg->n_winners == 0) {
            fprintf(tv->out, _("Nobody wins: a draw.\n"));
        } else {
            fprintf(tv->out, "%s", ngettext("Winner:", "Winners:", (unsigned long)msg->n_winners));
            for (int i = 0; i < msg->n_winners; i++)
                fprintf(tv->out, "%s %s", i ? "," : "",
                        seat_name(tv, msg->winners[i], buf, sizeof buf));
            fputc('\n', tv->out);
        }
    }
    for (int s = 0; msg->ratings_changed && s < GAME_MAX_SEATS; s++) {
        const agent_rating *before = &msg->rating_before[s], *after = &msg->rating_after[s];
        if (!before->known || !after->known)
            continue;
        char was[16], now[16];
        agent_format_rating(before, was, sizeof was);
        agent_format_rating(after, now, sizeof now);
        /* TRANSLATORS: a rating's change at the end of a rated game:
         * "alice: rating 1500? -> 1662? (+162)" */
        fprintf(tv->out, _("%s: rating %s -> %s (%+d)\n"), seat_name(tv, s, buf, sizeof buf),
                was, now, after->value - before->value);
    }
    if (msg->unrated[0]) {
        char line[AGENT_TEXT_BYTES + 2];
        view_sentence(line, sizeof line, msg->unrated, ".");
        say_line(tv, line);
    }
    if (m->my_seat >= 0 || m->n_people)
        fprintf(tv->out, _("Type quit to leave.\n"));
}

static bool game_over(const text_view *tv)
{
    agent_status st = model(tv)->status;
    return agent_in_game(tv->ag) && (st == AGENT_GAME_FINISHED || st == AGENT_GAME_ABANDONED);
}

/* "alice offers a rematch (1 of 2 accepted): ..." */
static void show_rematch_offer(text_view *tv, const agent_msg *msg)
{
    const agent_model *m = model(tv);
    int seats = m->have_state ? game_seats(&m->state) : 2, yes = 0;
    for (int s = 0; s < seats; s++)
        yes += (msg->accepted >> s) & 1;
    if (agent_holds_seat(tv->ag, msg->seat))
        fprintf(tv->out, _("You accept a rematch (%d of %d accepted).\n"), yes, seats);
    else if (m->my_seat >= 0 && !((msg->accepted >> m->my_seat) & 1))
        fprintf(tv->out, _("%s wants a rematch (%d of %d accepted): type rematch to play "
                           "again, decline to say no.\n"), msg->name, yes, seats);
    else
        fprintf(tv->out, _("%s wants a rematch (%d of %d accepted).\n"), msg->name, yes, seats);
}

/* After someone else left or came back: whom we wait for, if it is them. */
static void print_turn_if_theirs(text_view *tv, int seat)
{
    if (seat >= 0 && seat == seat_to_move(tv) && !agent_holds_seat(tv->ag, seat))
        print_turn(tv);
}

static bool playing_running_game(const text_view *tv);

/* The narrator's sentences (narrate.h), and what only this view adds:
 * boards, whose turn it is, prompts naming commands. */
static void handle(text_view *tv, const agent_msg *msg)
{
    FILE *out = tv->out;
    if (msg->kind == AGENT_MSG_SNAPSHOT || msg->kind == AGENT_MSG_MOVED ||
        msg->kind == AGENT_MSG_STARTED)
        tv->redraw = false;            /* these draw the board themselves */
    switch (msg->kind) {
    case AGENT_MSG_SNAPSHOT:
        show_snapshot(tv);
        break;
    case AGENT_MSG_GAME_OVER:
        show_game_over(tv, msg);
        break;
    case AGENT_MSG_DRAW_OFFERED:       /* with the commands that answer it */
        if (agent_holds_seat(tv->ag, msg->seat))
            fprintf(out, _("You offer a draw.\n"));
        else if (model(tv)->my_seat >= 0)
            fprintf(out, _("%s offers a draw: type accept or decline.\n"), msg->name);
        else
            view_narrate(model(tv), msg, say_line, tv);
        break;
    case AGENT_MSG_REMATCH_OFFERED:
        show_rematch_offer(tv, msg);
        break;
    default:
        view_narrate(model(tv), msg, say_line, tv);
        break;
    }
    switch (msg->kind) {              /* after the sentences */
    case AGENT_MSG_DEPARTED:
        if (msg->grace_s > 0)     /* gone for good ends the game: no waiting */
            print_turn_if_theirs(tv, msg->seat);
        else if (msg->seat >= 0 && playing_running_game(tv) &&
                 !agent_holds_seat(tv->ag, msg->seat))
            fprintf(out, game_seats(&model(tv)->state) == 2
                             ? _("Type claim to take the win, or wait for %s to come back.\n")
                             : _("Type claim to play on without %s, or wait for them.\n"),
                    msg->name);
        break;
    case AGENT_MSG_RETURNED:
        print_turn_if_theirs(tv, msg->seat);
        break;
    case AGENT_MSG_RECONNECTED:
        /* Whatever was on the screen may be long gone: draw it all again,
         * but after the events missed meanwhile (they follow at once), so
         * as not to show a stale board (see run). */
        tv->redraw = true;
        break;
    case AGENT_MSG_STARTED:
    case AGENT_MSG_MOVED:
        draw(tv);
        break;
    case AGENT_MSG_TURN:
        print_turn(tv);
        break;
    case AGENT_MSG_OUT:
        if (msg->to_move >= 0 && msg->from_seat == msg->seat)   /* the turn moved on */
            print_turn(tv);
        break;
    case AGENT_MSG_REMATCH_STARTED: {
        char err[512];
        if (model(tv)->my_seat >= 0 && agent_follow_rematch(tv->ag, err, sizeof err) != 0)
            fprintf(out, "%s\n", err);
        else if (model(tv)->my_seat < 0 &&
                 agent_watch_rematch(tv->ag, msg->text, err, sizeof err) != 0)
            fprintf(out, "%s\n", err);
        break;
    }
    case AGENT_MSG_DISCONNECTED: {
        agent_status st = model(tv)->status;
        tv->done = true;
        tv->exit_status = st == AGENT_GAME_FINISHED || st == AGENT_GAME_ABANDONED ? 0 : 1;
        break;
    }
    default:
        break;
    }
    /* Observers come and go without a line each (a crowd would flood the
     * screen); one line says how many watch whenever that changes. */
    int watching = model(tv)->n_observers;
    if (msg->kind == AGENT_MSG_SNAPSHOT)
        tv->watching = watching;       /* shown with the players */
    else if (tv->watching >= 0 && watching != tv->watching && agent_in_game(tv->ag)) {
        view_narrate_watching(watching, say_line, tv);
        tv->watching = watching;
    }
}

/* ---------------------------------------------------------------- commands */

static bool playing_running_game(const text_view *tv)
{
    const agent_model *m = model(tv);
    return agent_in_game(tv->ag) && m->my_seat >= 0 && m->status == AGENT_GAME_RUNNING;
}

/* Quitting a running game as a player loses it: ask first. */
static void request_quit(text_view *tv)
{
    if (playing_running_game(tv) && !tv->quit_armed) {
        fprintf(tv->out, _("Leaving now loses the game, as resigning does. "
                           "Type quit again to leave.\n"));
        tv->quit_armed = true;
        return;
    }
    tv->done = true;
}

/* New and join leave the current game: not in the middle of one. */
static bool may_switch(text_view *tv)
{
    if (!playing_running_game(tv))
        return true;
    fprintf(tv->out, _("You are playing game %s; finish it or quit first.\n"), model(tv)->game_id);
    return false;
}

static const char *status_word(agent_status st)
{
    switch (st) {
    case AGENT_GAME_WAITING: return "waiting";
    case AGENT_GAME_RUNNING: return "running";
    case AGENT_GAME_FINISHED: return "finished";
    case AGENT_GAME_ABANDONED: return "abandoned";
    }
    return "?";
}

/* The same, in the user's language, for showing (the words above are the
 * ones typed, and stay English). */
static const char *status_label(agent_status st)
{
    switch (st) {
    case AGENT_GAME_WAITING: return _("waiting");
    case AGENT_GAME_RUNNING: return _("running");
    case AGENT_GAME_FINISHED: return _("finished");
    case AGENT_GAME_ABANDONED: return _("abandoned");
    }
    return "?";
}

/* games [KIND] [STATE]: either word may come first. */
static void list_games(text_view *tv, char *rest)
{
    const char *kind = NULL;
    agent_status status = 0;
    for (char *w = strtok(rest, " \t"); w; w = strtok(NULL, " \t")) {
        agent_status st = 0;
        for (int s = AGENT_GAME_WAITING; s <= AGENT_GAME_ABANDONED; s++)
            if (strcmp(w, status_word(s)) == 0)
                st = s;
        if (st)
            status = st;
        else
            kind = w;
    }
    agent_game_info *games;
    int n;
    char err[512];
    if (agent_list_games(tv->ag, kind, status, &games, &n, err, sizeof err) != 0) {
        fprintf(tv->out, "%s\n", err);
        return;
    }
    if (n == 0 && status && kind)
        fprintf(tv->out, _("No %s games of %s. Start one with: new KIND\n"), status_label(status),
                kind);
    else if (n == 0 && status)
        fprintf(tv->out, _("No %s games. Start one with: new KIND\n"), status_label(status));
    else if (n == 0 && kind)
        fprintf(tv->out, _("No games of %s. Start one with: new KIND\n"), kind);
    else if (n == 0)
        fprintf(tv->out, _("No games. Start one with: new KIND\n"));
    for (int i = 0; i < n; i++) {
        const agent_game_info *g = &games[i];
        fprintf(tv->out, _("Game %s: %s (%s %s), %s; seats:"), g->id, view_kind_title(g->title),
                g->kind, g->options,
                status_label(g->status));
        for (int s = 0; s < g->n_seats; s++) {
            if (!g->seat_name[s][0])
                fprintf(tv->out, _(" [open]"));
            else
                fprintf(tv->out, " [%s%s%s]", g->seat_name[s], g->seat_ready[s] ? _(", ready") : "",
                        g->seat_departed[s] ? _(", departed") : "");
        }
        if (g->rated)
            fprintf(tv->out, _("; rated"));
        fprintf(tv->out, _("; %d watching\n"), g->observers);
    }
    free(games);
    /* The quick-pairing pools where players wait: what `quick` would join. */
    agent_pool_info *pools;
    if (agent_list_pools(tv->ag, kind, &pools, &n, err, sizeof err) != 0) {
        fprintf(tv->out, "%s\n", err);
        return;
    }
    for (int i = 0; i < n; i++) {
        char clock[32];
        agent_format_clock_spec(&pools[i].clock, clock, sizeof clock);
        fprintf(tv->out, _("Quick pairing pool %s (%s), clock %s%s: %d waiting, the longest for "
                           "%d s.\n"),
                pools[i].kind, pools[i].options, clock[0] ? clock : _("none"),
                pools[i].rated ? _(", rated") : "", pools[i].players,
                (int)(pools[i].longest_wait_ms / 1000));
    }
    free(pools);
}

static void show_stats(text_view *tv, const char *name)
{
    agent_stats st;
    char err[512];
    if (!name || !*name) {
        fprintf(tv->out, _("Usage: stats NAME\n"));
        return;
    }
    if (agent_player_stats(tv->ag, name, &st, err, sizeof err) != 0) {
        fprintf(tv->out, "%s\n", err);
        return;
    }
    fprintf(tv->out, _("%s: %d played, %d won, %d lost, %d drawn; streak %d, best %d.\n"), st.name,
            st.played, st.wins, st.losses, st.draws, st.streak, st.best_streak);
    for (int i = 0; i < st.n_ratings; i++) {
        char rating[16];
        agent_format_rating(&st.ratings[i].rating, rating, sizeof rating);
        fprintf(tv->out, ngettext("  %s rating %s (\u00b1%d), %d rated game\n",
                                  "  %s rating %s (\u00b1%d), %d rated games\n",
                                  (unsigned long)st.ratings[i].rating.games),
                st.ratings[i].kind, rating, 2 * st.ratings[i].rating.deviation,
                st.ratings[i].rating.games);
    }
}

/* leaderboard [KIND]: by wins, or by rating in a kind. */
static void show_leaderboard(text_view *tv, const char *kind)
{
    agent_stats *rows;
    int n;
    char err[512];
    if (kind && *kind && !game_kind_find(kind)) {
        fprintf(tv->out, _("Unknown game kind '%s'.\n"), kind);
        return;
    }
    if (kind && !*kind)
        kind = NULL;
    if (agent_leaderboard(tv->ag, kind, 10, &rows, &n, err, sizeof err) != 0) {
        fprintf(tv->out, "%s\n", err);
        return;
    }
    if (n == 0)
        fprintf(tv->out, kind ? _("Nobody has a %s rating yet.\n")
                              : _("Nobody has finished a game yet.\n"), kind);
    for (int i = 0; i < n; i++) {
        if (kind && rows[i].n_ratings > 0) {
            char rating[16];
            agent_format_rating(&rows[i].ratings[0].rating, rating, sizeof rating);
            fprintf(tv->out, _("%2d. %-20s %6s  %3d rated games\n"), i + 1, rows[i].name, rating,
                    rows[i].ratings[0].rating.games);
        } else {
            fprintf(tv->out, _("%2d. %-20s %3d won, %3d lost, %3d drawn, best streak %d\n"),
                    i + 1, rows[i].name, rows[i].wins, rows[i].losses, rows[i].draws,
                    rows[i].best_streak);
        }
    }
    if (kind)
        fprintf(tv->out, _("(a ? marks a provisional rating: too few games to be sure)\n"));
    free(rows);
}

/* "[NAME] [KIND]" in either order: a word that names a kind is the kind. */
static void name_and_kind(char *rest, const char **player, const char **kind)
{
    for (char *w = strtok(rest, " \t"); w; w = strtok(NULL, " \t")) {
        if (game_kind_find(w))
            *kind = w;
        else
            *player = w;
    }
}

/* ratings [NAME] [KIND]: an account's rating after each rated game. */
static void show_rating_history(text_view *tv, char *rest)
{
    const char *player = agent_name(tv->ag), *kind = NULL;
    name_and_kind(rest, &player, &kind);
    agent_rating_point *pts;
    int n;
    char name[AGENT_NAME_BYTES], err[512];
    if (agent_rating_history(tv->ag, player, kind, 20, name, &pts, &n, err, sizeof err) != 0) {
        fprintf(tv->out, "%s\n", err);
        return;
    }
    if (n == 0)
        fprintf(tv->out, _("%s has played no rated game yet.\n"), name);
    for (int i = 0; i < n; i++) {
        char rating[16];
        agent_format_rating(&pts[i].after, rating, sizeof rating);
        fprintf(tv->out, _("%s, game %s: %d -> %s (%+d)\n"), pts[i].kind, pts[i].game_id,
                pts[i].before, rating, pts[i].after.value - pts[i].before);
    }
    free(pts);
}

static const char *tour_state(const agent_tournament *t);

/* history [NAME] [KIND]: a word that names a kind filters by kind; the
 * matches, then (without a kind) the tournaments NAME (we) played in. */
static void show_history(text_view *tv, char *rest)
{
    const char *player = NULL, *kind = NULL;
    name_and_kind(rest, &player, &kind);
    text_view_print_history(tv->ag, tv->out, player, kind);
}

int text_view_print_history(agent *ag, FILE *out, const char *player, const char *kind)
{
    agent_match *rows;
    int n;
    char err[512];
    if (agent_list_matches(ag, player, kind, &rows, &n, err, sizeof err) != 0) {
        fprintf(out, "%s\n", err);
        return -1;
    }
    if (n == 0)
        fprintf(out, _("No matches yet.\n"));
    for (int i = 0; i < n; i++) {
        const agent_match *m = &rows[i];
        fprintf(out, _("Match %s: %s, %d moves:"), m->id, m->kind_name, m->n_moves);
        for (int s = 0; s < m->n_seats; s++)
            fprintf(out, "%s %s %d", s ? "," : "", m->seat_name[s], m->scores[s]);
        fprintf(out, " — %s.", m->reason);
        if (m->tournament_id[0])
            fprintf(out, _(" In tournament %s, %s."), m->tournament_id,
                    m->tournament_title[0] ? m->tournament_title : "?");
        fputc('\n', out);
    }
    free(rows);
    /* ... and the tournaments they played in, each with their place */
    const char *who = player ? player : agent_account(ag) ? agent_account(ag)
                                                                : agent_name(ag);
    agent_tournament *ts;
    if (kind || agent_list_tournaments_of(ag, who, &ts, &n, err, sizeof err) != 0)
        return 0;                       /* an older service, or none allowed: no list */
    for (int i = 0; i < n; i++) {
        const agent_tournament *t = &ts[i];
        for (int k = 0; k < t->n_standings; k++) {
            const agent_standing *s = &t->standings[k];
            if (strcasecmp(s->name, who) != 0)
                continue;
            fprintf(out, _("Tournament %s, %s (%s): %s placed %d of %d with %d points.\n"),
                    t->id, t->title, tour_state(t), s->name, s->rank, t->n_standings,
                    s->points);
        }
        agent_tournament_free(&ts[i]);
    }
    free(ts);
    return 0;
}

/* moves: the current game's moves so far, one a line, as the service
 * stored them. */
static void show_moves(text_view *tv)
{
    const char *id = agent_game_id(tv->ag);
    agent_match m;
    int *seats, *moves;
    char err[512], buf[40], mv[32];
    if (!agent_in_game(tv->ag) || !id[0]) {
        fprintf(tv->out, _("You are not in a game.\n"));
        return;
    }
    if (agent_get_match(tv->ag, id, &m, &seats, &moves, err, sizeof err) != 0) {
        fprintf(tv->out, "%s\n", err);
        return;
    }
    if (m.n_moves == 0)
        fprintf(tv->out, _("No moves yet.\n"));
    game_state st;
    for (int i = 0; i < m.n_moves; i++) {
        if (agent_match_position(&m, seats, moves, i, &st, err, sizeof err) != 0) {
            fprintf(tv->out, "%s\n", err);
            break;
        }
        game_format_move(&st, moves[i], mv, sizeof mv);
        /* (a running game's match has no names yet: they come with its end) */
        fprintf(tv->out, "%3d. %s %s\n", i + 1, seat_name(tv, seats[i], buf, sizeof buf), mv);
    }
    free(seats);
    free(moves);
}

/* export ID [FILE]: a match written down (docs/rules.md, "Transcripts"):
 * a few "# " lines saying what it was, then the kind's transcript. */
static void export_match(text_view *tv, char *rest)
{
    char *id = strtok(rest, " \t"), *file = strtok(NULL, " \t");
    agent_match m;
    int *seats, *moves;
    char err[512];
    if (!id) {
        fprintf(tv->out, _("Usage: export MATCH-ID [FILE] (history lists them)\n"));
        return;
    }
    if (agent_get_match(tv->ag, id, &m, &seats, &moves, err, sizeof err) != 0) {
        fprintf(tv->out, "%s\n", err);
        return;
    }
    int bad = 0;
    FILE *out = file ? fopen(file, "w") : tv->out;
    if (!out) {
        fprintf(tv->out, _("Cannot write %s: %s\n"), file, strerror(errno));
    } else if (agent_write_match(&m, seats, moves, out, &bad) != 0 && bad) {
        fprintf(tv->out, _("Cannot write match %s down (move %d is not one this program "
                           "knows).\n"), m.id, bad);
        if (file)
            fclose(out);
    } else if (file && fclose(out) == 0) {
        fprintf(tv->out, _("Match %s written to %s.\n"), m.id, file);
    } else if (file) {
        fprintf(tv->out, _("Cannot write %s: %s\n"), file, strerror(errno));
    }
    free(seats);
    free(moves);
}

static void say_pairing(const agent_pairing *p, void *user)
{
    text_view *tv = user;
    if (p->any_rating)
        fprintf(tv->out, _("Waiting for a quick pairing: %d in the pool; any rating now.\n"),
                p->pool_size);
    else
        fprintf(tv->out, _("Waiting for a quick pairing: %d in the pool; ratings %d to %d.\n"),
                p->pool_size, p->rating - p->range, p->rating + p->range);
    fflush(tv->out);
}

/* quick KIND [CLOCK] [NAME=VALUE...] [rated]: wait in the pool (blocking:
 * the pairing's stream says how it goes), then play the game made. */
static void quick_game(text_view *tv, char *rest)
{
    const char *options[GAME_MAX_OPTIONS];
    char spec[96];
    int n = 0;
    bool rated = false;
    char *kind = strtok(rest, " \t");
    if (!kind) {
        fprintf(tv->out, _("Usage: quick KIND [CLOCK] [NAME=VALUE...] [rated], e.g. quick "
                           "kalah 5+3\n"));
        return;
    }
    snprintf(spec, sizeof spec, "%s", kind);
    for (char *w = strtok(NULL, " \t"); w; w = strtok(NULL, " \t")) {
        if (strcmp(w, "rated") == 0)
            rated = true;
        else if (strchr(w, '=') && n < GAME_MAX_OPTIONS)
            options[n++] = w;
        else
            snprintf(spec, sizeof spec, "%s:%s", kind, w);
    }
    if (!may_switch(tv))
        return;
    char err[512];
    char said[768];
    if (agent_quick_pair(tv->ag, spec, options, n, rated, say_pairing, tv, err,
                         sizeof err) != 0)
        fprintf(tv->out, "%s\n", view_lobby_failure(agent_lobby_failed(tv->ag), err, said,
                                                    sizeof said));
    else
        fprintf(tv->out, _("Paired: game %s.\n"), agent_game_id(tv->ag));
}

/* --- tournaments (docs/rules.md §16) --- */

static const char *tour_state(const agent_tournament *t)
{
    return t->status == 1 ? _("waiting for players") : t->status == 3 ? _("finished")
                                                                      : _("running");
}

static void print_standings(text_view *tv, const agent_tournament *t)
{
    fprintf(tv->out, _("Standings of %s, %s (%s):\n"), t->id, t->title, tour_state(t));
    for (int i = 0; i < t->n_standings; i++) {
        const agent_standing *s = &t->standings[i];
        fprintf(tv->out, _("%3d. %-20s %4d points, %3d games, %3d won%s\n"), s->rank, s->name,
                s->points, s->games, s->wins, s->withdrawn ? _(" (left)") : "");
    }
    fflush(tv->out);
}

static void list_tournaments(text_view *tv)
{
    agent_tournament *ts;
    int n;
    char err[512];
    if (agent_list_tournaments(tv->ag, &ts, &n, err, sizeof err) != 0) {
        fprintf(tv->out, "%s\n", err);
        return;
    }
    if (n == 0)
        fprintf(tv->out, _("No tournaments yet.\n"));
    for (int i = 0; i < n; i++) {
        fprintf(tv->out, _("%-5s %s: %s of %s, %s, %d of %d players\n"), ts[i].id, ts[i].title,
                ts[i].arena ? _("arena") : ts[i].swiss ? _("Swiss") : _("round robin"), ts[i].kind,
                tour_state(&ts[i]),
                ts[i].n_standings, ts[i].max_players);
        agent_tournament_free(&ts[i]);
    }
    free(ts);
}

static void say_tournament(const agent_tournament *t, void *user)
{
    print_standings(user, t);
}

/* tournament new arena|roundrobin|swiss KIND [CLOCK] [minutes=N|rounds=N] [max=N]
 * [NAME=VALUE...] [rated]; tournament join ID (blocking: the standings at
 * each change until it seats us in a game); tournament leave ID. */
static void tournament_command(text_view *tv, char *rest)
{
    char *what = strtok(rest, " \t"), *format = strtok(NULL, " \t");
    char err[512];
    if (what && strcmp(what, "join") == 0 && format) {
        if (!may_switch(tv))
            return;
        int rc = agent_play_tournament(tv->ag, format, say_tournament, tv, err, sizeof err);
        if (rc < 0)
            fprintf(tv->out, "%s\n", err);
        else if (rc == 1)
            fprintf(tv->out, _("Tournament %s has finished.\n"), format);
        else
            fprintf(tv->out, _("Your game in tournament %s: game %s.\n"), format,
                    agent_game_id(tv->ag));
        return;
    }
    if (what && strcmp(what, "leave") == 0 && format) {
        if (agent_leave_tournament(tv->ag, format, err, sizeof err) != 0)
            fprintf(tv->out, "%s\n", err);
        else
            fprintf(tv->out, _("You have left tournament %s.\n"), format);
        return;
    }
    char *kind = strtok(NULL, " \t");
    bool arena = format && strcmp(format, "arena") == 0;
    if (!what || strcmp(what, "new") != 0 || !kind ||
        (!arena && strcmp(format, "roundrobin") != 0 && strcmp(format, "swiss") != 0)) {
        fprintf(tv->out, _("Usage: tournament new arena|roundrobin|swiss KIND [CLOCK] "
                           "[minutes=N|rounds=N] [max=N] [NAME=VALUE...] [rated], or tournament "
                           "join ID, or tournament leave ID\n"));
        return;
    }
    const char *options[GAME_MAX_OPTIONS];
    char spec[96];
    int n = 0, length = arena ? 5 : 0, max = arena ? 64 : 4;
    bool rated = false;
    snprintf(spec, sizeof spec, "%s", kind);
    for (char *w = strtok(NULL, " \t"); w; w = strtok(NULL, " \t")) {
        if (strcmp(w, "rated") == 0)
            rated = true;
        else if (strncmp(w, "minutes=", 8) == 0 || strncmp(w, "rounds=", 7) == 0)
            length = atoi(strchr(w, '=') + 1);
        else if (strncmp(w, "max=", 4) == 0)
            max = atoi(w + 4);
        else if (strchr(w, '=') && n < GAME_MAX_OPTIONS)
            options[n++] = w;
        else
            snprintf(spec, sizeof spec, "%s:%s", kind, w);
    }
    char id[32];
    if (agent_create_tournament(tv->ag, format, spec, options, n, length, max, rated, id, err,
                                sizeof err) != 0)
        fprintf(tv->out, "%s\n", err);
    else
        fprintf(tv->out, _("Tournament %s created: tournament join %s to play in it.\n"), id,
                id);
}

static void show_standings(text_view *tv, const char *id)
{
    agent_tournament t;
    char err[512];
    if (!*id) {
        fprintf(tv->out, _("Usage: standings TOURNAMENT-ID (tournaments lists them)\n"));
        return;
    }
    if (agent_get_tournament(tv->ag, id, &t, err, sizeof err) != 0) {
        fprintf(tv->out, "%s\n", err);
        return;
    }
    print_standings(tv, &t);
    agent_tournament_free(&t);
}

static void new_game(text_view *tv, char *rest)
{
    const char *words[1 + GAME_MAX_OPTIONS];
    int n = 0;
    for (char *w = strtok(rest, " \t"); w && n < 1 + GAME_MAX_OPTIONS; w = strtok(NULL, " \t"))
        words[n++] = w;
    if (n == 0) {
        fprintf(tv->out, _("Usage: new KIND [NAME=VALUE...], e.g. new sungka cups=7\n"));
        return;
    }
    if (!may_switch(tv))
        return;
    char err[512], said[768];
    if (agent_new_game(tv->ag, words[0], words + 1, n - 1, err, sizeof err) != 0)
        fprintf(tv->out, "%s\n", view_lobby_failure(agent_lobby_failed(tv->ag), err, said,
                                                    sizeof said));
    else
        fprintf(tv->out, _("Created game %s.\n"), agent_game_id(tv->ag));
}

/* ------------------------------------------------------ the command table */

static void cmd_chat(text_view *tv, const char *word, char *rest)
{
    (void)word;
    if (!*rest)
        fprintf(tv->out, _("Usage: chat TEXT\n"));
    else if (agent_chat(tv->ag, rest) != 0)
        fprintf(tv->out, _("You are not in a game.\n"));
}

static void cmd_tell(text_view *tv, const char *word, char *rest)
{
    (void)word;
    char *text = rest;
    while (*text && !isspace((unsigned char)*text))
        text++;
    if (*text)
        *text++ = '\0';
    while (isspace((unsigned char)*text))
        text++;
    if (!*rest || !*text)
        fprintf(tv->out, _("Usage: tell NAME TEXT\n"));
    else if (agent_tell(tv->ag, rest, text) != 0)
        fprintf(tv->out, _("You are not in a game.\n"));
}

static void cmd_ready(text_view *tv, const char *word, char *rest)
{
    (void)rest;
    if (agent_ready(tv->ag, word[0] == 'r') != 0)
        fprintf(tv->out, _("You are not in a game.\n"));
}

static void cmd_sit(text_view *tv, const char *word, char *rest)
{
    (void)word;
    char *end;
    long seat = *rest ? strtol(rest, &end, 10) : -1;
    if (*rest && (*end || seat < 0 || seat >= GAME_MAX_SEATS))
        fprintf(tv->out, _("Usage: sit [SEAT-NUMBER]\n"));
    else if (agent_sit(tv->ag, (int)seat) != 0)
        fprintf(tv->out, _("You are not in a game.\n"));
}

/* The commands that are one call to the agent, which fails only outside a
 * game. */
static void cmd_simple(text_view *tv, const char *word, char *rest)
{
    (void)rest;
    int rc;
    if (strcmp(word, "stand") == 0)
        rc = agent_stand(tv->ag);
    else if (strcmp(word, "abort") == 0)
        rc = agent_abort(tv->ag);
    else if (strcmp(word, "draw") == 0)
        rc = agent_offer_draw(tv->ag);
    else if (strcmp(word, "claim") == 0)
        rc = agent_claim(tv->ag);
    else if (strcmp(word, "give") == 0)
        rc = agent_give_time(tv->ag);
    else                                   /* accept: the draw offered */
        rc = agent_answer_draw(tv->ag, true);
    if (rc != 0)
        fprintf(tv->out, _("You are not in a game.\n"));
}

static void cmd_resign(text_view *tv, const char *word, char *rest)
{
    (void)word;
    (void)rest;
    if (!playing_running_game(tv)) {
        fprintf(tv->out, _("You are not playing a running game.\n"));
    } else if (!tv->resign_armed) {
        fprintf(tv->out, _("Type resign again to give up this game.\n"));
        tv->resign_armed = true;
    } else if (agent_resign(tv->ag) != 0) {
        fprintf(tv->out, _("You are not in a game.\n"));
    }
}

static void cmd_rematch(text_view *tv, const char *word, char *rest)
{
    (void)word;
    (void)rest;
    if (!game_over(tv) || model(tv)->my_seat < 0)
        fprintf(tv->out, _("A rematch is for the players, once the game is over.\n"));
    else if (agent_rematch(tv->ag, false) != 0)
        fprintf(tv->out, _("You are not in a game.\n"));
}

/* decline: the rematch offered once the game is over, else the draw. */
static void cmd_decline(text_view *tv, const char *word, char *rest)
{
    (void)word;
    (void)rest;
    int rc = game_over(tv) ? agent_rematch(tv->ag, true) : agent_answer_draw(tv->ag, false);
    if (rc != 0)
        fprintf(tv->out, _("You are not in a game.\n"));
}

static void cmd_board(text_view *tv, const char *word, char *rest)
{
    (void)word;
    (void)rest;
    draw(tv);
    print_turn(tv);
}

static void cmd_who(text_view *tv, const char *word, char *rest)
{
    (void)word;
    (void)rest;
    text_draw_people(tv->out, model(tv), text_terminal_width(tv->out));
}

static void cmd_games(text_view *tv, const char *word, char *rest)
{
    (void)word;
    list_games(tv, rest);
}

static void cmd_new(text_view *tv, const char *word, char *rest)
{
    (void)word;
    new_game(tv, rest);
}

static void cmd_quick(text_view *tv, const char *word, char *rest)
{
    (void)word;
    quick_game(tv, rest);
}

static void cmd_tournaments(text_view *tv, const char *word, char *rest)
{
    (void)word;
    (void)rest;
    list_tournaments(tv);
}

static void cmd_tournament(text_view *tv, const char *word, char *rest)
{
    (void)word;
    tournament_command(tv, rest);
}

static void cmd_standings(text_view *tv, const char *word, char *rest)
{
    (void)word;
    show_standings(tv, rest);
}

/* join ID, watch ID */
static void cmd_join(text_view *tv, const char *word, char *rest)
{
    char err[512], said[768];
    if (!*rest)
        fprintf(tv->out, _("Usage: %s GAME-ID\n"), word);
    else if (!may_switch(tv))
        ;
    else if (agent_join_game(tv->ag, rest, word[0] == 'w', err, sizeof err) != 0)
        fprintf(tv->out, "%s\n", view_lobby_failure(agent_lobby_failed(tv->ag), err, said,
                                                    sizeof said));
}

static void cmd_stats(text_view *tv, const char *word, char *rest)
{
    (void)word;
    show_stats(tv, *rest ? rest : agent_name(tv->ag));
}

static void cmd_leaderboard(text_view *tv, const char *word, char *rest)
{
    (void)word;
    show_leaderboard(tv, rest);
}

static void cmd_ratings(text_view *tv, const char *word, char *rest)
{
    (void)word;
    show_rating_history(tv, rest);
}

static void cmd_history(text_view *tv, const char *word, char *rest)
{
    (void)word;
    show_history(tv, rest);
}

static void cmd_moves(text_view *tv, const char *word, char *rest)
{
    (void)word;
    (void)rest;
    show_moves(tv);
}

static void cmd_export(text_view *tv, const char *word, char *rest)
{
    (void)word;
    export_match(tv, rest);
}

static void cmd_replay(text_view *tv, const char *word, char *rest)
{
    (void)word;
    if (!*rest)
        fprintf(tv->out, _("Usage: replay MATCH-ID (history lists them)\n"));
    else
        text_replay_start(&tv->replay, tv->ag, rest, tv->out);
}

/* register, login, logout, passwd, whoami, reset, block, unblock, blocked,
 * report: text_account.c */
static void cmd_account(text_view *tv, const char *word, char *rest)
{
    text_account_command(&tv->account, tv->ag, word, rest, tv->out);
}

static void cmd_help(text_view *tv, const char *word, char *rest)
{
    (void)word;
    (void)rest;
    text_commands_help(tv->out);
}

static void cmd_quit(text_view *tv, const char *word, char *rest)
{
    (void)word;
    (void)rest;
    request_quit(tv);
}

/* The headings of help's sections, in the order shown. */
static const char *const sections[] = {
    [TEXT_SECTION_ANY] = N_("Commands:"),
    [TEXT_SECTION_RUNNING] = N_("In a running game:"),
    [TEXT_SECTION_OVER] = N_("After the end:"),
    [TEXT_SECTION_ACCOUNT] = N_("Accounts (a password is asked for on the next line, not "
                                "shown):"),
};

/* Every command: what dispatches it and what help says of it, in help's
 * order. The words typed are never translated; their arguments and help
 * lines are. A move (a number, "d3", "1,2,0") is no word here: it is tried
 * first, and help's first line says so. */
static const text_command commands[] = {
    {"chat", N_("TEXT"), N_("say TEXT to everyone in the game"), TEXT_SECTION_ANY, cmd_chat},
    {"tell", N_("NAME TEXT"), N_("say TEXT to NAME only"), TEXT_SECTION_ANY, cmd_tell},
    {"ready", "", N_("say you are ready to start"), TEXT_SECTION_ANY, cmd_ready},
    {"unready", "", N_("say you are not ready after all"), TEXT_SECTION_ANY, cmd_ready},
    {"sit", N_("[N]"), N_("take seat N (or any open seat) before the start"), TEXT_SECTION_ANY,
     cmd_sit},
    {"stand", "", N_("give up your seat and watch, before the start"), TEXT_SECTION_ANY,
     cmd_simple},
    {"board", "", N_("draw the board again"), TEXT_SECTION_ANY, cmd_board},
    {"who", "", N_("the players, with ping times (or how long an away player's seat is "
                   "kept), and how many are watching"), TEXT_SECTION_ANY, cmd_who},
    {"games", N_("[KIND] [waiting|running|finished|abandoned]"), N_("list the games"),
     TEXT_SECTION_ANY, cmd_games},
    {"new", N_("KIND [NAME=VALUE...] [rated]"),
     N_("create a game and sit at it (rated: for signed-in players; the result changes their "
        "ratings; also bots=N, bot-level=N, clock=SPEC, bot-takes-over)"),
     TEXT_SECTION_ANY, cmd_new},
    {"quick", N_("KIND [CLOCK] [NAME=VALUE...] [rated]"),
     N_("quick pairing: wait for players of a near rating and play the game made for you"),
     TEXT_SECTION_ANY, cmd_quick},
    {"tournaments", "", N_("the tournaments: arenas and round robins"), TEXT_SECTION_ANY,
     cmd_tournaments},
    {"tournament", N_("new arena|roundrobin|swiss KIND [CLOCK] [minutes=N|rounds=N] [max=N] | "
                      "join ID | leave ID"),
     N_("make a tournament, or join one and play the game it seats you in (join again for "
        "the next), or leave one"), TEXT_SECTION_ANY, cmd_tournament},
    {"standings", N_("ID"), N_("a tournament's standings"), TEXT_SECTION_ANY, cmd_standings},
    {"join", N_("ID"), N_("join game ID as a player"), TEXT_SECTION_ANY, cmd_join},
    {"watch", N_("ID"), N_("watch game ID"), TEXT_SECTION_ANY, cmd_join},
    {"stats", N_("[NAME]"), N_("a player's statistics (yours by default)"), TEXT_SECTION_ANY,
     cmd_stats},
    {"leaderboard", N_("[KIND]"), N_("the players with the most wins, or the best rated in a "
                                     "kind (a ? marks a provisional rating)"),
     TEXT_SECTION_ANY, cmd_leaderboard},
    {"ratings", N_("[NAME] [KIND]"), N_("a player's rating after each rated game"),
     TEXT_SECTION_ANY, cmd_ratings},
    {"history", N_("[NAME] [KIND]"), N_("past matches"), TEXT_SECTION_ANY, cmd_history},
    {"replay", N_("ID"), N_("step through a past match (next, prev, start, end, stop)"),
     TEXT_SECTION_ANY, cmd_replay},
    {"help", "", N_("this list"), TEXT_SECTION_ANY, cmd_help},
    {"quit", "", N_("leave (a player leaving a running game loses it)"), TEXT_SECTION_ANY,
     cmd_quit},
    {"resign", "", N_("give up (two players: the other wins; more: the others play on)"),
     TEXT_SECTION_RUNNING, cmd_resign},
    {"abort", "", N_("end the game with no result, before everyone has moved"),
     TEXT_SECTION_RUNNING, cmd_simple},
    {"draw", "", N_("offer a draw (two players)"), TEXT_SECTION_RUNNING, cmd_simple},
    {"accept", "", N_("accept the draw offered"), TEXT_SECTION_RUNNING, cmd_simple},
    {"decline", "", N_("decline the draw offered (after the end: the rematch)"),
     TEXT_SECTION_RUNNING, cmd_decline},
    {"claim", "", N_("a player left and did not come back in time: take the win (more "
                     "players: play on without them)"), TEXT_SECTION_RUNNING, cmd_simple},
    {"give", "", N_("a clocked game: give the other players 15 seconds"),
     TEXT_SECTION_RUNNING, cmd_simple},
    {"moves", "", N_("the moves of this game so far"), TEXT_SECTION_RUNNING, cmd_moves},
    {"rematch", "", N_("offer to play again, seats rotated (or accept the offer)"),
     TEXT_SECTION_OVER, cmd_rematch},
    {"export", N_("ID [FILE]"), N_("a past match written down (reversi: f5d6c3...)"),
     TEXT_SECTION_OVER, cmd_export},
    {"register", N_("NAME"), N_("create an account and sign in"), TEXT_SECTION_ACCOUNT,
     cmd_account},
    {"login", N_("NAME"), N_("sign in"), TEXT_SECTION_ACCOUNT, cmd_account},
    {"logout", N_("[everywhere]"), N_("sign out (everywhere: on every device)"),
     TEXT_SECTION_ACCOUNT, cmd_account},
    {"passwd", "", N_("change your password"), TEXT_SECTION_ACCOUNT, cmd_account},
    {"whoami", "", N_("who you are signed in as"), TEXT_SECTION_ACCOUNT, cmd_account},
    {"reset", N_("NAME CODE"), N_("a forgotten password: set a new one with the code the "
                                  "service's operator gave you"), TEXT_SECTION_ACCOUNT,
     cmd_account},
    {"block", N_("NAME"), N_("read nothing more from NAME, never be paired with them"),
     TEXT_SECTION_ACCOUNT, cmd_account},
    {"unblock", N_("NAME"), N_("read NAME again"), TEXT_SECTION_ACCOUNT, cmd_account},
    {"blocked", "", N_("the players you blocked"), TEXT_SECTION_ACCOUNT, cmd_account},
    {"report", N_("NAME REASON..."), N_("report NAME to the operator, about this game"),
     TEXT_SECTION_ACCOUNT, cmd_account},
};

/* Other words for some commands, as typed before the table. */
static const struct {
    const char *alias, *name;
} aliases[] = {{"say", "chat"}, {"exit", "quit"}, {"?", "help"}};

/* The names Tab completes (text_input), from the table. */
static const char *command_names[sizeof commands / sizeof commands[0] + 1];

int text_commands_count(void)
{
    return (int)(sizeof commands / sizeof commands[0]);
}

const text_command *text_commands_at(int i)
{
    return i >= 0 && i < text_commands_count() ? &commands[i] : NULL;
}

const text_command *text_commands_find(const char *word)
{
    for (size_t i = 0; i < sizeof aliases / sizeof aliases[0]; i++)
        if (strcmp(word, aliases[i].alias) == 0)
            word = aliases[i].name;
    for (int i = 0; i < text_commands_count(); i++)
        if (strcmp(word, commands[i].name) == 0)
            return &commands[i];
    return NULL;
}

/* "  usage       help", the help wrapped to the terminal under itself. */
static void help_line(FILE *out, const char *usage, const char *help, int width)
{
    char line[1024];
    if (text_display_width(usage, strlen(usage)) < 12)
        snprintf(line, sizeof line, "  %-12s%s", usage, help);
    else
        snprintf(line, sizeof line, "  %s  %s", usage, help);
    text_put_wrapped(out, line, width, 14);
}

void text_commands_help(FILE *out)
{
    int width = text_terminal_width(out);
    for (size_t sec = 0; sec < sizeof sections / sizeof sections[0]; sec++) {
        fprintf(out, "%s\n", _(sections[sec]));
        if (sec == TEXT_SECTION_ANY)
            help_line(out, "N", _("play cup (or cell) number N; in reversi also a cell like d3, "
                                  "in tic-tac-toe also coordinates like 1,2,0"), width);
        for (int i = 0; i < text_commands_count(); i++) {
            const text_command *c = &commands[i];
            if (c->section != (int)sec)
                continue;
            char usage[96];
            snprintf(usage, sizeof usage, "%s%s%s", c->name, c->args[0] ? " " : "",
                     c->args[0] ? _(c->args) : "");
            help_line(out, usage, _(c->help), width);
        }
    }
}

static void command(text_view *tv, char *line)
{
    if (text_account_line(&tv->account, tv->ag, line, tv->out))
        return;                /* a password: taken as typed, never parsed */
    while (isspace((unsigned char)*line))
        line++;
    size_t len = strlen(line);
    while (len && isspace((unsigned char)line[len - 1]))
        line[--len] = '\0';
    if (!len)
        return;

    if (text_replay_command(&tv->replay, line, tv->out))
        return;

    char *rest = line;
    while (*rest && !isspace((unsigned char)*rest))
        rest++;
    if (*rest) {
        *rest++ = '\0';
        while (isspace((unsigned char)*rest))
            rest++;
    }

    int move;
    const text_command *cmd = NULL;
    if (agent_parse_move(model(tv), line, &move) == 0) {
        char why[GAME_ERR_LEN], said[GAME_ERR_LEN];
        int code = agent_check_move(tv->ag, move, why, sizeof why);
        if (code != 0)
            fprintf(tv->out, _("Refused: %s (checked here, not sent).\n"),
                    view_move_refusal(model(tv), code, move, why, said, sizeof said));
        else if (agent_move(tv->ag, move) != 0)
            fprintf(tv->out, _("Could not send the move.\n"));
    } else if ((cmd = text_commands_find(line)) != NULL) {
        cmd->run(tv, line, rest);
    } else {
        fprintf(tv->out, _("Unknown command '%s'. Type help for commands.\n"), line);
    }
    /* "quit" and "resign" ask again: only when typed twice in a row */
    if (!cmd || cmd->run != cmd_quit)
        tv->quit_armed = false;
    if (!cmd || cmd->run != cmd_resign)
        tv->resign_armed = false;
}

/* A line from text_input. */
static void on_line(void *ctx, char *line)
{
    text_view *tv = ctx;
    static char utf8[4 * TEXT_LINE_MAX_BYTES + 1];    /* room for any conversion */
    snprintf(utf8, sizeof utf8, "%s", line);
    text_charset_typed(utf8, sizeof utf8);
    command(tv, utf8);
    /* a password asked for is read with editing off (text_input.h) */
    text_input_plain(&tv->input, tv->account.step != 0);
    fflush(tv->out);
}

/* While our clock runs on a terminal: when editing, the clocks are the
 * prompt, before the line being typed (call it between text_input_hide
 * and _show); else one line of their own, rewritten every second, wiped
 * before other output. ticking false puts the usual prompt back. */
static void show_clocks(text_view *tv, bool ticking)
{
    if (text_input_editing(&tv->input)) {
        if (!ticking && !tv->status_shown)
            return;
        char *text = NULL;
        size_t len = 0;
        FILE *f = ticking ? open_memstream(&text, &len) : NULL;
        if (f) {
            FILE *out = tv->out;
            tv->out = f;
            print_clocks(tv, " > ");
            tv->out = out;
            fclose(f);
        }
        text_input_set_prompt(&tv->input, f ? text : NULL);
        tv->status_shown = f != NULL;
        free(text);
        return;
    }
    if (!ticking)
        return;
    print_clocks(tv, "");
    tv->status_shown = true;
}

static int run(agent *ag, const view_io *io)
{
    /* the view writes UTF-8; out converts it when the terminal's set is
     * another (text_charset.h) */
    text_view tv = {.ag = ag, .out = text_charset_open(io->out), .watching = -1,
                    .tty = isatty(fileno(io->out)) == 1};
    tv.account.in_fd = fileno(io->in);
    tv.bell = tv.tty && !io->quiet;     /* a bell in a pipe is noise in a file */
    for (int i = 0; i < text_commands_count(); i++)
        command_names[i] = text_commands_at(i)->name;
    char history[4096];
    bool keep_history = xdg_state_file(io->state_dir, "history", history, sizeof history) == 0;
    bool input_open = true;
    fprintf(tv.out, _("Connected. Type help for commands.\n"));
    if (!agent_in_game(ag))
        fprintf(tv.out, _("You are in the lobby: games lists the games, new KIND starts one, "
                          "join ID joins one.\n"));
    fflush(tv.out);
    text_input_open(&tv.input, io->in, io->out, keep_history ? history : NULL, command_names,
                    on_line, &tv);
    while (!tv.done) {
        struct pollfd fds[2] = {
            {.fd = agent_fd(ag), .events = POLLIN},
            {.fd = input_open ? text_input_fd(&tv.input) : -1, .events = POLLIN},
        };
        bool ticking = clock_ticking(&tv);
        int ready = poll(fds, 2, ticking ? 1000 : -1);
        if (ready < 0) {
            if (errno == EINTR)
                continue;
            break;
        }
        if (!text_input_editing(&tv.input))
            wipe_status(&tv);
        if (ready == 0) {             /* a second of our clock went by */
            text_input_hide(&tv.input);
            show_clocks(&tv, true);
            fflush(tv.out);
            text_input_show(&tv.input);
            continue;
        }
        if (fds[0].revents & POLLIN) {
            agent_msg *msg;
            text_input_hide(&tv.input);
            while (!tv.done && (msg = agent_next(ag)) != NULL) {
                handle(&tv, msg);
                agent_msg_free(msg);
            }
            if (!tv.done && tv.redraw) {   /* the queue is empty: caught up */
                tv.redraw = false;
                draw(&tv);
                print_turn(&tv);
            }
            if (text_input_editing(&tv.input))
                show_clocks(&tv, clock_ticking(&tv));
            fflush(tv.out);
            if (!tv.done)
                text_input_show(&tv.input);
        }
        if (!tv.done && (fds[1].revents & (POLLIN | POLLHUP | POLLERR))) {
            if (!text_input_read(&tv.input)) {
                input_open = false;
                tv.done = true;      /* end of input: leave like `quit` */
            }
        }
        fflush(tv.out);
    }
    text_input_close(&tv.input);
    text_replay_stop(&tv.replay);
    text_account_stop(&tv.account);
    if (tv.exit_status == 0) {
        agent_status st = model(&tv)->status;
        char game_id[32];
        snprintf(game_id, sizeof game_id, "%s", agent_game_id(ag));
        bool was_in = agent_in_game(ag);
        if (!was_in)
            ;                  /* from the lobby: there is nothing to leave */
        else if (agent_leave(ag) == 0)
            fprintf(tv.out, _("You left game %s.\n"), game_id);
        else if (st != AGENT_GAME_FINISHED && st != AGENT_GAME_ABANDONED)
            fprintf(tv.out, _("Could not tell the service that you left.\n"));
    }
    fflush(tv.out);
    if (tv.out != io->out)
        fclose(tv.out);
    return tv.exit_status;
}

const view_ops view_text = {
    .name = "text",
    .summary = "a line-oriented view for a terminal or a pipe",
    .run = run,
};
