/*
 * games.h — the rules engines: one interface, a table of functions per kind.
 *
 * Pure code: no I/O, no threads, no allocation. A game_state is a plain value
 * of fixed size that may be copied with `=` or memcpy (the bot searches copies;
 * the agent replays the service's moves on its own copy to check them).
 * Every function is safe to call from any thread on states the caller owns.
 *
 * Numbering. Seats are 0..seats-1 in the game's own numbering. A move is an
 * int whose meaning depends on the kind's layout:
 *   GAME_LAYOUT_MANCALA: the cup number 0..cups-1 counted from the mover's left;
 *   GAME_LAYOUT_GRID:    a cell index (see docs/rules.md for each kind).
 * Cells (game_cell) are the whole board: for mancala kinds, seat s's cup c is
 * cell s*(cups+1)+c and its home is cell s*(cups+1)+cups, and the value is a
 * stone count; for grid kinds the value is 0 (empty) or seat+1.
 */
#ifndef SUNGKA_GAMES_H
#define SUNGKA_GAMES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define GAME_MAX_SEATS   6
#define GAME_MAX_OPTIONS 8
#define GAME_MAX_CELLS   4096     /* tic-tac-toe 8^4 */
#define GAME_MAX_MOVES   4096
#define GAME_ERR_LEN     160      /* enough for any error sentence */
#define GAME_RELAY_LIMIT 100000   /* docs/rules.md: stones sown in one turn */
#define GAME_PRIV_WORDS  16       /* kind-private words in a state (reversi 16x16: 2 x 256 bits) */

/* Errors: 0 is success, negatives say what was wrong. */
typedef enum game_error {
    GAME_OK = 0,
    GAME_E_OPTION = -1,       /* unknown option or value out of range */
    GAME_E_RANGE = -2,        /* move outside the board / cup numbers */
    GAME_E_HOME = -3,         /* a home (store) is not a move */
    GAME_E_EMPTY = -4,        /* the cup is empty */
    GAME_E_OCCUPIED = -5,     /* the cell is taken */
    GAME_E_ILLEGAL = -6,      /* otherwise not a legal move here */
    GAME_E_TURN = -7,         /* not that seat's turn */
    GAME_E_OVER = -8,         /* the game is over */
} game_error;

typedef enum game_layout {
    GAME_LAYOUT_MANCALA = 0,
    GAME_LAYOUT_GRID = 1,
} game_layout;

/* Which picture a view draws for a kind: views choose by this, never by a
 * kind's name, so a new kind that looks like an old one needs no view code. */
typedef enum game_drawing {
    GAME_DRAW_MANCALA = 0,    /* cups in rows, a home at each row's end */
    GAME_DRAW_DISCS = 1,      /* one square board of discs; columns a.. from the
                               * left, rows 1.. from the top (reversi) */
    GAME_DRAW_SLICES = 2,     /* a d-dimensional grid as 2D slices of marks */
} game_drawing;

/* One option a kind accepts, with its range and default: the one
 * description that parses and checks the option, lists it in --help, and
 * tells a client what it may ask for (Register.ListKinds). Every option is an
 * integer. A kind's option named "players", when it has one, is its number
 * of seats (game_kind_seats). */
typedef struct game_option_spec {
    const char *name;         /* "players", "cups", ... */
    int min, max, def;
    const char *help;         /* short sentence for --help and errors */
    int step;                 /* 0 or 1: every integer of min..max; n > 1: only
                               * min, min+n, ... (reversi's even sizes) */
} game_option_spec;

/* Option values for one kind, in the order of its specs. */
typedef struct game_options {
    int n;
    int value[GAME_MAX_OPTIONS];
} game_options;

/* Moves that are not a cell: negative numbers, the same for every kind that
 * offers them, written as a word ("swap"). A kind lists the ones it may
 * offer in its table (named_moves); game_legal_moves includes one when it is
 * legal (it sorts first: it is below 0), game_format_move and game_parse_move
 * write and read its word, and a view offers a button for each that
 * game_check accepts, with no knowledge of any kind. */
