/*
 * test_narrate.c — the one narrator (views/narrate.c): every kind of
 * message a view is handed has its sentences (a snapshot and round-trip
 * times excepted: views draw those), each a whole sentence without a
 * newline; in Filipino and Indonesian every one is translated (no English
 * sentence left: each differs from the English one), the agent's own words
 * too (from their codes), the service's words inside them aside; a refusal is said from its reason in
 * Filipino and Indonesian, and in the service's (English) words in English.
 */
#include <locale.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "narrate.h"
#include "view.h"

#define LAST_KIND AGENT_MSG_REMATCH_STARTED
#define MAX_SAID 16

typedef struct said {
    int n;
    char s[MAX_SAID][512];
} said;

static void collect(void *ctx, const char *sentence)
{
    said *sd = ctx;
    assert_true(sd->n < MAX_SAID);
    assert_null(strchr(sentence, '\n'));
    snprintf(sd->s[sd->n++], sizeof sd->s[0], "%s", sentence);
}

static agent_model model;

static void set_up_model(void)
{
    memset(&model, 0, sizeof model);
    const game_kind *kind = game_kind_find("sungka");
    model.kind = kind;
    game_options_default(kind, &model.opts);
    assert_int_equal(game_new(&model.state, kind, &model.opts, NULL, 0), GAME_OK);
    model.have_state = true;
    model.my_seat = 0;
    model.hot_seat = -1;
    snprintf(model.seat_name[0], sizeof model.seat_name[0], "alice");
    snprintf(model.seat_name[1], sizeof model.seat_name[1], "bob");
}

/* A message of `kind` with every field a sentence may use set, and every
 * variant on (a pass, an extra turn, a mismatch). */
static void narrate_kind(agent_msg_kind kind, int variant, said *sd)
{
    agent_msg msg;
    memset(&msg, 0, sizeof msg);
    msg.kind = kind;
    msg.seat = variant == 2 ? -1 : 1;
    msg.from_seat = 1;
    msg.move = 2;
    snprintf(msg.name, sizeof msg.name, "bob");
    snprintf(msg.text, sizeof msg.text, "xyzzy");
    if (variant == 1)          /* a reason that says it all */
        snprintf(msg.reason, sizeof msg.reason, "NOT_FOUND");
    else if (variant == 2)     /* one unknown here: the service's words */
        snprintf(msg.reason, sizeof msg.reason, "A_NEWER_REASON");
    if (variant == 1)
        snprintf(msg.to, sizeof msg.to, "alice");
    msg.spectators = variant == 2;
    msg.grace_s = variant == 1 ? 30 : 0;
    msg.ready = variant == 1;
    msg.level = 5;
    msg.accepted = 1;
    msg.extra_turn = variant == 1;
    msg.mismatch = variant == 1;
    msg.n_passed = 1;
    msg.passed[0] = 1;
    /* the agent's own words as codes (text: the English, as the agent puts it) */
    snprintf(msg.where, sizeof msg.where, "127.0.0.1:7070");
    msg.seconds = 90;
    if (kind == AGENT_MSG_RECONNECTING)
        msg.said = variant == 1 ? AGENT_SAID_STILL_TRYING : AGENT_SAID_LOST;
    else if (kind == AGENT_MSG_RECONNECTED)
        msg.said = AGENT_SAID_RECONNECTED;
    else if (kind == AGENT_MSG_DISCONNECTED && variant == 1)
        msg.said = AGENT_SAID_GAVE_UP;
    memset(sd, 0, sizeof *sd);
    view_narrate(&model, &msg, collect, sd);
}

static bool drawn_not_said(int kind)
{
    return kind == AGENT_MSG_SNAPSHOT || kind == AGENT_MSG_PINGS;
}

