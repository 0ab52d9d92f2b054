# SPDX-License-Identifier: MIT
"""A QEMU boot whose guest memory is read after keel's verdict: the bytes a
loader placed (QEMU's -device guest-loader) must still be there after the
boot scrub, the heap and the domain build (issue 28 section 0).

The boot runs with after=halt and a QMP socket (keel.boot.Live); once the
serial log shows `KEEL: PASS` or `KEEL: FAIL`, the guest is stopped, each
expected file is read back from guest-physical memory with QMP `pmemsave`
and compared with the file, and QEMU is told to quit (exit status 0). The
result is a keel.boot.Boot like any other boot, so the usual report
checks run on it, plus one problem per range that differs."""

import json
import os
import socket
import time

from scripts.keel import boot


def unix_socket(path, wait=10):
    """A connected stream socket to @path, a QEMU server socket that may
    appear up to @wait seconds after QEMU starts; 30 s per read. QEMU
    binds the path before it listens: on a busy host a connect in between
    is refused (a CI run with two CPU hogs beside it was), so a refusal
    is tried again until @wait has passed."""
    deadline = time.monotonic() + wait
    while True:
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            sock.connect(path)
            break
        except (FileNotFoundError, ConnectionRefusedError):
            sock.close()
            if time.monotonic() >= deadline:
                raise
            time.sleep(0.1)
    sock.settimeout(30)
    return sock


class Qmp:
    """The QMP socket of one QEMU: commands and their replies."""

    def __init__(self, path, wait=10):
        self.sock = unix_socket(path, wait)
        self.buf = b""
        self._line()  # the greeting
        self.cmd("qmp_capabilities")

    def _line(self):
        while b"\n" not in self.buf:
            chunk = self.sock.recv(65536)
            if not chunk:
                raise RuntimeError("QMP closed")
            self.buf += chunk
        line, self.buf = self.buf.split(b"\n", 1)
        return json.loads(line)

    def cmd(self, execute, **arguments):
        msg = {"execute": execute}
        if arguments:
            msg["arguments"] = arguments
        self.sock.sendall(json.dumps(msg).encode() + b"\n")
        while True:
            reply = self._line()
            if "return" in reply:
                return reply["return"]
            if "error" in reply:
                raise RuntimeError(f"QMP {execute}: {reply['error']}")

    def close(self):
        self.sock.close()


def loader_args(expected):
    """QEMU arguments placing each (addr, file) of @expected in RAM."""
    return [a for addr, path in expected
            for a in ("-device", f"guest-loader,addr={addr:#x},kernel={path}")]


def _compare(qmp, workdir, expected):
    """[(addr, file)] read back and compared. Return: the problems."""
    out = []
    dump = os.path.join(workdir, "pmemsave.bin")
    for addr, path in expected:
        with open(path, "rb") as f:
            want = f.read()
        qmp.cmd("pmemsave", val=addr, size=len(want), filename=dump)
        with open(dump, "rb") as f:
            got = f.read()
        if got != want:
            diff = next((i for i, (a, b) in enumerate(zip(got, want))
                         if a != b), min(len(got), len(want)))
            out.append(f"guest memory at {addr:#x} ({len(want)} bytes of "
                       f"{os.path.basename(path)}) differs from the file "
                       f"from byte {diff} (got {got[diff:diff + 8].hex()})")
    return out


def boot_and_compare(cmd_for, timeout, log_path, workdir, expected):
    """Boot @cmd_for(extra QEMU args) (keel.boot.arm64_cmd's shape), wait
    for the verdict, compare @expected [(addr, file)] with guest memory.
    Return: (keel.boot.Boot, problems)."""
    return after_verdict(cmd_for, timeout, log_path, workdir,
                         lambda qmp: _compare(qmp, workdir, expected))


def after_verdict(cmd_for, timeout, log_path, workdir, act):
    """Boot @cmd_for(extra QEMU args) with a QMP socket, wait for the
    verdict, stop the guest and run @act(qmp) -> problems on it.
    Return: (keel.boot.Boot, problems)."""
    return watched_boot(cmd_for, timeout, log_path, workdir, act)


def watched_boot(cmd_for, timeout, log_path, workdir, act,
                 when=r"KEEL: (PASS|FAIL)", at_verdict=True):
    """Boot @cmd_for(extra QEMU args) with a QMP socket; once the log
    matches @when, run @act(qmp) -> problems: on the stopped guest, which
    is then told to quit, when @at_verdict; else on the running guest,
    which then runs to its own end. Return: (keel.boot.Boot, problems)."""
    sock = os.path.join(workdir, "qmp.sock")
    cmd = cmd_for(["-qmp", f"unix:{sock},server=on,wait=off"])
    t0 = time.monotonic()
    live = boot.Live(cmd, timeout)
    out = []
    try:
        if not live.wait_for(when, timeout):
            out.append(f"the log never matched {when!r} before the "
                       "timeout")
        else:
            qmp = Qmp(sock)
            if at_verdict:
                qmp.cmd("stop")
            out += act(qmp)
            try:
                if at_verdict:
                    qmp.cmd("quit")
            except (OSError, RuntimeError):
                pass  # QEMU may close the socket as it quits
            qmp.close()
            # Read the log on to the verdict (a full pipe would stall it).
            if not at_verdict and not live.wait_for(
                    r"KEEL: (PASS|FAIL)",
                    max(1, timeout - (time.monotonic() - t0))):
                out.append("no KEEL: verdict before the timeout")
    finally:
        live.stop(10)
    live.out += live.proc.stdout.read() or b""  # what is left in the pipe
    with open(log_path, "w", encoding="utf-8", errors="replace") as f:
        f.write(live.log)
    status = live.proc.returncode
    b = boot.Boot(cmd, status, live.log, time.monotonic() - t0, timeout,
                  status is None or status == boot.TIMEOUT_STATUS, log_path)
    return b, out


def mapped(qmp, addr):
    """Whether the stopped guest's CPU 0 maps virtual @addr (HMP gva2gpa:
    "gpa: ..." or "Unmapped")."""
    r = qmp.cmd("human-monitor-command",
                **{"command-line": f"gva2gpa {addr:#x}"})
    return r.strip().startswith("gpa:")
