/*
 * tournament.c — tournaments (proto/sungka/v1/tournament.proto; docs/rules.md,
 * "Tournaments"): arenas and round robins of any kind, their standings and
 * their games, kept in the store and picked up again after a restart.
 *
 * Choices worth knowing:
 *   - A tournament is one row of the store (store_tournament_put): its
 *     TournamentRecord packed (players, points, games). Every change rewrites
 *     the row before anyone hears of it (durable before visible): one write,
 *     atomic, per change, and one migration per database. A tournament has a
 *     few dozen players and games, so the row stays small.
 *   - Its games are ordinary games of the service (board_new_room), seated by
 *     the tournament (room_join_as) and recovered as every game is. A game's
 *     result reaches the tournament through the store: each tick looks at the
 *     tournament's unfinished games, and one whose room has ended or is gone
 *     is read back with store_match and scored by score_game, the one
 *     function that gives points, live and after a restart alike (a result
 *     stored just before a kill -9 is scored at the next start). A game that
 *     vanished without a result (never stored, discarded) scores nothing.
 *   - Points: two seats, win 2, draw 1, loss 0; more seats, one point for each
 *     player placed below you (1st seats-1, last 0). An arena doubles a win
 *     that comes after two wins in a row (Lichess's streak).
 *   - An arena pairs the players who watch it (a Watch stream with their
 *     player token) and sit in no game, with the quick-pairing rule of
 *     nearness (board_pair_range: ±100 at first, wider with the wait),
 *     avoiding the last opponent for ARENA_REMATCH_AFTER_MS. Its end is a
 *     wall-clock time in the record, so a restart keeps its clock; games
 *     running at the end still count.
 *   - A round robin starts when max_players have joined. Two seats: the
 *     circle method (n-1 rounds, n with an odd field: one sits out each
 *     round). More seats: tables drawn afresh each round (rounds as asked;
 *     who does not fit at a table sits out). A round's games are made when
 *     the record has none for it, so a kill -9 between two rounds, or
 *     during one, goes on with that round.
 *   - A tournament lives on the node that made it: in a cluster, other nodes
 *     do not adopt it.
 *   - Bounded: --max-tournaments unfinished at once, --client-tournaments of
 *     them made from one address (not the operator's), --max-tournament-players
 *     per tournament; a join counts as a game's join (--client-join-rate);
 *     Watch streams count as event streams of their address
 *     (--max-client-streams). Finished tournaments stay listed.
 * Loop thread only, as every handler.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/random.h>

#include <sodium.h>

#include "board_rpc.h"
#include "text.h"
#include "waiting.h"
#include "sungka/v1/tournament.pb-c.h"

#define TOUR_TICK_MS 250
#define TOUR_TITLE_MAX 64
#define TOUR_MAX_OPTIONS 8
#define TOUR_MAX_GAMES 4096           /* an arena's games, whatever its length */
#define ARENA_REMATCH_AFTER_MS 3000   /* the last opponent again only after this wait */
#define TOUR_GUEST_RATING 1500
#define RR_MAX_ROUNDS 50
#define TOUR_LIST_MAX 100             /* ListTournaments: the newest this many */

typedef struct tour_player {
    char name[BOARD_NAME_BYTES];
    int64_t account_id;
    char token[BOARD_TOKEN_HEX + 1];
    char host[BOARD_HOST_BYTES];
    int points, games, wins, streak, rating;
    bool withdrawn;
    char last_opp[BOARD_NAME_BYTES];
    int64_t free_since_ms;            /* board_now_ms when it last became free */
} tour_player;

typedef struct tour_game {
    int round;
    char id[STORE_ID_BYTES];
    int n;
    int player[GAME_MAX_SEATS];       /* indices into players, seat order */
    int points[GAME_MAX_SEATS];
    bool finished;
} tour_game;

typedef struct tour {
    char id[16];
    char title[TOUR_TITLE_MAX * 4 + 1];
    char creator[BOARD_NAME_BYTES];
    char creator_host[BOARD_HOST_BYTES];  /* counts for --client-tournaments */
    const game_kind *kind;
    int n_opts;
    char opt_name[TOUR_MAX_OPTIONS][32];
    int opt_value[TOUR_MAX_OPTIONS];
    bool has_tc;
    Sungka__V1__TimeControl tc;
    int format;                       /* SUNGKA__V1__TOURNAMENT_FORMAT__... */
    int status;                       /* SUNGKA__V1__TOURNAMENT_STATUS__... */
    int seconds, rounds, max_players, seats, round;
    bool rated;
    int64_t started_ms, ends_ms;      /* wall clock */
    tour_player *players;
    int n_players;
    tour_game *games;
    int n_games, cap_games;
    bool dirty;                       /* a change the store has not taken yet */
} tour;

typedef struct tour_watch {
    board_waiting base;               /* first: the WatchTournament call, the address it
                                         counts one stream of, done once finished (then
                                         watch_done frees it; waiting.h) */
    tour *t;
    int player;                       /* index, -1: a spectator */
} tour_watch;

struct board_tournaments {
    tour **t;
    int n, cap;
    board_waiting_list watchers;      /* tour_watch entries */
    unsigned next_id;
    int64_t next_tick_ms;
};

/* ------------------------------------------------------------ helpers */

static board_tournaments *tours_of(board_service *svc)
{
    if (!svc->tournaments)
        svc->tournaments = calloc(1, sizeof *svc->tournaments);
    return svc->tournaments;
}

static tour *find_tour(board_service *svc, const char *id)
{
    board_tournaments *ts = svc->tournaments;
    for (int i = 0; ts && i < ts->n; i++)
        if (strcmp(ts->t[i]->id, id) == 0)
            return ts->t[i];
    return NULL;
}

static int find_player_token(const tour *t, const char *token)
{
    if (strlen(token) != BOARD_TOKEN_HEX)
        return -1;
    for (int i = 0; i < t->n_players; i++)
        if (sodium_memcmp(t->players[i].token, token, BOARD_TOKEN_HEX) == 0)
            return i;
    return -1;
}

static int find_player_name(const tour *t, const char *name)
{
    for (int i = 0; i < t->n_players; i++)
        if (strcasecmp(t->players[i].name, name) == 0)
            return i;
    return -1;
}

/* The unfinished game player p sits in, or NULL. */
static tour_game *game_of(tour *t, int p)
{
    for (int g = t->n_games - 1; g >= 0; g--) {
        if (t->games[g].finished)
            continue;
        for (int s = 0; s < t->games[g].n; s++)
            if (t->games[g].player[s] == p)
                return &t->games[g];
    }
    return NULL;
}

static int unfinished_games(const tour *t)
{
    int n = 0;
    for (int g = 0; g < t->n_games; g++)
        n += !t->games[g].finished;
    return n;
}

static unsigned draw_below(unsigned n)
{
    unsigned v = 0;
    if (getrandom(&v, sizeof v, 0) != (ssize_t)sizeof v)
        v = (unsigned)board_now_ms();
    return n ? v % n : 0;
}

static void shuffle(int *a, int n)
{
    for (int i = n - 1; i > 0; i--) {
        int j = (int)draw_below((unsigned)i + 1);
        int x = a[i];
        a[i] = a[j];
        a[j] = x;
    }
}

/* ------------------------------------------------------------ the wire form */

typedef struct tour_msg {
    Sungka__V1__Tournament m;
    Sungka__V1__GameOption opt[TOUR_MAX_OPTIONS], *optp[TOUR_MAX_OPTIONS];
    Sungka__V1__TimeControl tc;
    Sungka__V1__TournamentStanding *st, **stp;
    Sungka__V1__TournamentGame *g, **gp;
    char **names;                     /* per game seat, pointing into players */
    int32_t *points;
} tour_msg;

static const tour *by_standing_tour;

static int by_standing(const void *x, const void *y)
{
    const tour_player *a = &by_standing_tour->players[*(const int *)x];
    const tour_player *b = &by_standing_tour->players[*(const int *)y];
    if (a->points != b->points)
        return a->points > b->points ? -1 : 1;
    if (a->wins != b->wins)
        return a->wins > b->wins ? -1 : 1;
    return strcasecmp(a->name, b->name);
}

