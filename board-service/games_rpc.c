/*
 * games_rpc.c — the Register service's calls about games: ListGames (this
 * node's and, in a cluster, the others'), CreateGame and JoinGame, with the
 * checks of names, options and per-client caps they make first, and the
 * kinds a game may be of with their options (ListKinds); QuickPair's
 * handler is pairing.c's. The other
 * Register calls read the store's history (history.c). Loop thread only.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>

#include "accounts.h"
#include "board_rpc.h"
#include "text.h"
#include "version.h"

/* Trim and check a player name: 1..32 printable characters. */
int board_clean_name(const char *in, char *out, size_t outlen, char *err, size_t errlen)
{
    while (*in == ' ')
        in++;
    size_t len = strlen(in);
    while (len > 0 && in[len - 1] == ' ')
        len--;
    char why[64];
    if (len >= outlen) {
        snprintf(err, errlen, "a name must be 1..%d characters", BOARD_NAME_MAX);
        return -1;
    }
    memcpy(out, in, len);
    out[len] = '\0';
    if (text_check(out, why, sizeof why) != 0) {
        snprintf(err, errlen, "the name %s", why);
        return -1;
    }
    size_t chars = text_chars(out);
    if (chars == 0 || chars > BOARD_NAME_MAX) {
        snprintf(err, errlen, "a name must be 1..%d characters", BOARD_NAME_MAX);
        return -1;
    }
    return 0;
}


/* The other nodes' games a cluster's lobby shows at most. */
#define MAX_REMOTE_LISTED 1000

/* The lobby's order: by game id as a number (ids are decimal, from a
 * counter or the cluster's sequence, so a new game comes last), any other
 * id after the shorter ones and bytewise. A page starts after the id in its
 * token. */
static int id_order(const char *a, const char *b)
{
    size_t la = strlen(a), lb = strlen(b);
    if (la != lb)
        return la < lb ? -1 : 1;
    return strcmp(a, b);
}

/* A game the lobby may list: one of this node's rooms, or another node's
 * game as the store has it. */
typedef struct listed {
    const char *id;
    room *r;                          /* or */
    const store_remote_game *remote;
} listed;

static int by_id(const void *x, const void *y)
{
    const listed *a = x, *b = y;
    return id_order(a->id, b->id);
}

/* The quick-pairing pools, in the wire's terms; each pool's options point
 * into its own arrays (freed with the whole struct). */
typedef struct pool_space {
    Sungka__V1__PoolSummary sum;
    Sungka__V1__GameOption options[GAME_MAX_OPTIONS];
    Sungka__V1__GameOption *option_ptrs[GAME_MAX_OPTIONS];
    Sungka__V1__TimeControl tc;
} pool_space;

/* The first page's pools (ListGamesResponse.pools), into reply; *space to
 * free() after the reply is sent (NULL when none). */
static void list_pools(board_service *svc, const char *kind_name,
                       Sungka__V1__ListGamesResponse *reply, pool_space **space,
                       Sungka__V1__PoolSummary ***ptrs)
{
    board_pool_info *pools;
    int n;
    const game_kind *kind = kind_name[0] ? game_kind_find(kind_name) : NULL;
    *space = NULL;
    *ptrs = NULL;
    if ((kind_name[0] && !kind) ||
        board_pairing_pools(svc, kind, board_now_ms(), &pools, &n) != 0 || n == 0)
        return;                        /* out of memory: the games are listed without */
    pool_space *sp = calloc((size_t)n, sizeof *sp);
    Sungka__V1__PoolSummary **pp = calloc((size_t)n, sizeof *pp);
    if (!sp || !pp) {
        free(sp);
        free(pp);
        free(pools);
        return;
    }
    for (int i = 0; i < n; i++) {
        Sungka__V1__PoolSummary *s = &sp[i].sum;
        sungka__v1__pool_summary__init(s);
        s->kind = (char *)pools[i].kind->name;
        for (int o = 0; o < pools[i].kind->n_options && o < GAME_MAX_OPTIONS; o++) {
            sungka__v1__game_option__init(&sp[i].options[o]);
            sp[i].options[o].name = (char *)pools[i].kind->options[o].name;
            sp[i].options[o].value = pools[i].opts.value[o];
            sp[i].option_ptrs[o] = &sp[i].options[o];
            s->n_options++;
        }
        s->options = sp[i].option_ptrs;
        if (pools[i].per_move_s || pools[i].base_s) {
            sungka__v1__time_control__init(&sp[i].tc);
            sp[i].tc.per_move_s = pools[i].per_move_s;
            sp[i].tc.base_s = pools[i].base_s;
            sp[i].tc.increment_s = pools[i].increment_s;
            s->time_control = &sp[i].tc;
        }
        s->rated = pools[i].rated;
        s->players = pools[i].players;
        s->longest_wait_ms = pools[i].longest_wait_ms;
        pp[i] = s;
    }
    free(pools);
    reply->n_pools = (size_t)n;
    reply->pools = pp;
    *space = sp;
    *ptrs = pp;
}

