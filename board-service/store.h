/*
 * store.h — the board service's persistence: games, participants, the event
 * log, moves, results and players' statistics.
 *
 * And accounts (issue 15): names, password hashes, sessions (hashed), and
 * the link of statistics and results to the account they belong to.
 *
 * A small interface so that a shared database can replace the embedded one
 * when several board services serve one community; store_sqlite.c is the
 * embedded default (one SQLite file). Nothing here knows protobuf or gRPC:
 * event payloads are opaque byte blobs, everything else is plain C.
 *
 * Threads and ownership
 *   One store object belongs to one thread — the service's event-loop thread.
 *   No function may be called on the same store from two threads. Every call
 *   blocks: it runs one or a few SQLite statements (microseconds), and a
 *   commit writes to the WAL file (see Durability). Two store objects (two
 *   opens) used on different threads are independent.
 *   Every pointer argument is borrowed for the duration of the call; the store
 *   keeps no caller pointer. Strings and arrays the store returns through OUT
 *   parameters are copied into caller memory, except where a function says
 *   "caller frees", in which case the caller releases it with free().
 *
 * Errors
 *   Functions return 0 on success and -1 on failure (STORE_NOT_FOUND = 1 where
 *   a lookup may find nothing). After -1, store_last_error() gives one
 *   sentence saying what failed: bad input ("the game id is empty") or the
 *   database's own message ("... : disk I/O error"). A failed write leaves the
 *   database as it was before the call (a failed call inside store_begin ...
 *   store_commit leaves the rest of the open transaction intact; the caller
 *   decides whether to roll it back).
 *
 * Durability (SQLite: WAL mode, synchronous = NORMAL)
 *   A write that returned 0 outside a transaction, or a store_commit that
 *   returned 0, survives the process being killed (SIGKILL, a crash): with
 *   WAL the commit is in the WAL file in the kernel's page cache before the
 *   call returns. It may be lost on power loss or a kernel crash (the last
 *   commits since the last checkpoint's fsync), but the file is never
 *   corrupted. synchronous = FULL would also survive power loss at the price
 *   of one fsync per move (milliseconds on most disks, which would stall the
 *   event loop); the requirement is to survive a crashed or killed service,
 *   so NORMAL is the choice. A file store copies its WAL back into the file
 *   (a checkpoint: page writes and an fsync) on a thread and a connection of
 *   its own (store_checkpoint.h), so a commit rarely waits for one.
 */
#ifndef SUNGKA_STORE_H
#define SUNGKA_STORE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define STORE_NOT_FOUND 1
#define STORE_TAKEN     2    /* store_account_create: the name or a look-alike exists */
#define STORE_FENCED    3    /* store_event_append: the game is another node's now */
#define STORE_LAPSED    4    /* store_node_renew: the lease had run out first */
#define STORE_BEHIND    5    /* store_event_append: the log lacks the event before, which
                              * was stored: the database went back in time */
#define STORE_IN_FLIGHT 6    /* store_commit_landed: its answers are not all in */

#define STORE_ID_BYTES     16    /* game id, with its NUL */
#define STORE_KIND_BYTES   32    /* game kind name ("sungka") */
#define STORE_TITLE_BYTES  96
#define STORE_NAME_BYTES   129   /* player name: 32 characters of UTF-8 */
#define STORE_TOKEN_BYTES  65    /* seat token (the service uses 32 hex digits) */
#define STORE_HOST_BYTES   64    /* a client address ("ipv6:[...]"), as the service keys it */
#define STORE_REASON_BYTES 1024  /* why a game ended */
#define STORE_TOURNAMENT_ID_BYTES 16   /* a tournament id ("t7"), with its NUL */
#define STORE_MAX_OPTIONS  8
#define STORE_MAX_SEATS    6
#define STORE_NAME_KEY_BYTES      385   /* a name's case-folded key (accounts.h) */
#define STORE_SKELETON_BYTES      769   /* a name's UTS #39 skeleton (accounts.h) */
#define STORE_PASSWORD_HASH_BYTES 128   /* crypto_pwhash_str's text */
#define STORE_SESSION_ID_BYTES    16
#define STORE_SESSION_HASH_BYTES  32

/* Game status, the same numbers as the service's room_status. */
enum {
    STORE_WAITING = 1,
    STORE_RUNNING = 2,
    STORE_FINISHED = 3,      /* ended by the rules: counts for statistics */
    STORE_ABANDONED = 4,     /* a player left: kept in history, no statistics */
};

typedef struct store store;

/* --- Opening ------------------------------------------------------------ */

/* Open (or create) the database at path — a file path, or ":memory:" for a
 * private database that vanishes on close (tests). Creates the schema or
 * migrates an older one to the current version, and checks the file is
 * writable (a write lock is taken once at open). On failure *out is NULL and
 * err holds one sentence naming the path and the reason, e.g.
 * "cannot open the database /x/y.db: file is not a database" or
 * "cannot open the database /x/file/y.db: Not a directory".
 * A file is used by one store at a time, in any process: the store holds an
 * exclusive lock on it (flock) until store_close, and another open fails
 * with "the database /x/y.db is in use by another sungka-board". (SQLite's
 * own locks are separate: other programs may still read the file.)
 * The file is checked (PRAGMA quick_check, which reads it whole) and a
 * damaged one refused with one sentence saying what to do: "the database
 * /x/y.db is damaged (Page 27: ...); see what is wrong with 'sungka-board
 * --db /x/y.db --check', save what can be saved with 'sqlite3 /x/y.db
 * .recover | sqlite3 /x/y.db.recovered' and start with --db
 * /x/y.db.recovered".
 *   path   IN   borrowed
 *   out    OUT  the new store; release with store_close
 *   err    OUT  errlen bytes, NUL-terminated (may be NULL when errlen is 0) */