/* Fill tm from t (with_games: its games too); free with tour_msg_clear. */
static int tour_msg_fill(const tour *t, bool with_games, tour_msg *tm)
{
    memset(tm, 0, sizeof *tm);
    Sungka__V1__Tournament *m = &tm->m;
    sungka__v1__tournament__init(m);
    m->id = (char *)t->id;
    m->title = (char *)t->title;
    m->creator = (char *)t->creator;
    m->kind = (char *)t->kind->name;
    for (int i = 0; i < t->n_opts; i++) {
        sungka__v1__game_option__init(&tm->opt[i]);
        tm->opt[i].name = (char *)t->opt_name[i];
        tm->opt[i].value = t->opt_value[i];
        tm->optp[i] = &tm->opt[i];
    }
    m->options = tm->optp;
    m->n_options = (size_t)t->n_opts;
    if (t->has_tc) {
        tm->tc = t->tc;
        m->time_control = &tm->tc;
    }
    m->format = t->format;
    m->status = t->status;
    m->seconds = t->seconds;
    m->rounds = t->rounds;
    m->max_players = t->max_players;
    m->rated = t->rated;
    m->started_ms = t->started_ms;
    m->ends_ms = t->ends_ms;
    m->round = t->round;
    m->seats = t->seats;
    int n = t->n_players;
    int *order = malloc(((size_t)n + 1) * sizeof *order);
    tm->st = calloc((size_t)n + 1, sizeof *tm->st);
    tm->stp = calloc((size_t)n + 1, sizeof *tm->stp);
    int ng = with_games ? t->n_games : 0;
    tm->g = calloc((size_t)ng + 1, sizeof *tm->g);
    tm->gp = calloc((size_t)ng + 1, sizeof *tm->gp);
    tm->names = calloc((size_t)ng * GAME_MAX_SEATS + 1, sizeof *tm->names);
    tm->points = calloc((size_t)ng * GAME_MAX_SEATS + 1, sizeof *tm->points);
    if (!order || !tm->st || !tm->stp || !tm->g || !tm->gp || !tm->names || !tm->points) {
        free(order);
        return -1;
    }
    for (int i = 0; i < n; i++)
        order[i] = i;
    by_standing_tour = t;
    qsort(order, (size_t)n, sizeof *order, by_standing);
    for (int i = 0; i < n; i++) {
        const tour_player *p = &t->players[order[i]];
        Sungka__V1__TournamentStanding *s = &tm->st[i];
        sungka__v1__tournament_standing__init(s);
        s->rank = i > 0 && p->points == t->players[order[i - 1]].points ? tm->st[i - 1].rank
                                                                       : i + 1;
        s->name = (char *)p->name;
        s->points = p->points;
        s->games = p->games;
        s->wins = p->wins;
        s->streak = p->streak;
        s->withdrawn = p->withdrawn;
        s->rating = p->rating;
        tm->stp[i] = s;
    }
    free(order);
    m->standings = tm->stp;
    m->n_standings = (size_t)n;
    for (int g = 0; g < ng; g++) {
        const tour_game *tg = &t->games[g];
        Sungka__V1__TournamentGame *o = &tm->g[g];
        sungka__v1__tournament_game__init(o);
        o->round = tg->round;
        o->game_id = (char *)tg->id;
        o->finished = tg->finished;
        o->players = &tm->names[g * GAME_MAX_SEATS];
        o->points = &tm->points[g * GAME_MAX_SEATS];
        for (int s = 0; s < tg->n; s++) {
            o->players[s] = (char *)t->players[tg->player[s]].name;
            o->points[s] = tg->points[s];
        }
        o->n_players = o->n_points = (size_t)tg->n;
        tm->gp[g] = o;
    }
    m->games = tm->gp;
    m->n_games = (size_t)ng;
    return 0;
}

static void tour_msg_clear(tour_msg *tm)
{
    free(tm->st);
    free(tm->stp);
    free(tm->g);
    free(tm->gp);
    free(tm->names);
    free(tm->points);
}

/* ------------------------------------------------------------ the store */

/* t packed as its TournamentRecord into a buffer the caller frees. */
static uint8_t *pack_record(const tour *t, size_t *len)
{
    tour_msg tm;
    if (tour_msg_fill(t, true, &tm) != 0) {
        tour_msg_clear(&tm);
        return NULL;
    }
    tm.m.standings = NULL;
    tm.m.n_standings = 0;
    Sungka__V1__TournamentRecord rec = SUNGKA__V1__TOURNAMENT_RECORD__INIT;
    rec.tournament = &tm.m;
    Sungka__V1__TournamentRecordPlayer *ps = calloc((size_t)t->n_players + 1, sizeof *ps);
    Sungka__V1__TournamentRecordPlayer **pp = calloc((size_t)t->n_players + 1, sizeof *pp);
    uint8_t *buf = NULL;
    if (ps && pp) {
        for (int i = 0; i < t->n_players; i++) {
            const tour_player *p = &t->players[i];
            sungka__v1__tournament_record_player__init(&ps[i]);
            ps[i].name = (char *)p->name;
            ps[i].account_id = p->account_id;
            ps[i].token = (char *)p->token;
            ps[i].host = (char *)p->host;
            ps[i].points = p->points;
            ps[i].games = p->games;
            ps[i].wins = p->wins;
            ps[i].streak = p->streak;
            ps[i].withdrawn = p->withdrawn;
            ps[i].rating = p->rating;
            ps[i].last_opponent = (char *)p->last_opp;
            pp[i] = &ps[i];
        }
        rec.players = pp;
        rec.n_players = (size_t)t->n_players;
        rec.creator_host = (char *)t->creator_host;
        *len = sungka__v1__tournament_record__get_packed_size(&rec);
        buf = malloc(*len + 1);
        if (buf)
            sungka__v1__tournament_record__pack(&rec, buf);
    }
    free(ps);
    free(pp);
    tour_msg_clear(&tm);
    return buf;
}

/* Store t now: 0, or -1 (logged; t stays dirty and is tried again). */
static int save(board_service *svc, tour *t)
{
    size_t len = 0;
    uint8_t *buf = pack_record(t, &len);
    if (!buf) {
        board_log_at(svc, LOG_ERR, "tournament %s: out of memory", t->id);
        t->dirty = true;
        return -1;
    }
    int rc = store_tournament_put(svc->store, t->id, t->status, board_wall_ms(), buf, len);
    free(buf);
    if (rc != 0) {
        board_log_at(svc, LOG_ERR, "tournament %s: cannot store it: %s", t->id,
                     store_last_error(svc->store));
        t->dirty = true;
        return -1;
    }
    t->dirty = false;
    return 0;
}

/* ------------------------------------------------------------ watching */

static void send_to(board_service *svc, tour_watch *w, const tour_msg *tm)
{
    Sungka__V1__WatchTournamentResponse u = SUNGKA__V1__WATCH_TOURNAMENT_RESPONSE__INIT;
    u.tournament = (Sungka__V1__Tournament *)&tm->m;
    Sungka__V1__BoardRef ref = SUNGKA__V1__BOARD_REF__INIT;
    Sungka__V1__SeatNumber seat;
    Sungka__V1__GameSummary summary;
    bool have_summary = false;
    if (w->player >= 0) {
        tour_game *g = game_of(w->t, w->player);
        room *r = g ? board_find_room(svc, g->id) : NULL;
        int n = 0;
        participant *const *people = r ? room_people(r, &n, NULL) : NULL;
        for (int i = 0; i < n; i++) {
            if (people[i]->seat < 0 ||
                strcasecmp(people[i]->name, w->t->players[w->player].name) != 0)
                continue;
            wire_summary(r, &summary);
            have_summary = true;
            ref.endpoint = svc->endpoint;
            ref.game_id = (char *)room_id(r);
            ref.token = people[i]->token;
            ref.seat = wire_seat(people[i]->seat, &seat);
            ref.game = &summary;
            u.your_game = &ref;
            break;
        }
    }
    rpc_call_send(w->base.call, &u.base);
    if (have_summary)
        wire_summary_clear(&summary);
}

/* Everyone watching t hears of it now (after it is stored); a finished
 * tournament ends their streams. */
