/*
 * web_history.c — the history, replay and rating graph commands of
 * version 3 (docs/web-protocol.md, "History and replay"). Threads: the
 * session thread only (web_history.h).
 */
#include "web_history.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis.h"
#include "gtk_geometry.h"

/* The board's extent, as live games are placed (web_session.c). */
#define BOARD_W 960.0
#define BOARD_H 540.0

static const char *const drawing_words[] = {
    [GAME_DRAW_MANCALA] = "mancala", [GAME_DRAW_DISCS] = "discs", [GAME_DRAW_SLICES] = "slices",
};

static json_t *str(const char *text)
{
    json_t *j = json_string(text);
    return j ? j : json_string("");   /* not UTF-8: said as nothing */
}

static json_t *error(const char *code, const char *sentence)
{
    return json_pack("{s:s, s:s, s:o}", "type", "error", "code", code, "message", str(sentence));
}

static json_t *rect_json(const geo_rect *r)
{
    return json_pack("[f,f,f,f]", r->x, r->y, r->w, r->h);
}

static json_t *seat_list(const agent_match *m)
{
    json_t *seats = json_array();
    for (int i = 0; i < m->n_seats && i < GAME_MAX_SEATS; i++)
        json_array_append_new(seats, str(m->seat_name[i]));
    return seats;
}

static json_t *int_list(const int *v, int n)
{
    json_t *a = json_array();
    for (int i = 0; i < n; i++)
        json_array_append_new(a, json_integer(v[i]));
    return a;
}

/* The player a command names, or me. */
static const char *player_of(json_t *cmd, const char *me)
{
    const char *p = json_string_value(json_object_get(cmd, "player"));
    return p && *p ? p : me;
}

static json_t *history(agent *ag, const char *me, json_t *cmd)
{
    json_t *jp = json_object_get(cmd, "page");
    json_t *jplayer = json_object_get(cmd, "player");
    if ((jp && (!json_is_integer(jp) || json_integer_value(jp) < 0 ||
                json_integer_value(jp) > 100000)) ||
        (jplayer && !json_is_string(jplayer)))
        return error("bad_field", "\"history\" may name a player (a string) and a page (a "
                                  "number from 0)");
    int page = jp ? (int)json_integer_value(jp) : 0;
    const char *player = player_of(cmd, me);
    agent_match *ms = NULL;
    int n = 0;
    char err[512];
    if (agent_list_matches(ag, player, NULL, &ms, &n, err, sizeof err) != 0)
        return error("refused", err);
    json_t *list = json_array();
    for (int i = page * WEB_HISTORY_PAGE; i < n && i < (page + 1) * WEB_HISTORY_PAGE; i++) {
        const agent_match *m = &ms[i];
        json_array_append_new(
            list, json_pack("{s:o, s:o, s:o, s:s, s:o, s:o, s:o, s:o, s:I, s:i}", "id",
                            str(m->id), "kind", str(m->kind_name), "title", str(m->title),
                            "status", m->status == AGENT_GAME_ABANDONED ? "abandoned" : "finished",
                            "seats", seat_list(m), "scores", int_list(m->scores, m->n_seats),
                            "winners", int_list(m->winners, m->n_winners), "reason",
                            str(m->reason), "ended_ms", (json_int_t)m->ended_ms, "moves",
                            m->n_moves));
    }
    json_t *msg = json_pack("{s:s, s:o, s:i, s:b, s:i, s:o}", "type", "history", "player",
                            str(player), "page", page, "more", n > (page + 1) * WEB_HISTORY_PAGE,
                            "total", n, "matches", list);
    free(ms);
    return msg;
}

/* The review as the replay's graph needs it: the winning chance after each
 * move that the GTK replay's value graph plots (game_analysis_graph_chance:
 * the first seat's, or with more than two seats the mover's), the judgement
 * and the loss; done false when the service has none (its reason). */
static json_t *review_json(agent *ag, const agent_match *m)
{
    int n = m->n_moves;
    game_analysis_move *rv = calloc((size_t)(n ? n : 1), sizeof *rv);
    int accuracy[GAME_MAX_SEATS];
    bool done = false;
    char reason[AGENT_TEXT_BYTES], err[512];
    if (!rv)
        return json_pack("{s:b, s:s}", "done", false, "reason", "out of memory");
    if (agent_get_analysis(ag, m->id, n, rv, accuracy, &done, reason, sizeof reason, err,
                           sizeof err) != 0 || !done) {
        json_t *j = json_pack("{s:b, s:o}", "done", false, "reason",
                              str(done || !reason[0] ? err : reason));
        free(rv);
        return j;
    }
    json_t *points = json_array();
    for (int i = 0; i < n; i++) {
        json_array_append_new(points,
                              json_pack("{s:i, s:f, s:s, s:i}", "seat", rv[i].seat, "chance",
                                        game_analysis_graph_chance(m->kind, m->n_seats, &rv[i]),
                                        "judgement",
                                        game_judgement_name(rv[i].judgement), "loss",
                                        rv[i].loss));
    }
    json_t *acc = json_array();
    for (int i = 0; i < m->n_seats; i++)
        json_array_append_new(acc, accuracy[i] >= 0 ? json_real(accuracy[i] / 10.0)
                                                    : json_null());
    free(rv);
    return json_pack("{s:b, s:o, s:o}", "done", true, "points", points, "accuracy", acc);
}

