/* The tenport command as a function, so that it can run in process (tests/fuzz). */
#ifndef TENPORT_DISPATCH_H
#define TENPORT_DISPATCH_H

/* Runs `tenport argv[1] ...` (argv[0] is the program's name) and returns its exit code:
 * 0 on success, 1 when the work failed, 2 on a usage error. */
int tenport_main(int argc, char **argv);

/* A command's function by its word ("cp-als"), or NULL: tenport demo runs the others so,
 * in process, as they are (no conventions applied, no summary of their own). */
typedef int (*tenport_command_fn)(int argc, char **argv);
tenport_command_fn tenport_command_named(const char *name);

#endif