static void tell(board_service *svc, tour *t)
{
    board_tournaments *ts = svc->tournaments;
    tour_msg tm;
    if (tour_msg_fill(t, true, &tm) != 0) {
        tour_msg_clear(&tm);
        return;
    }
    for (int i = 0; i < ts->watchers.n; i++) {
        tour_watch *w = ts->watchers.e[i];
        if (w->t != t || w->base.done)
            continue;
        send_to(svc, w, &tm);
        if (t->status == SUNGKA__V1__TOURNAMENT_STATUS__TOURNAMENT_STATUS_FINISHED) {
            w->base.done = true;       /* its done callback frees it */
            rpc_call_finish(w->base.call, RPC_OK, NULL);
        }
    }
    tour_msg_clear(&tm);
}

/* Store t, then tell its watchers. */
static void changed(board_service *svc, tour *t)
{
    if (save(svc, t) == 0)
        tell(svc, t);
}

/* ------------------------------------------------------------ scoring */

/* Points of one finished game, each seat's (docs/rules.md, "Tournaments"):
 * a seat is placed by (won, score); two seats: 2 per player placed below,
 * 1 per player placed equal; more seats: 1 per player placed below. */
static void placement_points(int n, const int *scores, const bool *won, int *points)
{
    for (int a = 0; a < n; a++) {
        int below = 0, equal = 0;
        for (int b = 0; b < n; b++) {
            if (b == a)
                continue;
            if (won[a] != won[b])
                below += won[a];
            else if (scores[a] != scores[b])
                below += scores[a] > scores[b];
            else
                equal++;
        }
        points[a] = n == 2 ? 2 * below + equal : below;
    }
}

/* Score game g of t from its stored result (abandoned: nobody scores). The
 * one place points are given: live and after a restart. */
static void score_game(tour *t, tour_game *g, const store_match_summary *m, bool abandoned)
{
    int scores[GAME_MAX_SEATS] = {0};
    bool won[GAME_MAX_SEATS] = {false};
    int at[GAME_MAX_SEATS];
    for (int s = 0; s < g->n; s++) {
        at[s] = -1;
        for (int k = 0; !abandoned && k < m->n_seats; k++)
            if (strcasecmp(m->seat_names[k], t->players[g->player[s]].name) == 0)
                at[s] = k;
        if (at[s] < 0)
            continue;
        scores[s] = m->scores[at[s]];
        for (int w = 0; w < m->n_winners; w++)
            won[s] |= m->winners[w] == at[s];
    }
    int pts[GAME_MAX_SEATS] = {0};
    if (!abandoned)
        placement_points(g->n, scores, won, pts);
    for (int s = 0; s < g->n; s++) {
        tour_player *p = &t->players[g->player[s]];
        if (!abandoned && won[s] &&
            t->format == SUNGKA__V1__TOURNAMENT_FORMAT__TOURNAMENT_FORMAT_ARENA &&
            p->streak >= 2)
            pts[s] *= 2;
        g->points[s] = pts[s];
        p->points += pts[s];
        p->games++;
        p->wins += won[s];
        p->streak = won[s] ? p->streak + 1 : 0;
        p->free_since_ms = board_now_ms();
        if (g->n == 2)
            snprintf(p->last_opp, sizeof p->last_opp, "%s", t->players[g->player[1 - s]].name);
    }
    g->finished = true;
}

/* Look at t's unfinished games: true when one was scored. */
static bool collect_results(board_service *svc, tour *t)
{
    bool any = false;
    for (int i = 0; i < t->n_games; i++) {
        tour_game *g = &t->games[i];
        if (g->finished)
            continue;
        room *r = board_find_room(svc, g->id);
        if (r && room_status_of(r) < ROOM_FINISHED)
            continue;
        store_match_summary m;
        store_move *moves = NULL;
        int n_moves = 0;
        int rc = store_match(svc->store, g->id, &m, &moves, &n_moves);
        free(moves);
        if (rc < 0) {
            board_log_at(svc, LOG_ERR, "tournament %s: cannot read game %s: %s", t->id, g->id,
                         store_last_error(svc->store));
            continue;
        }
        if (rc == 0 && m.n_seats == 0 && r)
            continue;                  /* ended in memory, its result on the way */
        bool abandoned = rc != 0 || m.n_seats == 0 || m.game.status == STORE_ABANDONED;
        score_game(t, g, &m, abandoned);
        board_log(svc, "tournament %s: game %s scored%s", t->id, g->id,
                  abandoned ? " (abandoned: no points)" : "");
        any = true;
    }
    return any;
}

/* ------------------------------------------------------------ making games */

/* A new game of t for players[0..n), seated in that order: 0, or -1. */
static int make_game(board_service *svc, tour *t, const int *players, int n, int round)
{
    if (t->n_games >= TOUR_MAX_GAMES)
        return -1;
    if (t->n_games == t->cap_games) {
        int cap = t->cap_games ? t->cap_games * 2 : 16;
        tour_game *grown = realloc(t->games, (size_t)cap * sizeof *grown);
        if (!grown)
            return -1;
        t->games = grown;
        t->cap_games = cap;
    }
    Sungka__V1__GameOption opt[TOUR_MAX_OPTIONS], *optp[TOUR_MAX_OPTIONS];
    for (int i = 0; i < t->n_opts; i++) {
        sungka__v1__game_option__init(&opt[i]);
        opt[i].name = t->opt_name[i];
        opt[i].value = t->opt_value[i];
        optp[i] = &opt[i];
    }
    char err[256], title[BOARD_TITLE_MAX + 1];
    snprintf(title, sizeof title, "%.*s", BOARD_TITLE_MAX, t->title);
    rpc_code code;
    room *r = board_new_room(svc, NULL, t->kind->name, optp, (size_t)t->n_opts, title, true,
                             t->has_tc ? &t->tc : NULL, t->rated, 0, t->id, &code, err,
                             sizeof err);
    if (!r) {
        board_log_at(svc, LOG_WARNING, "tournament %s: cannot make a game: %s", t->id, err);
        return -1;
    }
    for (int i = 0; i < n; i++) {
        tour_player *p = &t->players[players[i]];
        participant *seated;
        if (room_join_as(r, p->name, p->account_id, false, NULL, p->host, &seated, err,
                         sizeof err) != ROOM_OK) {
            board_log_at(svc, LOG_WARNING, "tournament %s: cannot seat %s: %s", t->id, p->name,
                         err);
            board_discard_room(svc, r);
            return -1;
        }
    }
    tour_game *g = &t->games[t->n_games++];
    metric_add(svc->m.tournament_games, 1);
    memset(g, 0, sizeof *g);
    g->round = round;
    snprintf(g->id, sizeof g->id, "%s", room_id(r));
    g->n = n;
    memcpy(g->player, players, (size_t)n * sizeof *players);
    board_log(svc, "tournament %s: game %s (round %d) for %d players", t->id, g->id, round, n);
    return 0;
}

static bool watching(board_service *svc, const tour *t, int p)
{
    board_tournaments *ts = svc->tournaments;
    for (int i = 0; i < ts->watchers.n; i++) {
        const tour_watch *w = ts->watchers.e[i];
        if (w->t == t && w->player == p && !w->base.done)
            return true;
    }
    return false;
}

/* May arena players a and b sit together now? */
static bool arena_fits(board_service *svc, const tour *t, int a, int b, int64_t now)
{
    const tour_player *pa = &t->players[a], *pb = &t->players[b];
    int ra = board_pair_range(now - pa->free_since_ms);
    int rb = board_pair_range(now - pb->free_since_ms);
    int diff = abs(pa->rating - pb->rating);
    if ((ra >= 0 && diff > ra) || (rb >= 0 && diff > rb))
        return false;
    bool again = strcasecmp(pa->last_opp, pb->name) == 0 ||
                 strcasecmp(pb->last_opp, pa->name) == 0;
    if (again && (now - pa->free_since_ms < ARENA_REMATCH_AFTER_MS ||
                  now - pb->free_since_ms < ARENA_REMATCH_AFTER_MS))
        return false;
    return board_blocked_either(svc, pa->account_id, pb->account_id) == 0;
}

static int by_rating_anchor;
static const tour *by_rating_tour;