static void list_games(rpc_call *call, const ProtobufCMessage *request, void *user)
{
    board_service *svc = user;
    const Sungka__V1__ListGamesRequest *req = (const void *)request;
    Sungka__V1__ListGamesResponse reply = SUNGKA__V1__LIST_GAMES_RESPONSE__INIT;
    int page;
    char err[256];
    store_page_key after;
    if (board_page_size(req->page_size, 0, 100, 1000, &page, err, sizeof err) != 0 ||
        board_page_key("games", req->page_token, &after, err, sizeof err) != 0) {
        board_fail(call, RPC_INVALID_ARGUMENT, err);
        return;
    }
    /* A cluster's node lists the other nodes' games too, as the store has them. */
    bool cluster = svc->store && store_shared(svc->store);
    store_remote_game *remote = NULL;
    int n_remote = 0;
    if (cluster && store_remote_games(svc->store, MAX_REMOTE_LISTED, &remote, &n_remote) != 0)
        board_log_at(svc, LOG_ERR, "cannot list the cluster's games: %s",
                     store_last_error(svc->store));
    /* Every game the filters and the token let through, sorted; only the
     * page's are then made into summaries. */
    size_t cap = (size_t)svc->n_rooms + (size_t)n_remote + 1;
    listed *all = calloc(cap, sizeof *all);
    Sungka__V1__GameSummary *sums = calloc((size_t)page, sizeof *sums);
    Sungka__V1__GameSummary **ptrs = calloc((size_t)page, sizeof *ptrs);
    if (!all || !sums || !ptrs) {
        free(all);
        free(sums);
        free(ptrs);
        free(remote);
        board_fail(call, RPC_RESOURCE_EXHAUSTED, "out of memory");
        return;
    }
    size_t n = 0;
    for (int i = 0; i < svc->n_rooms; i++) {
        room *r = svc->rooms[i];
        if ((req->kind[0] && strcmp(req->kind, room_kind(r)->name) != 0) ||
            (req->status && (int)req->status != (int)room_status_of(r)) ||
            (after.set && id_order(room_id(r), after.text) <= 0))
            continue;
        all[n++] = (listed){.id = room_id(r), .r = r};
    }
    for (int i = 0; i < n_remote; i++) {
        const store_game_info *g = &remote[i].game;
        if ((req->kind[0] && strcmp(req->kind, g->kind) != 0) ||
            (req->status && (int)req->status != g->status) ||
            (after.set && id_order(g->id, after.text) <= 0))
            continue;
        all[n++] = (listed){.id = g->id, .remote = &remote[i]};
    }
    qsort(all, n, sizeof *all, by_id);
    size_t shown = n > (size_t)page ? (size_t)page : n;
    for (size_t i = 0; i < shown; i++) {
        if (all[i].r) {
            wire_summary(all[i].r, &sums[i]);
            if (cluster)
                sums[i].endpoint = svc->endpoint;
        } else {
            wire_remote_summary(all[i].remote, &sums[i]);
        }
        ptrs[i] = &sums[i];
    }
    char next[BOARD_PAGE_TOKEN_BYTES] = "";
    if (n > shown) {
        store_page_key k = {.set = true};
        snprintf(k.text, sizeof k.text, "%s", all[shown - 1].id);
        board_page_token("games", &k, next, sizeof next);
    }
    reply.n_games = shown;
    reply.service_version = (char *)SUNGKA_VERSION;
    reply.games = ptrs;
    reply.next_page_token = next;
    pool_space *pool_mem = NULL;
    Sungka__V1__PoolSummary **pool_ptrs = NULL;
    if (!after.set)                    /* the first page says the pools */
        list_pools(svc, req->kind, &reply, &pool_mem, &pool_ptrs);
    rpc_call_reply(call, &reply.base);
    free(pool_mem);
    free(pool_ptrs);
    for (size_t i = 0; i < shown; i++)
        wire_summary_clear(&sums[i]);
    free(all);
    free(sums);
    free(ptrs);
    free(remote);
}