#define GAME_MOVE_SWAP (-2)   /* the pie rule: take the first turn's position as
                               * your own (docs/rules.md §9) */

typedef struct game_named_move {
    int move;                 /* GAME_MOVE_SWAP; never a cell number */
    const char *name;         /* the word players write: "swap" */
    const char *help;         /* a short sentence for help texts and buttons */
} game_named_move;

typedef struct game_kind game_kind;

/* The state of one game. Treat the fields as read-only outside games/ and use
 * the accessors; the layout may change. */
typedef struct game_state {
    const game_kind *kind;
    game_options opts;
    uint8_t seats;
    uint8_t layout;           /* game_layout */
    int8_t to_move;           /* seat to move, -1 when over */
    bool over;
    uint8_t out;              /* seats out of the game (bit s: seat s), game_retire */
    uint16_t cups;            /* mancala: cups per seat */
    uint16_t size, dims;      /* grid: side and dimensions */
    uint16_t n_cells;
    /* A kind's own fast representation (bitboards, counters), kept in step
     * with cells[] by the kind; meaningless to everyone else. */
    uint64_t priv[GAME_PRIV_WORDS];
    int16_t cells[GAME_MAX_CELLS];
} game_state;

/* What a move did, for animation and announcements. Steps beyond
 * GAME_MAX_STEPS are dropped (truncated = true); the final board is always in
 * the state itself. */
#define GAME_MAX_STEPS 1024
typedef struct game_step {
    int16_t cell;             /* which cell changed */
    int16_t value;            /* its value after the change */
} game_step;

typedef struct game_result {
    int n_steps;
    bool truncated;
    game_step steps[GAME_MAX_STEPS];
    int8_t next;              /* seat to move next, -1 when over */
    bool extra_turn;          /* the mover moves again */
    int n_passed;             /* seats skipped because they could not move, in
                                 order (a mancala mover who earned an extra turn
                                 with an empty row comes first); 0 when the move
                                 ended the game */
    int8_t passed[GAME_MAX_SEATS];
    int captured;             /* stones or discs taken by this move (sungka:
                                 the opposing cup's stones, not the capturing
                                 stone itself) */
    bool relay_limit_hit;     /* docs/rules.md guard against endless turns */
} game_result;

/* The table each kind fills in. */
struct game_kind {
    const char *name;                 /* "sungka" */
    const char *title;                /* "Sungka (Filipino mancala)" */
    game_layout layout;
    int n_options;
    const game_option_spec *options;
    /* opts are already validated against the specs. */
    int (*init)(game_state *st, const game_options *opts);
    /* Check a move by the seat to move; 0 or a game_error with a sentence. */
    int (*check)(const game_state *st, int move, char *err, size_t errlen);
    /* Apply a checked move. Clears *res first; res may be NULL. */
    void (*apply)(game_state *st, int move, game_result *res);
    /* Every legal move of the seat to move, ascending; returns the count. */
    int (*legal_moves)(const game_state *st, int *moves, int max);
    /* Per-seat scores into scores[0..seats-1]. */
    void (*scores)(const game_state *st, int *scores);
    /* Optional (may be NULL): rebuild priv[] from cells[] after game_load,
     * which has set cells, to_move and over before calling it. */
    void (*loaded)(game_state *st);
    /* Optional (may be NULL): rules on option values beyond each spec's
     * min..max (reversi: size must be even). Called by game_options_set /
     * game_options_parse with the options as they would be after the change
     * (so judge each value on its own: options are set one at a time) and by
     * game_new; GAME_OK, or GAME_E_OPTION with a sentence naming the option. */
    int (*check_options)(const game_options *opts, char *err, size_t errlen);

