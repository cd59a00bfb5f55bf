/*
 * games.c — the kind-independent half of the rules interface: the registry of
 * kinds, options (defaults, validation, "name=value" parsing), and the checks
 * every kind shares (game over, whose turn, loading a snapshot) before the
 * kind's own table takes over. No I/O and no allocation.
 */
#include "games_internal.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* --- the registry --- */

#define GAME_KIND_ENTRY(k) &k,
static const game_kind *const kinds[] = {GAME_KIND_LIST(GAME_KIND_ENTRY)};
#undef GAME_KIND_ENTRY

int game_kind_count(void)
{
    return (int)(sizeof kinds / sizeof kinds[0]);
}

const game_kind *game_kind_at(int i)
{
    if (i < 0 || i >= game_kind_count())
        return NULL;
    return kinds[i];
}

const game_kind *game_kind_find(const char *name)
{
    if (!name)
        return NULL;
    for (int i = 0; i < game_kind_count(); i++)
        if (strcmp(kinds[i]->name, name) == 0)
            return kinds[i];
    return NULL;
}

int game__fail(int code, char *err, size_t errlen, const char *fmt, ...)
{
    if (err && errlen > 0) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(err, errlen, fmt, ap);
        va_end(ap);
    }
    return code;
}

/* --- options --- */

static int option_index(const game_kind *kind, const char *name, size_t len)
{
    for (int i = 0; i < kind->n_options; i++)
        if (strlen(kind->options[i].name) == len &&
            strncmp(kind->options[i].name, name, len) == 0)
            return i;
    return -1;
}

/* "sungka has no option 'size' (options: players, cups, stones)" */
static int fail_unknown_option(const game_kind *kind, const char *name, size_t len,
                               char *err, size_t errlen)
{
    char list[GAME_ERR_LEN] = "";
    size_t used = 0;
    for (int i = 0; i < kind->n_options && used < sizeof list; i++) {
        int w = snprintf(list + used, sizeof list - used, "%s%s", i ? ", " : "",
                         kind->options[i].name);
        if (w < 0)
            break;
        used += (size_t)w;
    }
    if (kind->n_options == 0)
        return game__fail(GAME_E_OPTION, err, errlen, "%s takes no options, not '%.*s'",
                          kind->name, (int)(len > 40 ? 40 : len), name);
    return game__fail(GAME_E_OPTION, err, errlen, "%s has no option '%.*s' (options: %s)",
                      kind->name, (int)(len > 40 ? 40 : len), name, list);
}

static int fail_out_of_range(const game_option_spec *spec, const char *value, char *err,
                             size_t errlen)
{
    if (spec->step > 1)
        return game__fail(GAME_E_OPTION, err, errlen, "%s must be %d..%d in steps of %d, "
                          "not %.40s", spec->name, spec->min, spec->max, spec->step, value);
    return game__fail(GAME_E_OPTION, err, errlen, "%s must be %d..%d, not %.40s", spec->name,
                      spec->min, spec->max, value);
}

bool game_option_allows(const game_option_spec *spec, int value)
{
    if (value < spec->min || value > spec->max)
        return false;
    return spec->step <= 1 || (value - spec->min) % spec->step == 0;
}

void game_kind_seats(const game_kind *kind, int *min_seats, int *max_seats)
{
    *min_seats = *max_seats = 2;
    int i = kind ? option_index(kind, "players", strlen("players")) : -1;
    if (i >= 0) {
        *min_seats = kind->options[i].min;
        *max_seats = kind->options[i].max;
    }
}

/* Indexed by game_drawing: the kinds drawn alike number their cells alike. */
static const char *const cells_help[] = {
    [GAME_DRAW_MANCALA] = "a stone count; seat s's cup c (counted from the seat's left) is "
                          "cell s*(cups+1)+c, and its home is cell s*(cups+1)+cups",
    [GAME_DRAW_DISCS] = "0 empty, 1 a disc of seat 0 (black), 2 a disc of seat 1 (white); "
                        "cell y*size+x, x the column from the left (a..), y the row from "
                        "the top (1..)",
    [GAME_DRAW_SLICES] = "0 empty, else the number of the seat whose mark it is plus 1; cell "
                         "x + y*size + z*size^2 + w*size^3, one coordinate per dimension",
};