/* ListKinds: the kinds as games/ describes them (game_option_spec, the same
 * table that checks a request's options), translated to the wire here so
 * that games/ never sees protobuf. */
typedef struct kind_space {
    Sungka__V1__KindInfo info;
    Sungka__V1__KindOption options[GAME_MAX_OPTIONS];
    Sungka__V1__KindOption *option_ptrs[GAME_MAX_OPTIONS];
    Sungka__V1__NamedMove named[GAME_MAX_OPTIONS];
    Sungka__V1__NamedMove *named_ptrs[GAME_MAX_OPTIONS];
} kind_space;

/* Indexed by game_drawing. */
static const Sungka__V1__BoardLayout wire_layouts[] = {
    [GAME_DRAW_MANCALA] = SUNGKA__V1__BOARD_LAYOUT__BOARD_LAYOUT_MANCALA,
    [GAME_DRAW_DISCS] = SUNGKA__V1__BOARD_LAYOUT__BOARD_LAYOUT_DISCS,
    [GAME_DRAW_SLICES] = SUNGKA__V1__BOARD_LAYOUT__BOARD_LAYOUT_SLICES,
};

static void kind_to_wire(const game_kind *k, kind_space *sp)
{
    Sungka__V1__KindInfo *info = &sp->info;
    sungka__v1__kind_info__init(info);
    info->name = (char *)k->name;
    info->title = (char *)k->title;
    int lo, hi;
    game_kind_seats(k, &lo, &hi);
    info->min_seats = lo;
    info->max_seats = hi;
    if ((size_t)k->drawing < sizeof wire_layouts / sizeof wire_layouts[0])
        info->layout = wire_layouts[k->drawing];
    info->cells = (char *)game_kind_cells_help(k);
    for (int i = 0; i < k->n_options && i < GAME_MAX_OPTIONS; i++) {
        const game_option_spec *o = &k->options[i];
        Sungka__V1__KindOption *w = &sp->options[i];
        sungka__v1__kind_option__init(w);
        w->name = (char *)o->name;
        w->type = SUNGKA__V1__OPTION_TYPE__OPTION_TYPE_INTEGER;
        w->default_value = o->def;
        w->min = o->min;
        w->max = o->max;
        w->step = o->step > 1 ? o->step : 1;
        w->description = (char *)(o->help ? o->help : "");
        sp->option_ptrs[i] = w;
        info->n_options++;
    }
    info->options = sp->option_ptrs;
    for (int i = 0; i < k->n_named_moves && i < GAME_MAX_OPTIONS; i++) {
        const game_named_move *m = &k->named_moves[i];
        Sungka__V1__NamedMove *w = &sp->named[i];
        sungka__v1__named_move__init(w);
        w->move = m->move;
        w->name = (char *)m->name;
        w->description = (char *)(m->help ? m->help : "");
        sp->named_ptrs[i] = w;
        info->n_named_moves++;
    }
    info->named_moves = sp->named_ptrs;
}

