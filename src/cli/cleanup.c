/*
 * Signals around file replacement: an interrupted save leaves the old file and no temporary.
 *
 * The library writes every output file to a temporary next to it and renames it into place
 * (fl_write_file_atomic), removing the temporary on every error path. It installs no signal
 * handlers, but it reads a flag the caller's handler sets (fl_set_interrupt_flag): while
 * it is set, a save stops at its next check, removes its temporary and returns
 * FL_ERR_INTERRUPTED with the old file untouched. So the CLI:
 *   - ignores SIGXFSZ for the whole run: exceeding RLIMIT_FSIZE then fails the write with
 *     EFBIG (POSIX write(2)), the library removes its temporary and the command reports
 *     "File too large" and exits 2, instead of dying with a core and a half-written file;
 *   - catches SIGINT, SIGTERM and SIGHUP while a file is being replaced (those not ignored
 *     when the command started, so nohup and background jobs keep their dispositions): the
 *     handler only sets the flag, the save is abandoned, and the command says so in one line
 *     and exits 128 + the signal number (130 for Ctrl-C), as a shell reports a death by it.
 * Outside a save the signals keep their default action: nothing has been written then.
 * SIGKILL cannot be caught: it may leave a temporary, never a damaged output file.
 */
#include <signal.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

static const int caught[] = {SIGINT, SIGTERM, SIGHUP};
#define NCAUGHT (sizeof caught / sizeof caught[0])

static volatile sig_atomic_t interrupted; /* the signal's number, 0 if none */
static struct sigaction previous[NCAUGHT];
static int installed[NCAUGHT];
static const char *target; /* the file being replaced, for the message */

static void on_signal(int sig)
{
    interrupted = sig;
}

void cli_signals_init(void)
{
    signal(SIGXFSZ, SIG_IGN);
    fl_set_interrupt_flag(&interrupted);
}

void cli_replace_begin(const char *path)
{
    target = path;
    interrupted = 0;
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    /* No SA_RESTART: a blocking write into a FIFO returns EINTR and the library sees the
     * flag. (A regular file's writes complete; the library checks between them.) */
    for (size_t i = 0; i < NCAUGHT; i++) {
        installed[i] = 0;
        if (sigaction(caught[i], NULL, &previous[i]) != 0 || previous[i].sa_handler == SIG_IGN)
            continue;
        installed[i] = sigaction(caught[i], &sa, NULL) == 0;
    }
    /* A test hook: the interrupt arrives as the save starts, where the timing of a real
     * kill cannot be relied on (tests/cli/test_cli_safety.sh). */
    const char *hook = getenv("FILTERLAB_TEST_SIGNAL_IN_SAVE");
    if (hook && *hook)
        raise(atoi(hook));
}

void cli_replace_end(fl_status s)
{
    for (size_t i = 0; i < NCAUGHT; i++)
        if (installed[i])
            sigaction(caught[i], &previous[i], NULL);
    int sig = interrupted;
    if (!sig)
        return;
    const char *what = sig == SIGINT ? "interrupted" : sig == SIGTERM ? "terminated" : "hung up";
    char q[CLI_QUOTE_BUF];
    cli_quote(target ? target : "", q, sizeof q);
    /* Any failure removed the temporary; only a signal after the library's last check
     * (the rename under way) finds the new file in place. */
    if (s == FL_OK)
        cli_fail(128 + sig, "%s after %s was written", what, q);
    else
        cli_fail(128 + sig, "%s; %s left unchanged", what, q);
    fflush(stdout);
    _Exit(128 + sig);
}
