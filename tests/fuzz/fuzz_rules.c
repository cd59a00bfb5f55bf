/*
 * fuzz_rules.c — the rules engines (games.h) driven by arbitrary bytes.
 *
 * An input is read as a little program (any byte string is one; reads past
 * the end give zeros):
 *   kind        1 byte, modulo the number of kinds
 *   start       1 byte: bit 0 starts from zeroed options instead of the
 *               defaults (game_options_set must then reset to the defaults);
 *               the rest, modulo 9, is how many option assignments follow
 *   assignment  name choice (a spec's name, another kind's name, or junk) and
 *               a value (in range, at or past the bounds, or any int32)
 *   then up to MAX_OPS operations until the input runs out:
 *               play a legal move / play an arbitrary int as the seat to move /
 *               play an arbitrary int as an arbitrary seat / load a snapshot
 *               made from the current cells with some changed / load a
 *               snapshot made entirely of input bytes.
 *
 * What is checked, after every step (see check_state and play):
 *   - options: a refused assignment leaves the options unchanged and says
 *     why; an accepted one stores the value, within the spec's range; every
 *     name that is not the kind's is refused; game_new succeeds exactly when
 *     the options belong to the kind;
 *   - cells: mancala kinds non-negative with the total of stones conserved by
 *     every move (loading sets a new total); grid kinds 0..seats;
 *   - turns: a running game has a seat to move, and (unless the position came
 *     straight from game_load, which games.h says is not normalised) that
 *     seat has a legal move; a finished game has no legal moves and refuses
 *     every move with GAME_E_OVER;
 *   - legal moves: ascending, distinct, each accepted by game_check; on
 *     boards of up to 512 candidate moves every other candidate is refused
 *     (larger boards: a sample);
 *   - game_check changes nothing and agrees with game_play; a refused
 *     game_play changes nothing (memcmp of the used part of the state);
 *   - results: next == the seat to move; an untruncated list of steps,
 *     replayed over the cells before the move, gives the cells after it;
 *   - winners: none while running; a finished game's winners are distinct
 *     seats sharing the best score, and not every seat;
 *   - game_load refuses exactly the snapshots games.h says it refuses,
 *     leaving the state unchanged, and otherwise installs them as given.
 */
#include <limits.h>
#include <stdbool.h>
#include <string.h>

#include "fuzz.h"
#include "games.h"

#define MAX_OPS 600          /* operations per input (an input is mostly moves) */
#define EXHAUSTIVE_MAX 512   /* check every candidate move up to this many */

/* Bytes of a state that mean something: everything before the cells, and
 * the cells in use. game_new zeroes the rest, so this is also enough to
 * tell two states apart. */
static size_t used_bytes(const game_state *st)
{
    return offsetof(game_state, cells) + (size_t)st->n_cells * sizeof st->cells[0];
}

static bool same_state(const game_state *a, const game_state *b)
{
    return a->n_cells == b->n_cells && memcmp(a, b, used_bytes(a)) == 0;
}

static long stone_total(const game_state *st)
{
    long t = 0;
    for (int i = 0; i < st->n_cells; i++)
        t += st->cells[i];
    return t;
}

/* Highest candidate move + 1 (moves outside 0..candidates-1 are never legal). */
static int candidates(const game_state *st)
{
    return st->layout == GAME_LAYOUT_MANCALA ? st->cups : st->n_cells;
}

static int moves_buf[GAME_MAX_MOVES];

/* What the inputs exercised, printed by fuzz_teardown (the replay driver),
 * so a run that checks nothing shows. */
static struct {
    long games, refused_options, accepted, refused, finished, loaded, load_refused;
} stats;

/* Everything that must hold of any state the engine hands back. `normalised`
 * is false right after game_load (a loaded seat to move may have no move). */