static json_t *replay(agent *ag, json_t *cmd)
{
    const char *id = json_string_value(json_object_get(cmd, "game"));
    if (!id || !*id)
        return error("bad_field", "\"replay\" needs a game (a match's id, a string)");
    agent_match m;
    int *seats = NULL, *moves = NULL;
    char err[512];
    if (agent_get_match(ag, id, &m, &seats, &moves, err, sizeof err) != 0)
        return error("refused", err);
    json_t *msg = NULL;
    game_state st;
    if (!m.kind) {
        snprintf(err, sizeof err, "this gateway does not know the game kind '%s'", m.kind_name);
        msg = error("refused", err);
        goto out;
    }
    if (agent_match_position(&m, seats, moves, 0, &st, err, sizeof err) != 0) {
        msg = error("refused", err);
        goto out;
    }
    /* The board is placed once, as the first seat sees it; each position
     * then gives only the cells' values (the places do not move). */
    geo_layout L;
    geo_layout_init(&L, &st, 0, BOARD_W, BOARD_H);
    json_t *cells = json_array();
    for (int c = 0; c < game_cell_count(&st); c++) {
        geo_rect r;
        if (geo_cell_rect(&L, c, &r) != 0)
            continue;
        bool home = false;
        if (st.layout == GAME_LAYOUT_MANCALA)
            for (int seat = 0; seat < game_seats(&st); seat++)
                home = home || game_mancala_home(&st, seat) == c;
        char label[32] = "";
        int mv = geo_cell_move(&st, 0, c);
        if (mv >= 0)
            game_format_move(&st, mv, label, sizeof label);
        json_array_append_new(cells, json_pack("{s:i, s:o, s:b, s:s}", "cell", c, "rect",
                                               rect_json(&r), "home", home, "label", label));
    }
    json_t *seat_info = json_array();
    for (int seat = 0; seat < game_seats(&st); seat++) {
        geo_rect r;
        json_t *label = geo_seat_label_rect(&L, seat, &r) == 0 ? rect_json(&r) : json_null();
        char mark[2] = {game_seat_mark(&st, seat), '\0'};
        const char *colour = game_seat_colour(&st, seat);
        json_array_append_new(seat_info,
                              json_pack("{s:i, s:o, s:s, s:o, s:o}", "seat", seat, "name",
                                        str(seat < m.n_seats ? m.seat_name[seat] : "?"), "mark",
                                        mark, "colour", colour ? str(colour) : json_null(),
                                        "label", label));
    }
    json_t *review = review_json(ag, &m);
    json_t *positions = json_array(), *move_list = json_array();
    for (int step = 0; step <= m.n_moves; step++) {
        game_state at;
        if (agent_match_position(&m, seats, moves, step, &at, err, sizeof err) != 0) {
            json_decref(positions);
            json_decref(move_list);
            json_decref(cells);
            json_decref(seat_info);
            json_decref(review);
            msg = error("refused", err);
            goto out;
        }
        json_t *values = json_array();
        for (int c = 0; c < game_cell_count(&at); c++)
            json_array_append_new(values, json_integer(game_cell(&at, c)));
        int scores[GAME_MAX_SEATS];
        game_scores(&at, scores);
        json_array_append_new(positions,
                              json_pack("{s:o, s:o, s:i}", "values", values, "scores",
                                        int_list(scores, game_seats(&at)), "to_move",
                                        game_is_over(&at) ? -1 : game_to_move(&at)));
        if (step < m.n_moves) {
            char text[32];
            game_format_move(&at, moves[step], text, sizeof text);
            json_array_append_new(move_list,
                                  json_pack("{s:i, s:o, s:s}", "seat", seats[step], "name",
                                            str(seats[step] >= 0 && seats[step] < m.n_seats
                                                    ? m.seat_name[seats[step]] : "?"),
                                            "move", text));
        }
    }
    msg = json_pack("{s:s, s:o, s:o, s:o, s:s, s:s, s:[f,f,f,f], s:o, s:o, s:o, s:o, s:o, "
                    "s:o, s:o}",
                    "type", "replay", "game", str(m.id), "kind", str(m.kind_name), "title",
                    str(m.title), "status",
                    m.status == AGENT_GAME_ABANDONED ? "abandoned" : "finished", "drawing",
                    drawing_words[st.kind->drawing], "view", L.x0, L.y0, L.width, L.height,
                    "seats", seat_info, "cells", cells, "moves", move_list, "positions",
                    positions, "winners", int_list(m.winners, m.n_winners), "reason",
                    str(m.reason), "review", review);
out:
    free(seats);
    free(moves);
    return msg ? msg : error("refused", "out of memory");
}

static json_t *rating_history(agent *ag, const char *me, json_t *cmd)
{
    json_t *jplayer = json_object_get(cmd, "player");
    if (jplayer && !json_is_string(jplayer))
        return error("bad_field", "\"rating_history\" may name a player (a string)");
    char name[AGENT_NAME_BYTES], err[512];
    agent_rating_point *pts = NULL;
    int n = 0;
    if (agent_rating_history(ag, player_of(cmd, me), NULL, 500, name, &pts, &n, err,
                             sizeof err) != 0)
        return error("refused", err);
    json_t *list = json_array();
    for (int i = 0; i < n; i++)
        json_array_append_new(list, json_pack("{s:o, s:o, s:I, s:i, s:i, s:b}", "kind",
                                              str(pts[i].kind), "game", str(pts[i].game_id),
                                              "ended_ms", (json_int_t)pts[i].ended_ms, "before",
                                              pts[i].before, "rating", pts[i].after.value,
                                              "provisional", pts[i].after.provisional));
    free(pts);
    return json_pack("{s:s, s:o, s:o}", "type", "rating_history", "player", str(name), "points",
                     list);
}

json_t *web_history_command(agent *ag, const char *me, const char *type, json_t *cmd)
{
    if (strcmp(type, "history") == 0)
        return history(ag, me, cmd);
    if (strcmp(type, "replay") == 0)
        return replay(ag, cmd);
    if (strcmp(type, "rating_history") == 0)
        return rating_history(ag, me, cmd);
    return NULL;
}
