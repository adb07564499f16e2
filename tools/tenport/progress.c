/* Progress indicator of the command-line tool (see progress.h). */
