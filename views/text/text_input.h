/*
 * text_input.h — the text view's input lines. When the input is a terminal
 * they are edited with libedit: arrow keys, history (kept between runs, at
 * most TEXT_HISTORY_LINES lines), Tab completing command names, a prompt.
 * When it is a pipe (tests, bots, scripts) lines are taken as they come,
 * with no prompt and no echo, as before libedit.
 *
 * Output while the user edits: the view calls text_input_hide before it
 * prints (the prompt line, with what is typed so far, is wiped) and
 * text_input_show after (the prompt and the unfinished line are drawn again
 * below what was printed), so an event never lands in the middle of a
 * half-typed command. libedit's readline interface is used in its callback
 * form (rl_callback_handler_install, rl_callback_read_char), which fits the
 * view's poll() loop; the price is that its state is global: one
 * text_input at a time, view thread only.
 *
 * A line that asks for a password (text_account) is read with editing off
 * (text_input_plain), so the terminal's echo can be turned off for it, and
 * it never enters the history.
 */
#ifndef SUNGKA_TEXT_INPUT_H
#define SUNGKA_TEXT_INPUT_H

#include <stdbool.h>
#include <stdio.h>

#define TEXT_LINE_MAX_BYTES 1024   /* longer lines are refused whole */
#define TEXT_HISTORY_LINES 500

/* Called with each line (NUL-terminated, no newline; the callee may change
 * it, not keep it). */
typedef void (*text_input_line_fn)(void *ctx, char *line);

typedef struct text_input {
    int fd;                        /* read from */
    FILE *in, *out;
    bool editing;                  /* libedit has the terminal (a prompt is shown) */
    bool can_edit;                 /* fd and out are terminals */
    bool plain;                    /* the next lines without editing (a password) */
    char history[4096];            /* the history file, "" for none */
    char prompt[160];
    text_input_line_fn on_line;
    void *ctx;
    char *pending;                 /* a line libedit finished, not yet handed over */
    bool eof;
    /* plain reading */
    char line[TEXT_LINE_MAX_BYTES + 1];
    size_t line_len;
    bool discarding;               /* the current line was too long */
} text_input;

/* Start reading in (with out for the prompt and messages). history: the
 * file to keep the history in, or NULL; words: the command names Tab
 * completes (NULL-terminated, static). Editing only when in and out are
 * terminals. */
void text_input_open(text_input *ti, FILE *in, FILE *out, const char *history,
                     const char *const *words, text_input_line_fn on_line, void *ctx);
/* The descriptor to poll for POLLIN. */
int text_input_fd(const text_input *ti);
/* Input is ready: read it, calling on_line for each line finished; false
 * at the end of input (then no more calls). */
bool text_input_read(text_input *ti);
/* Around output while a prompt may be shown: see the top of this file. */
void text_input_hide(text_input *ti);
void text_input_show(text_input *ti);
/* The prompt (NULL: the usual one), shown at the next text_input_show:
 * call it between text_input_hide and text_input_show (libedit redraws
 * from the start of the line, so the line must be wiped once and drawn
 * once). */
void text_input_set_prompt(text_input *ti, const char *prompt);
/* Read lines without editing (true: a password is asked for), or edit again. */
void text_input_plain(text_input *ti, bool plain);
/* Whether a prompt line is on the screen now (a line of our own would
 * otherwise be there: the clock). */
bool text_input_editing(const text_input *ti);
/* Leave the terminal as it was and save the history. */
void text_input_close(text_input *ti);

#endif /* SUNGKA_TEXT_INPUT_H */
