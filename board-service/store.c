/*
 * store.c — the store (store.h): what it keeps and how, on either database
 * of store_db.h (SQLite, the embedded default; PostgreSQL, shared by a
 * cluster).
 *
 * Everything the store means is here: the checks of its arguments, the SQL
 * of every statement (once, in the SQL both databases understand; pg_sql[]
 * holds PostgreSQL's spelling where it must differ), transactions, and what
 * each row says. Every statement is prepared once, on first use, and kept in
 * the store; each call binds, steps and resets. The drivers open a database
 * with the current schema (each keeps its own migrations) and run
 * statements.
 */
#include "store.h"
#include "store_db.h"
#include "xdg.h"

#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* ------------------------------------------------------------------------
 * Statements, prepared on first use and kept.
 * ------------------------------------------------------------------------ */

enum stmt_id {
    ST_BEGIN, ST_COMMIT, ST_ROLLBACK,
    ST_SAVEPOINT, ST_RELEASE, ST_ROLLBACK_TO,
    ST_GAME_INSERT, ST_OPTION_INSERT, ST_GAME_STATUS,
    ST_PART_PUT, ST_PART_DELETE, ST_PART_BOT,
    ST_EVENT_INSERT, ST_EVENT_EXISTS, ST_MOVE_INSERT, ST_MOVE_FILL,
    ST_GAME_STATE, ST_GAME_END, ST_RESULT_INSERT, ST_STATS_ADD, ST_PARTS_CLEAR,
    ST_STATS_GET, ST_LEADERBOARD,
    ST_MATCHES, ST_GAME_GET, ST_OPTIONS_GET, ST_RESULTS_GET, ST_MOVES_GET,
    ST_RECOVER_GAMES, ST_RECOVER_PARTS, ST_RECOVER_EVENTS, ST_MAX_ID,
    ST_PART_ACCOUNT,
    ST_ACCOUNT_INSERT, ST_ACCOUNT_CLAIM_STATS, ST_ACCOUNT_CLAIM_RESULTS,
    ST_ACCOUNT_BY_KEY, ST_ACCOUNT_BY_SKELETON, ST_ACCOUNT_BY_ID, ST_ACCOUNT_PASSWORD,
    ST_ACCOUNT_LIKE, ST_ACCOUNTS_LOOKLESS, ST_ACCOUNT_SET_LOOK,
    ST_SESSION_INSERT, ST_SESSION_GET, ST_SESSION_DELETE, ST_SESSIONS_DELETE_ACCOUNT,
    ST_SESSIONS_TRIM, ST_SESSIONS_EXPIRE, ST_ACCOUNT_COUNT,
    ST_RATED_SEAT_PUT, ST_RATED_SEATS_GET, ST_RATING_GET, ST_RATING_PUT, ST_RATING_HISTORY_ADD,
    ST_RATING_HISTORY, ST_RATINGS_OF, ST_RATING_LEADERBOARD, ST_GAME_UNRATED,
    ST_PAIR_RATED_GAMES, ST_REPORT_PAIRS, ST_REPORT_REFUSED, ST_REPORT_ONE_OPPONENT,
    ST_BAN_PUT, ST_BAN_DELETE, ST_BANS_EXPIRE, ST_BANS, ST_BANS_MARK, ST_ACTION_ADD, ST_ACTIONS,
    ST_RESET_PUT, ST_RESET_GET, ST_RESET_DELETE,
    ST_ANALYSIS_PUT, ST_ANALYSIS_GET, ST_ANALYSIS_MISSING,
    ST_BLOCK_PUT, ST_BLOCK_DELETE, ST_BLOCK_COUNT, ST_BLOCKS_OF, ST_BLOCKED_EITHER,
    ST_ABUSE_INSERT, ST_ABUSE_SINCE, ST_ABUSE_LIST,
    ST_TOURNAMENT_PUT, ST_TOURNAMENTS,
    /* a cluster's, on PostgreSQL only */
    ST_NODE_JOIN, ST_NODE_SUPERSEDE, ST_NODE_RENEW, ST_NODE_LEAVE, ST_GAMES_ADOPT,
    ST_GAME_OWNER, ST_NODES, ST_NEXT_ID, ST_OWNER_INSERT, ST_OWNER_FORGET, ST_TOKEN_OWNER,
    ST_REMOTE_GAMES, ST_GAME_FENCE, ST_DB_TIME, ST_GAME_STORED_LAST, ST_IDS_PAST,
    ST_COUNT
};

/* The columns read_game() expects, in order (GAME_N_COLUMNS of them); the
 * eleventh is the move count. */
#define GAME_N_COLUMNS 18
#define GAME_COLUMNS \
    "id, kind, title, autostart, seats, status, created_ms, started_ms, ended_ms, reason, " \
    "(SELECT count(*) FROM moves m WHERE m.game_id = g.id), per_move_ms, base_ms, increment_ms, " \
    "rated, bot_takes_over, bot_level, tournament_id"

/* The columns find_account() reads, in order. */
#define ACCOUNT_COLUMNS "id, name, name_key, skeleton, pwhash, created_ms, look"

/* Ended games, newest first; `order` is the games' insertion order, which
 * breaks ties of the end time (SQLite's rowid, PostgreSQL's ord). */
/* A page starts after the key (?4 ended_ms, ?5 order) of the row before
 * (?4 NULL: the first page); the order is read back after the game's columns.
 * "?4 IS NULL" comes after ?4's first use here and below: PostgreSQL types a
 * parameter by where it first meets it, and cannot from IS NULL. */
#define MATCHES_SQL(order) \
    "SELECT " GAME_COLUMNS ", " order " FROM games g WHERE status >= 3" \
    " AND (kind = ?1 OR ?1 IS NULL)" \
    " AND (EXISTS (SELECT 1 FROM results r" \
    "              WHERE r.game_id = g.id AND r.name = ?2) OR ?2 IS NULL)" \
    " AND (ended_ms < ?4 OR (ended_ms = ?4 AND " order " < ?5) OR ?4 IS NULL)" \
    " ORDER BY ended_ms DESC, " order " DESC LIMIT ?3"
/* What recovery (and adoption) takes: games not over, and ended ones whose
 * players may still ask for a rematch. */
#define RECOVERABLE \
    "(g.status IN (1, 2) OR EXISTS (SELECT 1 FROM participants p WHERE p.game_id = g.id))"
/* A node's owned games (?1 its id; 0: a store that has not joined a
 * cluster, which recovers them all). */
#define OWNED_BY_NODE \
    "(?1::bigint = 0 OR EXISTS (SELECT 1 FROM game_owners o" \
    "                           WHERE o.game_id = g.id AND o.node_id = ?1::bigint))"

/* Each statement in the SQL both databases understand, but for pg_sql[]. */
static const char *const stmt_sql[ST_COUNT] = {
    [ST_BEGIN] = "BEGIN IMMEDIATE",
    [ST_COMMIT] = "COMMIT",
    [ST_ROLLBACK] = "ROLLBACK",
    [ST_SAVEPOINT] = "SAVEPOINT store_op",
    [ST_RELEASE] = "RELEASE store_op",
    [ST_ROLLBACK_TO] = "ROLLBACK TO store_op",
    [ST_GAME_INSERT] =
        "INSERT INTO games (id, kind, title, autostart, seats, status, created_ms,"
        " started_ms, ended_ms, reason, per_move_ms, base_ms, increment_ms, rated,"
        " bot_takes_over, bot_level, tournament_id)"
        " VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17)",
    [ST_OPTION_INSERT] =
        "INSERT INTO game_options (game_id, pos, name, value) VALUES (?1, ?2, ?3, ?4)",
    [ST_GAME_STATUS] =
        "UPDATE games SET status = ?2,"
        " started_ms = CASE WHEN ?2 = 2 THEN ?3 ELSE started_ms END"
        " WHERE id = ?1 AND status < 3",
    [ST_PART_PUT] =
        "INSERT INTO participants (game_id, person_id, name, seat, token, ready)"
        " VALUES (?1, ?2, ?3, ?4, ?5, ?6)"
        " ON CONFLICT (game_id, person_id) DO UPDATE SET name = excluded.name,"
        " seat = excluded.seat, token = excluded.token, ready = excluded.ready",
    [ST_PART_DELETE] = "DELETE FROM participants WHERE game_id = ?1 AND person_id = ?2",
    [ST_PART_BOT] =
        "UPDATE participants SET bot_level = ?3 WHERE game_id = ?1 AND person_id = ?2",
    /* Only right after its predecessor: a database that went back in time
     * (a standby promoted behind) has lost events the service sent. */
    [ST_EVENT_INSERT] =
        "INSERT INTO events (game_id, seq, time_ms, only_for_a, only_for_b, data, format)"
        " SELECT ?1, ?2, ?3, ?4, ?5, ?6, ?7 WHERE ?2 = 1 OR EXISTS (SELECT 1 FROM events p"
        "                                  WHERE p.game_id = ?1 AND p.seq = ?2 - 1)",
    [ST_EVENT_EXISTS] = "SELECT 1 FROM events WHERE game_id = ?1 AND seq = ?2",
    [ST_MOVE_INSERT] =
        "INSERT INTO moves (game_id, ply, seat, move, time_ms) VALUES (?1, ?2, ?3, ?4, ?5)",
    /* a ply already there (written per move by 0.x, before the event log was
     * the record) keeps its row */
    [ST_MOVE_FILL] =
        "INSERT INTO moves (game_id, ply, seat, move, time_ms) VALUES (?1, ?2, ?3, ?4, ?5)"
        " ON CONFLICT (game_id, ply) DO NOTHING",
    [ST_GAME_STATE] = "SELECT status, seats FROM games WHERE id = ?1",
    [ST_GAME_END] = "UPDATE games SET status = ?2, reason = ?3, ended_ms = ?4 WHERE id = ?1",
    [ST_RESULT_INSERT] =
        "INSERT INTO results (game_id, seat, name, score, winner, account_id)"
        " VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
    /* ?2, ?3, ?4: 1 for a win, a loss, a draw (one of them); ?5 the account.
     * In DO UPDATE the bare column names are the row's values before the
     * update, so both SETs see the old streak. */
    [ST_STATS_ADD] =
        "INSERT INTO players (name, played, wins, losses, draws, streak, best_streak,"
        " account_id) VALUES (?1, 1, ?2, ?3, ?4, ?2, ?2, ?5)"
        " ON CONFLICT (name) DO UPDATE SET played = players.played + 1,"
        " wins = players.wins + excluded.wins, losses = players.losses + excluded.losses,"
        " draws = players.draws + excluded.draws,"
        " streak = CASE WHEN excluded.wins = 1 THEN players.streak + 1"
        "               WHEN excluded.losses = 1 THEN 0 ELSE players.streak END,"
        " best_streak = CASE WHEN excluded.wins = 1 AND players.streak + 1 > players.best_streak"
        "                    THEN players.streak + 1 ELSE players.best_streak END"
        /* a guest's result never counts for an account, nor the reverse */
        " WHERE players.account_id IS NOT DISTINCT FROM excluded.account_id",
    [ST_PARTS_CLEAR] = "DELETE FROM participants WHERE game_id = ?1",
    [ST_STATS_GET] =
        "SELECT name, played, wins, losses, draws, streak, best_streak, account_id"
        " FROM players WHERE name = ?1",
    /* accounts only: guests and unclaimed names are not ranked */
    /* a page starts after the key (?2 wins, ?3 best streak, ?4 name) of the
     * row before; ?2 NULL: the top */
    [ST_LEADERBOARD] =
        "SELECT name, played, wins, losses, draws, streak, best_streak, account_id"
        " FROM players WHERE account_id IS NOT NULL"
        " AND (wins < ?2 OR (wins = ?2 AND (best_streak < ?3"
        "      OR (best_streak = ?3 AND name > ?4))) OR ?2 IS NULL)"
        " ORDER BY wins DESC, best_streak DESC, name LIMIT ?1",
    [ST_MATCHES] = MATCHES_SQL("g.rowid"),
    [ST_GAME_GET] = "SELECT " GAME_COLUMNS " FROM games g WHERE id = ?1",
    [ST_OPTIONS_GET] = "SELECT name, value FROM game_options WHERE game_id = ?1 ORDER BY pos",
    [ST_RESULTS_GET] =
        "SELECT seat, name, score, winner FROM results WHERE game_id = ?1 ORDER BY seat",
    [ST_MOVES_GET] =
        "SELECT ply, seat, move, time_ms FROM moves WHERE game_id = ?1 ORDER BY ply",
    [ST_RECOVER_GAMES] =
        "SELECT " GAME_COLUMNS " FROM games g WHERE " RECOVERABLE " ORDER BY g.rowid",
    [ST_RECOVER_PARTS] =
        "SELECT person_id, name, seat, token, ready, bot_level, account_id, host"
        " FROM participants"
        " WHERE game_id = ?1 ORDER BY person_id",
    [ST_RECOVER_EVENTS] =
        "SELECT seq, time_ms, only_for_a, only_for_b, data, format FROM events"
        " WHERE game_id = ?1 ORDER BY seq",
    /* decimal ids only: at most 10 digits, so the cast cannot overflow */
    [ST_MAX_ID] =
        "SELECT max(CAST(id AS INTEGER)) FROM games"
        " WHERE id <> '' AND id NOT GLOB '*[^0-9]*' AND length(id) <= 10",
    [ST_PART_ACCOUNT] =
        "UPDATE participants SET account_id = ?3, host = ?4"
        " WHERE game_id = ?1 AND person_id = ?2",
    [ST_ACCOUNT_INSERT] =
        "INSERT INTO accounts (name, name_key, skeleton, pwhash, created_ms, password_ms, look)"
        " VALUES (?1, ?2, ?3, ?4, ?5, ?5, ?6) RETURNING id",
    [ST_ACCOUNT_CLAIM_STATS] =
        "UPDATE players SET account_id = ?1 WHERE name = ?2 AND account_id IS NULL",
    [ST_ACCOUNT_CLAIM_RESULTS] =
        "UPDATE results SET account_id = ?1 WHERE name = ?2 AND account_id IS NULL",
    [ST_ACCOUNT_BY_KEY] =
        "SELECT " ACCOUNT_COLUMNS " FROM accounts WHERE name_key = ?1",
    [ST_ACCOUNT_BY_SKELETON] =
        "SELECT " ACCOUNT_COLUMNS " FROM accounts WHERE skeleton = ?1",
    [ST_ACCOUNT_BY_ID] =
        "SELECT " ACCOUNT_COLUMNS " FROM accounts WHERE id = ?1",
    /* two indexes, each asked for both strings (accounts.h: confusable) */
    [ST_ACCOUNT_LIKE] =
        "SELECT " ACCOUNT_COLUMNS " FROM accounts"
        " WHERE skeleton IN (?1, ?2) OR look IN (?1, ?2) ORDER BY id LIMIT 1",
    [ST_ACCOUNTS_LOOKLESS] =
        "SELECT id, name, skeleton FROM accounts WHERE look = '' ORDER BY id LIMIT ?1",
    [ST_ACCOUNT_SET_LOOK] = "UPDATE accounts SET look = ?2 WHERE id = ?1 AND look = ''",
    [ST_ACCOUNT_PASSWORD] = "UPDATE accounts SET pwhash = ?2, password_ms = ?3 WHERE id = ?1",
    [ST_SESSION_INSERT] =
        "INSERT INTO sessions (id, account_id, hash, created_ms, expires_ms)"
        " VALUES (?1, ?2, ?3, ?4, ?5)",
    [ST_SESSION_GET] =
        "SELECT account_id, hash, created_ms, expires_ms FROM sessions WHERE id = ?1",
    [ST_SESSION_DELETE] = "DELETE FROM sessions WHERE id = ?1",
    [ST_SESSIONS_DELETE_ACCOUNT] =
        "DELETE FROM sessions WHERE account_id = ?1 AND (id <> ?2 OR ?2 IS NULL)",
    /* all but ?2 and the ?3 newest others (ties broken by id, the same way
     * on both databases) */
    [ST_SESSIONS_TRIM] =
        "DELETE FROM sessions WHERE account_id = ?1 AND id <> ?2 AND id NOT IN"
        " (SELECT id FROM sessions WHERE account_id = ?1 AND id <> ?2"
        " ORDER BY created_ms DESC, id DESC LIMIT ?3)",
    [ST_SESSIONS_EXPIRE] = "DELETE FROM sessions WHERE expires_ms <= ?1",
    [ST_ACCOUNT_COUNT] = "SELECT count(*) FROM accounts",
    [ST_RATED_SEAT_PUT] =
        "INSERT INTO rated_seats (game_id, seat, account_id) VALUES (?1, ?2, ?3)"
        " ON CONFLICT (game_id, seat) DO UPDATE SET account_id = excluded.account_id",
    [ST_RATED_SEATS_GET] = "SELECT seat, account_id FROM rated_seats WHERE game_id = ?1",
    [ST_RATING_GET] =
        "SELECT rating, rd, volatility, games, updated_ms FROM ratings"
        " WHERE account_id = ?1 AND kind = ?2",
    [ST_RATING_PUT] =
        "INSERT INTO ratings (account_id, kind, rating, rd, volatility, games, updated_ms)"
        " VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)"
        " ON CONFLICT (account_id, kind) DO UPDATE SET rating = excluded.rating,"
        " rd = excluded.rd, volatility = excluded.volatility, games = excluded.games,"
        " updated_ms = excluded.updated_ms",
    [ST_RATING_HISTORY_ADD] =
        "INSERT INTO rating_history (account_id, kind, ended_ms, game_id, rating_before,"
        " rating, rd, volatility) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)",
    /* the newest ?3, returned oldest first */
    /* only points before the key (?4 ended_ms, ?5 game id); ?4 NULL: the newest */
    [ST_RATING_HISTORY] =
        "SELECT kind, ended_ms, game_id, rating_before, rating, rd, volatility FROM"
        " (SELECT * FROM rating_history WHERE account_id = ?1 AND (kind = ?2 OR ?2 IS NULL)"
        "  AND (ended_ms < ?4 OR (ended_ms = ?4 AND game_id < ?5) OR ?4 IS NULL)"
        "  ORDER BY ended_ms DESC, game_id DESC LIMIT ?3) AS newest"
        " ORDER BY ended_ms, game_id",
    [ST_RATINGS_OF] =
        "SELECT kind, rating, rd, volatility, games, updated_ms FROM ratings"
        " WHERE account_id = ?1 ORDER BY kind",
    /* settled ratings first, then the provisional ones (?3: the bound); a
     * page starts after the key (?4 provisional 0 or 1, ?5 rating, ?6 name)
     * of the row before; ?4 NULL: the top */
    [ST_RATING_LEADERBOARD] =
        "SELECT a.name, r.account_id, r.rating, r.rd, r.volatility, r.games, r.updated_ms"
        " FROM ratings r JOIN accounts a ON a.id = r.account_id WHERE r.kind = ?1"
        " AND ((CASE WHEN r.rd > ?3 THEN 1 ELSE 0 END) > ?4"
        "      OR ((CASE WHEN r.rd > ?3 THEN 1 ELSE 0 END) = ?4 AND (r.rating < ?5"
        "          OR (r.rating = ?5 AND a.name > ?6))) OR ?4 IS NULL)"
        " ORDER BY r.rd > ?3, r.rating DESC, a.name LIMIT ?2",
    [ST_GAME_UNRATED] = "UPDATE games SET unrated = ?2 WHERE id = ?1 AND rated <> 0",
    [ST_PAIR_RATED_GAMES] =
        "SELECT count(DISTINCT g.id) FROM rated_seats x"
        " JOIN rated_seats y ON y.game_id = x.game_id JOIN games g ON g.id = x.game_id"
        " WHERE x.account_id = ?1 AND y.account_id = ?2 AND g.unrated = 0"
        " AND g.status <> 4 AND g.started_ms >= ?3 AND g.id <> ?4",
    /* rated games are those that left a point of history for both */
    [ST_REPORT_PAIRS] =
        "SELECT a.name, b.name, count(*) AS n FROM rating_history x"
        " JOIN rating_history y ON y.game_id = x.game_id AND y.account_id > x.account_id"
        " JOIN accounts a ON a.id = x.account_id JOIN accounts b ON b.id = y.account_id"
        " GROUP BY x.account_id, y.account_id, a.name, b.name"
        " ORDER BY n DESC, a.name, b.name LIMIT ?1",
    [ST_REPORT_REFUSED] =
        "SELECT a.name, b.name, count(DISTINCT g.id) AS n FROM games g"
        " JOIN rated_seats x ON x.game_id = g.id"
        " JOIN rated_seats y ON y.game_id = g.id AND y.account_id > x.account_id"
        " JOIN accounts a ON a.id = x.account_id JOIN accounts b ON b.id = y.account_id"
        " WHERE g.unrated = ?1 GROUP BY x.account_id, y.account_id, a.name, b.name"
        " ORDER BY n DESC, a.name, b.name LIMIT ?2",
    [ST_BLOCK_PUT] =
        "INSERT INTO blocks (account_id, blocked_id, created_ms) VALUES (?1, ?2, ?3)"
        " ON CONFLICT (account_id, blocked_id) DO NOTHING",
    [ST_BLOCK_DELETE] = "DELETE FROM blocks WHERE account_id = ?1 AND blocked_id = ?2",
    [ST_BLOCK_COUNT] = "SELECT count(*) FROM blocks WHERE account_id = ?1",
    [ST_BLOCKS_OF] =
        "SELECT b.blocked_id, a.name, b.created_ms FROM blocks b"
        " JOIN accounts a ON a.id = b.blocked_id WHERE b.account_id = ?1"
        " ORDER BY a.name_key LIMIT ?2",
    [ST_BLOCKED_EITHER] =
        "SELECT count(*) FROM blocks WHERE (account_id = ?1 AND blocked_id = ?2)"
        " OR (account_id = ?2 AND blocked_id = ?1)",
    [ST_ABUSE_INSERT] =
        "INSERT INTO reports (time_ms, reporter_id, reported_id, game_id, reason, host)"
        " VALUES (?1, ?2, ?3, ?4, ?5, ?6) RETURNING id",
    [ST_ABUSE_SINCE] = "SELECT count(*) FROM reports WHERE reporter_id = ?1 AND time_ms >= ?2",
    [ST_ABUSE_LIST] =
        "SELECT r.id, r.time_ms, r.reporter_id, r.reported_id, a.name, b.name, r.game_id,"
        " r.reason, r.host FROM reports r"
        " JOIN accounts a ON a.id = r.reporter_id JOIN accounts b ON b.id = r.reported_id"
        " ORDER BY r.id DESC LIMIT ?1",
    /* each point won in a two-seat game, against the other seat's account */
    [ST_REPORT_ONE_OPPONENT] =
        "WITH won AS (SELECT h.account_id AS who, o.account_id AS opp,"
        "  h.rating - h.rating_before AS gain FROM rating_history h"
        "  JOIN games g ON g.id = h.game_id AND g.seats = 2"
        "  JOIN rated_seats o ON o.game_id = h.game_id AND o.account_id <> h.account_id"
        "  WHERE h.rating > h.rating_before),"
        " per_opp AS (SELECT who, opp, sum(gain) AS gain, count(*) AS n FROM won"
        "  GROUP BY who, opp),"
        " total AS (SELECT who, sum(gain) AS gain FROM won GROUP BY who)"
        " SELECT a.name, b.name, p.n, p.gain, t.gain FROM per_opp p"
        " JOIN total t ON t.who = p.who"
        " JOIN accounts a ON a.id = p.who JOIN accounts b ON b.id = p.opp"
        " WHERE p.gain >= ?1 * t.gain ORDER BY p.gain DESC, a.name, b.name LIMIT ?2",
    /* the operator's bans and actions (admin_rpc.c) */
    [ST_BAN_PUT] =
        "INSERT INTO bans (kind, target, label, reason, made_ms, until_ms)"
        " VALUES (?1, ?2, ?3, ?4, ?5, ?6) ON CONFLICT (kind, target) DO UPDATE SET"
        " label = excluded.label, reason = excluded.reason, made_ms = excluded.made_ms,"
        " until_ms = excluded.until_ms",
    [ST_BAN_DELETE] =
        "DELETE FROM bans WHERE kind = ?1 AND target = ?2 AND (until_ms = 0 OR until_ms > ?3)",
    [ST_BANS_EXPIRE] = "DELETE FROM bans WHERE until_ms <> 0 AND until_ms <= ?1",
    [ST_BANS] =
        "SELECT kind, target, label, reason, made_ms, until_ms FROM bans"
        " ORDER BY made_ms, kind, target LIMIT ?1",
    [ST_BANS_MARK] =
        "SELECT count(*), coalesce(max(made_ms), 0), coalesce(max(until_ms), 0) FROM bans",
    [ST_ACTION_ADD] =
        "INSERT INTO admin_actions (at_ms, who, action, target, reason)"
        " VALUES (?1, ?2, ?3, ?4, ?5)",
    [ST_ACTIONS] =
        "SELECT at_ms, who, action, target, reason FROM admin_actions"
        " ORDER BY id DESC LIMIT ?1",
    [ST_RESET_PUT] =
        "INSERT INTO reset_codes (account_id, hash, expires_ms) VALUES (?1, ?2, ?3)"
        " ON CONFLICT (account_id) DO UPDATE SET hash = excluded.hash,"
        " expires_ms = excluded.expires_ms",
    [ST_RESET_GET] = "SELECT hash, expires_ms FROM reset_codes WHERE account_id = ?1",
    [ST_RESET_DELETE] = "DELETE FROM reset_codes WHERE account_id = ?1",
    /* the engine's reviews of ended games (board-service/analysis.c) */
    [ST_ANALYSIS_PUT] =
        "INSERT INTO analyses (game_id, made_ms, data) VALUES (?1, ?2, ?3)"
        " ON CONFLICT (game_id) DO UPDATE SET made_ms = excluded.made_ms, data = excluded.data",
    [ST_ANALYSIS_GET] = "SELECT data FROM analyses WHERE game_id = ?1",
    [ST_ANALYSIS_MISSING] =
        "SELECT g.id FROM games g WHERE g.status >= 3 AND g.ended_ms >= ?1"
        " AND NOT EXISTS (SELECT 1 FROM analyses a WHERE a.game_id = g.id)"
        " ORDER BY g.ended_ms DESC LIMIT ?2",
    /* tournaments (tournament.c): one row each, its record packed */
    [ST_TOURNAMENT_PUT] =
        "INSERT INTO tournaments (id, status, updated_ms, record) VALUES (?1, ?2, ?3, ?4)"
        " ON CONFLICT (id) DO UPDATE SET status = excluded.status,"
        " updated_ms = excluded.updated_ms, record = excluded.record",
    [ST_TOURNAMENTS] = "SELECT id, record FROM tournaments ORDER BY length(id), id",
};