    /* --- what views ask about a kind --- */
    game_drawing drawing;
    const char *marks;                /* grid kinds: one mark per seat ("XO") */
    const char *const *colours;       /* optional: each seat's colour name, or NULL */
    /* Optional: a move as players write it ("d3"); NULL: its number. Called
     * with a move in 0..n_cells-1 only. */
    void (*format_move)(const game_state *st, int move, char *buf, size_t len);
    bool run_together;                /* transcript: moves written one after another
                                       * with no separator (reversi: "f5d6c3") */
    /* Optional: read a move as players write it (besides a plain number,
     * which game_parse_move reads for every kind); 0 and *move, or -1. */
    int (*parse_move)(const game_state *st, const char *text, int *move);
    /* Optional: the moves that are not a cell this kind may offer (whether
     * one is legal now is game_check's answer); NULL when none. */
    int n_named_moves;
    const game_named_move *named_moves;
};

/* --- the registry of kinds --- */

int game_kind_count(void);
const game_kind *game_kind_at(int i);
/* NULL when no kind has that name. */
const game_kind *game_kind_find(const char *name);

/* --- options --- */

/* The seats a game of this kind may have: its "players" option's range, or
 * 2..2 for a kind without one. */
void game_kind_seats(const game_kind *kind, int *min_seats, int *max_seats);

/* What a cell of BoardState holds for this kind and how cells are numbered,
 * in a sentence (by its drawing: the kinds drawn alike number alike). */
const char *game_kind_cells_help(const game_kind *kind);

/* Whether value is one of spec's values (in range, and on its step). */
bool game_option_allows(const game_option_spec *spec, int value);

/* The defaults of a kind. */
void game_options_default(const game_kind *kind, game_options *out);

/* Set option `name` to `value`: GAME_OK, or GAME_E_OPTION with a sentence
 * naming the option and its range ("cups must be 3..12, not 40"). opts whose
 * n is not the kind's (e.g. zeroed) are first reset to the defaults. On error
 * opts is unchanged. err may be NULL (errlen 0) everywhere in this header. */
int game_options_set(const game_kind *kind, game_options *opts, const char *name,
                     int value, char *err, size_t errlen);

/* Parse "name=value" (e.g. "cups=7"); same errors as game_options_set. */
int game_options_parse(const game_kind *kind, game_options *opts, const char *assignment,
                       char *err, size_t errlen);

/* Value of option `name`, or `fallback` when the kind has no such option. */
int game_option(const game_kind *kind, const game_options *opts, const char *name,
                int fallback);

/* --- playing --- */

/* Start a game: validates opts (GAME_E_OPTION with a sentence) and sets up the
 * initial position. opts NULL means the kind's defaults. */
int game_new(game_state *st, const game_kind *kind, const game_options *opts,
             char *err, size_t errlen);

/* Validate a move by `seat`: GAME_OK or a game_error with a sentence such as
 * "cup 9 is out of range 0..5" or "it is seat 1's turn". Changes nothing. */
int game_check(const game_state *st, int seat, int move, char *err, size_t errlen);

/* Check and apply a move by `seat`. On error nothing changes. `res` may be NULL. */
int game_play(game_state *st, int seat, int move, game_result *res, char *err,
              size_t errlen);

/* Take `seat` out of a running game (it resigned or its time ran out):
 * docs/rules.md "Leaving a game" says what happens to its stones or marks —
 * they stay where they are and its turns are skipped. When one seat is left
 * in, the game is over and that seat wins; when it was the seat's turn, the
 * turn passes to the next seat in that can move (res, when not NULL, gets
 * the seats passed and the next seat, as a move's result would; no steps).
 * GAME_E_OVER when the game is over, GAME_E_RANGE for a seat that is not
 * one or is already out. */
int game_retire(game_state *st, int seat, game_result *res);
static inline bool game_is_out(const game_state *st, int seat)
{
    return seat >= 0 && seat < GAME_MAX_SEATS && (st->out >> seat) & 1;
}

/* Legal moves of the seat to move (none when over), ascending; returns the
 * count stored, at most max (GAME_MAX_MOVES always suffices). */
int game_legal_moves(const game_state *st, int *moves, int max);