int store_open(const char *path, store **out, char *err, size_t errlen);

/* Open the database at path to read it while a service may be using it
 * (sungka-board --rating-report): a SQLite file read-only, without its lock,
 * nothing created or migrated (it must be of this program's schema); a
 * PostgreSQL URI as store_open. Only reads succeed on a SQLite file. */
int store_open_readonly(const char *path, store **out, char *err, size_t errlen);

/* SQLite's full check (PRAGMA integrity_check) of the database at path,
 * read-only: nothing is created, migrated or locked, so the file of a running
 * service can be checked too. Returns 0 when it is sound; 1 when it is
 * damaged, after calling problem() once for each problem SQLite reports (a
 * file that cannot be read as a database at all has one: the reason); -1
 * when it cannot be opened or checked, with one sentence in err.
 *   problem  IN  called with a borrowed line of text; user is passed along */
int store_check(const char *path, void (*problem)(void *user, const char *text), void *user,
                char *err, size_t errlen);

/* What opening s did that the operator should hear of, as one sentence; ""
 * when nothing. Today: the copy of an SQLite file taken before migrating its
 * schema ("backed up the database PATH (schema version N) to
 * PATH.before-vM.bak before migrating it to version M"). Owned by s. */
const char *store_open_notice(const store *s);

/* Finish statements, roll back an open transaction, close. NULL is ignored. */
void store_close(store *s);

/* The sentence describing the last failure on s ("" when none yet). Owned by
 * s, valid until the next call on s. */
const char *store_last_error(const store *s);
/* How many calls have failed so far (each set store_last_error): for the
 * service's metrics. */
uint64_t store_errors(const store *s);
/* How often the store waited for its database server (each wait one round
 * trip or more) and for how many seconds in all, blocked: where the loop's
 * time goes on PostgreSQL. SQLite, in the same process, never waits so: 0. */
void store_waits(const store *s, uint64_t *round_trips, double *seconds);

/* The default database path: $XDG_DATA_HOME/sungka/sungka.db when
 * XDG_DATA_HOME is set and absolute, else ~/.local/share/sungka/sungka.db.
 * Creates the missing directories with mode 0700. Returns -1 with errno set
 * when HOME is unknown (ENOENT), the path does not fit in len bytes
 * (ENAMETOOLONG) or a directory cannot be made (mkdir's errno); then out
 * holds the path that was attempted, when it fits. */
int store_default_path(char *out, size_t len);

/* --- Games -------------------------------------------------------------- */

typedef struct store_option {
    char name[32];           /* the kind's option name ("cups") */
    int value;
} store_option;

typedef struct store_game_info {
    char id[STORE_ID_BYTES];       /* unique; the service uses decimal numbers */
    char kind[STORE_KIND_BYTES];
    char title[STORE_TITLE_BYTES];
    int n_options;                 /* 0..STORE_MAX_OPTIONS */
    store_option options[STORE_MAX_OPTIONS];   /* in the kind's order */
    bool autostart;
    int per_move_ms;               /* the time control: per move, or ... */
    int base_ms, increment_ms;     /* ... for the game plus per move; all 0: none */
    int seats;                     /* 1..STORE_MAX_SEATS */
    int status;                    /* STORE_WAITING .. STORE_ABANDONED */
    int64_t created_ms;            /* wall clock, ms since the epoch */
    int64_t started_ms;            /* 0 until it starts */
    int64_t ended_ms;              /* 0 until it ends */
    char reason[STORE_REASON_BYTES];   /* why it ended; "" until then */
    bool rated;                    /* counts for ratings (issue 16) */
    bool bot_takes_over;           /* a bot takes the seat of a player who does not
                                    * come back, at bot_level (1..10) */
    int bot_level;
    char tournament_id[STORE_TOURNAMENT_ID_BYTES];   /* the tournament that made it ("t7"),
                                                      * "" for none */
    /* A rated game that has started: each seat's account as it started
     * (store_game_rated_seats); filled by store_recover only, 0 otherwise. */
    int64_t rated_accounts[STORE_MAX_SEATS];
} store_game_info;

/* Record a new game (its id must not exist yet). started_ms, ended_ms and
 * reason are stored as given (normally 0, 0, ""). */
int store_game_create(store *s, const store_game_info *g);

/* Set a game's status: STORE_RUNNING also records started_ms = when_ms;
 * STORE_WAITING changes nothing else. Use store_game_finish to end a game:
 * this refuses STORE_FINISHED and STORE_ABANDONED, an unknown id, and a game
 * that has ended. */
int store_game_status(store *s, const char *id, int status, int64_t when_ms);

/* --- Participants (for recovery after a crash) --------------------------- */

/* Insert or update participant person_id of game_id (seat -1: observer). */
int store_participant_put(store *s, const char *game_id, unsigned person_id,
                          const char *name, int seat, const char *token, bool ready);
/* Forget one participant (gone for good). Removing an unknown one is not an
 * error. */
int store_participant_remove(store *s, const char *game_id, unsigned person_id);
/* Mark participant person_id of game_id (already put) as one of the
 * service's own bots, playing at level 1..10 (0: a person again), so that
 * recovery starts it again. store_participant_put keeps the mark. -1 for a
 * level out of range or an unknown participant. */
int store_participant_bot(store *s, const char *game_id, unsigned person_id, int level);
/* Link participant person_id of game_id (already put) to the account it
 * plays for (0: a guest), so that recovery keeps the link and the result
 * counts for the account, and keep the client address it took its seat from
 * (host, "" unknown: a rated game between accounts of one address does not
 * count). store_participant_put keeps both. -1 for an unknown participant. */
int store_participant_account(store *s, const char *game_id, unsigned person_id,
                              int64_t account_id, const char *host);

/* --- The event log and moves --------------------------------------------- */

