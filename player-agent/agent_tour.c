/*
 * agent_tour.c — following a tournament without blocking the view
 * (agent_tournament_follow, _news, _end), and withdrawing from one
 * (agent_leave_tournament). agent_play_tournament (agent_lobby.c) is the
 * blocking form, for the text view.
 *
 * A follow is one WatchTournament stream: its updates come on the rpc
 * client thread, which keeps only the newest (a view draws the tournament
 * as it is now, not every step); the view thread takes it when it asks.
 * The seat an update gives us is noted there too, and taken on the view
 * thread by agent_tournament_follow_end (agent__take_seat), since entering
 * a game touches the agent's view-thread state.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agent_internal.h"

struct agent_tour_follow {
    pthread_mutex_t lock;
    pthread_cond_t cond;
    /* locked: */
    Sungka__V1__Tournament *latest;    /* owned (inside `holder`); NULL once taken */
    Sungka__V1__WatchTournamentResponse *holder;   /* the message latest is in */
    bool ended;
    rpc_status st;             /* ended: how */
    bool seated;               /* an update seated us in a game not played yet */
    int seat;
    char token[AGENT_TOKEN_BYTES], game_id[32];
    /* read-only after agent_tournament_follow: */
    rpc_stream *stream;
    bool play;
    char played[32];           /* the game we were last seated in (not again) */
    char name[AGENT_NAME_BYTES];   /* ours in the tournament */
};

static void follow_msg(ProtobufCMessage *msg, void *user)
{
    agent_tour_follow *f = user;
    Sungka__V1__WatchTournamentResponse *u = (Sungka__V1__WatchTournamentResponse *)msg;
    pthread_mutex_lock(&f->lock);
    if (f->play && !f->seated && u->your_game && u->your_game->token[0] &&
        strcmp(u->your_game->game_id, f->played) != 0) {
        f->seated = true;
        f->seat = agent__seat_of(u->your_game->seat);
        agent__text(f->token, sizeof f->token, u->your_game->token);
        agent__text(f->game_id, sizeof f->game_id, u->your_game->game_id);
    }
    if (u->tournament) {
        if (f->holder)
            protobuf_c_message_free_unpacked(&f->holder->base, NULL);
        f->holder = u;
        f->latest = u->tournament;
        u = NULL;
    }
    pthread_cond_signal(&f->cond);
    pthread_mutex_unlock(&f->lock);
    if (u)
        protobuf_c_message_free_unpacked(&u->base, NULL);
}

static void follow_end(const rpc_status *st, void *user)
{
    agent_tour_follow *f = user;
    pthread_mutex_lock(&f->lock);
    f->st = *st;
    f->ended = true;
    pthread_cond_signal(&f->cond);
    pthread_mutex_unlock(&f->lock);
}

/* Join tournament id under our name (the account signed in, or the
 * guest's); the player token kept in the agent. */
static int join(agent *ag, const char *id, char *err, size_t errlen)
{
    const char *session = agent__session(ag);
    Sungka__V1__JoinTournamentRequest req = SUNGKA__V1__JOIN_TOURNAMENT_REQUEST__INIT;
    req.tournament_id = (char *)id;
    req.name = (char *)(session ? "" : ag->cfg.name);
    rpc_method m = agent__methods.join_tournament;
    ProtobufCMessage *reply = NULL;
    memset(&ag->lobby_failure, 0, sizeof ag->lobby_failure);
    if (agent__call_sync_code(ag, &m, &req.base, session, &reply, err, errlen,
                              "cannot join the tournament", NULL,
                              ag->lobby_failure.reason) != 0) {
        if (ag->lobby_failure.reason[0])
            ag->lobby_failure.code = AGENT_LOBBY_REFUSED;
        return -1;
    }
    Sungka__V1__JoinTournamentResponse *r = (Sungka__V1__JoinTournamentResponse *)reply;
    snprintf(ag->tour_id, sizeof ag->tour_id, "%s", id);
    agent__text(ag->tour_token, sizeof ag->tour_token, r->player_token);
    ag->tour_played[0] = '\0';
    protobuf_c_message_free_unpacked(reply, NULL);
    return 0;
}

bool agent_in_tournament(const agent *ag, const char *id)
{
    return id[0] && strcmp(ag->tour_id, id) == 0 && ag->tour_token[0];
}

