/*
 * bench_gtp.c — the bot's reversi search as a minimal GTP engine, so that a
 * referee (bench/bench_grhino.py) can match it against another Othello
 * program that speaks GTP, such as Debian's gtp-rhino. Not a test and not
 * part of the product: it answers on stdin/stdout and calls games/search
 * directly, with one searcher for the whole session, allocated before the
 * first move is asked for (as the bot view does).
 *
 * Commands: protocol_version, name, version, known_command, list_commands,
 * boardsize (8 only), clear_board (the standard Othello start, rules.md §4),
 * play COLOUR VERTEX|pass, genmove COLOUR, final_score, showboard, quit.
 * Vertices are a1..h8, columns from the left and rows from the top, as in
 * rules.md and in gtp-rhino. Reversi has no pass move: passing happens by
 * itself, so "play C pass" is accepted only when it is not C's turn (the
 * rules have passed for C already, or the game is over) and refused when C
 * is to move, which means C has a legal move; genmove answers "pass" when
 * the colour asked for is not to move for that reason.
 * "play" and "genmove" for the colour that is not to move are refused, so a
 * referee that loses track of the turn hears about it at once.
 *
 * After each genmove a line "# depth D nodes N ms T" goes to stderr.
 *
 * Usage: sungka-bench-gtp [--level N] [--ms MS]   (10, 200)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "games.h"
#include "search.h"

typedef struct engine {
    game_state st;
    game_search *search;
    int level;
    int ms;
} engine;

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static int reset(engine *e)
{
    char err[GAME_ERR_LEN];
    return game_new(&e->st, game_kind_find("reversi"), NULL, err, sizeof err) == GAME_OK ? 0 : -1;
}

/* GTP colours: "b", "black", "w", "white" (any case); seat 0 is black. */
static int parse_colour(const char *s)
{
    if (!s)
        return -1;
    char c = (char)(s[0] | 0x20);
    return c == 'b' ? 0 : c == 'w' ? 1 : -1;
}

static int has_moves(const game_state *st, int seat)
{
    int moves[GAME_MAX_MOVES];
    return !game_is_over(st) && game_to_move(st) == seat && game_legal_moves(st, moves, GAME_MAX_MOVES) > 0;
}

static void reply(int ok, const char *text)
{
    printf("%c %s\n\n", ok ? '=' : '?', text ? text : "");
    fflush(stdout);
}

static void cmd_play(engine *e, char *colour, char *vertex)
{
    int seat = parse_colour(colour);
    if (seat < 0 || !vertex) {
        reply(0, "syntax error");
        return;
    }
    if (strcmp(vertex, "pass") == 0 || strcmp(vertex, "PASS") == 0) {
        /* Nothing to apply: the rules passed for that colour already. */
        reply(!has_moves(&e->st, seat), has_moves(&e->st, seat) ? "illegal move" : "");
        return;
    }
    int move;
    char err[GAME_ERR_LEN];
    if (game_parse_move(&e->st, vertex, &move) != 0) {
        reply(0, "invalid coordinate");
        return;
    }
    if (game_play(&e->st, seat, move, NULL, err, sizeof err) != GAME_OK) {
        reply(0, "illegal move");
        return;
    }
    reply(1, "");
}

static void cmd_genmove(engine *e, char *colour)
{
    int seat = parse_colour(colour);
    if (seat < 0) {
        reply(0, "syntax error");
        return;
    }
    if (!has_moves(&e->st, seat)) {
        reply(1, "pass");
        return;
    }
    game_search_limits lim = {.level = e->level, .time_ms = e->ms};
    game_search_result res;
    double t0 = now_ms();
    if (game_search_best(e->search, &e->st, &lim, &res) != 0) {
        reply(0, "no move");
        return;
    }
    double t = now_ms() - t0;
    char text[16], err[GAME_ERR_LEN];
    game_format_move(&e->st, res.move, text, sizeof text);
    if (game_play(&e->st, seat, res.move, NULL, err, sizeof err) != GAME_OK) {
        reply(0, err);
        return;
    }
    fprintf(stderr, "# depth %d nodes %lld ms %.0f\n", res.depth, res.nodes, t);
    reply(1, text);
}