static int by_rating(const void *x, const void *y)
{
    const tour_player *a = &by_rating_tour->players[*(const int *)x];
    const tour_player *b = &by_rating_tour->players[*(const int *)y];
    int da = abs(a->rating - by_rating_anchor), db = abs(b->rating - by_rating_anchor);
    if (da != db)
        return da < db ? -1 : 1;
    return a->free_since_ms < b->free_since_ms ? -1 : a->free_since_ms > b->free_since_ms;
}

static int by_wait(const void *x, const void *y)
{
    const tour_player *a = &by_rating_tour->players[*(const int *)x];
    const tour_player *b = &by_rating_tour->players[*(const int *)y];
    return a->free_since_ms < b->free_since_ms ? -1 : a->free_since_ms > b->free_since_ms;
}

/* Pair an arena's present, free players: true when a game was made. */
static bool arena_pair(board_service *svc, tour *t, int64_t now)
{
    int *free_p = malloc(((size_t)t->n_players + 1) * sizeof *free_p);
    if (!free_p)
        return false;
    int nf = 0;
    for (int i = 0; i < t->n_players; i++)
        if (!t->players[i].withdrawn && !game_of(t, i) && watching(svc, t, i))
            free_p[nf++] = i;
    bool made = false;
    by_rating_tour = t;
    qsort(free_p, (size_t)nf, sizeof *free_p, by_wait);
    bool *used = calloc((size_t)nf + 1, sizeof *used);
    int *cand = malloc(((size_t)nf + 1) * sizeof *cand);
    for (int a = 0; used && cand && a < nf; a++) {
        if (used[a])
            continue;
        int nc = 0;
        for (int b = 0; b < nf; b++)
            if (b != a && !used[b])
                cand[nc++] = b;
        by_rating_anchor = t->players[free_p[a]].rating;
        /* cand holds positions in free_p: sort them by the players' ratings */
        for (int i = 0; i < nc; i++)
            cand[i] = free_p[cand[i]];
        qsort(cand, (size_t)nc, sizeof *cand, by_rating);
        int group[GAME_MAX_SEATS] = {free_p[a]};
        int n = 1;
        for (int i = 0; i < nc && n < t->seats; i++) {
            bool ok = true;
            for (int k = 0; k < n && ok; k++)
                ok = arena_fits(svc, t, group[k], cand[i], now);
            if (ok)
                group[n++] = cand[i];
        }
        if (n < t->seats)
            continue;
        shuffle(group, n);
        if (make_game(svc, t, group, n, t->n_games + 1) != 0)
            break;
        made = true;
        for (int k = 0; k < n; k++)
            for (int b = 0; b < nf; b++)
                if (free_p[b] == group[k])
                    used[b] = true;
    }
    free(used);
    free(cand);
    free(free_p);
    return made;
}

/* The games of round robin t's round `round` (1..): true when made. */
static bool rr_make_round(board_service *svc, tour *t)
{
    int n = t->n_players;
    int round = t->round;
    if (t->seats == 2) {
        /* The circle method: position 0 stays, the others turn one step a
         * round; a bye (index n) sits out. */
        int m = n + (n & 1);
        int *pos = malloc((size_t)m * sizeof *pos);
        if (!pos)
            return false;
        pos[0] = 0;
        for (int i = 1; i < m; i++)
            pos[i] = 1 + ((i - 1 + (round - 1)) % (m - 1));
        bool made = false;
        for (int i = 0; i < m / 2; i++) {
            int pair[2] = {pos[i], pos[m - 1 - i]};
            if (pair[0] >= n || pair[1] >= n)
                continue;
            if ((round + i) & 1) {     /* who begins alternates */
                int x = pair[0];
                pair[0] = pair[1];
                pair[1] = x;
            }
            made |= make_game(svc, t, pair, 2, round) == 0;
        }
        free(pos);
        return made;
    }
    int *order = malloc((size_t)n * sizeof *order);
    if (!order)
        return false;
    for (int i = 0; i < n; i++)
        order[i] = i;
    shuffle(order, n);
    bool made = false;
    for (int i = 0; i + t->seats <= n; i += t->seats)
        made |= make_game(svc, t, order + i, t->seats, round) == 0;
    free(order);
    return made;
}

/* Have players a and b met in t? */
static bool have_met(const tour *t, int a, int b)
{
    for (int g = 0; g < t->n_games; g++) {
        const tour_game *tg = &t->games[g];
        if (tg->n == 2 && ((tg->player[0] == a && tg->player[1] == b) ||
                           (tg->player[0] == b && tg->player[1] == a)))
            return true;
    }
    return false;
}

/* Pair order[0..n) (best first), each with the nearest below it not met
 * yet, backtracking when the rest cannot be paired (a bounded search:
 * *budget steps). mate[i] gets i's partner's position. */
static bool swiss_match(const tour *t, const int *order, int n, int *mate, long *budget)
{
    int a = 0;
    while (a < n && mate[a] >= 0)
        a++;
    if (a == n)
        return true;
    for (int b = a + 1; b < n; b++) {
        if (mate[b] >= 0 || have_met(t, order[a], order[b]))
            continue;
        if (--*budget < 0)
            return false;
        mate[a] = b;
        mate[b] = a;
        if (swiss_match(t, order, n, mate, budget))
            return true;
        mate[a] = mate[b] = -1;
    }
    return false;
}

static int by_points_tour_cmp(const void *x, const void *y)
{
    return by_standing(x, y);
}

/* A Swiss round: the players by points; an odd field's lowest who has not
 * sat out yet sits out; each paired with the nearest not met (when no such
 * pairing exists, or the search runs long, the nearest in order). */
static bool swiss_make_round(board_service *svc, tour *t)
{
    int n = t->n_players;
    int *order = malloc(((size_t)n + 1) * sizeof *order);
    int *mate = malloc(((size_t)n + 1) * sizeof *mate);
    bool made = false;
    if (!order || !mate)
        goto out;
    for (int i = 0; i < n; i++)
        order[i] = i;
    by_standing_tour = t;
    qsort(order, (size_t)n, sizeof *order, by_points_tour_cmp);
    if (n & 1) {
        /* who sits out: the lowest who has played every round so far */
        int out = n - 1;
        for (int i = n - 1; i >= 0; i--) {
            if (t->players[order[i]].games >= t->round - 1) {
                out = i;
                break;
            }
        }
        memmove(&order[out], &order[out + 1], (size_t)(n - out - 1) * sizeof *order);
        n--;
    }
    for (int i = 0; i < n; i++)
        mate[i] = -1;
    long budget = 200000;
    if (!swiss_match(t, order, n, mate, &budget)) {
        for (int i = 0; i < n; i++)
            mate[i] = i ^ 1;            /* the nearest in order, rematches and all */
    }
    for (int a = 0; a < n; a++) {
        if (mate[a] < a)
            continue;
        int pair[2] = {order[a], order[mate[a]]};
        shuffle(pair, 2);               /* who begins is drawn */
        made |= make_game(svc, t, pair, 2, t->round) == 0;
    }
out:
    free(order);
    free(mate);
    return made;
}

static bool round_has_games(const tour *t, int round)
{
    for (int g = 0; g < t->n_games; g++)
        if (t->games[g].round == round)
            return true;
    return false;
}

static void rr_start(board_service *svc, tour *t)
{
    (void)svc;
    t->status = SUNGKA__V1__TOURNAMENT_STATUS__TOURNAMENT_STATUS_RUNNING;
    t->started_ms = board_wall_ms();
    t->round = 1;
    if (t->format == SUNGKA__V1__TOURNAMENT_FORMAT__TOURNAMENT_FORMAT_SWISS) {
        /* enough rounds for one winner (log2 of the field), or as asked;
         * never more than there are opponents to meet */
        int most = t->n_players - 1 + (t->n_players & 1), log2 = 0;
        while ((1 << log2) < t->n_players)
            log2++;
        if (t->rounds == 0)
            t->rounds = log2;
        if (t->rounds > most)
            t->rounds = most;
    } else if (t->seats == 2)
        t->rounds = t->n_players - 1 + (t->n_players & 1);
    else if (t->rounds == 0)
        t->rounds = t->n_players;
}