static void list_kinds(rpc_call *call, const ProtobufCMessage *request, void *user)
{
    (void)request;
    (void)user;
    int n = game_kind_count();
    kind_space *space = calloc((size_t)n + 1, sizeof *space);
    Sungka__V1__KindInfo **ptrs = calloc((size_t)n + 1, sizeof *ptrs);
    if (!space || !ptrs) {
        free(space);
        free(ptrs);
        board_fail(call, RPC_RESOURCE_EXHAUSTED, "out of memory");
        return;
    }
    for (int i = 0; i < n; i++) {
        kind_to_wire(game_kind_at(i), &space[i]);
        ptrs[i] = &space[i].info;
    }
    Sungka__V1__ListKindsResponse reply = SUNGKA__V1__LIST_KINDS_RESPONSE__INIT;
    reply.n_kinds = (size_t)n;
    reply.kinds = ptrs;
    rpc_call_reply(call, &reply.base);
    free(space);
    free(ptrs);
}

/* Record a new game in the store (its moves and result follow as it goes). */
static int store_room(board_service *svc, const room *r, const char *tournament_id)
{
    store_game_info g;
    memset(&g, 0, sizeof g);
    snprintf(g.id, sizeof g.id, "%s", room_id(r));
    const game_kind *kind = room_kind(r);
    const time_control *tc = room_time_control(r);
    snprintf(g.kind, sizeof g.kind, "%s", kind->name);
    snprintf(g.title, sizeof g.title, "%s", room_title(r));
    g.n_options = kind->n_options;
    for (int i = 0; i < g.n_options && i < STORE_MAX_OPTIONS; i++) {
        snprintf(g.options[i].name, sizeof g.options[i].name, "%s", kind->options[i].name);
        g.options[i].value = room_options(r)->value[i];
    }
    g.autostart = room_autostart(r);
    g.per_move_ms = tc->per_move_ms;
    g.base_ms = tc->base_ms;
    g.increment_ms = tc->increment_ms;
    g.rated = room_is_rated(r);
    g.bot_takes_over = room_takeover_level(r) > 0;
    g.bot_level = room_takeover_level(r);
    g.seats = game_seats(room_state(r));
    g.status = ROOM_WAITING;
    g.created_ms = board_wall_ms();
    snprintf(g.tournament_id, sizeof g.tournament_id, "%s", tournament_id ? tournament_id : "");
    return store_game_create(svc->store, &g);
}

/* A request's options over the kind's defaults: each at most once, so a
 * request cannot pile up thousands of them or say two things of one. */
int board_read_options(const game_kind *kind, Sungka__V1__GameOption **options, size_t n,
                        game_options *opts, char *err, size_t errlen)
{
    game_options_default(kind, opts);
    if (n > (size_t)kind->n_options) {
        snprintf(err, errlen, "%s takes at most %d options, not %zu", kind->name,
                 kind->n_options, n);
        return -1;
    }
    for (size_t i = 0; i < n; i++) {
        char name[48];
        board_echo(options[i]->name, name, sizeof name);
        for (size_t j = 0; j < i; j++) {
            if (strcmp(options[i]->name, options[j]->name) == 0) {
                snprintf(err, errlen, "the option '%s' is given twice", name);
                return -1;
            }
        }
        if (game_options_set(kind, opts, name, options[i]->value, err, errlen) != GAME_OK)
            return -1;
    }
    return 0;
}

/* Make a game from a kind name and options (validated, with sentences) for
 * the client `call` came from, within the per-client cap of open games. */
