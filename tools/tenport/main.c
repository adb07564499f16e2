/* tenport: command-line front end of the library (the dispatcher is in dispatch.c). */
#include "tools/tenport/dispatch.h"

int main(int argc, char **argv) { return tenport_main(argc, argv); }