const char *game_kind_cells_help(const game_kind *kind)
{
    if (!kind || (size_t)kind->drawing >= sizeof cells_help / sizeof cells_help[0])
        return "";
    return cells_help[kind->drawing];
}

void game_options_default(const game_kind *kind, game_options *out)
{
    memset(out, 0, sizeof *out);
    if (!kind)
        return;
    out->n = kind->n_options;
    for (int i = 0; i < kind->n_options && i < GAME_MAX_OPTIONS; i++)
        out->value[i] = kind->options[i].def;
}

/* Validate every value of opts against the kind's specs. */
static int options_validate(const game_kind *kind, const game_options *opts, char *err,
                            size_t errlen)
{
    if (opts->n != kind->n_options)
        return game__fail(GAME_E_OPTION, err, errlen,
                          "%s takes %d option values, not %d (start from the defaults)",
                          kind->name, kind->n_options, opts->n);
    for (int i = 0; i < kind->n_options; i++) {
        const game_option_spec *spec = &kind->options[i];
        int v = opts->value[i];
        if (!game_option_allows(spec, v)) {
            char text[16];
            snprintf(text, sizeof text, "%d", v);
            return fail_out_of_range(spec, text, err, errlen);
        }
    }
    if (kind->check_options)
        return kind->check_options(opts, err, errlen);
    return GAME_OK;
}

static int options_set_at(const game_kind *kind, game_options *opts, int i, int value,
                          char *err, size_t errlen)
{
    const game_option_spec *spec = &kind->options[i];
    if (!game_option_allows(spec, value)) {
        char text[16];
        snprintf(text, sizeof text, "%d", value);
        return fail_out_of_range(spec, text, err, errlen);
    }
    /* opts that do not belong to this kind (e.g. zeroed) start from the
     * defaults, so that setting one option never leaves others at 0. The
     * change is made on a copy so that a refusal leaves opts unchanged. */
    game_options next = *opts;
    if (next.n != kind->n_options)
        game_options_default(kind, &next);
    next.value[i] = value;
    if (kind->check_options) {
        int rc = kind->check_options(&next, err, errlen);
        if (rc != GAME_OK)
            return rc;
    }
    *opts = next;
    return GAME_OK;
}

int game_options_set(const game_kind *kind, game_options *opts, const char *name, int value,
                     char *err, size_t errlen)
{
    if (!kind || !opts || !name)
        return game__fail(GAME_E_OPTION, err, errlen, "no game kind or option given");
    int i = option_index(kind, name, strlen(name));
    if (i < 0)
        return fail_unknown_option(kind, name, strlen(name), err, errlen);
    return options_set_at(kind, opts, i, value, err, errlen);
}

int game_options_parse(const game_kind *kind, game_options *opts, const char *assignment,
                       char *err, size_t errlen)
{
    if (!kind || !opts || !assignment)
        return game__fail(GAME_E_OPTION, err, errlen, "no game kind or option given");
    const char *eq = strchr(assignment, '=');
    if (!eq || eq == assignment)
        return game__fail(GAME_E_OPTION, err, errlen,
                          "options are written name=value (e.g. %s=%d), not '%.40s'",
                          kind->n_options ? kind->options[0].name : "name",
                          kind->n_options ? kind->options[0].def : 0, assignment);
    size_t len = (size_t)(eq - assignment);
    int i = option_index(kind, assignment, len);
    if (i < 0)
        return fail_unknown_option(kind, assignment, len, err, errlen);

    /* Strict: an optional sign and digits, nothing else (strtol alone would
     * accept leading blanks, trailing junk and clamp on overflow). */
    const game_option_spec *spec = &kind->options[i];
    const char *text = eq + 1;
    const char *p = text;
    if (*p == '+' || *p == '-')
        p++;
    bool digits = *p != '\0';
    for (; *p; p++)
        if (*p < '0' || *p > '9')
            digits = false;
    if (!digits)
        return game__fail(GAME_E_OPTION, err, errlen, "%s must be an integer %d..%d, not '%.40s'",
                          spec->name, spec->min, spec->max, text);
    errno = 0;
    long v = strtol(text, NULL, 10);
    if (errno == ERANGE || v < INT_MIN || v > INT_MAX)
        return fail_out_of_range(spec, text, err, errlen);
    return options_set_at(kind, opts, i, (int)v, err, errlen);
}