room *board_new_room(board_service *svc, rpc_call *call, const char *kind_name,
                     Sungka__V1__GameOption **options, size_t n_options, const char *title_in,
                     bool autostart, const Sungka__V1__TimeControl *clock, bool rated,
                     int bot_takes_over_level, const char *tournament_id, rpc_code *code,
                     char *err, size_t errlen)
{
    char creator[BOARD_HOST_BYTES] = "tournament";
    if (call)                 /* NULL: a tournament's game, made by the service */
        board_peer_host(svc, call, creator, sizeof creator);
    int open = 0;
    for (int i = 0; call && i < svc->n_rooms; i++) {
        const room *o = svc->rooms[i];
        open += room_is_open(o) && strcmp(room_creator(o), creator) == 0;
    }
    if (open >= svc->cfg.max_games_per_client) {
        *code = RPC_RESOURCE_EXHAUSTED;
        snprintf(err, errlen, "this client already has %d open games (the limit)", open);
        board_log_limit(svc, creator, err);
        return NULL;
    }
    *code = RPC_INVALID_ARGUMENT;
    const game_kind *kind = game_kind_find(kind_name);
    if (!kind) {
        char echo[48];
        int len = snprintf(err, errlen, "unknown game kind '%s' (kinds:",
                           board_echo(kind_name, echo, sizeof echo));
        for (int i = 0; i < game_kind_count() && len < (int)errlen; i++)
            len += snprintf(err + len, errlen - (size_t)len, " %s", game_kind_at(i)->name);
        if (len < (int)errlen)
            snprintf(err + len, errlen - (size_t)len, ")");
        return NULL;
    }
    game_options opts;
    if (board_read_options(kind, options, n_options, &opts, err, errlen) != 0)
        return NULL;
    /* docs/rules.md: where a kind lets the service choose the first player
     * ("first=-1", congklak), the choice is random. */
    if (game_option(kind, &opts, "first", 0) == -1) {
        unsigned char coin = 0;
        if (getrandom(&coin, 1, 0) != 1)
            coin = (unsigned char)board_now_ms();
        game_options_set(kind, &opts, "first", coin & 1, err, errlen);
    }
    char why[64];
    if (strlen(title_in) > BOARD_TITLE_MAX) {
        snprintf(err, errlen, "a title must be at most %d bytes", BOARD_TITLE_MAX);
        return NULL;
    }
    if (text_check(title_in, why, sizeof why) != 0) {
        snprintf(err, errlen, "the title %s", why);
        return NULL;
    }
    *code = RPC_RESOURCE_EXHAUSTED;
    if (svc->n_rooms >= svc->cfg.max_games) {
        snprintf(err, errlen, "the service hosts too many games");
        board_log_limit(svc, creator, err);
        return NULL;
    }
    char id[BOARD_ID_LEN];
    unsigned number = svc->next_id + 1;
    if (svc->store && store_shared(svc->store) &&
        (board_cluster_check_history(svc, board_now_ms()) != 0 ||   /* ids forgotten? */
         store_game_next_id(svc->store, &number) != 0)) {    /* unique in the cluster */
        *code = RPC_UNAVAILABLE;
        snprintf(err, errlen, "cannot number a new game: %s", store_last_error(svc->store));
        return NULL;
    }
    svc->next_id = number;
    snprintf(id, sizeof id, "%u", number);
    char title[BOARD_TITLE_MAX + 1];
    snprintf(title, sizeof title, "%s", title_in[0] ? title_in : kind->title);
    /* Seconds on the wire, bounded before they become milliseconds. */
    time_control tc = {0, 0, 0};
    if (clock && (clock->per_move_s > TC_PER_MOVE_MAX_S || clock->base_s > TC_BASE_MAX_S ||
                  clock->increment_s > TC_INCREMENT_MAX_S || clock->per_move_s < 0 ||
                  clock->base_s < 0 || clock->increment_s < 0)) {
        tc.per_move_ms = -1;          /* out of range: room_create says so */
    } else if (clock) {
        tc = (time_control){clock->per_move_s * 1000, clock->base_s * 1000,
                            clock->increment_s * 1000};
    }
    room_settings settings = {
        .id = id, .kind = kind, .opts = &opts, .title = title, .autostart = autostart,
        .tc = tc, .rated = rated, .takeover_level = bot_takes_over_level, .creator = creator,
    };
    room *r;
    if (room_create(svc, &settings, &r, err, errlen) != ROOM_OK) {
        *code = RPC_INVALID_ARGUMENT;
        return NULL;
    }
    if (svc->store && store_room(svc, r, tournament_id) != 0) {
        *code = RPC_UNAVAILABLE;
        snprintf(err, errlen, "cannot store the new game: %s", store_last_error(svc->store));
        board_log_at(svc, LOG_ERR, "%s", err);
        room_free(r);
        return NULL;
    }
    if (board_rooms_add(svc, r) != 0) {     /* stored: a restart finds it empty */
        snprintf(err, errlen, "out of memory");
        room_free(r);
        return NULL;
    }
    board_log_client(svc, LOG_INFO, creator, "game %s created: %s", id, kind->name);
    return r;
}

