/* commands.h: the subcommands of flce; each returns the process exit status
 * (0 success, 1 failure of the work, 2 usage error). */
#ifndef FLCE_COMMANDS_H
#define FLCE_COMMANDS_H

int flce_cmd_data(int argc, char **argv);
int flce_cmd_eval(int argc, char **argv);
int flce_cmd_step(int argc, char **argv);
int flce_cmd_run(int argc, char **argv);
int flce_cmd_truth(int argc, char **argv);
int flce_cmd_report(int argc, char **argv);
int flce_cmd_check(int argc, char **argv);

#endif