int game_option(const game_kind *kind, const game_options *opts, const char *name, int fallback)
{
    if (!kind || !opts || !name)
        return fallback;
    int i = option_index(kind, name, strlen(name));
    if (i < 0 || i >= opts->n)
        return fallback;
    return opts->value[i];
}

/* --- playing --- */

int game_new(game_state *st, const game_kind *kind, const game_options *opts, char *err,
             size_t errlen)
{
    if (!st || !kind)
        return game__fail(GAME_E_OPTION, err, errlen, "no game kind given");
    game_options defaults;
    if (!opts) {
        game_options_default(kind, &defaults);
        opts = &defaults;
    }
    int rc = options_validate(kind, opts, err, errlen);
    if (rc != GAME_OK)
        return rc;
    /* Zero everything so that copies of a state compare equal with memcmp and
     * unused cells never leak old values. */
    memset(st, 0, sizeof *st);
    st->kind = kind;
    st->opts = *opts;
    st->layout = (uint8_t)kind->layout;
    return kind->init(st, opts);
}

int game_check(const game_state *st, int seat, int move, char *err, size_t errlen)
{
    if (!st || !st->kind)
        return game__fail(GAME_E_ILLEGAL, err, errlen, "no game");
    if (st->over)
        return game__fail(GAME_E_OVER, err, errlen, "the game is over");
    if (game_is_out(st, seat))
        return game__fail(GAME_E_TURN, err, errlen, "seat %d is out of the game", seat);
    if (seat != st->to_move)
        return game__fail(GAME_E_TURN, err, errlen, "it is seat %d's turn", st->to_move);
    return st->kind->check(st, move, err, errlen);
}

static int seats_in(const game_state *st)
{
    int n = 0;
    for (int s = 0; s < st->seats; s++)
        n += !game_is_out(st, s);
    return n;
}

/* The turn of a seat that is out goes to the next seat in that can move;
 * the seats in that cannot are passed (as the kinds pass them). When none
 * can, the game is over. The kinds know nothing of seats out, so each
 * candidate is tried by setting the turn and asking for its moves (and
 * letting the kind refresh what it keeps about the seat to move). */
static void pass_turn_on(game_state *st, game_result *res)
{
    int from = st->to_move;
    for (int i = 1; i < st->seats; i++) {
        int s = (from + i) % st->seats;
        if (game_is_out(st, s))
            continue;
        st->to_move = (int8_t)s;
        if (st->kind->loaded)
            st->kind->loaded(st);
        int moves[GAME_MAX_MOVES];
        if (st->kind->legal_moves(st, moves, GAME_MAX_MOVES) > 0) {
            if (res)
                res->next = (int8_t)s;
            return;
        }
        if (res && res->n_passed < GAME_MAX_SEATS)
            res->passed[res->n_passed++] = (int8_t)s;
    }
    st->over = true;
    st->to_move = -1;
    if (res)
        res->next = -1;
}

int game_play(game_state *st, int seat, int move, game_result *res, char *err, size_t errlen)
{
    int rc = game_check(st, seat, move, err, errlen);
    if (rc != GAME_OK)
        return rc;
    st->kind->apply(st, move, res);
    if (!st->over && game_is_out(st, st->to_move))
        pass_turn_on(st, res);
    return GAME_OK;
}