static void every_kind_has_a_sentence(void **state)
{
    (void)state;
    for (int k = 0; k <= LAST_KIND; k++) {
        said sd;
        narrate_kind(k, 0, &sd);
        if (drawn_not_said(k)) {
            assert_int_equal(sd.n, 0);
            continue;
        }
        if (sd.n == 0)
            fail_msg("message kind %d has no sentence", k);
        for (int i = 0; i < sd.n; i++)
            assert_true(strlen(sd.s[i]) > 3);
    }
    said sd = {0};
    view_narrate_watching(3, collect, &sd);
    view_narrate_watching(0, collect, &sd);
    assert_int_equal(sd.n, 2);
    assert_string_equal(sd.s[0], "3 people are watching.");
    assert_string_equal(sd.s[1], "Nobody is watching.");
    /* the variants: sentences of their own */
    narrate_kind(AGENT_MSG_MOVED, 1, &sd);
    assert_int_equal(sd.n, 3);
    assert_string_equal(sd.s[0], "bob played cup 2.");
    assert_string_equal(sd.s[1], "WARNING: xyzzy");
    assert_string_equal(sd.s[2], "bob moves again.");
    narrate_kind(AGENT_MSG_JOINED, 2, &sd);
    assert_int_equal(sd.n, 0);       /* an observer: counted, not named */
    /* the agent's words from their codes, never from its English text */
    narrate_kind(AGENT_MSG_RECONNECTING, 0, &sd);
    assert_string_equal(sd.s[0], "Lost the connection to 127.0.0.1:7070; trying again for 90 s\u2026");
    narrate_kind(AGENT_MSG_RECONNECTING, 1, &sd);
    assert_string_equal(sd.s[0], "Still trying (90 s)\u2026");
    narrate_kind(AGENT_MSG_RECONNECTED, 0, &sd);
    assert_string_equal(sd.s[0], "Reconnected to 127.0.0.1:7070.");
    narrate_kind(AGENT_MSG_DISCONNECTED, 1, &sd);
    assert_string_equal(sd.s[0], "Disconnected from the board service (could not reconnect "
                                 "within 90 s; giving up).");
    /* a refusal in English: the service's words, which are English and
     * more precise, whatever the reason */
    narrate_kind(AGENT_MSG_REFUSED, 1, &sd);
    assert_string_equal(sd.s[0], "Refused: xyzzy");
    narrate_kind(AGENT_MSG_REFUSED, 2, &sd);
    assert_string_equal(sd.s[0], "Refused: xyzzy");
    char buf[40];
    assert_string_equal(view_seat_name(&model, 3, buf, sizeof buf), "seat 3");
    assert_string_equal(view_seat_name(&model, 1, buf, sizeof buf), "bob");
}

static void translated(const char *lang)
{
    enum { MAX = 256 };
    static said english[MAX], other[MAX];
    static int kinds[MAX];
    unsetenv("LANGUAGE");
    setlocale(LC_ALL, "");
    int n = 0;
    for (int k = 0; k <= LAST_KIND; k++)
        for (int v = 0; v < 3; v++) {
            said sd;
            narrate_kind(k, v, &sd);
            for (int i = 0; i < sd.n && n < MAX; i++, n++) {
                snprintf(english[n].s[0], sizeof english[0].s[0], "%s", sd.s[i]);
                kinds[n] = k;
            }
        }
    setenv("LANGUAGE", lang, 1);
    setlocale(LC_ALL, "");
    int m = 0;
    for (int k = 0; k <= LAST_KIND; k++)
        for (int v = 0; v < 3; v++) {
            said sd;
            narrate_kind(k, v, &sd);
            for (int i = 0; i < sd.n && m < MAX; i++, m++)
                snprintf(other[m].s[0], sizeof other[0].s[0], "%s", sd.s[i]);
        }
    assert_int_equal(m, n);
    for (int i = 0; i < n; i++) {
        /* Filipino keeps "[chat]" (a loanword), and so the whole line */
        if (strcmp(lang, "fil") == 0 && kinds[i] == AGENT_MSG_CHAT &&
            strncmp(english[i].s[0], "[chat]", 6) == 0)
            continue;
        if (strcmp(english[i].s[0], other[i].s[0]) == 0)
            fail_msg("%s: still English: '%s'", lang, other[i].s[0]);
    }
    said sd = {0};
    view_narrate_watching(3, collect, &sd);
    assert_string_not_equal(sd.s[0], "3 people are watching.");
    char buf[40];
    assert_string_not_equal(view_seat_name(&model, 3, buf, sizeof buf), "seat 3");
    /* translated: from its reason when that says it all, never the
     * service's (English) words */
    narrate_kind(AGENT_MSG_REFUSED, 1, &sd);
    if (strstr(sd.s[0], "xyzzy"))
        fail_msg("%s: the refusal is the service's English: %s", lang, sd.s[0]);
    narrate_kind(AGENT_MSG_REFUSED, 2, &sd);
    assert_non_null(strstr(sd.s[0], "xyzzy"));   /* unknown: its words */
    /* every kind's own title, translated; a player's title as given */
    for (int i = 0; i < game_kind_count(); i++)
        if (strcmp(view_kind_title(game_kind_at(i)->title), game_kind_at(i)->title) == 0)
            fail_msg("%s: the title of %s is English", lang, game_kind_at(i)->name);
    assert_string_equal(view_kind_title("Friday night"), "Friday night");
    /* every reason of the contract a player may meet: its own sentence */
    static const char *const reasons[] = {
        "BAD_REQUEST", "WRONG_STATE", "NOT_PERMITTED", "LIMIT_REACHED", "GAME_NOT_STARTED",
        "GAME_ENDED", "OBSERVER", "NO_OFFER", "OFFER_PENDING", "UNKNOWN_TOKEN", "MUTED"};
    for (size_t i = 0; i < sizeof reasons / sizeof reasons[0]; i++)
        if (!view_refusal(reasons[i]))
            fail_msg("%s: no sentence for %s", lang, reasons[i]);
    unsetenv("LANGUAGE");
    setlocale(LC_ALL, "");
}

