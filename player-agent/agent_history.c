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
    agent__text(out->tournament_id, sizeof out->tournament_id, w->tournament_id);
    agent__text(out->tournament_title, sizeof out->tournament_title, w->tournament_title);
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

int agent_get_analysis(agent *ag, const char *id, int n, game_analysis_move *out,
                       int accuracy[GAME_MAX_SEATS], bool *done, char *reason,
                       size_t reason_len, char *err, size_t errlen)
{
    Sungka__V1__GetAnalysisRequest req = SUNGKA__V1__GET_ANALYSIS_REQUEST__INIT;
    req.game_id = (char *)id;
    rpc_method m = agent__methods.get_analysis;
    ProtobufCMessage *reply = NULL;
    *done = false;
    if (reason_len)
        reason[0] = '\0';
    if (agent__call_sync(ag, &m, &req.base, NULL, &reply, err, errlen, "no such match") != 0)
        return -1;
    Sungka__V1__Analysis *a = (Sungka__V1__Analysis *)reply;
    if (a->status != SUNGKA__V1__ANALYSIS_STATUS__ANALYSIS_STATUS_DONE) {
        snprintf(reason, reason_len, "%s", a->reason);
    } else if (a->n_moves != (size_t)n) {
        snprintf(reason, reason_len, "the service's review has %zu moves, the match %d",
                 a->n_moves, n);
    } else {
        for (int i = 0; i < n; i++) {
            const Sungka__V1__AnalysedMove *w = a->moves[i];
            out[i] = (game_analysis_move){
                .seat = w->seat, .move = w->move, .best = w->best,
                .before = {.cu = w->value_before, .exact = w->exact_before},
                .after = {.cu = w->value_after, .exact = w->exact_after},
                .loss = w->loss,
                .judgement = (int)w->judgement >= 0 && (int)w->judgement <= GAME_JUDGE_BLUNDER
                                 ? (game_judgement)w->judgement : GAME_JUDGE_GOOD,
                .accuracy = w->accuracy,
            };
        }
        for (int s = 0; s < GAME_MAX_SEATS; s++)
            accuracy[s] = (size_t)s < a->n_accuracy ? a->accuracy[s] : -1;
        *done = true;
    }
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

/* src cut to fit dst (size bytes, terminated). */
static void copy_field(char *dst, size_t size, const char *src)
{
    size_t n = strlen(src);
    if (n >= size)
        n = size - 1;
    memcpy(dst, src, n);
    dst[n] = '\0';
}

/* "# Sungka match ID: TITLE (KIND NAME=VALUE ...)": the parenthesis is the
 * line's last, since options have none. */
static int read_match_line(char *line, agent_match *out, char *err, size_t errlen)
{
    const char *lead = "# Sungka match ";
    char *colon = strstr(line, ": ");
    char *open = strrchr(line, '(');
    char *close = strrchr(line, ')');
    if (strncmp(line, lead, strlen(lead)) != 0 || !colon || !open || !close || close < open ||
        open < colon) {
        snprintf(err, errlen, "line 1 is not \"# Sungka match ID: TITLE (KIND ...)\"; is it a "
                              "file that export wrote?");
        return -1;
    }
    *colon = *close = '\0';
    copy_field(out->id, sizeof out->id, line + strlen(lead));
    char *title_end = open > colon + 2 ? open - 1 : open;
    *title_end = '\0';
    copy_field(out->title, sizeof out->title, colon + 2);
    char *save = NULL, *word = strtok_r(open + 1, " ", &save);
    if (!word) {
        snprintf(err, errlen, "line 1 names no kind of game");
        return -1;
    }
    copy_field(out->kind_name, sizeof out->kind_name, word);
    out->kind = game_kind_find(word);
    if (!out->kind) {
        snprintf(err, errlen, "this program does not know the game kind '%s'", word);
        return -1;
    }
    game_options_default(out->kind, &out->opts);
    char why[GAME_ERR_LEN];
    while ((word = strtok_r(NULL, " ", &save)))
        if (game_options_parse(out->kind, &out->opts, word, why, sizeof why) != GAME_OK) {
            snprintf(err, errlen, "line 1: %s", why);
            return -1;
        }
    return 0;
}

int agent_read_match(FILE *in, agent_match *out, int **seats, int **moves, char *err,
                     size_t errlen)
{
    char line[1024];
    size_t cap = 4096, used = 0;
    char *text = malloc(cap);
    *seats = *moves = NULL;
    memset(out, 0, sizeof *out);
    out->status = AGENT_GAME_FINISHED;
    if (!text) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    text[0] = '\0';
    int n_line = 0;
    while (fgets(line, sizeof line, in)) {
        n_line++;
        if (n_line == 1) {
            line[strcspn(line, "\r\n")] = '\0';
            if (read_match_line(line, out, err, errlen) != 0)
                goto fail;
        } else if (strncmp(line, "# Seats:", 8) == 0) {
            char *save = NULL;
            line[strcspn(line, "\r\n")] = '\0';
            for (char *e = strtok_r(line + 8, ",", &save); e; e = strtok_r(NULL, ",", &save)) {
                int seat, at = 0;
                if (sscanf(e, " %d %n", &seat, &at) == 1 && seat >= 0 &&
                    seat < GAME_MAX_SEATS) {
                    copy_field(out->seat_name[seat], sizeof out->seat_name[seat], e + at);
                    if (seat + 1 > out->n_seats)
                        out->n_seats = seat + 1;
                }
            }
        } else if (strncmp(line, "# Result: ", 10) == 0) {
            line[strcspn(line, "\r\n")] = '\0';
            copy_field(out->reason, sizeof out->reason, line + 10);
        } else if (line[0] != '#') {
            size_t l = strlen(line);
            if (used + l + 1 > cap) {
                char *grown = realloc(text, cap * 2 + l);
                if (!grown) {
                    snprintf(err, errlen, "out of memory");
                    goto fail;
                }
                text = grown;
                cap = cap * 2 + l;
            }
            memcpy(text + used, line, l + 1);
            used += l;
        }
    }
    if (n_line == 0) {
        snprintf(err, errlen, "the file is empty");
        goto fail;
    }
    *seats = malloc(GAME_MAX_MOVES * sizeof **seats);
    *moves = malloc(GAME_MAX_MOVES * sizeof **moves);
    if (!*seats || !*moves) {
        snprintf(err, errlen, "out of memory");
        goto fail;
    }
    char why[GAME_ERR_LEN];
    if (game_read_transcript(out->kind, &out->opts, text, *seats, *moves, GAME_MAX_MOVES,
                             &out->n_moves, why, sizeof why) != 0) {
        snprintf(err, errlen, "%s", why);
        goto fail;
    }
    free(text);
    return 0;
fail:
    free(text);
    free(*seats);
    free(*moves);
    *seats = *moves = NULL;
    return -1;
}
