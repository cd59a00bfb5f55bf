/*
 * text_input.c — the text view's input lines: libedit on a terminal, plain
 * lines from a pipe (text_input.h says which and why).
 *
 * Plain input is read with read(2) into our own buffer, not stdio, so poll()
 * never sleeps on lines stdio has already buffered (pipes deliver many at
 * once).
 *
 * With libedit, a finished line is not handed over from inside its callback:
 * libedit draws the next prompt and takes the terminal back as soon as the
 * callback returns, before the view has printed what the line did (or
 * turned the echo off for a password). So the callback keeps the line, the
 * handler is removed (the terminal as the user had it, the prompt wiped),
 * the line handed over, and the handler installed again afterwards unless a
 * password is asked for next.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <editline/readline.h>

#include "text_input.h"
#include "view_i18n.h"

#define PROMPT "> "

/* libedit's callbacks take no context: the one text_input open. */
static text_input *active;
static const char *const *completions;

static void on_edited_line(char *line)
{
    text_input *ti = active;
    if (!ti)
        return;
    if (!line) {
        ti->eof = true;
        return;
    }
    free(ti->pending);
    ti->pending = line;
}

/* Tab on the first word: the command names that start with it. */
static char *command_word(const char *text, int state)
{
    static int next;
    static size_t len;
    if (state == 0) {
        next = 0;
        len = strlen(text);
    }
    while (completions && completions[next]) {
        const char *w = completions[next++];
        if (strncmp(w, text, len) == 0)
            return strdup(w);
    }
    return NULL;
}

static char **complete(const char *text, int start, int end)
{
    (void)end;
    rl_attempted_completion_over = 1;   /* never file names */
    return start == 0 ? rl_completion_matches(text, command_word) : NULL;
}

static void edit_on(text_input *ti)
{
    if (ti->editing || !ti->can_edit || ti->plain || ti->eof)
        return;
    fflush(ti->out);
    rl_callback_handler_install(ti->prompt, on_edited_line);
    ti->editing = true;
}

static void edit_off(text_input *ti)
{
    if (!ti->editing)
        return;
    rl_callback_handler_remove();
    ti->editing = false;
}

void text_input_open(text_input *ti, FILE *in, FILE *out, const char *history,
                     const char *const *words, text_input_line_fn on_line, void *ctx)
{
    memset(ti, 0, sizeof *ti);
    ti->in = in;
    ti->out = out;
    ti->fd = fileno(in);
    ti->on_line = on_line;
    ti->ctx = ctx;
    snprintf(ti->prompt, sizeof ti->prompt, "%s", PROMPT);
    ti->can_edit = isatty(ti->fd) == 1 && isatty(fileno(out)) == 1 && !active;
    if (!ti->can_edit)
        return;
    active = ti;
    completions = words;
    rl_instream = in;
    rl_outstream = out;
    rl_readline_name = "sungka";
    rl_attempted_completion_function = complete;
    using_history();
    stifle_history(TEXT_HISTORY_LINES);
    if (history) {
        snprintf(ti->history, sizeof ti->history, "%s", history);
        read_history(ti->history);      /* none yet is fine */
    }
    edit_on(ti);
}

int text_input_fd(const text_input *ti)
{
    return ti->fd;
}

bool text_input_editing(const text_input *ti)
{
    return ti->editing;
}

/* Plain lines: split what arrived into lines; false at end of input. */
static bool read_plain(text_input *ti)
{
    char chunk[512];
    ssize_t n = read(ti->fd, chunk, sizeof chunk);
    if (n < 0)
        return errno == EINTR || errno == EAGAIN;
    if (n == 0) {
        if (ti->line_len && !ti->discarding) {
            ti->line[ti->line_len] = '\0';
            ti->on_line(ti->ctx, ti->line);
        }
        return false;
    }
    for (ssize_t i = 0; i < n; i++) {
        char c = chunk[i];
        if (c == '\n') {
            if (ti->discarding)
                fprintf(ti->out, _("That line was too long (over %d bytes); ignored.\n"),
                        TEXT_LINE_MAX_BYTES);
            else {
                ti->line[ti->line_len] = '\0';
                ti->on_line(ti->ctx, ti->line);
            }
            ti->line_len = 0;
            ti->discarding = false;
        } else if (ti->line_len < TEXT_LINE_MAX_BYTES) {
            ti->line[ti->line_len++] = c;
        } else {
            ti->discarding = true;
        }
    }
    return true;
}

bool text_input_read(text_input *ti)
{
    if (!ti->editing) {
        bool open = read_plain(ti);
        edit_on(ti);                 /* a password was taken: edit again */
        return open;
    }
    rl_callback_read_char();
    if (ti->eof) {
        edit_off(ti);
        fputc('\n', ti->out);
        return false;
    }
    char *line = ti->pending;
    if (!line)
        return true;
    ti->pending = NULL;
    edit_off(ti);
    fputs("\r\033[K", ti->out);    /* the prompt libedit drew for the next line */
    if (strlen(line) > TEXT_LINE_MAX_BYTES) {
        fprintf(ti->out, _("That line was too long (over %d bytes); ignored.\n"),
                TEXT_LINE_MAX_BYTES);
    } else {
        if (line[strspn(line, " \t")])
            add_history(line);
        ti->on_line(ti->ctx, line);
    }
    free(line);
    edit_on(ti);
    return true;
}

void text_input_hide(text_input *ti)
{
    if (ti->editing) {
        fflush(ti->out);
        fputs("\r\033[K", ti->out);
    }
}

void text_input_show(text_input *ti)
{
    if (ti->editing) {
        fflush(ti->out);
        rl_forced_update_display();
    }
}

void text_input_set_prompt(text_input *ti, const char *prompt)
{
    snprintf(ti->prompt, sizeof ti->prompt, "%s", prompt ? prompt : PROMPT);
    if (ti->editing)
        rl_set_prompt(ti->prompt);
}

void text_input_plain(text_input *ti, bool plain)
{
    ti->plain = plain;
    if (plain)
        edit_off(ti);
    else
        edit_on(ti);
}

void text_input_close(text_input *ti)
{
    if (active != ti)
        return;
    if (ti->editing) {
        edit_off(ti);
        fputs("\r\033[K", ti->out);     /* the prompt drawn for a line never typed */
    }
    if (ti->history[0] && write_history(ti->history) == 0)
        chmod(ti->history, 0600);       /* chat and names typed: the user's own */
    free(ti->pending);
    ti->pending = NULL;
    active = NULL;
    completions = NULL;
}
