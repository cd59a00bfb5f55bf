/*
 * narrate.h — the one narrator of events for every view: each message the
 * agent hands a view becomes its sentences, in the user's language, the
 * same in the text view's lines and the GTK view's log (and, by their
 * gettext msgids, in the web app's catalogue: the msgids are the narrator's
 * stable ids; change one only with its translations).
 *
 * What is not narration stays in each view: drawing the board and the
 * snapshot, prompts that name a view's own controls ("type accept or
 * decline", a button), dialogs. A view calls view_narrate for a message
 * and adds its own around it.
 *
 * Any thread that may read the model (a view's own); no state. The agent
 * has applied msg to m before the view sees msg.
 */
#ifndef SUNGKA_NARRATE_H
#define SUNGKA_NARRATE_H

#include "agent.h"

/* One sentence, no newline (borrowed for the call). */
typedef void (*view_say_fn)(void *ctx, const char *sentence);

/* Every sentence msg makes, in order: say is called 0 or more times (none
 * for a snapshot or round-trip times, which views draw, and none for an
 * observer coming or going, which view_narrate_watching counts). */
void view_narrate(const agent_model *m, const agent_msg *msg, view_say_fn say, void *ctx);

/* What a view says on (re)joining a game, after its own line naming the
 * game: the clock, who we are ("You are alice, seat 0." / "You are
 * observing."), and why it ended when it has. The seats, the board and
 * whose turn it is are drawn by each view. */
void view_narrate_snapshot(const agent_model *m, view_say_fn say, void *ctx);

/* "Nobody is watching." / "1 person is watching." / "3 people are watching." */
void view_narrate_watching(int n, view_say_fn say, void *ctx);

/* A seat's player's name, or "seat 2" in the user's language for an open
 * seat (buf, len: room for that); what views show wherever a seat is named. */
const char *view_seat_name(const agent_model *m, int seat, char *buf, size_t len);

/* A refusal's sentence from its machine-readable reason (the service's
 * ErrorReason name, "NOT_YOUR_TURN"), in the user's language (a broad one,
 * WRONG_STATE, gets a sentence true of all its cases); NULL when the
 * service's own sentence is all there is: for a reason unknown here, and
 * when the user reads English (no translation), as the service's sentence
 * is English and more precise. */
const char *view_refusal(const char *reason);

/* The agent's own words in msg (msg->said) as a fragment in the user's
 * language ("lost the connection to HOST:PORT; trying again for 90 s..."),
 * into buf; msg->text when it has no code (the service's words). */
const char *view_agent_words(const agent_msg *msg, char *buf, size_t len);

/* Why a game ended (the model's end_why and the rest, as the agent kept
 * them from GameOver), a fragment in the user's language ("alice
 * resigned"), into buf; m->end_reason (the service's English) when the
 * service gave no reason this agent knows, and in English (no translation:
 * the service's sentence is English too and says more, "alice resigned;
 * bob wins", as with view_refusal). */
const char *view_end_reason(const agent_model *m, char *buf, size_t len);

/* "alice resigned": name left the game for reason why (agent_out_why), a
 * fragment in the user's language into buf; name and the service's text
 * ("alice resigned") for an unknown reason and in English. */
const char *view_out_words(int why, const char *name, const char *text, char *buf, size_t len);

/* Why msg's player departed (DEPARTED), a fragment in the user's language;
 * msg->text (the service's English) for an unknown reason and in English. */
const char *view_depart_words(const agent_msg *msg);

/* Why a move was refused before it was sent (agent_check_move's code: an
 * agent_move_refusal or a game_error), a fragment in the user's language
 * ("cup 3 is empty") into buf; why (the engine's or the agent's English)
 * for a code this view does not know, and in English. */
const char *view_move_refusal(const agent_model *m, int code, int move, const char *why,
                              char *buf, size_t len);

/* Why agent_new_game, agent_join_game or agent_quick_pair failed
 * (agent_lobby_failed), a sentence in the user's language into buf; err
 * (the agent's or the service's English) for what has no code, and in
 * English. */
const char *view_lobby_failure(const agent_lobby_failure *f, const char *err, char *buf,
                               size_t len);

/* A game's title in the user's language when it is a kind's own title (the
 * service's default, "Kalah (the common mancala)"); a title a player gave
 * stays as given. */
const char *view_kind_title(const char *title);

/* An agent's or the service's sentence fragment ("lost the connection to
 * ...") as a sentence: a capital first, then end ("." or ""), into buf. */
void view_sentence(char *buf, size_t len, const char *text, const char *end);

#endif /* SUNGKA_NARRATE_H */