static inline int game_seats(const game_state *st) { return st->seats; }
static inline int game_to_move(const game_state *st) { return st->over ? -1 : st->to_move; }
static inline bool game_is_over(const game_state *st) { return st->over; }
static inline int game_cell_count(const game_state *st) { return st->n_cells; }
static inline int game_cell(const game_state *st, int i) { return st->cells[i]; }

/* Per-seat scores (home counts, discs...). */
void game_scores(const game_state *st, int scores[GAME_MAX_SEATS]);

/* Winners of a finished game: fills seats[] with every seat still in the
 * game (game_retire) sharing the best score among them and returns the
 * count (several on a tie among some seats). A draw — every seat in and
 * equal, or a full tic-tac-toe board with no line — has no winner and
 * returns 0; so does a game still running. With seats out, the seats left
 * in beat them whatever the scores: a tie among those left is their shared
 * win. */
int game_winners(const game_state *st, int seats[GAME_MAX_SEATS]);

/* --- naming and drawing, for views --- */

/* The moves that are not a cell the kind of st may offer (named_moves of its
 * table): the count, and the i-th (NULL outside 0..count-1). */
int game_named_move_count(const game_state *st);
const game_named_move *game_named_move_at(const game_state *st, int i);

/* A move as players write it: a cup or cell number, "d3" in reversi, the
 * word of a named move ("swap"). */
void game_format_move(const game_state *st, int move, char *buf, size_t len);

/* A whole game written down for export (docs/rules.md, "Transcripts"):
 * the kind's own transcript when it has one — reversi's is the standard
 * Othello one, every move's cell run together ("f5d6c3", passes left out)
 * — or else one line per move, "PLY SEAT MOVE" ("1 0 3"). The moves are
 * replayed from the start with opts, so an illegal one stops it: -1 with
 * that move's number in *bad (from 1); else the length written (the text
 * is cut to fit len, always terminated). */
int game_transcript(const game_kind *kind, const game_options *opts, const int *seats,
                    const int *moves, int n, char *buf, size_t len, int *bad);

/* The moves of a transcript that game_transcript wrote (text: the lines
 * after its "# " header), replayed from the start with opts: at most max
 * moves into seats[] and moves[], their count into *n. 0, or -1 with a
 * sentence naming the first move or line that is not one. */
int game_read_transcript(const game_kind *kind, const game_options *opts, const char *text,
                         int *seats, int *moves, int max, int *n /* OUT */, char *err,
                         size_t errlen);

/* A move as a player typed it: a number for every kind, the word of one of
 * the kind's named moves (any case), or the kind's own notation ("d3";
 * tic-tac-toe "x,y,z"). 0 and *move, or -1 when it is none of these (a
 * number out of range is still a number: game_check says so). */
int game_parse_move(const game_state *st, const char *text, int *move);

static inline game_drawing game_draw_style(const game_state *st) { return st->kind->drawing; }

/* The mark a grid kind draws for seat ('X', 'O', ...), or '?' when it has none. */
char game_seat_mark(const game_state *st, int seat);

/* A seat's colour name ("black"), or NULL when the kind has no colours. */
const char *game_seat_colour(const game_state *st, int seat);

/* Mancala helpers: cell of seat's cup / home. */
static inline int game_mancala_cup(const game_state *st, int seat, int cup)
{
    return seat * (st->cups + 1) + cup;
}
static inline int game_mancala_home(const game_state *st, int seat)
{
    return seat * (st->cups + 1) + st->cups;
}

/* Replace the cells and turn of a state (the agent loads a snapshot the
 * service sent). Returns GAME_E_RANGE if n_cells or a value does not fit the
 * kind's board; the state is unchanged then. st must come from game_new (it
 * gives the kind, options and cell count). to_move must be a seat, or -1 with
 * over. Mancala: each value 0..32767 and their total too (so no home can
 * overflow); grid: 0..seats. The position is taken as given (not normalised:
 * a seat to move with an empty row is not passed). */
int game_load(game_state *st, const int *cells, int n_cells, int to_move, bool over);

#ifdef __cplusplus
}
#endif

#endif /* SUNGKA_GAMES_H */
