/*
 * web_tournament.c — tournaments in the browser: the lobby's list, a
 * tournament's page kept live, Join, Withdraw, Create, and the games the
 * tournament seats the browser's player in. Threads and ownership:
 * web_tournament.h; the JSON: docs/web-protocol.md, "Tournaments".
 */
#include "web_tournament.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define OPTIONS_MAX 8

struct web_tour {
    web_tour_send send;
    void *session;
    agent_tour_follow *watch;  /* a spectator's follow under way, else NULL */
    agent_tour_wait *wait;     /* a player's wait under way, else NULL */
    char id[32];               /* the tournament followed (or last followed) */
    bool play;                 /* the browser plays in it (joined, not withdrawn,
                                * not finished) */
    char game[32];             /* the last game it seated us at; "": none */
};

static json_t *str(const char *text)
{
    json_t *j = json_string(text ? text : "");
    return j ? j : json_string("");
}

static void send_error(web_tour *t, agent *ag, const char *code, const char *sentence)
{
    const agent_lobby_failure *why = ag ? agent_lobby_failed(ag) : NULL;
    const char *reason = why && why->code == AGENT_LOBBY_REFUSED ? why->reason : "";
    t->send(t->session, json_pack("{s:s, s:s, s:o, s:o}", "type", "error", "code", code,
                                  "message", str(sentence), "reason", str(reason)));
}

web_tour *web_tour_new(web_tour_send send, void *session)
{
    web_tour *t = calloc(1, sizeof *t);
    if (t) {
        t->send = send;
        t->session = session;
    }
    return t;
}

/* A player's wait ends with its seat when it has one: a seat the
 * tournament gave is taken rather than left empty (its clock would run). */
static void stop(web_tour *t, agent *ag)
{
    char err[512];
    if (t->watch)
        agent_tournament_follow_end(t->watch);
    t->watch = NULL;
    if (t->wait) {
        agent_tournament_cancel(t->wait);
        if (agent_tournament_finish(ag, t->wait, err, sizeof err) == 0)
            snprintf(t->game, sizeof t->game, "%s", agent_model_get(ag)->game_id);
    }
    t->wait = NULL;
}

void web_tour_free(web_tour *t, agent *ag)
{
    if (!t)
        return;
    stop(t, ag);
    free(t);
}

static const char *format_word(const agent_tournament *tr)
{
    return tr->arena ? "arena" : tr->swiss ? "swiss" : "round_robin";
}

static const char *status_word(int status)
{
    static const char *const words[] = {"", "waiting", "running", "finished"};
    return status >= 1 && status <= 3 ? words[status] : "unknown";
}

/* An arena's time left by the gateway's wall clock (the service's, give
 * or take the clocks' difference); -1 when it has no end. */
static json_int_t left_ms(const agent_tournament *tr)
{
    if (!tr->ends_ms)
        return -1;
    struct timespec now;
    clock_gettime(CLOCK_REALTIME, &now);
    int64_t left = tr->ends_ms - ((int64_t)now.tv_sec * 1000 + now.tv_nsec / 1000000);
    return left > 0 ? (json_int_t)left : 0;
}

/* What the lobby lists of a tournament; the page's message adds its
 * standings and games. */
static json_t *summary(const agent_tournament *tr)
{
    char clock[32];
    agent_format_clock_spec(&tr->clock, clock, sizeof clock);
    return json_pack("{s:o, s:o, s:o, s:s, s:s, s:i, s:i, s:s, s:i, s:I, s:i, s:i}", "id",
                     str(tr->id), "title", str(tr->title), "kind", str(tr->kind), "format",
                     format_word(tr), "status", status_word(tr->status), "players",
                     tr->n_standings, "max_players", tr->max_players, "clock", clock,
                     "seconds", tr->seconds, "left_ms", left_ms(tr), "round", tr->round,
                     "rounds", tr->rounds);
}

json_t *web_tour_list(agent *ag)
{
    agent_tournament *list = NULL;
    int n = 0;
    char err[256];
    json_t *out = json_array();
    if (!out || agent_list_tournaments(ag, &list, &n, err, sizeof err) != 0)
        return out ? out : json_array();
    for (int i = 0; i < n; i++) {
        json_t *j = summary(&list[i]);
        if (j)
            json_array_append_new(out, j);
        agent_tournament_free(&list[i]);
    }
    free(list);
    return out;
}

static json_t *int_list(const int *v, int n)
{
    json_t *a = json_array();
    for (int i = 0; a && i < n; i++)
        json_array_append_new(a, json_integer(v[i]));
    return a ? a : json_array();
}

