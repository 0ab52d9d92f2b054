# SPDX-License-Identifier: MIT
"""Boot keel once and capture its serial log.

The one place that runs a keel boot for the tests, the benchmarks and the
fuzzers: the sandbox binary on a firmware description (sandbox()), or QEMU
through scripts/qemu.sh (x86_64_cmd()) or scripts/qemu-arm64.sh
(arm64_cmd()) run by qemu(). Every boot is bounded by a timeout: the
sandbox is killed when it expires; the QEMU scripts end QEMU themselves
(timeout(1), exit status 124) and are only killed here when they overrun
it by GRACE seconds. stdout and stderr go to one log, in a file when the
caller names one (the test matrices keep them), else in memory.

What a boot gives back is a Boot: its exit status, the log text, the
parsed KEEL-REPORT (report.find_report(), compact tables expanded), the
wall time, and problems(): why it is not the boot the caller wanted (a
timeout, another exit status, report.check_report()'s failures).

Boots that must be watched while they run (capture-seeds.py stops the
guest at the verdict and reads its memory) use Live instead.
"""

import os
import re
import select
import signal
import subprocess
import time

from . import report

TOP = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))
QEMU_SH = os.path.join(TOP, "scripts", "qemu.sh")
QEMU_ARM64_SH = os.path.join(TOP, "scripts", "qemu-arm64.sh")
# timeout(1)'s exit status: the QEMU scripts' --timeout expired.
TIMEOUT_STATUS = 124
# Seconds a QEMU script may overrun its own --timeout (it kills QEMU with
# timeout -k 5) before it is killed here.
GRACE = 30


class Boot:
    """One finished boot.

    @status: the exit status, None when it was killed here at its timeout.
    @timed_out: the timeout ended it (killed here, or timeout(1)'s 124).
    """

    def __init__(self, cmd, status, log, elapsed, timeout, timed_out,
                 log_path=None):
        self.cmd = cmd
        self.status = status
        self.log = log
        self.elapsed = elapsed
        self.timeout = timeout
        self.timed_out = timed_out
        self.log_path = log_path
        self._report = None
        self._report_error = None

    def _parse(self):
        if self._report is None and self._report_error is None:
            try:
                self._report = report.find_report(self.log)
            except report.ReportError as e:
                self._report_error = str(e)

    @property
    def report(self):
        """The parsed KEEL-REPORT, None when the log has no usable one."""
        self._parse()
        return self._report

    @property
    def report_error(self):
        """Why there is no report (report.ReportError's text), or None."""
        self._parse()
        return self._report_error

    def verdict(self):
        """('PASS', None), ('FAIL', reason) or (None, None)."""
        return report.find_verdict(self.log)

    def status_text(self):
        """'timed out after N s', 'killed by SIGSEGV' or 'exit status N'."""
        if self.timed_out:
            return f"timed out after {self.timeout} s"
        if self.status < 0:
            return f"killed by {signal.Signals(-self.status).name}"
        return f"exit status {self.status}"

    def tail(self, lines=3):
        """The last @lines lines of the log, joined by ' | '."""
        return " | ".join(self.log.strip().splitlines()[-lines:])

    def problems(self, exit_status=0, expect=None):
        """Why this is not a passing boot ending in @exit_status: a timeout
        (unless @exit_status is TIMEOUT_STATUS), another exit status, then
        report.check_report()'s failures against @expect. Return: a list
        of strings, empty when the boot is what was wanted.
        """
        out = []
        if self.status == exit_status:
            pass
        elif self.timed_out:
            out.append(self.status_text())
        else:
            out.append(f"{self.status_text()}, expected {exit_status}")
        return out + report.check_report(self.log, expect)