/* Append one packed event of game_id. Write it before the event is sent: a
 * -1 means it is not stored and the caller should refuse the action;
 * STORE_FENCED, that another node of the cluster has adopted the game (the
 * caller lets go of it); STORE_BEHIND, that the log lacks event seq - 1,
 * which was stored before: the database went back in time (a failover to a
 * standby that was behind), and the caller must not number on from there.
 * seq must be new for the game (a repeated seq is -1); only_for_a/b are the
 * two participant ids a private event is for (0, 0: public). format (>= 1)
 * is the caller's version of the packed bytes, handed back by recovery so
 * that a newer caller can read what an older one wrote; rows stored before
 * the store kept it (schema 2 and older) read as STORE_EVENT_FORMAT_FIRST.
 *   data  IN  len bytes, copied (may be NULL when len is 0) */
#define STORE_EVENT_FORMAT_FIRST 1
int store_event_append(store *s, const char *game_id, uint64_t seq, int64_t time_ms,
                       unsigned only_for_a, unsigned only_for_b, unsigned format,
                       const void *data, size_t len);

/* Append move number ply (0, 1, ... in order; a repeated ply is -1) of game_id:
 * seat moved `move` at time_ms. For history and replay. The service no
 * longer writes a row per move (the event log is the record; see
 * store_moves_fill): this is what 0.x wrote, kept for its databases' tests. */
int store_move_append(store *s, const char *game_id, int ply, int seat, int move,
                      int64_t time_ms);

/* Group writes into one atomic, durable commit (one per loop turn's moves:
 * begin, event append(s), commit). Transactions do not nest:
 * store_begin while one is open is -1. If store_commit fails, the whole
 * transaction is rolled back and nothing of it is stored. store_rollback
 * with no transaction open is a no-op returning 0. */
/* A group of calls that happens whole or not at all, inside an open
 * transaction or as one of its own (a savepoint): store_group_end(s, 0)
 * keeps it, store_group_end(s, -1) undoes it; either returns 0 when it was
 * kept and -1 otherwise (the first failure's sentence in store_last_error). */
int store_group_begin(store *s);
int store_group_end(store *s, int res);
int store_begin(store *s);
int store_commit(store *s);
int store_rollback(store *s);

/* A loop turn's moves in few round trips. store_turn_begin is store_begin
 * for them: on PostgreSQL the transaction is pipelined (libpq's pipeline
 * mode), its BEGIN sent with what follows rather than waited for. Between
 * store_defer(s, tag) and store_defer(s, 0), store_game_fence and
 * store_event_append are sent without waiting for their answers and return
 * 0 (store_defer says whether it is so: true only in a pipelined
 * transaction; elsewhere they run as always); store_commit then sends the
 * COMMIT and reads every answer: one round trip for all of them. A
 * deferred write that fails fails the whole transaction (store_commit -1).
 * A deferred fence or append that found its game not this node's, or its log behind, wrote
 * nothing, and the transaction commits the rest: after store_commit,
 * store_turn_missed(s, tag) is STORE_FENCED or STORE_BEHIND for such a tag
 * (with its sentence in store_last_error), 0 for one that was written.
 * Any other statement in the transaction runs as always, after what was
 * deferred (waiting for their answers too). tag 0 defers nothing. */
int store_turn_begin(store *s);
bool store_defer(store *s, uint64_t tag);
int store_turn_missed(store *s, uint64_t tag);

/* A turn's commit without waiting for it, so that the loop plays the next
 * turn's moves while the database flushes this one's. store_commit_send
 * sends the COMMIT of the transaction store_turn_begin opened and returns:
 * the transaction is closed, and the next turn may begin at once (on
 * PostgreSQL pipelined behind it: the server runs it once the COMMIT is
 * done). store_commit_landed(s, wait_ms) is the commit's outcome once all
 * its answers are in: 0 committed, -1 not (rolled back, the sentence in
 * store_last_error), or STORE_IN_FLIGHT while they are not, after waiting
 * up to wait_ms for them (0: not at all; -1: until they are, within the
 * store's deadline for an answer); store_turn_missed then speaks of that
 * commit's deferred writes. A turn begun behind a commit that lands -1
 * must be rolled back: it may have begun inside the failed transaction.
 * Anything else that waits for the database reads the answers first and
 * keeps the outcome for store_commit_landed. At most one commit is on its
 * way: store_commit_send while one is (its outcome not taken) is -1, as is
 * one that cannot be sent (nothing of the transaction is stored). Where a
 * commit costs no round trip (SQLite) or the transaction is not pipelined,
 * store_commit_send commits at once and store_commit_landed gives the
 * outcome. store_commit is store_commit_send and then
 * store_commit_landed(s, -1) for a pipelined transaction. Loop thread. */
int store_commit_send(store *s);
int store_commit_landed(store *s, int wait_ms);
bool store_commit_in_flight(const store *s);
/* Send the writes of the turn begun behind a commit on its way, so that
 * the database runs them once that commit is done (PostgreSQL: libpq holds
 * a pipeline's statements until a wait otherwise). */
void store_send_pending(store *s);

/* --- The end of a game --------------------------------------------------- */

/* End game_id, in one transaction (or inside the caller's open one): status
 * STORE_FINISHED or STORE_ABANDONED, reason, end time, each seat's name and
 * final score, the winners; and, for STORE_FINISHED only, the statistics of
 * every seated player: each winner a win (streak + 1, best = max), every other
 * seat a loss (streak 0), or everyone a draw when n_winners is 0 (streak
 * unchanged); played + 1 in every case. A seat whose name is "" counts for
 * nobody. A seat with an account counts for the account's row (made under
 * its name when new); a guest's (account 0) for the unclaimed row of its
 * name; a result never moves between the two (a guest's result where an
 * account's row has that name is not counted). An abandoned game changes no statistics. The participants' rows
 * stay (an ended game's players may still offer each other a rematch, and a
 * restart recovers it with them) until store_game_forget.
 * -1 for an unknown game, one that has already ended (so statistics are never
 * counted twice), n_seats not the game's seat count, a winner out of range or
 * repeated, or a name repeated among the seats.
 *   seat_names  IN  n_seats strings
 *   seat_accounts IN n_seats account ids, 0 for a guest (NULL: all guests)
 *   scores      IN  n_seats values (NULL: all 0)
 *   winners     IN  n_winners seat numbers (may be NULL when n_winners is 0) */