static void send_tournament(web_tour *t, const agent_tournament *tr)
{
    json_t *msg = summary(tr);
    if (!msg)
        return;
    json_t *standings = json_array();
    for (int i = 0; standings && i < tr->n_standings; i++) {
        const agent_standing *s = &tr->standings[i];
        json_array_append_new(standings,
                              json_pack("{s:i, s:o, s:i, s:i, s:i, s:i, s:b}", "rank", s->rank,
                                        "name", str(s->name), "points", s->points, "games",
                                        s->games, "wins", s->wins, "streak", s->streak,
                                        "withdrawn", s->withdrawn));
    }
    json_t *games = json_array();
    for (int i = 0; games && i < tr->n_games; i++) {
        const agent_tour_game *g = &tr->games[i];
        json_t *players = json_array();
        for (int k = 0; players && k < g->n_players; k++)
            json_array_append_new(players, str(g->players[k]));
        json_array_append_new(games, json_pack("{s:i, s:o, s:o, s:o, s:b}", "round", g->round,
                                               "game", str(g->game_id), "players",
                                               players ? players : json_array(), "points",
                                               int_list(g->points, g->n_players), "finished",
                                               g->finished));
    }
    json_object_update_new(msg, json_pack("{s:s, s:o, s:o, s:b, s:o}", "type", "tournament",
                                          "standings", standings ? standings : json_array(),
                                          "games", games ? games : json_array(), "joined",
                                          t->play, "your_game", str(t->game)));
    t->send(t->session, msg);
}

/* Follow tournament id, as a player or a spectator, ending the follow
 * under way first. */
static int follow(web_tour *t, agent *ag, const char *id, bool play)
{
    char err[512];
    stop(t, ag);
    if (play)
        t->wait = agent_tournament_start(ag, id, err, sizeof err);
    else
        t->watch = agent_tournament_follow(ag, id, err, sizeof err);
    if (!t->wait && !t->watch) {
        send_error(t, NULL, "refused", err);
        return -1;
    }
    if (strcmp(t->id, id) != 0)
        t->game[0] = '\0';
    snprintf(t->id, sizeof t->id, "%s", id);
    t->play = play;
    return 0;
}

/* "tournament_new": format, kind, title, clock, options, minutes (an
 * arena), rounds, max_players, rated. */
static void command_new(web_tour *t, agent *ag, json_t *cmd)
{
    const char *format = json_string_value(json_object_get(cmd, "format"));
    const char *kind = json_string_value(json_object_get(cmd, "kind"));
    json_t *jtitle = json_object_get(cmd, "title");
    const char *title = json_string_value(jtitle);
    json_t *clock = json_object_get(cmd, "clock"), *options = json_object_get(cmd, "options");
    json_t *minutes = json_object_get(cmd, "minutes"), *rounds = json_object_get(cmd, "rounds");
    json_t *max = json_object_get(cmd, "max_players"), *rated = json_object_get(cmd, "rated");
    static const char *const formats[][2] = {
        {"arena", "arena"}, {"round_robin", "roundrobin"}, {"swiss", "swiss"}};
    const char *agent_format = NULL;
    for (size_t i = 0; format && i < sizeof formats / sizeof formats[0]; i++)
        if (strcmp(format, formats[i][0]) == 0)
            agent_format = formats[i][1];
    bool arena = agent_format && strcmp(agent_format, "arena") == 0;
    bool ok = agent_format && kind && *kind && strlen(kind) < 32 &&
              (!clock || (json_is_string(clock) && strlen(json_string_value(clock)) < 16)) &&
              (!options || (json_is_array(options) && json_array_size(options) <= OPTIONS_MAX)) &&
              (!minutes || json_is_integer(minutes)) && (!rounds || json_is_integer(rounds)) &&
              json_is_integer(max) && (!rated || json_is_boolean(rated)) &&
              (!jtitle || (title && strlen(title) <= 256)) &&
              (!arena || minutes);
    const char *opts[OPTIONS_MAX];
    int n = 0;
    for (size_t i = 0; ok && options && i < json_array_size(options); i++) {
        opts[n] = json_string_value(json_array_get(options, i));
        ok = opts[n++] != NULL;
    }
    if (!ok) {
        send_error(t, NULL, "bad_field",
                   "\"tournament_new\" needs a format (arena, round_robin or swiss), a kind, "
                   "max_players (a number) and, for an arena, minutes; it may say title, "
                   "clock, options (an array of \"name=value\"), rounds and rated");
        return;
    }
    char spec[64];
    const char *c = clock ? json_string_value(clock) : "";
    snprintf(spec, sizeof spec, "%s%s%s", kind, c[0] ? ":" : "", c);
    json_int_t length = json_integer_value(arena ? minutes : rounds);
    json_int_t players = json_integer_value(max);
    char id[32], err[512];
    if (length < 0 || length > 100000 || players < 0 || players > 100000) {
        send_error(t, NULL, "bad_field", "\"tournament_new\": minutes, rounds and max_players "
                                         "are small positive numbers");
        return;
    }
    if (agent_create_titled_tournament(ag, title, agent_format, spec, opts, n, (int)length,
                                       (int)players, json_is_true(rated), id, err,
                                       sizeof err) != 0) {
        send_error(t, ag, "refused", err);
        return;
    }
    /* Its page: followed as a spectator until the browser joins it. */
    if (t->play)
        return;     /* playing in another: that one stays followed */
    follow(t, ag, id, false);
}

