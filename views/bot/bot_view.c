/*
 * bot_view.c — the bot view. The view thread waits on the agent's queue; when
 * one of our seats is to move it hands a copy of the position to a search
 * thread (games/search.h) and goes back to waiting. The search thread posts
 * its move through an eventfd; the view thread sends it only if the position
 * has not changed meanwhile (a service event can always come first). When the
 * game ends the search is stopped through its flag and joined, and the view
 * prints one line: the winners and the scores. In Kalah, at the levels that
 * solve endgames, a third thread gets the endgame table (from the XDG cache,
 * or built there once) and the searches use it as soon as it is there.
 */
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include "bot_view.h"
#include <stdatomic.h>

#include "endgame_cache.h"
#include "search.h"

typedef struct bot {
    agent *ag;
    FILE *out;
    int level, think_ms;
    game_search *search;
    /* Kalah's endgame table: got by tables_thread (get_tables), handed to
     * the search by the search thread once tables_ready says it is whole. */
    game_kalah_db kalah_db;
    pthread_t tables_thread;
    bool tables_started;       /* view thread only */
    int tables_cups;
    volatile int stop_tables;  /* the game is over: give up a build */
    atomic_bool tables_ready;
    bool tables_handed;        /* search thread only */
    int done_fd;               /* eventfd: the search thread finished */
    pthread_t thread;
    bool thinking;
    volatile int stop;         /* set to end a search early */
    game_state position;       /* what the search thread works on */
    unsigned version;          /* counts the events that change the position */
    unsigned position_version; /* `version` when the search started */
    int best;                  /* the search thread's answer, when found */
    bool found;                /* false: the search had no move (a named move
                                * such as GAME_MOVE_SWAP is negative) */
    bool sent;                 /* a move is on its way for position sent_version */
    unsigned sent_version;
    unsigned long moves;
} bot;

/* Kalah's endgame table for the board in hand: from the XDG cache, or built
 * there the first time on this machine (seconds, once; docs/bots.md). It is
 * got on a thread of its own, so that neither the view thread nor a search
 * waits for it: searches use it from the first move after it is ready. */
static void *get_tables(void *arg)
{
    bot *b = arg;
    char err[160];
    endgame_cache_info info;
    if (endgame_cache_kalah(b->tables_cups, ENDGAME_CACHE_KALAH_SEEDS, NULL, &b->stop_tables,
                            &b->kalah_db, &info, err, sizeof err) != 0) {
        if (!b->stop_tables)
            fprintf(stderr, "bot: %s\n", err);
        return NULL;
    }
    if (info.built)
        fprintf(stderr, "bot: built the Kalah endgame table in %.1f s%s%s\n", info.seconds,
                info.saved ? ", kept in " : " (not saved)", info.saved ? info.path : "");
    atomic_store(&b->tables_ready, true);
    return NULL;
}

/* Once per game, on the view thread: start getting the table, if the game
 * has one and the level uses it (levels that solve endgames, search.h). */
static void start_tables(bot *b, const game_state *st)
{
    if (b->tables_started || b->level < 7 || (b->tables_cups = game_kalah_db_cups(st)) == 0)
        return;
    b->tables_started = pthread_create(&b->tables_thread, NULL, get_tables, b) == 0;
}

static void *think(void *arg)
{
    bot *b = arg;
    if (!b->tables_handed && atomic_load(&b->tables_ready)) {
        game_search_set_kalah_db(b->search, &b->kalah_db);
        b->tables_handed = true;
    }
    game_search_limits lim = {
        .level = b->level,
        .time_ms = b->think_ms,
        .stop = &b->stop,
        .seed = (uint64_t)b->moves * 2654435761u + 1,
    };
    game_search_result res;
    b->found = game_search_best(b->search, &b->position, &lim, &res) == 0;
    b->best = b->found ? res.move : -1;
    uint64_t one = 1;
    ssize_t w = write(b->done_fd, &one, sizeof one);
    (void)w;
    return NULL;
}

static void finish_thinking(bot *b)
{
    if (!b->thinking)
        return;
    b->stop = 1;
    pthread_join(b->thread, NULL);
    uint64_t count;
    ssize_t r = read(b->done_fd, &count, sizeof count);
    (void)r;
    b->thinking = false;
}

/* Our seat to move and nothing in hand: start thinking. */
static void maybe_think(bot *b)
{
    const agent_model *m = agent_model_get(b->ag);
    if (b->thinking || m->status != AGENT_GAME_RUNNING || !m->have_state)
        return;
    if (!agent_holds_seat(b->ag, game_to_move(&m->state)))
        return;
    if (b->sent && b->sent_version == b->version)
        return;                       /* our move is on its way: wait for its event */
    start_tables(b, &m->state);
    b->position = m->state;
    b->position_version = b->version;
    b->stop = 0;
    b->best = -1;
    b->found = false;
    if (pthread_create(&b->thread, NULL, think, b) == 0)
        b->thinking = true;
}