int store_game_finish(store *s, const char *game_id, int status, const char *reason,
                      int n_seats, const char *const *seat_names,
                      const int64_t *seat_accounts, const int *scores,
                      const int *winners, int n_winners, int64_t ended_ms);

/* An ended game leaves the service's memory: forget its participants (and
 * so their tokens), so that a restart no longer recovers it. In a cluster
 * only the game's owner may (STORE_FENCED otherwise). */
int store_game_forget(store *s, const char *game_id);

/* Fencing, per transaction. In a cluster, hold game_id's ownership for the
 * rest of the open transaction: 0 while this node owns it (another node's
 * adoption passes it by until the transaction ends, so nothing this
 * transaction writes for the game can land after an adoption), or
 * STORE_FENCED when another node has adopted it. Outside a cluster 0. A
 * transaction must be open (store_begin or a group). */
int store_game_fence(store *s, const char *game_id);

/* --- Statistics ----------------------------------------------------------- */

typedef struct store_stats {
    char name[STORE_NAME_BYTES];
    int played, wins, losses, draws;
    int streak;                    /* current win streak */
    int best_streak;
    int64_t account_id;            /* the account it belongs to; 0: a guest's or unclaimed */
} store_stats;

/* One player's statistics; a name never seen gives all zeros and returns 0. */
int store_player_stats(store *s, const char *name, store_stats *out);

/* A player lost a game before its end (their seat went to a bot): one
 * played and one lost in their statistics now, as store_game_finish would
 * count them (account_id 0: a guest's name). */
int store_player_lost(store *s, const char *name, int64_t account_id);

/* Where a page of a list starts: after the row whose key this is (the last
 * row of the page before), in the list's order, so that rows added between
 * two pages neither repeat nor hide the ones after it (key-set paging, not
 * an offset). Each list says which fields make its key; `after` NULL, or
 * with set false, is the first page. */
typedef struct store_page_key {
    bool set;
    int64_t a, b;                  /* the key's numbers */
    double x;                      /* ... a real one */
    char text[STORE_NAME_BYTES];   /* ... and a name or an id */
} store_page_key;

/* Up to limit (> 0) players with an account into out[limit], by wins (most
 * first), then best streak (longest first), then name (bytewise); guests and
 * unclaimed names are not ranked. *n gets the count.
 *   after  IN  key (a wins, b best streak, text name) of the row before; NULL */
int store_leaderboard(store *s, int limit, const store_page_key *after, store_stats *out,
                      int *n);

/* --- History -------------------------------------------------------------- */

typedef struct store_match_summary {
    store_game_info game;
    int n_seats;                   /* 0 until the game has ended */
    char seat_names[STORE_MAX_SEATS][STORE_NAME_BYTES];
    int scores[STORE_MAX_SEATS];
    int winners[STORE_MAX_SEATS];  /* seat numbers, ascending */
    int n_winners;                 /* 0: a draw, or abandoned */
    int n_moves;
    int64_t order;                 /* the game's place in the store's insertion
                                    * order: breaks ties of ended_ms */
} store_match_summary;

/* Ended games (finished and abandoned), newest end first, at most limit (> 0).
 *   player  IN  only games where this name held a seat; NULL: any
 *   kind    IN  only games of this kind; NULL: any
 *   after   IN  key (a ended_ms, b order) of the row before; NULL: the newest
 *   out     OUT array of *n summaries, caller frees (NULL when *n is 0) */
int store_matches(store *s, const char *player, const char *kind, int limit,
                  const store_page_key *after, store_match_summary **out, int *n);

typedef struct store_move {
    int ply, seat, move;
    int64_t time_ms;
} store_move;

/* Record an ended game's moves, once, for history and replay (the service
 * derives them from the game's event log, board_match_moves, in the
 * transaction that records the result): one row each; a ply already
 * stored (a database written by 0.x, which stored a row per move) keeps its
 * row. -1 for a move out of range.
 *   moves  IN  n moves */
int store_moves_fill(store *s, const char *game_id, const store_move *moves, int n);

/* One game (any status) and its moves in ply order. Returns STORE_NOT_FOUND
 * (1) when there is no such game, with *moves NULL and *n_moves 0.
 *   moves  OUT array of *n_moves moves, caller frees (NULL when none) */
int store_match(store *s, const char *game_id, store_match_summary *out,
                store_move **moves, int *n_moves);

/* --- The engine's reviews of ended games (board-service/analysis.c) ------ */

/* Keep game_id's review: data is the packed message the service serves
 * (sungka.v1.Analysis), len bytes; a second put replaces the first. */
int store_analysis_put(store *s, const char *game_id, int64_t made_ms, const void *data,
                       size_t len);
/* A game's stored review: 0 and *data (malloc'd, the caller frees) and *len;
 * STORE_NOT_FOUND (1) when it has none (yet). */
int store_analysis_get(store *s, const char *game_id, void **data /* OUT */,
                       size_t *len /* OUT */);
/* Up to limit ended games (finished or abandoned) that ended at since_ms or
 * later and have no review, newest end first, into ids[0..*n-1]: what a
 * service started again (after a kill -9 before a review was stored) has
 * still to review. */
int store_analysis_missing(store *s, int64_t since_ms, int limit,
                           char (*ids)[STORE_ID_BYTES] /* OUT [limit] */, int *n /* OUT */);

