/*
 * agent_tour.c — a tournament followed by a spectator without blocking the
 * view (agent_tournament_follow, _news, _end): the web gateway's page of a
 * tournament, live. A player's wait for its games is agent_tournament_start
 * (agent_lobby.c), which joins and is seated; this one only watches.
 *
 * A follow is one WatchTournament stream without a player token: its
 * updates come on the rpc client thread, which keeps only the newest (a
 * view draws the tournament as it is now, not every step) for the view
 * thread to take when it asks.
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
    Sungka__V1__WatchTournamentResponse *latest;   /* owned; NULL once taken */
    bool ended;
    rpc_status st;             /* ended: how */
    /* read-only after agent_tournament_follow: */
    rpc_stream *stream;
};

static void follow_msg(ProtobufCMessage *msg, void *user)
{
    agent_tour_follow *f = user;
    Sungka__V1__WatchTournamentResponse *u = (Sungka__V1__WatchTournamentResponse *)msg;
    if (!u->tournament) {
        protobuf_c_message_free_unpacked(msg, NULL);
        return;
    }
    pthread_mutex_lock(&f->lock);
    if (f->latest)
        protobuf_c_message_free_unpacked(&f->latest->base, NULL);
    f->latest = u;
    pthread_cond_signal(&f->cond);
    pthread_mutex_unlock(&f->lock);
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

bool agent_in_tournament(agent *ag, const char *id)
{
    return agent__tour_recall(ag, id);
}

agent_tour_follow *agent_tournament_follow(agent *ag, const char *id, char *err, size_t errlen)
{
    agent_tour_follow *f = calloc(1, sizeof *f);
    if (!f) {
        snprintf(err, errlen, "cannot watch the tournament: out of memory");
        return NULL;
    }
    pthread_mutex_init(&f->lock, NULL);
    pthread_cond_init(&f->cond, NULL);
    Sungka__V1__WatchTournamentRequest req = SUNGKA__V1__WATCH_TOURNAMENT_REQUEST__INIT;
    req.tournament_id = (char *)id;
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

bool agent_tournament_follow_news(agent_tour_follow *f, agent_tournament *now, bool *ended,
                                  char *err, size_t errlen)
{
    pthread_mutex_lock(&f->lock);
    Sungka__V1__WatchTournamentResponse *u = f->latest;
    f->latest = NULL;
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
    if (!u)
        return false;
    agent__tournament_from_wire(u->tournament, now);
    protobuf_c_message_free_unpacked(&u->base, NULL);
    return true;
}

void agent_tournament_follow_end(agent_tour_follow *f)
{
    /* Under the lock follow_end cannot have returned: the stream is still
     * good for rpc_stream_cancel (rpc.h's rule). */
    pthread_mutex_lock(&f->lock);
    if (!f->ended)
        rpc_stream_cancel(f->stream);
    while (!f->ended)
        pthread_cond_wait(&f->cond, &f->lock);
    pthread_mutex_unlock(&f->lock);
    if (f->latest)
        protobuf_c_message_free_unpacked(&f->latest->base, NULL);
    pthread_cond_destroy(&f->cond);
    pthread_mutex_destroy(&f->lock);
    free(f);
}