/* One tournament's turn: results, pairings, rounds, the end. */
static void run_one(board_service *svc, tour *t, int64_t now)
{
    if (t->status == SUNGKA__V1__TOURNAMENT_STATUS__TOURNAMENT_STATUS_FINISHED) {
        if (t->dirty)
            changed(svc, t);
        return;
    }
    bool change = collect_results(svc, t) || t->dirty;
    if (t->format == SUNGKA__V1__TOURNAMENT_FORMAT__TOURNAMENT_FORMAT_ARENA) {
        if (board_wall_ms() >= t->ends_ms) {
            if (unfinished_games(t) == 0) {
                t->status = SUNGKA__V1__TOURNAMENT_STATUS__TOURNAMENT_STATUS_FINISHED;
                board_log(svc, "tournament %s: the arena is over", t->id);
                change = true;
            }
        } else {
            change |= arena_pair(svc, t, now);
        }
    } else if (t->status == SUNGKA__V1__TOURNAMENT_STATUS__TOURNAMENT_STATUS_RUNNING) {
        bool swiss = t->format == SUNGKA__V1__TOURNAMENT_FORMAT__TOURNAMENT_FORMAT_SWISS;
        if (!round_has_games(t, t->round)) {
            change |= swiss ? swiss_make_round(svc, t) : rr_make_round(svc, t);
        } else if (unfinished_games(t) == 0) {
            if (t->round >= t->rounds) {
                t->status = SUNGKA__V1__TOURNAMENT_STATUS__TOURNAMENT_STATUS_FINISHED;
                board_log(svc, "tournament %s: the round robin is over", t->id);
            } else {
                t->round++;
                board_log(svc, "tournament %s: round %d", t->id, t->round);
                if (swiss)
                    swiss_make_round(svc, t);
                else
                    rr_make_round(svc, t);
            }
            change = true;
        }
    }
    if (change)
        changed(svc, t);
}

void board_tournaments_tick(board_service *svc, int64_t now)
{
    board_tournaments *ts = svc->tournaments;
    if (!ts || now < ts->next_tick_ms || !svc->store)
        return;
    ts->next_tick_ms = now + TOUR_TICK_MS;
    for (int i = 0; i < ts->n; i++)
        run_one(svc, ts->t[i], now);
}

/* ------------------------------------------------------------ records */

static tour *tour_from_record(const Sungka__V1__TournamentRecord *rec, char *err, size_t errlen)
{
    const Sungka__V1__Tournament *m = rec->tournament;
    if (!m || !m->id || strlen(m->id) >= sizeof ((tour *)0)->id) {
        snprintf(err, errlen, "a tournament without an id");
        return NULL;
    }
    const game_kind *kind = game_kind_find(m->kind);
    if (!kind) {
        snprintf(err, errlen, "tournament %s: unknown kind '%s'", m->id, m->kind);
        return NULL;
    }
    tour *t = calloc(1, sizeof *t);
    if (!t)
        return NULL;
    snprintf(t->id, sizeof t->id, "%s", m->id);
    snprintf(t->title, sizeof t->title, "%s", m->title);
    snprintf(t->creator, sizeof t->creator, "%s", m->creator);
    snprintf(t->creator_host, sizeof t->creator_host, "%s", rec->creator_host);
    t->kind = kind;
    for (size_t i = 0; i < m->n_options && i < TOUR_MAX_OPTIONS; i++) {
        snprintf(t->opt_name[i], sizeof t->opt_name[i], "%s", m->options[i]->name);
        t->opt_value[i] = m->options[i]->value;
        t->n_opts++;
    }
    if (m->time_control) {
        t->has_tc = true;
        sungka__v1__time_control__init(&t->tc);
        t->tc.per_move_s = m->time_control->per_move_s;
        t->tc.base_s = m->time_control->base_s;
        t->tc.increment_s = m->time_control->increment_s;
    }
    t->format = m->format;
    t->status = m->status;
    t->seconds = m->seconds;
    t->rounds = m->rounds;
    t->max_players = m->max_players;
    t->seats = m->seats < 2 || m->seats > GAME_MAX_SEATS ? 2 : m->seats;
    t->round = m->round;
    t->rated = m->rated;
    t->started_ms = m->started_ms;
    t->ends_ms = m->ends_ms;
    /* room for its whole field: a running arena takes players still */
    size_t room_for = rec->n_players > (size_t)m->max_players ? rec->n_players
                                                               : (size_t)m->max_players;
    t->players = calloc(room_for + 1, sizeof *t->players);
    t->games = calloc(m->n_games + 1, sizeof *t->games);
    if (!t->players || !t->games) {
        free(t->players);
        free(t->games);
        free(t);
        return NULL;
    }
    int64_t now = board_now_ms();
    for (size_t i = 0; i < rec->n_players; i++) {
        const Sungka__V1__TournamentRecordPlayer *rp = rec->players[i];
        tour_player *p = &t->players[t->n_players++];
        snprintf(p->name, sizeof p->name, "%s", rp->name);
        snprintf(p->token, sizeof p->token, "%s", rp->token);
        snprintf(p->host, sizeof p->host, "%s", rp->host);
        snprintf(p->last_opp, sizeof p->last_opp, "%s", rp->last_opponent);
        p->account_id = rp->account_id;
        p->points = rp->points;
        p->games = rp->games;
        p->wins = rp->wins;
        p->streak = rp->streak;
        p->withdrawn = rp->withdrawn;
        p->rating = rp->rating;
        p->free_since_ms = now;
    }
    t->cap_games = (int)m->n_games + 1;
    for (size_t i = 0; i < m->n_games; i++) {
        const Sungka__V1__TournamentGame *mg = m->games[i];
        tour_game *g = &t->games[t->n_games];
        memset(g, 0, sizeof *g);
        g->round = mg->round;
        snprintf(g->id, sizeof g->id, "%s", mg->game_id);
        g->finished = mg->finished;
        for (size_t s = 0; s < mg->n_players && s < GAME_MAX_SEATS; s++) {
            int p = find_player_name(t, mg->players[s]);
            if (p < 0)
                continue;
            g->player[g->n] = p;
            g->points[g->n] = s < mg->n_points ? mg->points[s] : 0;
            g->n++;
        }
        t->n_games++;
    }
    return t;
}

static int add_tour(board_tournaments *ts, tour *t)
{
    if (ts->n == ts->cap) {
        int cap = ts->cap ? ts->cap * 2 : 8;
        tour **grown = realloc(ts->t, (size_t)cap * sizeof *grown);
        if (!grown)
            return -1;
        ts->t = grown;
        ts->cap = cap;
    }
    ts->t[ts->n++] = t;
    unsigned number = (unsigned)strtoul(t->id + 1, NULL, 10);
    if (number > ts->next_id)
        ts->next_id = number;
    return 0;
}

static void free_tour(tour *t)
{
    if (!t)
        return;
    free(t->players);
    free(t->games);
    free(t);
}

typedef struct recover_ctx {
    board_service *svc;
    int n, bad;
} recover_ctx;

static void recover_one(void *user, const char *id, const void *data, size_t len)
{
    recover_ctx *ctx = user;
    Sungka__V1__TournamentRecord *rec =
        sungka__v1__tournament_record__unpack(NULL, len, data);
    char err[256] = "out of memory";
    tour *t = rec ? tour_from_record(rec, err, sizeof err) : NULL;
    if (rec)
        sungka__v1__tournament_record__free_unpacked(rec, NULL);
    if (!t || add_tour(tours_of(ctx->svc), t) != 0) {
        board_log_at(ctx->svc, LOG_ERR, "tournament %s: cannot read its record: %s", id,
                     rec ? err : "not a tournament record");
        free_tour(t);
        ctx->bad++;
        return;
    }
    ctx->n++;
}

int board_tournaments_recover(board_service *svc, char *err, size_t errlen)
{
    if (!svc->store || svc->cfg.tournaments == BOARD_TOURNAMENTS_OFF)
        return 0;
    if (!tours_of(svc)) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    recover_ctx ctx = {svc, 0, 0};
    if (store_tournaments_load(svc->store, recover_one, &ctx) != 0) {
        snprintf(err, errlen, "cannot read the tournaments: %s", store_last_error(svc->store));
        return -1;
    }
    if (ctx.n > 0)
        board_log(svc, "recovered %d tournament%s", ctx.n, ctx.n == 1 ? "" : "s");
    return 0;
}

/* ------------------------------------------------------------ the calls */

