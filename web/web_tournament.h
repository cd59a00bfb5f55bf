/*
 * web_tournament.h — version 4 of the web protocol: tournaments in the
 * browser (docs/web-protocol.md, "Tournaments"). The lobby's list of
 * tournaments; a tournament's page, whose standings and games the gateway
 * sends again at every change (the service's WatchTournament stream);
 * Join, Withdraw and Create; and the games the tournament seats the
 * browser's player in, which the session then plays as any other game.
 *
 * One browser follows at most one tournament at a time: as a spectator
 * (the page is open), or as a player (it joined: followed until the
 * tournament ends or it withdraws, whatever page it shows, so that the
 * tournament can seat it), also while it plays the game the tournament
 * seated it at (the service pairs nobody who sits in a game). The player token lives in the session's agent
 * only: a reload or a restart of the gateway loses it (the service knows
 * the name, which cannot join twice).
 *
 * A spectator follows with agent_tournament_follow, a player waits with
 * agent_tournament_start (which joins it the first time and is seated by
 * it), asked for news every WEB_TOUR_POLL_MS; neither blocks.
 *
 * Threads: every function here runs on one session's thread
 * (web_session.h), with that session's agent; the joins, leaves and
 * creates block it for the agent's call deadline, as the lobby's calls do.
 * Ownership: a web_tour belongs to its session; messages for the browser
 * are handed to send (stolen).
 */
#ifndef SUNGKA_WEB_TOURNAMENT_H
#define SUNGKA_WEB_TOURNAMENT_H

#include <stdbool.h>

#include <jansson.h>

#include "agent.h"

/* How often the session thread asks a followed tournament for news. */
#define WEB_TOUR_POLL_MS 200

typedef struct web_tour web_tour;

/* Queue msg (stolen) for the session's browser. */
typedef void (*web_tour_send)(void *session, json_t *msg);

/* A session's tournament state (NULL when out of memory). */
web_tour *web_tour_new(web_tour_send send, void *session);

/* Stop following and free (before the agent is destroyed). */
void web_tour_free(web_tour *t, agent *ag);

/* The lobby's "tournaments": every tournament of the service, newest
 * first (an empty list when the service has none or cannot list them). */
json_t *web_tour_list(agent *ag);

/* If type is a tournament command ("tournament", "tournament_close",
 * "tournament_join", "tournament_leave", "tournament_new"), do it and
 * return true; false when it is none of them. */
bool web_tour_command(web_tour *t, agent *ag, const char *type, json_t *cmd);

/* The tournament's news, sent on; when it seats the player, the seat is
 * taken (the game's snapshot follows from the agent, and the game is
 * played as any other) and the tournament followed on. Call after every
 * wake of the session thread. The poll timeout the session thread should
 * use: WEB_TOUR_POLL_MS while a tournament is followed, else -1. */
int web_tour_poll(web_tour *t, agent *ag);

#endif /* SUNGKA_WEB_TOURNAMENT_H */