/* PostgreSQL's spelling, where it differs. */
static const char *const pg_sql[ST_COUNT] = {
    [ST_BEGIN] = "BEGIN",         /* a transaction always writes: no IMMEDIATE */
    [ST_MATCHES] = MATCHES_SQL("g.ord"),
    [ST_RECOVER_GAMES] =
        "SELECT " GAME_COLUMNS " FROM games g WHERE " RECOVERABLE " AND " OWNED_BY_NODE
        " ORDER BY g.ord",
    [ST_MAX_ID] =
        "SELECT max(CAST(id AS BIGINT)) FROM games WHERE id ~ '^[0-9]{1,10}$'",
    /* Fenced: a node that joined a cluster (?8) appends only to its games. */
    [ST_EVENT_INSERT] =
        "INSERT INTO events (game_id, seq, time_ms, only_for_a, only_for_b, data, format)"
        " SELECT ?1::text, ?2::bigint, ?3::bigint, ?4::bigint, ?5::bigint, ?6::bytea,"
        " ?7::integer WHERE (?8::bigint = 0 OR EXISTS (SELECT 1 FROM game_owners o"
        "                   WHERE o.game_id = ?1::text AND o.node_id = ?8::bigint))"
        " AND (?2::bigint = 1 OR EXISTS (SELECT 1 FROM events p"
        "                               WHERE p.game_id = ?1::text AND p.seq = ?2::bigint - 1))",
    [ST_EVENT_EXISTS] = "SELECT 1 FROM events WHERE game_id = ?1::text AND seq = ?2::bigint",
    /* Leases are the database's clock, so the nodes' clocks need not agree. */
    [ST_NODE_JOIN] =
        "INSERT INTO nodes (endpoint, started, lease_until) VALUES (?1::text,"
        " clock_timestamp(), clock_timestamp() + ?2::bigint * interval '1 millisecond')"
        " RETURNING id",
    /* A node that joins at an endpoint ends the lease of the one before it
     * there: it holds the address now, so that one is gone. */
    [ST_NODE_SUPERSEDE] =
        "UPDATE nodes SET lease_until = clock_timestamp() WHERE endpoint = ?1::text"
        " AND id <> ?2::bigint AND lease_until > clock_timestamp()",
    /* 1 when the lease had run out (its games may be others' now) */
    [ST_NODE_RENEW] =
        "WITH before AS (SELECT lease_until FROM nodes WHERE id = ?1::bigint)"
        " UPDATE nodes SET lease_until = clock_timestamp() + ?2::bigint * interval '1 millisecond'"
        " WHERE id = ?1::bigint"
        " RETURNING (SELECT CASE WHEN lease_until < clock_timestamp() THEN 1 ELSE 0 END"
        "            FROM before)",
    [ST_NODE_LEAVE] = "UPDATE nodes SET lease_until = clock_timestamp() WHERE id = ?1::bigint",
    /* Each orphaned game to one adopter: the rows another node is taking
     * are locked, and skipped rather than waited for. */
    [ST_GAMES_ADOPT] =
        "UPDATE game_owners o SET node_id = ?1::bigint FROM"
        " (SELECT o2.game_id FROM game_owners o2 JOIN nodes n ON n.id = o2.node_id"
        "  JOIN games g ON g.id = o2.game_id"
        "  WHERE n.lease_until < clock_timestamp() AND " RECOVERABLE
        "  ORDER BY g.ord LIMIT ?2::bigint FOR UPDATE OF o2 SKIP LOCKED) orphan"
        " WHERE o.game_id = orphan.game_id RETURNING o.game_id",
    [ST_GAME_OWNER] =
        "SELECT n.endpoint, CASE WHEN n.lease_until > clock_timestamp() THEN 1 ELSE 0 END"
        " FROM game_owners o JOIN nodes n ON n.id = o.node_id WHERE o.game_id = ?1::text",
    /* live nodes, and the dead that still own games or died this hour */
    [ST_NODES] =
        "SELECT n.id, n.endpoint, (extract(epoch FROM n.started) * 1000)::bigint,"
        " (extract(epoch FROM n.lease_until - clock_timestamp()) * 1000)::bigint,"
        " (SELECT count(*) FROM game_owners o WHERE o.node_id = n.id) AS games FROM nodes n"
        " WHERE n.lease_until > clock_timestamp() - interval '1 hour'"
        " OR EXISTS (SELECT 1 FROM game_owners o WHERE o.node_id = n.id)"
        " ORDER BY n.lease_until < clock_timestamp(), n.id",
    [ST_NEXT_ID] = "SELECT nextval('game_ids')",
    [ST_TOKEN_OWNER] =
        "SELECT p.game_id, n.endpoint,"
        " CASE WHEN n.lease_until > clock_timestamp() THEN 1 ELSE 0 END"
        " FROM participants p JOIN game_owners o ON o.game_id = p.game_id"
        " JOIN nodes n ON n.id = o.node_id WHERE p.token = ?1::text LIMIT 1",
    /* the seats as "SEAT NAME" lines (names hold no control characters) */
    [ST_REMOTE_GAMES] =
        "SELECT " GAME_COLUMNS ", r.endpoint,"
        " (SELECT string_agg(p.seat || ' ' || p.name, E'\\n') FROM participants p"
        "  WHERE p.game_id = g.id AND p.seat >= 0)"
        " FROM games g JOIN (SELECT o.game_id AS owned, n.endpoint FROM game_owners o"
        "                    JOIN nodes n ON n.id = o.node_id WHERE o.node_id <> ?1::bigint"
        "                    AND n.lease_until > clock_timestamp()) r ON r.owned = g.id"
        " WHERE g.status IN (1, 2) ORDER BY g.ord LIMIT ?2::bigint",
    [ST_OWNER_INSERT] = "INSERT INTO game_owners (game_id, node_id) VALUES (?1::text, ?2::bigint)",
    [ST_OWNER_FORGET] = "DELETE FROM game_owners WHERE game_id = ?1::text",
    /* Ownership for the rest of the transaction: adoption (ST_GAMES_ADOPT,
     * FOR UPDATE ... SKIP LOCKED) passes the row by until it ends. */
    [ST_GAME_FENCE] = "SELECT 1 FROM game_owners WHERE game_id = ?1::text AND node_id = ?2::bigint"
                      " FOR SHARE",
    [ST_DB_TIME] = "SELECT (extract(epoch FROM clock_timestamp()) * 1000)::bigint",
    /* the game's last stored event (0: none); no row: no such game */
    [ST_GAME_STORED_LAST] =
        "SELECT COALESCE((SELECT max(seq) FROM events WHERE game_id = ?1::text), 0)"
        " FROM games WHERE id = ?1::text",
    /* Past ?1 and past where it is, by ?2 more: a nextval() of another
     * node in between is left behind, not handed out again. */
    [ST_IDS_PAST] =
        "SELECT setval('game_ids', GREATEST(last_value, ?1::bigint) + ?2::bigint)"
        " FROM game_ids",
};

static const char *sql_of(const db *d, enum stmt_id id)
{
    return d->drv->dialect == DB_POSTGRES && pg_sql[id] ? pg_sql[id] : stmt_sql[id];
}