static void cmd_final_score(engine *e)
{
    int sc[GAME_MAX_SEATS];
    char text[32];
    game_scores(&e->st, sc);
    if (sc[0] == sc[1])
        snprintf(text, sizeof text, "0");
    else
        snprintf(text, sizeof text, "%c+%d", sc[0] > sc[1] ? 'B' : 'W', abs(sc[0] - sc[1]));
    reply(1, text);
}

static void cmd_showboard(engine *e)
{
    char text[8 * 10 + 1];
    int k = 0;
    for (int y = 0; y < 8; y++) {
        text[k++] = '\n';
        for (int x = 0; x < 8; x++)
            text[k++] = ".XO"[game_cell(&e->st, y * 8 + x)];
    }
    text[k] = 0;
    reply(1, text);
}

static const char *const commands[] = {
    "protocol_version", "name", "version", "known_command", "list_commands", "boardsize",
    "clear_board", "play", "genmove", "final_score", "showboard", "quit",
};
#define N_COMMANDS (sizeof commands / sizeof commands[0])

int main(int argc, char **argv)
{
    engine e = {.level = 10, .ms = 200};
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--level") == 0 && i + 1 < argc)
            e.level = atoi(argv[++i]);
        else if (strcmp(argv[i], "--ms") == 0 && i + 1 < argc)
            e.ms = atoi(argv[++i]);
        else {
            fprintf(stderr, "usage: sungka-bench-gtp [--level N] [--ms MS]\n");
            return 2;
        }
    }
    e.search = game_search_new(0);
    if (!e.search || reset(&e) != 0) {
        fprintf(stderr, "sungka-bench-gtp: cannot start\n");
        return 1;
    }
    char line[256];
    while (fgets(line, sizeof line, stdin)) {
        char *save = NULL;
        char *cmd = strtok_r(line, " \t\r\n", &save);
        if (!cmd || cmd[0] == '#')
            continue;
        char *a1 = strtok_r(NULL, " \t\r\n", &save);
        char *a2 = strtok_r(NULL, " \t\r\n", &save);
        if (strcmp(cmd, "quit") == 0) {
            reply(1, "");
            break;
        } else if (strcmp(cmd, "protocol_version") == 0) {
            reply(1, "2");
        } else if (strcmp(cmd, "name") == 0) {
            reply(1, "sungka-bench-gtp");
        } else if (strcmp(cmd, "version") == 0) {
            reply(1, "1");
        } else if (strcmp(cmd, "known_command") == 0) {
            int known = 0;
            for (size_t i = 0; i < N_COMMANDS && a1; i++)
                known |= strcmp(a1, commands[i]) == 0;
            reply(1, known ? "true" : "false");
        } else if (strcmp(cmd, "list_commands") == 0) {
            char text[512] = "";
            for (size_t i = 0; i < N_COMMANDS; i++) {
                strcat(text, i ? "\n" : "");
                strcat(text, commands[i]);
            }
            reply(1, text);
        } else if (strcmp(cmd, "boardsize") == 0) {
            reply(a1 && atoi(a1) == 8, a1 && atoi(a1) == 8 ? "" : "unacceptable size");
        } else if (strcmp(cmd, "clear_board") == 0) {
            reply(reset(&e) == 0, "");
        } else if (strcmp(cmd, "play") == 0) {
            cmd_play(&e, a1, a2);
        } else if (strcmp(cmd, "genmove") == 0) {
            cmd_genmove(&e, a1);
        } else if (strcmp(cmd, "final_score") == 0) {
            cmd_final_score(&e);
        } else if (strcmp(cmd, "showboard") == 0) {
            cmd_showboard(&e);
        } else {
            reply(0, "unknown command");
        }
    }
    game_search_free(e.search);
    return 0;
}
