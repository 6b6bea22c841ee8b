/*
 * Signals around file replacement: no orphan PATH.tmp.XXXXXX after a signal.
 *
 * The library writes every output file to a temporary next to it and renames it into place
 * (fl_write_file_atomic), removing the temporary on every error path, but it installs no
 * signal handlers and does not tell its caller the temporary's name. So the CLI:
 *   - ignores SIGXFSZ for the whole run: exceeding RLIMIT_FSIZE then fails the write with
 *     EFBIG (POSIX write(2)), the library removes its temporary and the command reports
 *     "File too large" and exits 2, instead of dying with a core and a half-written file;
 *   - blocks SIGINT, SIGTERM and SIGHUP while a file is being replaced, so the temporary is
 *     either renamed or removed before such a signal is delivered; it is then delivered as
 *     usual (default action: the process ends by that signal, after the save).
 * SIGKILL cannot be caught: it may leave a temporary, never a damaged output file.
 */
#include <signal.h>

#include "cli.h"

static sigset_t deferred, saved;

void cli_signals_init(void)
{
    signal(SIGXFSZ, SIG_IGN);
    sigemptyset(&deferred);
    sigaddset(&deferred, SIGINT);
    sigaddset(&deferred, SIGTERM);
    sigaddset(&deferred, SIGHUP);
}

void cli_replace_begin(void)
{
    sigprocmask(SIG_BLOCK, &deferred, &saved);
}

void cli_replace_end(void)
{
    /* A signal that arrived meanwhile is delivered here. */
    sigprocmask(SIG_SETMASK, &saved, NULL);
}