struct store {
    db *db;
    db_stmt *stmt[ST_COUNT];
    int op_depth;              /* open op_begin()s */
    unsigned op_owns;          /* bit d: the op at depth d began the transaction */
    int64_t node_id;           /* this store's node in a cluster; 0: none */
    char err[1024];
    uint64_t errors;           /* failures so far (store_errors) */
    /* A turn's deferred writes (store_turn_begin, store_defer): the tag
     * whose fences and appends are deferred now (0: none), and what each
     * deferred write was, numbered from 1 for the driver's misses. */
    uint64_t defer_tag;
    struct deferred_write *deferred;
    int n_deferred, cap_deferred;
    /* The commit sent and its outcome not taken (store_commit_send): its
     * deferred writes, for store_turn_missed once it lands. */
    bool committing;
    int committed_rc;          /* where it committed at once: its outcome */
    struct deferred_write *flying;
    int n_flying, cap_flying;
};

/* A fence or an event append sent without waiting for its answer. */
struct deferred_write {
    uint64_t tag;              /* store_defer's: whose */
    bool fence;                /* a fence; else the append of event seq */
    uint64_t seq;
    char game_id[STORE_ID_BYTES];
};

/* ------------------------------------------------------------------------
 * Errors and statement helpers
 * ------------------------------------------------------------------------ */

