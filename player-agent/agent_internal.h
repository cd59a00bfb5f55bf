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
rpc_method agent__register_method(unsigned index);
enum { AGENT_REG_LIST, AGENT_REG_CREATE, AGENT_REG_JOIN, AGENT_REG_STATS, AGENT_REG_LEADERBOARD,
       AGENT_REG_MATCHES, AGENT_REG_MATCH };

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