static void check_state(const game_state *st, long total, bool normalised, fuzz_rng *pick)
{
    const char *kind = st->kind->name;
    FUZZ_CHECK(st->seats >= 1 && st->seats <= GAME_MAX_SEATS, "%s: %d seats", kind, st->seats);
    FUZZ_CHECK(st->n_cells > 0 && st->n_cells <= GAME_MAX_CELLS, "%s: %d cells", kind,
               st->n_cells);
    if (st->layout == GAME_LAYOUT_MANCALA) {
        FUZZ_CHECK(st->n_cells == st->seats * (st->cups + 1), "%s: %d cells for %d seats x %d",
                   kind, st->n_cells, st->seats, st->cups);
        for (int i = 0; i < st->n_cells; i++)
            FUZZ_CHECK(st->cells[i] >= 0, "%s: cell %d holds %d stones", kind, i, st->cells[i]);
        FUZZ_CHECK(stone_total(st) == total, "%s: %ld stones, expected %ld", kind,
                   stone_total(st), total);
    } else {
        for (int i = 0; i < st->n_cells; i++)
            FUZZ_CHECK(st->cells[i] >= 0 && st->cells[i] <= st->seats,
                       "%s: cell %d is %d with %d seats", kind, i, st->cells[i], st->seats);
    }

    int n = game_legal_moves(st, moves_buf, GAME_MAX_MOVES);
    /* Named moves (games.h: "swap", a negative number) come on top of the cells. */
    const int named = game_named_move_count(st);
    FUZZ_CHECK(n >= 0 && n <= candidates(st) + named, "%s: %d legal moves of %d candidates",
               kind, n, candidates(st) + named);
    int winners[GAME_MAX_SEATS];
    int nw = game_winners(st, winners);
    if (game_is_over(st)) {
        FUZZ_CHECK(n == 0, "%s: finished but %d legal moves", kind, n);
        FUZZ_CHECK(game_to_move(st) == -1, "%s: finished with seat %d to move", kind,
                   game_to_move(st));
        for (int s = -1; s <= st->seats; s++)
            FUZZ_CHECK(game_check(st, s, 0, NULL, 0) == GAME_E_OVER,
                       "%s: finished, seat %d's move not refused as over", kind, s);
        int scores[GAME_MAX_SEATS];
        game_scores(st, scores);
        int best = INT_MIN;
        for (int s = 0; s < st->seats; s++)
            best = scores[s] > best ? scores[s] : best;
        FUZZ_CHECK(nw >= 0 && nw < st->seats, "%s: %d winners of %d seats", kind, nw, st->seats);
        for (int i = 0; i < nw; i++) {
            FUZZ_CHECK(winners[i] >= 0 && winners[i] < st->seats, "%s: winner %d", kind,
                       winners[i]);
            FUZZ_CHECK(i == 0 || winners[i] > winners[i - 1], "%s: winners out of order", kind);
            FUZZ_CHECK(scores[winners[i]] == best, "%s: winner %d scores %d, best %d", kind,
                       winners[i], scores[winners[i]], best);
        }
        return;
    }
    FUZZ_CHECK(nw == 0, "%s: running game has %d winners", kind, nw);
    int seat = game_to_move(st);
    FUZZ_CHECK(seat >= 0 && seat < st->seats, "%s: running with seat %d to move", kind, seat);
    if (normalised)
        FUZZ_CHECK(n > 0, "%s: seat %d to move has no legal move", kind, seat);
    char err[GAME_ERR_LEN];
    for (int i = 0; i < n; i++) {
        FUZZ_CHECK(i == 0 || moves_buf[i] > moves_buf[i - 1], "%s: legal moves not ascending",
                   kind);
        int rc = game_check(st, seat, moves_buf[i], err, sizeof err);
        FUZZ_CHECK(rc == GAME_OK, "%s: legal move %d refused: %d %s", kind, moves_buf[i], rc,
                   err);
    }
    /* The other way round: what game_check accepts is in the list. */
    int cand = candidates(st);
    int probes = cand <= EXHAUSTIVE_MAX ? cand + 2 : 24;
    int j = 0;
    for (int k = 0; k < probes; k++) {
        int m = cand <= EXHAUSTIVE_MAX ? k - 1 : (int)fuzz_rng_below(pick, (uint32_t)cand + 2) - 1;
        if (cand <= EXHAUSTIVE_MAX) {
            while (j < n && moves_buf[j] < m)
                j++;
        } else {
            j = 0;
            while (j < n && moves_buf[j] < m)
                j++;
        }
        bool listed = j < n && moves_buf[j] == m;
        int rc = game_check(st, seat, m, err, sizeof err);
        FUZZ_CHECK((rc == GAME_OK) == listed, "%s: move %d: check %d but %s", kind, m, rc,
                   listed ? "listed" : "not listed");
    }
    for (int i = 0; i < named; i++) {
        int m = game_named_move_at(st, i)->move;
        bool listed = false;
        for (int k = 0; k < n; k++)
            listed |= moves_buf[k] == m;
        int rc = game_check(st, seat, m, err, sizeof err);
        FUZZ_CHECK((rc == GAME_OK) == listed, "%s: named move %d: check %d but %s", kind, m, rc,
                   listed ? "listed" : "not listed");
    }
}

