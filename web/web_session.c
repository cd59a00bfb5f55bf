/*
 * web_session.c — one browser's player agent and the JSON both ways
 * (docs/web-protocol.md). Threads and ownership: web_session.h.
 */
#include "web_session.h"

#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/random.h>
#include <unistd.h>

#include <jansson.h>
#include <libwebsockets.h>

#include "address.h"
#include "agent.h"
#include "gtk_geometry.h"
#include "session_store.h"
#include "web_history.h"
#include "web_lister.h"
#include "web_store.h"
#include "web_tournament.h"

/* The area the board is laid out in; the browser scales the SVG to fit. */
#define BOARD_W 960.0
#define BOARD_H 540.0
#define MAX_MOVES_KEPT 2048

typedef struct item {
    struct item *next;
    size_t len;
    char text[];
} item;

typedef struct item_queue {
    item *head, *tail;
    int count;
    size_t bytes;
} item_queue;

struct web_session {
    const web_config *cfg;     /* read-only: any thread */
    struct lws_context *ctx;   /* read-only: any thread */
    pthread_mutex_t lock;
    pthread_cond_t wake_cond;  /* commands or close waiting, for a session without an agent */
    /* locked */
    int wake_fd;               /* the same as an eventfd, polled beside the agent's fd;
                                * made with the agent (-1 before: a watcher holds no
                                * file of its own but its socket); written under lock,
                                * read by the session thread */
    bool woken;                /* wake_cond's condition */
    item_queue in, out;
    bool in_full;              /* in reached WEB_MAX_INBOX: the service thread stopped
                                  reading the browser until it drains to half */
    bool overflowed;           /* the browser did not read: out was dropped */
    bool over;                 /* the session thread ended its agent */
    char over_reason[124];
    bool closed;               /* the service thread let go */
    int refs;                  /* owners left: service thread, session thread */
    /* session thread only */
    agent *ag;                 /* NULL until the browser needs one (need_agent) */
    bool browser;              /* a browser's, not the gateway's own (a hub's) */
    char name[AGENT_NAME_BYTES];
    char relay_for[ADDRESS_HOST_BYTES];   /* the browser's address key; "": none */
    char moves_game[32];       /* the game the move list is of */
    json_t *moves;             /* its moves, oldest first */
    /* read-only after web_session_open: any thread */
    char id[WEB_STORE_ID_HEX + 1];   /* the cookie session, "" for none */
    char dir[4096];            /* its directory (web_store.h), "" for none */
    /* session thread only */
    char saved_game[40];       /* what the "game" file says now */
    /* quick pairing (a "quick" command), as the GTK view's games dialog
     * does it: agent_quick_start returns at once, and the session thread,
     * which still reads the browser (a "quick_cancel"), asks for the pool's
     * news every QUICK_POLL_MS until the wait ends; session thread only */
    agent_quick *quick;        /* the wait under way, else NULL */
    bool quick_cancelled;      /* the browser cancelled it */
    char quiet_game[64];       /* the game the agent observes only to speak for its
                                * browser, which watches it through a hub (web_hub.h):
                                * everything it hears there is dropped; "": none */
    web_tour *tour;            /* version 4's tournaments (web_tournament.h); session
                                * thread only */
};

static pthread_mutex_t all_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t all_done = PTHREAD_COND_INITIALIZER;
static int running_threads;
static int browser_agents;     /* browsers' agents running now (web_session_agents); atomic */

static void queue_push(item_queue *q, item *it)
{
    it->next = NULL;
    if (q->tail)
        q->tail->next = it;
    else
        q->head = it;
    q->tail = it;
    q->count++;
    q->bytes += it->len;
}

static item *queue_pop(item_queue *q)
{
    item *it = q->head;
    if (!it)
        return NULL;
    q->head = it->next;
    if (!q->head)
        q->tail = NULL;
    q->count--;
    q->bytes -= it->len;
    return it;
}

static void queue_clear(item_queue *q)
{
    item *it;
    while ((it = queue_pop(q)))
        free(it);
}

static item *item_new(const char *text, size_t len)
{
    item *it = malloc(sizeof *it + len + 1);
    if (!it)
        return NULL;
    it->len = len;
    memcpy(it->text, text, len);
    it->text[len] = '\0';
    return it;
}

static void release(web_session *s)
{
    pthread_mutex_lock(&s->lock);
    bool last = --s->refs == 0;
    pthread_mutex_unlock(&s->lock);
    if (!last)
        return;
    queue_clear(&s->in);
    queue_clear(&s->out);
    if (s->wake_fd >= 0)
        close(s->wake_fd);
    pthread_cond_destroy(&s->wake_cond);
    pthread_mutex_destroy(&s->lock);
    json_decref(s->moves);
    free(s);
}

/* --- to the browser (session thread) --- */

/* Wake the service loop, under s->lock: once the service thread has let go
 * (closed) the context may be gone, and it lets go under the same lock.
 * lws_cancel_service takes no lock of its own (it writes to a pipe). */
static void wake_loop_locked(web_session *s)
{
    if (!s->closed)
        lws_cancel_service(s->ctx);
}

/* Queue msg (stolen) for the browser; past the outbox's bound the session
 * is marked overflowed instead and the service thread cuts the browser off. */
static void send_text(web_session *s, const char *text, size_t len)
{
    item *it = item_new(text, len);
    pthread_mutex_lock(&s->lock);
    if (!it || s->out.bytes + len > WEB_OUTBOX_BYTES) {
        s->overflowed = true;      /* it is freed below */
    } else if (!s->closed) {
        queue_push(&s->out, it);
        it = NULL;
    }
    wake_loop_locked(s);
    pthread_mutex_unlock(&s->lock);
    free(it);
}

static void send_json(web_session *s, json_t *msg)
{
    char *text = json_dumps(msg, JSON_COMPACT);
    json_decref(msg);
    if (!text)
        return;
    send_text(s, text, strlen(text));
    free(text);
}

/* A string the agent hands us is strict UTF-8 (agent.h); a NULL from
 * jansson would only mean out of memory, and then an empty string does. */
static json_t *str(const char *text)
{
    json_t *j = json_string(text ? text : "");
    return j ? j : json_string("");
}

static void send_error(web_session *s, const char *code, const char *sentence)
{
    send_json(s, json_pack("{s:s, s:s, s:o}", "type", "error", "code", code, "message",
                           str(sentence)));
}

static void add_end_codes(const agent_model *m, json_t *over);

static void finish(web_session *s, const char *reason)
{
    pthread_mutex_lock(&s->lock);
    s->over = true;
    snprintf(s->over_reason, sizeof s->over_reason, "%s", reason);
    wake_loop_locked(s);
    pthread_mutex_unlock(&s->lock);
}

static const char *const status_words[] = {
    [AGENT_GAME_WAITING] = "waiting", [AGENT_GAME_RUNNING] = "running",
    [AGENT_GAME_FINISHED] = "finished", [AGENT_GAME_ABANDONED] = "abandoned",
};

static const char *status_word(agent_status st)
{
    return st >= AGENT_GAME_WAITING && st <= AGENT_GAME_ABANDONED ? status_words[st] : "unknown";
}

static const char *const drawing_words[] = {
    [GAME_DRAW_MANCALA] = "mancala", [GAME_DRAW_DISCS] = "discs", [GAME_DRAW_SLICES] = "slices",
};

static json_t *rect_json(const geo_rect *r)
{
    return json_pack("[f,f,f,f]", r->x, r->y, r->w, r->h);
}

/* The quick-pairing pools where players wait now (the lobby's): kind,
 * options, clock ("5+3", "": none), rated, players, longest_wait_ms. An
 * error listing them leaves them out: the games are the lobby's news. */
