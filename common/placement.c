/*
 * placement.c — a game's placement as pairwise Glicko-2 results.
 */
#include "placement.h"

int placement_rate(const placement_player *players, int n, double tau, glicko2_rating *after)
{
    if (!players || !after || n < 2 || n > PLACEMENT_MAX_PLAYERS)
        return -1;
    for (int i = 0; i < n; i++)
        if (players[i].place < 1)
            return -1;
    glicko2_rating out[PLACEMENT_MAX_PLAYERS];
    for (int i = 0; i < n; i++) {
        glicko2_game games[PLACEMENT_MAX_PLAYERS];
        int k = 0;
        for (int j = 0; j < n; j++) {
            if (j == i)
                continue;
            int mine = players[i].place, theirs = players[j].place;
            games[k++] = (glicko2_game){
                .opp_rating = players[j].before.rating,
                .opp_rd = players[j].before.rd,
                .score = mine < theirs ? 1.0 : mine == theirs ? 0.5 : 0.0,
            };
        }
        if (glicko2_update(&players[i].before, games, k, tau, &out[i]) != 0)
            return -1;
    }
    for (int i = 0; i < n; i++)
        after[i] = out[i];
    return 0;
}
