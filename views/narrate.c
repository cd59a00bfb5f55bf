/*
 * narrate.c — the sentences of events, for every view (narrate.h). One
 * table would not fit: most kinds choose among sentences by what the
 * message says (a seat or none, a grace period or none), so each kind is a
 * case of one switch, and every sentence is a msgid here and nowhere else.
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "narrate.h"
#include "view_i18n.h"

#define SENTENCE_BYTES 2048

/* say(printf(fmt, ...)) */
static void sayf(view_say_fn say, void *ctx, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static void sayf(view_say_fn say, void *ctx, const char *fmt, ...)
{
    char buf[SENTENCE_BYTES];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    say(ctx, buf);
}

void view_sentence(char *buf, size_t len, const char *text, const char *end)
{
    snprintf(buf, len, "%s%s", text, end);
    if (buf[0] >= 'a' && buf[0] <= 'z')
        buf[0] = (char)(buf[0] - 'a' + 'A');
}

static void say_sentence(view_say_fn say, void *ctx, const char *text, const char *end)
{
    char buf[SENTENCE_BYTES];
    view_sentence(buf, sizeof buf, text, end);
    say(ctx, buf);
}

const char *view_seat_name(const agent_model *m, int seat, char *buf, size_t len)
{
    if (seat >= 0 && seat < GAME_MAX_SEATS && m->seat_name[seat][0])
        return m->seat_name[seat];
    snprintf(buf, len, _("seat %d"), seat);
    return buf;
}

/* Every reason a player's command may be refused for, in the user's
 * language. Those that cover many cases (BAD_REQUEST: which option, which
 * cell; WRONG_STATE; NOT_PERMITTED; LIMIT_REACHED: which limit) get a
 * sentence true of all of them; the service names the frequent cases
 * apart (GAME_NOT_STARTED...), and in English its own sentence says more. */
static const struct {
    const char *reason, *sentence;
} refusals[] = {
    {"NOT_YOUR_TURN", N_("It is not your turn.")},
    {"NOT_FOUND", N_("There is no such game, match or player.")},
    {"GAME_FULL", N_("There is no seat left in that game.")},
    {"NOT_STORED", N_("The service could not store it, so it did not happen; try again.")},
    {"SHUTTING_DOWN", N_("The service is closing.")},
    {"UNAVAILABLE", N_("The service cannot do that now; try again later.")},
    {"INTERNAL", N_("The service failed inside.")},
    {"NOT_UTF8", N_("That text is not valid UTF-8.")},
    {"NAME_TAKEN", N_("That name is taken.")},
    {"BAD_CREDENTIALS", N_("Wrong name or password.")},
    {"NAME_CONFUSABLE", N_("That name looks like a registered one.")},
    {"NAME_REGISTERED", N_("That name is registered: sign in to play under it.")},
    {"UNKNOWN_SESSION", N_("Your sign-in has ended: sign in again.")},
    {"ACCOUNT_REQUIRED", N_("This service plays with accounts only: register or sign in.")},
    {"NAME_NOT_ALLOWED", N_("That name has characters a name may not have.")},
    {"NOT_YOUR_NAME", N_("You are signed in under another name.")},
    {"GAME_NOT_STARTED", N_("The game has not started yet.")},
    {"GAME_ENDED", N_("The game is over.")},
    {"OBSERVER", N_("Only the players can do that; you are watching.")},
    {"NO_OFFER", N_("Nobody has offered you that.")},
    {"OFFER_PENDING", N_("Your offer is open: wait for the others to answer.")},
    {"BAD_REQUEST", N_("The service cannot take that as it was given: check what you typed.")},
    {"WRONG_STATE", N_("That cannot be done at this point of the game.")},
    {"NOT_PERMITTED", N_("You are not allowed to do that.")},
    {"LIMIT_REACHED", N_("A limit was reached (too many, or too fast): wait a little and try again.")},
    {"UNKNOWN_TOKEN", N_("The service no longer knows your seat: join the game again.")},
    {"UNKNOWN_METHOD", N_("This service does not have that command.")},
    {"REPLACED", N_("Another connection with your seat took over.")},
    {"DEPARTED", N_("The service took you for gone.")},
    {"ELSEWHERE", N_("That game is at another server.")},
    {"GAME_MOVING", N_("The game is moving to another server: try again in a moment.")},
    {"READ_ONLY", N_("This server lets you watch only: play at a board service.")},
    {"NOT_HERE", N_("This server has no lobby or history: ask a board service.")},
    {"ACCOUNT_DISABLED", N_("The operator has disabled this account.")},
    {"ADDRESS_BANNED", N_("The operator has banned your address.")},
    {"MUTED", N_("The operator has muted your chat.")},
    {"CODE_EXPIRED", N_("That code has expired: ask the operator for another.")},
};

const char *view_refusal(const char *reason)
{
    for (size_t i = 0; reason && i < sizeof refusals / sizeof refusals[0]; i++)
        if (strcmp(reason, refusals[i].reason) == 0) {
            /* Untranslated (English, or a language without a catalog): the
             * service's own sentence is English too and says more ("nobody
             * called 'bob' is in this game"); gettext returns its argument
             * itself when it has no translation. */
            const char *said = _(refusals[i].sentence);
            return said != refusals[i].sentence ? said : NULL;
        }
    return NULL;
}

const char *view_agent_words(const agent_msg *msg, char *buf, size_t len)
{
    switch (msg->said) {
    case AGENT_SAID_LOST:
        snprintf(buf, len, _("lost the connection to %s; trying again for %d s\u2026"), msg->where,
                 msg->seconds);
        return buf;
    case AGENT_SAID_STILL_TRYING:
        snprintf(buf, len, _("still trying (%d s)\u2026"), msg->seconds);
        return buf;
    case AGENT_SAID_RECONNECTED:
        snprintf(buf, len, _("reconnected to %s"), msg->where);
        return buf;
    case AGENT_SAID_GAVE_UP:
        snprintf(buf, len, _("could not reconnect within %d s; giving up"), msg->seconds);
        return buf;
    case AGENT_SAID_TEXT:
        break;
    }
    return msg->text;
}

/* A reason's words in the user's language, or NULL when they have no
 * translation: in English the service's (or the rules engine's) own words
 * are English too and say more ("alice resigned; bob wins", "did not come
 * back within 90 s"), as with view_refusal. gettext returns its argument
 * itself when it has no translation. */
static const char *translated(const char *msgid)
{
    const char *t = _(msgid);
    return t != msgid ? t : NULL;
}

/* Why a seat left, translated ("%s resigned"), or NULL (unknown, or English). */
static const char *out_format(int why)
{
    const char *fmt = NULL;
    switch ((agent_out_why)why) {
    case AGENT_OUT_RESIGNED:     fmt = N_("%s resigned"); break;
    case AGENT_OUT_TIME_RAN_OUT: fmt = N_("%s ran out of time"); break;
    case AGENT_OUT_QUIT:         fmt = N_("%s quit the game"); break;
    case AGENT_OUT_CLAIMED:      fmt = N_("%s did not come back, and the others claimed the seat");
                                 break;
    case AGENT_OUT_UNKNOWN:      break;
    }
    return fmt ? translated(fmt) : NULL;
}

const char *view_out_words(int why, const char *name, const char *text, char *buf, size_t len)
{
    const char *fmt = out_format(why);
    if (fmt)
        snprintf(buf, len, fmt, name);
    else                       /* unknown, or English: the service's words */
        snprintf(buf, len, "%s %s", name, text);
    return buf;
}

const char *view_end_reason(const agent_model *m, char *buf, size_t len)
{
    const char *fmt = NULL, *arg = m->end_who;
    switch ((agent_end_why)m->end_why) {
    case AGENT_END_FINISHED:        fmt = N_("the game was played to its end"); break;
    case AGENT_END_PLAYER_OUT:
        if (!out_format(m->end_out_why))
            break;             /* the service's whole sentence */
        return view_out_words(m->end_out_why, m->end_who, "", buf, len);
    case AGENT_END_DRAW_AGREED:     fmt = N_("the players agreed a draw"); break;
    case AGENT_END_ABORTED:         fmt = N_("%s aborted the game"); break;
    case AGENT_END_NO_FIRST_MOVE:   fmt = N_("%s made no first move in time; the game is aborted");
                                    break;
    case AGENT_END_EMPTY_SEAT_TIME: fmt = N_("a seat's time ran out while it was empty"); break;
    case AGENT_END_OPERATOR:
        fmt = N_("the operator ended the game: %s");
        arg = m->end_detail;
        break;
    case AGENT_END_NOBODY_LEFT:
        fmt = N_("%s left and nobody else is playing; the game ends with no winner");
        break;
    case AGENT_END_UNKNOWN:
        break;
    }
    if (!fmt || !(fmt = translated(fmt)))
        return m->end_reason;  /* unknown (an older log, a newer service), or English */
    if (strstr(fmt, "%s"))
        snprintf(buf, len, fmt, arg);
    else
        snprintf(buf, len, "%s", fmt);
    return buf;
}

const char *view_depart_words(const agent_msg *msg)
{
    const char *said = NULL;
    switch ((agent_depart_why)msg->why) {
    case AGENT_DEPART_CONNECTION_CLOSED: said = N_("the connection closed"); break;
    case AGENT_DEPART_NO_PINGS:          said = N_("no answer to pings"); break;
    case AGENT_DEPART_NOT_BACK:          said = N_("did not come back in time"); break;
    case AGENT_DEPART_TOKEN_REVOKED:     said = N_("the seat was taken over elsewhere"); break;
    case AGENT_DEPART_ENDED_BY_OPERATOR: said = N_("the operator ended the connection"); break;
    case AGENT_DEPART_UNKNOWN:           break;
    }
    return said && (said = translated(said)) ? said : msg->text;
}

const char *view_move_refusal(const agent_model *m, int code, int move, const char *why,
                              char *buf, size_t len)
{
    char name[40], cell[16];
    const char *fmt = NULL;
    int last = m->have_state ? m->state.cups - 1 : 0;
    switch (code) {
    case AGENT_MOVE_OBSERVING:   fmt = N_("you are watching: observers cannot move"); break;
    case AGENT_MOVE_NOT_STARTED: fmt = N_("the game has not started"); break;
    case AGENT_MOVE_GAME_OVER:
    case GAME_E_OVER:            fmt = N_("the game is over"); break;
    case AGENT_MOVE_THEIR_TURN:
    case GAME_E_TURN:            fmt = N_("it is %s's turn"); break;
    case GAME_E_RANGE:
        fmt = m->have_state && m->state.layout == GAME_LAYOUT_MANCALA
                  ? N_("there is no cup %d: choose one of 0..%d")
                  : N_("there is no cell %d on this board");
        break;
    case GAME_E_HOME:            fmt = N_("a home cannot be played: choose a cup 0..%d"); break;
    case GAME_E_EMPTY:           fmt = N_("cup %d is empty"); break;
    case GAME_E_OCCUPIED:        fmt = N_("cell %s is taken"); break;
    case GAME_E_ILLEGAL:         fmt = N_("%s is not a legal move now"); break;
    default:                     break;
    }
    const char *said = fmt ? translated(fmt) : NULL;
    if (!said)                 /* unknown, or English: the engine's own words */
        return why;
    switch (code) {
    case AGENT_MOVE_THEIR_TURN:
    case GAME_E_TURN:
        snprintf(buf, len, said,
                 view_seat_name(m, m->have_state ? game_to_move(&m->state) : -1, name,
                                sizeof name));
        break;
    case GAME_E_RANGE:
        snprintf(buf, len, said, move, last);   /* a cell's has one %d: extra ignored */
        break;
    case GAME_E_HOME:
        snprintf(buf, len, said, last);
        break;
    case GAME_E_EMPTY:
        snprintf(buf, len, said, move);
        break;
    case GAME_E_OCCUPIED:
    case GAME_E_ILLEGAL:
        agent_format_move(m, move, cell, sizeof cell);
        snprintf(buf, len, said, cell);
        break;
    default:
        snprintf(buf, len, "%s", said);
        break;
    }
    return buf;
}

const char *view_lobby_failure(const agent_lobby_failure *f, const char *err, char *buf,
                               size_t len)
{
    const char *said;
    switch (f->code) {
    case AGENT_LOBBY_UNKNOWN_KIND:
        if (!(said = translated(N_("There is no game kind '%s'. The kinds:"))))
            return err;
        int used = snprintf(buf, len, said, f->arg);
        for (int i = 0; i < game_kind_count() && used >= 0 && (size_t)used < len; i++)
            used += snprintf(buf + used, len - (size_t)used, " %s", game_kind_at(i)->name);
        return buf;
    case AGENT_LOBBY_BAD_OPTION:
        if (!(said = translated(N_("'%s' is not an option of this kind of game, or its value is "
                                   "out of range."))))
            return err;
        snprintf(buf, len, said, f->arg);
        return buf;
    case AGENT_LOBBY_BAD_CLOCK:
        if (!(said = translated(N_("'%s' is not a clock: write MINUTES+SECONDS (5+3), MINUTES "
                                   "(10), SECONDS/move (30/move) or none."))))
            return err;
        snprintf(buf, len, said, f->arg);
        return buf;
    case AGENT_LOBBY_REFUSED:
        if (!(said = view_refusal(f->reason)))
            return err;
        snprintf(buf, len, "%s", said);
        return buf;
    case AGENT_LOBBY_OTHER:
        break;
    }
    return err;
}

/* The kinds' titles (games/: game_kind.title), in the user's language; a
 * kind's title missing here stays English (views_narrate checks that none
 * is). */
static const char *const kind_titles[] = {
    N_("Sungka (Filipino mancala)"),
    N_("Congklak (Indonesian mancala)"),
    N_("Kalah (the common mancala)"),
    N_("Reversi (Othello)"),
    N_("Tic-tac-toe in 2 to 4 dimensions"),
};

const char *view_kind_title(const char *title)
{
    for (size_t i = 0; title && i < sizeof kind_titles / sizeof kind_titles[0]; i++)
        if (strcmp(title, kind_titles[i]) == 0)
            return _(kind_titles[i]);
    return title;
}

static void say_passes(const agent_model *m, const agent_msg *msg, view_say_fn say, void *ctx)
{
    char buf[40];
    for (int i = 0; i < msg->n_passed; i++)
        sayf(say, ctx, _("%s passes: no move."),
             view_seat_name(m, msg->passed[i], buf, sizeof buf));
}

void view_narrate_watching(int n, view_say_fn say, void *ctx)
{
    if (n <= 0)
        say(ctx, _("Nobody is watching."));
    else
        sayf(say, ctx, ngettext("%d person is watching.", "%d people are watching.",
                                (unsigned long)n), n);
}

void view_narrate_snapshot(const agent_model *m, view_say_fn say, void *ctx)
{
    char buf[AGENT_TEXT_BYTES];
    const agent_clock *tc = &m->time_control;
    if (tc->per_move_s) {
        sayf(say, ctx, _("Clock: %d s a move."), tc->per_move_s);
    } else if (tc->base_s) {
        char base[16];
        agent_format_clock((int64_t)tc->base_s * 1000, base, sizeof base);
        sayf(say, ctx, _("Clock: %s for the game, plus %d s a move."), base, tc->increment_s);
    }
    if (m->my_seat >= 0 && m->hot_seat >= 0)
        sayf(say, ctx, _("You are %s, seat %d, and %s, seat %d (hot seat)."),
             m->seat_name[m->my_seat], m->my_seat, m->seat_name[m->hot_seat], m->hot_seat);
    else if (m->my_seat >= 0)
        sayf(say, ctx, _("You are %s, seat %d."), m->seat_name[m->my_seat], m->my_seat);
    else
        say(ctx, _("You are observing."));
    if (m->status == AGENT_GAME_FINISHED || m->status == AGENT_GAME_ABANDONED)
        sayf(say, ctx, _("This game is over: %s."), view_end_reason(m, buf, sizeof buf));
}

void view_narrate(const agent_model *m, const agent_msg *msg, view_say_fn say, void *ctx)
{
    char buf[40], words[AGENT_TEXT_BYTES];
    switch (msg->kind) {
    case AGENT_MSG_SNAPSHOT:
    case AGENT_MSG_PINGS:
        break;                 /* drawn by each view */
    case AGENT_MSG_JOINED:
        if (msg->seat >= 0)
            sayf(say, ctx, _("%s joined, seat %d."), msg->name, msg->seat);
        break;
    case AGENT_MSG_LEFT:
        if (msg->seat >= 0)
            sayf(say, ctx, _("%s left."), msg->name);
        break;
    case AGENT_MSG_DEPARTED:
        if (msg->grace_s > 0)
            sayf(say, ctx, _("%s departed: %s. The seat is kept for %d s."), msg->name,
                 view_depart_words(msg), msg->grace_s);
        else if (msg->seat >= 0)
            sayf(say, ctx, _("%s departed: %s."), msg->name, view_depart_words(msg));
        break;
    case AGENT_MSG_RETURNED:
        sayf(say, ctx, _("%s is back."), msg->name);
        break;
    case AGENT_MSG_READY:
        sayf(say, ctx, msg->ready ? _("%s is ready.") : _("%s is not ready."), msg->name);
        break;
    case AGENT_MSG_SEAT:
        if (msg->seat >= 0)
            sayf(say, ctx, _("%s sits down at seat %d."), msg->name, msg->seat);
        else
            sayf(say, ctx, _("%s stands up from seat %d and watches."), msg->name,
                 msg->from_seat);
        break;
    case AGENT_MSG_RECONNECTING:
        say_sentence(say, ctx, view_agent_words(msg, words, sizeof words), "");
        break;
    case AGENT_MSG_RECONNECTED:
        say_sentence(say, ctx, view_agent_words(msg, words, sizeof words), ".");
        break;
    case AGENT_MSG_STARTED:
        sayf(say, ctx, _("The game starts; %s moves first."),
             view_seat_name(m, msg->seat, buf, sizeof buf));
        if (msg->unrated[0])   /* the service's sentence: why not rated */
            say_sentence(say, ctx, msg->unrated, ".");
        break;
    case AGENT_MSG_TURN:
        say_passes(m, msg, say, ctx);
        break;
    case AGENT_MSG_MOVED: {
        char move[16];
        agent_format_move(m, msg->move, move, sizeof move);
        if (msg->move < 0)     /* a move that is no cell: its word ("swap") */
            sayf(say, ctx, _("%s played %s."), view_seat_name(m, msg->seat, buf, sizeof buf),
                 move);
        else
            sayf(say, ctx, _("%s played %s %s."), view_seat_name(m, msg->seat, buf, sizeof buf),
                 m->state.layout == GAME_LAYOUT_MANCALA ? _("cup") : _("cell"), move);
        if (msg->mismatch)
            sayf(say, ctx, _("WARNING: %s"), msg->text);
        if (msg->extra_turn)
            sayf(say, ctx, _("%s moves again."), view_seat_name(m, msg->seat, buf, sizeof buf));
        break;
    }
    case AGENT_MSG_CHAT:
        if (msg->to[0])
            sayf(say, ctx, _("[%s to %s] %s"), msg->name, msg->to, msg->text);
        else if (msg->spectators)
            sayf(say, ctx, _("[spectators] %s: %s"), msg->name, msg->text);
        else
            sayf(say, ctx, _("[chat] %s: %s"), msg->name, msg->text);
        break;
    case AGENT_MSG_GAME_OVER:
        sayf(say, ctx, _("Game over: %s."), view_end_reason(m, words, sizeof words));
        break;
    case AGENT_MSG_NOTICE:
        sayf(say, ctx, _("Notice: %s"), msg->text);
        break;
    case AGENT_MSG_OUT:
        if (out_format(msg->why))
            say_sentence(say, ctx, view_out_words(msg->why, msg->name, msg->text, words,
                                                  sizeof words), ".");
        else
            sayf(say, ctx, _("%s is out of the game: %s."), msg->name, msg->text);
        say_passes(m, msg, say, ctx);
        break;
    case AGENT_MSG_DRAW_OFFERED:
        sayf(say, ctx, _("%s offers a draw."), msg->name);
        break;
    case AGENT_MSG_DRAW_DECLINED:
        sayf(say, ctx, _("%s declines the draw."), msg->name);
        break;
    case AGENT_MSG_TIME_GIVEN:
        sayf(say, ctx, ngettext("%s gives the other players %d second.",
                                "%s gives the other players %d seconds.", msg->move),
             msg->name, msg->move);
        break;
    case AGENT_MSG_REMATCH_OFFERED: {
        int seats = m->have_state ? game_seats(&m->state) : 2, yes = 0;
        for (int s = 0; s < seats; s++)
            yes += (msg->accepted >> s) & 1;
        sayf(say, ctx, _("%s wants a rematch (%d of %d accepted)."), msg->name, yes, seats);
        break;
    }
    case AGENT_MSG_REMATCH_DECLINED:
        sayf(say, ctx, _("%s declines the rematch."), msg->name);
        break;
    case AGENT_MSG_REMATCH_STARTED:
        sayf(say, ctx, _("The rematch starts: game %s."), msg->text);
        break;
    case AGENT_MSG_TAKEN_OVER:
        sayf(say, ctx, _("%s did not come back: %s (a level %d bot) plays seat %d from now on."),
             msg->text, msg->name, msg->level, msg->seat);
        break;
    case AGENT_MSG_REFUSED: {
        const char *why = view_refusal(msg->reason);
        if (why)
            sayf(say, ctx, _("Refused: %s"), why);
        else                   /* the service's own words */
            sayf(say, ctx, _("Refused: %s"), msg->text);
        break;
    }
    case AGENT_MSG_DISCONNECTED:
        sayf(say, ctx, _("Disconnected from the board service (%s)."),
             view_agent_words(msg, words, sizeof words));
        break;
    }
}