/* A game made for a call that was then refused: it never was. Out of the
 * registry, so that it neither counts against its client's open games nor
 * waits in the lobby; its empty row stays in the store, as a game nobody
 * joined does, and goes the same way. */
void board_discard_room(board_service *svc, room *r)
{
    if (svc->store && store_game_forget(svc->store, room_id(r)) != 0)
        board_log_at(svc, LOG_ERR, "game %s: cannot forget it: %s", room_id(r),
                     store_last_error(svc->store));
    board_log(svc, "game %s dropped: its creation was refused", room_id(r));
    board_let_go(svc, r, "the game was never made");
}

static void create_game(rpc_call *call, const ProtobufCMessage *request, void *user)
{
    board_service *svc = user;
    const Sungka__V1__CreateGameRequest *req = (const void *)request;
    char err[256];
    rpc_code code;
    store_account acct;
    int who = board_lobby_caller(svc, call, &acct);
    if (who < 0)
        return;
    if (req->bots < 0 || req->bot_level < 0 || req->bot_level > 10) {
        board_fail(call, RPC_INVALID_ARGUMENT, "bots must be 0 or more, bot_level 1..10");
        return;
    }
    if (req->rated && req->bots > 0) {
        board_fail(call, RPC_INVALID_ARGUMENT, "games against the service's bots are unrated: "
                                               "ask for bots or for a rated game, not both");
        return;
    }
    if (req->rated && who == 0) {
        rpc_call_finish_reason(call, RPC_UNAUTHENTICATED, "ACCOUNT_REQUIRED",
                               "rated games are for signed-in players: sign in to create one");
        return;
    }
    room *r = board_new_room(svc, call, req->kind, req->options, req->n_options, req->title,
                       req->autostart, req->time_control, req->rated,
                       req->bot_takes_over ? (req->bot_level ? req->bot_level : 5) : 0, NULL,
                       &code, err, sizeof err);
    if (!r) {
        board_fail(call, code, err);
        return;
    }
    if (req->bots > 0) {
        if (req->bots >= game_seats(room_state(r))) {
            snprintf(err, sizeof err, "bots can fill at most %d of the %d seats",
                     game_seats(room_state(r)) - 1, game_seats(room_state(r)));
            board_fail(call, RPC_INVALID_ARGUMENT, err);
            board_discard_room(svc, r);
            return;
        }
        if (board_bots_spawn(svc, r, req->bots, req->bot_level ? req->bot_level : 5, err,
                             sizeof err) != 0) {
            board_fail(call, RPC_FAILED_PRECONDITION, err);
            board_discard_room(svc, r);
            return;
        }
    }
    Sungka__V1__CreateGameResponse reply = SUNGKA__V1__CREATE_GAME_RESPONSE__INIT;
    Sungka__V1__GameSummary summary;
    wire_summary(r, &summary);
    reply.game = &summary;
    rpc_call_reply(call, &reply.base);
    wire_summary_clear(&summary);
}

/* Answer a JoinGame with p's seat (or place as an observer) in r. */
static void reply_ref(board_service *svc, rpc_call *call, room *r, const participant *p)
{
    Sungka__V1__BoardRef ref = SUNGKA__V1__BOARD_REF__INIT;
    Sungka__V1__GameSummary summary;
    Sungka__V1__SeatNumber seat;
    wire_summary(r, &summary);
    ref.endpoint = svc->endpoint;
    ref.game_id = (char *)room_id(r);
    ref.token = (char *)p->token;
    ref.seat = wire_seat(p->seat, &seat);
    ref.game = &summary;
    rpc_call_reply(call, &ref.base);
    wire_summary_clear(&summary);
}

