/* Progress indicator of the command-line tool (see progress.h). */
#include "tools/tenport/progress.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "tools/tenport/commands.h"

#define MIN_REDRAW_SECONDS 0.1 /* at most 10 rewrites a second: cheap to watch */
#define CLEAR_LINE "\r\033[K"  /* back to column 0, erase to the end of the line */

int tenport_progress_wanted(int quiet) {
  return !quiet && isatty(STDERR_FILENO) && !getenv("TENPORT_NO_PROGRESS");
}

void tenport_progress_begin(tenport_progress *p, const char *what, int enabled) {
  p->enabled = enabled;
  p->stdout_on_tty = enabled && isatty(STDOUT_FILENO);
  p->shown = 0;
  p->what = what;
  p->start = tenport_seconds();
  p->last_draw = 0;
  p->text[0] = '\0';
}

/* Columns of the terminal, so that the line never wraps (a wrapped line cannot be
 * rewritten with '\r'); 80 when the terminal does not say. */
static int terminal_columns(void) {
  struct winsize w;
  if (ioctl(STDERR_FILENO, TIOCGWINSZ, &w) == 0 && w.ws_col > 0)
    return w.ws_col;
  return 80;
}

static void draw(tenport_progress *p, double now) {
  char line[TENPORT_PROGRESS_TEXT + 64];
  /* the time first: a narrow terminal cuts the status's end, not the clock */
  int n = snprintf(line, sizeof line, "tenport %s, %.1f s: %s", p->what, now - p->start, p->text);
  int width = terminal_columns() - 1; /* the cursor stays on the line */
  if (n > width)
    n = width;
  if (n > (int)sizeof line - 1)
    n = (int)sizeof line - 1;
  if (n < 0)
    n = 0;
  fputs(CLEAR_LINE, stderr);
  fwrite(line, 1, (size_t)n, stderr);
  fflush(stderr);
  p->shown = 1;
  p->last_draw = now;
}

static void set_text(tenport_progress *p, const char *fmt, va_list args) {
  vsnprintf(p->text, sizeof p->text, fmt, args);
}

/* Sets the status from fmt and args; draws it when forced or when the throttle allows. */
static void set_and_draw(tenport_progress *p, int force, const char *fmt, va_list args) {
  set_text(p, fmt, args);
  double now = tenport_seconds();
  if (force || !p->shown || now - p->last_draw >= MIN_REDRAW_SECONDS)
    draw(p, now);
}

void tenport_progress_update(tenport_progress *p, const char *fmt, ...) {
  if (!p->enabled)
    return;
  va_list args;
  va_start(args, fmt);
  set_and_draw(p, 0, fmt, args);
  va_end(args);
}

void tenport_progress_show(tenport_progress *p, const char *fmt, ...) {
  if (!p->enabled)
    return;
  va_list args;
  va_start(args, fmt);
  set_and_draw(p, 1, fmt, args);
  va_end(args);
}

static void clear_line(tenport_progress *p) {
  if (!p->shown)
    return;
  fputs(CLEAR_LINE, stderr);
  fflush(stderr);
  p->shown = 0;
}

void tenport_progress_hide(tenport_progress *p) {
  if (p->enabled && p->stdout_on_tty)
    clear_line(p);
}

void tenport_progress_end(tenport_progress *p) {
  if (p->enabled)
    clear_line(p);
  p->enabled = 0;
}