static json_t *pools_json(agent *ag)
{
    agent_pool_info *pools = NULL;
    int n = 0;
    char err[256];
    json_t *list = json_array();
    if (!list || agent_list_pools(ag, NULL, &pools, &n, err, sizeof err) != 0)
        return list ? list : json_array();
    for (int i = 0; i < n; i++) {
        char clock[32];
        agent_format_clock_spec(&pools[i].clock, clock, sizeof clock);
        json_array_append_new(list, json_pack("{s:o, s:o, s:s, s:b, s:i, s:I}", "kind",
                                              str(pools[i].kind), "options",
                                              str(pools[i].options), "clock", clock, "rated",
                                              pools[i].rated, "players", pools[i].players,
                                              "longest_wait_ms",
                                              (json_int_t)pools[i].longest_wait_ms));
    }
    free(pools);
    return list;
}

json_t *web_session_lobby_json(agent *ag, char *err, size_t errlen)
{
    agent_game_info *games = NULL;
    int n = 0;
    if (agent_list_games(ag, NULL, 0, &games, &n, err, errlen) != 0)
        return NULL;
    json_t *list = json_array();
    for (int i = 0; i < n; i++) {
        const agent_game_info *g = &games[i];
        json_t *seats = json_array();
        for (int k = 0; k < g->n_seats && k < GAME_MAX_SEATS; k++)
            json_array_append_new(seats, str(g->seat_name[k]));
        json_array_append_new(list, json_pack("{s:o, s:o, s:o, s:o, s:s, s:o, s:i, s:b}", "id",
                                              str(g->id), "kind", str(g->kind), "title",
                                              str(g->title), "options", str(g->options),
                                              "status", status_word(g->status), "seats", seats,
                                              "observers", g->observers, "rated", g->rated));
    }
    free(games);
    json_t *kinds = json_array();
    for (int i = 0; i < game_kind_count(); i++)
        json_array_append_new(kinds, str(game_kind_at(i)->name));
    json_t *lobby = json_pack("{s:s, s:o, s:o, s:o, s:o}", "type", "lobby", "games", list,
                              "kinds", kinds, "pools", pools_json(ag), "tournaments",
                              web_tour_list(ag));
    if (!lobby)
        snprintf(err, errlen, "out of memory");
    return lobby;
}

/* The lobby: the browser's agent's own listing, or, without an agent, the
 * gateway's shared one (web_lister.h). */
static void send_lobby(web_session *s)
{
    char err[256];
    if (!s->ag) {
        size_t len = 0;
        char *text = web_lister_lobby(s->cfg, &len, err, sizeof err);
        if (!text) {
            send_error(s, "refused", err);
            return;
        }
        send_text(s, text, len);
        free(text);
        return;
    }
    json_t *lobby = web_session_lobby_json(s->ag, err, sizeof err);
    if (!lobby)
        send_error(s, "refused", err);
    else
        send_json(s, lobby);
}

/* The board as words, for the browser's aria-live region: what GTK's board
 * description says (views/gtk/gtk_panes.c, update_accessible). */
static void describe(const agent_model *m, char *buf, size_t len)
{
    size_t at = 0;
    buf[0] = '\0';
    char name[AGENT_NAME_BYTES + 16];
#define ADD(...)                                                                          \
    do {                                                                                  \
        if (at < len) {                                                                   \
            int w_ = snprintf(buf + at, len - at, __VA_ARGS__);                           \
            at = w_ < 0 ? len : at + (size_t)w_;                                          \
        }                                                                                 \
    } while (0)
    if (m->state.layout == GAME_LAYOUT_MANCALA) {
        for (int seat = 0; seat < game_seats(&m->state); seat++) {
            ADD("%s: cups", agent_seat_name(m, seat, name, sizeof name));
            for (int c = 0; c < m->state.cups; c++)
                ADD(" %d", game_cell(&m->state, game_mancala_cup(&m->state, seat, c)));
            ADD(", home %d. ", game_cell(&m->state, game_mancala_home(&m->state, seat)));
        }
    } else {
        int scores[GAME_MAX_SEATS];
        game_scores(&m->state, scores);
        for (int seat = 0; seat < game_seats(&m->state); seat++)
            ADD("%s has %d. ", agent_seat_name(m, seat, name, sizeof name), scores[seat]);
    }
    int to = game_to_move(&m->state);
    if (m->status == AGENT_GAME_RUNNING && to >= 0)
        ADD("%s to move.", agent_seat_name(m, to, name, sizeof name));
    else if (m->status == AGENT_GAME_FINISHED || m->status == AGENT_GAME_ABANDONED)
        ADD("The game is over.");
#undef ADD
}

/* The description's parts (describe's, as data), for the app to say in
 * the reader's language: each seat's name and cups and home (mancala), or
 * its score. */
static json_t *describe_parts(const agent_model *m)
{
    json_t *parts = json_array();
    char name[AGENT_NAME_BYTES + 16];
    int scores[GAME_MAX_SEATS];
    bool mancala = m->state.layout == GAME_LAYOUT_MANCALA;
    if (!mancala)
        game_scores(&m->state, scores);
    for (int seat = 0; parts && seat < game_seats(&m->state); seat++) {
        json_t *p = json_pack("{s:o}", "name", str(agent_seat_name(m, seat, name, sizeof name)));
        if (p && mancala) {
            json_t *cups = json_array();
            for (int c = 0; cups && c < m->state.cups; c++)
                json_array_append_new(
                    cups, json_integer(game_cell(&m->state, game_mancala_cup(&m->state, seat, c))));
            json_object_set_new(p, "cups", cups ? cups : json_array());
            json_object_set_new(
                p, "home", json_integer(game_cell(&m->state, game_mancala_home(&m->state, seat))));
        } else if (p) {
            json_object_set_new(p, "score", json_integer(scores[seat]));
        }
        if (p)
            json_array_append_new(parts, p);
    }
    return parts ? parts : json_array();
}

/* Version 2's part of a state: clocks, the offers open, who may be
 * claimed, the rematch, whether rated (docs/web-protocol.md). */
static void add_play_state(const agent_model *m, json_t *msg)
{
    json_t *clocks = json_null();
    if (m->time_control.per_move_s || m->time_control.base_s) {
        clocks = json_array();
        for (int seat = 0; seat < game_seats(&m->state); seat++) {
            int64_t left = agent_clock_left(m, seat);
            json_array_append_new(clocks, left >= 0 ? json_integer(left) : json_null());
        }
    }
    json_t *rematch = json_array();
    for (int seat = 0; seat < game_seats(&m->state); seat++)
        if (m->rematch_accepted & (1u << seat))
            json_array_append_new(rematch, json_integer(seat));
    json_t *away = json_array();
    for (int i = 0; i < m->n_people; i++) {
        int left = agent_away_seconds(&m->people[i]);
        if (m->people[i].seat >= 0 && left >= 0)
            json_array_append_new(away, json_pack("{s:i, s:i}", "seat", m->people[i].seat,
                                                  "seconds", left));
    }
    bool claimable = false;
    for (int seat = 0; seat < game_seats(&m->state); seat++)
        claimable = claimable || ((m->claimable & (1u << seat)) && seat != m->my_seat);
    char tc[48] = "";
    if (m->time_control.per_move_s)
        snprintf(tc, sizeof tc, "%d/move", m->time_control.per_move_s);
    else if (m->time_control.base_s)
        snprintf(tc, sizeof tc, "%d+%d", m->time_control.base_s / 60, m->time_control.increment_s);
    json_object_update_new(
        msg, json_pack("{s:o, s:i, s:b, s:o, s:i, s:b, s:o, s:o}", "clocks", clocks,
                       "clock_running", m->have_clocks ? m->clock_running : -1, "rated",
                       m->rated, "time_control", str(tc),
                       "draw_offer", m->draw_offer, "claimable", claimable, "rematch", rematch,
                       "away", away));
}

