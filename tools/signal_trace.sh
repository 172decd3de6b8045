#!/usr/bin/env bash
# Who sent which process a signal that ends it by default (SIGHUP, SIGINT, SIGQUIT, SIGABRT, SIGKILL, SIGSEGV, SIGPIPE,
# SIGALRM, SIGTERM), from the kernel's own record (tracefs event signal:signal_generate), for a CI run that fails.
#
#   tools/signal_trace.sh start    # root only; does nothing (and says why) where tracefs is not available
#   tools/signal_trace.sh report   # the signals sent to ansible-playbook by anything but Ansible, then all of them
#   tools/signal_trace.sh stop     # the event off and its buffer emptied
#
# Why: the suite's rare Ansible failure was "ansible-playbook was ended by a signal before its play recap"
# (components/onprem/runner.py). A traced run that failed so showed no SIGHUP, SIGINT, SIGKILL or SIGTERM from outside
# Ansible, hence the wider set. The cause was a crash, not a sender: gRPC's fork handler aborting the child pexpect had
# forked (SIGABRT, before exec, so under the forking process's name). The playbook now starts as a plain subprocess;
# the trace stays for whatever ends a process next. It costs nothing measurable (a few hundred signals in a whole
# `make test`; ansible-playbook ignores its SIGPIPEs).
set -uo pipefail

TRACE=/sys/kernel/tracing
EVENT=$TRACE/events/signal/signal_generate

case "${1:-}" in
  start)
    if [ "$(id -u)" != 0 ]; then echo "signal trace: not root, not traced"; exit 0; fi
    [ -d "$EVENT" ] || mount -t tracefs nodev "$TRACE" 2>/dev/null
    if [ ! -d "$EVENT" ]; then echo "signal trace: no tracefs here, not traced"; exit 0; fi
    echo 0 > "$EVENT/enable"
    echo > "$TRACE/trace"
    echo 16384 > "$TRACE/buffer_size_kb"
    echo 'sig==1 || sig==2 || sig==3 || sig==6 || sig==9 || sig==11 || sig==13 || sig==14 || sig==15' > "$EVENT/filter"
    echo 1 > "$EVENT/enable"
    echo 1 > "$TRACE/tracing_on"
    ;;
  report)
    [ -r "$TRACE/trace" ] || exit 0
    echo "--- signals to ansible-playbook from anything but Ansible (sender-pid ... comm=target pid=...):"
    grep 'comm=ansible-playboo' "$TRACE/trace" | grep -v '^ *ansible-playboo-' || echo "(none)"
    echo "--- every such signal of the run:"
    grep 'signal_generate' "$TRACE/trace" || echo "(none)"
    ;;
  stop)
    [ -d "$EVENT" ] || exit 0
    echo 0 > "$EVENT/enable"
    echo 0 > "$EVENT/filter"
    echo > "$TRACE/trace"
    echo 1408 > "$TRACE/buffer_size_kb"  # the kernel's default size
    ;;
  *)
    echo "usage: $0 start|report|stop" >&2
    exit 2
    ;;
esac