/* Play `move` as `seat` and check what came back. Returns whether it was
 * accepted. */
static bool play(game_state *st, int seat, int move, bool from_list, long total,
                 fuzz_rng *pick)
{
    static game_state before;
    static game_result res;
    char err[GAME_ERR_LEN] = "";
    before = *st;
    int checked = game_check(st, seat, move, err, sizeof err);
    FUZZ_CHECK(same_state(&before, st), "%s: game_check changed the state", st->kind->name);
    FUZZ_CHECK(checked <= 0 && checked >= GAME_E_OVER, "%s: game_check returned %d",
               st->kind->name, checked);
    FUZZ_CHECK(checked == GAME_OK || err[0], "%s: refusal %d without a sentence",
               st->kind->name, checked);
    if (from_list)
        FUZZ_CHECK(checked == GAME_OK, "%s: listed move %d refused: %s", st->kind->name, move,
                   err);
    err[0] = '\0';
    int rc = game_play(st, seat, move, &res, err, sizeof err);
    FUZZ_CHECK(rc == checked, "%s: game_play %d but game_check %d for move %d",
               st->kind->name, rc, checked, move);
    if (rc != GAME_OK) {
        FUZZ_CHECK(same_state(&before, st), "%s: refused move %d (%s) changed the state",
                   st->kind->name, move, err);
        stats.refused++;
        return false;
    }
    FUZZ_CHECK(res.next == game_to_move(st), "%s: result says seat %d is next, state %d",
               st->kind->name, res.next, game_to_move(st));
    FUZZ_CHECK(res.n_passed >= 0 && res.n_passed <= GAME_MAX_SEATS, "%s: %d passed",
               st->kind->name, res.n_passed);
    for (int i = 0; i < res.n_passed; i++)
        FUZZ_CHECK(res.passed[i] >= 0 && res.passed[i] < st->seats, "%s: passed seat %d",
                   st->kind->name, res.passed[i]);
    FUZZ_CHECK(res.n_steps >= 0 && res.n_steps <= GAME_MAX_STEPS, "%s: %d steps",
               st->kind->name, res.n_steps);
    static int16_t replay[GAME_MAX_CELLS];
    memcpy(replay, before.cells, (size_t)before.n_cells * sizeof replay[0]);
    for (int i = 0; i < res.n_steps; i++) {
        int c = res.steps[i].cell;
        FUZZ_CHECK(c >= 0 && c < st->n_cells, "%s: step %d names cell %d", st->kind->name, i, c);
        replay[c] = res.steps[i].value;
    }
    if (!res.truncated)
        for (int c = 0; c < st->n_cells; c++)
            FUZZ_CHECK(replay[c] == st->cells[c],
                       "%s: move %d: steps leave cell %d at %d, the board has %d",
                       st->kind->name, move, c, replay[c], st->cells[c]);
    check_state(st, total, true, pick);
    stats.accepted++;
    stats.finished += game_is_over(st);
    return true;
}

/* Load cells[0..n-1]; check it is refused exactly when games.h says so. */
static void load(game_state *st, const int *cells, int n, int to_move, bool over, long *total,
                 fuzz_rng *pick)
{
    static game_state before;
    before = *st;
    bool valid = n == st->n_cells && (over ? to_move == -1 : to_move >= 0 && to_move < st->seats);
    int max = st->layout == GAME_LAYOUT_GRID ? st->seats : INT16_MAX;
    long sum = 0;
    for (int i = 0; i < n && valid; i++) {
        valid = cells[i] >= 0 && cells[i] <= max;
        sum += cells[i];
    }
    if (st->layout == GAME_LAYOUT_MANCALA && sum > INT16_MAX)
        valid = false;
    int rc = game_load(st, cells, n, to_move, over);
    if (!valid) {
        FUZZ_CHECK(rc == GAME_E_RANGE, "%s: invalid snapshot loaded (%d)", st->kind->name, rc);
        FUZZ_CHECK(same_state(&before, st), "%s: refused load changed the state",
                   st->kind->name);
        stats.load_refused++;
        return;
    }
    FUZZ_CHECK(rc == GAME_OK, "%s: valid snapshot refused (%d)", st->kind->name, rc);
    for (int i = 0; i < n; i++)
        FUZZ_CHECK(st->cells[i] == cells[i], "%s: loaded cell %d is %d, not %d",
                   st->kind->name, i, st->cells[i], cells[i]);
    FUZZ_CHECK(game_is_over(st) == over && game_to_move(st) == to_move,
               "%s: loaded turn %d/%d, asked %d/%d", st->kind->name, game_to_move(st),
               game_is_over(st), to_move, over);
    *total = sum;
    stats.loaded++;
    check_state(st, *total, false, pick);
}