static void send_state(web_session *s)
{
    const agent_model *m = agent_model_get(s->ag);
    if (!agent_in_game(s->ag) || !m->have_state)
        return;
    const game_state *st = &m->state;
    int viewer = m->my_seat >= 0 ? m->my_seat : 0;
    geo_layout L;
    geo_layout_init(&L, st, viewer, BOARD_W, BOARD_H);

    int legal[GAME_MAX_MOVES];
    int n_legal = 0;
    int to = game_to_move(st);
    if (m->status == AGENT_GAME_RUNNING && to >= 0 && agent_holds_seat(s->ag, to))
        n_legal = agent_legal_moves(s->ag, legal, GAME_MAX_MOVES);

    int scores[GAME_MAX_SEATS];
    game_scores(st, scores);
    json_t *seats = json_array();
    for (int seat = 0; seat < game_seats(st); seat++) {
        char name[AGENT_NAME_BYTES + 16];
        geo_rect r;
        json_t *label = geo_seat_label_rect(&L, seat, &r) == 0 ? rect_json(&r) : json_null();
        char mark[2] = {game_seat_mark(st, seat), '\0'};
        const char *colour = game_seat_colour(st, seat);
        json_array_append_new(seats, json_pack("{s:i, s:o, s:i, s:s, s:o, s:o, s:b}", "seat",
                                               seat,
                                               "name", str(agent_seat_name(m, seat, name,
                                                                           sizeof name)),
                                               "score", scores[seat], "mark", mark, "colour",
                                               colour ? str(colour) : json_null(), "label",
                                               label, "out", game_is_out(st, seat)));
    }
    json_t *cells = json_array();
    for (int c = 0; c < game_cell_count(st); c++) {
        geo_rect r;
        if (geo_cell_rect(&L, c, &r) != 0)
            continue;
        int move = m->my_seat >= 0 ? geo_cell_move(st, to >= 0 ? to : viewer, c) : -1;
        bool playable = false;
        for (int i = 0; move >= 0 && i < n_legal; i++)
            playable = playable || legal[i] == move;
        char text[32] = "";
        if (move >= 0)
            agent_format_move(m, move, text, sizeof text);
        bool home = false;
        if (st->layout == GAME_LAYOUT_MANCALA)
            for (int seat = 0; seat < game_seats(st); seat++)
                home = home || game_mancala_home(st, seat) == c;
        json_array_append_new(cells, json_pack("{s:i, s:i, s:o, s:b, s:i, s:s}", "cell", c,
                                               "value", game_cell(st, c), "rect", rect_json(&r),
                                               "home", home, "move", playable ? move : -1,
                                               "label", text));
    }
    char description[2048];
    describe(m, description, sizeof description);
    json_t *over = json_null();
    if (m->status == AGENT_GAME_FINISHED || m->status == AGENT_GAME_ABANDONED) {
        json_t *winners = json_array();
        for (int i = 0; i < m->n_winners; i++)
            json_array_append_new(winners, json_integer(m->winners[i]));
        over = json_pack("{s:o, s:o}", "reason", str(m->end_reason), "winners", winners);
        add_end_codes(m, over);
    }
    json_t *msg = json_pack(
        "{s:s, s:o, s:o, s:o, s:s, s:s, s:i, s:i, s:[f,f,f,f], s:o, s:o, s:o, s:O, s:o, s:i}",
        "type", "state", "game", str(m->game_id), "kind", str(m->kind ? m->kind->name : ""),
        "title", str(m->title), "status", status_word(m->status), "drawing",
        drawing_words[st->kind->drawing], "my_seat", m->my_seat, "to_move", to, "view", L.x0,
        L.y0, L.width, L.height, "seats", seats, "cells", cells, "description", str(description),
        "moves", s->moves ? s->moves : json_null(), "over", over, "observers", m->n_observers);
    if (msg) {
        add_play_state(m, msg);
        json_object_set_new(msg, "description_parts", describe_parts(m));
    }
    if (msg)
        send_json(s, msg);
}

static void send_event(web_session *s, const char *event, const agent_msg *msg, const char *text)
{
    char seat_name[AGENT_NAME_BYTES + 16];
    const char *name = msg->name;
    if (!name[0] && msg->seat >= 0)    /* a move names its seat only */
        name = agent_seat_name(agent_model_get(s->ag), msg->seat, seat_name, sizeof seat_name);
    json_t *j = json_pack("{s:s, s:s, s:i, s:o, s:o}", "type", "event", "event", event, "seat",
                          msg->seat, "name", str(name), "text", str(text));
    if (j && msg->kind == AGENT_MSG_CHAT)
        json_object_update_new(j, json_pack("{s:o, s:b}", "to", str(msg->to), "spectators",
                                            msg->spectators));
    if (j)
        send_json(s, j);
}

/* The most sowing steps sent with a move: a longer relay is not animated. */
#define MAX_STEPS_SENT 2048

/* "moved", with what the GTK view animates from (gtk_anim.c): the cell the
 * move was played from and its steps, each cell's value after it changed,
 * as the rules (games/) recorded them for the service, so that the browser
 * can sow the seeds cup by cup without knowing a rule; from is the cell the
 * move names (geo_move_cell, as the GTK view finds it), -1 for none. */
static void send_moved(web_session *s, const agent_msg *msg)
{
    const agent_model *m = agent_model_get(s->ag);
    char move[32], seat_name[AGENT_NAME_BYTES + 16];
    agent_format_move(m, msg->move, move, sizeof move);
    json_t *steps = json_array();
    for (int i = 0; steps && msg->steps && msg->n_steps <= MAX_STEPS_SENT && i < msg->n_steps; i++)
        json_array_append_new(steps, json_pack("[i, i]", msg->steps[i].cell, msg->steps[i].value));
    int from = m->have_state ? geo_move_cell(&m->state, msg->seat, msg->move) : -1;
    json_t *j = json_pack("{s:s, s:s, s:i, s:o, s:o, s:i, s:o}", "type", "event", "event",
                          "moved", "seat", msg->seat, "name",
                          str(agent_seat_name(m, msg->seat, seat_name, sizeof seat_name)),
                          "text", str(move), "from", from, "steps",
                          steps ? steps : json_array());
    if (j)
        send_json(s, j);
}

/* The agent's machine-readable reasons (agent.h: agent_end_why,
 * agent_out_why), as words the app says in the reader's language
 * (docs/web-protocol.md, "The gateway's reasons"); "" when unknown, and
 * the English sentence is all there is. */
static const char *end_code(int why)
{
    static const char *const words[] = {
        [AGENT_END_UNKNOWN] = "", [AGENT_END_FINISHED] = "finished",
        [AGENT_END_PLAYER_OUT] = "player_out", [AGENT_END_DRAW_AGREED] = "draw_agreed",
        [AGENT_END_ABORTED] = "aborted", [AGENT_END_NO_FIRST_MOVE] = "no_first_move",
        [AGENT_END_EMPTY_SEAT_TIME] = "empty_seat_time", [AGENT_END_OPERATOR] = "operator",
        [AGENT_END_NOBODY_LEFT] = "nobody_left",
    };
    return why >= 0 && why < (int)(sizeof words / sizeof words[0]) && words[why] ? words[why]
                                                                               : "";
}

static const char *out_code(int why)
{
    static const char *const words[] = {
        [AGENT_OUT_UNKNOWN] = "", [AGENT_OUT_RESIGNED] = "resigned",
        [AGENT_OUT_TIME_RAN_OUT] = "time_ran_out", [AGENT_OUT_QUIT] = "quit",
        [AGENT_OUT_CLAIMED] = "claimed",
    };
    return why >= 0 && why < (int)(sizeof words / sizeof words[0]) && words[why] ? words[why]
                                                                               : "";
}

/* over's why, out (a player_out's), who and detail (an operator's words). */
static void add_end_codes(const agent_model *m, json_t *over)
{
    if (over)
        json_object_update_new(over, json_pack("{s:s, s:s, s:o, s:o}", "why",
                                               end_code(m->end_why), "out",
                                               out_code(m->end_out_why), "who", str(m->end_who),
                                               "detail", str(m->end_detail)));
}

/* "notice", with what the agent said as a code (agent_said) and its
 * arguments, which the app says in the reader's language: said is "lost"
 * (where, seconds: how long it tries), "still_trying" (seconds so far),
 * "reconnected" (where), or "" (text alone says it). */
