/* A one-line progress indicator for long runs: "tenport WHAT, 12.3 s: <status>" on
 * stderr, rewritten in place ('\r' and clear to the end of the line) and cleared when the
 * run ends, so that the summary on stdout starts on a clean line. It shows only on a
 * terminal: a disabled indicator does nothing at all.
 *
 *   tenport_progress bar;
 *   tenport_progress_begin(&bar, "sttid", tenport_progress_wanted(quiet));
 *   ...  tenport_progress_update(&bar, "bond %d of %d", k, n);  ...
 *   tenport_progress_end(&bar);
 */
#ifndef TENPORT_PROGRESS_H
#define TENPORT_PROGRESS_H

#define TENPORT_PROGRESS_TEXT 160

typedef struct tenport_progress {
  int enabled;
  int stdout_on_tty; /* stdout may share the terminal: hide the line before writing */
  int shown;         /* a status line is on the terminal now */
  const char *what;
  double start; /* seconds, tenport_seconds() */
  double last_draw;
  char text[TENPORT_PROGRESS_TEXT]; /* the latest status */
} tenport_progress;

/* 1 when an indicator should show: stderr is a terminal, the command was not given
 * --quiet and the environment does not set TENPORT_NO_PROGRESS. */
int tenport_progress_wanted(int quiet);

/* Starts the clock; what names the command. Nothing is drawn until the first update. */
void tenport_progress_begin(tenport_progress *p, const char *what, int enabled);

/* Sets the status (printf-style) and redraws the line, at most 10 times a second. */
void tenport_progress_update(tenport_progress *p, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

/* Sets the status and redraws the line now, for a state that may stand for a while
 * (the last iteration, a finished phase), so that the line never shows a stale one. */
void tenport_progress_show(tenport_progress *p, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

/* Call before writing to stdout while the indicator runs: when stdout is a terminal
 * too, clears the line so that the text does not land on it, and the next update or
 * show draws it again at once (the throttle is for rewrites of a line in place). */
void tenport_progress_hide(tenport_progress *p);

/* Clears the line for good; the indicator is disabled until the next begin. */
void tenport_progress_end(tenport_progress *p);

#endif