/* The search is back: play its move if the position is still the same. */
static void search_done(bot *b)
{
    uint64_t count;
    ssize_t r = read(b->done_fd, &count, sizeof count);
    (void)r;
    pthread_join(b->thread, NULL);
    b->thinking = false;
    if (!b->found || b->version != b->position_version)
        return;                       /* stale: think again on the new position */
    char why[GAME_ERR_LEN];
    if (agent_check_move(b->ag, b->best, why, sizeof why) != 0) {
        fprintf(stderr, "bot: the search chose an illegal move %d: %s\n", b->best, why);
        return;
    }
    if (agent_move(b->ag, b->best) == 0) {
        b->sent = true;
        b->sent_version = b->version;
    }
    b->moves++;
}

static void print_result(bot *b, const agent_msg *msg)
{
    const agent_model *m = agent_model_get(b->ag);
    char buf[40];
    fprintf(b->out, "Result: %s.", msg->text);
    if (!msg->abandoned) {
        fprintf(b->out, " Scores:");
        for (int s = 0; s < msg->n_scores; s++)
            fprintf(b->out, "%s %s %d", s ? "," : "", agent_seat_name(m, s, buf, sizeof buf),
                    msg->scores[s]);
        fprintf(b->out, ".");
    }
    fputc('\n', b->out);
    fflush(b->out);
}

static int run(agent *ag, const view_io *io)
{
    if (!agent_in_game(ag)) {
        fprintf(stderr, "sungka-player: the bot needs a game: give --new, --any or --game\n");
        return 2;
    }
    bot b = {
        .ag = ag,
        .out = io->out,
        .level = io->level > 0 ? io->level : 5,
        .think_ms = io->think_ms > 0 ? io->think_ms : 1000,
    };
    b.search = game_search_new(0);
    b.done_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
    if (!b.search || b.done_fd < 0) {
        fprintf(stderr, "sungka-player: the bot cannot start: out of memory\n");
        game_search_free(b.search);
        return 1;
    }
    int status = -1;
    bool over = false;     /* the game ended; with io->stay we wait for a rematch */
    while (status < 0) {
        struct pollfd fds[2] = {{.fd = agent_fd(ag), .events = POLLIN},
                                {.fd = b.done_fd, .events = POLLIN}};
        if (poll(fds, 2, -1) < 0) {
            if (errno == EINTR)
                continue;
            status = 1;
            break;
        }
        if (fds[1].revents & POLLIN)
            search_done(&b);
        agent_msg *msg;
        while (status < 0 && (msg = agent_next(ag)) != NULL) {
            /* Turn and ping events do not change the position; these do. */
            if (msg->kind == AGENT_MSG_MOVED || msg->kind == AGENT_MSG_STARTED ||
                msg->kind == AGENT_MSG_SNAPSHOT)
                b.version++;
            if (msg->kind == AGENT_MSG_GAME_OVER) {
                print_result(&b, msg);
                over = true;
                /* A service's bot stays, so that a rematch can be played
                 * (the service accepts for it and seats a new bot in the
                 * new game); the game's end closes its stream. */
                if (!io->stay)
                    status = 0;
            } else if (msg->kind == AGENT_MSG_REMATCH_STARTED && over) {
                fprintf(b.out, "The rematch is game %s: its own bot plays it.\n", msg->text);
                status = 0;
            } else if (msg->kind == AGENT_MSG_DISCONNECTED) {
                fprintf(b.out, "Disconnected: %s\n", msg->text);
                status = over ? 0 : 1;
            } else if (msg->kind == AGENT_MSG_REFUSED) {
                fprintf(stderr, "bot: refused: %s\n", msg->text);
                b.sent = false;       /* think again (a refusal should not happen) */
            }
            agent_msg_free(msg);
        }
        if (status < 0)
            maybe_think(&b);
    }
    finish_thinking(&b);
    close(b.done_fd);
    b.stop_tables = 1;
    if (b.tables_started)
        pthread_join(b.tables_thread, NULL);
    game_search_free(b.search);
    endgame_cache_free(&b.kalah_db);
    agent_leave(ag);
    return status;
}

const view_ops view_bot = {
    .name = "bot",
    .summary = "a computer player (--level 1..10, --think MS per move)",
    .run = run,
    .auto_ready = true,
};