static void send_notice(web_session *s, const agent_msg *msg)
{
    static const char *const words[] = {
        [AGENT_SAID_TEXT] = "", [AGENT_SAID_LOST] = "lost",
        [AGENT_SAID_STILL_TRYING] = "still_trying", [AGENT_SAID_RECONNECTED] = "reconnected",
        [AGENT_SAID_GAVE_UP] = "gave_up",
    };
    int said = (int)msg->said;
    const char *code = said >= 0 && said < (int)(sizeof words / sizeof words[0]) && words[said]
                           ? words[said]
                           : "";
    json_t *j = json_pack("{s:s, s:s, s:i, s:o, s:o, s:s, s:o, s:i}", "type", "event", "event",
                          "notice", "seat", msg->seat, "name", str(msg->name), "text",
                          str(msg->text), "said", code, "where", str(msg->where), "seconds",
                          msg->seconds);
    if (j)
        send_json(s, j);
}

/* "departed", with why: the player's reason as a word the app says in the
 * reader's language (agent_depart_why; "" when unknown, and text alone
 * says it), and grace_s, the seconds the seat is kept. */
static void send_departed(web_session *s, const agent_msg *msg)
{
    static const char *const words[] = {
        [AGENT_DEPART_UNKNOWN] = "", [AGENT_DEPART_CONNECTION_CLOSED] = "connection_closed",
        [AGENT_DEPART_NO_PINGS] = "no_pings", [AGENT_DEPART_NOT_BACK] = "not_back",
        [AGENT_DEPART_TOKEN_REVOKED] = "token_revoked",
        [AGENT_DEPART_ENDED_BY_OPERATOR] = "ended_by_operator",
    };
    const char *why = msg->why >= 0 && msg->why < (int)(sizeof words / sizeof words[0]) &&
                              words[msg->why]
                          ? words[msg->why]
                          : "";
    json_t *j = json_pack("{s:s, s:s, s:i, s:o, s:o, s:s, s:i}", "type", "event", "event",
                          "departed", "seat", msg->seat, "name", str(msg->name), "text",
                          str(msg->text), "why", why, "grace_s", msg->grace_s);
    if (j)
        send_json(s, j);
}

/* "out", with why: out_code of the player's reason. */
static void send_out(web_session *s, const agent_msg *msg)
{
    json_t *j = json_pack("{s:s, s:s, s:i, s:o, s:o, s:s}", "type", "event", "event", "out",
                          "seat", msg->seat, "name", str(msg->name), "text", str(msg->text),
                          "why", out_code(msg->why));
    if (j)
        send_json(s, j);
}

static void remember_move(web_session *s, const agent_msg *msg)
{
    const agent_model *m = agent_model_get(s->ag);
    if (strcmp(s->moves_game, m->game_id) != 0 || !s->moves) {
        json_decref(s->moves);
        s->moves = json_array();
        snprintf(s->moves_game, sizeof s->moves_game, "%s", m->game_id);
    }
    char text[32], name[AGENT_NAME_BYTES + 16];
    agent_format_move(m, msg->move, text, sizeof text);
    if (json_array_size(s->moves) < MAX_MOVES_KEPT)
        json_array_append_new(s->moves,
                              json_pack("{s:i, s:o, s:o}", "seat", msg->seat, "name",
                                        str(agent_seat_name(m, msg->seat, name, sizeof name)),
                                        "move", str(text)));
}

/* A snapshot (a game joined, taken back after a reload or a restart of
 * the gateway, a rematch): the game's moves so far from the service
 * (GetMatch reads a running game's log), cut to those the snapshot's
 * board reflects, so the moves that follow as events are not counted
 * twice. The events after the snapshot wait in the agent's queue
 * meanwhile: none is missed. Without them (a service without a store),
 * the list starts here. */
static void fill_moves(web_session *s)
{
    const agent_model *m = agent_model_get(s->ag);
    json_decref(s->moves);
    s->moves = json_array();
    snprintf(s->moves_game, sizeof s->moves_game, "%s", m->game_id);
    agent_match match;
    int *seats = NULL, *moves = NULL;
    char err[256];
    if (!m->have_state || agent_get_match(s->ag, m->game_id, &match, &seats, &moves, err,
                                          sizeof err) != 0)
        return;
    int upto = -1;
    for (int n = match.n_moves; n >= 0 && upto < 0; n--) {
        game_state at;
        if (agent_match_position(&match, seats, moves, n, &at, err, sizeof err) != 0)
            continue;
        bool same = at.n_cells == m->state.n_cells &&
                    game_to_move(&at) == game_to_move(&m->state);
        for (int c = 0; same && c < at.n_cells; c++)
            same = game_cell(&at, c) == game_cell(&m->state, c);
        if (same)
            upto = n;
    }
    for (int i = 0; i < upto && i < MAX_MOVES_KEPT; i++) {
        char text[32], name[AGENT_NAME_BYTES + 16];
        agent_format_move(m, moves[i], text, sizeof text);
        json_array_append_new(s->moves,
                              json_pack("{s:i, s:o, s:o}", "seat", seats[i], "name",
                                        str(agent_seat_name(m, seats[i], name, sizeof name)),
                                        "move", str(text)));
    }
    free(seats);
    free(moves);
}

/* The game at hand, in the session's directory, for the next connection
 * (a reload, or after a restart of the gateway) to come back to: "ID seat"
 * or "ID watch". */
static void remember_game(web_session *s)
{
    if (!s->dir[0])
        return;
    const agent_model *m = agent_model_get(s->ag);
    char line[40];
    snprintf(line, sizeof line, "%.31s %s", m->game_id, m->my_seat >= 0 ? "seat" : "watch");
    if (!m->game_id[0] || strcmp(line, s->saved_game) == 0)
        return;
    if (web_store_put(s->dir, "game", line) == 0)
        snprintf(s->saved_game, sizeof s->saved_game, "%s", line);
}

static void forget_game(web_session *s)
{
    if (s->dir[0])
        web_store_drop(s->dir, "game");
    s->saved_game[0] = '\0';
}

/* The game the browser's agent watches only to speak in (quiet_game) has
 * a rematch: watch that instead. When it cannot, quiet_game stays the old
 * game's, and the next line, said in the hub's new game, joins that
 * (watch_chat). */
static void quiet_rematch(web_session *s, const char *game)
{
    char err[512];
    if (game[0] && strlen(game) < sizeof s->quiet_game &&
        agent_watch_rematch(s->ag, game, err, sizeof err) == 0)
        snprintf(s->quiet_game, sizeof s->quiet_game, "%s", game);
}

