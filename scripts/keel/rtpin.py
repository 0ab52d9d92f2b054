# SPDX-License-Identifier: MIT
"""Run a QEMU boot the way a real-time latency measurement is run.

A real-time guest gets a host core of its own, on which the hypervisor
takes its timer interrupt at once: cyclictest-style measurements isolate
and pin the measured CPU. Under QEMU TCG the emulated timers of every
vCPU are fired by QEMU's main loop thread, an ordinary host thread: when
it wakes on a host core that a busy vCPU thread holds, the host scheduler
may leave it waiting until its next tick (4 ms here), and the probe's
sample is that late although the guest had interrupts on; a vCPU thread
that shares its core with another busy thread has its interrupts-off
regions stretched by the time it is not run. Measured on this 2-core VM
(x86_64, 1 GiB extents): build-local deferred max 3.9-4.8 ms as is,
0.43-0.49 ms with the main loop thread SCHED_FIFO; build-remote deferred
interrupts-off maximum 46-64 us with the main loop on the load vCPU's
core, 21-32 us with it on the probe's.

Pinned(probe_cpu) keeps the host's CPUs out of deep idle while it is
entered (0 written to /dev/cpu_dma_latency and held open, as cyclictest
does: waking an idle core of this VM costs its hypervisor's wake-up),
watches for the QEMU this process starts (its boot must name threads:
QEMU's -name debug-threads=on) and then
  - makes QEMU's main thread SCHED_FIFO priority 1, with reset-on-fork
    (threads it starts later are ordinary);
  - pins the probe's vCPU thread ("CPU <probe>/TCG") and the main thread,
    the probe's timer path, to the last host core, and every other QEMU
    thread (the load's vCPUs) to the other cores;
  - keeps this process (the watcher, the log reader) on the other cores
    too, and stops watching SETTLE_S after the probe's thread is pinned
    (a scan of /proc takes milliseconds of a core).
What it could not do (no permission, one host core) is in .notes; the
boot runs anyway. .steal_ms is the steal time of all CPUs while it was
entered (scripts/keel/hostfreeze.py): what a host that stops this VM took
from the boot, which no pinning inside the VM can prevent; None when
/proc/stat has none.
"""

import os
import threading
import time

from . import hostfreeze

# Poll for QEMU's threads every POLL_S until the probe's vCPU thread is
# seen, then every SLOW_S until SETTLE_S later (QEMU starts its threads
# at once), WATCH_S at most.
POLL_S = 0.002
SLOW_S = 0.25
SETTLE_S = 1.0
WATCH_S = 20.0


def _descendants(root):
    """PIDs below @root whose command is qemu-system-*."""
    children = {}
    for d in os.listdir("/proc"):
        if not d.isdigit():
            continue
        try:
            with open(f"/proc/{d}/stat") as f:
                st = f.read()
        except OSError:
            continue
        rest = st[st.rfind(")") + 2:].split()
        children.setdefault(int(rest[1]), []).append(
            (int(d), st[st.find("(") + 1:st.rfind(")")]))
    out, todo = [], [root]
    while todo:
        for pid, comm in children.get(todo.pop(), []):
            todo.append(pid)
            if comm.startswith("qemu-system"):
                out.append(pid)
    return out


def _threads(pid):
    """{tid: name} of @pid's threads."""
    out = {}
    try:
        tids = os.listdir(f"/proc/{pid}/task")
    except OSError:
        return out
    for t in tids:
        try:
            with open(f"/proc/{pid}/task/{t}/comm") as f:
                out[int(t)] = f.read().strip()
        except OSError:
            pass
    return out


class Pinned:
    """with Pinned(probe_cpu): boot.qemu(...) -- see the module's text."""

    def __init__(self, probe_cpu):
        self.probe = f"CPU {probe_cpu}/TCG"
        self.notes = []
        self.steal_ms = None
        self.done = set()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._watch, daemon=True)
        cores = sorted(os.sched_getaffinity(0))
        self.probe_cores = {cores[-1]}
        self.other_cores = set(cores[:-1]) or set(cores)
        if len(cores) < 2:
            self.notes.append("one host core: no core of its own for the "
                              "probe's vCPU")

    def __enter__(self):
        self._affinity = os.sched_getaffinity(0)
        try:
            os.sched_setaffinity(0, self.other_cores)
        except OSError as e:
            self.notes.append(f"this process's affinity: {e.strerror}")
        try:
            self._dma = os.open("/dev/cpu_dma_latency", os.O_WRONLY)
            os.write(self._dma, (0).to_bytes(4, "little"))
        except OSError as e:
            self._dma = None
            self.notes.append(f"/dev/cpu_dma_latency: {e.strerror}")
        self._thread.start()
        self._steal = hostfreeze.steal_ms()
        return self

    def __exit__(self, *exc):
        steal = hostfreeze.steal_ms()
        if steal is not None and self._steal is not None:
            self.steal_ms = steal - self._steal
        self._stop.set()
        self._thread.join()
        os.sched_setaffinity(0, self._affinity)
        if self._dma is not None:
            os.close(self._dma)
        if "fifo" not in self.done:
            self.notes.append("QEMU's main thread was not made SCHED_FIFO")
        if "probe" not in self.done:
            self.notes.append(f"no thread {self.probe!r} was pinned")
        return False

    def _apply(self, pid, tid, name):
        try:
            if tid == pid and "fifo" not in self.done:
                os.sched_setscheduler(
                    tid, os.SCHED_FIFO | os.SCHED_RESET_ON_FORK,
                    os.sched_param(1))
                self.done.add("fifo")
            if name == self.probe or tid == pid:
                os.sched_setaffinity(tid, self.probe_cores)
                self.done.add("probe" if tid != pid else "main")
            else:
                os.sched_setaffinity(tid, self.other_cores)
        except OSError as e:
            self.notes.append(f"thread {tid} ({name}): {e.strerror}")

    def _watch(self):
        seen, end = set(), time.monotonic() + WATCH_S
        while not self._stop.is_set() and time.monotonic() < end:
            for pid in _descendants(os.getpid()):
                for tid, name in _threads(pid).items():
                    if (tid, name) not in seen:
                        seen.add((tid, name))
                        self._apply(pid, tid, name)
            if "probe" in self.done:
                end = min(end, time.monotonic() + SETTLE_S)
            time.sleep(SLOW_S if "probe" in self.done else POLL_S)
