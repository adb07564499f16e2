/* tenport: command-line front end of the library (the dispatcher is in dispatch.c).
 * Signals: SIGINT, SIGTERM and SIGHUP remove the temporaries of the run's unfinished
 * outputs before the process ends as the signal would end it (SIGKILL cannot be caught:
 * its temporaries are removed by the next run that writes the same name). SIGPIPE is
 * ignored, so that a reader that stops reading the output (`| head`) costs the printing,
 * not the results: the work goes on and its files are written. SIGXFSZ is ignored, so
 * that a file-size limit fails a write with "File too large", as a full disk does. */
#include <signal.h>

#include "tenport/files.h"
#include "tools/tenport/dispatch.h"

static void remove_temporaries_and_end(int sig) {
  tp_output_remove_temporaries();
  raise(sig); /* SA_RESETHAND: now with the default action */
}

static void take_signals(void) {
  struct sigaction end;
  end.sa_handler = remove_temporaries_and_end;
  sigemptyset(&end.sa_mask);
  end.sa_flags = SA_RESETHAND;
  const int ending[3] = {SIGINT, SIGTERM, SIGHUP};
  for (int i = 0; i < 3; ++i)
    sigaction(ending[i], &end, NULL);
  signal(SIGPIPE, SIG_IGN);
  signal(SIGXFSZ, SIG_IGN);
}

int main(int argc, char **argv) {
  take_signals();
  return tenport_main(argc, argv);
}