/* --- Recovery ------------------------------------------------------------- */

/* Callbacks of store_recover. Every pointer passed to them is valid only
 * during the call (copy what you keep). They must not call functions on the
 * same store. A NULL callback is skipped. */
typedef struct store_recovery_cb {
    void (*game)(void *user, const store_game_info *g);
    void (*participant)(void *user, const char *game_id, unsigned person_id,
                        const char *name, int seat, const char *token, bool ready);
    void (*event)(void *user, const char *game_id, uint64_t seq, int64_t time_ms,
                  unsigned only_for_a, unsigned only_for_b, unsigned format,
                  const void *data, size_t len);
    /* right after participant() for one marked a bot (store_participant_bot) */
    void (*bot)(void *user, const char *game_id, unsigned person_id, int level);
    /* right after participant() (and bot()) for one linked to an account,
     * with the client address it took its seat from ("" unknown) */
    void (*account)(void *user, const char *game_id, unsigned person_id, int64_t account_id,
                    const char *host);
} store_recovery_cb;

/* Every game still waiting or running, and every ended game whose
 * participants were not forgotten (store_game_forget), oldest first: for
 * each, game(), then
 * participant() (and bot()) for each participant by person id, then event()
 * for each event by seq — the bytes exactly as appended. *max_game_id gets the highest
 * decimal game id ever stored, ended games included (0 when none), so that
 * new ids do not collide. Returns -1 if a read fails (callbacks may have run
 * for part of the data; the caller should give up). */
int store_recover(store *s, const store_recovery_cb *cb, void *user,
                  unsigned *max_game_id);

/* --- Accounts ------------------------------------------------------------- */

/* One account. The service makes name, name_key, skeleton and look with
 * accounts.h (display form, case-folded key, UTS #39 skeleton of the key,
 * skeleton taken before folding) and the hash with accounts_password_hash;
 * the store only keeps them, keeps the key and the skeleton unique, and
 * refuses a skeleton or look that is an existing account's skeleton or look.
 * Looks are not unique: a database from before them (schema 8 on SQLite, 2
 * on PostgreSQL) may hold two accounts that look alike ("alice", "aIice");
 * both stay, each signing in by its own name, and no third joins them. */
typedef struct store_account {
    int64_t id;                                   /* > 0; set by the store */
    char name[STORE_NAME_BYTES];                  /* as the person chose it */
    char name_key[STORE_NAME_KEY_BYTES];
    char skeleton[STORE_SKELETON_BYTES];
    char look[STORE_SKELETON_BYTES];              /* '' until filled: a row from before */
    char password_hash[STORE_PASSWORD_HASH_BYTES];
    int64_t created_ms;                           /* wall clock */
} store_account;

/* Register *a (id ignored; set on success), in one transaction with the
 * claim: the statistics and results kept under exactly a->name with no
 * account (from before accounts, or a guest's) become the account's, once.
 * *claimed (may be NULL) says whether there were statistics to claim.
 * Returns 0; STORE_TAKEN when the key is an existing account's, or the
 * skeleton or the look is an existing account's skeleton or look (nothing
 * is stored); -1 on failure. */
int store_account_create(store *s, store_account *a /* IN/OUT */, bool *claimed /* OUT */);

/* How many accounts there are, into *n. */
int store_account_count(store *s, int64_t *n /* OUT */);

/* Find an account by its key / its skeleton / its id: 0, STORE_NOT_FOUND,
 * or -1. */
int store_account_find(store *s, const char *name_key, store_account *out);
int store_account_find_skeleton(store *s, const char *skeleton, store_account *out);
int store_account_get(store *s, int64_t id, store_account *out);

/* The oldest account whose skeleton or look is skeleton or look (accounts.h:
 * the two names are confusable): 0, STORE_NOT_FOUND, or -1. */
int store_account_find_like(store *s, const char *skeleton, const char *look,
                            store_account *out);

/* The look of an account's name (accounts.h) into look (len bytes): 0, or
 * -1 when the name cannot be prepared. */
typedef int (*store_look_fn)(const char *name, char *look, size_t len, void *user);

/* Give every account written before looks (look '') its look, computed by
 * fn (a name fn cannot prepare keeps its skeleton as its look), in
 * transactions of a few rows. Idempotent, and safe for several nodes at
 * once. *filled: how many rows this call filled. 0, or -1. */
int store_account_fill_looks(store *s, store_look_fn fn, void *user, int *filled /* OUT */);

/* Replace an account's password hash (changed at when_ms). -1 for an
 * unknown account. Ending its other sessions is the caller's next call. */
int store_account_set_password(store *s, int64_t id, const char *password_hash,
                               int64_t when_ms);

/* --- Blocks and reports (docs/rules.md, "Blocking and reporting") --------- */

/* An account blocks another: the service delivers none of the blocked
 * account's chat to the blocker and never pairs the two. Kept per blocker;
 * the service caps how many (--max-blocks) with store_block_count first. */
typedef struct store_block {
    int64_t account_id;                           /* the blocked account */
    char name[STORE_NAME_BYTES];                  /* its name as registered */
    int64_t created_ms;                           /* wall clock */
} store_block;

/* account blocks blocked from when_ms: 0 (also when it did already: the
 * first time is kept), or -1. */
int store_block_put(store *s, int64_t account, int64_t blocked, int64_t when_ms);
/* 0, STORE_NOT_FOUND when account did not block blocked, or -1. */
int store_block_delete(store *s, int64_t account, int64_t blocked);
/* How many accounts account blocks, into *n. */
int store_block_count(store *s, int64_t account, int *n /* OUT */);
/* The accounts account blocks, by name, at most max (> 0) into out, *n of
 * them. */
int store_blocks_of(store *s, int64_t account, int max, store_block *out /* OUT */,
                    int *n /* OUT */);