/* Tournaments on, a store kept: true, or false answered. */
static bool available(board_service *svc, rpc_call *call)
{
    if (svc->cfg.tournaments == BOARD_TOURNAMENTS_OFF) {
        rpc_call_finish_reason(call, RPC_UNIMPLEMENTED, "NOT_HERE",
                               "this board service holds no tournaments (--tournaments=off)");
        return false;
    }
    if (!svc->store) {
        rpc_call_finish_reason(call, RPC_FAILED_PRECONDITION, "NO_STORE",
                               "this board service keeps no store, so no tournaments");
        return false;
    }
    if (!tours_of(svc)) {
        board_fail(call, RPC_RESOURCE_EXHAUSTED, "out of memory");
        return false;
    }
    return !board_relay_refused(svc, call);
}

static tour *named_tour(board_service *svc, rpc_call *call, const char *id)
{
    tour *t = find_tour(svc, id);
    if (!t) {
        char echo[48], err[128];
        snprintf(err, sizeof err, "there is no tournament '%s' (ListTournaments lists them)",
                 board_echo(id, echo, sizeof echo));
        board_fail(call, RPC_NOT_FOUND, err);
    }
    return t;
}

static void reply_tour(rpc_call *call, const tour *t, int kind)
{
    tour_msg tm;
    if (tour_msg_fill(t, true, &tm) != 0) {
        tour_msg_clear(&tm);
        board_fail(call, RPC_RESOURCE_EXHAUSTED, "out of memory");
        return;
    }
    if (kind == 0) {
        Sungka__V1__CreateTournamentResponse r = SUNGKA__V1__CREATE_TOURNAMENT_RESPONSE__INIT;
        r.tournament = &tm.m;
        rpc_call_reply(call, &r.base);
    } else {
        Sungka__V1__GetTournamentResponse r = SUNGKA__V1__GET_TOURNAMENT_RESPONSE__INIT;
        r.tournament = &tm.m;
        rpc_call_reply(call, &r.base);
    }
    tour_msg_clear(&tm);
}

/* Unfinished tournaments, all (host NULL) or made from host. */
static int running_count(board_service *svc, const char *host)
{
    int n = 0;
    for (int i = 0; i < svc->tournaments->n; i++)
        n += svc->tournaments->t[i]->status !=
             SUNGKA__V1__TOURNAMENT_STATUS__TOURNAMENT_STATUS_FINISHED &&
             (!host || strcmp(svc->tournaments->t[i]->creator_host, host) == 0);
    return n;
}

static void create(rpc_call *call, const ProtobufCMessage *request, void *user)
{
    board_service *svc = user;
    const Sungka__V1__CreateTournamentRequest *req = (const void *)request;
    char err[256], why[64];
    if (!available(svc, call))
        return;
    if (svc->cfg.tournaments == BOARD_TOURNAMENTS_OPERATOR && !board_admin_caller(svc, call))
        return;
    const game_kind *kind = game_kind_find(req->kind);
    if (!kind) {
        char echo[48];
        snprintf(err, sizeof err, "unknown game kind '%s' (ListKinds lists them)",
                 board_echo(req->kind, echo, sizeof echo));
        board_fail(call, RPC_INVALID_ARGUMENT, err);
        return;
    }
    game_options opts;
    if (req->n_options > TOUR_MAX_OPTIONS) {
        board_fail(call, RPC_INVALID_ARGUMENT, "too many options");
        return;
    }
    if (board_read_options(kind, req->options, req->n_options, &opts, err, sizeof err) != 0) {
        board_fail(call, RPC_INVALID_ARGUMENT, err);
        return;
    }
    const Sungka__V1__TimeControl *tc = req->time_control;
    if (tc && (tc->per_move_s < 0 || tc->per_move_s > TC_PER_MOVE_MAX_S || tc->base_s < 0 ||
               tc->base_s > TC_BASE_MAX_S || tc->increment_s < 0 ||
               tc->increment_s > TC_INCREMENT_MAX_S || (tc->per_move_s && tc->base_s))) {
        snprintf(err, sizeof err, "a time control is per_move_s 1..%d, or base_s 1..%d with "
                 "increment_s 0..%d", TC_PER_MOVE_MAX_S, TC_BASE_MAX_S, TC_INCREMENT_MAX_S);
        board_fail(call, RPC_INVALID_ARGUMENT, err);
        return;
    }
    game_state *st = malloc(sizeof *st);
    if (!st || game_new(st, kind, &opts, err, sizeof err) != GAME_OK) {
        free(st);
        board_fail(call, st ? RPC_INVALID_ARGUMENT : RPC_RESOURCE_EXHAUSTED,
                   st ? err : "out of memory");
        return;
    }
    int seats = game_seats(st);
    free(st);
    bool arena = req->format == SUNGKA__V1__TOURNAMENT_FORMAT__TOURNAMENT_FORMAT_ARENA;
    bool swiss = req->format == SUNGKA__V1__TOURNAMENT_FORMAT__TOURNAMENT_FORMAT_SWISS;
    if (!arena && !swiss &&
        req->format != SUNGKA__V1__TOURNAMENT_FORMAT__TOURNAMENT_FORMAT_ROUND_ROBIN) {
        board_fail(call, RPC_INVALID_ARGUMENT, "a tournament's format is an arena, a round "
                                               "robin or a Swiss tournament");
        return;
    }
    if (swiss && seats != 2) {
        board_fail(call, RPC_INVALID_ARGUMENT, "a Swiss tournament pairs two players a game: "
                                               "for tables of more seats, make a round robin "
                                               "(its tables are drawn each round)");
        return;
    }
    int seconds = req->minutes ? req->minutes * 60 : req->seconds;
    if (arena && (req->minutes < 0 || req->minutes > 1440 ||
                  (req->minutes == 0 && (req->seconds < 10 || req->seconds > 86400)))) {
        board_fail(call, RPC_INVALID_ARGUMENT, "an arena lasts 1..1440 minutes (or 10..86400 "
                                               "seconds)");
        return;
    }
    if (!arena && (req->rounds < 0 || req->rounds > RR_MAX_ROUNDS)) {
        snprintf(err, sizeof err, "a round robin plays 1..%d rounds (0: one per player)",
                 RR_MAX_ROUNDS);
        board_fail(call, RPC_INVALID_ARGUMENT, err);
        return;
    }
    int max_players = svc->cfg.max_tournament_players;
    if (req->max_players < 2 || req->max_players > max_players ||
        req->max_players < seats) {
        snprintf(err, sizeof err, "a tournament of %s has %d..%d players", kind->name,
                 seats, max_players);
        board_fail(call, RPC_INVALID_ARGUMENT, err);
        return;
    }
    if (strlen(req->title) > TOUR_TITLE_MAX * 4 || text_check(req->title, why, sizeof why)) {
        snprintf(err, sizeof err, "the title %s", strlen(req->title) > TOUR_TITLE_MAX * 4
                                                      ? "is too long (at most 64 characters)"
                                                      : why);
        board_fail(call, RPC_INVALID_ARGUMENT, err);
        return;
    }
    /* The operator's call carries the admin token, not a session. */
    store_account acct;
    bool operator = svc->cfg.tournaments == BOARD_TOURNAMENTS_OPERATOR;
    int who = operator ? 0 : board_lobby_caller(svc, call, &acct);
    if (who < 0)
        return;
    if (req->rated && who == 0 && !operator) {
        rpc_call_finish_reason(call, RPC_UNAUTHENTICATED, "ACCOUNT_REQUIRED",
                               "rated tournaments are made by signed-in players: sign in");
        return;
    }
    char host[BOARD_HOST_BYTES];
    board_peer_host(svc, call, host, sizeof host);
    int mine = running_count(svc, host);
    if (!operator && mine >= svc->cfg.client_tournaments) {
        snprintf(err, sizeof err, "your address already has %d tournament%s not yet finished "
                 "(at most %d at a time)", mine, mine == 1 ? "" : "s",
                 svc->cfg.client_tournaments);
        board_log_limit(svc, host, err);
        rpc_call_finish_reason(call, RPC_RESOURCE_EXHAUSTED, "LIMIT_REACHED", err);
        return;
    }
    if (running_count(svc, NULL) >= svc->cfg.max_tournaments) {
        snprintf(err, sizeof err, "the service already holds %d tournaments (the most): try "
                 "again once one has finished", svc->cfg.max_tournaments);
        board_log_limit(svc, host, err);
        board_fail(call, RPC_RESOURCE_EXHAUSTED, err);
        return;
    }
    tour *t = calloc(1, sizeof *t);
    if (t)
        t->players = calloc((size_t)req->max_players + 1, sizeof *t->players);
    if (!t || !t->players) {
        free_tour(t);
        board_fail(call, RPC_RESOURCE_EXHAUSTED, "out of memory");
        return;
    }
    board_tournaments *ts = svc->tournaments;
    snprintf(t->id, sizeof t->id, "t%u", ts->next_id + 1);
    if (req->title[0])
        snprintf(t->title, sizeof t->title, "%s", req->title);
    else
        snprintf(t->title, sizeof t->title, "%s %s", kind->title,
                 arena ? "arena" : swiss ? "Swiss" : "round robin");
    snprintf(t->creator_host, sizeof t->creator_host, "%s", host);
    snprintf(t->creator, sizeof t->creator, "%s", operator ? "the operator"
                                                  : who > 0 ? acct.name : "");
    t->kind = kind;
    for (size_t i = 0; i < req->n_options; i++) {
        snprintf(t->opt_name[i], sizeof t->opt_name[i], "%s", req->options[i]->name);
        t->opt_value[i] = req->options[i]->value;
        t->n_opts++;
    }
    if (tc) {
        t->has_tc = true;
        sungka__v1__time_control__init(&t->tc);
        t->tc.per_move_s = tc->per_move_s;
        t->tc.base_s = tc->base_s;
        t->tc.increment_s = tc->increment_s;
    }
    t->format = req->format;
    t->seats = seats;
    t->max_players = req->max_players;
    t->rated = req->rated;
    if (arena) {
        t->seconds = seconds;
        t->status = SUNGKA__V1__TOURNAMENT_STATUS__TOURNAMENT_STATUS_RUNNING;
        t->started_ms = board_wall_ms();
        t->ends_ms = t->started_ms + (int64_t)seconds * 1000;
    } else {
        t->rounds = seats == 2 && !swiss ? 0 : req->rounds;
        t->status = SUNGKA__V1__TOURNAMENT_STATUS__TOURNAMENT_STATUS_WAITING;
    }
    if (save(svc, t) != 0 || add_tour(ts, t) != 0) {
        snprintf(err, sizeof err, "cannot store the tournament: %s", store_last_error(svc->store));
        free_tour(t);
        board_fail(call, RPC_UNAVAILABLE, err);
        return;
    }
    board_log_client(svc, LOG_INFO, host, "tournament %s created: %s %s of %s", t->id,
                     arena ? "an arena" : swiss ? "a Swiss" : "a round robin", t->title,
                     kind->name);
    reply_tour(call, t, 0);
}