int game_retire(game_state *st, int seat, game_result *res)
{
    if (!st || !st->kind)
        return GAME_E_RANGE;
    if (st->over)
        return GAME_E_OVER;
    if (seat < 0 || seat >= st->seats || game_is_out(st, seat))
        return GAME_E_RANGE;
    if (res) {
        memset(res, 0, sizeof *res);
        res->next = st->to_move;
    }
    st->out |= (uint8_t)(1u << seat);
    if (seats_in(st) <= 1) {
        st->over = true;
        st->to_move = -1;
        if (res)
            res->next = -1;
    } else if (st->to_move == seat) {
        pass_turn_on(st, res);
    }
    return GAME_OK;
}

int game_legal_moves(const game_state *st, int *moves, int max)
{
    if (!st || !st->kind || st->over || !moves || max <= 0)
        return 0;
    return st->kind->legal_moves(st, moves, max);
}

void game_scores(const game_state *st, int scores[GAME_MAX_SEATS])
{
    for (int i = 0; i < GAME_MAX_SEATS; i++)
        scores[i] = 0;
    if (st && st->kind)
        st->kind->scores(st, scores);
}

int game_winners(const game_state *st, int seats[GAME_MAX_SEATS])
{
    if (!st || !st->kind || !st->over)
        return 0;
    int scores[GAME_MAX_SEATS];
    game_scores(st, scores);
    bool any = false;
    int best = 0;
    for (int s = 0; s < st->seats; s++)
        if (!game_is_out(st, s) && (!any || scores[s] > best)) {
            best = scores[s];
            any = true;
        }
    int n = 0;
    for (int s = 0; s < st->seats; s++)
        if (!game_is_out(st, s) && scores[s] == best)
            seats[n++] = s;
    /* Every seat in and equal is a draw, not a win for all; with seats out,
     * those left beat them. */
    return n == st->seats ? 0 : n;
}

int game_load(game_state *st, const int *cells, int n_cells, int to_move, bool over)
{
    if (!st || !st->kind || (!cells && n_cells > 0))
        return GAME_E_RANGE;
    if (n_cells != st->n_cells)
        return GAME_E_RANGE;
    if (over ? to_move != -1 : (to_move < 0 || to_move >= st->seats))
        return GAME_E_RANGE;
    int max = st->layout == GAME_LAYOUT_GRID ? st->seats : INT16_MAX;
    long total = 0;
    for (int i = 0; i < n_cells; i++) {
        if (cells[i] < 0 || cells[i] > max)
            return GAME_E_RANGE;
        total += cells[i];
    }
    /* A mancala home may end up holding every stone: the total must fit a
     * cell too, or sowing could overflow int16. */
    if (st->layout == GAME_LAYOUT_MANCALA && total > INT16_MAX)
        return GAME_E_RANGE;
    for (int i = 0; i < n_cells; i++)
        st->cells[i] = (int16_t)cells[i];
    st->to_move = (int8_t)to_move;
    st->over = over;
    if (st->kind->loaded)
        st->kind->loaded(st);
    return GAME_OK;
}

/* --- naming and drawing --- */

int game_named_move_count(const game_state *st)
{
    return st && st->kind && st->kind->named_moves ? st->kind->n_named_moves : 0;
}

const game_named_move *game_named_move_at(const game_state *st, int i)
{
    if (i < 0 || i >= game_named_move_count(st))
        return NULL;
    return &st->kind->named_moves[i];
}

void game_format_move(const game_state *st, int move, char *buf, size_t len)
{
    for (int i = 0; i < game_named_move_count(st); i++)
        if (st->kind->named_moves[i].move == move) {
            snprintf(buf, len, "%s", st->kind->named_moves[i].name);
            return;
        }
    if (st->kind->format_move && move >= 0 && move < st->n_cells)
        st->kind->format_move(st, move, buf, len);
    else
        snprintf(buf, len, "%d", move);
}

