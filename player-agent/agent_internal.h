/*
 * agent_internal.h — what the agent's files share: turning protobuf events
 * into agent_msg values (agent_wire.c, on the rpc client thread) and applying
 * them to the model (agent_model.c, on the view thread).
 */
#ifndef SUNGKA_AGENT_INTERNAL_H
#define SUNGKA_AGENT_INTERNAL_H

#include "agent.h"
#include "rpc.h"
#include "sungka/v1/sungka.pb-c.h"

/* A blocking call with the agent's deadline; -1 with "what: reason" in err. */
int agent__call_sync(agent *ag, const rpc_method *m, const ProtobufCMessage *req,
                     const char *token, ProtobufCMessage **reply, char *err, size_t errlen,
                     const char *what);

/* The service methods the agent calls, each found by its name in the .proto
 * (rpc_method_named) once, by agent_library_init, so that reordering the
 * .proto cannot send a call to the wrong method; a name the .proto lacks
 * stops the program there. Read-only afterwards, from any thread. */
typedef struct agent_methods {
    /* Register */
    rpc_method list_games, create_game, join_game, player_stats, leaderboard, list_matches,
        get_match;
    /* Board */
    rpc_method subscribe, get_board, move, chat, ping, leave, ready, sit, stand;
} agent_methods;
extern agent_methods agent__methods;

agent_msg *agent__msg_new(agent_msg_kind kind);

/* Copy a string that came from the service into dst (size > 0 bytes),
 * escaped with text_escape: the one way service text enters the agent, so
 * a hostile service cannot put control sequences, bidi overrides or invalid
 * UTF-8 in front of a view. src NULL copies "". */
void agent__text(char *dst, size_t size, const char *src);

/* The message for one event, or NULL for pings and kinds we do not know. */
agent_msg *agent__event_msg(const Sungka__V1__Event *ev);

/* Everyone and their round trips, from a ping. */
/* The TURN that follows a GameStarted or a MoveMade (the turn rides in
 * those events), or NULL: another event, or a move that ended the game. */
agent_msg *agent__turn_msg(const Sungka__V1__Event *ev);
agent_msg *agent__pings_msg(const Sungka__V1__PingRequest *ping);

/* A lobby entry from a game summary. */
void agent__game_info(const Sungka__V1__GameSummary *g, agent_game_info *out);

/* Update the model from one message (view thread); a MOVED message whose
 * board disagrees with our own replay gets mismatch = true and a sentence. */
void agent__model_apply(agent_model *md, agent_msg *m);

#endif /* SUNGKA_AGENT_INTERNAL_H */
