/*
 * text_commands.h — the text view's commands: one table (in text_view.c)
 * that both dispatches a typed word and prints help, so the two cannot
 * drift apart. A word is a command's name exactly, or one of a few other
 * words for one ("say" for chat, "exit" for quit, "?" for help); a move
 * (a number, "d3", "1,2,0") is tried before the table. View thread only;
 * the table is static and never changes.
 */
#ifndef SUNGKA_TEXT_COMMANDS_H
#define SUNGKA_TEXT_COMMANDS_H

#include <stdio.h>

typedef struct text_view text_view;

/* Help's sections, in the order shown. */
enum {
    TEXT_SECTION_ANY,          /* "Commands:" */
    TEXT_SECTION_RUNNING,      /* "In a running game:" */
    TEXT_SECTION_OVER,         /* "After the end:" */
    TEXT_SECTION_ACCOUNT,      /* "Accounts (...)" */
};

typedef struct text_command {
    const char *name;          /* the word typed, never translated */
    const char *args;          /* its arguments for help ("NAME TEXT"; "" none),
                                * marked N_ and translated when shown */
    const char *help;          /* what it does, one sentence, N_ */
    int section;               /* TEXT_SECTION_* */
    /* Do it: word is the name as typed (or an alias's name's word), rest
     * the rest of the line, trimmed, which the handler may change. */
    void (*run)(text_view *tv, const char *word, char *rest);
} text_command;

int text_commands_count(void);
const text_command *text_commands_at(int i);
/* The command `word` names (an alias too), or NULL. */
const text_command *text_commands_find(const char *word);
/* Help, from the table: each section's heading, then each of its commands
 * with its arguments and help line, in the user's language. */
void text_commands_help(FILE *out);

#endif /* SUNGKA_TEXT_COMMANDS_H */