/* 1 when a blocks b or b blocks a, 0 when neither does, -1 on failure. */
int store_blocked_either(store *s, int64_t a, int64_t b);

#define STORE_REPORT_REASON_BYTES 1024   /* the service takes 500 bytes at most */

/* A player's report of another for the operator. */
typedef struct store_report {
    int64_t id;                                   /* > 0; set by the store */
    int64_t time_ms;                              /* wall clock */
    int64_t reporter_id, reported_id;             /* accounts */
    char reporter[STORE_NAME_BYTES];              /* their names (read only: */
    char reported[STORE_NAME_BYTES];              /*  store_reports_list fills them) */
    char game_id[STORE_ID_BYTES];                 /* "": about no game */
    char reason[STORE_REPORT_REASON_BYTES];
    char host[STORE_HOST_BYTES];                  /* the reporter's client address */
} store_report;

/* Store *r (id ignored, then set). 0, or -1. */
int store_report_add(store *s, store_report *r /* IN/OUT */);
/* How many reports reporter made at since_ms or later, into *n: the
 * service's rate (--report-rate), the same on every node of a cluster. */
int store_reports_since(store *s, int64_t reporter, int64_t since_ms, int *n /* OUT */);
/* The newest reports first, at most limit (> 0) into out, *n of them. */
int store_reports_list(store *s, int limit, store_report *out /* OUT */, int *n /* OUT */);

/* --- Sessions ------------------------------------------------------------- */

/* A signed-in session: the store keeps its public id and the hash of its
 * secret (accounts.h), never the token, so a copy of the database signs
 * nobody in. The caller compares hashes in constant time. */
typedef struct store_session {
    uint8_t id[STORE_SESSION_ID_BYTES];
    uint8_t hash[STORE_SESSION_HASH_BYTES];
    int64_t account_id;
    int64_t created_ms, expires_ms;               /* wall clock */
} store_session;

int store_session_create(store *s, const store_session *ss);
/* 0, STORE_NOT_FOUND (expired ones are found until store_sessions_expire:
 * the caller checks expires_ms), or -1. */
int store_session_find(store *s, const uint8_t id[STORE_SESSION_ID_BYTES], store_session *out);
/* Sign out: forget one session (an unknown one is not an error). */
int store_session_delete(store *s, const uint8_t id[STORE_SESSION_ID_BYTES]);
/* Sign out everywhere / after a password change: forget every session of
 * account_id but `keep` (NULL: all). *n_deleted (may be NULL) gets how many. */
int store_sessions_delete_account(store *s, int64_t account_id,
                                  const uint8_t keep[STORE_SESSION_ID_BYTES], int *n_deleted);
/* Keep at most `keep` (>= 1) sessions of account_id: `newest` and the
 * keep - 1 newest others (by created_ms); forget the rest. *n_deleted (may be
 * NULL) gets how many. */
int store_sessions_trim(store *s, int64_t account_id,
                        const uint8_t newest[STORE_SESSION_ID_BYTES], int keep, int *n_deleted);
/* Forget the sessions expired at now_ms. */
int store_sessions_expire(store *s, int64_t now_ms, int *n_deleted);

/* --- Ratings (issue 16) ---------------------------------------------------
 * One Glicko-2 rating per account and game kind, and its history: a point
 * per rated game. The store keeps numbers; the service computes them
 * (common/placement.h). */

typedef struct store_rating {
    char kind[STORE_KIND_BYTES];
    double rating, rd, volatility;
    int games;                     /* rated games played in this kind */
    int64_t updated_ms;            /* wall clock of the last rated game */
} store_rating;

/* A rated game starts: keep each seat's account (n_seats of them, each > 0)
 * with it, for the rating at its end whoever holds the seat then. */
int store_game_rated_seats(store *s, const char *game_id, int n_seats,
                           const int64_t *accounts);

/* Why a game created rated changes no rating (docs/rules.md, "Ratings"),
 * kept with the game (store_game_unrated) for the pair limit and the
 * operator's report. */
typedef enum store_unrated {
    STORE_RATED_COUNTS = 0,        /* it counts (or a casual game) */
    STORE_UNRATED_SAME_ADDRESS = 1,/* at its start: two seats from one address */
    STORE_UNRATED_PAIR_LIMIT = 2,  /* at its start: a pair's rated games of the day */
    STORE_UNRATED_TOO_SHORT = 3,   /* at its end: a player made too few moves */
} store_unrated;

/* Mark a game created rated as one that does not count, and why (a
 * store_unrated); call in the change that says so to its players. */
int store_game_unrated(store *s, const char *game_id, int why);

/* How many games that count for ratings accounts a and b have both had a
 * seat of, started at since_ms or later (wall clock), game except_id aside
 * (NULL: none): finished and running ones, not the abandoned nor those that
 * do not count (store_game_unrated). Read from the database, so the count
 * holds across restarts and a cluster's nodes. */
int store_rated_pair_games(store *s, int64_t a, int64_t b, int64_t since_ms,
                           const char *except_id, int *out /* OUT */);

/* One line of the operator's rating report (sungka-board --rating-report). */
typedef struct store_pair_row {
    char a[STORE_NAME_BYTES];      /* an account's name (the gainer in _one_opponent) */
    char b[STORE_NAME_BYTES];      /* the other account (the opponent) */
    int games;
    double gain;                   /* _one_opponent: a's rating points won against b */
    double total_gain;             /* ... and won in every two-seat rated game */
} store_pair_row;

/* The report, at most limit (> 0) rows into out, *n of them, most first:
 *   _pairs         the pairs of accounts with the most rated games together;
 *   _refused       the pairs of accounts of the games marked `why`
 *                  (store_game_unrated), with how many;
 *   _one_opponent  accounts that won at least `share` (0..1) of their rating
 *                  points in two-seat games against one opponent, by those
 *                  points. */