/* One message from the agent, already applied to its model. */
static void from_agent(web_session *s, const agent_msg *msg)
{
    char text[AGENT_TEXT_BYTES + 64];
    const agent_model *m = agent_model_get(s->ag);
    /* The browser hears this game through its hub: only a refusal of its
     * own chat and the end of the service are its session's to say. A
     * rematch is followed quietly, as the hub's observer follows it
     * (web_hub.c), so the browser's next line is said in the new game. */
    if (s->quiet_game[0] && msg->kind == AGENT_MSG_REMATCH_STARTED)
        quiet_rematch(s, msg->text);
    if (s->quiet_game[0] && msg->kind != AGENT_MSG_REFUSED &&
        msg->kind != AGENT_MSG_DISCONNECTED)
        return;
    switch (msg->kind) {
    case AGENT_MSG_SNAPSHOT:
        fill_moves(s);
        remember_game(s);
        break;
    case AGENT_MSG_MOVED:
        remember_move(s, msg);
        send_moved(s, msg);
        break;
    case AGENT_MSG_CHAT:
        send_event(s, "chat", msg, msg->text);
        return;
    case AGENT_MSG_GAME_OVER:
        send_event(s, "game_over", msg, msg->text);
        break;
    case AGENT_MSG_JOINED:
        send_event(s, "joined", msg, "");
        break;
    case AGENT_MSG_LEFT:
        send_event(s, "left", msg, "");
        break;
    case AGENT_MSG_STARTED:
        send_event(s, "started", msg, "");
        break;
    case AGENT_MSG_DEPARTED:
        send_departed(s, msg);
        break;
    case AGENT_MSG_RETURNED:
        send_event(s, "returned", msg, "");
        break;
    case AGENT_MSG_DRAW_OFFERED:
        send_event(s, "draw_offered", msg, "");
        break;
    case AGENT_MSG_DRAW_DECLINED:
        send_event(s, "draw_declined", msg, "");
        break;
    case AGENT_MSG_TIME_GIVEN:         /* the clocks come with the state that follows */
        send_event(s, "time_given", msg, "");
        break;
    case AGENT_MSG_REMATCH_OFFERED:
        send_event(s, "rematch_offered", msg, "");
        break;
    case AGENT_MSG_REMATCH_DECLINED:
        send_event(s, "rematch_declined", msg, "");
        break;
    case AGENT_MSG_TAKEN_OVER:
        send_event(s, "taken_over", msg, msg->text);
        break;
    case AGENT_MSG_REMATCH_STARTED: {
        /* Everyone accepted: go to the new game, seated or watching; its
         * snapshot follows. */
        char err[512];
        send_event(s, "rematch_started", msg, msg->text);
        int rc = m->my_seat >= 0 ? agent_follow_rematch(s->ag, err, sizeof err)
                                 : agent_watch_rematch(s->ag, msg->text, err, sizeof err);
        if (rc != 0)
            send_error(s, "refused", err);
        return;
    }
    case AGENT_MSG_OUT:
        send_out(s, msg);
        break;
    case AGENT_MSG_NOTICE:
    case AGENT_MSG_RECONNECTING:
    case AGENT_MSG_RECONNECTED:
        send_notice(s, msg);
        return;
    case AGENT_MSG_REFUSED:
        /* with the service's reason (ErrorReason), which the app says in
         * the reader's language */
        send_json(s, json_pack("{s:s, s:s, s:o, s:o}", "type", "error", "code", "refused",
                               "message", str(msg->text), "reason", str(msg->reason)));
        return;
    case AGENT_MSG_DISCONNECTED:
        snprintf(text, sizeof text, "the board service is gone: %s", msg->text);
        send_error(s, "disconnected", text);
        finish(s, "the board service is gone");
        return;
    case AGENT_MSG_PINGS:
        return;
    default:
        break;
    }
    send_state(s);
}

/* --- from the browser (session thread) --- */

/* The settings of this browser's agent (pointing into s and its config). */
static void agent_config_of(web_session *s, agent_config *cfg)
{
    memset(cfg, 0, sizeof *cfg);
    cfg->server = s->cfg->server;
    cfg->tls = s->cfg->tls;
    cfg->tls_ca = s->cfg->tls_ca;
    cfg->relay_key = s->cfg->relay_key;
    cfg->relay_for = s->relay_for[0] ? s->relay_for : NULL;
    cfg->name = s->name;
    cfg->ready = true;         /* a browser has nobody to type "ready" */
    cfg->autostart = true;
    /* A browser's seat tokens and account session are kept in its cookie
     * session's directory (web_store.h); without one, nowhere. */
    cfg->state_dir = s->dir;
}

/* The agent started (session thread): counted when it is a browser's. */
static void agent_counted(web_session *s, int by)
{
    if (s->browser)
        __atomic_add_fetch(&browser_agents, by, __ATOMIC_RELAXED);
}

/* Start the agent with cfg (session thread): with it the session's wake
 * eventfd, which the session thread polls beside the agent's fd. 0, or -1
 * with a sentence. */
static int agent_begin(web_session *s, const agent_config *cfg, char *err, size_t errlen)
{
    if (s->wake_fd < 0) {
        int fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
        if (fd < 0) {
            snprintf(err, errlen, "the gateway cannot open a file for the browser (%s)",
                     strerror(errno));
            return -1;
        }
        pthread_mutex_lock(&s->lock);
        s->wake_fd = fd;
        pthread_mutex_unlock(&s->lock);
    }
    if (agent_start(cfg, &s->ag, err, errlen) != 0) {
        s->ag = NULL;
        return -1;
    }
    agent_counted(s, 1);
    return 0;
}

/* The browser's agent, started now when it has none (session thread): a
 * browser needs one to play, sign in, speak or read its history, not to
 * watch (web_hub.h) or read the lobby (web_lister.h). Blocks this session's
 * thread only. false when the board service cannot be reached: said to the
 * browser, and the session ends as when it could not be reached at the
 * start. */
static bool need_agent(web_session *s)
{
    if (s->ag)
        return true;
    agent_config cfg;
    char err[512];
    agent_config_of(s, &cfg);
    if (agent_begin(s, &cfg, err, sizeof err) != 0) {
        send_error(s, "unreachable", err);
        finish(s, "cannot reach the board service");
        return false;
    }
    return true;
}

/* Commands after which the shared lobby is made anew (web_lister.h). */
static bool changes_lobby(const char *type)
{
    static const char *const types[] = {"new", "join", "leave", "quick", "quick_cancel",
                                        "rematch", "resign", "abort", "tournament_new",
                                        "tournament_join", "tournament_leave"};
    for (size_t i = 0; i < sizeof types / sizeof types[0]; i++)
        if (strcmp(type, types[i]) == 0)
            return true;
    return false;
}

/* Commands a browser without an agent is answered without one. */
static bool agentless(const char *type)
{
    static const char *const types[] = {"hello", "list", "leave", "_unwatch", "quick_cancel"};
    for (size_t i = 0; i < sizeof types / sizeof types[0]; i++)
        if (strcmp(type, types[i]) == 0)
            return true;
    return false;
}


static void command_new(web_session *s, json_t *cmd)
{
    const char *kind = json_string_value(json_object_get(cmd, "kind"));
    json_t *opts = json_object_get(cmd, "options");
    json_t *bots = json_object_get(cmd, "bots");
    if (!kind || (opts && !json_is_array(opts)) || (bots && !json_is_integer(bots))) {
        send_error(s, "bad_field",
                   "\"new\" needs a kind (a string), options (an array of \"name=value\" "
                   "strings) and bots (a number)");
        return;
    }
    const char *options[GAME_MAX_OPTIONS + 1];
    char bots_opt[32];
    int n = 0;
    size_t i;
    json_t *o;
    json_array_foreach(opts, i, o) {
        if (!json_is_string(o) || n >= GAME_MAX_OPTIONS) {
            send_error(s, "bad_field", "options must be a short array of \"name=value\" strings");
            return;
        }
        options[n++] = json_string_value(o);
    }
    if (bots) {
        snprintf(bots_opt, sizeof bots_opt, "bots=%lld", (long long)json_integer_value(bots));
        options[n++] = bots_opt;
    }
    char err[512];
    if (agent_new_game(s->ag, kind, options, n, err, sizeof err) != 0)
        send_error(s, "refused", err);
}

/* The person's account (version 2): who the browser is now. */
static void send_account(web_session *s)
{
    const char *account = agent_account(s->ag);
    send_json(s, json_pack("{s:s, s:o, s:o, s:b}", "type", "account", "account",
                           account ? str(account) : json_null(), "name", str(s->name),
                           "kept", s->dir[0] != '\0'));
}

/* sign_in, register, sign_out; true when type is one of them. Signing in
 * needs the page's CSRF token besides the WebSocket's Origin check (a page
 * elsewhere can neither open this WebSocket nor read the token's cookie),
 * and a session kept for the browser (its cookie): a sign-in must outlive
 * the connection, or a reload would sign the person out. */
