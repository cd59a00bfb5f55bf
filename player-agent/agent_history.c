/*
 * agent_history.c — the agent's side of statistics and match history: plain
 * calls to the service's Register, turned into plain structures for views
 * (every string escaped by agent__text on the way).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agent_internal.h"

static void stats_from_wire(const Sungka__V1__PlayerStats *w, agent_stats *out)
{
    memset(out, 0, sizeof *out);
    agent__text(out->name, sizeof out->name, w->name);
    out->played = w->played;
    out->wins = w->wins;
    out->losses = w->losses;
    out->draws = w->draws;
    out->streak = w->streak;
    out->best_streak = w->best_streak;
    for (size_t i = 0; i < w->n_ratings && out->n_ratings < AGENT_MAX_RATED_KINDS; i++) {
        agent_kind_rating *k = &out->ratings[out->n_ratings++];
        agent__text(k->kind, sizeof k->kind, w->ratings[i]->kind);
        agent__rating(w->ratings[i]->rating, &k->rating);
    }
}

static void match_from_wire(const Sungka__V1__MatchSummary *w, agent_match *out)
{
    memset(out, 0, sizeof *out);
    agent__text(out->id, sizeof out->id, w->game_id);
    agent__text(out->kind_name, sizeof out->kind_name, w->kind);
    agent__text(out->title, sizeof out->title, w->title);
    agent__text(out->reason, sizeof out->reason, w->reason);
    out->kind = game_kind_find(w->kind);
    if (out->kind) {
        char err[GAME_ERR_LEN];
        game_options_default(out->kind, &out->opts);
        for (size_t i = 0; i < w->n_options; i++)
            game_options_set(out->kind, &out->opts, w->options[i]->name, w->options[i]->value,
                             err, sizeof err);
    }
    out->status = w->status >= 1 && w->status <= 4 ? (agent_status)w->status
                                                   : AGENT_GAME_FINISHED;
    out->n_seats = w->n_seats < GAME_MAX_SEATS ? (int)w->n_seats : GAME_MAX_SEATS;
    for (int i = 0; i < out->n_seats; i++) {
        agent__text(out->seat_name[i], sizeof out->seat_name[i], w->seats[i]);
        out->scores[i] = i < (int)w->n_scores ? w->scores[i] : 0;
    }
    out->n_winners = w->n_winners < GAME_MAX_SEATS ? (int)w->n_winners : GAME_MAX_SEATS;
    for (int i = 0; i < out->n_winners; i++)
        out->winners[i] = w->winners[i];
    out->started_ms = w->started_ms;
    out->ended_ms = w->ended_ms;
    out->n_moves = w->moves;
}

int agent_player_stats(agent *ag, const char *name, agent_stats *out, char *err, size_t errlen)
{
    Sungka__V1__GetPlayerStatsRequest req = SUNGKA__V1__GET_PLAYER_STATS_REQUEST__INIT;
    req.name = (char *)name;
    rpc_method m = agent__methods.player_stats;
    ProtobufCMessage *reply = NULL;
    if (agent__call_sync(ag, &m, &req.base, NULL, &reply, err, errlen, "no statistics") != 0)
        return -1;
    stats_from_wire((Sungka__V1__PlayerStats *)reply, out);
    protobuf_c_message_free_unpacked(reply, NULL);
    return 0;
}

int agent_leaderboard(agent *ag, const char *kind, int limit, agent_stats **out, int *n,
                      char *err, size_t errlen)
{
    Sungka__V1__LeaderboardRequest req = SUNGKA__V1__LEADERBOARD_REQUEST__INIT;
    req.limit = limit;
    req.kind = (char *)(kind ? kind : "");
    rpc_method m = agent__methods.leaderboard;
    ProtobufCMessage *reply = NULL;
    if (agent__call_sync(ag, &m, &req.base, NULL, &reply, err, errlen, "no leaderboard") != 0)
        return -1;
    Sungka__V1__LeaderboardResponse *board = (Sungka__V1__LeaderboardResponse *)reply;
    *out = calloc(board->n_players + 1, sizeof **out);
    *n = *out ? (int)board->n_players : 0;
    for (int i = 0; i < *n; i++)
        stats_from_wire(board->players[i], &(*out)[i]);
    protobuf_c_message_free_unpacked(reply, NULL);
    return *out ? 0 : -1;
}

int agent_list_matches(agent *ag, const char *player, const char *kind, agent_match **out,
                       int *n, char *err, size_t errlen)
{
    Sungka__V1__ListMatchesRequest req = SUNGKA__V1__LIST_MATCHES_REQUEST__INIT;
    req.player = (char *)(player ? player : "");
    req.kind = (char *)(kind ? kind : "");
    rpc_method m = agent__methods.list_matches;
    ProtobufCMessage *reply = NULL;
    if (agent__call_sync(ag, &m, &req.base, NULL, &reply, err, errlen, "no history") != 0)
        return -1;
    Sungka__V1__ListMatchesResponse *list = (Sungka__V1__ListMatchesResponse *)reply;
    *out = calloc(list->n_matches + 1, sizeof **out);
    *n = *out ? (int)list->n_matches : 0;
    for (int i = 0; i < *n; i++)
        match_from_wire(list->matches[i], &(*out)[i]);
    protobuf_c_message_free_unpacked(reply, NULL);
    return *out ? 0 : -1;
}

int agent_get_match(agent *ag, const char *id, agent_match *out, int **seats, int **moves,
                    char *err, size_t errlen)
{
    Sungka__V1__GetMatchRequest req = SUNGKA__V1__GET_MATCH_REQUEST__INIT;
    req.game_id = (char *)id;
    rpc_method m = agent__methods.get_match;
    ProtobufCMessage *reply = NULL;
    if (agent__call_sync(ag, &m, &req.base, NULL, &reply, err, errlen, "no such match") != 0)
        return -1;
    Sungka__V1__Match *match = (Sungka__V1__Match *)reply;
    if (match->summary)
        match_from_wire(match->summary, out);
    else
        memset(out, 0, sizeof *out);
    size_t n = match->n_moves;
    *seats = calloc(n + 1, sizeof **seats);
    *moves = calloc(n + 1, sizeof **moves);
    if (!*seats || !*moves) {
        free(*seats);
        free(*moves);
        protobuf_c_message_free_unpacked(reply, NULL);
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    for (size_t i = 0; i < n; i++) {
        (*seats)[i] = match->moves[i]->seat;
        (*moves)[i] = match->moves[i]->move;
    }
    out->n_moves = (int)n;
    protobuf_c_message_free_unpacked(reply, NULL);
    return 0;
}

int agent_match_position(const agent_match *m, const int *seats, const int *moves, int step,
                         game_state *out, char *err, size_t errlen)
{
    char why[GAME_ERR_LEN];
    if (!m->kind) {
        snprintf(err, errlen, "this agent does not know the game kind '%s'", m->kind_name);
        return -1;
    }
    if (game_new(out, m->kind, &m->opts, why, sizeof why) != GAME_OK) {
        snprintf(err, errlen, "%s", why);
        return -1;
    }
    for (int i = 0; i < step; i++) {
        if (game_play(out, seats[i], moves[i], NULL, why, sizeof why) != GAME_OK) {
            snprintf(err, errlen, "move %d: %s", i + 1, why);
            return -1;
        }
    }
    return 0;
}

int agent_rating_history(agent *ag, const char *name, const char *kind, int limit,
                         char name_out[AGENT_NAME_BYTES], agent_rating_point **out, int *n,
                         char *err, size_t errlen)
{
    Sungka__V1__RatingHistoryRequest req = SUNGKA__V1__RATING_HISTORY_REQUEST__INIT;
    req.name = (char *)name;
    req.kind = (char *)(kind ? kind : "");
    req.limit = limit;
    rpc_method m = agent__methods.rating_history;
    ProtobufCMessage *reply = NULL;
    if (agent__call_sync(ag, &m, &req.base, NULL, &reply, err, errlen, "no rating history") != 0)
        return -1;
    Sungka__V1__RatingHistoryResponse *h = (Sungka__V1__RatingHistoryResponse *)reply;
    agent__text(name_out, AGENT_NAME_BYTES, h->name);
    *out = calloc(h->n_points + 1, sizeof **out);
    *n = *out ? (int)h->n_points : 0;
    for (int i = 0; i < *n; i++) {
        agent_rating_point *p = &(*out)[i];
        agent__text(p->kind, sizeof p->kind, h->points[i]->kind);
        agent__text(p->game_id, sizeof p->game_id, h->points[i]->game_id);
        p->ended_ms = h->points[i]->ended_ms;
        p->before = h->points[i]->before;
        agent__rating(h->points[i]->rating, &p->after);
    }
    protobuf_c_message_free_unpacked(reply, NULL);
    if (!*out)
        snprintf(err, errlen, "out of memory");
    return *out ? 0 : -1;
}

int agent_write_match(const agent_match *m, const int *seats, const int *moves, FILE *out,
                      int *bad)
{
    *bad = 0;
    size_t cap = 64 + (size_t)m->n_moves * 48;
    char *text = malloc(cap);
    if (!m->kind || !text ||
        game_transcript(m->kind, &m->opts, seats, moves, m->n_moves, text, cap, bad) < 0) {
        free(text);
        return -1;
    }
    fprintf(out, "# Sungka match %s: %s (%s", m->id, m->title, m->kind_name);
    for (int i = 0; i < m->kind->n_options; i++)
        fprintf(out, " %s=%d", m->kind->options[i].name, m->opts.value[i]);
    fprintf(out, ")\n# Seats:");
    for (int s = 0; s < m->n_seats; s++)
        fprintf(out, "%s %d %s", s ? "," : "", s, m->seat_name[s]);
    fprintf(out, "\n# Result: %s\n%s", m->reason, text);
    free(text);
    return ferror(out) ? -1 : 0;
}