agent_tour_follow *agent_tournament_follow(agent *ag, const char *id, bool play, char *err,
                                           size_t errlen)
{
    if (strlen(id) >= sizeof ag->tour_id) {
        snprintf(err, errlen, "no tournament has the id '%.40s'", id);
        return NULL;
    }
    if (play && !agent_in_tournament(ag, id) && join(ag, id, err, errlen) != 0)
        return NULL;
    agent_tour_follow *f = calloc(1, sizeof *f);
    if (!f) {
        snprintf(err, errlen, "cannot watch the tournament: out of memory");
        return NULL;
    }
    f->play = play;
    snprintf(f->played, sizeof f->played, "%s", play ? ag->tour_played : "");
    const char *session = agent__session(ag);
    snprintf(f->name, sizeof f->name, "%s", session ? ag->account : ag->cfg.name);
    pthread_mutex_init(&f->lock, NULL);
    pthread_cond_init(&f->cond, NULL);
    Sungka__V1__WatchTournamentRequest req = SUNGKA__V1__WATCH_TOURNAMENT_REQUEST__INIT;
    req.tournament_id = (char *)id;
    req.player_token = play ? ag->tour_token : "";
    if (rpc_client_stream(rpc_pool_client(ag->pool), &agent__methods.watch_tournament, &req.base,
                          NULL, follow_msg, follow_end, f, &f->stream) != 0) {
        snprintf(err, errlen, "cannot watch the tournament: out of memory");
        pthread_cond_destroy(&f->cond);
        pthread_mutex_destroy(&f->lock);
        free(f);
        return NULL;
    }
    return f;
}

bool agent_tournament_follow_news(agent_tour_follow *f, agent_tournament *now, bool *seated,
                                  bool *ended, char *err, size_t errlen)
{
    pthread_mutex_lock(&f->lock);
    Sungka__V1__WatchTournamentResponse *holder = NULL;
    if (f->latest) {
        holder = f->holder;
        f->holder = NULL;
        f->latest = NULL;
    }
    *seated = f->seated;
    *ended = f->ended;
    if (f->ended && f->st.code != RPC_OK) {
        char words[AGENT_TEXT_BYTES];
        agent__text(words, sizeof words, f->st.message[0] ? f->st.message
                                                          : rpc_code_name(f->st.code));
        snprintf(err, errlen, "the tournament's stream ended: %s", words);
    } else if (errlen) {
        err[0] = '\0';
    }
    pthread_mutex_unlock(&f->lock);
    if (!holder)
        return false;
    agent__tournament_from_wire(holder->tournament, now);
    protobuf_c_message_free_unpacked(&holder->base, NULL);
    return true;
}

int agent_tournament_follow_end(agent *ag, agent_tour_follow *f, bool take_seat)
{
    /* Under the lock follow_end cannot have returned: the stream is still
     * good for rpc_stream_cancel (rpc.h's rule). */
    pthread_mutex_lock(&f->lock);
    if (!f->ended)
        rpc_stream_cancel(f->stream);
    while (!f->ended)
        pthread_cond_wait(&f->cond, &f->lock);
    pthread_mutex_unlock(&f->lock);
    int rc = 0;
    if (take_seat && f->seated) {
        snprintf(ag->tour_played, sizeof ag->tour_played, "%s", f->game_id);
        agent__take_seat(ag, f->game_id, f->seat, f->name, f->token);
        rc = 1;
    }
    if (f->holder)
        protobuf_c_message_free_unpacked(&f->holder->base, NULL);
    pthread_cond_destroy(&f->cond);
    pthread_mutex_destroy(&f->lock);
    free(f);
    return rc;
}

int agent_leave_tournament(agent *ag, const char *id, char *err, size_t errlen)
{
    memset(&ag->lobby_failure, 0, sizeof ag->lobby_failure);
    if (!agent_in_tournament(ag, id)) {
        snprintf(err, errlen, "you have not joined tournament %.40s", id);
        return -1;
    }
    Sungka__V1__LeaveTournamentRequest req = SUNGKA__V1__LEAVE_TOURNAMENT_REQUEST__INIT;
    req.tournament_id = (char *)id;
    req.player_token = ag->tour_token;
    rpc_method m = agent__methods.leave_tournament;
    ProtobufCMessage *reply = NULL;
    if (agent__call_sync_code(ag, &m, &req.base, NULL, &reply, err, errlen,
                              "cannot leave the tournament", NULL,
                              ag->lobby_failure.reason) != 0) {
        if (ag->lobby_failure.reason[0])
            ag->lobby_failure.code = AGENT_LOBBY_REFUSED;
        return -1;
    }
    protobuf_c_message_free_unpacked(reply, NULL);
    ag->tour_id[0] = '\0';
    ag->tour_token[0] = '\0';
    return 0;
}