static bool account_command(web_session *s, const char *type, json_t *cmd)
{
    bool in = strcmp(type, "sign_in") == 0, reg = strcmp(type, "register") == 0;
    char err[512];
    if (strcmp(type, "sign_out") == 0) {
        if (agent_sign_out(s->ag, false, err, sizeof err) != 0)
            send_error(s, "refused", err);
        send_account(s);
        return true;
    }
    if (!in && !reg)
        return false;
    const char *name = json_string_value(json_object_get(cmd, "name"));
    const char *password = json_string_value(json_object_get(cmd, "password"));
    const char *csrf = json_string_value(json_object_get(cmd, "csrf"));
    if (!name || !password || !csrf || strlen(name) > 128 || strlen(password) > 1024) {
        send_error(s, "bad_field", "signing in needs a name, a password and the page's csrf "
                                   "token (strings)");
        return true;
    }
    if (!s->id[0] || !web_store_csrf_ok(s->id, csrf)) {
        send_error(s, "csrf", "this page's sign-in token does not match its session: reload "
                              "the page and sign in again");
        return true;
    }
    int rc = in ? agent_sign_in(s->ag, name, password, err, sizeof err)
                : agent_register(s->ag, name, password, NULL, err, sizeof err);
    if (rc != 0)
        send_error(s, "refused", err);
    else
        send_account(s);
    return true;
}

/* The commands of a game at hand (version 2): true when type is one. */
static bool game_command(web_session *s, const char *type, json_t *cmd)
{
    static const struct {
        const char *type;
        int (*call)(agent *ag);
    } simple[] = {
        {"offer_draw", agent_offer_draw}, {"abort", agent_abort}, {"claim", agent_claim},
        {"give_time", agent_give_time},
    };
    int which = -1;
    for (size_t i = 0; i < sizeof simple / sizeof simple[0]; i++)
        if (strcmp(type, simple[i].type) == 0)
            which = (int)i;
    bool answer = strcmp(type, "answer_draw") == 0, rematch = strcmp(type, "rematch") == 0,
         tell = strcmp(type, "tell") == 0;
    if (which < 0 && !answer && !rematch && !tell)
        return false;
    json_t *flag = json_object_get(cmd, answer ? "accept" : "decline");
    const char *to = json_string_value(json_object_get(cmd, "to"));
    const char *text = json_string_value(json_object_get(cmd, "text"));
    if (!agent_in_game(s->ag))
        send_error(s, "refused", "you are not at a game");
    else if (which >= 0)
        simple[which].call(s->ag);
    else if (answer && !json_is_boolean(flag))
        send_error(s, "bad_field", "\"answer_draw\" needs accept (true or false)");
    else if (answer)
        agent_answer_draw(s->ag, json_is_true(flag));
    else if (rematch && flag && !json_is_boolean(flag))
        send_error(s, "bad_field", "\"rematch\" may say decline (true or false)");
    else if (rematch)
        agent_rematch(s->ag, json_is_true(flag));
    else if (!to || !*to || strlen(to) > 128 || !text || !*text || strlen(text) > 500)
        send_error(s, "bad_field", "\"tell\" needs to (a name) and a text of 1 to 500 bytes");
    else
        agent_tell(s->ag, to, text);
    return true;
}

/* --- quick pairing (web_session.h) --- */

#define QUICK_POLL_MS 100      /* how often the pool's news is asked for while waiting */

/* "quick": kind, and optionally clock ("5+3"), options, rated. */
static void command_quick(web_session *s, json_t *cmd)
{
    const char *kind = json_string_value(json_object_get(cmd, "kind"));
    json_t *clock = json_object_get(cmd, "clock");
    json_t *opts = json_object_get(cmd, "options");
    json_t *rated = json_object_get(cmd, "rated");
    if (!kind || !*kind || strlen(kind) > 32 || (clock && !json_is_string(clock)) ||
        (clock && json_string_length(clock) > 32) || (opts && !json_is_array(opts)) ||
        (rated && !json_is_boolean(rated))) {
        send_error(s, "bad_field", "\"quick\" needs a kind (a string) and may say clock "
                                   "(\"5+3\"), options (an array) and rated (true or false)");
        return;
    }
    const char *options[GAME_MAX_OPTIONS];
    int n = 0;
    size_t i;
    json_t *o;
    json_array_foreach(opts, i, o) {
        if (!json_is_string(o) || n == GAME_MAX_OPTIONS) {
            send_error(s, "bad_field", "options must be a short array of \"name=value\" strings");
            return;
        }
        options[n++] = json_string_value(o);
    }
    const char *c = json_string_value(clock);
    char spec[96], err[512];
    snprintf(spec, sizeof spec, "%s%s%s", kind, c && *c ? ":" : "", c && *c ? c : "");
    s->quick = agent_quick_start(s->ag, spec, options, n, json_is_true(rated), err, sizeof err);
    if (!s->quick) {
        send_error(s, "refused", err);
        return;
    }
    s->quiet_game[0] = '\0';          /* agent_quick_finish leaves it once paired */
    s->quick_cancelled = false;
    send_json(s, json_pack("{s:s, s:b, s:i, s:i}", "type", "pairing", "waiting", 1,
                           "pool_size", 0, "waited_ms", 0));
}

/* While a quick pairing waits (session thread, each turn of its loop): the
 * pool's news to the browser, and once the wait has ended, its end: the
 * game (its snapshot follows from the agent) or the lobby again. closing:
 * the browser is gone; cancel and end it. */
static void quick_poll(web_session *s, bool closing)
{
    if (!s->quick)
        return;
    agent_pairing p;
    bool ended = false;
    if (agent_quick_news(s->quick, &p, &ended) && !closing)
        send_json(s, json_pack("{s:s, s:b, s:i, s:I, s:i, s:i, s:b}", "type", "pairing",
                               "waiting", 1, "pool_size", p.pool_size, "waited_ms",
                               (json_int_t)p.waited_ms, "rating", p.rating, "range", p.range,
                               "any_rating", p.any_rating));
    if (!ended && !closing)
        return;
    if (!ended)
        agent_quick_cancel(s->quick);
    char err[512];
    int rc = agent_quick_finish(s->ag, s->quick, err, sizeof err);
    s->quick = NULL;
    web_lister_changed();
    if (closing)
        return;
    if (rc == 0) {
        send_json(s, json_pack("{s:s, s:b, s:b}", "type", "pairing", "waiting", 0, "paired", 1));
        return;
    }
    if (!s->quick_cancelled)
        send_error(s, "refused", err);
    send_json(s, json_pack("{s:s, s:b, s:b}", "type", "pairing", "waiting", 0, "paired", 0));
    send_lobby(s);
}

/* "_watch_chat" (made by web_hub_command, never the browser's): the
 * browser watches game through its hub, whose observer speaks for nobody,
 * and says text there. Its own agent joins the game as an observer the
 * first time, only to speak: what it hears there the hub already tells the
 * browser, so it is dropped (quiet_game). A browser seated at another game
 * is told to leave it first rather than losing its seat to a chat line. */
static void watch_chat(web_session *s, json_t *cmd)
{
    const char *game = json_string_value(json_object_get(cmd, "game"));
    const char *t = json_string_value(json_object_get(cmd, "text"));
    char err[512];
    if (!game || !*game || strlen(game) >= sizeof s->quiet_game || !t || !*t ||
        strlen(t) > 500) {
        send_error(s, "bad_field", "\"chat\" needs a text of 1 to 500 bytes");
        return;
    }
    if (strcmp(s->quiet_game, game) != 0) {
        if (agent_in_game(s->ag) && !s->quiet_game[0]) {
            send_error(s, "refused", "you are at another game: leave it to chat in this one");
            return;
        }
        s->quiet_game[0] = '\0';
        if (agent_join_game(s->ag, game, true, err, sizeof err) != 0) {
            send_error(s, "refused", err);
            return;
        }
        snprintf(s->quiet_game, sizeof s->quiet_game, "%s", game);
    }
    agent_chat(s->ag, t);
}