static void join(rpc_call *call, const ProtobufCMessage *request, void *user)
{
    board_service *svc = user;
    const Sungka__V1__JoinTournamentRequest *req = (const void *)request;
    char err[256];
    if (!available(svc, call))
        return;
    tour *t = named_tour(svc, call, req->tournament_id);
    if (!t)
        return;
    if (t->status == SUNGKA__V1__TOURNAMENT_STATUS__TOURNAMENT_STATUS_FINISHED ||
        (t->format != SUNGKA__V1__TOURNAMENT_FORMAT__TOURNAMENT_FORMAT_ARENA &&
         t->status != SUNGKA__V1__TOURNAMENT_STATUS__TOURNAMENT_STATUS_WAITING) ||
        (t->ends_ms && board_wall_ms() >= t->ends_ms)) {
        rpc_call_finish_reason(call, RPC_FAILED_PRECONDITION, "BAD_REQUEST",
                               "that tournament takes no more players: it has started or ended");
        return;
    }
    if (t->n_players >= t->max_players) {   /* players[] has room for max_players */
        snprintf(err, sizeof err, "that tournament is full (%d players)", t->max_players);
        rpc_call_finish_reason(call, RPC_RESOURCE_EXHAUSTED, "GAME_FULL", err);
        return;
    }
    board_client *from = board_client_of(svc, call);
    if (!from) {
        board_fail(call, RPC_RESOURCE_EXHAUSTED, "out of memory");
        return;
    }
    if (board_client_may_join(svc, from, from, false, err, sizeof err) != 0) {
        rpc_call_finish_reason(call, RPC_RESOURCE_EXHAUSTED, "LIMIT_REACHED", err);
        return;
    }
    store_account acct;
    int who = board_lobby_caller(svc, call, &acct);
    if (who < 0)
        return;
    tour_player p = {0};
    if (who > 0) {
        if (board_account_name(svc, call, &acct, req->name) != 0)
            return;
        snprintf(p.name, sizeof p.name, "%s", acct.name);
        p.account_id = acct.id;
    } else if (t->rated) {
        rpc_call_finish_reason(call, RPC_UNAUTHENTICATED, "ACCOUNT_REQUIRED",
                               "a rated tournament is for signed-in players: sign in to join");
        return;
    } else if (board_clean_name(req->name, p.name, sizeof p.name, err, sizeof err) != 0) {
        board_fail(call, RPC_INVALID_ARGUMENT, err);
        return;
    } else if (board_guest_name(svc, call, p.name) != 0) {
        return;
    }
    if (find_player_name(t, p.name) >= 0) {
        rpc_call_finish_reason(call, RPC_ALREADY_EXISTS, "NAME_TAKEN",
                               "someone of that name has already joined this tournament");
        return;
    }
    p.rating = TOUR_GUEST_RATING;
    if (p.account_id > 0) {
        store_rating sr;
        int rc = store_rating_get(svc->store, p.account_id, t->kind->name, &sr);
        if (rc == 0) {
            p.rating = (int)(sr.rating + 0.5);
        } else if (rc != STORE_NOT_FOUND) {
            snprintf(err, sizeof err, "cannot read your rating: %s",
                     store_last_error(svc->store));
            board_fail(call, RPC_UNAVAILABLE, err);
            return;
        }
    }
    board_peer_host(svc, call, p.host, sizeof p.host);
    uint8_t raw[BOARD_TOKEN_HEX / 2];
    randombytes_buf(raw, sizeof raw);
    for (size_t i = 0; i < sizeof raw; i++)
        snprintf(p.token + 2 * i, 3, "%02x", raw[i]);
    p.free_since_ms = board_now_ms();
    t->players[t->n_players++] = p;
    bool start = t->format != SUNGKA__V1__TOURNAMENT_FORMAT__TOURNAMENT_FORMAT_ARENA &&
                 t->n_players == t->max_players;
    if (start)
        rr_start(svc, t);
    if (save(svc, t) != 0) {
        t->n_players--;
        if (start) {
            t->status = SUNGKA__V1__TOURNAMENT_STATUS__TOURNAMENT_STATUS_WAITING;
            t->round = 0;
            t->started_ms = 0;
        }
        t->dirty = false;
        snprintf(err, sizeof err, "cannot store your place: %s", store_last_error(svc->store));
        board_fail(call, RPC_UNAVAILABLE, err);
        return;
    }
    board_log_client(svc, LOG_INFO, p.host, "%s joined tournament %s", p.name, t->id);
    tour_msg tm;
    if (tour_msg_fill(t, true, &tm) != 0) {
        tour_msg_clear(&tm);
        board_fail(call, RPC_RESOURCE_EXHAUSTED, "out of memory");
        return;
    }
    Sungka__V1__JoinTournamentResponse r = SUNGKA__V1__JOIN_TOURNAMENT_RESPONSE__INIT;
    r.player_token = t->players[t->n_players - 1].token;
    r.tournament = &tm.m;
    rpc_call_reply(call, &r.base);
    tour_msg_clear(&tm);
    tell(svc, t);
    if (start)
        svc->tournaments->next_tick_ms = 0;   /* the first round at once */
}