/* Option names tried besides the kind's own. */
static const char *const other_names[] = {"players", "cups", "stones", "first", "size",
                                          "dims",    "",     "CUPS",   "cups ", "sizes"};
#define N_OTHER (int)(sizeof other_names / sizeof other_names[0])

static int option_value(fuzz_in *in, const game_option_spec *spec)
{
    uint8_t how = fuzz_u8(in);
    switch (how % 6) {
    case 0:
    case 1:
    case 2:
        return spec->min + (int)(fuzz_u8(in) % (unsigned)(spec->max - spec->min + 1));
    case 3:
        return (how & 8) ? spec->min - 1 - (how >> 4) : spec->max + 1 + (how >> 4);
    case 4:
        return (how & 8) ? INT_MIN : INT_MAX;
    default:
        return fuzz_i32(in);
    }
}

static void set_options(fuzz_in *in, const game_kind *kind, game_options *opts)
{
    int n = fuzz_u8(in);
    if (n & 1)
        memset(opts, 0, sizeof *opts);
    else
        game_options_default(kind, opts);
    for (n = (n >> 1) % 9; n > 0; n--) {
        int which = fuzz_u8(in) % (kind->n_options + N_OTHER);
        const char *name = which < kind->n_options ? kind->options[which].name
                                                   : other_names[which - kind->n_options];
        int index = -1;
        for (int i = 0; i < kind->n_options; i++)
            if (strcmp(kind->options[i].name, name) == 0)
                index = i;
        static const game_option_spec junk = {"junk", -3, 40, 0, "", 0};
        int value = option_value(in, index >= 0 ? &kind->options[index] : &junk);
        game_options before = *opts;
        char err[GAME_ERR_LEN] = "";
        int rc = game_options_set(kind, opts, name, value, err, sizeof err);
        if (rc != GAME_OK) {
            FUZZ_CHECK(rc == GAME_E_OPTION, "%s: option %s=%d: error %d", kind->name, name,
                       value, rc);
            FUZZ_CHECK(err[0], "%s: option %s=%d refused without a sentence", kind->name, name,
                       value);
            FUZZ_CHECK(memcmp(&before, opts, sizeof before) == 0,
                       "%s: refused option %s=%d changed the options", kind->name, name, value);
            stats.refused_options++;
            continue;
        }
        FUZZ_CHECK(index >= 0, "%s: accepted unknown option '%s'", kind->name, name);
        const game_option_spec *spec = &kind->options[index];
        FUZZ_CHECK(game_option_allows(spec, value), "%s: accepted %s=%d out of %d..%d (step %d)",
                   kind->name, name, value, spec->min, spec->max, spec->step);
        FUZZ_CHECK(opts->n == kind->n_options && opts->value[index] == value,
                   "%s: %s=%d accepted but not stored", kind->name, name, value);
        FUZZ_CHECK(game_option(kind, opts, name, value + 1) == value,
                   "%s: game_option(%s) disagrees", kind->name, name);
    }
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    return 0;
}