static void command(web_session *s, const char *text, size_t len)
{
    json_error_t jerr;
    json_t *cmd = json_loadb(text, len, JSON_REJECT_DUPLICATES, &jerr);
    if (!cmd || !json_is_object(cmd)) {
        char why[256];
        snprintf(why, sizeof why, "that is not a JSON object (%s)", cmd ? "not an object" : jerr.text);
        send_error(s, "bad_json", why);
        json_decref(cmd);
        return;
    }
    const char *type = json_string_value(json_object_get(cmd, "type"));
    char err[512];
    json_t *reply;
    if (!type) {
        send_error(s, "bad_command", "every command needs a \"type\" (a string)");
    } else if (!s->ag && !agentless(type) && !need_agent(s)) {
        /* said, and the session ends */
    } else if (strcmp(type, "quick_cancel") == 0) {
        if (s->quick) {
            s->quick_cancelled = true;
            agent_quick_cancel(s->quick);
        } else {
            send_error(s, "refused", "you are not waiting for a quick game");
        }
    } else if (s->quick) {
        send_error(s, "refused", "you are waiting for a quick game: cancel it first");
    } else if (strcmp(type, "quick") == 0) {
        command_quick(s, cmd);
    } else if (strcmp(type, "hello") == 0) {
        json_t *v = json_object_get(cmd, "version");
        if (!json_is_integer(v) || json_integer_value(v) < WEB_PROTOCOL_OLDEST ||
            json_integer_value(v) > WEB_PROTOCOL_VERSION)
            send_error(s, "version", "this gateway speaks versions 1 to 4 of the protocol "
                                     "only: reload the page");
    } else if (s->ag &&
               (reply = web_history_command(s->ag, agent_account(s->ag) ? agent_account(s->ag)
                                                                         : s->name,
                                            type, cmd)) != NULL) {
        send_json(s, reply);   /* version 3: web_history.h */
    } else if (s->tour && web_tour_command(s->tour, s->ag, type, cmd)) {
        /* version 4: web_tournament.h */
    } else if (account_command(s, type, cmd)) {
        /* done */
    } else if (game_command(s, type, cmd)) {
        /* done */
    } else if (strcmp(type, "list") == 0) {
        send_lobby(s);
    } else if (strcmp(type, "new") == 0) {
        s->quiet_game[0] = '\0';      /* agent_new_game leaves it first */
        command_new(s, cmd);
    } else if (strcmp(type, "join") == 0) {
        s->quiet_game[0] = '\0';      /* agent_join_game leaves it first */
        const char *game = json_string_value(json_object_get(cmd, "game"));
        json_t *observe = json_object_get(cmd, "observe");
        if (!game || (observe && !json_is_boolean(observe)))
            send_error(s, "bad_field", "\"join\" needs a game (its id, a string) and may say "
                                       "observe (true or false)");
        else if (agent_join_game(s->ag, game, json_is_true(observe), err, sizeof err) != 0)
            send_error(s, "refused", err);
    } else if (strcmp(type, "move") == 0) {
        json_t *mv = json_object_get(cmd, "move");
        if (!json_is_integer(mv) || json_integer_value(mv) < -1000 ||
            json_integer_value(mv) > GAME_MAX_CELLS)
            send_error(s, "bad_field", "\"move\" needs a move (a number from the board's cells)");
        else if (!agent_in_game(s->ag))
            send_error(s, "refused", "you are not at a game");
        else if (agent_check_move(s->ag, (int)json_integer_value(mv), err, sizeof err) != 0)
            send_error(s, "refused", err);
        else
            agent_move(s->ag, (int)json_integer_value(mv));
    } else if (strcmp(type, "chat") == 0) {
        const char *t = json_string_value(json_object_get(cmd, "text"));
        if (!t || !*t || strlen(t) > 500)
            send_error(s, "bad_field", "\"chat\" needs a text of 1 to 500 bytes");
        else if (!agent_in_game(s->ag))
            send_error(s, "refused", "you are not at a game");
        else
            agent_chat(s->ag, t);
    } else if (strcmp(type, "_watch_chat") == 0) {
        watch_chat(s, cmd);
    } else if (strcmp(type, "_unwatch") == 0) {
        if (s->quiet_game[0]) {
            agent_leave(s->ag);
            s->quiet_game[0] = '\0';
        }
    } else if (strcmp(type, "resign") == 0) {
        if (!agent_in_game(s->ag))
            send_error(s, "refused", "you are not at a game");
        else
            agent_resign(s->ag);
    } else if (strcmp(type, "leave") == 0) {
        s->quiet_game[0] = '\0';
        if (s->ag)
            agent_leave(s->ag);
        forget_game(s);
        send_json(s, json_pack("{s:s}", "type", "left"));
        send_lobby(s);
    } else {
        send_error(s, "bad_command", "unknown command type (see docs/web-protocol.md)");
    }
    if (type && changes_lobby(type))
        web_lister_changed();
    json_decref(cmd);
}

/* The session's directory, its guest name (made the first time) and the
 * game it was at, if any (remember_game). */
static void load_session(web_session *s, char *game, size_t game_len, bool *watch)
{
    game[0] = '\0';
    if (s->id[0] && s->cfg->state_dir &&
        !web_store_known(s->cfg->state_dir, s->id, s->dir, sizeof s->dir))
        s->id[0] = '\0';       /* unknown or expired: a guest for this connection */
    bool named = s->dir[0] && web_store_get(s->dir, "name", s->name, sizeof s->name) == 0 &&
                 strncmp(s->name, "guest-", 6) == 0;
    if (!named) {
        uint8_t rnd[3] = {0};
        if (getrandom(rnd, sizeof rnd, 0) != (ssize_t)sizeof rnd)
            memset(rnd, 0, sizeof rnd);
        snprintf(s->name, sizeof s->name, "guest-%02x%02x%02x", rnd[0], rnd[1], rnd[2]);
        if (s->dir[0])
            web_store_put(s->dir, "name", s->name);
    }
    char line[40];
    if (s->dir[0] && web_store_get(s->dir, "game", line, sizeof line) == 0) {
        char *space = strchr(line, ' ');
        *watch = space && strcmp(space + 1, "watch") == 0;
        if (space)
            *space = '\0';
        snprintf(game, game_len, "%s", line);
    }
}

static void tour_send(void *session, json_t *msg)
{
    send_json(session, msg);
}