int store_report_pairs(store *s, int limit, store_pair_row *out, int *n);
int store_report_refused(store *s, int why, int limit, store_pair_row *out, int *n);
int store_report_one_opponent(store *s, double share, int limit, store_pair_row *out, int *n);

/* An account's rating in a kind: 0, or STORE_NOT_FOUND when it has never
 * played a rated game of it (the caller takes a newcomer's rating). */
int store_rating_get(store *s, int64_t account_id, const char *kind, store_rating *out);

/* A rated game ended: set each account's rating in kind to after[i] (games
 * and updated_ms as given) and add a point to its history (before[i].rating
 * is kept with it). Call inside the transaction that ends the game, so both
 * or neither happen.
 *   accounts, before, after  IN  n entries each */
int store_ratings_record(store *s, const char *game_id, const char *kind, int64_t ended_ms,
                         int n, const int64_t *accounts, const store_rating *before,
                         const store_rating *after);

/* Every kind an account is rated in, by kind name, at most max into out. */
int store_ratings_of(store *s, int64_t account_id, store_rating *out, int max, int *n);

typedef struct store_rated_player {
    char name[STORE_NAME_BYTES];   /* the account's name as registered */
    int64_t account_id;
    store_rating rating;
} store_rated_player;

/* The leaderboard of a kind: settled ratings (deviation at most
 * provisional_rd) by rating, highest first, then the provisional ones the
 * same way, then by name; at most limit (> 0) into out, *n of them.
 *   after  IN  key (a 1 if provisional else 0, x rating, text name) of the row
 *              before; NULL: the top */
int store_rating_leaderboard(store *s, const char *kind, double provisional_rd, int limit,
                             const store_page_key *after, store_rated_player *out, int *n);

typedef struct store_rating_point {
    char kind[STORE_KIND_BYTES];
    char game_id[STORE_ID_BYTES];
    int64_t ended_ms;
    double rating_before, rating, rd, volatility;
} store_rating_point;

/* An account's newest limit (> 0) points in kind (NULL: every kind),
 * oldest first.
 *   before  IN  only points older than the one with this key (a ended_ms,
 *               text game id): the oldest of the page after; NULL: the newest
 *   out     OUT array of *n points, caller frees (NULL when *n is 0) */
int store_rating_history(store *s, int64_t account_id, const char *kind, int limit,
                         const store_page_key *before, store_rating_point **out, int *n);

/* --- A cluster (issue 18; PostgreSQL only) ---------------------------------
 * Several services share one PostgreSQL database; each is a node. A node
 * joins once (store_node_join), then owns the games it creates and the ones
 * it adopts, and renews its lease more often than the lease runs. When a
 * node's lease has run out, live nodes adopt its games, each game by exactly
 * one of them (row locks, SKIP LOCKED). Node ids are never reused, so the id
 * is the fencing token: once joined, every event appended for a game fails
 * unless this node owns the game, so a node that comes back late (frozen,
 * partitioned) cannot write for a game it lost. Times are the database
 * server's clock, so nodes' clocks need not agree.
 * On SQLite (one service, one file) there is no cluster: store_shared is
 * false and these functions fail with a sentence saying so. */

typedef struct store_node {
    int64_t id;
    char endpoint[128];            /* how clients reach it (--advertise) */
    int64_t started_ms;            /* the database's clock */
    int64_t lease_left_ms;         /* negative: ran out that long ago */
    int games;                     /* the games it owns */
} store_node;

/* Whether other services may share this database (PostgreSQL), and whether
 * a store_open path names one ("postgresql://..."). */
bool store_shared(const store *s);
bool store_path_is_shared(const char *path);

/* Join the cluster as a new node reachable at endpoint, with a lease of
 * lease_ms; *node_id (may be NULL) gets its id. Once per store. */
int store_node_join(store *s, const char *endpoint, int lease_ms, int64_t *node_id);

/* Renew this node's lease for lease_ms from now: 0; STORE_LAPSED when it
 * had run out (others may have adopted its games: ask store_game_owner);
 * -1 if it cannot (the database is unreachable: the lease runs on, and
 * others may adopt). */
int store_node_renew(store *s, int lease_ms);

/* A clean stop: the lease ends now, so the others adopt at once. */
int store_node_leave(store *s);
/* The time on the database's clock, in ms since the epoch: what the nodes
 * of a cluster agree on (this machine's clock outside a cluster). */
int store_clock_ms(store *s, int64_t *now_ms /* OUT */);

/* Adopt up to max games whose owner's lease has run out (waiting, running,
 * or ended with participants: what store_recover recovers), oldest first;
 * their ids into ids[*n]. Each game is adopted by one node only. Load each
 * with store_recover_game. */
int store_games_adopt(store *s, int max, char (*ids)[STORE_ID_BYTES], int *n);

/* The endpoint of the node that owns game_id now, and whether its lease
 * runs (false: it is dead and the game waits to be adopted). 0, or
 * STORE_NOT_FOUND for a game no node owns (ended, or unknown). */
int store_game_owner(store *s, const char *game_id, char *endpoint, size_t len,
                     bool *alive);

/* Which game a seat token is of, and the node that owns it (as
 * store_game_owner): a node asked about a game it does not host. */
int store_token_owner(store *s, const char *token, char game_id[STORE_ID_BYTES],
                      char *endpoint, size_t len, bool *alive);

/* The waiting and running games of the other live nodes, for the lobby. */
typedef struct store_remote_game {
    store_game_info game;
    char endpoint[128];                          /* its node */
    char seat_names[STORE_MAX_SEATS][STORE_NAME_BYTES];   /* "" for an open seat */
} store_remote_game;
/* At most limit (> 0) of them, oldest first.
 *   out  OUT array of *n, caller frees (NULL when *n is 0) */