void fuzz_teardown(void)
{
    printf("%ld games; options refused %ld; moves accepted %ld, refused %ld; games finished "
           "%ld; snapshots loaded %ld, refused %ld\n",
           stats.games, stats.refused_options, stats.accepted, stats.refused, stats.finished,
           stats.loaded, stats.load_refused);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static game_state st;
    static int cells[GAME_MAX_CELLS + 1];
    fuzz_in in = {data, size};
    /* Sampling of large boards is seeded by the input, so runs repeat. */
    fuzz_rng pick = {size};
    for (size_t i = 0; i < size && i < 16; i++)
        pick.state = pick.state * 131 + data[i];

    const game_kind *kind = game_kind_at(fuzz_u8(&in) % game_kind_count());
    FUZZ_CHECK(kind && game_kind_find(kind->name) == kind, "registry lookup");
    game_options opts;
    set_options(&in, kind, &opts);
    char err[GAME_ERR_LEN] = "";
    int rc = game_new(&st, kind, &opts, err, sizeof err);
    if (opts.n != kind->n_options) {
        FUZZ_CHECK(rc == GAME_E_OPTION && err[0], "%s: game_new took foreign options (%d)",
                   kind->name, rc);
        return 0;
    }
    FUZZ_CHECK(rc == GAME_OK, "%s: game_new refused options accepted one by one: %s",
               kind->name, err);
    FUZZ_CHECK(st.kind == kind && st.layout == kind->layout, "%s: game_new kind/layout",
               kind->name);
    stats.games++;
    long total = stone_total(&st);
    check_state(&st, total, true, &pick);

    for (int op = 0; op < MAX_OPS && in.left > 0; op++) {
        uint8_t code = fuzz_u8(&in);
        int seat = game_to_move(&st);
        switch (code % 8) {
        case 0:
        case 1:
        case 2:
        case 3: {
            int n = game_legal_moves(&st, moves_buf, GAME_MAX_MOVES);
            if (n == 0) {   /* over, or a loaded position that is stuck */
                play(&st, seat, (int)fuzz_u8(&in) - 1, false, total, &pick);
                break;
            }
            int m = moves_buf[fuzz_u16(&in) % (unsigned)n];
            play(&st, seat, m, true, total, &pick);
            break;
        }
        case 4:
        case 5: {
            /* Small numbers mostly: near the board, where the bugs would be. */
            int m = (code & 0x80) ? fuzz_i32(&in) : (int)fuzz_u16(&in) % (candidates(&st) + 8) - 4;
            play(&st, seat, m, false, total, &pick);
            break;
        }
        case 6: {
            int s = (int)(fuzz_u8(&in) % (unsigned)(st.seats + 3)) - 1;
            int m = (int)fuzz_u16(&in) % (candidates(&st) + 8) - 4;
            bool ok = play(&st, s, m, false, total, &pick);
            FUZZ_CHECK(!ok || s == seat, "%s: seat %d moved on seat %d's turn", kind->name, s,
                       seat);
            break;
        }
        default: {
            /* A snapshot: the current cells with some changed (mostly
             * believable), or every cell from the input. */
            int n = st.n_cells;
            uint8_t how = fuzz_u8(&in);
            if (how & 1)
                n += (int)(how >> 5) - 4;   /* sometimes the wrong count */
            if (n < 0)
                n = 0;
            if (n > GAME_MAX_CELLS + 1)
                n = GAME_MAX_CELLS + 1;
            for (int i = 0; i < n; i++)
                cells[i] = i < st.n_cells ? st.cells[i] : 0;
            if (how & 2) {
                for (int i = 0; i < n; i++)
                    cells[i] = (how & 4) ? (int)(int8_t)fuzz_u8(&in) % (st.seats + 2)
                                         : fuzz_u8(&in);
            } else {
                for (int k = fuzz_u8(&in) % 8; k > 0 && n > 0; k--) {
                    int i = fuzz_u16(&in) % (unsigned)n;
                    cells[i] = (how & 4) ? fuzz_i32(&in) : (int)fuzz_u8(&in) % (st.seats + 2);
                }
            }
            uint8_t turn = fuzz_u8(&in);
            bool over = turn & 1;
            int to_move = (turn & 2) ? (int)(turn >> 2) % (st.seats + 2) - 1
                                     : (over ? -1 : (int)(turn >> 2) % st.seats);
            load(&st, cells, n, to_move, over, &total, &pick);
            break;
        }
        }
    }
    return 0;
}

/* Random bytes are already meaningful inputs here; lengths vary so that
 * some games are long enough to finish. */
size_t fuzz_generate(fuzz_rng *rng, uint8_t *buf, size_t cap)
{
    size_t len = fuzz_rng_below(rng, 4) == 0 ? fuzz_rng_below(rng, 64)
                                             : 64 + fuzz_rng_below(rng, 1200);
    if (len > cap)
        len = cap;
    for (size_t i = 0; i < len; i++)
        buf[i] = (uint8_t)fuzz_rng_next(rng);
    /* Bias towards legal moves (op codes 0..3) so that games get far. */
    for (size_t i = 3; i < len; i += 3)
        if (fuzz_rng_below(rng, 4) != 0)
            buf[i] &= 0xfc;
    return len;
}