static int failf(store *s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int forget_game(store *s, const char *game_id);
static int event_exists(store *s, const char *game_id, uint64_t seq);
static bool deferring(store *s);
static int begin_pipelined(store *s);
static int defer_write(store *s, db_stmt *st, bool fence, const char *game_id, uint64_t seq);

static int failf(store *s, const char *fmt, ...)
{
    s->errors++;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(s->err, sizeof s->err, fmt, ap);
    va_end(ap);
    return -1;
}

/* "what: the database's message" */
static int fail_db(store *s, const char *what)
{
    return failf(s, "%s: %s", what, db_errmsg(s->db));
}

const char *store_open_notice(const store *s)
{
    return s->db->notice;
}

const char *store_last_error(const store *s)
{
    return s ? s->err : "no store";
}

uint64_t store_errors(const store *s)
{
    return s ? s->errors : 0;
}

/* The cached statement id, prepared on first use; NULL (and the error set)
 * if it does not prepare. */
static db_stmt *stmt(store *s, enum stmt_id id)
{
    const char *sql = sql_of(s->db, id);
    if (!sql)
        failf(s, "an SQLite database serves one service: it has no cluster");
    else if (!s->stmt[id] && !(s->stmt[id] = db_prepare(s->db, sql)))
        fail_db(s, "cannot prepare a statement");
    return s->stmt[id];
}

/* Make a statement ready for its next use and let go of its read lock. */
static void finish(db_stmt *st)
{
    db_reset(st);
}

/* Step a statement that returns no rows, then reset it. */
static int run(store *s, db_stmt *st, const char *what)
{
    int rc = db_step(st);
    int res = rc == DB_DONE ? 0 : fail_db(s, what);
    finish(st);
    return res;
}

/* As run, naming what failed only when it did (printf-style): the hot
 * writes then pay no formatting. */
static int run_f(store *s, db_stmt *st, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static int run_f(store *s, db_stmt *st, const char *fmt, ...)
{
    if (db_step(st) == DB_DONE) {
        finish(st);
        return 0;
    }
    char what[160];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    fail_db(s, what);
    finish(st);
    return -1;
}

/* A write whose answer is only success or failure: in a pipelined
 * transaction it is sent with what follows instead of waited for, and its
 * failure fails the next statement waited for (a group's RELEASE, which
 * then undoes the group; the COMMIT): the transaction is whole or not at
 * all as before, one round trip the fewer. Elsewhere, run. */
static int run_or_send(store *s, db_stmt *st, const char *what)
{
    if (!db_piping(s->db))
        return run(s, st, what);
    int rc = s->db->drv->defer(st, false, 0);
    finish(st);
    return rc < 0 ? fail_db(s, what) : 0;
}

/* Run a statement that takes no parameters. */
static int run_id(store *s, enum stmt_id id, const char *what)
{
    db_stmt *st = stmt(s, id);
    return st ? run(s, st, what) : -1;
}

static void col_text(db_stmt *st, int col, char *out, size_t size)
{
    snprintf(out, size, "%s", db_col_text(st, col));
}

/* A string argument: present, shorter than `bytes` with its NUL, and (unless
 * empty_ok) not empty. */
static int check_str(store *s, const char *v, size_t bytes, const char *what, bool empty_ok)
{
    if (!v)
        return failf(s, "the %s is missing", what);
    if (strnlen(v, bytes) >= bytes)
        return failf(s, "the %s is longer than %zu bytes", what, bytes - 1);
    if (!empty_ok && !v[0])
        return failf(s, "the %s is empty", what);
    return 0;
}

/* Room for element `count` of a list of `size`-byte elements read row by
 * row: the list, grown (doubled, from `first`, to at most `most`; 0: no
 * bound) when full. NULL with "what: out of memory" set when it cannot
 * grow; list is then kept, for the caller to free. */
static void *grow_list(store *s, void *list, int count, int *cap, size_t size, int first,
                       int most, const char *what)
{
    if (count < *cap)
        return list;
    int grown_cap = *cap ? *cap * 2 : first;
    if (most > 0 && grown_cap > most)
        grown_cap = most;
    void *grown = realloc(list, (size_t)grown_cap * size);
    if (!grown) {
        failf(s, "%s: out of memory", what);
        return NULL;
    }
    *cap = grown_cap;
    return grown;
}

/* A group of writes as one unit that nests inside the caller's transaction
 * (a savepoint), or is a transaction of its own outside one (PostgreSQL
 * has no savepoint outside a transaction). */
#define MAX_OP_DEPTH 8

static int op_begin(store *s)
{
    if (s->op_depth == MAX_OP_DEPTH)
        return failf(s, "cannot start a write: groups nest %d deep at most", MAX_OP_DEPTH);
    bool owns = !db_in_transaction(s->db);
    /* Pipelined where it can be: the BEGIN goes with the first statement. */
    if (owns && db_can_pipeline(s->db) && !s->committing) {
        if (begin_pipelined(s) < 0)
            return -1;
    } else if (run_id(s, owns ? ST_BEGIN : ST_SAVEPOINT, "cannot start a write") < 0) {
        return -1;
    }
    s->op_owns = (s->op_owns & ~(1u << s->op_depth)) | (unsigned)owns << s->op_depth;
    s->op_depth++;
    return 0;
}

static int op_end(store *s, int res)
{
    bool owns = s->op_depth > 0 && (s->op_owns >> --s->op_depth & 1u);
    if (res == 0 && run_id(s, owns ? ST_COMMIT : ST_RELEASE, "cannot commit") == 0)
        return 0;
    /* Undo everything since the group began (a failed commit included), and
     * keep the first error's sentence: the undo's own failure matters less. */
    char keep[sizeof s->err];
    memcpy(keep, s->err, sizeof keep);
    if (owns && db_in_transaction(s->db)) {
        run_id(s, ST_ROLLBACK, "cannot undo a failed write");
    } else if (!owns) {
        run_id(s, ST_ROLLBACK_TO, "cannot undo a failed write");
        run_id(s, ST_RELEASE, "cannot undo a failed write");
    }
    memcpy(s->err, keep, sizeof keep);
    return -1;
}

int store_group_begin(store *s)
{
    return op_begin(s);
}

int store_group_end(store *s, int res)
{
    return op_end(s, res);
}

/* ------------------------------------------------------------------------
 * Opening
 * ------------------------------------------------------------------------ */

static int open_with(const char *path, bool readonly, store **out, char *err, size_t errlen)
{
    if (out)
        *out = NULL;
    if (!out || !path || !path[0]) {
        if (errlen)
            snprintf(err, errlen, "cannot open the database: %s",
                     !out ? "no place for the store" : "the path is empty");
        return -1;
    }
    store *s = calloc(1, sizeof *s);
    if (!s) {
        if (errlen)
            snprintf(err, errlen, "cannot open the database %s: out of memory", path);
        return -1;
    }
    int rc = db_is_pg_uri(path) ? db_pg_open(path, &s->db, err, errlen)
             : readonly         ? db_sqlite_open_readonly(path, &s->db, err, errlen)
                                : db_sqlite_open(path, &s->db, err, errlen);
    if (rc != 0) {
        free(s);
        return -1;
    }
    *out = s;
    return 0;
}

int store_open(const char *path, store **out, char *err, size_t errlen)
{
    return open_with(path, false, out, err, errlen);
}

int store_open_readonly(const char *path, store **out, char *err, size_t errlen)
{
    return open_with(path, true, out, err, errlen);
}

void store_close(store *s)
{
    if (!s)
        return;
    db_close(s->db);              /* rolls back, and finalizes the statements */
    free(s->deferred);
    free(s->flying);
    free(s);
}

int store_check(const char *path, void (*problem)(void *user, const char *text), void *user,
                char *err, size_t errlen)
{
    if (path && db_is_pg_uri(path)) {
        snprintf(err, errlen, "--check reads an SQLite file; PostgreSQL checks its own "
                              "(see its amcheck module)");
        return -1;
    }
    return db_sqlite_check(path, problem, user, err, errlen);
}

int store_default_path(char *out, size_t len)
{
    if (!out || len == 0) {
        errno = EINVAL;
        return -1;
    }
    out[0] = '\0';
    return xdg_default_db(true, out, len);
}

unsigned long store__checkpoints(store *s)
{
    return s->db->drv->checkpoints(s->db);
}

/* ------------------------------------------------------------------------
 * Games and participants
 * ------------------------------------------------------------------------ */

static int check_game(store *s, const store_game_info *g)
{
    if (!g)
        return failf(s, "the game is missing");
    if (check_str(s, g->id, sizeof g->id, "game id", false) < 0 ||
        check_str(s, g->kind, sizeof g->kind, "game kind", false) < 0 ||
        check_str(s, g->title, sizeof g->title, "game title", true) < 0 ||
        check_str(s, g->reason, sizeof g->reason, "end reason", true) < 0)
        return -1;
    if (g->n_options < 0 || g->n_options > STORE_MAX_OPTIONS)
        return failf(s, "game %s has %d options; at most %d are kept", g->id, g->n_options,
                     STORE_MAX_OPTIONS);
    for (int i = 0; i < g->n_options; i++)
        if (check_str(s, g->options[i].name, sizeof g->options[i].name, "option name",
                      false) < 0)
            return -1;
    if (g->seats < 1 || g->seats > STORE_MAX_SEATS)
        return failf(s, "game %s has %d seats; 1 to %d are possible", g->id, g->seats,
                     STORE_MAX_SEATS);
    if (g->status < STORE_WAITING || g->status > STORE_ABANDONED)
        return failf(s, "game %s has an unknown status %d", g->id, g->status);
    return 0;
}

static int insert_game(store *s, const store_game_info *g)
{
    db_stmt *st = stmt(s, ST_GAME_INSERT);
    if (!st)
        return -1;
    db_bind_text(st, 1, g->id);
    db_bind_text(st, 2, g->kind);
    db_bind_text(st, 3, g->title);
    db_bind_int64(st, 4, g->autostart);
    db_bind_int64(st, 5, g->seats);
    db_bind_int64(st, 6, g->status);
    db_bind_int64(st, 7, g->created_ms);
    db_bind_int64(st, 8, g->started_ms);
    db_bind_int64(st, 9, g->ended_ms);
    db_bind_text(st, 10, g->reason);
    db_bind_int64(st, 11, g->per_move_ms);
    db_bind_int64(st, 12, g->base_ms);
    db_bind_int64(st, 13, g->increment_ms);
    db_bind_int64(st, 14, g->rated);
    db_bind_int64(st, 15, g->bot_takes_over);
    db_bind_int64(st, 16, g->bot_level);
    db_bind_text(st, 17, g->tournament_id);
    char what[64];
    snprintf(what, sizeof what, "cannot store game %s", g->id);
    if (run(s, st, what) < 0)
        return -1;
    for (int i = 0; i < g->n_options; i++) {
        if (!(st = stmt(s, ST_OPTION_INSERT)))
            return -1;
        db_bind_text(st, 1, g->id);
        db_bind_int64(st, 2, i);
        db_bind_text(st, 3, g->options[i].name);
        db_bind_int64(st, 4, g->options[i].value);
        if (run_or_send(s, st, what) < 0)
            return -1;
    }
    return 0;
}

/* A node's new game is its own. */
static int own_game(store *s, const char *id)
{
    db_stmt *st = s->node_id ? stmt(s, ST_OWNER_INSERT) : NULL;
    if (!st)
        return s->node_id ? -1 : 0;
    db_bind_text(st, 1, id);
    db_bind_int64(st, 2, s->node_id);
    return run_f(s, st, "cannot make game %s this node's", id);
}

int store_game_create(store *s, const store_game_info *g)
{
    if (check_game(s, g) < 0 || op_begin(s) < 0)
        return -1;
    int res = insert_game(s, g);
    return op_end(s, res == 0 ? own_game(s, g->id) : res);
}

int store_game_status(store *s, const char *id, int status, int64_t when_ms)
{
    if (check_str(s, id, STORE_ID_BYTES, "game id", false) < 0)
        return -1;
    if (status != STORE_WAITING && status != STORE_RUNNING)
        return failf(s, "status %d cannot be set on game %s (end a game with "
                        "store_game_finish)", status, id);
    db_stmt *st = stmt(s, ST_GAME_STATUS);
    if (!st)
        return -1;
    db_bind_text(st, 1, id);
    db_bind_int64(st, 2, status);
    db_bind_int64(st, 3, when_ms);
    char what[64];
    snprintf(what, sizeof what, "cannot set the status of game %s", id);
    if (run(s, st, what) < 0)
        return -1;
    if (db_changes(s->db) == 0)
        return failf(s, "%s: no such game, or it has ended", what);
    return 0;
}

int store_participant_put(store *s, const char *game_id, unsigned person_id,
                          const char *name, int seat, const char *token, bool ready)
{
    if (check_str(s, game_id, STORE_ID_BYTES, "game id", false) < 0 ||
        check_str(s, name, STORE_NAME_BYTES, "participant name", false) < 0 ||
        check_str(s, token, STORE_TOKEN_BYTES, "seat token", true) < 0)
        return -1;
    if (seat < -1 || seat >= STORE_MAX_SEATS)
        return failf(s, "seat %d is out of range", seat);
    db_stmt *st = stmt(s, ST_PART_PUT);
    if (!st)
        return -1;
    db_bind_text(st, 1, game_id);
    db_bind_int64(st, 2, person_id);
    db_bind_text(st, 3, name);
    db_bind_int64(st, 4, seat);
    db_bind_text(st, 5, token);
    db_bind_int64(st, 6, ready);
    return run_f(s, st, "cannot store participant %u of game %s", person_id, game_id);
}

int store_participant_remove(store *s, const char *game_id, unsigned person_id)
{
    if (check_str(s, game_id, STORE_ID_BYTES, "game id", false) < 0)
        return -1;
    db_stmt *st = stmt(s, ST_PART_DELETE);
    if (!st)
        return -1;
    db_bind_text(st, 1, game_id);
    db_bind_int64(st, 2, person_id);
    return run_f(s, st, "cannot remove participant %u of game %s", person_id, game_id);
}

int store_participant_bot(store *s, const char *game_id, unsigned person_id, int level)
{
    if (check_str(s, game_id, STORE_ID_BYTES, "game id", false) < 0)
        return -1;
    if (level < 0 || level > 10)
        return failf(s, "a bot's level is 1..10 (0: a person), not %d", level);
    db_stmt *st = stmt(s, ST_PART_BOT);
    if (!st)
        return -1;
    db_bind_text(st, 1, game_id);
    db_bind_int64(st, 2, person_id);
    db_bind_int64(st, 3, level);
    if (run_f(s, st, "cannot mark participant %u of game %s", person_id, game_id) < 0)
        return -1;
    if (db_changes(s->db) == 0)
        return failf(s, "game %s has no participant %u", game_id, person_id);
    return 0;
}

/* ------------------------------------------------------------------------
 * Events, moves, transactions
 * ------------------------------------------------------------------------ */

int store_event_append(store *s, const char *game_id, uint64_t seq, int64_t time_ms,
                       unsigned only_for_a, unsigned only_for_b, unsigned format,
                       const void *data, size_t len)
{
    if (check_str(s, game_id, STORE_ID_BYTES, "game id", false) < 0)
        return -1;
    if (seq > INT64_MAX)
        return failf(s, "event sequence number %llu is too large",
                     (unsigned long long)seq);
    if (format < STORE_EVENT_FORMAT_FIRST || format > (unsigned)INT_MAX)
        return failf(s, "event %llu of game %s has no format number",
                     (unsigned long long)seq, game_id);
    if ((!data && len) || len > INT_MAX)
        return failf(s, "event %llu of game %s has no data or too much (%zu bytes)",
                     (unsigned long long)seq, game_id, len);
    db_stmt *st = stmt(s, ST_EVENT_INSERT);
    if (!st)
        return -1;
    db_bind_text(st, 1, game_id);
    db_bind_int64(st, 2, (int64_t)seq);
    db_bind_int64(st, 3, time_ms);
    db_bind_int64(st, 4, only_for_a);
    db_bind_int64(st, 5, only_for_b);
    db_bind_int64(st, 7, format);
    /* A NULL pointer would bind SQL NULL; an empty event is an empty blob. */
    if (len)
        db_bind_blob(st, 6, data, len);
    else
        db_bind_blob(st, 6, "", 0);
    if (store_shared(s))
        db_bind_int64(st, 8, s->node_id);
    if (deferring(s))          /* held back or not: known with the turn's commit */
        return defer_write(s, st, false, game_id, seq);
    if (run_f(s, st, "cannot store event %llu of game %s", (unsigned long long)seq,
              game_id) < 0)
        return -1;
    if (db_changes(s->db) == 1)
        return 0;
    /* Held back: by the log's hole, or by the fence. */
    if (seq > 1 && event_exists(s, game_id, seq - 1) == 0) {
        failf(s, "game %s: the database lacks event %llu, stored before: it has gone back in "
                 "time (a standby promoted behind the primary?)",
              game_id, (unsigned long long)(seq - 1));
        return STORE_BEHIND;
    }
    failf(s, "game %s is no longer this node's: another node adopted it", game_id);
    return STORE_FENCED;
}

/* 1 when game_id's event seq is stored, 0 when not, -1 when unknown. */
static int event_exists(store *s, const char *game_id, uint64_t seq)
{
    db_stmt *st = stmt(s, ST_EVENT_EXISTS);
    if (!st)
        return -1;
    db_bind_text(st, 1, game_id);
    db_bind_int64(st, 2, (int64_t)seq);
    int rc = db_step(st);
    finish(st);
    return rc == DB_ROW ? 1 : rc == DB_DONE ? 0 : -1;
}

int store_move_append(store *s, const char *game_id, int ply, int seat, int move,
                      int64_t time_ms)
{
    if (check_str(s, game_id, STORE_ID_BYTES, "game id", false) < 0)
        return -1;
    if (ply < 0 || seat < 0 || seat >= STORE_MAX_SEATS)
        return failf(s, "move %d of game %s by seat %d is out of range", ply, game_id, seat);
    db_stmt *st = stmt(s, ST_MOVE_INSERT);
    if (!st)
        return -1;
    db_bind_text(st, 1, game_id);
    db_bind_int64(st, 2, ply);
    db_bind_int64(st, 3, seat);
    db_bind_int64(st, 4, move);
    db_bind_int64(st, 5, time_ms);
    return run_f(s, st, "cannot store move %d of game %s", ply, game_id);
}

int store_moves_fill(store *s, const char *game_id, const store_move *moves, int n)
{
    if (check_str(s, game_id, STORE_ID_BYTES, "game id", false) < 0)
        return -1;
    if (n < 0 || (n && !moves))
        return failf(s, "cannot store the moves of game %s: no moves given", game_id);
    char what[64];
    snprintf(what, sizeof what, "cannot store the moves of game %s", game_id);
    for (int i = 0; i < n; i++) {
        const store_move *m = &moves[i];
        if (m->ply < 0 || m->seat < 0 || m->seat >= STORE_MAX_SEATS)
            return failf(s, "move %d of game %s by seat %d is out of range", m->ply, game_id,
                         m->seat);
        db_stmt *st = stmt(s, ST_MOVE_FILL);
        if (!st)
            return -1;
        db_bind_text(st, 1, game_id);
        db_bind_int64(st, 2, m->ply);
        db_bind_int64(st, 3, m->seat);
        db_bind_int64(st, 4, m->move);
        db_bind_int64(st, 5, m->time_ms);
        /* Not a round trip each on PostgreSQL: they go with the commit. */
        if (run_or_send(s, st, what) < 0)
            return -1;
    }
    return 0;
}

/* ------------------------------------------------------------------------
 * A turn's writes in one round trip
 * ------------------------------------------------------------------------ */

int store_turn_begin(store *s)
{
    if (!db_can_pipeline(s->db))
        return store_begin(s);
    if (db_in_transaction(s->db))
        return failf(s, "cannot begin a transaction: one is already open");
    return begin_pipelined(s);
}

/* A transaction in the driver's pipeline: its BEGIN sent, not waited for. */
static int begin_pipelined(store *s)
{
    db_stmt *st = stmt(s, ST_BEGIN);   /* prepared before the pipeline, once */
    if (!st)
        return -1;
    s->n_deferred = 0;
    s->defer_tag = 0;
    if (s->db->drv->pipeline(s->db) < 0)
        return fail_db(s, "cannot begin a transaction");
    int rc = s->db->drv->defer(st, false, 0);
    finish(st);
    if (rc < 0) {
        fail_db(s, "cannot begin a transaction");
        char keep[sizeof s->err];
        memcpy(keep, s->err, sizeof keep);
        run_id(s, ST_ROLLBACK, "cannot roll back");
        memcpy(s->err, keep, sizeof keep);
        return -1;
    }
    return 0;
}

bool store_defer(store *s, uint64_t tag)
{
    s->defer_tag = tag;
    return tag && db_piping(s->db);
}

/* Send st deferred as write w (store_defer's tag), expecting one row. */
static int defer_write(store *s, db_stmt *st, bool fence, const char *game_id, uint64_t seq)
{
    if (s->n_deferred == s->cap_deferred) {
        struct deferred_write *grown = grow_list(s, s->deferred, s->n_deferred,
                                                 &s->cap_deferred, sizeof *grown, 64, 0,
                                                 "cannot store a move");
        if (!grown) {
            finish(st);
            return -1;
        }
        s->deferred = grown;
    }
    struct deferred_write *w = &s->deferred[s->n_deferred];
    *w = (struct deferred_write){.tag = s->defer_tag, .fence = fence, .seq = seq};
    snprintf(w->game_id, sizeof w->game_id, "%s", game_id);
    int rc = s->db->drv->defer(st, true, (uint64_t)s->n_deferred + 1);
    finish(st);
    if (rc < 0)
        return fail_db(s, fence ? "cannot hold a game" : "cannot store an event");
    s->n_deferred++;
    return 0;
}

static bool deferring(store *s)
{
    return s->defer_tag && db_piping(s->db);
}

int store_turn_missed(store *s, uint64_t tag)
{
    if (!tag || !s->db->drv->misses)
        return 0;
    const uint64_t *missed;
    int n = s->db->drv->misses(s->db, &missed);
    for (int i = 0; i < n; i++) {
        if (missed[i] < 1 || missed[i] > (uint64_t)s->n_flying)
            continue;
        const struct deferred_write *w = &s->flying[missed[i] - 1];
        if (w->tag != tag)
            continue;
        if (!w->fence && w->seq > 1 && event_exists(s, w->game_id, w->seq - 1) == 0) {
            failf(s, "game %s: the database lacks event %llu, stored before: it has gone "
                     "back in time (a standby promoted behind the primary?)",
                  w->game_id, (unsigned long long)(w->seq - 1));
            return STORE_BEHIND;
        }
        failf(s, "game %s is another node's now", w->game_id);
        return STORE_FENCED;
    }
    return 0;
}

void store_waits(const store *s, uint64_t *round_trips, double *seconds)
{
    const db_driver *drv = s ? s->db->drv : NULL;
    *round_trips = drv && drv->round_trips ? drv->round_trips(s->db) : 0;
    *seconds = drv && drv->waited ? drv->waited(s->db) : 0;
}

int store_begin(store *s)
{
    if (db_in_transaction(s->db))
        return failf(s, "cannot begin a transaction: one is already open");
    return run_id(s, ST_BEGIN, "cannot begin a transaction");
}

int store_commit_send(store *s)
{
    if (s->committing)
        return failf(s, "cannot commit: the last commit's outcome is not taken yet");
    if (!db_piping(s->db) || !s->db->drv->commit_send) {
        s->committed_rc = store_commit(s);
        s->committing = true;
        return 0;
    }
    /* The turn's deferred writes go with its commit: the next turn's are
     * numbered afresh. */
    struct deferred_write *w = s->flying;
    int cap = s->cap_flying;
    s->flying = s->deferred;
    s->cap_flying = s->cap_deferred;
    s->n_flying = s->n_deferred;
    s->deferred = w;
    s->cap_deferred = cap;
    s->n_deferred = 0;
    s->defer_tag = 0;
    if (s->db->drv->commit_send(s->db) < 0)
        return fail_db(s, "cannot commit");
    s->committed_rc = STORE_IN_FLIGHT;
    s->committing = true;
    return 0;
}

int store_commit_landed(store *s, int wait_ms)
{
    if (!s->committing)
        return failf(s, "no commit was sent");
    int rc = s->committed_rc;
    if (rc == STORE_IN_FLIGHT) {
        rc = s->db->drv->landed(s->db, wait_ms);
        if (rc == DB_FLYING)
            return STORE_IN_FLIGHT;
        if (rc < 0)
            fail_db(s, "cannot commit");
    }
    s->committing = false;
    return rc < 0 ? -1 : 0;
}

bool store_commit_in_flight(const store *s)
{
    return s->committing;
}

void store_send_pending(store *s)
{
    if (s->db->drv->flush)
        s->db->drv->flush(s->db);
}

int store_commit(store *s)
{
    if (db_piping(s->db) && s->db->drv->commit_send) {
        if (store_commit_send(s) < 0)
            return -1;
        return store_commit_landed(s, -1);
    }
    if (!db_in_transaction(s->db))
        return failf(s, "cannot commit: no transaction is open");
    if (run_id(s, ST_COMMIT, "cannot commit") == 0)
        return 0;
    /* A failed COMMIT may leave the transaction open (busy): end it, so the
     * promise "nothing of it is stored" holds and the next begin works. */
    if (db_in_transaction(s->db)) {
        char keep[sizeof s->err];
        memcpy(keep, s->err, sizeof keep);
        run_id(s, ST_ROLLBACK, "cannot roll back");
        memcpy(s->err, keep, sizeof keep);
    }
    return -1;
}

int store_rollback(store *s)
{
    if (!db_in_transaction(s->db))
        return 0;
    return run_id(s, ST_ROLLBACK, "cannot roll back");
}

/* ------------------------------------------------------------------------
 * The end of a game
 * ------------------------------------------------------------------------ */

enum outcome { OUT_WIN = 1, OUT_LOSS = 2, OUT_DRAW = 3 };

/* An account id, or SQL NULL for a guest (0). */
static void bind_account(db_stmt *st, int col, int64_t account)
{
    if (account > 0)
        db_bind_int64(st, col, account);
    else
        db_bind_null(st, col);
}

/* ST_STATS_ADD's parameters: one result of name's. */
static void bind_outcome(db_stmt *st, const char *name, enum outcome o, int64_t account)
{
    db_bind_text(st, 1, name);
    db_bind_int64(st, 2, o == OUT_WIN);
    db_bind_int64(st, 3, o == OUT_LOSS);
    db_bind_int64(st, 4, o == OUT_DRAW);
    bind_account(st, 5, account);
}

static int finish_game(store *s, const char *id, int status, const char *reason, int n_seats,
                       const char *const *names, const int64_t *accounts, const int *scores,
                       const bool *won, int n_winners, int64_t ended_ms)
{
    char what[64];
    snprintf(what, sizeof what, "cannot end game %s", id);

    db_stmt *st = stmt(s, ST_GAME_STATE);
    if (!st)
        return -1;
    db_bind_text(st, 1, id);
    int rc = db_step(st);
    int old_status = rc == DB_ROW ? db_col_int(st, 0) : 0;
    int seats = rc == DB_ROW ? db_col_int(st, 1) : 0;
    if (rc != DB_ROW && rc != DB_DONE)
        fail_db(s, what);
    finish(st);
    if (rc != DB_ROW)
        return rc == DB_DONE ? failf(s, "%s: no such game", what) : -1;
    if (old_status >= STORE_FINISHED)
        return failf(s, "%s: it has already ended", what);
    if (seats != n_seats)
        return failf(s, "%s: it has %d seats, not %d", what, seats, n_seats);

    if (!(st = stmt(s, ST_GAME_END)))
        return -1;
    db_bind_text(st, 1, id);
    db_bind_int64(st, 2, status);
    db_bind_text(st, 3, reason);
    db_bind_int64(st, 4, ended_ms);
    if (run(s, st, what) < 0)
        return -1;

    for (int i = 0; i < n_seats; i++) {
        if (!(st = stmt(s, ST_RESULT_INSERT)))
            return -1;
        db_bind_text(st, 1, id);
        db_bind_int64(st, 2, i);
        db_bind_text(st, 3, names[i]);
        db_bind_int64(st, 4, scores ? scores[i] : 0);
        db_bind_int64(st, 5, won[i]);
        bind_account(st, 6, accounts ? accounts[i] : 0);
        if (run_or_send(s, st, what) < 0)
            return -1;
    }

    for (int i = 0; status == STORE_FINISHED && i < n_seats; i++) {
        if (!names[i][0])
            continue;
        if (!(st = stmt(s, ST_STATS_ADD)))
            return -1;
        bind_outcome(st, names[i], n_winners == 0 ? OUT_DRAW : won[i] ? OUT_WIN : OUT_LOSS,
                     accounts ? accounts[i] : 0);
        if (run_or_send(s, st, what) < 0)
            return -1;
    }
    return 0;
}

int store_game_fence(store *s, const char *game_id)
{
    if (!s->node_id)
        return 0;              /* one service, one database: nobody else writes */
    if (check_str(s, game_id, STORE_ID_BYTES, "game id", false) < 0)
        return -1;
    if (!db_in_transaction(s->db))
        return failf(s, "cannot hold game %s: no transaction is open", game_id);
    db_stmt *st = stmt(s, ST_GAME_FENCE);
    if (!st)
        return -1;
    db_bind_text(st, 1, game_id);
    db_bind_int64(st, 2, s->node_id);
    if (deferring(s))          /* its row is checked with the turn's commit */
        return defer_write(s, st, true, game_id, 0);
    int rc = db_step(st);
    int res = rc == DB_ROW ? 0 : rc == DB_DONE ? STORE_FENCED
                                                : fail_db(s, "cannot hold a game");
    if (res == STORE_FENCED)
        failf(s, "game %s is another node's now", game_id);
    finish(st);
    return res;
}

int store_game_forget(store *s, const char *game_id)
{
    if (check_str(s, game_id, STORE_ID_BYTES, "game id", false) < 0)
        return -1;
    if (s->node_id) {          /* only its owner forgets it, in one transaction */
        if (op_begin(s) < 0)
            return -1;
        int res = store_game_fence(s, game_id);
        if (res == 0)
            res = forget_game(s, game_id);
        int kept = op_end(s, res);
        return res == STORE_FENCED ? STORE_FENCED : kept;
    }
    return forget_game(s, game_id);
}

static int forget_game(store *s, const char *game_id)
{
    db_stmt *st = stmt(s, ST_PARTS_CLEAR);
    if (!st)
        return -1;
    db_bind_text(st, 1, game_id);
    if (run_f(s, st, "cannot forget the participants of game %s", game_id) < 0)
        return -1;
    if (!s->node_id || !(st = stmt(s, ST_OWNER_FORGET)))
        return s->node_id ? -1 : 0;
    db_bind_text(st, 1, game_id);
    return run_f(s, st, "cannot let go of game %s", game_id);
}

int store_game_finish(store *s, const char *game_id, int status, const char *reason,
                      int n_seats, const char *const *seat_names,
                      const int64_t *seat_accounts, const int *scores,
                      const int *winners, int n_winners, int64_t ended_ms)
{
    if (check_str(s, game_id, STORE_ID_BYTES, "game id", false) < 0)
        return -1;
    if (!reason)
        reason = "";
    if (check_str(s, reason, STORE_REASON_BYTES, "end reason", true) < 0)
        return -1;
    if (status != STORE_FINISHED && status != STORE_ABANDONED)
        return failf(s, "game %s cannot end with status %d", game_id, status);
    if (n_seats < 1 || n_seats > STORE_MAX_SEATS || !seat_names)
        return failf(s, "game %s cannot end with %d seats", game_id, n_seats);
    if (n_winners < 0 || n_winners > n_seats || (n_winners && !winners))
        return failf(s, "game %s cannot end with %d winners", game_id, n_winners);
    const char *names[STORE_MAX_SEATS];
    for (int i = 0; i < n_seats; i++) {
        names[i] = seat_names[i] ? seat_names[i] : "";
        if (check_str(s, names[i], STORE_NAME_BYTES, "seat name", true) < 0)
            return -1;
        for (int j = 0; j < i && names[i][0]; j++)
            if (strcmp(names[i], names[j]) == 0)
                return failf(s, "game %s cannot end: '%s' holds seats %d and %d", game_id,
                             names[i], j, i);
    }
    bool won[STORE_MAX_SEATS] = { false };
    for (int i = 0; i < n_winners; i++) {
        if (winners[i] < 0 || winners[i] >= n_seats || won[winners[i]])
            return failf(s, "game %s cannot end: winner seat %d is out of range or "
                            "repeated", game_id, winners[i]);
        won[winners[i]] = true;
    }
    if (op_begin(s) < 0)
        return -1;
    return op_end(s, finish_game(s, game_id, status, reason, n_seats, names, seat_accounts,
                                 scores, won, n_winners, ended_ms));
}

/* ------------------------------------------------------------------------
 * Statistics
 * ------------------------------------------------------------------------ */

static void read_stats(db_stmt *st, store_stats *out)
{
    col_text(st, 0, out->name, sizeof out->name);
    out->played = db_col_int(st, 1);
    out->wins = db_col_int(st, 2);
    out->losses = db_col_int(st, 3);
    out->draws = db_col_int(st, 4);
    out->streak = db_col_int(st, 5);
    out->best_streak = db_col_int(st, 6);
    out->account_id = db_col_int64(st, 7);     /* NULL reads 0 */
}

int store_player_stats(store *s, const char *name, store_stats *out)
{
    if (check_str(s, name, STORE_NAME_BYTES, "player name", false) < 0)
        return -1;
    if (!out)
        return failf(s, "no place for the statistics");
    db_stmt *st = stmt(s, ST_STATS_GET);
    if (!st)
        return -1;
    db_bind_text(st, 1, name);
    int rc = db_step(st);
    int res = 0;
    if (rc == DB_ROW) {
        read_stats(st, out);
    } else if (rc == DB_DONE) {
        memset(out, 0, sizeof *out);
        snprintf(out->name, sizeof out->name, "%s", name);
    } else {
        res = fail_db(s, "cannot read a player's statistics");
    }
    finish(st);
    return res;
}

int store_leaderboard(store *s, int limit, const store_page_key *after, store_stats *out,
                      int *n)
{
    if (!n || (limit > 0 && !out) || limit <= 0)
        return failf(s, "the leaderboard needs a limit above 0 and a place for it");
    *n = 0;
    db_stmt *st = stmt(s, ST_LEADERBOARD);
    if (!st)
        return -1;
    db_bind_int64(st, 1, limit);
    if (after && after->set) {
        db_bind_int64(st, 2, after->a);
        db_bind_int64(st, 3, after->b);
        db_bind_text(st, 4, after->text);
    }
    int rc;
    while ((rc = db_step(st)) == DB_ROW && *n < limit)
        read_stats(st, &out[(*n)++]);
    int res = rc == DB_DONE || rc == DB_ROW ? 0 : fail_db(s, "cannot read the leaderboard");
    finish(st);
    return res;
}

/* ------------------------------------------------------------------------
 * History
 * ------------------------------------------------------------------------ */

/* A row of GAME_COLUMNS; the options are read separately. */
static void read_game(db_stmt *st, store_game_info *g, int *n_moves)
{
    memset(g, 0, sizeof *g);
    col_text(st, 0, g->id, sizeof g->id);
    col_text(st, 1, g->kind, sizeof g->kind);
    col_text(st, 2, g->title, sizeof g->title);
    g->autostart = db_col_int(st, 3) != 0;
    g->seats = db_col_int(st, 4);
    g->status = db_col_int(st, 5);
    g->created_ms = db_col_int64(st, 6);
    g->started_ms = db_col_int64(st, 7);
    g->ended_ms = db_col_int64(st, 8);
    col_text(st, 9, g->reason, sizeof g->reason);
    if (n_moves)
        *n_moves = db_col_int(st, 10);
    g->per_move_ms = db_col_int(st, 11);
    g->base_ms = db_col_int(st, 12);
    g->increment_ms = db_col_int(st, 13);
    g->rated = db_col_int(st, 14) != 0;
    g->bot_takes_over = db_col_int(st, 15) != 0;
    g->bot_level = db_col_int(st, 16);
    col_text(st, 17, g->tournament_id, sizeof g->tournament_id);
}

static int read_options(store *s, store_game_info *g)
{
    db_stmt *st = stmt(s, ST_OPTIONS_GET);
    if (!st)
        return -1;
    db_bind_text(st, 1, g->id);
    int rc;
    g->n_options = 0;
    while ((rc = db_step(st)) == DB_ROW && g->n_options < STORE_MAX_OPTIONS) {
        store_option *o = &g->options[g->n_options++];
        col_text(st, 0, o->name, sizeof o->name);
        o->value = db_col_int(st, 1);
    }
    int res = rc == DB_DONE || rc == DB_ROW ? 0 : fail_db(s, "cannot read game options");
    finish(st);
    return res;
}

static int read_results(store *s, store_match_summary *m)
{
    db_stmt *st = stmt(s, ST_RESULTS_GET);
    if (!st)
        return -1;
    db_bind_text(st, 1, m->game.id);
    int rc;
    m->n_seats = m->n_winners = 0;
    while ((rc = db_step(st)) == DB_ROW) {
        int seat = db_col_int(st, 0);
        if (seat < 0 || seat >= STORE_MAX_SEATS)
            continue;
        col_text(st, 1, m->seat_names[seat], sizeof m->seat_names[seat]);
        m->scores[seat] = db_col_int(st, 2);
        if (db_col_int(st, 3))
            m->winners[m->n_winners++] = seat;
        if (seat + 1 > m->n_seats)
            m->n_seats = seat + 1;
    }
    int res = rc == DB_DONE ? 0 : fail_db(s, "cannot read game results");
    finish(st);
    return res;
}

/* Options and results of a summary whose game row has been read. */
static int complete_summary(store *s, store_match_summary *m)
{
    return read_options(s, &m->game) < 0 || read_results(s, m) < 0 ? -1 : 0;
}

int store_matches(store *s, const char *player, const char *kind, int limit,
                  const store_page_key *after, store_match_summary **out, int *n)
{
    if (!out || !n || limit <= 0)
        return failf(s, "the match history needs a limit above 0 and a place for it");
    *out = NULL;
    *n = 0;
    if ((player && check_str(s, player, STORE_NAME_BYTES, "player name", false) < 0) ||
        (kind && check_str(s, kind, STORE_KIND_BYTES, "game kind", false) < 0))
        return -1;
    db_stmt *st = stmt(s, ST_MATCHES);
    if (!st)
        return -1;
    if (kind)
        db_bind_text(st, 1, kind);
    if (player)
        db_bind_text(st, 2, player);
    db_bind_int64(st, 3, limit);
    if (after && after->set) {
        db_bind_int64(st, 4, after->a);
        db_bind_int64(st, 5, after->b);
    }

    store_match_summary *list = NULL;
    int count = 0, cap = 0, rc, res = 0;
    while ((rc = db_step(st)) == DB_ROW) {
        store_match_summary *grown = grow_list(s, list, count, &cap, sizeof *list, 16, limit,
                                               "cannot read the match history");
        if (!grown) {
            res = -1;
            break;
        }
        list = grown;
        store_match_summary *m = &list[count++];
        memset(m, 0, sizeof *m);
        read_game(st, &m->game, &m->n_moves);
        m->order = db_col_int64(st, GAME_N_COLUMNS);
        if (complete_summary(s, m) < 0) {
            res = -1;
            break;
        }
    }
    if (res == 0 && rc != DB_DONE)
        res = fail_db(s, "cannot read the match history");
    finish(st);
    if (res < 0) {
        free(list);
        return -1;
    }
    *out = list;
    *n = count;
    return 0;
}

static int read_moves(store *s, const char *id, store_move **moves, int *n_moves)
{
    db_stmt *st = stmt(s, ST_MOVES_GET);
    if (!st)
        return -1;
    db_bind_text(st, 1, id);
    store_move *list = NULL;
    int count = 0, cap = 0, rc, res = 0;
    while ((rc = db_step(st)) == DB_ROW) {
        store_move *grown = grow_list(s, list, count, &cap, sizeof *list, 64, 0,
                                      "cannot read the moves of a game");
        if (!grown) {
            res = -1;
            break;
        }
        list = grown;
        store_move *m = &list[count++];
        m->ply = db_col_int(st, 0);
        m->seat = db_col_int(st, 1);
        m->move = db_col_int(st, 2);
        m->time_ms = db_col_int64(st, 3);
    }
    if (res == 0 && rc != DB_DONE)
        res = fail_db(s, "cannot read the moves of a game");
    finish(st);
    if (res < 0) {
        free(list);
        return -1;
    }
    *moves = list;
    *n_moves = count;
    return 0;
}

int store_match(store *s, const char *game_id, store_match_summary *out,
                store_move **moves, int *n_moves)
{
    if (!out || !moves || !n_moves)
        return failf(s, "no place for the match");
    *moves = NULL;
    *n_moves = 0;
    if (check_str(s, game_id, STORE_ID_BYTES, "game id", false) < 0)
        return -1;
    db_stmt *st = stmt(s, ST_GAME_GET);
    if (!st)
        return -1;
    db_bind_text(st, 1, game_id);
    int rc = db_step(st);
    memset(out, 0, sizeof *out);
    if (rc == DB_ROW)
        read_game(st, &out->game, &out->n_moves);
    else if (rc != DB_DONE)
        fail_db(s, "cannot read a game");
    finish(st);
    if (rc == DB_DONE) {
        failf(s, "there is no game %s", game_id);
        return STORE_NOT_FOUND;
    }
    if (rc != DB_ROW || complete_summary(s, out) < 0)
        return -1;
    return read_moves(s, game_id, moves, n_moves);
}

/* ------------------------------------------------------------------------
 * Recovery
 * ------------------------------------------------------------------------ */

static int read_rated_seats(store *s, store_game_info *g)
{
    if (!g->rated)
        return 0;
    db_stmt *st = stmt(s, ST_RATED_SEATS_GET);
    if (!st)
        return -1;
    db_bind_text(st, 1, g->id);
    int rc;
    while ((rc = db_step(st)) == DB_ROW) {
        int seat = db_col_int(st, 0);
        if (seat >= 0 && seat < STORE_MAX_SEATS)
            g->rated_accounts[seat] = db_col_int64(st, 1);
    }
    int res = rc == DB_DONE ? 0 : fail_db(s, "cannot read a rated game's seats");
    finish(st);
    return res;
}

static int recover_game(store *s, const store_recovery_cb *cb, void *user,
                        const store_game_info *g)
{
    if (cb->game)
        cb->game(user, g);
    db_stmt *st = stmt(s, ST_RECOVER_PARTS);
    if (!st)
        return -1;
    db_bind_text(st, 1, g->id);
    int rc;
    while ((rc = db_step(st)) == DB_ROW) {
        unsigned person = (unsigned)db_col_int64(st, 0);
        if (cb->participant) {
            char name[STORE_NAME_BYTES], token[STORE_TOKEN_BYTES];
            col_text(st, 1, name, sizeof name);
            col_text(st, 3, token, sizeof token);
            cb->participant(user, g->id, person, name, db_col_int(st, 2), token,
                            db_col_int(st, 4) != 0);
        }
        int bot_level = db_col_int(st, 5);
        if (cb->bot && bot_level > 0)
            cb->bot(user, g->id, person, bot_level);
        int64_t account = db_col_int64(st, 6);
        if (cb->account && account > 0) {
            char host[STORE_HOST_BYTES];
            col_text(st, 7, host, sizeof host);
            cb->account(user, g->id, person, account, host);
        }
    }
    int res = rc == DB_DONE ? 0 : fail_db(s, "cannot read participants");
    finish(st);
    if (res < 0 || !(st = stmt(s, ST_RECOVER_EVENTS)))
        return -1;
    db_bind_text(st, 1, g->id);
    while ((rc = db_step(st)) == DB_ROW) {
        if (!cb->event)
            continue;
        size_t len;
        const void *data = db_col_blob(st, 4, &len);
        cb->event(user, g->id, (uint64_t)db_col_int64(st, 0),
                  db_col_int64(st, 1), (unsigned)db_col_int64(st, 2),
                  (unsigned)db_col_int64(st, 3), (unsigned)db_col_int64(st, 5),
                  data, len);
    }
    res = rc == DB_DONE ? 0 : fail_db(s, "cannot read the event log");
    finish(st);
    return res;
}

int store_recover(store *s, const store_recovery_cb *cb, void *user, unsigned *max_game_id)
{
    static const store_recovery_cb none;
    if (!cb)
        cb = &none;
    if (max_game_id) {
        db_stmt *st = stmt(s, ST_MAX_ID);
        if (!st)
            return -1;
        int rc = db_step(st);
        int64_t max = rc == DB_ROW ? db_col_int64(st, 0) : 0;
        if (rc != DB_ROW)
            fail_db(s, "cannot read the game ids");
        finish(st);
        if (rc != DB_ROW)
            return -1;
        *max_game_id = max > (int64_t)UINT_MAX ? UINT_MAX : (unsigned)max;
    }
    /* The outer statement stays open while the inner ones run: one read
     * transaction, so the games and their logs are one consistent picture. */
    db_stmt *games = stmt(s, ST_RECOVER_GAMES);
    if (!games)
        return -1;
    if (store_shared(s))
        db_bind_int64(games, 1, s->node_id);
    int rc, res = 0;
    while ((rc = db_step(games)) == DB_ROW) {
        store_game_info g;
        read_game(games, &g, NULL);
        if (read_options(s, &g) < 0 || read_rated_seats(s, &g) < 0 ||
            recover_game(s, cb, user, &g) < 0) {
            res = -1;
            break;
        }
    }
    if (res == 0 && rc != DB_DONE)
        res = fail_db(s, "cannot read the unfinished games");
    finish(games);
    return res;
}

/* ------------------------------------------------------------------------
 * Accounts and sessions
 * ------------------------------------------------------------------------ */

int store_participant_account(store *s, const char *game_id, unsigned person_id,
                              int64_t account_id, const char *host)
{
    if (check_str(s, game_id, STORE_ID_BYTES, "game id", false) < 0 ||
        check_str(s, host, STORE_HOST_BYTES, "client address", true) < 0)
        return -1;
    if (account_id < 0)
        return failf(s, "account %lld is out of range", (long long)account_id);
    db_stmt *st = stmt(s, ST_PART_ACCOUNT);
    if (!st)
        return -1;
    db_bind_text(st, 1, game_id);
    db_bind_int64(st, 2, person_id);
    db_bind_int64(st, 3, account_id);
    db_bind_text(st, 4, host);
    if (run_f(s, st, "cannot link participant %u of game %s", person_id, game_id) < 0)
        return -1;
    if (db_changes(s->db) == 0)
        return failf(s, "game %s has no participant %u", game_id, person_id);
    return 0;
}

static int check_account(store *s, const store_account *a)
{
    if (!a)
        return failf(s, "the account is missing");
    if (check_str(s, a->name, sizeof a->name, "account name", false) < 0 ||
        check_str(s, a->name_key, sizeof a->name_key, "account name key", false) < 0 ||
        check_str(s, a->skeleton, sizeof a->skeleton, "account name skeleton", false) < 0 ||
        check_str(s, a->look, sizeof a->look, "account name look", false) < 0 ||
        check_str(s, a->password_hash, sizeof a->password_hash, "password hash", false) < 0)
        return -1;
    return 0;
}

static int find_account(store *s, enum stmt_id id, const char *text, int64_t num,
                        store_account *out);
static int find_account_like(store *s, const char *skeleton, const char *look,
                             store_account *out);

/* Insert a, then claim the unclaimed statistics and results of its exact
 * name; inside the caller's savepoint. The unique key and skeleton refuse
 * a same name and a same skeleton; a look, which older rows may share, is
 * looked up first (on PostgreSQL two nodes registering two names that look
 * alike at the same instant could both pass that lookup). */
static int insert_account(store *s, store_account *a, bool *claimed)
{
    store_account like;
    int found = find_account_like(s, a->skeleton, a->look, &like);
    if (found == 0)
        return STORE_TAKEN;
    if (found != STORE_NOT_FOUND)
        return -1;
    db_stmt *st = stmt(s, ST_ACCOUNT_INSERT);
    if (!st)
        return -1;
    db_bind_text(st, 1, a->name);
    db_bind_text(st, 2, a->name_key);
    db_bind_text(st, 3, a->skeleton);
    db_bind_text(st, 4, a->password_hash);
    db_bind_int64(st, 5, a->created_ms);
    db_bind_text(st, 6, a->look);
    int rc = db_step(st);
    if (rc != DB_ROW) {
        bool taken = db_unique_violation(s->db);
        fail_db(s, "cannot store the account");
        finish(st);
        return taken ? STORE_TAKEN : -1;
    }
    a->id = db_col_int64(st, 0);     /* RETURNING id */
    finish(st);
    static const enum stmt_id claims[] = {ST_ACCOUNT_CLAIM_STATS, ST_ACCOUNT_CLAIM_RESULTS};
    for (size_t i = 0; i < sizeof claims / sizeof claims[0]; i++) {
        if (!(st = stmt(s, claims[i])))
            return -1;
        db_bind_int64(st, 1, a->id);
        db_bind_text(st, 2, a->name);
        if (run(s, st, "cannot claim the name's statistics") < 0)
            return -1;
        if (i == 0)
            *claimed = db_changes(s->db) > 0;
    }
    return 0;
}

int store_account_create(store *s, store_account *a, bool *claimed)
{
    bool dummy;
    if (!claimed)
        claimed = &dummy;
    *claimed = false;
    if (check_account(s, a) < 0 || op_begin(s) < 0)
        return -1;
    int rc = insert_account(s, a, claimed);
    if (rc == STORE_TAKEN) {
        op_end(s, -1);
        failf(s, "the name %s, or one that looks like it, is registered", a->name);
        return STORE_TAKEN;
    }
    return op_end(s, rc);
}

/* The account st's one row names, into *out: 0, STORE_NOT_FOUND, or -1. */
static int read_account(store *s, db_stmt *st, store_account *out)
{
    int rc = db_step(st);
    memset(out, 0, sizeof *out);
    if (rc == DB_ROW) {
        out->id = db_col_int64(st, 0);
        col_text(st, 1, out->name, sizeof out->name);
        col_text(st, 2, out->name_key, sizeof out->name_key);
        col_text(st, 3, out->skeleton, sizeof out->skeleton);
        col_text(st, 4, out->password_hash, sizeof out->password_hash);
        out->created_ms = db_col_int64(st, 5);
        col_text(st, 6, out->look, sizeof out->look);
    } else if (rc != DB_DONE) {
        fail_db(s, "cannot read an account");
    }
    finish(st);
    if (rc == DB_DONE) {
        failf(s, "no such account");
        return STORE_NOT_FOUND;
    }
    return rc == DB_ROW ? 0 : -1;
}

static int find_account(store *s, enum stmt_id id, const char *text, int64_t num,
                        store_account *out)
{
    if (!out)
        return failf(s, "no place for the account");
    db_stmt *st = stmt(s, id);
    if (!st)
        return -1;
    if (text)
        db_bind_text(st, 1, text);
    else
        db_bind_int64(st, 1, num);
    return read_account(s, st, out);
}

static int find_account_like(store *s, const char *skeleton, const char *look,
                             store_account *out)
{
    if (!out)
        return failf(s, "no place for the account");
    if (check_str(s, skeleton, STORE_SKELETON_BYTES, "account name skeleton", false) < 0 ||
        check_str(s, look, STORE_SKELETON_BYTES, "account name look", false) < 0)
        return -1;
    db_stmt *st = stmt(s, ST_ACCOUNT_LIKE);
    if (!st)
        return -1;
    db_bind_text(st, 1, skeleton);
    db_bind_text(st, 2, look);
    return read_account(s, st, out);
}

int store_account_find_like(store *s, const char *skeleton, const char *look,
                            store_account *out)
{
    return find_account_like(s, skeleton, look, out);
}

/* Fill up to `most` looks of rows written before schema 8 / 2; *done is how
 * many rows were read (fewer than most: no more are left). */
static int fill_looks_batch(store *s, store_look_fn fn, void *user, int most, int *filled,
                            int *done)
{
    struct lookless {
        int64_t id;
        char name[STORE_NAME_BYTES];
        char skeleton[STORE_SKELETON_BYTES];
    } *rows = calloc((size_t)most, sizeof *rows);
    if (!rows)
        return failf(s, "cannot fill the accounts' looks: out of memory");
    db_stmt *st = stmt(s, ST_ACCOUNTS_LOOKLESS);
    if (!st) {
        free(rows);
        return -1;
    }
    db_bind_int64(st, 1, most);
    int n = 0, rc = DB_DONE;
    while (n < most && (rc = db_step(st)) == DB_ROW) {
        rows[n].id = db_col_int64(st, 0);
        col_text(st, 1, rows[n].name, sizeof rows[n].name);
        col_text(st, 2, rows[n].skeleton, sizeof rows[n].skeleton);
        n++;
    }
    if (n < most && rc != DB_DONE) {
        fail_db(s, "cannot read the accounts without a look");
        finish(st);
        free(rows);
        return -1;
    }
    finish(st);
    for (int i = 0; i < n; i++) {
        char look[STORE_SKELETON_BYTES];
        /* A name today's ICU cannot prepare keeps its skeleton as its look:
         * what it was compared by before. */
        if (fn(rows[i].name, look, sizeof look, user) != 0 || !look[0])
            snprintf(look, sizeof look, "%s", rows[i].skeleton);
        if (!(st = stmt(s, ST_ACCOUNT_SET_LOOK))) {
            free(rows);
            return -1;
        }
        db_bind_int64(st, 1, rows[i].id);
        db_bind_text(st, 2, look);
        if (run_f(s, st, "cannot store the look of account %lld", (long long)rows[i].id) < 0) {
            free(rows);
            return -1;
        }
        *filled += db_changes(s->db) > 0;
    }
    free(rows);
    *done = n;
    return 0;
}

int store_account_fill_looks(store *s, store_look_fn fn, void *user, int *filled)
{
    enum { BATCH = 64 };
    *filled = 0;
    for (;;) {
        int done = 0;
        if (op_begin(s) < 0)
            return -1;
        int rc = op_end(s, fill_looks_batch(s, fn, user, BATCH, filled, &done));
        if (rc != 0 || done < BATCH)
            return rc;
    }
}

int store_account_count(store *s, int64_t *n)
{
    db_stmt *st = stmt(s, ST_ACCOUNT_COUNT);
    if (!st)
        return -1;
    int rc = db_step(st);
    *n = rc == DB_ROW ? db_col_int64(st, 0) : 0;
    if (rc != DB_ROW)
        fail_db(s, "cannot count the accounts");
    finish(st);
    return rc == DB_ROW ? 0 : -1;
}

int store_account_find(store *s, const char *name_key, store_account *out)
{
    if (check_str(s, name_key, STORE_NAME_KEY_BYTES, "account name key", false) < 0)
        return -1;
    return find_account(s, ST_ACCOUNT_BY_KEY, name_key, 0, out);
}

int store_account_find_skeleton(store *s, const char *skeleton, store_account *out)
{
    if (check_str(s, skeleton, STORE_SKELETON_BYTES, "account name skeleton", false) < 0)
        return -1;
    return find_account(s, ST_ACCOUNT_BY_SKELETON, skeleton, 0, out);
}

int store_account_get(store *s, int64_t id, store_account *out)
{
    return find_account(s, ST_ACCOUNT_BY_ID, NULL, id, out);
}

int store_account_set_password(store *s, int64_t id, const char *password_hash,
                               int64_t when_ms)
{
    if (check_str(s, password_hash, STORE_PASSWORD_HASH_BYTES, "password hash", false) < 0)
        return -1;
    db_stmt *st = stmt(s, ST_ACCOUNT_PASSWORD);
    if (!st)
        return -1;
    db_bind_int64(st, 1, id);
    db_bind_text(st, 2, password_hash);
    db_bind_int64(st, 3, when_ms);
    if (run(s, st, "cannot change the password") < 0)
        return -1;
    if (db_changes(s->db) == 0)
        return failf(s, "there is no account %lld", (long long)id);
    return 0;
}

int store_session_create(store *s, const store_session *ss)
{
    if (!ss || ss->account_id <= 0)
        return failf(s, "a session needs an account");
    db_stmt *st = stmt(s, ST_SESSION_INSERT);
    if (!st)
        return -1;
    db_bind_blob(st, 1, ss->id, STORE_SESSION_ID_BYTES);
    db_bind_int64(st, 2, ss->account_id);
    db_bind_blob(st, 3, ss->hash, STORE_SESSION_HASH_BYTES);
    db_bind_int64(st, 4, ss->created_ms);
    db_bind_int64(st, 5, ss->expires_ms);
    return run(s, st, "cannot store the session");
}

int store_session_find(store *s, const uint8_t id[STORE_SESSION_ID_BYTES], store_session *out)
{
    if (!id || !out)
        return failf(s, "no session id, or no place for the session");
    db_stmt *st = stmt(s, ST_SESSION_GET);
    if (!st)
        return -1;
    db_bind_blob(st, 1, id, STORE_SESSION_ID_BYTES);
    int rc = db_step(st);
    memset(out, 0, sizeof *out);
    size_t hash_len = 0;
    const void *hash = rc == DB_ROW ? db_col_blob(st, 1, &hash_len) : NULL;
    if (rc == DB_ROW && hash_len == STORE_SESSION_HASH_BYTES) {
        memcpy(out->id, id, STORE_SESSION_ID_BYTES);
        out->account_id = db_col_int64(st, 0);
        memcpy(out->hash, hash, STORE_SESSION_HASH_BYTES);
        out->created_ms = db_col_int64(st, 2);
        out->expires_ms = db_col_int64(st, 3);
    } else if (rc == DB_ROW) {
        rc = DB_DONE;      /* a damaged row is no session */
    } else if (rc != DB_DONE) {
        fail_db(s, "cannot read a session");
    }
    finish(st);
    if (rc == DB_DONE) {
        failf(s, "no such session");
        return STORE_NOT_FOUND;
    }
    return rc == DB_ROW ? 0 : -1;
}

int store_session_delete(store *s, const uint8_t id[STORE_SESSION_ID_BYTES])
{
    db_stmt *st = stmt(s, ST_SESSION_DELETE);
    if (!st)
        return -1;
    db_bind_blob(st, 1, id, STORE_SESSION_ID_BYTES);
    return run(s, st, "cannot end the session");
}

int store_sessions_delete_account(store *s, int64_t account_id,
                                  const uint8_t keep[STORE_SESSION_ID_BYTES], int *n_deleted)
{
    db_stmt *st = stmt(s, ST_SESSIONS_DELETE_ACCOUNT);
    if (!st)
        return -1;
    db_bind_int64(st, 1, account_id);
    if (keep)
        db_bind_blob(st, 2, keep, STORE_SESSION_ID_BYTES);
    if (run(s, st, "cannot end the account's sessions") < 0)
        return -1;
    if (n_deleted)
        *n_deleted = db_changes(s->db);
    return 0;
}

int store_sessions_trim(store *s, int64_t account_id,
                        const uint8_t newest[STORE_SESSION_ID_BYTES], int keep, int *n_deleted)
{
    if (!newest || keep < 1)
        return failf(s, "trimming sessions needs the newest one and keep >= 1");
    db_stmt *st = stmt(s, ST_SESSIONS_TRIM);
    if (!st)
        return -1;
    db_bind_int64(st, 1, account_id);
    db_bind_blob(st, 2, newest, STORE_SESSION_ID_BYTES);
    db_bind_int64(st, 3, keep - 1);
    if (run(s, st, "cannot forget the account's oldest sessions") < 0)
        return -1;
    if (n_deleted)
        *n_deleted = db_changes(s->db);
    return 0;
}

int store_sessions_expire(store *s, int64_t now_ms, int *n_deleted)
{
    db_stmt *st = stmt(s, ST_SESSIONS_EXPIRE);
    if (!st)
        return -1;
    db_bind_int64(st, 1, now_ms);
    if (run(s, st, "cannot forget expired sessions") < 0)
        return -1;
    if (n_deleted)
        *n_deleted = db_changes(s->db);
    return 0;
}

int store_player_lost(store *s, const char *name, int64_t account_id)
{
    if (check_str(s, name, STORE_NAME_BYTES, "player name", false) < 0)
        return -1;
    db_stmt *st = stmt(s, ST_STATS_ADD);
    if (!st)
        return -1;
    bind_outcome(st, name, OUT_LOSS, account_id);
    return run_f(s, st, "cannot count a loss for %s", name);
}

/* ------------------------------------------------------------------------
 * Ratings
 * ------------------------------------------------------------------------ */

int store_game_rated_seats(store *s, const char *game_id, int n_seats, const int64_t *accounts)
{
    if (check_str(s, game_id, STORE_ID_BYTES, "game id", false) < 0)
        return -1;
    if (n_seats < 1 || n_seats > STORE_MAX_SEATS || !accounts)
        return failf(s, "game %s cannot be rated with %d seats", game_id, n_seats);
    for (int i = 0; i < n_seats; i++)
        if (accounts[i] <= 0)
            return failf(s, "seat %d of rated game %s has no account", i, game_id);
    if (op_begin(s) < 0)
        return -1;
    int res = 0;
    for (int i = 0; i < n_seats && res == 0; i++) {
        db_stmt *st = stmt(s, ST_RATED_SEAT_PUT);
        if (!st) {
            res = -1;
            break;
        }
        db_bind_text(st, 1, game_id);
        db_bind_int64(st, 2, i);
        db_bind_int64(st, 3, accounts[i]);
        res = run_f(s, st, "cannot keep the seats of rated game %s", game_id);
    }
    return op_end(s, res);
}

/* Columns rating, rd, volatility, games, updated_ms from col on. */
static void read_rating(db_stmt *st, int col, store_rating *out)
{
    out->rating = db_col_double(st, col);
    out->rd = db_col_double(st, col + 1);
    out->volatility = db_col_double(st, col + 2);
    out->games = db_col_int(st, col + 3);
    out->updated_ms = db_col_int64(st, col + 4);
}

int store_rating_get(store *s, int64_t account_id, const char *kind, store_rating *out)
{
    if (check_str(s, kind, STORE_KIND_BYTES, "game kind", false) < 0)
        return -1;
    if (!out)
        return failf(s, "no place for the rating");
    db_stmt *st = stmt(s, ST_RATING_GET);
    if (!st)
        return -1;
    db_bind_int64(st, 1, account_id);
    db_bind_text(st, 2, kind);
    int rc = db_step(st);
    int res = 0;
    memset(out, 0, sizeof *out);
    snprintf(out->kind, sizeof out->kind, "%s", kind);
    if (rc == DB_ROW)
        read_rating(st, 0, out);
    else if (rc == DB_DONE)
        res = STORE_NOT_FOUND;
    else
        res = fail_db(s, "cannot read a rating");
    finish(st);
    return res;
}

static int record_rating(store *s, const char *game_id, const char *kind, int64_t ended_ms,
                         int64_t account, const store_rating *before, const store_rating *after)
{
    db_stmt *st = stmt(s, ST_RATING_PUT);
    if (!st)
        return -1;
    db_bind_int64(st, 1, account);
    db_bind_text(st, 2, kind);
    db_bind_double(st, 3, after->rating);
    db_bind_double(st, 4, after->rd);
    db_bind_double(st, 5, after->volatility);
    db_bind_int64(st, 6, after->games);
    db_bind_int64(st, 7, after->updated_ms);
    if (run_f(s, st, "cannot store the rating of account %lld", (long long)account) < 0 ||
        !(st = stmt(s, ST_RATING_HISTORY_ADD)))
        return -1;
    db_bind_int64(st, 1, account);
    db_bind_text(st, 2, kind);
    db_bind_int64(st, 3, ended_ms);
    db_bind_text(st, 4, game_id);
    db_bind_double(st, 5, before->rating);
    db_bind_double(st, 6, after->rating);
    db_bind_double(st, 7, after->rd);
    db_bind_double(st, 8, after->volatility);
    return run_f(s, st, "cannot store the rating history of account %lld",
                 (long long)account);
}

int store_ratings_record(store *s, const char *game_id, const char *kind, int64_t ended_ms,
                         int n, const int64_t *accounts, const store_rating *before,
                         const store_rating *after)
{
    if (check_str(s, game_id, STORE_ID_BYTES, "game id", false) < 0 ||
        check_str(s, kind, STORE_KIND_BYTES, "game kind", false) < 0)
        return -1;
    if (n < 1 || n > STORE_MAX_SEATS || !accounts || !before || !after)
        return failf(s, "game %s cannot rate %d players", game_id, n);
    for (int i = 0; i < n; i++)
        if (accounts[i] <= 0 || !(after[i].rd > 0) || !(after[i].volatility > 0))
            return failf(s, "game %s: player %d has no account or an invalid rating", game_id,
                         i);
    if (op_begin(s) < 0)
        return -1;
    int res = 0;
    for (int i = 0; i < n && res == 0; i++)
        res = record_rating(s, game_id, kind, ended_ms, accounts[i], &before[i], &after[i]);
    return op_end(s, res);
}

int store_ratings_of(store *s, int64_t account_id, store_rating *out, int max, int *n)
{
    if (!n || max < 0 || (max > 0 && !out))
        return failf(s, "no place for the ratings");
    *n = 0;
    db_stmt *st = stmt(s, ST_RATINGS_OF);
    if (!st)
        return -1;
    db_bind_int64(st, 1, account_id);
    int rc;
    while (*n < max && (rc = db_step(st)) == DB_ROW) {
        store_rating *r = &out[(*n)++];
        memset(r, 0, sizeof *r);
        col_text(st, 0, r->kind, sizeof r->kind);
        read_rating(st, 1, r);
    }
    int res = *n == max || rc == DB_DONE ? 0 : fail_db(s, "cannot read the ratings");
    finish(st);
    return res;
}

int store_rating_leaderboard(store *s, const char *kind, double provisional_rd, int limit,
                             const store_page_key *after, store_rated_player *out, int *n)
{
    if (check_str(s, kind, STORE_KIND_BYTES, "game kind", false) < 0)
        return -1;
    if (!n || limit <= 0 || !out)
        return failf(s, "the leaderboard needs a limit above 0 and a place for it");
    *n = 0;
    db_stmt *st = stmt(s, ST_RATING_LEADERBOARD);
    if (!st)
        return -1;
    db_bind_text(st, 1, kind);
    db_bind_int64(st, 2, limit);
    db_bind_double(st, 3, provisional_rd);
    if (after && after->set) {
        db_bind_int64(st, 4, after->a);
        db_bind_double(st, 5, after->x);
        db_bind_text(st, 6, after->text);
    }
    int rc;
    while (*n < limit && (rc = db_step(st)) == DB_ROW) {
        store_rated_player *p = &out[(*n)++];
        memset(p, 0, sizeof *p);
        col_text(st, 0, p->name, sizeof p->name);
        p->account_id = db_col_int64(st, 1);
        snprintf(p->rating.kind, sizeof p->rating.kind, "%s", kind);
        read_rating(st, 2, &p->rating);
    }
    int res = *n == limit || rc == DB_DONE ? 0
                                                : fail_db(s, "cannot read the leaderboard");
    finish(st);
    return res;
}

int store_game_unrated(store *s, const char *game_id, int why)
{
    if (check_str(s, game_id, STORE_ID_BYTES, "game id", false) < 0)
        return -1;
    if (why < STORE_RATED_COUNTS || why > STORE_UNRATED_TOO_SHORT)
        return failf(s, "game %s: %d is no reason for a game not to be rated", game_id, why);
    db_stmt *st = stmt(s, ST_GAME_UNRATED);
    if (!st)
        return -1;
    db_bind_text(st, 1, game_id);
    db_bind_int64(st, 2, why);
    if (run_f(s, st, "cannot mark game %s as not rated", game_id) < 0)
        return -1;
    if (db_changes(s->db) == 0)
        return failf(s, "game %s is not a rated game", game_id);
    return 0;
}

int store_rated_pair_games(store *s, int64_t a, int64_t b, int64_t since_ms,
                           const char *except_id, int *out)
{
    if (!out)
        return failf(s, "no place for the count of rated games");
    *out = 0;
    db_stmt *st = stmt(s, ST_PAIR_RATED_GAMES);
    if (!st)
        return -1;
    db_bind_int64(st, 1, a);
    db_bind_int64(st, 2, b);
    db_bind_int64(st, 3, since_ms);
    db_bind_text(st, 4, except_id ? except_id : "");
    int rc = db_step(st);
    int res = 0;
    if (rc == DB_ROW)
        *out = db_col_int(st, 0);
    else
        res = fail_db(s, "cannot count the rated games of two players");
    finish(st);
    return res;
}

/* The rows of a report statement already bound (its last parameter the
 * limit): a, b, games from column 0, and gain, total_gain after them when
 * the statement has them. */
static int read_pair_rows(store *s, db_stmt *st, bool gains, int limit, store_pair_row *out,
                          int *n)
{
    int rc = DB_DONE;
    while (*n < limit && (rc = db_step(st)) == DB_ROW) {
        store_pair_row *row = &out[(*n)++];
        memset(row, 0, sizeof *row);
        col_text(st, 0, row->a, sizeof row->a);
        col_text(st, 1, row->b, sizeof row->b);
        row->games = db_col_int(st, 2);
        if (gains) {
            row->gain = db_col_double(st, 3);
            row->total_gain = db_col_double(st, 4);
        }
    }
    int res = *n == limit || rc == DB_DONE ? 0 : fail_db(s, "cannot read the rating report");
    finish(st);
    return res;
}

static db_stmt *report_stmt(store *s, enum stmt_id id, int limit, store_pair_row *out, int *n)
{
    if (!n || limit <= 0 || !out) {
        failf(s, "the rating report needs a limit above 0 and a place for it");
        return NULL;
    }
    *n = 0;
    return stmt(s, id);
}

int store_report_pairs(store *s, int limit, store_pair_row *out, int *n)
{
    db_stmt *st = report_stmt(s, ST_REPORT_PAIRS, limit, out, n);
    if (!st)
        return -1;
    db_bind_int64(st, 1, limit);
    return read_pair_rows(s, st, false, limit, out, n);
}

int store_report_refused(store *s, int why, int limit, store_pair_row *out, int *n)
{
    db_stmt *st = report_stmt(s, ST_REPORT_REFUSED, limit, out, n);
    if (!st)
        return -1;
    db_bind_int64(st, 1, why);
    db_bind_int64(st, 2, limit);
    return read_pair_rows(s, st, false, limit, out, n);
}

int store_report_one_opponent(store *s, double share, int limit, store_pair_row *out, int *n)
{
    if (!(share >= 0 && share <= 1))
        return failf(s, "a share of rating points is between 0 and 1");
    db_stmt *st = report_stmt(s, ST_REPORT_ONE_OPPONENT, limit, out, n);
    if (!st)
        return -1;
    db_bind_double(st, 1, share);
    db_bind_int64(st, 2, limit);
    return read_pair_rows(s, st, true, limit, out, n);
}

int store_rating_history(store *s, int64_t account_id, const char *kind, int limit,
                         const store_page_key *before, store_rating_point **out, int *n)
{
    if (kind && check_str(s, kind, STORE_KIND_BYTES, "game kind", false) < 0)
        return -1;
    if (!out || !n || limit <= 0)
        return failf(s, "the rating history needs a limit above 0 and a place for it");
    *out = NULL;
    *n = 0;
    db_stmt *st = stmt(s, ST_RATING_HISTORY);
    if (!st)
        return -1;
    db_bind_int64(st, 1, account_id);
    if (kind)
        db_bind_text(st, 2, kind);
    db_bind_int64(st, 3, limit);
    if (before && before->set) {
        db_bind_int64(st, 4, before->a);
        db_bind_text(st, 5, before->text);
    }
    store_rating_point *points = NULL;
    int count = 0, cap = 0, rc;
    while ((rc = db_step(st)) == DB_ROW) {
        store_rating_point *grown = grow_list(s, points, count, &cap, sizeof *points, 16, 0,
                                              "cannot read the rating history");
        if (!grown) {
            free(points);
            finish(st);
            return -1;
        }
        points = grown;
        store_rating_point *p = &points[count++];
        memset(p, 0, sizeof *p);
        col_text(st, 0, p->kind, sizeof p->kind);
        p->ended_ms = db_col_int64(st, 1);
        col_text(st, 2, p->game_id, sizeof p->game_id);
        p->rating_before = db_col_double(st, 3);
        p->rating = db_col_double(st, 4);
        p->rd = db_col_double(st, 5);
        p->volatility = db_col_double(st, 6);
    }
    finish(st);
    if (rc != DB_DONE) {
        free(points);
        return fail_db(s, "cannot read the rating history");
    }
    *out = points;
    *n = count;
    return 0;
}

/* ------------------------------------------------------------------------
 * A cluster (PostgreSQL)
 * ------------------------------------------------------------------------ */

bool store_shared(const store *s)
{
    return s->db->drv->dialect == DB_POSTGRES;
}

bool store_path_is_shared(const char *path)
{
    return db_is_pg_uri(path);
}

/* One statement whose first column of its one row is an integer. */
static int one_int64(store *s, db_stmt *st, const char *what, int64_t *out)
{
    int rc = db_step(st);
    if (rc == DB_ROW)
        *out = db_col_int64(st, 0);
    int res = rc == DB_ROW ? 0 : rc == DB_DONE ? failf(s, "%s: no row", what)
                                                : fail_db(s, what);
    finish(st);
    return res;
}

int store_node_join(store *s, const char *endpoint, int lease_ms, int64_t *node_id)
{
    if (check_str(s, endpoint, sizeof ((store_node *)0)->endpoint, "endpoint", false) < 0)
        return -1;
    if (s->node_id)
        return failf(s, "this store has joined the cluster already (node %lld)",
                     (long long)s->node_id);
    if (lease_ms <= 0)
        return failf(s, "a lease of %d ms is no lease", lease_ms);
    db_stmt *st = stmt(s, ST_NODE_JOIN);
    int64_t id;
    if (!st || op_begin(s) < 0)
        return -1;
    db_bind_text(st, 1, endpoint);
    db_bind_int64(st, 2, lease_ms);
    int res = one_int64(s, st, "cannot join the cluster", &id);
    if (res == 0 && (st = stmt(s, ST_NODE_SUPERSEDE))) {
        db_bind_text(st, 1, endpoint);
        db_bind_int64(st, 2, id);
        res = run(s, st, "cannot take over the endpoint's earlier node");
    }
    if (op_end(s, res) < 0)
        return -1;
    s->node_id = id;
    if (node_id)
        *node_id = id;
    return 0;
}


int store_node_renew(store *s, int lease_ms)
{
    if (lease_ms <= 0)
        return failf(s, "a lease of %d ms is no lease", lease_ms);
    if (!s->node_id)
        return failf(s, "cannot renew a lease: this store has not joined a cluster");
    db_stmt *st = stmt(s, ST_NODE_RENEW);
    int64_t lapsed;
    if (!st)
        return -1;
    db_bind_int64(st, 1, s->node_id);
    db_bind_int64(st, 2, lease_ms);
    if (one_int64(s, st, "cannot renew the node's lease", &lapsed) < 0)
        return -1;
    return lapsed ? STORE_LAPSED : 0;
}

int store_clock_ms(store *s, int64_t *now_ms)
{
    if (!store_shared(s)) {
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        *now_ms = (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
        return 0;
    }
    db_stmt *st = stmt(s, ST_DB_TIME);
    return st ? one_int64(s, st, "cannot read the database's clock", now_ms) : -1;
}

int store_node_leave(store *s)
{
    if (!s->node_id)
        return failf(s, "cannot leave the cluster: this store has not joined one");
    db_stmt *st = stmt(s, ST_NODE_LEAVE);
    if (!st)
        return -1;
    db_bind_int64(st, 1, s->node_id);
    return run(s, st, "cannot leave the cluster");
}

int store_games_adopt(store *s, int max, char (*ids)[STORE_ID_BYTES], int *n)
{
    if (!n || max <= 0 || !ids)
        return failf(s, "adopting needs a limit above 0 and a place for the ids");
    *n = 0;
    if (!s->node_id)
        return failf(s, "cannot adopt games: this store has not joined a cluster");
    db_stmt *st = stmt(s, ST_GAMES_ADOPT);
    if (!st)
        return -1;
    db_bind_int64(st, 1, s->node_id);
    db_bind_int64(st, 2, max);
    int rc;
    while (*n < max && (rc = db_step(st)) == DB_ROW)
        snprintf(ids[(*n)++], STORE_ID_BYTES, "%s", db_col_text(st, 0));
    int res = *n == max || rc == DB_DONE ? 0 : fail_db(s, "cannot adopt games");
    finish(st);
    return res;
}

int store_game_owner(store *s, const char *game_id, char *endpoint, size_t len, bool *alive)
{
    if (check_str(s, game_id, STORE_ID_BYTES, "game id", false) < 0)
        return -1;
    db_stmt *st = stmt(s, ST_GAME_OWNER);
    if (!st)
        return -1;
    db_bind_text(st, 1, game_id);
    int rc = db_step(st);
    if (rc == DB_ROW) {
        snprintf(endpoint, len, "%s", db_col_text(st, 0));
        *alive = db_col_int(st, 1) != 0;
    }
    int res = rc == DB_ROW ? 0 : rc == DB_DONE ? STORE_NOT_FOUND
                                                : fail_db(s, "cannot find a game's node");
    if (res == STORE_NOT_FOUND)
        failf(s, "no node owns game %s", game_id);
    finish(st);
    return res;
}

int store_token_owner(store *s, const char *token, char game_id[STORE_ID_BYTES],
                      char *endpoint, size_t len, bool *alive)
{
    if (check_str(s, token, STORE_TOKEN_BYTES, "seat token", false) < 0)
        return -1;
    db_stmt *st = stmt(s, ST_TOKEN_OWNER);
    if (!st)
        return -1;
    db_bind_text(st, 1, token);
    int rc = db_step(st);
    if (rc == DB_ROW) {
        snprintf(game_id, STORE_ID_BYTES, "%s", db_col_text(st, 0));
        snprintf(endpoint, len, "%s", db_col_text(st, 1));
        *alive = db_col_int(st, 2) != 0;
    }
    int res = rc == DB_ROW ? 0 : rc == DB_DONE ? STORE_NOT_FOUND
                                                : fail_db(s, "cannot find a token's game");
    if (res == STORE_NOT_FOUND)
        failf(s, "no game of the cluster has that seat token");
    finish(st);
    return res;
}

/* "0 ann\n1 bob" into the seat names of one game. */
static void read_seat_lines(const char *lines, store_remote_game *g)
{
    for (const char *line = lines; *line;) {
        size_t n = strcspn(line, "\n");
        char *end;
        long seat = strtol(line, &end, 10);
        if (end < line + n && *end == ' ' && seat >= 0 && seat < STORE_MAX_SEATS)
            snprintf(g->seat_names[seat], sizeof g->seat_names[seat], "%.*s",
                     (int)(line + n - end - 1), end + 1);
        line += n + (line[n] == '\n');
    }
}

int store_remote_games(store *s, int limit, store_remote_game **out, int *n)
{
    if (!out || !n || limit <= 0)
        return failf(s, "the cluster's games need a limit above 0 and a place for them");
    *out = NULL;
    *n = 0;
    db_stmt *st = stmt(s, ST_REMOTE_GAMES);
    if (!st)
        return -1;
    db_bind_int64(st, 1, s->node_id);
    db_bind_int64(st, 2, limit);
    store_remote_game *list = NULL;
    int count = 0, cap = 0, rc, res = 0;
    while ((rc = db_step(st)) == DB_ROW) {
        store_remote_game *grown = grow_list(s, list, count, &cap, sizeof *list, 16, 0,
                                             "cannot read the cluster's games");
        if (!grown) {
            res = -1;
            break;
        }
        list = grown;
        store_remote_game *g = &list[count++];
        memset(g, 0, sizeof *g);
        read_game(st, &g->game, NULL);
        snprintf(g->endpoint, sizeof g->endpoint, "%s", db_col_text(st, GAME_N_COLUMNS));
        read_seat_lines(db_col_text(st, GAME_N_COLUMNS + 1), g);
        if (read_options(s, &g->game) < 0) {
            res = -1;
            break;
        }
    }
    if (res == 0 && rc != DB_DONE)
        res = fail_db(s, "cannot read the cluster's games");
    finish(st);
    if (res < 0) {
        free(list);
        return -1;
    }
    *out = list;
    *n = count;
    return 0;
}

int store_nodes(store *s, store_node *out, int max, int *n)
{
    if (!n || max <= 0 || !out)
        return failf(s, "the list of nodes needs a limit above 0 and a place for it");
    *n = 0;
    db_stmt *st = stmt(s, ST_NODES);
    if (!st)
        return -1;
    int rc;
    while (*n < max && (rc = db_step(st)) == DB_ROW) {
        store_node *node = &out[(*n)++];
        node->id = db_col_int64(st, 0);
        snprintf(node->endpoint, sizeof node->endpoint, "%s", db_col_text(st, 1));
        node->started_ms = db_col_int64(st, 2);
        node->lease_left_ms = db_col_int64(st, 3);
        node->games = db_col_int(st, 4);
    }
    int res = *n == max || rc == DB_DONE ? 0 : fail_db(s, "cannot list the nodes");
    finish(st);
    return res;
}

int store_game_next_id(store *s, unsigned *id)
{
    db_stmt *st = stmt(s, ST_NEXT_ID);
    int64_t next;
    if (!st || one_int64(s, st, "cannot number a new game", &next) < 0)
        return -1;
    if (next <= 0 || next > (int64_t)UINT_MAX)
        return failf(s, "the cluster has run out of game ids (%lld)", (long long)next);
    *id = (unsigned)next;
    return 0;
}

const char *store_db_history(store *s)
{
    return s ? db_history(s->db) : "";
}

int store_game_stored_last(store *s, const char *game_id, uint64_t *last)
{
    if (check_str(s, game_id, STORE_ID_BYTES, "game id", false) < 0)
        return -1;
    db_stmt *st = stmt(s, ST_GAME_STORED_LAST);
    if (!st)
        return -1;
    db_bind_text(st, 1, game_id);
    int rc = db_step(st);
    if (rc == DB_ROW)
        *last = (uint64_t)db_col_int64(st, 0);
    int res = rc == DB_ROW ? 0 : rc == DB_DONE ? STORE_NOT_FOUND
                                                : fail_db(s, "cannot read a game's log");
    if (res == STORE_NOT_FOUND)
        failf(s, "there is no game %s", game_id);
    finish(st);
    return res;
}

int store_game_ids_past(store *s, unsigned seen, unsigned margin)
{
    db_stmt *st = stmt(s, ST_IDS_PAST);
    int64_t next;
    if (!st)
        return -1;
    db_bind_int64(st, 1, seen);
    db_bind_int64(st, 2, margin);
    return one_int64(s, st, "cannot move the game ids on", &next);
}

int store_recover_game(store *s, const char *game_id, const store_recovery_cb *cb,
                       void *user)
{
    static const store_recovery_cb none;
    if (check_str(s, game_id, STORE_ID_BYTES, "game id", false) < 0)
        return -1;
    db_stmt *st = stmt(s, ST_GAME_GET);
    if (!st)
        return -1;
    db_bind_text(st, 1, game_id);
    store_game_info g;
    int rc = db_step(st);
    if (rc == DB_ROW)
        read_game(st, &g, NULL);
    int res = rc == DB_ROW ? 0 : rc == DB_DONE ? failf(s, "there is no game %s", game_id)
                                                : fail_db(s, "cannot read a game");
    finish(st);
    if (res < 0 || read_options(s, &g) < 0 || read_rated_seats(s, &g) < 0)
        return -1;
    return recover_game(s, cb ? cb : &none, user, &g);
}

/* ------------------------------------------------------------------------
 * The operator's bans and the audit log
 * ------------------------------------------------------------------------ */

int store_ban_put(store *s, const store_ban *b)
{
    if (!b || (b->kind != STORE_BAN_ACCOUNT && b->kind != STORE_BAN_ADDRESS &&
               b->kind != STORE_BAN_MUTE))
        return failf(s, "a ban is of an account, an address or an account's chat");
    if (check_str(s, b->target, sizeof b->target, "ban's target", false) < 0 ||
        check_str(s, b->label, sizeof b->label, "ban's label", false) < 0 ||
        check_str(s, b->reason, sizeof b->reason, "ban's reason", false) < 0)
        return -1;
    db_stmt *st = stmt(s, ST_BAN_PUT);
    if (!st)
        return -1;
    db_bind_int64(st, 1, b->kind);
    db_bind_text(st, 2, b->target);
    db_bind_text(st, 3, b->label);
    db_bind_text(st, 4, b->reason);
    db_bind_int64(st, 5, b->made_ms);
    db_bind_int64(st, 6, b->until_ms);
    return run(s, st, "cannot store the ban");
}

int store_ban_delete(store *s, int kind, const char *target, int64_t now_ms)
{
    if (check_str(s, target, STORE_BAN_TARGET_BYTES, "ban's target", false) < 0)
        return -1;
    db_stmt *st = stmt(s, ST_BAN_DELETE);
    if (!st)
        return -1;
    db_bind_int64(st, 1, kind);
    db_bind_text(st, 2, target);
    db_bind_int64(st, 3, now_ms);
    if (run(s, st, "cannot lift the ban") < 0)
        return -1;
    if (db_changes(s->db) == 0) {
        failf(s, "no such ban");
        return STORE_NOT_FOUND;
    }
    return 0;
}

int store_bans(store *s, int64_t now_ms, store_ban *out, int max, int *n)
{
    if (!out || !n || max <= 0)
        return failf(s, "the bans need a place for them");
    *n = 0;
    db_stmt *st = stmt(s, ST_BANS_EXPIRE);
    if (!st)
        return -1;
    db_bind_int64(st, 1, now_ms);
    if (run(s, st, "cannot forget expired bans") < 0 || !(st = stmt(s, ST_BANS)))
        return -1;
    db_bind_int64(st, 1, max);
    int rc;
    while ((rc = db_step(st)) == DB_ROW && *n < max) {
        store_ban *b = &out[(*n)++];
        b->kind = db_col_int(st, 0);
        col_text(st, 1, b->target, sizeof b->target);
        col_text(st, 2, b->label, sizeof b->label);
        col_text(st, 3, b->reason, sizeof b->reason);
        b->made_ms = db_col_int64(st, 4);
        b->until_ms = db_col_int64(st, 5);
    }
    if (rc == DB_FAILED)
        fail_db(s, "cannot read the bans");
    finish(st);
    return rc == DB_FAILED ? -1 : 0;
}

int store_bans_mark_of(store *s, store_bans_mark *out)
{
    db_stmt *st = stmt(s, ST_BANS_MARK);
    if (!st)
        return -1;
    int rc = db_step(st);
    if (rc == DB_ROW) {
        out->rows = db_col_int64(st, 0);
        out->newest_made_ms = db_col_int64(st, 1);
        out->latest_until_ms = db_col_int64(st, 2);
    } else {
        fail_db(s, "cannot look at the bans");
    }
    finish(st);
    return rc == DB_ROW ? 0 : -1;
}

int store_admin_action_add(store *s, const store_admin_action *a)
{
    if (!a || check_str(s, a->who, sizeof a->who, "action's caller", false) < 0 ||
        check_str(s, a->action, sizeof a->action, "action", false) < 0 ||
        check_str(s, a->target, sizeof a->target, "action's target", true) < 0 ||
        check_str(s, a->reason, sizeof a->reason, "action's reason", true) < 0)
        return a ? -1 : failf(s, "no action");
    db_stmt *st = stmt(s, ST_ACTION_ADD);
    if (!st)
        return -1;
    db_bind_int64(st, 1, a->at_ms);
    db_bind_text(st, 2, a->who);
    db_bind_text(st, 3, a->action);
    db_bind_text(st, 4, a->target);
    db_bind_text(st, 5, a->reason);
    return run(s, st, "cannot store the admin action");
}

int store_admin_actions(store *s, int limit, store_admin_action *out, int *n)
{
    if (!out || !n || limit <= 0)
        return failf(s, "the admin actions need a limit above 0 and a place for them");
    *n = 0;
    db_stmt *st = stmt(s, ST_ACTIONS);
    if (!st)
        return -1;
    db_bind_int64(st, 1, limit);
    int rc;
    while ((rc = db_step(st)) == DB_ROW && *n < limit) {
        store_admin_action *a = &out[(*n)++];
        a->at_ms = db_col_int64(st, 0);
        col_text(st, 1, a->who, sizeof a->who);
        col_text(st, 2, a->action, sizeof a->action);
        col_text(st, 3, a->target, sizeof a->target);
        col_text(st, 4, a->reason, sizeof a->reason);
    }
    if (rc == DB_FAILED)
        fail_db(s, "cannot read the admin actions");
    finish(st);
    return rc == DB_FAILED ? -1 : 0;
}

/* ------------------------------------------------------------------------
 * Password reset codes
 * ------------------------------------------------------------------------ */

int store_reset_code_put(store *s, int64_t account_id,
                         const uint8_t hash[STORE_RESET_HASH_BYTES], int64_t expires_ms)
{
    if (account_id <= 0 || !hash)
        return failf(s, "a reset code needs an account and a hash");
    db_stmt *st = stmt(s, ST_RESET_PUT);
    if (!st)
        return -1;
    db_bind_int64(st, 1, account_id);
    db_bind_blob(st, 2, hash, STORE_RESET_HASH_BYTES);
    db_bind_int64(st, 3, expires_ms);
    return run(s, st, "cannot store the reset code");
}

int store_reset_code_get(store *s, int64_t account_id, uint8_t hash[STORE_RESET_HASH_BYTES],
                         int64_t *expires_ms)
{
    db_stmt *st = stmt(s, ST_RESET_GET);
    if (!st)
        return -1;
    db_bind_int64(st, 1, account_id);
    int rc = db_step(st);
    size_t len = 0;
    const void *h = rc == DB_ROW ? db_col_blob(st, 0, &len) : NULL;
    if (rc == DB_ROW && len == STORE_RESET_HASH_BYTES) {
        memcpy(hash, h, STORE_RESET_HASH_BYTES);
        *expires_ms = db_col_int64(st, 1);
    } else if (rc == DB_ROW) {
        rc = DB_DONE;              /* a damaged row is no code */
    } else if (rc != DB_DONE) {
        fail_db(s, "cannot read a reset code");
    }
    finish(st);
    if (rc == DB_DONE) {
        failf(s, "no reset code");
        return STORE_NOT_FOUND;
    }
    return rc == DB_ROW ? 0 : -1;
}

int store_reset_code_delete(store *s, int64_t account_id)
{
    db_stmt *st = stmt(s, ST_RESET_DELETE);
    if (!st)
        return -1;
    db_bind_int64(st, 1, account_id);
    return run(s, st, "cannot forget the reset code");
}

/* ------------------------------------------------------------------------
 * Blocks and reports.
 * ------------------------------------------------------------------------ */

int store_block_put(store *s, int64_t account, int64_t blocked, int64_t when_ms)
{
    if (account <= 0 || blocked <= 0 || account == blocked)
        return failf(s, "a block needs two different accounts");
    db_stmt *st = stmt(s, ST_BLOCK_PUT);
    if (!st)
        return -1;
    db_bind_int64(st, 1, account);
    db_bind_int64(st, 2, blocked);
    db_bind_int64(st, 3, when_ms);
    return run(s, st, "cannot store the block");
}

int store_block_delete(store *s, int64_t account, int64_t blocked)
{
    db_stmt *st = stmt(s, ST_BLOCK_DELETE);
    if (!st)
        return -1;
    db_bind_int64(st, 1, account);
    db_bind_int64(st, 2, blocked);
    if (run(s, st, "cannot remove the block") < 0)
        return -1;
    return db_changes(s->db) == 0 ? STORE_NOT_FOUND : 0;
}

/* One count of a statement bound with a and b (b < 0: only a). */
static int count_of(store *s, enum stmt_id id, int64_t a, int64_t b, int *n, const char *what)
{
    if (!n)
        return failf(s, "no place for the count");
    *n = 0;
    db_stmt *st = stmt(s, id);
    if (!st)
        return -1;
    db_bind_int64(st, 1, a);
    if (b >= 0)
        db_bind_int64(st, 2, b);
    int res = 0;
    if (db_step(st) == DB_ROW)
        *n = db_col_int(st, 0);
    else
        res = fail_db(s, what);
    finish(st);
    return res;
}

int store_block_count(store *s, int64_t account, int *n)
{
    return count_of(s, ST_BLOCK_COUNT, account, -1, n, "cannot count the blocks");
}

int store_blocked_either(store *s, int64_t a, int64_t b)
{
    int n = 0;
    if (count_of(s, ST_BLOCKED_EITHER, a, b, &n, "cannot read the blocks") < 0)
        return -1;
    return n > 0;
}

int store_blocks_of(store *s, int64_t account, int max, store_block *out, int *n)
{
    if (!n || !out || max <= 0)
        return failf(s, "the blocks need a limit above 0 and a place for them");
    *n = 0;
    db_stmt *st = stmt(s, ST_BLOCKS_OF);
    if (!st)
        return -1;
    db_bind_int64(st, 1, account);
    db_bind_int64(st, 2, max);
    int rc = DB_DONE;
    while (*n < max && (rc = db_step(st)) == DB_ROW) {
        store_block *b = &out[(*n)++];
        b->account_id = db_col_int64(st, 0);
        col_text(st, 1, b->name, sizeof b->name);
        b->created_ms = db_col_int64(st, 2);
    }
    int res = *n == max || rc == DB_DONE ? 0 : fail_db(s, "cannot read the blocks");
    finish(st);
    return res;
}

int store_report_add(store *s, store_report *r)
{
    if (!r || r->reporter_id <= 0 || r->reported_id <= 0)
        return failf(s, "a report needs the accounts of its reporter and of the reported");
    if (check_str(s, r->game_id, STORE_ID_BYTES, "game id", true) < 0 ||
        check_str(s, r->reason, STORE_REPORT_REASON_BYTES, "report's reason", false) < 0 ||
        check_str(s, r->host, STORE_HOST_BYTES, "client address", true) < 0)
        return -1;
    db_stmt *st = stmt(s, ST_ABUSE_INSERT);
    if (!st)
        return -1;
    db_bind_int64(st, 1, r->time_ms);
    db_bind_int64(st, 2, r->reporter_id);
    db_bind_int64(st, 3, r->reported_id);
    db_bind_text(st, 4, r->game_id);
    db_bind_text(st, 5, r->reason);
    db_bind_text(st, 6, r->host);
    if (db_step(st) != DB_ROW) {
        fail_db(s, "cannot store the report");
        finish(st);
        return -1;
    }
    r->id = db_col_int64(st, 0);     /* RETURNING id */
    finish(st);
    return 0;
}

int store_reports_since(store *s, int64_t reporter, int64_t since_ms, int *n)
{
    return count_of(s, ST_ABUSE_SINCE, reporter, since_ms < 0 ? 0 : since_ms, n,
                    "cannot count the reports");
}

int store_reports_list(store *s, int limit, store_report *out, int *n)
{
    if (!n || !out || limit <= 0)
        return failf(s, "the reports need a limit above 0 and a place for them");
    *n = 0;
    db_stmt *st = stmt(s, ST_ABUSE_LIST);
    if (!st)
        return -1;
    db_bind_int64(st, 1, limit);
    int rc = DB_DONE;
    while (*n < limit && (rc = db_step(st)) == DB_ROW) {
        store_report *r = &out[(*n)++];
        memset(r, 0, sizeof *r);
        r->id = db_col_int64(st, 0);
        r->time_ms = db_col_int64(st, 1);
        r->reporter_id = db_col_int64(st, 2);
        r->reported_id = db_col_int64(st, 3);
        col_text(st, 4, r->reporter, sizeof r->reporter);
        col_text(st, 5, r->reported, sizeof r->reported);
        col_text(st, 6, r->game_id, sizeof r->game_id);
        col_text(st, 7, r->reason, sizeof r->reason);
        col_text(st, 8, r->host, sizeof r->host);
    }
    int res = *n == limit || rc == DB_DONE ? 0 : fail_db(s, "cannot read the reports");
    finish(st);
    return res;
}

/* ------------------------------------------------------------------------
 * The engine's reviews of ended games.
 * ------------------------------------------------------------------------ */

int store_analysis_put(store *s, const char *game_id, int64_t made_ms, const void *data,
                       size_t len)
{
    if (check_str(s, game_id, STORE_ID_BYTES, "game id", false) < 0)
        return -1;
    db_stmt *st = stmt(s, ST_ANALYSIS_PUT);
    if (!st)
        return -1;
    db_bind_text(st, 1, game_id);
    db_bind_int64(st, 2, made_ms);
    db_bind_blob(st, 3, data, len);
    return run_f(s, st, "cannot store the analysis of game %s", game_id);
}

int store_analysis_get(store *s, const char *game_id, void **data, size_t *len)
{
    *data = NULL;
    *len = 0;
    db_stmt *st = stmt(s, ST_ANALYSIS_GET);
    if (!st)
        return -1;
    db_bind_text(st, 1, game_id);
    int rc = db_step(st);
    if (rc == DB_ROW) {
        size_t n = 0;
        const void *b = db_col_blob(st, 0, &n);
        *data = malloc(n ? n : 1);
        if (!*data) {
            finish(st);
            return failf(s, "out of memory for the analysis of game %s", game_id);
        }
        if (n)
            memcpy(*data, b, n);
        *len = n;
    } else if (rc != DB_DONE) {
        fail_db(s, "cannot read an analysis");
    }
    finish(st);
    if (rc == DB_DONE) {
        failf(s, "no analysis of game %s", game_id);
        return STORE_NOT_FOUND;
    }
    return rc == DB_ROW ? 0 : -1;
}

int store_analysis_missing(store *s, int64_t since_ms, int limit,
                           char (*ids)[STORE_ID_BYTES], int *n)
{
    *n = 0;
    db_stmt *st = stmt(s, ST_ANALYSIS_MISSING);
    if (!st)
        return -1;
    db_bind_int64(st, 1, since_ms);
    db_bind_int64(st, 2, limit);
    int rc;
    while ((rc = db_step(st)) == DB_ROW && *n < limit)
        col_text(st, 0, ids[(*n)++], STORE_ID_BYTES);
    finish(st);
    if (rc != DB_ROW && rc != DB_DONE)
        return fail_db(s, "cannot list the games not yet analysed");
    return 0;
}

/* ------------------------------------------------------------------------
 * Tournaments
 * ------------------------------------------------------------------------ */

int store_tournament_put(store *s, const char *id, int status, int64_t updated_ms,
                         const void *record, size_t len)
{
    if (check_str(s, id, STORE_ID_BYTES, "tournament's id", false) < 0)
        return -1;
    if (!record || len == 0)
        return failf(s, "a tournament needs its record");
    db_stmt *st = stmt(s, ST_TOURNAMENT_PUT);
    if (!st)
        return -1;
    db_bind_text(st, 1, id);
    db_bind_int64(st, 2, status);
    db_bind_int64(st, 3, updated_ms);
    db_bind_blob(st, 4, record, len);
    return run(s, st, "cannot store the tournament");
}

int store_tournaments_load(store *s, store_tournament_fn fn, void *user)
{
    db_stmt *st = stmt(s, ST_TOURNAMENTS);
    if (!st)
        return -1;
    int rc;
    while ((rc = db_step(st)) == DB_ROW) {
        char id[STORE_ID_BYTES];
        col_text(st, 0, id, sizeof id);
        size_t len = 0;
        const void *data = db_col_blob(st, 1, &len);
        fn(user, id, data, len);
    }
    if (rc == DB_FAILED)
        fail_db(s, "cannot read the tournaments");
    finish(st);
    return rc == DB_FAILED ? -1 : 0;
}
