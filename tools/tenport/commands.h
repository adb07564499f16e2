/* Subcommands of the tenport command-line tool. Each returns the process exit code. */
#ifndef TENPORT_COMMANDS_H
#define TENPORT_COMMANDS_H

int tenport_cmd_info(int argc, char **argv);

#endif
