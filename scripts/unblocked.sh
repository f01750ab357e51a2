# Sourced by the recording scripts. A parent may block SIGINT and SIGTERM (test runners do), and
# children inherit that mask: servers, proxies and tcpdump are started through `unblocked`, which
# unblocks them so that they can be stopped cleanly. It execs: use it only in the background or in
# a process substitution.
unblocked() {
    exec python3 -c 'import os, signal, sys
signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT, signal.SIGTERM})
signal.signal(signal.SIGINT, signal.SIG_DFL)
signal.signal(signal.SIGTERM, signal.SIG_DFL)
os.execvp(sys.argv[1], sys.argv[1:])' "$@"
}