/* Every reason code the agent hands on (why a game ended, a seat left, a
 * player departed, a move was refused before sending), said by the view
 * from the code in Filipino and Indonesian: never the service's or the
 * engine's English ("xyzzy") but for a code the view does not know; in
 * English, the service's own words (English too, and more precise). */
enum { MAX_REASONS = 64 };
static int reason_sentences(char out[][256])
{
    int n = 0;
    agent_model m = model;
    snprintf(m.end_reason, sizeof m.end_reason, "xyzzy");
    snprintf(m.end_who, sizeof m.end_who, "bob");
    snprintf(m.end_detail, sizeof m.end_detail, "cheating");
    for (int why = AGENT_END_FINISHED; why <= AGENT_END_NOBODY_LEFT + 1; why++)
        for (int out_why = 0; out_why <= (why == AGENT_END_PLAYER_OUT ? AGENT_OUT_CLAIMED + 1 : 0);
             out_why++) {
            m.end_why = why;
            m.end_out_why = out_why;
            char buf[256];
            snprintf(out[n++], 256, "%s", view_end_reason(&m, buf, sizeof buf));
        }
    agent_msg msg;
    memset(&msg, 0, sizeof msg);
    snprintf(msg.text, sizeof msg.text, "xyzzy");
    for (int why = 1; why <= AGENT_DEPART_ENDED_BY_OPERATOR + 1; why++) {
        msg.why = why;
        snprintf(out[n++], 256, "%s", view_depart_words(&msg));
    }
    for (int why = 1; why <= AGENT_OUT_CLAIMED + 1; why++)
        view_out_words(why, "bob", "xyzzy", out[n++], 256);
    static const int codes[] = {AGENT_MOVE_OBSERVING, AGENT_MOVE_NOT_STARTED,
                                AGENT_MOVE_GAME_OVER, AGENT_MOVE_THEIR_TURN, GAME_E_OVER,
                                GAME_E_TURN, GAME_E_RANGE, GAME_E_HOME, GAME_E_EMPTY,
                                GAME_E_OCCUPIED, GAME_E_ILLEGAL, 99};
    for (size_t i = 0; i < sizeof codes / sizeof codes[0]; i++) {
        char buf[256];
        snprintf(out[n++], 256, "%s", view_move_refusal(&m, codes[i], 3, "xyzzy", buf, sizeof buf));
    }
    assert_true(n <= MAX_REASONS);
    return n;
}

/* The codes that are one past the last known (and 99): the service's words. */
static bool unknown_code(const char *english)
{
    return strstr(english, "xyzzy") != NULL;
}

static void reasons_from_codes(void **state)
{
    (void)state;
    static char english[MAX_REASONS][256], other[MAX_REASONS][256];
    unsetenv("LANGUAGE");
    setlocale(LC_ALL, "");
    int n = reason_sentences(english);
    for (int i = 0; i < n; i++)             /* English: the service's words */
        assert_true(unknown_code(english[i]));
    for (const char *lang = "fil"; lang; lang = strcmp(lang, "fil") == 0 ? "id" : NULL) {
        setenv("LANGUAGE", lang, 1);
        setlocale(LC_ALL, "");
        assert_int_equal(reason_sentences(other), n);
        int unknown = 0;
        for (int i = 0; i < n; i++)
            unknown += unknown_code(other[i]);
        /* one past the last of EndReason, OutReason (within PLAYER_OUT and
         * alone), DepartReason, and 99 as a move's: six; the rest from codes */
        if (unknown != 6)
            for (int i = 0; i < n; i++)
                print_message("%s: %s\n", lang, other[i]);
        assert_int_equal(unknown, 6);
    }
    unsetenv("LANGUAGE");
    setlocale(LC_ALL, "");
}

static void translated_fil(void **state)
{
    (void)state;
    translated("fil");
}

static void translated_id(void **state)
{
    (void)state;
    translated("id");
}

int main(void)
{
    setenv("LANG", "C.UTF-8", 1);
    unsetenv("LC_ALL");
    unsetenv("LC_MESSAGES");
    unsetenv("LANGUAGE");
    view_locale_init();
    set_up_model();
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(every_kind_has_a_sentence),
        cmocka_unit_test(translated_fil),
        cmocka_unit_test(translated_id),
        cmocka_unit_test(reasons_from_codes),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