static void leave(rpc_call *call, const ProtobufCMessage *request, void *user)
{
    board_service *svc = user;
    const Sungka__V1__LeaveTournamentRequest *req = (const void *)request;
    if (!available(svc, call))
        return;
    tour *t = named_tour(svc, call, req->tournament_id);
    if (!t)
        return;
    int p = find_player_token(t, req->player_token);
    if (p < 0) {
        rpc_call_finish_reason(call, RPC_UNAUTHENTICATED, "UNKNOWN_TOKEN",
                               "that is not a player token of this tournament");
        return;
    }
    if (t->format != SUNGKA__V1__TOURNAMENT_FORMAT__TOURNAMENT_FORMAT_ARENA) {
        if (t->status != SUNGKA__V1__TOURNAMENT_STATUS__TOURNAMENT_STATUS_WAITING) {
            rpc_call_finish_reason(call, RPC_FAILED_PRECONDITION, "BAD_REQUEST",
                                   "a round robin's or a Swiss tournament's field is "
                                   "fixed once it has started: resign your games instead");
            return;
        }
        tour_player gone = t->players[p];
        memmove(&t->players[p], &t->players[p + 1],
                (size_t)(t->n_players - p - 1) * sizeof *t->players);
        t->n_players--;
        if (save(svc, t) != 0) {
            memmove(&t->players[p + 1], &t->players[p],
                    (size_t)(t->n_players - p) * sizeof *t->players);
            t->players[p] = gone;
            t->n_players++;
            t->dirty = false;
            board_fail(call, RPC_UNAVAILABLE, "cannot store that you left: try again");
            return;
        }
        /* the watchers' player indices after p moved down one */
        board_tournaments *ts = svc->tournaments;
        for (int i = 0; i < ts->watchers.n; i++) {
            tour_watch *w = ts->watchers.e[i];
            if (w->t != t)
                continue;
            if (w->player == p)
                w->player = -1;
            else if (w->player > p)
                w->player--;
        }
    } else {
        t->players[p].withdrawn = true;
        if (save(svc, t) != 0) {
            t->players[p].withdrawn = false;
            t->dirty = false;
            board_fail(call, RPC_UNAVAILABLE, "cannot store that you left: try again");
            return;
        }
    }
    board_log(svc, "a player left tournament %s", t->id);
    Sungka__V1__LeaveTournamentResponse r = SUNGKA__V1__LEAVE_TOURNAMENT_RESPONSE__INIT;
    rpc_call_reply(call, &r.base);
    tell(svc, t);
}

static void list(rpc_call *call, const ProtobufCMessage *request, void *user)
{
    board_service *svc = user;
    const Sungka__V1__ListTournamentsRequest *req = (const void *)request;
    if (!available(svc, call))
        return;
    if (strlen(req->player) >= BOARD_NAME_BYTES) {
        board_fail(call, RPC_INVALID_ARGUMENT, "that is longer than any player's name");
        return;
    }
    board_tournaments *ts = svc->tournaments;
    tour_msg *tm = calloc((size_t)ts->n + 1, sizeof *tm);
    Sungka__V1__Tournament **out = calloc((size_t)ts->n + 1, sizeof *out);
    int n = 0;
    bool ok = tm && out;
    for (int i = ts->n - 1; ok && i >= 0 && n < TOUR_LIST_MAX; i--) {
        if (req->player[0] && find_player_name(ts->t[i], req->player) < 0)
            continue;
        ok = tour_msg_fill(ts->t[i], false, &tm[n]) == 0;
        out[n] = &tm[n].m;
        n++;
    }
    if (ok) {
        Sungka__V1__ListTournamentsResponse r = SUNGKA__V1__LIST_TOURNAMENTS_RESPONSE__INIT;
        r.tournaments = out;
        r.n_tournaments = (size_t)n;
        rpc_call_reply(call, &r.base);
    } else {
        board_fail(call, RPC_RESOURCE_EXHAUSTED, "out of memory");
    }
    for (int i = 0; tm && i < n; i++)
        tour_msg_clear(&tm[i]);
    free(tm);
    free(out);
}

static void get(rpc_call *call, const ProtobufCMessage *request, void *user)
{
    board_service *svc = user;
    const Sungka__V1__GetTournamentRequest *req = (const void *)request;
    if (!available(svc, call))
        return;
    tour *t = named_tour(svc, call, req->tournament_id);
    if (t)
        reply_tour(call, t, 1);
}

static void watch_done(rpc_call *call, bool client_gone, void *user)
{
    (void)client_gone;
    board_service *svc = user;
    board_tournaments *ts = svc->tournaments;
    tour_watch *w = ts ? board_waiting_remove(&ts->watchers, call) : NULL;
    if (!w)
        return;
    if (w->base.from)
        w->base.from->streams--;
    free(w);
}

static void watch(rpc_call *call, const ProtobufCMessage *request, void *user)
{
    board_service *svc = user;
    const Sungka__V1__WatchTournamentRequest *req = (const void *)request;
    char err[160];
    if (!available(svc, call))
        return;
    tour *t = named_tour(svc, call, req->tournament_id);
    if (!t)
        return;
    int p = -1;
    if (req->player_token[0] && (p = find_player_token(t, req->player_token)) < 0) {
        rpc_call_finish_reason(call, RPC_UNAUTHENTICATED, "UNKNOWN_TOKEN",
                               "that is not a player token of this tournament");
        return;
    }
    board_client *from = board_client_of(svc, call);
    if (!from) {
        board_fail(call, RPC_RESOURCE_EXHAUSTED, "out of memory");
        return;
    }
    if (!from->relay && from->streams >= svc->cfg.max_client_streams) {
        snprintf(err, sizeof err, "your address already has %d streams open (the most)",
                 from->streams);
        board_log_limit(svc, from->host, err);
        board_fail(call, RPC_RESOURCE_EXHAUSTED, err);
        return;
    }
    board_tournaments *ts = svc->tournaments;
    tour_watch *w = calloc(1, sizeof *w);
    if (!w || board_waiting_add(&ts->watchers, w) != 0) {
        free(w);
        board_fail(call, RPC_RESOURCE_EXHAUSTED, "out of memory");
        return;
    }
    w->base.call = call;
    w->base.from = from;
    w->t = t;
    w->player = p;
    from->streams++;
    rpc_call_on_done(call, watch_done, svc);
    if (p >= 0 && !game_of(t, p))
        t->players[p].free_since_ms = board_now_ms();
    tour_msg tm;
    if (tour_msg_fill(t, true, &tm) == 0) {
        send_to(svc, w, &tm);
        if (t->status == SUNGKA__V1__TOURNAMENT_STATUS__TOURNAMENT_STATUS_FINISHED) {
            w->base.done = true;
            rpc_call_finish(call, RPC_OK, NULL);
        }
    }
    tour_msg_clear(&tm);
    ts->next_tick_ms = 0;              /* a present player may be paired at once */
}

const rpc_method_entry board_tournament_methods[] = {
    {"CreateTournament", create, false, false, false},
    {"JoinTournament", join, false, false, false},
    {"LeaveTournament", leave, false, false, false},
    {"ListTournaments", list, false, false, false},
    {"GetTournament", get, false, false, false},
    {"WatchTournament", watch, true, false, false},
};

const size_t board_tournament_n_methods =
    sizeof board_tournament_methods / sizeof board_tournament_methods[0];

void board_tournaments_close(board_service *svc, const char *why)
{
    if (svc->tournaments)
        board_waiting_close(&svc->tournaments->watchers, why);
}

const char *board_tournament_title(board_service *svc, const char *id)
{
    const tour *t = id && id[0] ? find_tour(svc, id) : NULL;
    return t ? t->title : "";
}

void board_tournaments_count(board_service *svc, int by_status[4], int *players)
{
    board_tournaments *ts = svc->tournaments;
    for (int st = 0; st < 4; st++)
        by_status[st] = 0;
    *players = 0;
    for (int i = 0; ts && i < ts->n; i++) {
        const tour *t = ts->t[i];
        if (t->status >= 1 && t->status <= 3)
            by_status[t->status]++;
        if (t->status != SUNGKA__V1__TOURNAMENT_STATUS__TOURNAMENT_STATUS_FINISHED)
            *players += t->n_players;
    }
}

void board_tournaments_free(board_service *svc)
{
    board_tournaments *ts = svc->tournaments;
    if (!ts)
        return;
    for (int i = 0; i < ts->n; i++)
        free_tour(ts->t[i]);
    board_waiting_free(&ts->watchers);
    free(ts->t);
    free(ts);
    svc->tournaments = NULL;
}