bool web_tour_command(web_tour *t, agent *ag, const char *type, json_t *cmd)
{
    const char *id = json_string_value(json_object_get(cmd, "id"));
    bool needs_id = strcmp(type, "tournament_new") != 0 && strcmp(type, "tournament_close") != 0;
    char err[512];
    if (strcmp(type, "tournament") != 0 && strcmp(type, "tournament_close") != 0 &&
        strcmp(type, "tournament_join") != 0 && strcmp(type, "tournament_leave") != 0 &&
        strcmp(type, "tournament_new") != 0)
        return false;
    if (needs_id && (!id || !*id || strlen(id) >= sizeof t->id)) {
        send_error(t, NULL, "bad_field", "this command needs a tournament's id (a string)");
        return true;
    }
    if (strcmp(type, "tournament_new") == 0) {
        command_new(t, ag, cmd);
    } else if (strcmp(type, "tournament_close") == 0) {
        if (!t->play)          /* a player's follow goes on: the tournament seats it */
            stop(t, ag);
    } else if (t->play && strcmp(t->id, id) != 0) {
        snprintf(err, sizeof err, "you play in tournament %s: withdraw from it, or wait for "
                 "its end, before another", t->id);
        send_error(t, NULL, "refused", err);
    } else if (strcmp(type, "tournament") == 0) {
        /* Followed afresh: its first update is the tournament now. A place
         * this browser's agent kept from before a reload is taken back. */
        follow(t, ag, id, t->play || agent_in_tournament(ag, id));
    } else if (strcmp(type, "tournament_join") == 0) {
        if (t->play)
            send_error(t, NULL, "refused", "you are in this tournament already");
        else
            follow(t, ag, id, true);
    } else {                   /* tournament_leave */
        stop(t, ag);
        if (agent_leave_tournament(ag, id, err, sizeof err) != 0) {
            send_error(t, NULL, "refused", err);
            if (t->play)
                follow(t, ag, id, true);   /* still in it: wait on */
            return true;
        }
        t->play = false;
        t->game[0] = '\0';
        follow(t, ag, id, false);
    }
    return true;
}

int web_tour_poll(web_tour *t, agent *ag)
{
    agent_tournament now;
    bool ended = false;
    char err[512] = "";
    if (t->watch) {
        if (agent_tournament_follow_news(t->watch, &now, &ended, err, sizeof err)) {
            send_tournament(t, &now);
            agent_tournament_free(&now);
        }
        if (ended) {
            stop(t, ag);
            if (err[0])
                send_error(t, NULL, "refused", err);
        }
    } else if (t->wait) {
        if (agent_tournament_news(t->wait, &now, &ended)) {
            if (now.status == 3)
                t->play = false;   /* finished: nobody plays in it any more */
            send_tournament(t, &now);
            agent_tournament_free(&now);
        }
        if (ended) {
            int rc = agent_tournament_finish(ag, t->wait, err, sizeof err);
            t->wait = NULL;
            if (rc == 0) {
                /* Seated: the agent's snapshot of the game brings its state
                 * to the browser; the tournament is waited on meanwhile (its
                 * standings stay live, and the next game is not this one). */
                snprintf(t->game, sizeof t->game, "%s", agent_model_get(ag)->game_id);
                char id[32];
                snprintf(id, sizeof id, "%s", t->id);
                follow(t, ag, id, true);
            } else {
                t->play = false;
                if (rc < 0)
                    send_error(t, NULL, "refused", err);
            }
        }
    }
    return t->watch || t->wait ? WEB_TOUR_POLL_MS : -1;
}