static void *session_main(void *arg)
{
    web_session *s = arg;
    agent_config cfg;
    char game[40];
    bool watch = false;
    load_session(s, game, sizeof game, &watch);
    agent_config_of(s, &cfg);
    char err[512];
    /* Back to the game the browser was at: the agent takes its seat back
     * with the token kept for it, and resumes the game's events. */
    bool resumed = false;
    if (game[0]) {
        cfg.game_id = game;
        cfg.observe = watch;
        resumed = agent_begin(s, &cfg, err, sizeof err) == 0;
        if (!resumed)
            forget_game(s);    /* over and gone, or the seat was lost */
    }
    /* A browser signed in (its account session kept in its directory) has
     * its agent at once, so that hello names the account; any other waits
     * for a command that needs one (need_agent), and its lobby is the
     * gateway's shared one. The gateway's own sessions (a hub's) list
     * nothing. */
    char account_name[AGENT_NAME_BYTES], token[128];   /* the agent's are 80 bytes */
    bool signed_in = s->dir[0] && session_store_find(s->dir, s->cfg->server, account_name,
                                                     sizeof account_name, token,
                                                     sizeof token) == 0;
    explicit_bzero(token, sizeof token);
    char *lobby = NULL;
    size_t lobby_len = 0;
    if (!s->ag && signed_in && !need_agent(s))
        goto done;
    if (!s->ag && s->browser && !(lobby = web_lister_lobby(s->cfg, &lobby_len, err, sizeof err))) {
        send_error(s, "unreachable", err);
        finish(s, "cannot reach the board service");
        goto done;
    }
    if (resumed)
        snprintf(s->saved_game, sizeof s->saved_game, "%.31s %s", game, watch ? "watch" : "seat");
    const char *account = s->ag ? agent_account(s->ag) : NULL;
    send_json(s, json_pack("{s:s, s:i, s:o, s:o, s:o, s:b}", "type", "hello", "version",
                           WEB_PROTOCOL_VERSION, "name", str(s->name), "account",
                           account ? str(account) : json_null(), "game",
                           resumed ? str(game) : json_null(), "kept", s->dir[0] != '\0'));
    s->tour = web_tour_new(tour_send, s);
    if (lobby)
        send_text(s, lobby, lobby_len);
    else if (s->ag)
        send_lobby(s);
    free(lobby);
    int tour_ms = -1;
    for (;;) {
        if (!s->ag) {
            /* Nothing but the browser to wait for. */
            pthread_mutex_lock(&s->lock);
            while (!s->woken)
                pthread_cond_wait(&s->wake_cond, &s->lock);
            s->woken = false;
            pthread_mutex_unlock(&s->lock);
        }
        /* While a quick pairing waits, the pool's news is asked for every
         * QUICK_POLL_MS, and the game's messages wait for its end; while a
         * tournament is followed, its news every WEB_TOUR_POLL_MS. */
        struct pollfd fds[2] = {{.fd = s->wake_fd, .events = POLLIN},
                                {.fd = s->ag ? agent_fd(s->ag) : -1, .events = POLLIN}};
        if (s->ag && poll(fds, s->quick ? 1 : 2, s->quick ? QUICK_POLL_MS : tour_ms) < 0 &&
            errno != EINTR)
            break;
        if (s->ag && (fds[0].revents & POLLIN)) {
            uint64_t n;
            if (read(s->wake_fd, &n, sizeof n) < 0 && errno != EAGAIN)
                break;
        }
        pthread_mutex_lock(&s->lock);
        bool closed = s->closed;
        pthread_mutex_unlock(&s->lock);
        if (closed)
            break;
        for (;;) {
            pthread_mutex_lock(&s->lock);
            item *it = queue_pop(&s->in);
            if (s->in_full && s->in.count <= WEB_MAX_INBOX / 2) {
                s->in_full = false;            /* read the browser again */
                wake_loop_locked(s);
            }
            pthread_mutex_unlock(&s->lock);
            if (!it)
                break;
            command(s, it->text, it->len);
            free(it);
        }
        quick_poll(s, false);
        tour_ms = s->tour && s->ag ? web_tour_poll(s->tour, s->ag) : -1;
        if (s->quick || !s->ag)
            continue;
        agent_msg *msg;
        bool gone = false;
        while ((msg = agent_next(s->ag))) {
            gone = gone || msg->kind == AGENT_MSG_DISCONNECTED;
            from_agent(s, msg);
            agent_msg_free(msg);
        }
        if (gone)
            break;
    }
    /* A browser with a kept session may come back (a reload, a lost
     * network): its seat is kept by the service for the grace, as any
     * departed player's, and its token here. A guest's seat without one
     * cannot be taken back: leaving ends the game for the others now
     * rather than after the grace. */
    quick_poll(s, true);
    web_tour_free(s->tour, s->ag);
    if (s->ag) {
        if (!s->dir[0])
            agent_leave(s->ag);
        agent_destroy(s->ag);
        agent_counted(s, -1);
    }
done:
    pthread_mutex_lock(&all_lock);
    running_threads--;
    pthread_cond_broadcast(&all_done);
    pthread_mutex_unlock(&all_lock);
    release(s);
    return NULL;
}

/* --- the service thread's side --- */

web_session *web_session_open(const web_config *cfg, struct lws_context *ctx, const char *id,
                              const char *client_ip)
{
    web_session *s = calloc(1, sizeof *s);
    if (!s)
        return NULL;
    if (client_ip && client_ip[0]) {
        /* As the board service keys a peer (address.h): "ipv4:198.51.100.7",
         * an IPv6 address by its /64. */
        char peer[128];
        snprintf(peer, sizeof peer, strchr(client_ip, ':') ? "ipv6:[%s]:0" : "ipv4:%s:0",
                 client_ip);
        if (address_host(peer, ADDRESS_IPV6_PREFIX, s->relay_for, sizeof s->relay_for) != 0)
            s->relay_for[0] = '\0';
    }
    if (id && strlen(id) == WEB_STORE_ID_HEX)
        memcpy(s->id, id, WEB_STORE_ID_HEX + 1);
    s->cfg = cfg;
    s->ctx = ctx;
    s->browser = client_ip != NULL;
    s->refs = 2;
    s->wake_fd = -1;
    if (pthread_mutex_init(&s->lock, NULL) != 0)
        goto fail_free;
    if (pthread_cond_init(&s->wake_cond, NULL) != 0)
        goto fail_lock;
    pthread_mutex_lock(&all_lock);
    running_threads++;
    pthread_mutex_unlock(&all_lock);
    pthread_t t;
    if (pthread_create(&t, NULL, session_main, s) != 0)
        goto fail_count;
    pthread_detach(t);
    return s;
fail_count:
    pthread_mutex_lock(&all_lock);
    running_threads--;
    pthread_mutex_unlock(&all_lock);
    pthread_cond_destroy(&s->wake_cond);
fail_lock:
    pthread_mutex_destroy(&s->lock);
fail_free:
    free(s);
    return NULL;
}

static void wake(web_session *s)
{
    uint64_t one = 1;
    pthread_mutex_lock(&s->lock);
    s->woken = true;
    pthread_cond_signal(&s->wake_cond);
    if (s->wake_fd >= 0 && write(s->wake_fd, &one, sizeof one) < 0 && errno != EAGAIN)
        lwsl_err("sungka-web: cannot wake a session: %s\n", strerror(errno));
    pthread_mutex_unlock(&s->lock);
}

int web_session_input(web_session *s, const char *text, size_t len)
{
    item *it = item_new(text, len);
    if (!it)
        return -1;
    pthread_mutex_lock(&s->lock);
    /* Past the inbox the caller stopped reading (it was told "full"): what
     * lws still hands over is the rest of what it had read, a few frames. */
    bool flooded = s->in.count >= 2 * WEB_MAX_INBOX;
    if (!flooded)
        queue_push(&s->in, it);
    bool full = s->in.count >= WEB_MAX_INBOX;
    if (full)
        s->in_full = true;
    pthread_mutex_unlock(&s->lock);
    if (flooded) {
        free(it);
        return -1;
    }
    wake(s);
    return full ? 1 : 0;
}

bool web_session_inbox_room(web_session *s)
{
    pthread_mutex_lock(&s->lock);
    bool room = !s->in_full;
    pthread_mutex_unlock(&s->lock);
    return room;
}

char *web_session_take(web_session *s, size_t *len, bool *close_now, char *reason,
                       size_t reason_len)
{
    pthread_mutex_lock(&s->lock);
    item *it = s->overflowed ? NULL : queue_pop(&s->out);
    *close_now = false;
    if (s->overflowed) {
        *close_now = true;
        snprintf(reason, reason_len, "too slow: the browser did not read its messages");
    } else if (!it && s->over) {
        *close_now = true;
        snprintf(reason, reason_len, "%s", s->over_reason);
    }
    pthread_mutex_unlock(&s->lock);
    if (!it)
        return NULL;
    *len = it->len;
    memmove(it, it->text, it->len + 1);   /* the caller frees the string itself */
    return (char *)it;
}

bool web_session_overflowed(web_session *s)
{
    pthread_mutex_lock(&s->lock);
    bool over = s->overflowed;
    pthread_mutex_unlock(&s->lock);
    return over;
}

void web_session_close(web_session *s)
{
    pthread_mutex_lock(&s->lock);
    s->closed = true;
    pthread_mutex_unlock(&s->lock);
    wake(s);
    release(s);
}

int web_session_agents(void)
{
    return __atomic_load_n(&browser_agents, __ATOMIC_RELAXED);
}

void web_sessions_wait_all(void)
{
    pthread_mutex_lock(&all_lock);
    while (running_threads > 0)
        pthread_cond_wait(&all_done, &all_lock);
    pthread_mutex_unlock(&all_lock);
}