int store_remote_games(store *s, int limit, store_remote_game **out, int *n);

/* The cluster's nodes, live ones first, at most max into out. */
int store_nodes(store *s, store_node *out, int max, int *n);

/* A new game id, unique in the cluster (a database sequence). */
int store_game_next_id(store *s, unsigned *id);

/* Which history of the database the store's connection is on: on
 * PostgreSQL the server's system identifier and timeline, "SYSID/TIMELINE",
 * as read when the connection was made (or reconnected). A database that
 * was failed over to a standby, or restored, reads differently, and may
 * have gone back in time. "" when unknown (SQLite, or a server that cannot
 * say). Valid until the store's next call. */
const char *store_db_history(store *s);

/* The seq of game_id's last stored event (0: none): 0, or STORE_NOT_FOUND
 * when the database has no such game. */
int store_game_stored_last(store *s, const char *game_id, uint64_t *last /* OUT */);

/* Move the cluster's game ids on: the next one is past both seen and the
 * last one handed out, by margin more. After the database went back in
 * time, the ids it forgot are never handed out again (as long as fewer
 * than margin were forgotten past seen). */
int store_game_ids_past(store *s, unsigned seen, unsigned margin);

/* store_recover for one game (any status), as an adopting node loads it. */
int store_recover_game(store *s, const char *game_id, const store_recovery_cb *cb,
                       void *user);

/* ------------------------------------------------------------------------
 * The operator's bans and the audit log of the Admin service (admin_rpc.c).
 * A cluster's nodes read the bans from the shared database, so a ban made
 * on one is applied by every one.
 * ------------------------------------------------------------------------ */
enum { STORE_BAN_ACCOUNT = 1, STORE_BAN_ADDRESS = 2, STORE_BAN_MUTE = 3 /* an account's chat */ };
#define STORE_BAN_TARGET_BYTES 64     /* an account id in decimal; a prefix in CIDR */
#define STORE_BAN_REASON_BYTES 512
#define STORE_ACTION_BYTES     32

typedef struct store_ban {
    int kind;                             /* STORE_BAN_ACCOUNT, _ADDRESS or _MUTE */
    char target[STORE_BAN_TARGET_BYTES];
    char label[STORE_NAME_BYTES];         /* what people read: the account's name, the prefix */
    char reason[STORE_BAN_REASON_BYTES];  /* shown to the person refused */
    int64_t made_ms;                      /* wall clock (a cluster's: the database's) */
    int64_t until_ms;                     /* 0: until lifted */
} store_ban;

/* Make or replace the ban of (b->kind, b->target). */
int store_ban_put(store *s, const store_ban *b);
/* Lift a ban: 0, or STORE_NOT_FOUND when there was none in force at now_ms. */
int store_ban_delete(store *s, int kind, const char *target, int64_t now_ms);
/* The bans in force at now_ms (until_ms 0 or later), at most max into out;
 * *n how many. Expired rows are deleted first. */
int store_bans(store *s, int64_t now_ms, store_ban *out /* OUT */, int max, int *n /* OUT */);
/* What the bans table looks like, cheaply (one row of aggregates): its
 * rows, their newest made_ms and latest until_ms. A ban made, replaced or
 * lifted (by any node of a cluster) changes it, since a ban made or
 * replaced takes the clock's now; so a node reads the bans again only when
 * this differs from the last (admin_rpc.c). */
typedef struct store_bans_mark {
    int64_t rows, newest_made_ms, latest_until_ms;
} store_bans_mark;
int store_bans_mark_of(store *s, store_bans_mark *out /* OUT */);

typedef struct store_admin_action {
    int64_t at_ms;
    char who[STORE_HOST_BYTES];           /* the caller's address key */
    char action[STORE_ACTION_BYTES];      /* "ban account" */
    char target[STORE_NAME_BYTES];
    char reason[STORE_BAN_REASON_BYTES];
} store_admin_action;

int store_admin_action_add(store *s, const store_admin_action *a);
/* The newest limit (> 0) actions, newest first, into out; *n how many. */
int store_admin_actions(store *s, int limit, store_admin_action *out /* OUT */, int *n);

/* A one-time code that resets an account's forgotten password (the
 * operator hands it over: admin_rpc.c; the person uses it: accounts_rpc.c).
 * Only its hash is kept, one per account: a new code replaces the old. */
#define STORE_RESET_HASH_BYTES 32
int store_reset_code_put(store *s, int64_t account_id,
                         const uint8_t hash[STORE_RESET_HASH_BYTES], int64_t expires_ms);
/* 0 and the code's hash and end, or STORE_NOT_FOUND. */
int store_reset_code_get(store *s, int64_t account_id,
                         uint8_t hash[STORE_RESET_HASH_BYTES] /* OUT */,
                         int64_t *expires_ms /* OUT */);
/* The code is used (or its account's password set otherwise): forget it. */
int store_reset_code_delete(store *s, int64_t account_id);

/* Test-only: checkpoints the store's checkpointer thread has run (a file
 * store copies its write-ahead log back on a thread of its own,
 * store_checkpoint.h; 0 for ":memory:"). */
unsigned long store__checkpoints(store *s);

/* --- Tournaments (tournament.c) ------------------------------------------ */

/* Store tournament id (its number in the table's order: "t1", "t2", ...) as
 * record, the service's packed TournamentRecord, replacing the row it had.
 *   record  IN  len bytes (> 0) */
int store_tournament_put(store *s, const char *id, int status, int64_t updated_ms,
                         const void *record, size_t len);
/* Called once per stored tournament, oldest first; data and id are valid
 * during the call only. */
typedef void (*store_tournament_fn)(void *user, const char *id, const void *data, size_t len);
int store_tournaments_load(store *s, store_tournament_fn fn, void *user);

#endif /* SUNGKA_STORE_H */