int game_transcript(const game_kind *kind, const game_options *opts, const int *seats,
                    const int *moves, int n, char *buf, size_t len, int *bad)
{
    game_state st;
    size_t used = 0;
    if (len)
        buf[0] = '\0';
    if (game_new(&st, kind, opts, NULL, 0) != GAME_OK) {
        *bad = 0;
        return -1;
    }
    for (int i = 0; i < n; i++) {
        char move[32];
        game_format_move(&st, moves[i], move, sizeof move);
        if (game_play(&st, seats[i], moves[i], NULL, NULL, 0) != GAME_OK) {
            *bad = i + 1;
            return -1;
        }
        if (used < len)
            used += (size_t)(kind->run_together
                                 ? snprintf(buf + used, len - used, "%s", move)
                                 : snprintf(buf + used, len - used, "%d %d %s\n", i + 1,
                                            seats[i], move));
    }
    if (kind->run_together && used < len)
        used += (size_t)snprintf(buf + used, len - used, "\n");
    return (int)(used < len ? used : len - 1);
}

/* The next move word of a run-together transcript ("f5d6"): a letter and
 * the digits after it; 0 and its length, or -1 at the end. */
static int next_run_together(const char **p, char *word, size_t len)
{
    while (**p && isspace((unsigned char)**p))
        (*p)++;
    if (!**p)
        return -1;
    size_t n = 0;
    do {
        if (n + 1 < len)
            word[n++] = **p;
        (*p)++;
    } while (**p && isdigit((unsigned char)**p));
    word[n] = '\0';
    return 0;
}

int game_read_transcript(const game_kind *kind, const game_options *opts, const char *text,
                         int *seats, int *moves, int max, int *n, char *err, size_t errlen)
{
    game_state st;
    char why[GAME_ERR_LEN];
    *n = 0;
    if (game_new(&st, kind, opts, why, sizeof why) != GAME_OK)
        return game__fail(-1, err, errlen, "%s", why);
    const char *p = text;
    for (int line = 0;;) {
        char word[32];
        int ply = 0, seat = -1, move;
        if (kind->run_together) {
            if (next_run_together(&p, word, sizeof word) != 0)
                break;
            seat = game_to_move(&st);
        } else {
            while (*p == '\n')
                p++, line++;
            line++;
            if (!*p)
                break;
            const char *eol = strchr(p, '\n');
            size_t l = eol ? (size_t)(eol - p) : strlen(p);
            char buf[96];
            snprintf(buf, sizeof buf, "%.*s", (int)(l < sizeof buf ? l : sizeof buf - 1), p);
            p += l + (eol != NULL);
            if (sscanf(buf, "%d %d %31s", &ply, &seat, word) != 3 || ply != *n + 1)
                return game__fail(-1, err, errlen,
                                  "line %d is not \"%d SEAT MOVE\" (the move's number, the "
                                  "seat, the move)", line, *n + 1);
        }
        if (*n == max)
            return game__fail(-1, err, errlen, "more than %d moves", max);
        if (game_parse_move(&st, word, &move) != 0)
            return game__fail(-1, err, errlen, "move %d, '%s', is not a move of %s", *n + 1,
                              word, kind->name);
        if (game_play(&st, seat, move, NULL, why, sizeof why) != GAME_OK)
            return game__fail(-1, err, errlen, "move %d, '%s', is not legal: %s", *n + 1, word,
                              why);
        seats[*n] = seat;
        moves[*n] = move;
        (*n)++;
    }
    return 0;
}

int game_parse_move(const game_state *st, const char *text, int *move)
{
    char *end;
    errno = 0;
    long v = strtol(text, &end, 10);
    if (end != text && *end == '\0' && !errno && v >= INT_MIN && v <= INT_MAX) {
        *move = (int)v;
        return 0;
    }
    for (int i = 0; i < game_named_move_count(st); i++)
        if (strcasecmp(text, st->kind->named_moves[i].name) == 0) {
            *move = st->kind->named_moves[i].move;
            return 0;
        }
    return st->kind->parse_move ? st->kind->parse_move(st, text, move) : -1;
}

char game_seat_mark(const game_state *st, int seat)
{
    const char *marks = st->kind->marks;
    if (!marks || seat < 0 || (size_t)seat >= strlen(marks))
        return '?';
    return marks[seat];
}

const char *game_seat_colour(const game_state *st, int seat)
{
    if (!st->kind->colours || seat < 0 || seat >= st->seats)
        return NULL;
    return st->kind->colours[seat];
}