static void join_game(rpc_call *call, const ProtobufCMessage *request, void *user)
{
    board_service *svc = user;
    const Sungka__V1__JoinGameRequest *req = (const void *)request;
    char err[256], name[BOARD_NAME_BYTES];
    rpc_code code = RPC_OK;
    if (board_relay_refused(svc, call))
        return;
    /* Another node's game: join it there; a large audience: watch it at a
     * relay (before anything counts here). */
    room *known = req->any_of_kind[0] ? NULL : board_find_room(svc, req->game_id);
    if (!req->any_of_kind[0] && !known && board_cluster_redirect_game(svc, call, req->game_id))
        return;
    if (known && board_reloading(call, known))
        return;
    if (known && req->observe && !req->relay && board_send_to_relay(svc, call, known))
        return;
    /* Signed in: the account's name, as registered. A guest: any name that
     * is nobody's account and does not look like one. */
    store_account acct;
    int who = board_lobby_caller(svc, call, &acct);
    if (who < 0)
        return;
    if (who > 0) {
        if (board_account_name(svc, call, &acct, req->name) != 0)
            return;
        snprintf(name, sizeof name, "%s", acct.name);
        /* The account is in this game already: its place, with the token
         * as it is now. How a person whose seat tokens ended with their
         * sessions (room_revoke_account_tokens) takes the seat back. */
        participant *mine = known ? room_find_account(known, acct.id) : NULL;
        if (mine) {
            reply_ref(svc, call, known, mine);
            return;
        }
    } else if (board_clean_name(req->name, name, sizeof name, err, sizeof err) != 0) {
        board_fail(call, RPC_INVALID_ARGUMENT, err);
        return;
    } else if (board_guest_name(svc, call, name) != 0) {
        return;
    }
    /* From a relay: the seat is the relay's, the join its observer's. */
    board_client *from = board_client_of(svc, call);
    board_client *asker = from ? board_client_asking(svc, call) : NULL;
    if (!asker) {
        board_fail(call, RPC_RESOURCE_EXHAUSTED, "out of memory");
        return;
    }
    if (board_client_may_join(svc, from, asker, req->observe, err, sizeof err) != 0) {
        board_fail(call, RPC_RESOURCE_EXHAUSTED, err);
        return;
    }
    room *r = NULL;
    bool made = false;             /* r was made for this call */
    if (req->any_of_kind[0]) {
        /* The lobby's "any open game of kind K", made when there is none. */
        for (int i = 0; i < svc->n_rooms && !r; i++)
            if (!room_is_diverged(svc->rooms[i]) &&
                strcmp(room_kind(svc->rooms[i])->name, req->any_of_kind) == 0 &&
                room_has_open_seat(svc->rooms[i]) &&
                room_name_free(svc->rooms[i], name, who > 0 ? acct.id : 0))
                r = svc->rooms[i];
        if (!r) {
            r = board_new_room(svc, call, req->any_of_kind, req->options, req->n_options, "",
                               false, NULL, false, 0, NULL, &code, err, sizeof err);
            made = r != NULL;
        }
        if (!r) {
            board_fail(call, code, err);
            return;
        }
    } else if (!(r = known)) {
        char echo[48];
        snprintf(err, sizeof err, "there is no game '%s'",
                 board_echo(req->game_id, echo, sizeof echo));
        board_fail(call, RPC_NOT_FOUND, err);
        return;
    }
    participant *p;
    room_rc rc = room_join_as(r, name, who > 0 ? acct.id : 0, req->observe, from, NULL, &p,
                              err, sizeof err);
    if (rc != ROOM_OK) {
        board_refuse(call, rc, err);
        if (made && !room_is_diverged(r))
            board_discard_room(svc, r);
        return;
    }
    reply_ref(svc, call, r, p);
}

const rpc_method_entry board_games_methods[] = {
    {"ListGames", list_games, false, false, false},
    {"CreateGame", create_game, false, false, false},
    {"JoinGame", join_game, false, false, false},
    {"GetPlayerStats", history_player_stats, false, false, false},
    {"Leaderboard", history_leaderboard, false, false, false},
    {"ListMatches", history_list_matches, false, false, false},
    {"GetMatch", history_get_match, false, false, false},
    {"GetAnalysis", history_get_analysis, false, false, false},
    {"RatingHistory", history_rating_history, false, false, false},
    {"ListKinds", list_kinds, false, false, false},
    {"QuickPair", board_quick_pair, true, false, false},
};

const size_t board_games_n_methods = sizeof board_games_methods / sizeof board_games_methods[0];