def _run(cmd, timeout, kill_after, log_path, env, cwd, qemu):
    """Run @cmd, stdout and stderr to @log_path (or memory), stdin empty;
    kill it after @kill_after seconds."""
    if env is not None:
        env = dict(os.environ, **env)
    t0 = time.monotonic()
    status = None
    out = b""
    log = open(log_path, "wb") if log_path else None
    try:
        p = subprocess.run(cmd, stdout=log or subprocess.PIPE,
                           stderr=subprocess.STDOUT,
                           stdin=subprocess.DEVNULL, env=env, cwd=cwd,
                           timeout=kill_after)
        status, out = p.returncode, p.stdout
    except subprocess.TimeoutExpired as e:
        out = e.stdout
    finally:
        if log:
            log.close()
    elapsed = time.monotonic() - t0
    if log_path:
        with open(log_path, "rb") as f:
            out = f.read()
    text = (out or b"").decode("utf-8", "replace")
    timed_out = status is None or (qemu and status == TIMEOUT_STATUS)
    return Boot(cmd, status, text, elapsed, timeout, timed_out, log_path)


def sandbox(binary, fw, args=(), opts=(), timeout=120, env=None,
            log_path=None, cwd=None):
    """Boot the sandbox @binary on the firmware description @fw with the
    command line words @args; @opts are sandbox options (--prefault),
    which go before @fw. @env: variables added to the environment.
    Return: a Boot (status None when @timeout expired).
    """
    cmd = [binary, *opts, fw, *args]
    return _run(cmd, timeout, timeout, log_path, env, cwd, qemu=False)


def _qemu_tail(append, timeout, extra):
    out = []
    if append is not None:
        out += ["--append", append]
    out += ["--timeout", str(timeout)]
    if extra:
        out += ["--", *extra]
    return out


def x86_64_cmd(args, append=None, timeout=30, extra=()):
    """scripts/qemu.sh x86_64 @args [--append @append] --timeout @timeout
    [-- @extra QEMU arguments]."""
    return [QEMU_SH, "x86_64", *args] + _qemu_tail(append, timeout, extra)


def arm64_cmd(image, args, append=None, timeout=30, extra=()):
    """scripts/qemu-arm64.sh --image @image @args [--append @append]
    --timeout @timeout [-- @extra QEMU arguments]."""
    return ([QEMU_ARM64_SH, "--image", image, *args]
            + _qemu_tail(append, timeout, extra))


def qemu(cmd, timeout, log_path=None):
    """Run a QEMU boot: @cmd from x86_64_cmd() or arm64_cmd() (or what
    they print with --dry-run), whose own --timeout is @timeout.
    Return: a Boot; timed_out when QEMU's timeout(1) ended it (124).
    """
    return _run(cmd, timeout, timeout + GRACE, log_path, None, None,
                qemu=True)


class Live:
    """A boot watched while it runs: its log grows as wait_for() reads it.

    For callers that act on the running guest (QMP); stop() ends it.
    """

    def __init__(self, cmd, timeout):
        self.cmd = cmd
        self.timeout = timeout
        self.proc = subprocess.Popen(cmd, stdout=subprocess.PIPE,
                                     stderr=subprocess.STDOUT,
                                     stdin=subprocess.DEVNULL)
        self.out = b""

    @property
    def log(self):
        # Serial output may hold any byte: latin-1 keeps every one.
        return self.out.decode("latin-1")

    def wait_for(self, pattern, secs):
        """Read the log until @pattern (a regex) appears in it or @secs
        pass. Return: whether it appeared."""
        end = time.time() + secs
        rx = re.compile(pattern.encode())
        while time.time() < end:
            if rx.search(self.out):
                return True
            r, _, _ = select.select([self.proc.stdout], [], [], 0.5)
            if r:
                chunk = os.read(self.proc.stdout.fileno(), 65536)
                if not chunk:
                    break
                self.out += chunk
        return bool(rx.search(self.out))

    def report(self):
        """The parsed KEEL-REPORT of the log so far, or None."""
        try:
            return report.find_report(self.log)
        except report.ReportError:
            return None

    def stop(self, secs=10):
        """Wait @secs for the boot to end, then terminate it."""
        try:
            self.proc.wait(timeout=secs)
        except subprocess.TimeoutExpired:
            self.proc.terminate()
            self.proc.wait()
